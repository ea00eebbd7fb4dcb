"""``radixnet clex``: the CLEX message-level simulation of Lenzen & Wattenhofer, §II-D and §III.

::

    radixnet clex --k 64 --levels 3 --messages 57 [--seed S] [--light] [--destinations permutation|uniform]
                  [--copies X] [--threads T] [--torus] [--all-to-all] [--json] [--max-memory SIZE] [--quiet]

Runs algorithm A(levels) on C(1/levels, levels) with ``k^levels`` nodes (:func:`radixnet.golden.clex.simulate`)
and prints the per-level table of §III-A (Tables I–IV: max and average rounds, max average load,
average hops); ``--torus`` adds the 3D-torus comparison of §III-A/B, ``--all-to-all`` the all-to-all
schemes of §II-C. Defaults are Table II's C(1/3, 3) with 64^3 nodes and 57 messages per node; Table I
is ``--k 32 --levels 4 --messages 28``, Tables III/IV add ``--light`` with 4/5 messages.

Bad values raise :class:`radixnet.gen.ParamError` naming the parameter, bad syntax
:class:`radixnet.cli.UsageError`; ``radixnet``'s main prints either in one line and exits with 2.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Sequence

from radixnet.gen.params import Param, Parser, validate

__all__ = ["cmd_clex", "PARAMS"]

#: the validated options (``--name V``); ``None`` defaults mean "not given"
PARAMS = (
    Param("k", int, 64, "nodes per level-1 clique, n^s (Table I: 32, Table II: 64)", minimum=2, maximum=4096),
    Param("levels", int, 3, "levels 1/s (Table I: 4, Table II: 3)", minimum=1, maximum=31),
    Param("messages", int, 57, "messages each node sends and receives (dense: 28/57, light: 4/5)", minimum=1),
    Param("seed", int, 0, "seed (a run is deterministic per seed)", minimum=0, maximum=2 ** 63 - 1),
    Param("destinations", str, "permutation",
          "permutation: every node receives exactly --messages (§III-A); uniform: u.i.r. destinations",
          choices=("permutation", "uniform")),
    Param("copies", float, 1.0, "k(1) of A(1)'s copy schedule (the paper: 1)", minimum=1, maximum=4096),
    Param("threads", int, None, "numba threads (default all; the result does not depend on it)", minimum=1),
)


def _parser() -> Parser:
    p = Parser(prog="radixnet clex",
               description="Message-level simulation of CLEX routing A(l) (Lenzen & Wattenhofer, §II-D, §III): "
                           "per-level rounds, loads and hops as in Tables I-IV.")
    for prm in PARAMS:
        p.add_argument("--" + prm.name, dest=prm.name, default=None, metavar="V",
                       help=f"{prm.help} [{prm.allowed()}; default {prm.default}]")
    p.add_argument("--light", action="store_true",
                   help="§III-B light traffic: relay full copies, no request/acknowledgement")
    p.add_argument("--torus", action="store_true", help="add the 3D-torus comparison of §III")
    p.add_argument("--all-to-all", dest="all_to_all", action="store_true",
                   help="add the all-to-all schemes of §II-C (CLEX and torus)")
    p.add_argument("--json", action="store_true", help="print JSON")
    from radixnet.cli import size_arg
    p.add_argument("--max-memory", type=size_arg("max-memory"), default=None, metavar="SIZE",
                   help="memory the run may plan to use, bytes or with K/M/G/T (e.g. 8G); larger runs are refused "
                        "before any work; at most this machine's RAM [default: half of it]")
    p.add_argument("--quiet", action="store_true", help="no progress bar (there is none when stderr is not a "
                                                         "terminal either)")
    return p


def _paper_name(k: int, L: int) -> str:
    return f"C(1/{L}, {L})" if L > 1 else "C(1, 1)"


def _report(argv: Sequence[str]) -> tuple[dict[str, Any], argparse.Namespace]:
    args = _parser().parse_args(list(argv))
    values = {prm.name: getattr(args, prm.name) for prm in PARAMS if getattr(args, prm.name) is not None}
    p = validate(PARAMS, values)
    from radixnet.gen.progress import Progress
    from radixnet.golden.clex import clex_all_to_all, simulate, torus_all_to_all, torus_comparison, torus_dims
    with Progress("clex", quiet=args.quiet) as progress:
        res = simulate(p["k"], p["levels"], p["messages"], seed=p["seed"], light=args.light,
                       destinations=p["destinations"], copies=p["copies"], threads=p["threads"],
                       max_memory=args.max_memory, progress=progress)
    out: dict[str, Any] = {"graph": _paper_name(res.k, res.levels), **res.to_dict()}
    if args.torus:
        out["torus"] = torus_comparison(res)
    if args.all_to_all:
        out["all_to_all"] = {
            "clex": clex_all_to_all(res.k, res.levels, weights=[lv.avg_hops for lv in res.table]),
            "torus": torus_all_to_all(torus_dims(res.n)),
        }
    return out, args


def _print_table(r: dict[str, Any]) -> None:
    mode = ("light (§III-B: copies relayed without request/acknowledgement)" if r["light"]
            else "dense (§III-A: relaying by request and acknowledgement)")
    print(f"CLEX {r['graph']}: k = {r['k']}, n = {r['n']} nodes, {r['messages']} messages per node, {mode}, "
          f"destinations {r['destinations']}, seed {r['seed']}")
    status = "all delivered" if r["delivered"] else "NOT ALL DELIVERED"
    print(f"{r['total_messages']} messages, {status}, {r['wall_seconds']:.1f} s on {r['threads']} threads\n")
    head = ("lvl", "instances", "max rds", "avg rds", "avg rds w/o req-ack", "max avg load", "avg hops")
    rows = [(str(t["level"]), str(t["instances"]), str(t["max_rounds"]), f"{t['avg_rounds']:.3f}",
             f"{t['avg_rounds_no_handshake']:.3f}", f"{t['max_avg_load']:.3f}", f"{t['avg_hops']:.3f}")
            for t in r["table"]]
    w = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    print("  ".join(h.rjust(w[i]) for i, h in enumerate(head)))
    for row in rows:
        print("  ".join(c.rjust(w[i]) for i, c in enumerate(row)))
    one = r["table"][0]
    phases = " ".join(f"{p + 1}:{c}" for p, c in enumerate(one["phase_instances"]) if c)
    print(f"\nA(1): instances by phases {phases}; messages left after phase 0, 1, ...: "
          + " ".join(str(x) for x in one["remaining"]))
    if "torus" in r:
        t = r["torus"]
        print(f"\n3D-torus comparison (§III), n^(1/3) = {t['n_cbrt']:.2f}, link length x{t['level_length_scale']:.2f}"
              " per level:")
        print(f"  hop delays   torus 3n^(1/3)/2 = {t['torus_avg_hops']:.2f}; CLEX sum of avg rds = "
              f"{t['clex_rounds']:.2f} ({t['clex_rounds_no_handshake']:.2f} w/o req-ack) -> factor "
              f"{t['hop_factor']:.2f} ({t['hop_factor_no_handshake']:.2f})")
        print(f"  bandwidth    torus <= 2B/(3n^(1/3)) = {t['torus_bandwidth_per_node']:.4f} B; "
              f"CLEX B/(sum of avg hops) = B/{t['clex_hops']:.2f} -> factor {t['bandwidth_factor']:.2f}")
        print(f"  propagation  sum of avg rds / {t['level_length_scale']:.2f}^(L-l) = {t['propagation_ratio']:.2f} "
              f"({t['propagation_ratio_no_handshake']:.2f} w/o req-ack) x the torus's shortest paths")
        print(f"  light load matching the torus's throughput: {r['messages']}/{t['bandwidth_factor']:.2f} = "
              f"{t['matching_light_load']:.2f} messages per node")
        d = "x".join(map(str, t["torus_dims"]))
        print(f"  exact {d} torus: mean distance {t['torus_mean_distance_exact']:.2f} -> hop factor "
              f"{t['hop_factor_exact']:.2f} ({t['hop_factor_no_handshake_exact']:.2f}), bandwidth factor "
              f"{t['bandwidth_factor_exact']:.2f}")
    if "all_to_all" in r:
        c, t = r["all_to_all"]["clex"], r["all_to_all"]["torus"]
        print("\nall-to-all (§II-C):")
        print(f"  CLEX: one edge per level; {c['rounds_uniform']} rounds with unit links (bound "
              f"{c['lower_bound']:.1f}, ratio {c['ratio_uniform']:.2f}); bandwidth split by avg hops: ratio "
              f"{c['ratio_weighted']:.2f}")
        print(f"  torus {'x'.join(map(str, t['dims']))}: {t['rounds']} rounds (bound {t['lower_bound']:.1f}, "
              f"ratio {t['ratio']:.2f}); mean hops {t['mean_hops']:.2f}, max {t['max_hops']}")


def cmd_clex(argv: list[str]) -> int:
    """Run ``radixnet clex ARGS`` (see the module docstring); returns the exit status.

    Raises
    ------
    radixnet.gen.ParamError
        A bad value (names the parameter).
    radixnet.cli.UsageError
        Bad syntax (unknown option, missing value).
    """
    report, args = _report(argv)
    if args.json:
        print(json.dumps(report))
    else:
        _print_table(report)
    return 0
