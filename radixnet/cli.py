"""The ``radixnet`` command line.

::

    radixnet topo list
    radixnet topo FAMILY --PARAM V ... [--metrics] [--json] [--export graphml|edgelist|booksim-anynet FILE]

Every bad input ends in one line on stderr naming the parameter and what is
allowed, and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Sequence

from radixnet import limits

try:  # under a tight ulimit -v numpy's libraries may fail to load: one line, not a traceback
    limits.install()
    from radixnet.gen import ParamError, family_names, get_family
    from radixnet.gen.cluster import SchedulerLost
    from radixnet.gen.params import REQUIRED, Parser, UsageError
    from radixnet.gen.routing import DeadlockError
    from radixnet.golden.native import NativeUnavailable
except (MemoryError, ImportError, SystemError) as _e:
    if not limits.starved(_e):
        raise
    print(limits.out_of_memory("radixnet", _e), file=sys.stderr)
    raise SystemExit(1) from None

__all__ = ["main", "version", "write_failure", "OUTPUT_OPTIONS", "STDOUT", "sim_config", "check_routing", "topo_network", "traffic_option_help", "size_arg",
           "add_sim_args", "family_argument", "peek_topo", "print_report", "Parser", "UsageError"]


def _family_parser(name: str) -> Parser:
    fam = get_family(name)
    p = Parser(prog=f"radixnet topo {name}", description=f"{fam.summary}. {fam.reference}")
    for prm in fam.params:
        default = "required" if prm.default is REQUIRED else (
            "derived" if prm.default is None else
            ",".join(map(str, prm.default)) if isinstance(prm.default, list) else prm.default)
        p.add_argument("--" + prm.name.replace("_", "-"), dest=prm.name, default=None, metavar="V",
                       help=f"{prm.help} [{prm.allowed()}; default {default}]")
    p.add_argument("--seed", type=_int_arg("seed"), default=None, metavar="N",
                   help=f"seed for randomised families and sampled metrics, an integer in [0, {2**63 - 1}]")
    p.add_argument("--metrics", action="store_true", help="compute static metrics")
    p.add_argument("--sample", type=_int_arg("sample"), default=None, metavar="N",
                   help="estimate distances from N >= 1 sampled sources (stated in the output)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar for --metrics (there is none when stderr "
                                                         "is not a terminal either)")
    p.add_argument("--export", nargs=2, metavar=("FORMAT", "FILE"),
                   help="write the network: graphml, edgelist, booksim-anynet or json (all read back by "
                        "'radixnet topo file')")
    p.add_argument("--max-memory", type=size_arg("max-memory"), default=None, metavar="SIZE",
                   help="memory building the network, its metrics and export may plan to use, bytes or with "
                        "K/M/G/T (e.g. 8G); larger requests are refused before any work; at most this machine's "
                        "RAM [default: half of it]")
    return p


def family_argument(argv: Sequence[str], prog: str) -> tuple[str, list[str]]:
    """The family a ``FAMILY [--PARAM V ...]`` command (``prog``) names and the arguments after it; the family may
    also be given as ``--topo FAMILY`` or ``--topo=FAMILY``, the spelling of ``sim``, ``sweep`` and ``cosim``.

    >>> family_argument(["--topo", "fbfly", "--k", "4"], "radixnet topo"), family_argument(["torus"], "radixnet topo")
    (('fbfly', ['--k', '4']), ('torus', []))
    """
    if argv[0] == "--topo":
        if len(argv) == 1:
            raise UsageError(f"{prog}: error: --topo needs a family (one of {', '.join(family_names())})")
        return argv[1], list(argv[2:])
    if argv[0].startswith("--topo="):
        return argv[0].split("=", 1)[1], list(argv[1:])
    return argv[0], list(argv[1:])


def _cmd_topo(argv: Sequence[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: radixnet topo list | radixnet topo FAMILY [--PARAM V ...] [--metrics] [--json] "
              "[--export FORMAT FILE]\nfamilies: " + ", ".join(family_names()))
        return 0
    if argv[0] == "list":
        rows = [(n, get_family(n).summary) for n in family_names()]
        w = max(len(n) for n, _ in rows)
        for n, s in rows:
            print(f"{n:<{w}}  {s}")
        return 0
    name, rest = family_argument(argv, "radixnet topo")
    if name not in family_names():
        raise UsageError(f"radixnet topo: error: unknown family {name!r} (one of {', '.join(family_names())})")
    parser = _family_parser(name)
    args = parser.parse_args(rest)
    fam = get_family(name)
    values = {prm.name: getattr(args, prm.name) for prm in fam.params if getattr(args, prm.name) is not None}
    if args.seed is not None and any(prm.name == "seed" for prm in fam.params):
        values["seed"] = args.seed
    if args.seed is not None and not 0 <= args.seed <= 2**63 - 1:  # every check before any work
        raise ParamError("seed", f"must be an integer in [0, {2**63 - 1}] (got {args.seed})")
    if args.sample is not None and args.sample < 1:
        raise ParamError("sample", f"must be an integer >= 1 (got {args.sample})")
    from radixnet.gen.export import check_format
    if args.export:
        from radixnet.gen.params import check_out_file
        check_format(args.export[0])
        check_out_file(args.export[1], "export")
    net = topo_network(name, values, args)
    if args.export:
        from radixnet.gen.export import export
        export(net, args.export[0], args.export[1])
    if args.metrics:
        from radixnet.gen.metrics import static_metrics
        from radixnet.gen.progress import Progress
        with Progress(f"{name} metrics", quiet=args.quiet) as progress:
            report: dict[str, Any] = static_metrics(net, sample=args.sample, seed=args.seed or 0, progress=progress)
    else:
        report = {"family": net.family, "params": net.params, "terminals": net.num_terminals,
                  "routers": net.num_routers, "radix": net.max_radix, "channels": net.num_channels}
    if args.json:
        print(json.dumps(report, sort_keys=False))
    else:
        print_report(report)
    return 0


def topo_network(name: str, values: dict[str, Any], args: argparse.Namespace):
    """Build family ``name`` for ``radixnet topo``, after refusing a request past the memory limit.

    The network, its metrics (``args.metrics``, ``args.sample``) and its export (``args.export``) are
    estimated from the family's size (routers, channels, terminals) before anything is allocated and
    held to ``args.max_memory`` (default half of the RAM; :mod:`radixnet.gen.resources`).

    Raises
    ------
    ParamError
        A bad parameter, or ``--max-memory`` naming the figure, the limit and how to raise it.
    """
    from radixnet.gen import build
    from radixnet.gen.export import memory_estimate as export_memory
    from radixnet.gen.family import estimate
    from radixnet.gen.metrics import memory_estimate as metrics_memory
    from radixnet.gen.resources import check_memory
    size = estimate(name, max_memory=args.max_memory, **values)  # refuses the build itself past the limit
    parts = {"network": size.memory()["kept"]}
    R, C, T = size.routers, size.channels, size.terminals
    if args.metrics:
        parts["metrics"] = metrics_memory(R, C, T, sample=args.sample, family=name)
    if args.export:
        parts[f"{args.export[0]} export"] = export_memory(args.export[0], R, C, T)
    if len(parts) > 1:
        doing = " and ".join(x for x, on in (("--metrics", args.metrics), ("--export", args.export)) if on)
        check_memory(parts, args.max_memory, what=f"{name} ({size.describe()}) with {doing}",
                     hint="give smaller parameters" + (" or --sample N" if args.metrics else ""))
    return build(name, max_memory=args.max_memory, **values)


def print_report(report: dict[str, Any]) -> None:
    """Print ``report`` one ``key  value`` line per entry (a dict value as ``a=b`` pairs, ``None`` left out)."""
    w = max(len(k) for k in report)
    for k, v in report.items():
        if isinstance(v, dict):
            v = " ".join(f"{a}={b}" for a, b in v.items() if b is not None)
        print(f"{k:<{w}}  {v}")


# ---------------------------------------------------------------- simulation
def add_sim_args(p: argparse.ArgumentParser, family: str) -> None:
    """Arguments shared by ``radixnet sim`` and ``radixnet sweep``: topology, router and traffic."""
    from radixnet.gen.routing import DEFAULT_ROUTING, ROUTINGS
    from radixnet.golden.traffic import DEFAULT_TRAFFIC, PATTERN_OPTIONS, PATTERNS
    p.add_argument("--topo", default="fbfly", help="topology family [default fbfly]")
    for prm in get_family(family).params:
        p.add_argument("--" + prm.name.replace("_", "-"), dest="topo_" + prm.name, default=None, metavar="V",
                       help=f"{family}: {prm.help} [{prm.allowed()}]")
    p.add_argument("--routing", default=DEFAULT_ROUTING,
                   help=f"one of {', '.join(ROUTINGS)} [default {DEFAULT_ROUTING}; which ones a topology takes: "
                        "docs/router-spec.md §R7-§R7d, radixnet.gen.routing.resolve]")
    p.add_argument("--traffic", default=DEFAULT_TRAFFIC,
                   help=f"one of {', '.join(PATTERNS)} [default {DEFAULT_TRAFFIC}]")
    from radixnet.gen.router_config import ROUTER_PARAMS, default_help, router_param
    from radixnet.gen.router_model import ROUTER_MODELS
    rm = router_param("router_model")
    p.add_argument("--router-model", default=None, metavar="M",
                   help=f"{rm.help}: " + "; ".join(f"{m.name}: {m.summary}" for m in ROUTER_MODELS.values())
                        + f" [default {rm.default}]")
    opts = sorted({o.name for v in PATTERN_OPTIONS.values() for o in v})
    for o in opts:
        p.add_argument("--" + o.replace("_", "-"), dest="traffic_" + o, default=None, metavar="V",
                       help=traffic_option_help(o))
    for prm in ROUTER_PARAMS:   # the router's parameters: one table (radixnet.gen.router_config)
        name = prm.name.replace("_", "-")
        if prm.type is int:
            p.add_argument("--" + name, type=_int_arg(name), default=None, metavar="N", help=default_help(prm))
        elif prm.name != "router_model":   # a choice of words (--buffer-ram)
            p.add_argument("--" + name, choices=prm.choices, default=None, help=default_help(prm))
    from radixnet.golden.sim import LIMITS
    for name, help_, default in (
            ("packet-length", "flits per packet", "1"),
            ("link-latency", "cycles per channel", "1"),
            ("measure", "cycles in the labelled measurement interval", "2000"),
            ("seed", "random seed", "0")):
        lo, hi = LIMITS[name.replace("-", "_")]
        p.add_argument("--" + name, type=_int_arg(name), default=None, metavar="N",
                       help=f"{help_} [default: {default}; an integer in [{lo}, {hi}]]")
    p.add_argument("--sink-stall", type=_float_arg("sink-stall"), default=None, metavar="P",
                   help="probability that a terminal's sink takes no flit in a cycle (AXI tready low; a hash of "
                        "seed, terminal and cycle, §R3a); needs --egress-depth >= 1; a number in [0, 1) [default 0]")
    p.add_argument("--max-memory", type=size_arg("max-memory"), default=None, metavar="SIZE",
                   help="memory a run may plan to use, bytes or with K/M/G/T (e.g. 8G); larger runs are refused "
                        "before any work; at most this machine's RAM [default: half of it]")


def traffic_option_help(name: str) -> str:
    """``--help`` of traffic option ``name``: what it sets, for which patterns, and what it takes.

    Examples
    --------
    >>> traffic_option_help("shift")
    'terminal offset of shift (default T//2) [shift only; an integer >= 1]'
    """
    from radixnet.golden.traffic import PATTERN_OPTIONS
    found = [(pattern, o) for pattern, opts in PATTERN_OPTIONS.items() for o in opts if o.name == name]
    if not found:
        return "traffic option"
    patterns = ", ".join(dict.fromkeys(pattern for pattern, _ in found))
    o = found[0][1]
    default = "" if o.default is None else f"; default {o.default}"
    return f"{o.help} [{patterns} only; {o.allowed()}{default}]"


def size_arg(name: str):
    """An argparse ``type`` for ``--name SIZE``: bytes, or a number with K/M/G/T (binary) such as ``8G``.

    >>> size_arg("max-memory")("1.5k")
    1536
    """
    def conv(x: str) -> int:
        t = x.strip().upper().removesuffix("B").removesuffix("I")
        mult = 1
        if t and t[-1] in "KMGT":
            mult = 1 << (10 * ("KMGT".index(t[-1]) + 1))
            t = t[:-1]
        try:
            v = float(t)
        except ValueError:
            v = float("nan")
        if not (v >= 1 and v * mult < 2**62):
            raise argparse.ArgumentTypeError(f"--{name} must be a size >= 1 byte such as 512M or 8G (got {x!r})")
        return int(v * mult)
    return conv


def _int_arg(name: str):
    def conv(x: str) -> int:
        try:
            return int(x)
        except ValueError:
            raise argparse.ArgumentTypeError(f"--{name} must be an integer (got {x!r})") from None
    return conv


def _float_arg(name: str):
    def conv(x: str) -> float:
        try:
            return float(x)
        except ValueError:
            raise argparse.ArgumentTypeError(f"--{name} must be a number (got {x!r})") from None
    return conv


def sim_config(args: argparse.Namespace):
    """Build and validate a SimConfig from parsed ``add_sim_args`` arguments."""
    from radixnet.gen import build
    from radixnet.golden.sim import SimConfig
    fam = get_family(args.topo)
    values = {prm.name: getattr(args, "topo_" + prm.name) for prm in fam.params
              if getattr(args, "topo_" + prm.name) is not None}
    net = build(args.topo, max_memory=getattr(args, "max_memory", None), **values)  # refused past the limit
    from radixnet.gen.router_config import ROUTER_DEFAULTS
    kw = {k: getattr(args, k) for k in (*ROUTER_DEFAULTS, "packet_length", "link_latency", "measure", "seed",
                                        "max_memory", "sink_stall")
          if getattr(args, k) is not None}
    topts = {k[len("traffic_"):]: v for k, v in vars(args).items() if k.startswith("traffic_") and v is not None}
    return SimConfig(net, routing=args.routing, traffic=args.traffic, traffic_opts=topts, **kw).validate()


def check_routing(args: argparse.Namespace) -> None:
    """Build the topology of parsed ``add_sim_args`` arguments and check that it takes ``args.routing``.

    Raises
    ------
    ParamError
        A bad topology parameter, or ``--routing`` naming the routings the topology takes.
    """
    from radixnet.gen import build
    from radixnet.gen.routing import resolve
    fam = get_family(args.topo)
    values = {prm.name: getattr(args, "topo_" + prm.name) for prm in fam.params
              if getattr(args, "topo_" + prm.name) is not None}
    net = build(args.topo, max_memory=getattr(args, "max_memory", None), **values)
    for routing in str(args.routing).split(","):
        resolve(routing.strip(), net)


def peek_topo(argv: Sequence[str]) -> str:
    """The ``--topo`` value in ``argv`` before parsing (its family's parameters become options), default fbfly."""
    for i, a in enumerate(argv):
        if a == "--topo" and i + 1 < len(argv):
            return argv[i + 1]
        if a.startswith("--topo="):
            return a.split("=", 1)[1]
    return "fbfly"


def _cmd_sim(argv: Sequence[str]) -> int:
    topo = peek_topo(argv)
    if topo not in family_names():
        raise UsageError(f"radixnet sim: error: --topo: unknown family {topo!r} (one of {', '.join(family_names())})")
    p = Parser(prog="radixnet sim", description="Simulate a network cycle by cycle (docs/router-spec.md); "
                                                "measurement per Kim et al. §3.2.")
    add_sim_args(p, topo)
    from radixnet.golden.sim import BATCH_LIMIT
    p.add_argument("--load", type=_float_arg("load"), default=None,
                   help="offered load, flits/terminal/cycle, in (0, 1]")
    p.add_argument("--batch", type=_int_arg("batch"), default=None,
                   help=f"batch mode: packets per terminal (Kim Fig. 5), an integer in [1, {BATCH_LIMIT}]")
    p.add_argument("--trace", default=None, metavar="FILE", help="write every packet as JSON Lines (spec §R9)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar (there is none when stderr is not a "
                                                         "terminal either)")
    args = p.parse_args(list(argv))
    if (args.load is None) == (args.batch is None):
        check_routing(args)  # a bad topology or routing is named first, with what the topology takes
        raise UsageError("radixnet sim: error: give exactly one of --load or --batch")
    cfg = sim_config(args)
    tracing = args.trace is not None
    if args.load is not None:  # every check before any work or file
        cfg.check_load(args.load)
    else:
        cfg.check_batch(args.batch, tracing)
    if tracing:
        from radixnet.gen.params import check_out_file
        check_out_file(args.trace, "trace")
    from radixnet.gen.params import OUT_OF_ROOM
    from radixnet.gen.progress import Progress
    from radixnet.golden.sim import SimulationError, Simulator, TraceWriter
    sim = Simulator(cfg, trace=tracing)
    fh = None
    try:
        if tracing:
            fh = open(args.trace, "w", encoding="utf-8")
            sim.on_ejected = TraceWriter(fh)
        try:
            with Progress("sim", quiet=args.quiet) as progress:
                result = (sim.run_load(args.load, progress=progress) if args.load is not None
                          else sim.run_batch(args.batch, progress=progress))
        except SimulationError as e:
            print(f"radixnet sim: {e}", file=sys.stderr)
            return 1
        finally:
            if fh:
                fh.close()
    except OSError as e:  # the trace file: opening it (bad input), or a write that fails (a full disk: exit 1)
        if e.errno in OUT_OF_ROOM:
            raise OSError(e.errno, e.strerror, args.trace) from None
        raise ParamError("trace", f"cannot write {args.trace}: {e.strerror or e}") from None
    report = {"topo": cfg.net.family, "params": cfg.net.params, "routing": cfg.routing, "traffic": cfg.traffic,
              "router_model": cfg.model.name, "vcs": cfg.vcs, "vc_depth": cfg.vc_depth, "speedup": cfg.speedup,
              "seed": cfg.seed,
              **({"egress_depth": cfg.egress_depth, "sink_stall": cfg.sink_stall} if cfg.egress_depth else {}),
              **({"group": cfg.group} if cfg.model.grouped else {}),
              **({"seq_wavefront": cfg.seq_wavefront} if cfg.seq_wavefront else {}),
              **result}
    if args.json:
        print(json.dumps(report))
    else:
        print_report(report)
    return 0


def _cmd_sweep(argv: Sequence[str]) -> int:
    from radixnet.sweep_cli import cmd_sweep
    return cmd_sweep(argv)


#: study function arguments that are not the user's to set (the CLI or the runner passes them)
STUDY_RESERVED = ("out", "jobs", "on_point", "router_model", "scheduler")


def study_parameters(name: str) -> dict[str, Any]:
    """The parameters ``--set`` may give study ``name``, with their defaults (its declared :attr:`Study.params`)."""
    from radixnet.studies.registry import STUDIES
    return {p.name: p.default for p in STUDIES[name].params}


def study_parameter_table(name: str) -> str:
    """``radixnet study NAME --set help``: each parameter ``--set`` may give study ``name``, one per line, with
    its default, what is allowed (the bounds :func:`radixnet.studies.registry.check_study` applies) and its help.

    >>> print(study_parameter_table("kim-fig12").splitlines()[1])
      N        default 4096           an integer in [4, 65536]; terminals of every k-ary n-flat
    """
    from radixnet.studies.registry import STUDIES
    params = STUDIES[name].params
    lines = [f"radixnet study {name} --set NAME=VALUE (repeatable); NAME one of:" if params else
             f"radixnet study {name}: no parameters to --set"]
    defaults = ["derived" if p.default is None else ",".join(map(str, p.default))
                if isinstance(p.default, (tuple, list)) else str(p.default) for p in params]
    wn = max((len(p.name) for p in params), default=0)
    wd = max((len(d) for d in defaults), default=0)
    for p, default in zip(params, defaults):
        lines.append(f"  {p.name:<{wn}}  default {default:<{wd}}  {p.allowed()}; {p.help}")
    return "\n".join(lines)


def _cmd_study(argv: Sequence[str]) -> int:
    from radixnet.studies.registry import STUDIES, check_study, run_study
    if not argv or argv[0] in ("-h", "--help", "list"):
        print("usage: radixnet study NAME --out DIR [--k K] [--n N] [--jobs J] [--scheduler ADDRESS]\nstudies:")
        for st in STUDIES.values():
            print(f"  {st.name:<10} {st.doc}")
        print("`radixnet study NAME --set help` lists a study's parameters, their defaults and bounds")
        return 0
    if argv[0] in STUDIES and any(a == "--set=help" or (a == "--set" and b == "help")
                                  for a, b in zip(argv[1:], list(argv[2:]) + [""])):
        print(study_parameter_table(argv[0]))
        return 0
    p = Parser(prog=f"radixnet study {argv[0]}", description="Regenerate a paper figure and check its claims.")
    p.add_argument("--out", required=True, help="output directory (resumes if it holds earlier points)")
    p.add_argument("--k", type=_int_arg("k"), default=None, help="kim-*: routers per dimension [default 32]")
    p.add_argument("--n", type=_int_arg("n"), default=None, help="2dfb-fig4: dimensions [default 1]")
    p.add_argument("--jobs", type=_int_arg("jobs"), default=None, help="worker processes, 1 to 256 [default: CPU "
                   "count]; with --scheduler: points in flight at most [default: twice the cluster's worker threads]")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the study's sweeps on a Dask cluster: tcp://HOST:PORT of a running `dask scheduler` "
                        "(docs/cluster.md) [default: local processes]")
    from radixnet.gen.router_model import ROUTER_MODELS
    p.add_argument("--router-model", default="single-cycle", metavar="M",
                   help="router pipeline the study simulates (docs/router-spec.md §R10): one of "
                        + ", ".join(ROUTER_MODELS) + " [default single-cycle]")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a parameter of the study's function, e.g. N=729 (kim-fig12), L=2 (ttn-dynamic), q=5 "
                        "(slimfly-perf), loads=0.1:1.0:0.1; repeatable; `radixnet study NAME --set help` lists them")
    p.add_argument("--quiet", action="store_true", help="no progress bar or per-point lines")
    args = p.parse_args(list(argv[1:]))
    if argv[0] not in STUDIES:
        raise ParamError("study", f"must be one of {', '.join(STUDIES)} (got {argv[0]!r})")
    settable = study_parameters(argv[0])
    given: dict[str, Any] = {}
    for name, value in (("k", args.k), ("n", args.n)):
        if value is None:
            continue
        if name not in settable:
            having = ", ".join(st for st in STUDIES if name in study_parameters(st))
            raise ParamError(name, f"applies to the studies with a {name} ({having})")
        given[name] = value
    for item in args.set:
        name, eq, value = item.partition("=")
        if not eq or name not in settable:
            raise ParamError("set", f"{item!r}: give NAME=VALUE with NAME one of "
                                    f"{', '.join(settable) or '(none: this study has no parameters)'}")
        given[name] = value
    # every value against the study's declared bounds, and --jobs, before any work
    kw: dict[str, Any] = {"router_model": args.router_model,  # run_study checks it
                          **check_study(argv[0], {**given, "jobs": args.jobs})}
    if kw["jobs"] is None or argv[0] == "kim-fig5":
        del kw["jobs"]
    if args.scheduler is not None:
        from radixnet.gen.cluster import parse_address
        kw["scheduler"] = parse_address(args.scheduler)  # a malformed address: refused before any work
        if not STUDIES[argv[0]].sweeps:
            print(f"radixnet study {argv[0]}: warning: --scheduler does not apply (this study runs no sweeps); "
                  f"it runs here", file=sys.stderr)
    from radixnet.gen.progress import Progress
    total = STUDIES[argv[0]].points(**kw) if argv[0] in STUDIES else None
    done = [0]
    with Progress(f"study {argv[0]}", quiet=args.quiet) as progress:
        def tick(rec: dict) -> None:
            done[0] += 1
            what = (f"{rec.get('routing')} "
                    f"{'load ' + str(rec.get('load')) if 'load' in rec else 'batch ' + str(rec.get('batch'))}")
            progress.log(f"  [{done[0]}/{total}] {what}")
            progress("points", done[0], total, what)

        try:
            result = run_study(argv[0], args.out, on_point=tick, **kw)  # refuses a bad --router-model before any work
        except OSError as e:  # a write that fails midway (a full disk): the points written stay, a rerun resumes
            print(write_failure(f"radixnet study {argv[0]}", argv, e), file=sys.stderr)
            return 1
    for w in result.get("warnings", ()):  # the study's own store: lines dropped, the points run again
        print(f"radixnet study {argv[0]}: warning: {w}", file=sys.stderr)
    ok = all(c["holds"] for c in result["claims"])
    for c in result["claims"]:
        print(f"{'holds ' if c['holds'] else 'FAILS '} {c['claim']}: {c['computed']}")
    print(f"wrote {args.out}/claims.json and the figures, router model {result['router_model']} "
          f"({'all claims hold' if ok else 'some claims fail'})")
    return 0 if ok else 1


