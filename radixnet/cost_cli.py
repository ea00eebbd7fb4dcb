"""``radixnet cost``: dollars, cables and watts of a network under Kim, Dally & Abts' model (§4, §5.3).

::

    radixnet cost list
    radixnet cost FAMILY --PARAM V ... [--bandwidth port|random-bisection] [--cost NAME=VALUE ...] [--json]

Builds the network (the family's parameters as in ``radixnet topo``), places its routers and nodes in
cabinets by the family's packaging and prices every link by where it runs
(:mod:`radixnet.gen.cost`, ``docs/cost-power.md``). Prints the dollars per node, the links by kind
(terminal or network), medium (backplane, electrical, optical) and length class, the cable lengths
and the power per node. ``--cost NAME=VALUE`` changes a model parameter (``radixnet cost list``
names them).

Families without a packaging are refused in one line, as is every bad value: exit status 2.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from radixnet.cli import Parser, UsageError, family_argument, print_report, size_arg
from radixnet.gen import ParamError, family_names, get_family
from radixnet.gen.params import REQUIRED

__all__ = ["cmd_cost"]


def _usage() -> str:
    from radixnet.gen.cost import packaging_names
    return ("usage: radixnet cost list | radixnet cost FAMILY [--PARAM V ...] [--bandwidth port|random-bisection] "
            "[--cost NAME=VALUE ...] [--json]\nfamilies with a packaging: " + ", ".join(packaging_names()))


def _list() -> None:
    from radixnet.gen.cost import COST_PARAMS, PACKAGINGS, packaging_names
    print("families with a packaging:")
    for n in packaging_names():
        print(f"  {n:<10} {PACKAGINGS[n].summary}")
    print("model parameters (--cost NAME=VALUE):")
    for p in COST_PARAMS:
        default = "unset" if p.default is None else p.default
        print(f"  {p.name:<23} {default!s:<8} {p.help}")


def _parser(name: str) -> Parser:
    fam = get_family(name)
    p = Parser(prog=f"radixnet cost {name}",
               description=f"Cost and power of a {fam.summary} (Kim et al. 2007 §4, §5.3).")
    for prm in fam.params:
        default = "required" if prm.default is REQUIRED else (
            "derived" if prm.default is None else
            ",".join(map(str, prm.default)) if isinstance(prm.default, list) else prm.default)
        p.add_argument("--" + prm.name.replace("_", "-"), dest=prm.name, default=None, metavar="V",
                       help=f"{prm.help} [{prm.allowed()}; default {default}]")
    p.add_argument("--bandwidth", choices=("port", "random-bisection"), default="port",
                   help="port: every channel is one router port; random-bisection: channels narrowed to the most "
                        "loaded dimension's uniform random load (HyperX-type families) [default port]")
    p.add_argument("--cost", action="append", default=[], metavar="NAME=VALUE",
                   help="a model parameter (radixnet cost list names them), repeatable")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--max-memory", type=size_arg("max-memory"), default=None, metavar="SIZE",
                   help="memory building the network may plan to use, bytes or with K/M/G/T [default: half the RAM]")
    return p


def _cost_params(items: list[str]):
    from radixnet.gen.cost import CostParams
    values: dict[str, str] = {}
    for item in items:
        if "=" not in item:
            raise UsageError(f"radixnet cost: error: --cost takes NAME=VALUE (got {item!r})")
        k, v = item.split("=", 1)
        values[k.strip().replace("-", "_")] = v.strip()
    try:
        return CostParams.from_values(values)
    except ParamError as e:
        if e.name == "cost":
            raise
        raise ParamError("cost", f"{e.name}: {e.message}") from None


def _text(rep) -> None:
    N = rep.terminals
    params = " ".join(f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}"
                      for k, v in rep.params.items() if v is not None)
    fl = rep.floor
    head = {
        "network": f"{rep.family} {params}: {N:,} nodes, {rep.routers:,} routers, {rep.channels:,} channels "
                   f"({rep.links:,} links)",
        "packaging": rep.model["packaging"],
        "floor": f"{fl['node_cabinets']} node + {fl['router_cabinets']} router cabinets, {fl['cols']} x {fl['rows']} "
                 f"({fl['width_m']:.2f} m x {fl['depth_m']:.2f} m); E = sqrt(N/D) = {fl['E']:.2f} m",
        "bandwidth": f"{rep.bandwidth}: {rep.channel_pairs:g} pairs per channel; uniform random load "
                     f"{rep.ur_load:.3f} per channel",
        "cost per node": f"${rep.cost_per_node:,.2f} (routers ${rep.router_cost / N:,.2f}, links "
                         f"${rep.link_cost / N:,.2f} incl. terminal links ${rep.terminal_link_cost / N:,.2f}; "
                         f"links {100 * rep.link_fraction:.0f}% of ${rep.total_cost:,.0f})",
        "power per node": f"{rep.power_per_node:.3f} W (router cores {rep.power['switch'] / N:.3f} W, SerDes "
                          f"{rep.power['links'] / N:.3f} W)",
        "cable lengths": f"L_avg {rep.lengths['l_avg']:.2f} m, global {rep.lengths['l_avg_global']:.2f} m, max "
                         f"{rep.lengths['l_max']:.2f} m (inter-router cables, without the overhead)",
    }
    print_report(head)
    print("links (unidirectional channels):")
    print(f"  {'kind':<9} {'medium':<11} {'length class':<22} {'channels':>10} {'signals':>11} "
          f"{'avg m':>7} {'$':>12}")
    for r in rep.links_by_class:
        print(f"  {r['kind']:<9} {r['medium']:<11} {r['class']:<22} {r['channels']:>10,} {r['signals']:>11,.0f} "
              f"{r['avg_length_m']:>7.2f} {r['cost']:>12,.0f}")
    print("channels per tag:")
    for t in rep.by_tag:
        print(f"  {t['name']:<16} {t['channels']:>9,}: {t['backplane']:,} backplane, {t['neighbour']:,} to a "
              f"neighbouring cabinet, {t['global']:,} global (L_avg {t['l_avg']:.2f} m)")


def cmd_cost(argv: Sequence[str]) -> int:
    """Run ``radixnet cost``; errors raise :class:`ParamError` / :class:`UsageError` (one line, exit 2)."""
    from radixnet.gen.cost import NO_PACKAGING, PACKAGINGS, evaluate, packaging_names
    argv = list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(_usage())
        return 0
    if argv[0] == "list":
        _list()
        return 0
    name, rest = family_argument(argv, "radixnet cost")
    if name not in family_names():
        raise UsageError(f"radixnet cost: error: unknown family {name!r} (one of {', '.join(family_names())})")
    if name not in PACKAGINGS:
        raise UsageError(f"radixnet cost: error: {name} has no packaging (families with one: "
                         f"{', '.join(packaging_names())}): {NO_PACKAGING}")
    args = _parser(name).parse_args(rest)
    params = _cost_params(args.cost)  # every check before any work
    if args.bandwidth == "random-bisection" and name not in ("fbfly", "hyperx", "hypercube", "2dfb"):
        raise ParamError("bandwidth", f"random-bisection needs the most loaded channel, known exactly here for the "
                                      f"HyperX-type families (2dfb, fbfly, hypercube, hyperx), not {name}")
    fam = get_family(name)
    values = {prm.name: getattr(args, prm.name) for prm in fam.params if getattr(args, prm.name) is not None}
    from radixnet.gen import build
    from radixnet.gen.cost import memory_estimate
    from radixnet.gen.family import estimate
    from radixnet.gen.resources import check_memory
    size = estimate(name, max_memory=args.max_memory, **values)  # refuses the build itself past the limit
    check_memory({"network": size.memory()["kept"],
                  "cost model": memory_estimate(size.routers, size.channels, size.terminals)},
                 args.max_memory, what=f"pricing {name} ({size.describe()})", hint="give smaller parameters")
    net = build(name, max_memory=args.max_memory, **values)
    rep = evaluate(net, params, bandwidth=args.bandwidth)
    if args.json:
        d: dict[str, Any] = rep.to_dict()
        print(json.dumps(d))
    else:
        _text(rep)
    return 0
