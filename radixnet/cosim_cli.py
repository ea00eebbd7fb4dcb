"""``radixnet cosim``: co-simulate the generated RTL against the golden model.

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

from radixnet.cosim import DEFAULT_CYCLES, DEFAULT_LOAD, DEFAULT_VC_DEPTH

__all__ = ["cmd_cosim", "check_configuration", "cosim_parser", "topo_parser", "normal_form", "outcome", "parse_cosim",
           "run_configuration", "run_cosim", "verdict_ok", "MAX_CYCLES", "MAX_BATCH", "MAX_WIDTH", "DEFAULT_LOAD",
           "DEFAULT_VC_DEPTH", "EXIT_IDLE", "NOT_CONFIGURATION", "NOT_IN_MATRIX", "matrix_entry"]

#: ``--cycles`` at most: a cocotb replay runs about 1,000 cycles a second, so this is about a day
MAX_CYCLES = 100_000_000
#: ``--batch`` packets per terminal at most
MAX_BATCH = 100_000
#: ``--data-width`` bits at most
MAX_WIDTH = 4096
#: exit status of a run that matched but never exercised backpressure (without ``--allow-idle``)
EXIT_IDLE = 3


def cosim_parser(topo: str, prog: str = "radixnet cosim"):
    """The argument parser of ``radixnet cosim`` for topology family ``topo`` (its parameters are options).

    Parameters
    ----------
    topo : str
        A topology family (:func:`radixnet.gen.family_names`).
    prog : str
        The program name its errors start with.

    Returns
    -------
    argparse.ArgumentParser
        A parser whose errors raise :class:`radixnet.cli.UsageError` (one line).
    """
    from radixnet.cli import Parser, add_sim_args
    from radixnet.cosim.run import SIMULATORS
    from radixnet.hdl.router import FAULTS

    p = Parser(prog=prog, description="Replay the golden model's packets into the generated RTL "
                                      "(Verilator + cocotb) and compare every packet's exit port "
                                      "and cycle and every hop of its path; refuse a run that never "
                                      "exercised backpressure (exit 3) unless --allow-idle.")
    add_sim_args(p, topo)
    p.set_defaults(vc_depth=DEFAULT_VC_DEPTH)
    from radixnet.gen.router_config import DATA_WIDTH, ROUTER_DEFAULTS
    from radixnet.hdl.router import RTL_SPEEDUPS
    for a in p._actions:
        if a.dest == "speedup":   # the RTL builds 1 and 2 (router-spec §R1)
            a.help = (a.help.split(" [")[0]
                      + f" [default {ROUTER_DEFAULTS['speedup']}; {' or '.join(map(str, RTL_SPEEDUPS))}]")
        if a.dest == "vc_depth":  # small buffers by default: the run must exercise backpressure
            a.help = a.help.replace("default: 32 per port / vcs", f"default: {DEFAULT_VC_DEPTH}, so buffers fill "
                                                                  f"and output VCs run out of credits")
    p.add_argument("--load", type=float, default=None,
                   help=f"offered load during --cycles [default {DEFAULT_LOAD}: near saturation]")
    p.add_argument("--cycles", type=int, default=DEFAULT_CYCLES,
                   help=f"cycles with packet creation, in [1, {MAX_CYCLES}] [default {DEFAULT_CYCLES}]")
    p.add_argument("--batch", type=int, default=None,
                   help=f"instead: packets per terminal at cycle 0, in [1, {MAX_BATCH}]")
    p.add_argument("--data-width", type=int, default=DATA_WIDTH,
                   help=f"axis: tdata bits (multiple of 8, >= 32); flit: payload bits; at most {MAX_WIDTH} "
                        f"[default {DATA_WIDTH}]")
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
    return p


def topo_parser(topo: str):
    """:func:`cosim_parser` of ``topo`` (a known family), or a one-line UsageError when one of the family's
    parameters has the name of an option of ``radixnet cosim``'s own (clos's ``--terminals``, the number of
    terminals, against the top's kind), which one command line cannot tell apart.
    """
    import argparse

    from radixnet.cli import UsageError
    from radixnet.gen import family_names

    def builds(family: str) -> bool:
        try:
            cosim_parser(family)
        except argparse.ArgumentError:
            return False
        return True

    try:
        return cosim_parser(topo)
    except argparse.ArgumentError as e:
        ok = ", ".join(f for f in family_names() if builds(f))
        raise UsageError(f"radixnet cosim: error: --topo: {topo} has a parameter {e.argument_name}, the name of "
                         f"radixnet cosim's own {e.argument_name}, so its networks cannot be co-simulated here; "
                         f"--topo must be one of {ok}") from None


def parse_cosim(argv: Sequence[str]):
    """Parse and check ``radixnet cosim``'s arguments: every check it makes before any work.

    Parameters
    ----------
    argv : sequence of str
        The arguments after ``cosim``.

    Returns
    -------
    (argparse.Namespace, radixnet.golden.sim.SimConfig)
        The arguments (``speedup`` and ``terminals`` filled in) and the validated configuration.

    Raises
    ------
    radixnet.cli.UsageError, radixnet.gen.ParamError, radixnet.gen.routing.DeadlockError
        Bad input, one line (:func:`radixnet.cli.main`: exit status 2).
    """
    from radixnet.cli import UsageError, peek_topo, sim_config
    from radixnet.cosim.run import NEEDS_INTER, check_network
    from radixnet.gen import ParamError, family_names

    argv = list(argv)
    topo = peek_topo(argv)
    if topo not in family_names():
        raise UsageError(f"radixnet cosim: error: --topo: unknown family {topo!r} (one of {', '.join(family_names())})")
    args = topo_parser(topo).parse_args(argv)
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
    from radixnet.gen.router_config import ROUTER_DEFAULTS
    from radixnet.hdl.router import RTL_SPEEDUPS
    if args.speedup not in (None, *RTL_SPEEDUPS):
        raise UsageError(f"radixnet cosim: error: --speedup: the RTL router is built with "
                         f"{' or '.join(map(str, RTL_SPEEDUPS))} (router-spec §R1), got {args.speedup}")
    args.speedup = args.speedup or ROUTER_DEFAULTS["speedup"]
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
        args.terminals = "flit" if cfg.routing in NEEDS_INTER else "axis"
    try:   # the RTL's own refusals (a routing it does not build, AXI terminals for val/ugal, ...), before any work
        check_network(cfg.net, cfg.router, routing=cfg.routing, traffic=cfg.traffic,
                      packet_length=cfg.packet_length, seed=cfg.seed, data_width=args.data_width,
                      terminals=args.terminals, sim=args.sim, fault=args.fault, traffic_opts=cfg.traffic_opts,
                      sink_stall=cfg.sink_stall, router_level=args.router is not None)
    except ParamError:
        raise
    except ValueError as e:
        raise UsageError(f"radixnet cosim: error: {e}".splitlines()[0]) from None
    return args, cfg


def verdict_ok(verdict: dict) -> bool:
    """True when every packet (every router traversal) agreed with the golden model and nothing else differed.

    Parameters
    ----------
    verdict : dict
        A co-simulation's verdict (:func:`run_cosim`).

    Returns
    -------
    bool
        No mismatch, no stray flit, no testbench error, no credit mismatch, no observation error and no
        failed check of the design's own (``rtl_checks_failed``).
    """
    return verdict["mismatches"] == 0 and not verdict["stray_flits"] and not verdict["error"] \
        and not verdict.get("credit_mismatches") and not verdict.get("observe_errors") \
        and not verdict.get("rtl_checks_failed")


def outcome(verdict: dict, allow_idle: bool = False) -> str:
    """The verdict in one word, as ``radixnet cosim``'s exit status gives it.

    Parameters
    ----------
    verdict : dict
        A co-simulation's verdict (:func:`run_cosim`).
    allow_idle : bool
        ``--allow-idle``: a run that never exercised backpressure counts as a match.

    Returns
    -------
    str
        ``MATCH`` (exit status 0), ``MISMATCH`` (1) or ``VACUOUS`` (:data:`EXIT_IDLE`: it matched but a
        backpressure counter stayed 0).
    """
    if not verdict_ok(verdict):
        return "MISMATCH"
    return "VACUOUS" if verdict.get("idle") and not allow_idle else "MATCH"


def cmd_cosim(argv: Sequence[str]) -> int:
    """Run ``radixnet cosim`` (see the module docstring)."""
    from radixnet.cli import UsageError
    from radixnet.cosim.run import CosimError

    args, cfg = parse_cosim(argv)
    from radixnet.gen.progress import Progress
    try:
        with Progress("cosim", quiet=args.quiet) as progress:
            verdict = run_cosim(args, cfg, progress)
    except (ValueError, CosimError) as e:   # CosimError: the simulator failed (its log is named)
        raise UsageError(f"radixnet cosim: error: {e}".splitlines()[0]) from None
    ok = verdict_ok(verdict)
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
                  packet_length=cfg.packet_length, seed=cfg.seed, data_width=args.data_width, sim=args.sim,
                  waves=args.waves, fault=args.fault, build_root=args.build_dir, traffic_opts=cfg.traffic_opts,
                  progress=progress)
    if args.router is not None:
        from radixnet.cosim.router_level import cosim_router
        return cosim_router(cfg.net, router=None if args.router < 0 else args.router, config=cfg.router, **common)
    from radixnet.cosim.run import cosim_network
    return cosim_network(cfg.net, cfg.router, batch=args.batch, terminals=args.terminals,
                         sink_stall=cfg.sink_stall, **common)


#: ``radixnet cosim`` arguments that change how a run is shown or where it builds, not its verdict: left out of
#: a configuration's normal form (:func:`check_configuration`), so they do not change its fingerprint
NOT_CONFIGURATION = ("json", "quiet", "build_dir", "max_memory", "measure")


def check_configuration(argv: Sequence[str]) -> dict:
    """Check one co-simulation configuration as ``radixnet cosim`` would; return its normal form.

    What ``radixnet cosim-matrix`` calls for every entry of a matrix, before any run
    (:mod:`radixnet.cosim.matrix`).

    Parameters
    ----------
    argv : sequence of str
        ``radixnet cosim`` arguments.

    Returns
    -------
    dict
        Every setting that determines the verdict, defaults filled in (the topology's derived parameters,
        the routing's VCs, the load), JSON-serialisable: equal for two argument lists that ask for the same
        run however they spell it. :data:`NOT_CONFIGURATION` are left out.

    Raises
    ------
    ValueError
        Bad input: one line naming the option, without the ``radixnet cosim: error:`` prefix.
    """
    from radixnet.cli import UsageError
    from radixnet.gen.routing import DeadlockError

    try:
        args, cfg = parse_cosim(argv)
    except UsageError as e:
        raise ValueError(str(e).removeprefix("radixnet cosim: error: ")) from None
    except DeadlockError as e:   # a ParamError too is a ValueError; its str() names the option
        raise ValueError(str(e)) from None
    return normal_form(args, cfg)


def normal_form(args, cfg) -> dict:
    """The configuration :func:`parse_cosim`'s results describe, as :func:`check_configuration` returns it.

    Parameters
    ----------
    args : argparse.Namespace
        :func:`parse_cosim`'s arguments.
    cfg : radixnet.golden.sim.SimConfig
        Its configuration.

    Returns
    -------
    dict
    """
    out = {k: v for k, v in sorted(vars(args).items()) if k not in NOT_CONFIGURATION
           and not k.startswith(("topo_", "traffic_")) and k != "topo"}
    out.update(topo=cfg.net.family, params=cfg.net.params, routing=cfg.routing, traffic=cfg.traffic,
               traffic_opts=dict(cfg.traffic_opts), vcs=cfg.vcs, vc_depth=cfg.vc_depth,
               packet_length=cfg.packet_length, speedup=cfg.speedup, router_model=cfg.model.name, seed=cfg.seed,
               ugal_threshold=cfg.ugal_threshold, threshold=cfg.threshold, egress_depth=cfg.egress_depth,
               sink_stall=cfg.sink_stall, group=cfg.group, seq_wavefront=cfg.seq_wavefront,
               buffer_fronts=cfg.buffer_fronts, buffer_ram=cfg.buffer_ram,
               load=None if args.batch is not None else (args.load or DEFAULT_LOAD))
    return json.loads(json.dumps(dict(sorted(out.items())), default=lambda x: x.item() if hasattr(x, "item")
                                 else x.tolist() if hasattr(x, "tolist") else str(x)))


#: ``radixnet cosim`` options a matrix entry may not set: how a run is shown is the matrix command's
NOT_IN_MATRIX = ("json", "quiet", "help")


def matrix_entry(values: dict) -> tuple[list[str], dict]:
    """One configuration of a ``radixnet cosim-matrix`` file as ``radixnet cosim`` arguments, checked.

    Parameters
    ----------
    values : dict
        The entry's settings: ``radixnet cosim`` option names with ``_`` for ``-`` (``vc_depth``), the
        topology's parameters among them; ``true``/``false`` for a flag (``allow_idle``); a list is joined
        with commas.

    Returns
    -------
    (list of str, dict)
        The arguments, and the configuration's normal form (:func:`check_configuration`).

    Raises
    ------
    radixnet.cosim.matrix.EntryError
        An unknown key, a value of the wrong kind, or what ``radixnet cosim`` refuses, naming the key when
        one is at fault.
    """
    import re

    from radixnet.cli import UsageError
    from radixnet.cosim.matrix import EntryError
    from radixnet.gen import family_names

    topo = values.get("topo", "fbfly")
    if not isinstance(topo, str) or topo not in family_names():
        raise EntryError("topo", f"unknown family {topo!r} (one of {', '.join(family_names())})")
    try:
        options = topo_parser(topo)._option_string_actions
    except UsageError as e:
        raise EntryError("topo", str(e).removeprefix("radixnet cosim: error: --topo: ")) from None
    argv: list[str] = []
    for key, value in values.items():
        opt = "--" + key.replace("_", "-")
        action = options.get(opt)
        if action is None or key in NOT_IN_MATRIX:
            raise EntryError(key, f"unknown key: radixnet cosim takes no {opt} for {topo} (the keys are name and "
                                  f"the options `radixnet cosim --topo {topo} --help` lists)")
        if action.nargs == 0:   # a flag
            if not isinstance(value, bool):
                raise EntryError(key, f"must be true or false (got {value!r})")
            if value:
                argv.append(opt)
            continue
        if isinstance(value, list) and value and all(isinstance(x, (int, float, str)) and not isinstance(x, bool)
                                                     for x in value):
            value = ",".join(map(str, value))
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise EntryError(key, f"must be a number or a string (got {value!r})")
        argv.append(f"{opt}={value}")   # one word: a value that starts with a dash stays a value
    try:
        return argv, check_configuration(argv)
    except ValueError as e:
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        named = re.search(r"--([a-z][a-z0-9-]*)", msg)
        key = named[1].replace("-", "_") if named else None
        raise EntryError(key if key in values else None, msg) from None


def run_configuration(argv: Sequence[str], progress=None) -> dict:
    """Run one co-simulation configuration as ``radixnet cosim`` would; return its verdict and outcome.

    The task ``radixnet cosim-matrix`` runs for each entry, in this process, a local worker process or on a
    Dask worker (:func:`radixnet.cosim.matrix.run_entry`).

    Parameters
    ----------
    argv : sequence of str
        ``radixnet cosim`` arguments (checked by :func:`check_configuration` before).
    progress : callable, optional
        A :data:`radixnet.gen.progress.ProgressFn`.

    Returns
    -------
    dict
        The verdict (:func:`run_cosim`) with ``outcome`` (:func:`outcome`: ``MATCH``, ``MISMATCH`` or
        ``VACUOUS``) and ``first_described``: the first differing packets, one line each.

    Raises
    ------
    ValueError
        Bad input (one line).
    radixnet.cosim.run.CosimError
        The simulator failed to build or run (its log is named).
    """
    from radixnet.cosim.run import describe_mismatch

    args, cfg = parse_cosim(argv)
    verdict = run_cosim(args, cfg, progress)
    verdict["outcome"] = outcome(verdict, args.allow_idle)
    verdict["first_described"] = [describe_mismatch(m) for m in verdict.get("first", [])[:3]]
    return verdict


def corners(cfg) -> str:
    """The run's place in the corner matrix (router model, speedup, allocator, packet length, sinks), and the
    corners it did not exercise, with the command that runs them all (cosim/matrices/corners.toml)."""
    from radixnet.hdl.router import RTL_MODELS, RTL_SPEEDUPS, SEQUENTIAL

    seq = cfg.routing in SEQUENTIAL
    alloc = "sequential" if seq else "separable"
    stalls = bool(cfg.egress_depth and cfg.sink_stall > 0)
    here = [f"model {cfg.model.name}", f"speedup {cfg.speedup}", f"{alloc} allocator",
            f"{'multi' if cfg.packet_length > 1 else 'single'}-flit packets",
            "stalling sinks" if stalls else "ideal sinks"]
    other = [f"model {m}" for m in RTL_MODELS if m != cfg.model.name]
    other += [f"speedup {s}" for s in RTL_SPEEDUPS if s != cfg.speedup]
    other += ["separable allocator" if seq else "sequential allocator (ugal-s, clos-ad, 2dfb-adaptive)"]
    other += ["single-flit packets" if cfg.packet_length > 1 else "multi-flit packets (--packet-length)"]
    other += ["ideal sinks" if stalls else "stalling sinks (--egress-depth, --sink-stall)"]
    return (f"{', '.join(here)}; not exercised: {', '.join(other)} "
            f"(all of them: radixnet cosim-matrix --matrix cosim/matrices/corners.toml --out DIR)")


def report(verdict: dict, cfg, ok: bool) -> None:
    """Print the verdict: the match line, the backpressure counters, the coverage bins and the first mismatches."""
    from radixnet.cosim.run import describe_mismatch

    router = "router" in verdict
    what = f"traversals of router {verdict['router']}" if router else "packets"
    print(f"{'MATCH' if ok else 'MISMATCH'}: {verdict['packets'] - verdict['mismatches']} of "
          f"{verdict['packets']} {what} at the golden model's port and cycle, every hop compared "
          f"({cfg.net.family} {cfg.net.params}, {cfg.routing}, {cfg.traffic}, V={cfg.vcs} B={cfg.vc_depth} "
          f"L={cfg.packet_length} S={cfg.speedup}, router model {cfg.model.name}"
          f"{f', decision line g={cfg.seq_wavefront}' if cfg.seq_wavefront else ''})")
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
    if verdict.get("rtl_checks_failed"):
        print(f"  design checks failed: {verdict['rtl_checks_failed']}; first: {'; '.join(verdict['rtl_checks'][:3])}")
    bins = []
    for family, c in verdict.get("coverage", {}).items():
        bins.append(f"{family} n/a" if "n/a" in c else f"{family} {c['hit']}/{c['total']}"
                    + (f" ({c['passed']} flits passed their front)" if "passed" in c else ""))
    print(f"  coverage: {', '.join(bins)}")
    print(f"  corners: {corners(cfg)}")
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
