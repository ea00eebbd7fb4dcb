"""``radixnet cosim-matrix``: a list of co-simulation configurations, one verdict table.

::

    radixnet cosim-matrix --matrix FILE --out DIR [--scheduler ADDRESS] [--jobs N] [--quiet]

``FILE`` (TOML or JSON) lists configurations with ``radixnet cosim``'s options as keys; every one is checked
as ``radixnet cosim`` checks its arguments before any runs (a bad one: one line naming the entry and the
key, exit status 2). They run one after another here, in ``--jobs N`` local worker processes, or with
``--scheduler`` as one task each on a Dask cluster. Each verdict is appended to ``DIR/verdicts.jsonl`` as it
arrives; ``DIR/verdicts.json`` and ``DIR/verdicts.md`` hold the table. The same command again runs only the
configurations without a verdict. See :mod:`radixnet.cosim.matrix`.

Exit status 0 when every configuration matched, 1 when one mismatched or could not be run (``ERROR``), 3
(``radixnet cosim``'s vacuous-run status) when none of those but one never exercised backpressure, 2 on bad
input, 130 on Ctrl-C (the verdicts written stay).
"""

from __future__ import annotations

import shlex
import sys
from typing import Sequence

__all__ = ["cmd_cosim_matrix"]


def _parser():
    from radixnet.cli import Parser
    p = Parser(prog="radixnet cosim-matrix",
               description="Run a list of co-simulation configurations (radixnet cosim's options, from a TOML or "
                           "JSON file) and write one verdict table; resumable: finished verdicts are kept in "
                           "DIR/verdicts.jsonl.")
    p.add_argument("--matrix", required=True, metavar="FILE",
                   help="the configurations: TOML [[config]] tables (and an optional [defaults] table) or a JSON "
                        "list; keys are radixnet cosim's options (vc_depth or vc-depth) plus name "
                        "(example: cosim/matrices/smoke.toml)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="verdict directory (created; resumed when it holds verdicts.jsonl)")
    p.add_argument("--jobs", default=None, metavar="N",
                   help="configurations run at once in local worker processes, 1 to 256 [default 1: one after "
                        "the other here; each Verilator build already compiles with two jobs]; with --scheduler: "
                        "configurations in flight at most [default: twice the cluster's worker threads]")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run each configuration as a task on a Dask cluster: tcp://HOST:PORT of a running `dask "
                        "scheduler`; workers build in their own cache, ~/.cache/radixnet/cosim or "
                        "$RADIXNET_COSIM_CACHE (docs/cluster.md) [default: this machine]")
    p.add_argument("--quiet", action="store_true", help="no progress bar or per-configuration lines")
    return p


def cmd_cosim_matrix(argv: Sequence[str]) -> int:
    """Run ``radixnet cosim-matrix`` (see the module docstring).

    Parameters
    ----------
    argv : sequence of str
        The arguments after ``cosim-matrix``.

    Returns
    -------
    int
        0 every configuration matched; 1 one mismatched or could not be run; 3 none of those but one was
        vacuous.

    Raises
    ------
    radixnet.cli.UsageError, radixnet.gen.ParamError
        Bad input (the matrix, ``--out``, ``--jobs``, ``--scheduler``); one line, exit status 2.
    radixnet.gen.cluster.SchedulerLost
        The Dask scheduler was lost during the run (one line, exit status 1).
    """
    import time

    from radixnet.cli import UsageError
    from radixnet.cosim.matrix import MatrixError, MatrixRun, describe, load_matrix
    from radixnet.cosim_cli import matrix_entry, run_configuration
    from radixnet.gen.cluster import cluster_line, connect, parse_address
    from radixnet.gen.params import check_out_dir
    from radixnet.gen.progress import ItemProgress
    from radixnet.sweep_cli import parse_jobs

    argv = list(argv)
    args = _parser().parse_args(argv)
    jobs = parse_jobs(args.jobs)
    address = None if args.scheduler is None else parse_address(args.scheduler)
    check_out_dir(args.out, "out")
    try:
        entries = load_matrix(args.matrix, matrix_entry)
    except MatrixError as e:
        raise UsageError(f"radixnet cosim-matrix: error: {e}") from None
    meta = {"matrix": args.matrix, "scheduler": address, "command": "radixnet cosim-matrix " + shlex.join(argv),
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    run = MatrixRun(entries, args.out, run_configuration, jobs=jobs, meta=meta)
    client = None
    if address is not None:   # every other check first; then the scheduler, before any file or run
        client = connect(address)
        run.scheduler = client
    try:
        for w in run.warnings:
            print(f"radixnet cosim-matrix: warning: {w}", file=sys.stderr)
        pending = run.pending()
        if not args.quiet:
            print(f"radixnet cosim-matrix: {len(pending)} configurations to run, {len(entries) - len(pending)} "
                  f"already in {run.store.path}", file=sys.stderr)
            if client is not None:
                print(f"radixnet cosim-matrix: {cluster_line(client, address, 'configurations')}", file=sys.stderr)
        with ItemProgress("cosim-matrix", "configurations", len(pending), args.quiet, describe) as progress:
            run.on_verdict = progress
            run.run()
    finally:
        if client is not None:
            client.close()
    files = run.write_tables()
    rows = run.rows()
    w = max(len("name"), *(len(r["name"]) for r in rows))
    print(f"{'name':<{w}}  {'verdict':<8}  {'packets':>7}  {'hops':>6}  {'build s':>7}  {'sim s':>6}  configuration")
    for r in rows:
        def num(key, fmt="{}"):
            return "-" if r.get(key) is None else fmt.format(r[key])
        print(f"{r['name']:<{w}}  {r['verdict']:<8}  {num('packets'):>7}  {num('hops_compared'):>6}  "
              f"{num('build_s', '{:.1f}'):>7}  {num('sim_s', '{:.1f}'):>6}  {r['summary']}")
    print("wrote " + ", ".join(str(p) for p in [run.store.path, *files] if p.exists()))
    for r in rows:
        if r["verdict"] == "ERROR":
            print(f"radixnet cosim-matrix: {r['name']}: {r.get('message', '')}", file=sys.stderr)
    return run.exit_status()
