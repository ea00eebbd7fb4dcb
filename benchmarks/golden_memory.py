"""Golden-model memory: bytes per terminal, measured against the resource guard's estimate.

Run on demand (not a test)::

    .venv/bin/python benchmarks/golden_memory.py [--big]

Each configuration runs in a process of its own: it imports radixnet and loads the compiled kernel on a
2x2 network (the *floor*: numpy and the kernels' machine code, the ahead-of-time module of
golden/native.py or numba with its JIT, the same for every network; the last line says which), then
builds the network and simulates ``--windows`` windows at ``--load`` (uniform, ``min``). It prints the
peak resident memory above that floor, per terminal, beside :meth:`SimConfig.memory_estimate` (what the
guard refuses a run on, before it allocates): the estimate must not be below the measured figure.
``--big`` adds the 64-ary 3-flat (262,144 terminals, about 8 minutes). Below saturation; past it a
source's backlog adds nothing (a source draws its packets when its queue has room, golden/sources.py).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import multiprocessing as mp
import os
import platform

from machine import cpu_model  # benchmarks/machine.py

CASES = [("16-ary 2-flat", {"k": 16, "n": 2}), ("32-ary 2-flat", {"k": 32, "n": 2}),
         ("16-ary 3-flat", {"k": 16, "n": 3}), ("64-ary 2-flat", {"k": 64, "n": 2}),
         ("8-ary 4-flat", {"k": 8, "n": 4})]
BIG = [("64-ary 3-flat", {"k": 64, "n": 3})]


def rss_mb() -> float:
    """This process's resident memory now (MB)."""
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def child(family: dict, load: float, windows: int) -> dict:
    import resource
    import sys

    from radixnet.gen import build
    from radixnet.golden import native
    from radixnet.golden.sim import SimConfig, Simulator
    Simulator(SimConfig(build("fbfly", k=2, n=2), seed=1, speedup=2)).step(100, 0.5)   # load the kernel
    floor = rss_mb()
    net = build("fbfly", **family)
    cfg = SimConfig(net, routing="min", seed=1, speedup=2, max_memory=None)
    cfg.validate()
    est = sum(cfg.memory_estimate().values()) / 2**20
    sim = Simulator(cfg)
    for _ in range(windows):
        sim.step(cfg.window, load, sinks=(lambda rec: None,))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"terminals": net.num_terminals, "routers": net.num_routers, "radix": net.max_radix,
            "vcs": cfg.vcs, "depth": cfg.vc_depth, "floor": floor, "peak": peak, "estimate": est,
            "kernels": f"{native.STATE!r}, numba {'imported' if 'numba' in sys.modules else 'not imported'}"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--load", type=float, default=0.3, help="offered load [default 0.3]")
    ap.add_argument("--windows", type=int, default=4, help="windows simulated per case [default 4]")
    ap.add_argument("--big", action="store_true", help="add the 64-ary 3-flat (262,144 terminals, ~8 min)")
    args = ap.parse_args()
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"uniform traffic, min routing, load {args.load}, {args.windows} windows, default VCs and depth\n")
    head = (f"{'network':<15} {'terminals':>9} {'radix':>5} {'VCs x B':>7} {'floor MB':>8} {'peak MB':>8} "
            f"{'above floor':>11} {'B/terminal':>10} {'estimate':>9} {'est/meas':>8}")
    print(head)
    print("-" * len(head))
    for name, family in CASES + (BIG if args.big else []):
        with cf.ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
            r = pool.submit(child, family, args.load, args.windows).result()
        above = r["peak"] - r["floor"]
        print(f"{name:<15} {r['terminals']:>9,} {r['radix']:>5} {r['vcs']:>3} x {r['depth']:<2} {r['floor']:>8.0f} "
              f"{r['peak']:>8.0f} {above:>11.1f} {above * 2**20 / r['terminals']:>10,.0f} {r['estimate']:>9.1f} "
              f"{r['estimate'] / max(above, 1e-9):>7.2f}x", flush=True)
    print(f"\nkernels: {r['kernels']} (golden/native.py)")
    print("\n'floor': the process after importing radixnet and loading the compiled kernel (the same for every "
          "network);\n'above floor': peak resident memory minus the floor; 'estimate': SimConfig.memory_estimate, "
          "the resource\nguard's prediction (MB), which must not be below 'above floor' (est/meas >= 1).")


if __name__ == "__main__":
    main()
