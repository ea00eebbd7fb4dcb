"""Co-simulation speed: Verilator build time and simulated cycles/s per configuration.

Run on demand (not a test)::

    .venv/bin/python benchmarks/cosim_speed.py [--cycles 2000] [--fresh]

For each configuration it prints the Verilog generation time, the Verilator
build time (``--fresh`` builds into a new cache, otherwise a cached build
shows 0), the simulated cycles per second of the cocotb replay, and that
speed as a ratio against two references: the golden model's cycles/s on the
same configuration (how much slower the RTL proof is than the model), and the
1,000 cycles/s measured for cocotb driving a 64-port crossbar on this machine
class (the figure in the project brief).
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings

from radixnet.cosim.golden_trace import golden_config
from radixnet.cosim.run import cosim_network
from radixnet.gen import build
from radixnet.golden.sim import Simulator
from machine import cpu_model  # benchmarks/machine.py

REF_COCOTB = 1000.0  # cycles/s, cocotb on Verilator, 64-port crossbar (brief)

CONFIGS = [
    ("fbfly k=2 n=2, V=2 B=3, L=3, axis", "fbfly", {"k": 2, "n": 2}, dict(vcs=2, vc_depth=3, packet_length=3)),
    ("fbfly k=2 n=2, V=2 B=3, L=3, flit", "fbfly", {"k": 2, "n": 2},
     dict(vcs=2, vc_depth=3, packet_length=3, terminals="flit")),
    ("fbfly k=4 n=2, V=2 B=4, L=1, axis", "fbfly", {"k": 4, "n": 2}, dict(vcs=2, vc_depth=4)),
    ("slimfly q=5, V=2 B=4, L=1, axis", "slimfly", {"q": 5}, dict(vcs=2, vc_depth=4)),
    ("fbfly k=2 n=3, ugal-s (sequential), V=4 B=2, L=2, flit", "fbfly", {"k": 2, "n": 3},
     dict(routing="ugal-s", vcs=4, vc_depth=2, packet_length=2, ugal_threshold=0, terminals="flit")),
    ("2dfb k=3 n=1, 2dfb-adaptive (sequential), V=2 B=2, flit", "2dfb", {"k": 3, "n": 1},
     dict(routing="2dfb-adaptive", vcs=2, vc_depth=2, threshold=1, traffic="2dfb-adversarial", terminals="flit")),
    ("2dfb k=8 n=1 (64 ports), 2dfb-adaptive, one radix-22 router", "2dfb", {"k": 8, "n": 1},
     dict(routing="2dfb-adaptive", vcs=2, vc_depth=4, threshold=2, traffic="2dfb-adversarial", router=-1)),
    # high radix (issue 11): the 64-ary 1-flat's one router, and Kim's radix-63 router of the 32-ary 2-flat
    ("fbfly k=64 n=1, one radix-64 router, V=2 B=4, single-cycle", "fbfly", {"k": 64, "n": 1},
     dict(vcs=2, vc_depth=4, router=-1)),
    ("fbfly k=64 n=1, one radix-64 router, V=2 B=4, iq", "fbfly", {"k": 64, "n": 1},
     dict(vcs=2, vc_depth=4, router=-1, router_model="iq")),
    ("fbfly k=32 n=2, one radix-63 router, V=2 B=4, single-cycle", "fbfly", {"k": 32, "n": 2},
     dict(vcs=2, vc_depth=4, router=-1)),
    ("fbfly k=32 n=2, one radix-63 router, V=2 B=4, iq", "fbfly", {"k": 32, "n": 2},
     dict(vcs=2, vc_depth=4, router=-1, router_model="iq")),
]


def golden_speed(net, load, cycles, **kw) -> float:
    kw = {k: v for k, v in kw.items() if k not in ("terminals", "router")}
    sim = Simulator(golden_config(net, **kw))
    sim.step(200, load)
    t = time.perf_counter()
    sim.step(cycles, load)
    return cycles / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=1000, help="cycles with packet creation per configuration")
    ap.add_argument("--load", type=float, default=0.5)
    ap.add_argument("--fresh", action="store_true", help="build every design anew (measures the build)")
    ap.add_argument("--only", default=None, help="run the configurations whose label contains this")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    print(f"# co-simulation speed on {cpu_model()}; load {args.load}, {args.cycles} cycles of traffic")
    print("| configuration | Verilog s | Verilog MB | Verilator build s | cycles/s | vs golden | vs 1,000 cycles/s "
          "| packets |")
    print("|---|---|---|---|---|---|---|---|")
    root = tempfile.mkdtemp(prefix="cosim-bench-") if args.fresh else "build/cosim"
    for label, fam, params, kw in CONFIGS:
        if args.only and args.only not in label:
            continue
        net = build(fam, **params)
        if "router" in kw:   # router level: one router built alone, its ports driven from the golden run
            from radixnet.cosim.router_level import cosim_router
            r = kw["router"]
            v = cosim_router(net, router=None if r < 0 else r, load=args.load, cycles=args.cycles, build_root=root,
                             **{k: x for k, x in kw.items() if k != "router"})
        else:
            v = cosim_network(net, load=args.load, cycles=args.cycles, build_root=root, **kw)
        g = golden_speed(net, args.load, args.cycles, **kw)
        ok = "" if v["mismatches"] == 0 else f" ({v['mismatches']} MISMATCHES)"
        print(f"| {label} | {v['verilog_s']:.1f} | {v['verilog_bytes'] / 1e6:.1f} | {v['build_s']:.1f} | "
              f"{v['cycles_per_s']:.0f} | "
              f"1/{g / v['cycles_per_s']:.0f} | {v['cycles_per_s'] / REF_COCOTB:.2f}x | {v['packets']}{ok} |",
              flush=True)


if __name__ == "__main__":
    main()