def _cmd_clex(argv: Sequence[str]) -> int:
    from radixnet.clex_cli import cmd_clex
    return cmd_clex(list(argv))


def _cmd_cost(argv: Sequence[str]) -> int:
    from radixnet.cost_cli import cmd_cost
    return cmd_cost(argv)


def _cmd_mutate(argv: Sequence[str]) -> int:
    from radixnet.cosim.mutate import main as mutate_main
    return mutate_main(list(argv))


def _cmd_rtl(argv: Sequence[str]) -> int:
    import warnings

    from amaranth._toolchain.yosys import YosysError
    from amaranth.hdl import UnusedElaboratable

    from radixnet.rtl_cli import cmd_rtl
    try:
        return cmd_rtl(argv)
    except YosysError as e:  # Yosys's own failure, its traceback included: one line
        warnings.simplefilter("ignore", UnusedElaboratable)  # the routers left unwritten, reported at exit
        lines = [x.strip() for x in str(e).splitlines() if x.strip()]
        why = next((x for x in lines if "failed to reserve" in x or "Cannot allocate" in x), None)
        if why is not None:  # the built-in (WebAssembly) Yosys reserves about 4 GiB of address space
            raise MemoryError(f"Yosys (WebAssembly) reserves about 4.1 GiB of address space: {why}") from None
        print(f"radixnet rtl: error: Yosys failed: {lines[-1] if lines else 'no message'}", file=sys.stderr)
        return 1
    except BaseException:  # a failure midway (a full disk): one line from main, no warnings at exit
        warnings.simplefilter("ignore", UnusedElaboratable)
        raise


