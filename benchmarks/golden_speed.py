"""Golden-model speed: simulated cycles/s and flit-hops/s, against BookSim2.

Run on demand (not a test)::

    .venv/bin/python benchmarks/golden_speed.py [--cycles 4000] [--booksim PATH/TO/booksim]

Reference (re-measured on an idle machine of this class, an AMD EPYC): BookSim2
(commit 28f4329, -O3), flatfly k=32 n=1 c=32, 2 VCs x 16 flits, iSLIP,
internal speedup 2, minimal routing, uniform random, single-flit packets,
Bernoulli injection: 565 cycles/s at load 0.3 and 213 at 0.8,
single-threaded (an earlier measurement gave 510 and 140). radixnet's matching
configuration is the 32-ary 2-flat with `min`, 2 VCs x 16 flits, speedup 2.
The machine a session gets is not always that one: ``--booksim`` times a
BookSim2 binary here first (:data:`BOOKSIM_CFG`, alternating with radixnet)
and compares with that.
The target is at least 20x the reference at both loads and 8x on the
saturated worst case, with the same accepted throughput, one core against one.

For every configuration the run is warmed up, then timed over ``--cycles``
cycles; the time is split into the compiled kernel (allocation, switch, links)
and the Python around it (Bernoulli injection and destinations for each chunk
of cycles, packet-table bookkeeping).
"""

from __future__ import annotations

import argparse
import os
import platform
import time

from radixnet.gen import build
from radixnet.golden import kernel
from radixnet.golden.sim import PacketStats, SimConfig, Simulator

from machine import cpu_model  # benchmarks/machine.py

BOOKSIM = {0.3: 565.0, 0.8: 213.0}
#: The reference configuration as a BookSim2 config file (``--booksim``): a 32-ary 1-flat with 32 terminals per
#: router and one-cycle channels. BookSim2's flatfly_onchip asserts a square on-chip layout (x == y, xr == yr,
#: c == xr * yr), which a 32 x 1 placement is not; comment those three asserts out in
#: src/networks/flatfly_onchip.cpp (the network it builds is the same 1-flat: every router linked to every
#: other, use_noc_latency = 0 makes each channel one cycle).
BOOKSIM_CFG = """topology = flatfly; k = 32; n = 1; c = 32; x = 32; y = 1; xr = 32; yr = 1; use_noc_latency = 0;
routing_function = ran_min; num_vcs = 2; vc_buf_size = 16; vc_allocator = islip; sw_allocator = islip;
alloc_iters = 1; internal_speedup = 2.0; traffic = uniform; packet_size = 1; injection_process = bernoulli;
injection_rate = {load}; sim_type = latency; warmup_periods = 3; sample_period = 1000; max_samples = 10;
sim_count = 1; seed = {seed};
"""
#: BookSim2 on the saturated worst case (same configuration, R_i -> R_(i+1) at offered 0.8): not measured here;
#: derived from an earlier side-by-side run, in which radixnet's 847 cycles/s were 1.4x BookSim2's
BOOKSIM_SATURATED = 847.0 / 1.4
#: BookSim2's peak memory for the 1024-node runs (measured beside the reference: 23-34 MB; 111 MB at 4096 terminals)
BOOKSIM_MB = {"32-ary 2-flat, N=1024": 34.0, "16-ary 3-flat, N=4096": 111.0}


