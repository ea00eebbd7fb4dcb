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

from radixnet.gen import ParamError, family_names, get_family
from radixnet.gen.params import REQUIRED

__all__ = ["main"]


class UsageError(Exception):
    """Bad command-line input; reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(f"{self.prog}: error: {message}")


def _family_parser(name: str) -> _Parser:
    fam = get_family(name)
    p = _Parser(prog=f"radixnet topo {name}", description=f"{fam.summary}. {fam.reference}")
    for prm in fam.params:
        default = "required" if prm.default is REQUIRED else (
            "derived" if prm.default is None else
            ",".join(map(str, prm.default)) if isinstance(prm.default, list) else prm.default)
        p.add_argument("--" + prm.name.replace("_", "-"), dest=prm.name, default=None, metavar="V",
                       help=f"{prm.help} [{prm.allowed()}; default {default}]")
    p.add_argument("--seed", type=int, default=None, help="seed for randomised families")
    p.add_argument("--metrics", action="store_true", help="compute static metrics")
    p.add_argument("--sample", type=int, default=None, metavar="N",
                   help="estimate distances from N sampled sources (stated in the output)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--export", nargs=2, metavar=("FORMAT", "FILE"),
                   help="write the network: graphml, edgelist, booksim-anynet or json")
    return p


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
    name, rest = argv[0], list(argv[1:])
    if name not in family_names():
        raise UsageError(f"radixnet topo: error: unknown family {name!r} (one of {', '.join(family_names())})")
    parser = _family_parser(name)
    args = parser.parse_args(rest)
    fam = get_family(name)
    values = {prm.name: getattr(args, prm.name) for prm in fam.params if getattr(args, prm.name) is not None}
    if args.seed is not None and any(prm.name == "seed" for prm in fam.params):
        values["seed"] = args.seed
    from radixnet.gen import build
    net = build(name, **values)
    if args.sample is not None and args.sample < 1:
        raise ParamError("sample", f"must be an integer >= 1 (got {args.sample})")
    if args.export:
        from radixnet.gen.export import export
        export(net, args.export[0], args.export[1])
    if args.metrics:
        from radixnet.gen.metrics import static_metrics
        report: dict[str, Any] = static_metrics(net, sample=args.sample, seed=args.seed or 0)
    else:
        report = {"family": net.family, "params": net.params, "terminals": net.num_terminals,
                  "routers": net.num_routers, "radix": net.max_radix, "channels": net.num_channels}
    if args.json:
        print(json.dumps(report, sort_keys=False))
    else:
        _print_table(report)
    return 0


def _print_table(report: dict[str, Any]) -> None:
    w = max(len(k) for k in report)
    for k, v in report.items():
        if isinstance(v, dict):
            v = " ".join(f"{a}={b}" for a, b in v.items() if b is not None)
        print(f"{k:<{w}}  {v}")


COMMANDS = {"topo": _cmd_topo}


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: radixnet COMMAND ...\ncommands: " + ", ".join(COMMANDS)
              + "\n  radixnet topo list                 the topology families"
              + "\n  radixnet topo FAMILY --help        a family's parameters")
        return 0
    cmd = COMMANDS.get(argv[0])
    try:
        if cmd is None:
            raise UsageError(f"radixnet: unknown command {argv[0]!r} (one of {', '.join(COMMANDS)})")
        return cmd(argv[1:])
    except (ParamError, UsageError) as e:
        print(f"radixnet: error: {e}" if isinstance(e, ParamError) else f"{e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("radixnet: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
