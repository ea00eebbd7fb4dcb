"""CLEX message-level simulation speed: the paper's 32^4-node dense run (Table I) against the 10-minute budget.

Run on demand (not a test)::

    .venv/bin/python benchmarks/clex_speed.py [--seed 1] [--threads T] [--tables] [--json FILE]

Runs A(4) on C(1/4, 4) with k = 32 (1,048,576 nodes) and 28 messages per node (29,360,128 messages),
Lenzen & Wattenhofer §III-A, and prints the wall time (after a small warm-up run that compiles the
numba kernels) and the per-level table. The budget is 10 minutes on a 2-core machine (docs/clex-sim.md).
``--tables`` also runs the other three configurations of Tables II-IV (64^3 dense, and both light
runs of §III-B) and the torus comparison of every run, which is what docs/clex-sim.md quotes.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import time

from radixnet.golden.clex import simulate, torus_comparison

from machine import cpu_model  # benchmarks/machine.py

BUDGET_S = 600.0
CONFIGS = {
    "table1": dict(k=32, levels=4, messages=28, light=False),
    "table2": dict(k=64, levels=3, messages=57, light=False),
    "table3": dict(k=32, levels=4, messages=4, light=True),
    "table4": dict(k=64, levels=3, messages=5, light=True),
}


def show(name: str, cfg: dict, res, wall: float) -> dict:
    t = torus_comparison(res)
    print(f"\n{name}: k={cfg['k']} levels={cfg['levels']} messages={cfg['messages']} "
          f"{'light' if cfg['light'] else 'dense'}: {res.total_messages:,} messages, "
          f"{'all delivered' if res.delivered else 'NOT ALL DELIVERED'}, wall {wall:.1f} s")
    print("  lvl  max rds  avg rds  (w/o req-ack)  max avg load  avg hops")
    for lv in res.table:
        print(f"  {lv.level:3d}  {lv.max_rounds:7d}  {lv.avg_rounds:7.3f}  {lv.avg_rounds_no_handshake:13.3f}  "
              f"{lv.max_avg_load:12.3f}  {lv.avg_hops:8.3f}")
    one = res.table[0]
    print(f"  A(1): max phases {one.max_phases}, instances by phases {one.phase_instances}, "
          f"left after phase p {one.remaining}")
    print(f"  torus: hop factor {t['hop_factor']:.2f} ({t['hop_factor_no_handshake']:.2f} w/o req-ack), "
          f"bandwidth factor {t['bandwidth_factor']:.2f}, propagation ratio {t['propagation_ratio']:.2f} "
          f"({t['propagation_ratio_no_handshake']:.2f}), matching light load {t['matching_light_load']:.2f}")
    return {"name": name, "config": cfg, "wall_seconds": wall, "result": res.to_dict(), "torus": t}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--tables", action="store_true", help="also run Tables II-IV")
    ap.add_argument("--json", metavar="FILE", help="write all results as JSON")
    args = ap.parse_args()
    print(f"CPU: {cpu_model()}, {os.cpu_count()} logical CPUs, Python {platform.python_version()}")
    t0 = time.perf_counter()
    simulate(8, 4, 3, seed=0, threads=args.threads)           # compile / load the numba kernels
    simulate(8, 2, 1, seed=0, light=True, threads=args.threads)
    print(f"warm-up (numba compile or cache load): {time.perf_counter() - t0:.1f} s")
    runs = []
    for name in (CONFIGS if args.tables else ["table1"]):
        cfg = CONFIGS[name]
        t = time.perf_counter()
        res = simulate(cfg["k"], cfg["levels"], cfg["messages"], seed=args.seed, light=cfg["light"],
                       threads=args.threads)
        wall = time.perf_counter() - t
        runs.append(show(name, cfg, res, wall))
        if name == "table1":
            verdict = "within" if wall < BUDGET_S else "OVER"
            print(f"  32^4 dense: {wall:.1f} s on {res.threads} threads, {verdict} the {BUDGET_S:.0f} s budget; "
                  f"rounds max per level {[lv.max_rounds for lv in res.table]}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20
    print(f"\npeak RSS {peak:.2f} GiB")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(runs, f, indent=1)


if __name__ == "__main__":
    main()