def measure(net, routing: str, load: float, cycles: int, window: int = 500, traffic: str = "uniform",
            **kw) -> dict:
    sim = Simulator(SimConfig(net, routing=routing, traffic=traffic, seed=1, window=window, **{"speedup": 2, **kw}))
    # every window's records go to streaming statistics, as in a measured run (Simulator.run_load)
    for _ in range(4):  # warm-up (and JIT load)
        sim.step(window, load, sinks=(PacketStats(),))
    orig = kernel.run_cycles
    spent = [0.0]

    def timed(*a):
        t = time.perf_counter()
        out = orig(*a)
        spent[0] += time.perf_counter() - t
        return out

    kernel.run_cycles = timed
    hops0 = int(sim.ch_flits.sum())
    ej = 0
    t0 = time.perf_counter()
    try:
        for _ in range(cycles // window):
            ej += int(sim.step(window, load, sinks=(PacketStats(),))["ej_flits"].sum())
    finally:
        kernel.run_cycles = orig
    wall = time.perf_counter() - t0
    n = (cycles // window) * window
    flit_hops = int(sim.ch_flits.sum()) - hops0 + ej  # inter-router channels plus ejection
    return {"cycles_per_s": n / wall, "flit_hops_per_s": flit_hops / wall, "accepted": ej / (n * net.num_terminals),
            "kernel_share": spent[0] / wall, "cycles": n}


def measure_alone(family: dict, *args, **kw) -> dict:
    """:func:`measure` in a process of its own, so that its peak resident memory (``peak_mb``, the whole
    process as BookSim2's is counted) is this case's alone."""
    import concurrent.futures as cf
    import multiprocessing as mp
    with cf.ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
        return pool.submit(child, family, args, kw).result()


def booksim(binary: str, load: float, seed: int) -> float:
    """Run BookSim2 on the reference configuration at ``load``: its simulated cycles ("Time taken is N cycles")
    per second of its own "Total run time"."""
    import re
    import subprocess
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False) as fh:
        fh.write(BOOKSIM_CFG.format(load=load, seed=seed))
    try:
        out = subprocess.run([binary, fh.name], capture_output=True, text=True, timeout=3600).stdout
    finally:
        os.unlink(fh.name)
    cycles = re.search(r"Time taken is (\d+) cycles", out)
    secs = re.search(r"Total run time ([0-9.]+)", out)
    if not cycles or not secs:
        raise SystemExit(f"--booksim: no 'Time taken' / 'Total run time' in {binary}'s output:\n{out[-2000:]}")
    return int(cycles.group(1)) / float(secs.group(1))


def child(family: dict, args: tuple, kw: dict) -> dict:
    import resource
    import sys

    from radixnet.golden import native
    r = measure(build("fbfly", **family), *args, **kw)
    r["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    r["kernels"] = f"{native.STATE!r}, numba {'imported' if 'numba' in sys.modules else 'not imported'}"
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cycles", type=int, default=4000, help="timed cycles per configuration")
    ap.add_argument("--router-model", default="single-cycle,iq",
                    help="comma-separated router models (docs/router-spec.md §R10) [default single-cycle,iq]")
    ap.add_argument("--booksim", metavar="BINARY",
                    help="measure BookSim2 here on the reference configuration (BOOKSIM_CFG: three runs per load, "
                         "alternating with radixnet's) instead of the stored 565 / 213 cycles/s")
    args = ap.parse_args()
    models = args.router_model.split(",")
    print(f"machine: {cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"timed run: {args.cycles} cycles per configuration after 2000 warm-up cycles\n")
    rows = []
    flat32, flat16 = {"k": 32, "n": 2}, {"k": 16, "n": 3}   # 16-ary 3-flat: 2 dimensions, 4096 terminals
    ref = {"vcs": 2, "vc_depth": 16, "speedup": 2}             # BookSim2's configuration
    booksim_ref = dict(BOOKSIM)   # the figure each load's ratio is taken against, and where it came from
    booksim_src = "the stored reference, measured on an AMD EPYC (module docstring)"
    if args.booksim:
        import statistics
        for load in BOOKSIM:
            pairs = []
            for seed in (1, 2, 3):   # alternating: BookSim2, then radixnet's single-cycle router, same load
                b = booksim(args.booksim, load, seed)
                r = measure_alone(flat32, "min", load, args.cycles, router_model="single-cycle", **ref)["cycles_per_s"]
                pairs.append((b, r))
                print(f"  BookSim2 {b:7.0f} cycles/s, radixnet single-cycle {r:7.0f} at load {load}: {r / b:.1f}x",
                      flush=True)
            booksim_ref[load] = statistics.median(b for b, _ in pairs)
        booksim_src = f"measured here by --booksim {args.booksim}, median of 3"
        print(f"BookSim2 measured here (median of 3): {booksim_ref[0.3]:.0f} cycles/s at 0.3, "
              f"{booksim_ref[0.8]:.0f} at 0.8\n")
    for model in models:
        for routing in ("min", "ugal-s"):
            for load in (0.3, 0.8):
                kw = ref if routing == "min" else {}
                rows.append(("32-ary 2-flat, N=1024", model, routing, load,
                             measure_alone(flat32, routing, load, args.cycles, router_model=model, **kw)))
        rows.append(("32-ary 2-flat, N=1024", model, "min", "WC 0.8",
                     measure_alone(flat32, "min", 0.8, args.cycles, router_model=model, traffic="worst-case", **ref)))
        for routing in ("min", "ugal-s"):
            for load in (0.3, 0.8):
                rows.append(("16-ary 3-flat, N=4096", model, routing, load,
                             measure_alone(flat16, routing, load, args.cycles, router_model=model)))
    print("kernels:", "; ".join(sorted({r["kernels"] for *_, r in rows})), "(golden/native.py)\n")
    base = {(n, rt, ld): r for n, m, rt, ld, r in rows if m == models[0]}
    head = f"{'network':<22} {'model':<12} {'routing':<7} {'load':>6} {'accepted':>8} {'cycles/s':>9} " \
           f"{'flit-hops/s':>12} {'x BookSim':>9} {'x ' + models[0]:>15} {'kernel':>7} {'peak MB':>8} {'x BookSim':>9}"
    print(head)
    print("-" * len(head))
    for name, model, routing, load, r in rows:
        ref_speed = BOOKSIM_SATURATED if load == "WC 0.8" else booksim_ref.get(load)
        ratio = f"{r['cycles_per_s'] / ref_speed:.1f}x" if name.startswith("32") and routing == "min" else ""
        rel = f"{r['cycles_per_s'] / base[(name, routing, load)]['cycles_per_s']:.2f}x"
        mem = f"{r['peak_mb'] / BOOKSIM_MB[name]:.1f}x" if routing == "min" else ""
        print(f"{name:<22} {model:<12} {routing:<7} {load!s:>6} {r['accepted']:>8.3f} {r['cycles_per_s']:>9.0f} "
              f"{r['flit_hops_per_s']:>12.3g} {ratio:>9} {rel:>15} {r['kernel_share']:>6.0%} {r['peak_mb']:>8.0f} "
              f"{mem:>9}")
    idle = measure_alone(flat32, "min", 1e-9, args.cycles, router_model=models[0], **ref)
    busy = next(r for n, m, rt, ld, r in rows if n.startswith("32") and m == models[0] and rt == "min"
                and ld == 0.8)
    per_cycle_idle = 1e6 / idle["cycles_per_s"]
    per_cycle_busy = 1e6 * busy["kernel_share"] / busy["cycles_per_s"]
    print(f"\nwhat dominates (32-ary 2-flat, min): an idle cycle costs {per_cycle_idle:.0f} us (the whole "
          f"wall time per cycle, Python included: routers, links and terminals are visited only when they hold or "
          f"carry something); "
          f"at load 0.8 the kernel spends {per_cycle_busy:.0f} us per cycle, so "
          f"{1 - per_cycle_idle / per_cycle_busy:.0%} of it is per-flit work (route decision, allocation, "
          f"switch and link moves).")
    print(f"\n'x {models[0]}' is each row's speed relative to the same case under the {models[0]} router model;"
          "\n'x BookSim' compares with BookSim2 on the reference configuration (min routing, 2 VCs x 16 flits, "
          f"speedup 2): {booksim_ref[0.3]:.0f} and {booksim_ref[0.8]:.0f} cycles/s at 0.3 and 0.8, {booksim_src};"
          "\n'kernel' is the share of wall time in the compiled cycle kernel, the rest is Python per chunk;"
          "\n'peak MB' is the whole process's peak resident memory (each case runs in a process of its own),"
          f"\nagainst BookSim2's {BOOKSIM_MB} MB; 'WC 0.8' is the saturated worst case (MIN carries 1/32),"
          f"\nagainst {BOOKSIM_SATURATED:.0f} cycles/s derived from an earlier side-by-side ratio, not measured here.")


if __name__ == "__main__":
    main()
