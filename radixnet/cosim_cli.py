"""``radixnet cosim``: co-simulate the generated RTL against the golden model (issue 6).

::

    radixnet cosim --topo fbfly --k 4 --n 2 --load 0.7 --cycles 300 [--packet-length 2] [--vcs 2]
                   [--vc-depth 4] [--speedup 1|2] [--router-model single-cycle|iq] [--sim verilator|icarus]
                   [--egress-depth E [--sink-stall P]] [--waves] [--fault out_arb_fixed] [--allow-idle]
                   [--json] [--quiet]

Every packet is compared at its endpoints (injection, exit port, ejection,
bytes) and at every hop (router, output port, output VC, grant and link cycle,
header; router-spec §R9, :mod:`radixnet.cosim.hops`). The defaults drive the
network into backpressure (:data:`DEFAULT_LOAD`, :data:`DEFAULT_VC_DEPTH`): a
run in which no source stalled, no input buffer filled or no output VC ran out
of credits is **vacuous** and refused (exit 3, one line naming the zero
counter) unless ``--allow-idle``. Coverage bins the run missed are listed.

Exit status 0 when every packet leaves the RTL at the golden model's port and
cycle after the golden path, 1 when one does not (the first differing packets
are printed with the first differing hop and the golden path), 2 on bad input
(one line), 3 when the run matched but was vacuous.
"""

from __future__ import annotations

import json
import sys
from typing import Sequence

__all__ = ["cmd_cosim", "MAX_CYCLES", "MAX_BATCH", "MAX_WIDTH", "DEFAULT_LOAD", "DEFAULT_VC_DEPTH", "EXIT_IDLE"]

#: ``--cycles`` at most: a cocotb replay runs about 1,000 cycles a second, so this is about a day
MAX_CYCLES = 100_000_000
#: ``--batch`` packets per terminal at most
MAX_BATCH = 100_000
#: ``--data-width`` bits at most
MAX_WIDTH = 4096
#: ``--load`` by default: near saturation, so sources stall and buffers fill (issue 13)
DEFAULT_LOAD = 0.8
#: ``--vc-depth`` by default: small buffers, so output VCs run out of credits (the golden model's own default
#: is 32 flits per port, which a 200-cycle run at moderate load never fills)
DEFAULT_VC_DEPTH = 2
#: exit status of a run that matched but never exercised backpressure (without ``--allow-idle``)
EXIT_IDLE = 3