def _cmd_cosim(argv: Sequence[str]) -> int:
    from radixnet.cosim_cli import cmd_cosim
    return cmd_cosim(argv)


def _cmd_cosim_matrix(argv: Sequence[str]) -> int:
    from radixnet.cosim_matrix_cli import cmd_cosim_matrix
    return cmd_cosim_matrix(argv)


#: Options that name what a command writes, for :func:`write_failure`.
OUTPUT_OPTIONS = ("--out", "--export", "--trace")
#: The name a failed write to standard output carries (:class:`_Output`).
STDOUT = "standard output"


class _Output:
    """``sys.stdout`` while a command runs: a write that fails (a full disk, ``/dev/full``) raises an OSError
    naming :data:`STDOUT`; a closed pipe stays a BrokenPipeError."""

    def __init__(self, stream) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OSError(e.errno, e.strerror, STDOUT) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as e:
            raise OSError(e.errno, e.strerror, STDOUT) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def write_failure(command: str, argv: Sequence[str], e: OSError) -> str:
    """The one line of a command whose write failed midway (a full disk, ``/dev/full``): the file, or the
    output option (``--out``, ``--export``, ``--trace``) when the file has no name, or standard output (then
    sent to /dev/null, so that the interpreter's last flush does not fail again).

    >>> write_failure("radixnet sweep", ["--out", "/x"], OSError(28, "No space left on device", "/x/min.csv"))
    'radixnet sweep: error: --out: cannot write /x/min.csv: No space left on device (what was written stays)'
    >>> write_failure("radixnet rtl", ["fbfly", "--out=/x"], OSError(28, "No space left on device"))
    'radixnet rtl: error: --out: cannot write into /x: No space left on device (what was written stays)'
    """
    import errno
    import os

    from radixnet.gen.params import OUT_OF_ROOM
    why = e.strerror or str(e) or type(e).__name__
    writing = e.errno in (*OUT_OF_ROOM, errno.EROFS)
    stays = " (what was written stays)" if writing else ""
    if e.filename == STDOUT:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return f"{command}: error: cannot write {STDOUT}: {why}"
    named = []  # (option, value) of every output option given
    for i, a in enumerate(argv):
        name, eq, inline = a.partition("=")
        if name in OUTPUT_OPTIONS:
            value = inline if eq else (argv[i + 2] if name == "--export" else argv[i + 1]) if i + 1 < len(argv) else ""
            named.append((name, value[:-1] if len(value) > 1 and value.endswith("/") else value))
    if e.filename is None:
        if named and writing:
            return f"{command}: error: {named[0][0]}: cannot write into {named[0][1]}: {why}{stays}"
        return f"{command}: error: {type(e).__name__}: {why}"
    target = os.fsdecode(e.filename)
    option = next((f"{n}: " for n, v in named if v and (target == v or target.startswith(v + "/"))), "")
    if writing:   # an export is written whole or not at all (gen.params.replacing)
        return f"{command}: error: {option}cannot write {target}: {why}{'' if option == '--export: ' else stays}"
    return f"{command}: error: {option}{target}: {why}"


