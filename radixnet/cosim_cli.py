"""``radixnet cosim``: co-simulate the generated RTL against the golden model (issue 6).

::

    radixnet cosim --topo fbfly --k 4 --n 2 --load 0.7 --cycles 300 [--packet-length 2] [--vcs 2]
                   [--vc-depth 4] [--speedup 1|2] [--router-model single-cycle|iq] [--sim verilator|icarus]
                   [--egress-depth E [--sink-stall P]] [--waves] [--fault out_arb_fixed] [--json]

Exit status 0 when every packet leaves the RTL at the golden model's port and
cycle, 1 when one does not (the first differing packet is printed with its
golden path), 2 on bad input (one line).
"""

from __future__ import annotations

import json
import sys
from typing import Sequence

__all__ = ["cmd_cosim", "MAX_CYCLES", "MAX_BATCH", "MAX_WIDTH"]

#: ``--cycles`` at most: a cocotb replay runs about 1,000 cycles a second, so this is about a day
MAX_CYCLES = 100_000_000
#: ``--batch`` packets per terminal at most
MAX_BATCH = 100_000
#: ``--data-width`` bits at most
MAX_WIDTH = 4096


def cmd_cosim(argv: Sequence[str]) -> int:
    """Run ``radixnet cosim`` (see the module docstring)."""
    from radixnet.cli import UsageError, _Parser, _peek_topo, add_sim_args, sim_config
    from radixnet.cosim.run import SIMULATORS, CosimError, cosim_network, describe_mismatch
    from radixnet.gen import family_names
    from radixnet.hdl.router import FAULTS

    topo = _peek_topo(argv)
    if topo not in family_names():
        raise UsageError(f"radixnet cosim: error: --topo: unknown family {topo!r} (one of {', '.join(family_names())})")
    p = _Parser(prog="radixnet cosim", description="Replay the golden model's packets into the generated RTL "
                                                   "(Verilator + cocotb) and compare every packet's exit port "
                                                   "and cycle.")
    add_sim_args(p, topo)
    p.set_defaults(routing="sp")
    for a in p._actions:
        if a.dest == "speedup":   # the RTL builds 1 and 2 (router-spec §R1); a co-simulation defaults to 1
            a.help = "router speedup S, 1 or 2 [default 1]"
    p.add_argument("--load", type=float, default=None, help="offered load during --cycles [default 0.3]")
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
    p.add_argument("--json", action="store_true", help="print the verdict as JSON")
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
    try:
        if args.router is not None:
            from radixnet.cosim.router_level import cosim_router
            verdict = cosim_router(cfg.net, router=None if args.router < 0 else args.router, routing=cfg.routing,
                                   traffic=cfg.traffic, load=args.load or 0.3, cycles=args.cycles, vcs=cfg.vcs,
                                   vc_depth=cfg.vc_depth, packet_length=cfg.packet_length, seed=cfg.seed,
                                   data_width=args.data_width, sim=args.sim, waves=args.waves, fault=args.fault,
                                   build_root=args.build_dir, traffic_opts=cfg.traffic_opts,
                                   ugal_threshold=cfg.ugal_threshold, threshold=cfg.threshold,
                                   router_model=cfg.model.name, speedup=cfg.speedup)
        else:
            verdict = cosim_network(cfg.net, routing=cfg.routing, traffic=cfg.traffic, load=args.load or 0.3,
                                    cycles=args.cycles, batch=args.batch, vcs=cfg.vcs, vc_depth=cfg.vc_depth,
                                    packet_length=cfg.packet_length, seed=cfg.seed, data_width=args.data_width,
                                    terminals=args.terminals, sim=args.sim, waves=args.waves, fault=args.fault,
                                    build_root=args.build_dir, traffic_opts=cfg.traffic_opts,
                                    ugal_threshold=cfg.ugal_threshold, threshold=cfg.threshold,
                                    router_model=cfg.model.name, speedup=cfg.speedup,
                                    egress_depth=cfg.egress_depth, sink_stall=cfg.sink_stall)
    except (ValueError, CosimError) as e:   # CosimError: the simulator failed (its log is named)
        raise UsageError(f"radixnet cosim: error: {e}".splitlines()[0]) from None
    ok = verdict["mismatches"] == 0 and not verdict["stray_flits"] and not verdict["error"] \
        and not verdict.get("credit_mismatches")
    if args.json:
        print(json.dumps(verdict))
    else:
        what = f"traversals of router {verdict['router']}" if "router" in verdict else "packets"
        print(f"{'MATCH' if ok else 'MISMATCH'}: {verdict['packets'] - verdict['mismatches']} of "
              f"{verdict['packets']} {what} at the golden model's port and cycle "
              f"({cfg.net.family} {cfg.net.params}, {cfg.routing}, {cfg.traffic}, V={cfg.vcs} B={cfg.vc_depth} "
              f"L={cfg.packet_length} S={cfg.speedup}, router model {cfg.model.name})")
        if "router" in verdict:
            print(f"  credits returned: {verdict['credit_mismatches']} differ from the golden model")
        else:
            print(f"  source-queue stalls {verdict['stall_cycles']}, deepest source queue "
                  f"{verdict['max_source_queue']}"
                  + (f"; egress depth {cfg.egress_depth}, sink stalls {verdict['sink_stall_cycles']} "
                     f"(p = {cfg.sink_stall:g})" if cfg.egress_depth else ""))
        print(f"  {verdict['cycles']} cycles; build {verdict['build_s']:.1f} s, simulation "
              f"{verdict['sim_s']:.1f} s ({verdict['cycles_per_s']:.0f} cycles/s); {verdict['build_dir']}")
        if verdict["waves"]:
            print(f"  waveform: {verdict['waves']}")
        for m in verdict["first"][:5]:
            print("  " + describe_mismatch(m))
    return 0 if ok else 1


if __name__ == "__main__":
    from radixnet.cli import main
    sys.exit(main(["cosim", *sys.argv[1:]]))