def cmd_cosim(argv: Sequence[str]) -> int:
    """Run ``radixnet cosim`` (see the module docstring)."""
    from radixnet.cli import UsageError, _Parser, _peek_topo, add_sim_args, sim_config
    from radixnet.cosim.run import SIMULATORS, CosimError
    from radixnet.gen import family_names
    from radixnet.hdl.router import FAULTS

    topo = _peek_topo(argv)
    if topo not in family_names():
        raise UsageError(f"radixnet cosim: error: --topo: unknown family {topo!r} (one of {', '.join(family_names())})")
    p = _Parser(prog="radixnet cosim", description="Replay the golden model's packets into the generated RTL "
                                                   "(Verilator + cocotb) and compare every packet's exit port "
                                                   "and cycle and every hop of its path; refuse a run that never "
                                                   "exercised backpressure (exit 3) unless --allow-idle.")
    add_sim_args(p, topo)
    p.set_defaults(routing="sp")
    p.set_defaults(vc_depth=DEFAULT_VC_DEPTH)
    for a in p._actions:
        if a.dest == "speedup":   # the RTL builds 1 and 2 (router-spec §R1); a co-simulation defaults to 1
            a.help = "router speedup S, 1 or 2 [default 1]"
        if a.dest == "vc_depth":  # small buffers by default: the run must exercise backpressure
            a.help = a.help.replace("default: 32 per port / vcs", f"default: {DEFAULT_VC_DEPTH}, so buffers fill "
                                                                  f"and output VCs run out of credits")
    p.add_argument("--load", type=float, default=None,
                   help=f"offered load during --cycles [default {DEFAULT_LOAD}: near saturation]")
    p.add_argument("--cycles", type=int, default=200,
                   help=f"cycles with packet creation, in [1, {MAX_CYCLES}] [default 200]")
    p.add_argument("--batch", type=int, default=None,
                   help=f"instead: packets per terminal at cycle 0, in [1, {MAX_BATCH}]")
    p.add_argument("--data-width", type=int, default=32,
                   help=f"axis: tdata bits (multiple of 8, >= 32); flit: payload bits; at most {MAX_WIDTH} "
                        f"[default 32]")
    p.add_argument("--terminals", default=None,
                   help="axis (AXI4-Stream switch top) or flit (bare network top) [default axis; flit for val "
                        "and ugal, whose head flits carry the golden model's intermediate router]")
    p.add_argument("--sim", default="verilator", help="one of " + ", ".join(SIMULATORS) + " [default verilator]")
    p.add_argument("--waves", action="store_true", help="write a VCD waveform")
    p.add_argument("--fault", default=None, help="plant a bug in the RTL: " + ", ".join(f for f in FAULTS if f))
    p.add_argument("--router", type=int, default=None, metavar="R",
                   help="router level: build router R alone and drive its ports from the golden trace "
                        "(-1: the busiest router); single-flit packets")
    p.add_argument("--build-dir", default="build/cosim",
                   help="build cache; under a path with a space the builds go to $TMPDIR, linked from "
                        "DIR/builds (Verilator cannot build there) [default build/cosim]")
    p.add_argument("--allow-idle", action="store_true",
                   help="accept a run that never exercised backpressure (no source stall, no full input buffer or "
                        "no output VC out of credits); without it such a run exits with status 3")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar (it is drawn only on a terminal)")
    args = p.parse_args(list(argv))
    if args.load is not None and args.batch is not None:
        raise UsageError("radixnet cosim: error: give at most one of --load or --batch")
    if args.load is not None and not 0 < args.load <= 1:
        raise UsageError(f"radixnet cosim: error: --load must be in (0, 1], got {args.load}")
    if not 1 <= args.cycles <= MAX_CYCLES:
        raise UsageError(f"radixnet cosim: error: --cycles must be an integer in [1, {MAX_CYCLES}] (a cocotb "
                         f"replay runs ~1,000 cycles/s), got {args.cycles}")
    if args.batch is not None and not 1 <= args.batch <= MAX_BATCH:
        raise UsageError(f"radixnet cosim: error: --batch must be an integer in [1, {MAX_BATCH}] packets per "
                         f"terminal, got {args.batch}")
    if not 1 <= args.data_width <= MAX_WIDTH:
        raise UsageError(f"radixnet cosim: error: --data-width must be an integer in [1, {MAX_WIDTH}], "
                         f"got {args.data_width}")
    from radixnet.gen.params import check_out_dir
    check_out_dir(args.build_dir, "build-dir")   # ParamError: one line, exit 2
    if args.link_latency not in (None, 1):
        raise UsageError(f"radixnet cosim: error: --link-latency: the RTL router is built with 1 "
                         f"(router-spec §R1), got {args.link_latency}")
    if args.speedup not in (None, 1, 2):
        raise UsageError(f"radixnet cosim: error: --speedup: the RTL router is built with 1 or 2 "
                         f"(router-spec §R1), got {args.speedup}")
    args.speedup = args.speedup or 1
    cfg = sim_config(args)

    if args.router is not None:
        if not -1 <= args.router < cfg.net.num_routers:
            raise UsageError(f"radixnet cosim: error: --router must be -1 or a router 0..{cfg.net.num_routers - 1}, "
                             f"got {args.router}")
        if args.terminals is not None or args.batch is not None:
            raise UsageError("radixnet cosim: error: --router drives one router's flit ports from the trace; "
                             "it takes neither --terminals nor --batch")
        if cfg.egress_depth:
            raise UsageError("radixnet cosim: error: --egress-depth: the router-level co-simulation drives ideal "
                             "sinks; co-simulate egress backpressure at the network level (without --router)")
    if args.terminals is None:
        from radixnet.cosim.run import NEEDS_INTER
        args.terminals = "flit" if cfg.routing in NEEDS_INTER else "axis"
    from radixnet.gen.progress import Progress
    try:
        with Progress("cosim", quiet=args.quiet) as progress:
            verdict = run_cosim(args, cfg, progress)
    except (ValueError, CosimError) as e:   # CosimError: the simulator failed (its log is named)
        raise UsageError(f"radixnet cosim: error: {e}".splitlines()[0]) from None
    ok = verdict["mismatches"] == 0 and not verdict["stray_flits"] and not verdict["error"] \
        and not verdict.get("credit_mismatches") and not verdict.get("observe_errors")
    if args.json:
        print(json.dumps(verdict))
    else:
        report(verdict, cfg, ok)
    idle = verdict.get("idle", [])
    if ok and idle and not args.allow_idle:
        print(f"radixnet cosim: vacuous run: {', '.join(f'{k} = 0' for k in idle)} (it never exercised "
              f"backpressure); raise --load, lower --vc-depth, add --egress-depth E --sink-stall P, or pass "
              f"--allow-idle", file=sys.stderr)
        return EXIT_IDLE
    return 0 if ok else 1