def version() -> str:
    """The installed distribution's version, for ``radixnet --version``.

    Returns
    -------
    str
        ``importlib.metadata.version("radixnet")``, or ``unknown`` when radixnet is not installed.
    """
    from importlib.metadata import PackageNotFoundError, version as dist_version
    try:
        return dist_version("radixnet")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without installing
        return "unknown"


COMMANDS = {"topo": _cmd_topo, "sim": _cmd_sim, "sweep": _cmd_sweep, "study": _cmd_study, "clex": _cmd_clex,
            "rtl": _cmd_rtl, "cosim": _cmd_cosim, "cosim-matrix": _cmd_cosim_matrix, "cost": _cmd_cost,
            "mutate": _cmd_mutate}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("--version", "-V"):
        print(f"radixnet {version()}")
        return 0
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: radixnet [--version] COMMAND ...\ncommands: " + ", ".join(COMMANDS)
              + "\n  radixnet topo list                 the topology families"
              + "\n  radixnet topo FAMILY --help        a family's parameters"
              + "\n  radixnet sim --topo fbfly --k 32 --n 2 --routing ugal-s --traffic worst-case --load 0.45")
        return 0
    cmd = COMMANDS.get(argv[0])
    stdout, sys.stdout = sys.stdout, _Output(sys.stdout)
    try:
        if cmd is None:
            raise UsageError(f"radixnet: error: unknown command {argv[0]!r} (one of {', '.join(COMMANDS)})")
        return cmd(argv[1:])
    except (ParamError, UsageError, DeadlockError, NativeUnavailable) as e:
        print(f"{e}" if isinstance(e, UsageError) else f"radixnet: error: {e}", file=sys.stderr)
        return 2
    except SchedulerLost as e:  # a Dask cluster's scheduler gone mid-run (--scheduler): the points written stay
        print(f"radixnet {argv[0]}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("radixnet: interrupted", file=sys.stderr)
        return 130
    except (MemoryError, ImportError, SystemError) as e:  # past the estimates, or libraries that could not load
        if not limits.starved(e):
            raise
        print(limits.out_of_memory(f"radixnet {argv[0]}", e), file=sys.stderr)
        return 1
    except BrokenPipeError:  # stdout closed early (`| head`): no traceback, and none at exit's flush either
        import os
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as e:  # a write that failed midway (a full disk, /dev/full as standard output)
        print(write_failure(f"radixnet {argv[0]}", argv, e), file=sys.stderr)
        return 1
    finally:
        sys.stdout = stdout


if __name__ == "__main__":
    sys.exit(main())
