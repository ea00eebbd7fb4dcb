"""``radixnet rtl``: the RTL generator's command line (:func:`radixnet.hdl.rtlgen.main`) with, before any work,
an estimate of what a large request takes, refused past the memory limit, and progress while it runs.

::

    radixnet rtl FAMILY [--PARAM V ...] [rtlgen's options] [--max-memory SIZE]
    radixnet rtl --topo FAMILY ...            (the spelling of sim, sweep and cosim)

The estimate (:func:`rtl_plan`) comes from the network alone (routers ``R``, their largest radix ``P``,
terminals ``T``, channels ``C``, VCs ``V``) through a model fitted to builds of this machine (scheme
``shared``, ``sp``; fbfly ``k`` = 8, 16, 32 with ``n`` = 2, slimfly ``q`` = 5, 7, 11):

* Verilog and ``manifest.json`` bytes: a core of ``4.6 MB (P/63)^1.3 V^0.55`` per core Amaranth and Yosys
  write (one per distinct router; every router with a routing decided in logic or ``--scheme flat``),
  58 bytes per route ROM entry and 42 in the manifest (``R x T`` each), ``P (330 + 290 V)`` per router
  wrapper, 380 per channel or terminal in the top;
* seconds: 2, plus ``0.004 P^2 V^0.5`` per core (Yosys), plus a second per 5 MB of the rest;
* memory: 800 bytes per route entry (the tables, the ROM words, the manifest) and ``34 KB P^2 V`` to
  elaborate a core.

Measured: fbfly ``k = 32, n = 2`` (32 routers of radix 63) 9.9 MB in 17.7 s (estimated 9.9 MB, 19 s),
slimfly ``q = 11`` (242 routers, 2,178 terminals) 63 MB in 18.3 s, 640 MB peak (estimated 63 MB, 18 s).
A request whose memory estimate is past the limit (``--max-memory``, by default half the RAM within the
process's own limits, :mod:`radixnet.gen.resources`) is refused in one line naming ``--max-memory``; one
estimated at :data:`ANNOUNCE_SECONDS` or more is announced in a line, and without a terminal (no progress
bar) a line per tenth of the routers follows.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Sequence

__all__ = ["ANNOUNCE_SECONDS", "RtlPlan", "rtl_plan", "cmd_rtl"]

#: A request estimated to take this long or longer is announced, with progress lines without a terminal.
ANNOUNCE_SECONDS = 10.0

_MAX_MEMORY_HELP = ("  --max-memory SIZE     memory the generation may plan to use, bytes or with K/M/G/T (e.g. 8G); "
                    "larger requests are refused before any work [default: half the RAM]")


@dataclass(frozen=True)
class RtlPlan:
    """What generating a network's RTL takes, estimated before any work (:func:`rtl_plan`).

    Attributes
    ----------
    family : str
    routers, radix, terminals, vcs, cores : int
        ``R``, the largest ``P``, ``T``, ``V`` (0: not known yet, 1 assumed) and the cores Amaranth and Yosys
        write.
    verilog_bytes : int
        Verilog and ``manifest.json``.
    seconds : float
        Generation (without ``--lint``).
    memory : dict of str to int
        Bytes by part, for :func:`radixnet.gen.resources.check_memory`.
    """

    family: str
    routers: int
    radix: int
    terminals: int
    vcs: int
    cores: int
    verilog_bytes: int
    seconds: float
    memory: dict

    def describe(self) -> str:
        """The network, for messages: ``fbfly (32 routers of radix 63, 1,024 terminals, V=1)``."""
        return (f"{self.family} ({self.routers:,} routers of radix {self.radix}, {self.terminals:,} terminals"
                f"{f', V={self.vcs}' if self.vcs else ''})")

    def line(self) -> str:
        """The announcement: ``radixnet rtl: fbfly (...): 1 core, about 9.9 MB of Verilog, 20 s, 160 MiB``.

        >>> RtlPlan("fbfly", 32, 63, 1024, 1, 1, 9_900_000, 20.4, {"x": 160 << 20}).line()
        'radixnet rtl: fbfly (32 routers of radix 63, 1,024 terminals, V=1): 1 core, about 9.9 MB of Verilog and manifest, 20 s, 160 MiB (estimates)'
        """
        from radixnet.gen.resources import format_bytes
        s = self.seconds
        took = f"{s:.0f} s" if s < 120 else f"{s / 60:.0f} min" if s < 7200 else f"{s / 3600:.1f} h"
        return (f"radixnet rtl: {self.describe()}: {self.cores:,} core{'s' if self.cores != 1 else ''}, about "
                f"{self.verilog_bytes / 1e6:.3g} MB of Verilog and manifest, {took}, "
                f"{format_bytes(sum(self.memory.values()))} (estimates)")


def rtl_plan(net, *, vcs: int, per_router: bool) -> RtlPlan:
    """Estimate the RTL of ``net`` (the model of the module docstring).

    Parameters
    ----------
    net : radixnet.gen.Network
    vcs : int
        ``V``; 0 when not known yet (1 is assumed).
    per_router : bool
        Every router is its own core (a routing decided in logic, or ``--scheme flat``).

    Examples
    --------
    >>> from radixnet.gen import build
    >>> p = rtl_plan(build("fbfly", k=32, n=2), vcs=1, per_router=False)
    >>> p.cores, round(p.verilog_bytes / 1e6, 1), round(p.seconds)
    (1, 9.9, 19)
    """
    import numpy as np
    R, P, T, C, V = net.num_routers, net.max_radix, net.num_terminals, net.num_channels, max(1, int(vcs))
    cores = R if per_router else len(set(zip(net.radix.tolist(), np.bincount(net.inj_router, minlength=R).tolist())))
    core = 4.6e6 * (P / 63) ** 1.3 * V ** 0.55
    entries = R * T
    rest = entries * (58 + 42) + R * P * (330 + 290 * V) + 380 * (C + T)
    seconds = 2 + cores * 0.004 * P * P * V ** 0.5 + rest / 5e6
    memory = {"route tables and ROMs": 800 * entries, "a core's elaboration": 34_000 * P * P * V}
    return RtlPlan(net.family, R, P, T, int(vcs), cores, int(cores * core + rest), seconds, memory)


def _split(argv: list[str]) -> tuple[list[str], int | None]:
    """``argv`` with ``--topo FAMILY`` as the family first and without ``--max-memory SIZE``; and that size."""
    from radixnet.cli import family_argument, size_arg
    from radixnet.gen.params import UsageError
    if argv and (argv[0] == "--topo" or argv[0].startswith("--topo=")):
        family, rest = family_argument(argv, "radixnet rtl")
        argv = [family, *rest]
    out, size = [], None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--max-memory" or a.startswith("--max-memory="):
            value = a.partition("=")[2] if "=" in a else (argv[i + 1] if i + 1 < len(argv) else None)
            if value is None:
                raise UsageError("radixnet rtl: error: argument --max-memory: expected one argument")
            try:
                size = size_arg("max-memory")(value)
            except Exception as e:  # argparse.ArgumentTypeError: one line
                raise UsageError(f"radixnet rtl: error: {e}") from None
            i += 1 if "=" in a else 2
            continue
        out.append(a)
        i += 1
    return out, size


def _plan(argv: list[str]) -> RtlPlan | None:
    """The estimate of ``radixnet rtl ARGV``, or None when the generator refuses the arguments itself."""
    from radixnet.gen import build, family_names, get_family
    from radixnet.gen.routing import HYPERX_FAMILIES, ROUTINGS, deterministic_table
    from radixnet.hdl.router import decided_in_logic
    from radixnet.hdl.rtlgen import arg_parser
    if not argv or argv[0] not in family_names():
        return None
    fam = get_family(argv[0])
    args = arg_parser("radixnet rtl", fam).parse_args(argv[1:])
    values = {p.name: getattr(args, p.name) for p in fam.params if getattr(args, p.name) is not None}
    net = build(argv[0], **values)  # past the memory limit: refused here (ParamError naming --max-memory)
    decided = decided_in_logic(args.routing, net)
    if decided:
        if net.family not in HYPERX_FAMILIES:
            return None  # refused by the generator
        vcs = args.vcs or ROUTINGS[args.routing].classes(net)
    else:
        plan = rtl_plan(net, vcs=args.vcs or 0, per_router=args.scheme == "flat")
        _check(plan)  # before the route tables (R x T entries)
        vcs = args.vcs or int(deterministic_table(net, args.routing, args.vc_classes).classes)
    return rtl_plan(net, vcs=vcs, per_router=decided or args.scheme == "flat")


def _check(plan: RtlPlan) -> None:
    from radixnet.gen.resources import check_memory
    check_memory(plan.memory, what=f"generating the RTL of {plan.describe()}",
                 hint="give smaller parameters")


def cmd_rtl(argv: Sequence[str]) -> int:
    """Run ``radixnet rtl ARGV``; returns the exit status.

    Raises
    ------
    ParamError
        Naming ``--max-memory``: a request whose memory estimate is past the limit, before any work.
    UsageError
        A malformed ``--max-memory``.
    """
    from radixnet.gen import ParamError
    from radixnet.gen.progress import progress_lines
    from radixnet.gen.resources import memory_budget
    from radixnet.hdl.rtlgen import main as rtlgen_main

    args, max_memory = _split(list(argv))
    helping = not args or any(a in ("-h", "--help") for a in args)
    with memory_budget(max_memory):  # a bad --max-memory is refused here; the generator builds under it too
        plan = None
        if not helping:
            try:
                plan = _plan(args)
            except ParamError as e:
                if e.name == "max-memory":
                    raise
            except Exception:  # noqa: BLE001 - the generator refuses these arguments itself, in its own words
                plan = None
        if plan is not None:
            _check(plan)
        large = plan is not None and plan.seconds >= ANNOUNCE_SECONDS
        if large:
            print(plan.line(), flush=True)
        try:
            if large:
                with progress_lines(sys.stdout):
                    return rtlgen_main(args, prog="radixnet rtl")
            return rtlgen_main(args, prog="radixnet rtl")
        except SystemExit as e:
            if helping and e.code == 0 and len(args) > 1:  # a family's --help: the option this command adds
                print(_MAX_MEMORY_HELP)
            raise
