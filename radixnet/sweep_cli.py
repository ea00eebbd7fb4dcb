"""``radixnet sweep``: latency and throughput against offered load, for one or more routings.

::

    radixnet sweep [radixnet sim's topology/router/traffic arguments] --routing ugal-s,clos-ad
                   --loads 0.05:0.95:0.05 --out DIR [--jobs N] [--scheduler ADDRESS] [--no-plot] [--quiet]

Every (routing, load) point is one :meth:`Simulator.run_load` with the same ``--seed``, run in a pool of
worker processes, or with ``--scheduler`` as tasks on a Dask cluster (:mod:`radixnet.gen.cluster`;
``--jobs`` is then the points in flight at most). Finished points are appended to ``DIR/points.jsonl``
at once (by this process, wherever they ran), so a sweep interrupted with Ctrl-C resumes where it stopped
when run again with the same arguments; a directory holding points of another configuration is refused. Once a routing saturates, its higher loads that have not started
are recorded as saturated and skipped, not simulated. See :mod:`radixnet.studies.sweep`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from typing import Any, Sequence

from radixnet.cli import Parser, UsageError, add_sim_args, peek_topo, sim_config
from radixnet.gen import ParamError, family_names

__all__ = ["cmd_sweep"]


def _parser(topo: str) -> Parser:
    from radixnet.gen.routing import DEFAULT_ROUTING, ROUTINGS
    p = Parser(prog="radixnet sweep",
               description="Sweep offered load for one or more routings (radixnet sim's arguments otherwise); "
                           "resumable: finished points are kept in DIR/points.jsonl.")
    add_sim_args(p, topo)
    p._option_string_actions["--routing"].help = (  # a list here, one routing in `radixnet sim`
        "comma-separated routings, each one of " + ", ".join(ROUTINGS) + f" [default {DEFAULT_ROUTING}]")
    p.add_argument("--loads", default="0.05:0.95:0.05", metavar="SPEC",
                   help="start:stop:step (stop included when on the grid) or a comma list; each in (0, 1], "
                        "at most 100000 loads [default 0.05:0.95:0.05]")
    p.add_argument("--out", required=True, metavar="DIR", help="sweep directory (created; resumed when it exists)")
    p.add_argument("--jobs", default=None, metavar="N",
                   help="worker processes, 1 to 256 [default: CPU count; 1: in-process]; with --scheduler: points "
                        "in flight at most [default: twice the cluster's worker threads]")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run the points on a Dask cluster: tcp://HOST:PORT of a running `dask scheduler` (the "
                        "client here writes DIR/points.jsonl; docs/cluster.md) [default: local processes]")
    p.add_argument("--simulate-all", action="store_true",
                   help="simulate every load, also above a routing's first saturated load (by default those are "
                        "recorded as skipped, and which ones depends on what ran in parallel); points.jsonl then "
                        "holds the same results however many processes or Dask workers ran it")
    p.add_argument("--no-plot", action="store_true", help="write no PNG/SVG plots")
    p.add_argument("--quiet", action="store_true", help="no progress bar or per-point lines")
    return p


def _routings(spec: str) -> list[str]:
    from radixnet.gen.routing import ROUTINGS
    names = [s.strip() for s in spec.split(",")]
    if not all(names):
        raise ParamError("routing", f"must be a comma-separated list of {', '.join(ROUTINGS)} (got {spec!r})")
    return list(dict.fromkeys(names))


def parse_jobs(text: str | None) -> int | None:
    """``--jobs``: None (the command's default) or an integer in [1, 256]; anything else is a ParamError."""
    if text is None:
        return None
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 256:
        raise ParamError("jobs", f"must be an integer in [1, 256] (got {text!r})")
    return n


def _describe(rec: dict[str, Any]) -> str:
    res = rec["result"]
    head = f"{rec['routing']} load {rec['load']:g}: "
    if "error" in res:
        return head + "FAILED (" + res["error"].split(";")[0] + ")"
    if rec.get("skipped"):
        return head + f"skipped (saturated at {res['saturated_at']:g})"
    thr = f"accepted {res['accepted_throughput']:.4f}"
    if res.get("saturated"):
        return head + f"saturated, {thr} ({res['wall_seconds']:.1f} s)"
    return head + f"{thr}, latency {res['avg_latency']:.2f} ({res['wall_seconds']:.1f} s)"


def cmd_sweep(argv: Sequence[str]) -> int:
    """Run ``radixnet sweep``.

    Parameters
    ----------
    argv : sequence of str
        The arguments after ``sweep``.

    Returns
    -------
    int
        0 when every point was simulated (or found done), 1 when the watchdog stopped a point or a point
        was lost with its Dask workers (:class:`radixnet.gen.cluster.WorkerLost`).

    Raises
    ------
    UsageError, ParamError
        Bad input (``--scheduler`` included: malformed, or no scheduler answering); :func:`radixnet.cli.main`
        reports it in one line with exit status 2.
    radixnet.gen.cluster.SchedulerLost
        The Dask scheduler was lost during the run (one line, exit status 1).
    """
    import dataclasses

    from radixnet.gen.cluster import cluster_line, connect, parse_address
    from radixnet.gen.progress import ItemProgress
    from radixnet.studies.sweep import Sweep, parse_loads, plot, summary_rows, write_csvs

    argv = list(argv)
    topo = peek_topo(argv)
    if topo not in family_names():
        raise UsageError(f"radixnet sweep: error: --topo: unknown family {topo!r} (one of {', '.join(family_names())})")
    args = _parser(topo).parse_args(argv)
    routings = _routings(args.routing)
    loads = parse_loads(args.loads)
    jobs = parse_jobs(args.jobs)
    address = None if args.scheduler is None else parse_address(args.scheduler)
    first = argparse.Namespace(**{**vars(args), "routing": routings[0]})
    cfg = sim_config(first)  # builds the network once and validates everything but the other routings
    base = dataclasses.replace(cfg, vcs=args.vcs, vc_depth=args.vc_depth)  # per-routing defaults unless given
    sweep = Sweep(base, routings, loads, args.out, jobs=jobs, scheduler=address,
                  skip_saturated=not args.simulate_all)
    client = None
    if address is not None:  # every other check first; then the scheduler, before any file or point
        client = connect(address)
        sweep.scheduler = client
    try:
        for w in sweep.store.warnings:
            print(f"radixnet sweep: warning: {w}", file=sys.stderr)
        pending = sweep.pending()
        sweep.write_config({"command": "radixnet sweep " + shlex.join(argv),
                            "written": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
        if not args.quiet:
            done = len(routings) * len(loads) - len(pending)
            print(f"radixnet sweep: {len(pending)} points to run, {done} already in {sweep.store.path}",
                  file=sys.stderr)
            if client is not None:
                print(f"radixnet sweep: {cluster_line(client, address, 'points')}", file=sys.stderr)
        with ItemProgress("sweep", "points", len(pending), args.quiet, _describe) as progress:
            sweep.on_point = progress
            sweep.run()
    finally:
        if client is not None:
            client.close()
    files = write_csvs(sweep)
    if not args.no_plot:
        files += plot(sweep)
    rows = summary_rows(sweep)
    w = max(len("routing"), *(len(r["routing"]) for r in rows))
    print(f"{'routing':<{w}}  points  saturation  zero-load latency")
    for r in rows:
        zl = "-" if r["zero_load_latency"] is None else f"{r['zero_load_latency']:.2f} (load {r['at_load']:g})"
        sat = r["saturation_load"] if r["saturation_load"] == "none" else f"{r['saturation_load']:g}"
        print(f"{r['routing']:<{w}}  {r['points']:>6}  {sat:>10}  {zl}")
    print("wrote " + ", ".join(str(p) for p in [sweep.store.path, *files]))
    for e in sweep.errors:
        print(f"radixnet sweep: {e}", file=sys.stderr)
    return 1 if sweep.errors else 0