def run_cosim(args, cfg, progress) -> dict:
    """Run the co-simulation the parsed arguments ask for (router level with ``--router``) and return its verdict."""
    common = dict(routing=cfg.routing, traffic=cfg.traffic, load=args.load or DEFAULT_LOAD, cycles=args.cycles,
                  vcs=cfg.vcs, vc_depth=cfg.vc_depth, packet_length=cfg.packet_length, seed=cfg.seed,
                  data_width=args.data_width, sim=args.sim, waves=args.waves, fault=args.fault,
                  build_root=args.build_dir, traffic_opts=cfg.traffic_opts, ugal_threshold=cfg.ugal_threshold,
                  threshold=cfg.threshold, router_model=cfg.model.name, speedup=cfg.speedup, progress=progress)
    if args.router is not None:
        from radixnet.cosim.router_level import cosim_router
        return cosim_router(cfg.net, router=None if args.router < 0 else args.router, **common)
    from radixnet.cosim.run import cosim_network
    return cosim_network(cfg.net, batch=args.batch, terminals=args.terminals, egress_depth=cfg.egress_depth,
                         sink_stall=cfg.sink_stall, **common)


def report(verdict: dict, cfg, ok: bool) -> None:
    """Print the verdict: the match line, the backpressure counters, the coverage bins and the first mismatches."""
    from radixnet.cosim.run import describe_mismatch

    router = "router" in verdict
    what = f"traversals of router {verdict['router']}" if router else "packets"
    print(f"{'MATCH' if ok else 'MISMATCH'}: {verdict['packets'] - verdict['mismatches']} of "
          f"{verdict['packets']} {what} at the golden model's port and cycle, every hop compared "
          f"({cfg.net.family} {cfg.net.params}, {cfg.routing}, {cfg.traffic}, V={cfg.vcs} B={cfg.vc_depth} "
          f"L={cfg.packet_length} S={cfg.speedup}, router model {cfg.model.name})")
    if router:
        print(f"  hops: every flit the router sent compared (port, VC, cycle, header), {verdict['mismatches']} "
              f"differ; credits returned that differ from the golden model: {verdict['credit_mismatches']}")
    else:
        print(f"  hops: {verdict.get('hops_compared', 0)} compared (router, port, VC, grant and link cycle, "
              f"header); packets differing at a hop {verdict.get('hop_mismatches', 0)}, at the endpoints "
              f"{verdict.get('endpoint_mismatches', 0)}")
    print(f"  backpressure: source-queue stalls {verdict['stall_cycles']}, full-buffer cycles "
          f"{verdict.get('full_buffer_cycles')}, credit-zero cycles {verdict.get('credit_zero_cycles')}, "
          f"deepest source queue {verdict['max_source_queue']}"
          + (f"; egress depth {cfg.egress_depth}, sink stalls {verdict['sink_stall_cycles']} "
             f"(p = {cfg.sink_stall:g})" if cfg.egress_depth else ""))
    bins = []
    for family, c in verdict.get("coverage", {}).items():
        bins.append(f"{family} n/a" if "n/a" in c else f"{family} {c['hit']}/{c['total']}")
    print(f"  coverage: {', '.join(bins)}")
    if verdict.get("missed_bins"):
        print(f"  missed bins: {'; '.join(verdict['missed_bins'][:12])}"
              + (f" (and {len(verdict['missed_bins']) - 12} more)" if len(verdict["missed_bins"]) > 12 else ""))
    print(f"  {verdict['cycles']} cycles; build {verdict['build_s']:.1f} s, simulation "
          f"{verdict['sim_s']:.1f} s ({verdict['cycles_per_s']:.0f} cycles/s); {verdict['build_dir']}")
    if verdict["waves"]:
        print(f"  waveform: {verdict['waves']}")
    for e in verdict.get("observe_errors", [])[:3]:
        print(f"  observation: {e}")
    for m in verdict["first"][:5]:
        print("  " + describe_mismatch(m))


if __name__ == "__main__":
    from radixnet.cli import main
    sys.exit(main(["cosim", *sys.argv[1:]]))
