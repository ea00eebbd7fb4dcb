"""A matrix of co-simulations: many ``radixnet cosim`` configurations, one verdict table.

``radixnet cosim-matrix --matrix FILE --out DIR`` reads a list of configurations, checks every one of them
as ``radixnet cosim`` would before anything runs (:func:`load_matrix`), runs them in this process, in local
worker processes (``--jobs N``) or, with ``--scheduler ADDRESS``, as one task each on a Dask cluster
(:mod:`radixnet.gen.cluster`), and writes what it finds to ``DIR``:

``verdicts.jsonl``
    One record per finished configuration, appended (one ``os.write``, then ``fsync``) by this process the
    moment its verdict arrives, whichever worker ran it. A run with the same ``--out`` skips the
    configurations already there, keyed by the fingerprint of their normal form (the configuration with
    every default filled in, :func:`radixnet.cosim_cli.check_configuration`): renaming an entry or
    spelling a default out does not run it again; changing anything that decides the verdict does.
``verdicts.json``, ``verdicts.md``
    The verdict table of the whole matrix, in the file's order, rewritten after each verdict and at the end:
    name, configuration, verdict (``MATCH``, ``MISMATCH``, ``VACUOUS``, ``ERROR``; ``PENDING`` for one not
    run yet), packets, hops compared, the backpressure counters, build and simulation seconds and the
    worker that ran it (:func:`write_tables`).

A configuration that could not be run to a verdict (the simulator failed, its Dask workers kept dying:
:class:`radixnet.gen.cluster.WorkerLost`) is ``ERROR`` in the table and not recorded, so the next run
tries it again, as a sweep does with a point the watchdog stopped.

The matrix file
---------------

TOML (``.toml``) or JSON. In TOML each configuration is a ``[[config]]`` table; an optional ``[defaults]``
table holds settings every configuration starts from. The keys are ``radixnet cosim``'s options without
the dashes (``vc_depth`` or ``vc-depth``), the topology's parameters among them, plus an optional ``name``
(default ``#N``, its position). Flags (``allow_idle``, ``waves``) take ``true`` or ``false``; a list is
joined with commas (``dims = [4, 4]``)::

    [defaults]
    cycles = 150

    [[config]]
    name = "fbfly-sc"
    topo = "fbfly"
    k = 2
    n = 2
    vcs = 2
    vc_depth = 3

In JSON the file is a list of such objects, or an object with ``config`` (the list) and ``defaults``.

Builds
------

A configuration builds its RTL through :func:`radixnet.cosim.run.build_design`, cached by the Verilog's
digest under the build root: ``--build-dir`` when the entry gives ``build_dir``, else ``radixnet cosim``'s
``build/cosim`` for a local run and, on a Dask worker, :func:`worker_cache` on the worker's machine
(``$RADIXNET_COSIM_CACHE``, else ``~/.cache/radixnet/cosim``). The cache's file lock makes the workers of
one machine build each design once between them, and the cache stays for the next run.
"""

from __future__ import annotations

import json
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

from ..gen.params import check_out_dir, read_text_file
from ..gen.pool import LocalPool, PointStore

__all__ = ["CACHE_ENV", "ERROR", "MATCH", "MAX_DEPTH", "MAX_ENTRIES", "MAX_MATRIX_BYTES", "MAX_NAME", "MD_COLUMNS",
           "MISMATCH", "PENDING", "RECORD_KEYS", "VACUOUS", "VERDICTS",
           "VERDICT_FIELDS", "Entry", "EntryError", "MatrixError", "MatrixRun", "describe", "exit_status",
           "fingerprint", "load_matrix", "markdown", "read_matrix", "run_entry", "summary", "where", "worker_cache",
           "worker_label", "write_tables"]

MATCH, MISMATCH, VACUOUS, ERROR, PENDING = "MATCH", "MISMATCH", "VACUOUS", "ERROR", "PENDING"
#: The verdicts of the table, in the order they are counted.
VERDICTS = (MATCH, MISMATCH, VACUOUS, ERROR, PENDING)
#: Environment variable naming the build cache of a Dask worker (default ``~/.cache/radixnet/cosim``).
CACHE_ENV = "RADIXNET_COSIM_CACHE"
#: Limits of a matrix file: its size in bytes, its configurations, how deeply its values nest (the top-level
#: table counts as one level) and the characters of an entry's name.
MAX_MATRIX_BYTES = 1 << 20
MAX_ENTRIES = 1000
MAX_DEPTH = 16
MAX_NAME = 128
#: Fields of a verdict record that every line of ``verdicts.jsonl`` has.
RECORD_KEYS = ("fingerprint", "name", "verdict", "config")
#: Verdict fields copied into a record (those a configuration's verdict has).
VERDICT_FIELDS = ("packets", "mismatches", "hops_compared", "hop_mismatches", "endpoint_mismatches", "stray_flits",
                  "credit_mismatches", "rtl_checks_failed", "error", "stall_cycles", "full_buffer_cycles",
                  "credit_zero_cycles", "max_source_queue", "sink_stall_cycles", "cycles", "cycles_per_s", "idle",
                  "router", "build_s", "sim_s", "golden_s", "verilog_s", "build_dir")


class MatrixError(ValueError):
    """A matrix file that cannot be read or holds a bad entry; ``str()`` is one line for users."""


class EntryError(ValueError):
    """A bad value in one entry of a matrix.

    Parameters
    ----------
    key : str or None
        The entry's key at fault, when one is.
    message : str
        What is wrong, one line.
    """

    def __init__(self, key: str | None, message: str) -> None:
        self.key, self.message = key, message
        super().__init__(f"{key}: {message}" if key else message)

    def __reduce__(self):
        return (type(self), (self.key, self.message))


@dataclass(frozen=True)
class Entry:
    """One configuration of a matrix, checked.

    Parameters
    ----------
    index : int
        Its position in the file, from 1.
    name : str
        Its ``name`` (default ``#index``).
    argv : tuple of str
        The ``radixnet cosim`` arguments that run it.
    config : dict
        Its normal form (:func:`radixnet.cosim_cli.check_configuration`).
    fingerprint : str
        :func:`fingerprint` of ``config``: its key in ``verdicts.jsonl``.
    summary : str
        One line for the table (:func:`summary`).
    given : dict
        The settings as the file gave them (defaults merged), without ``name``.
    """

    index: int
    name: str
    argv: tuple[str, ...]
    config: dict = field(compare=False)
    fingerprint: str
    summary: str
    given: dict = field(compare=False, default_factory=dict)


def fingerprint(config: dict) -> str:
    """The key of a configuration's verdict: a digest of its normal form.

    Parameters
    ----------
    config : dict
        A normal form (JSON-serialisable).

    Returns
    -------
    str
        16 hex digits.

    Examples
    --------
    >>> fingerprint({"k": 2, "n": 2}) == fingerprint({"n": 2, "k": 2})
    True
    """
    import hashlib
    return hashlib.sha1(json.dumps(config, sort_keys=True).encode()).hexdigest()[:16]


def summary(config: dict, given: dict | None = None) -> str:
    """A configuration in one line: topology, routing, traffic, router and what the run drives.

    Parameters
    ----------
    config : dict
        Its normal form.
    given : dict, optional
        The settings the matrix gave: the topology's parameters shown are those it gave (all of them without).

    Returns
    -------
    str

    Examples
    --------
    >>> summary({"topo": "fbfly", "params": {"k": 2, "n": 2, "c": 2}, "routing": "sp", "traffic": "uniform",
    ...          "load": 0.4, "cycles": 100, "vcs": 1, "vc_depth": 2, "packet_length": 1, "speedup": 1,
    ...          "router_model": "iq", "terminals": "axis"}, {"k": 2, "n": 2})
    'fbfly k=2 n=2, sp, uniform, load 0.4 x 100 cycles, V=1 B=2 L=1 S=1, iq, axis'
    """
    params = config.get("params") or {}
    shown = {k: v for k, v in params.items() if given is None or k in given}
    topo = " ".join([str(config.get("topo", "?"))] + [f"{k}={_fmt(v)}" for k, v in shown.items() if v is not None])
    drive = (f"batch {config['batch']}" if config.get("batch") is not None
             else f"load {_fmt(config.get('load'))} x {config.get('cycles')} cycles")
    parts = [topo, str(config.get("routing")), str(config.get("traffic")), drive,
             f"V={config.get('vcs')} B={config.get('vc_depth')} L={config.get('packet_length')} "
             f"S={config.get('speedup')}", str(config.get("router_model"))]
    if config.get("router") is not None:
        parts.append(f"router {config['router']}" if config["router"] >= 0 else "busiest router")
    else:
        parts.append(str(config.get("terminals")))
    if config.get("egress_depth"):
        parts.append(f"egress {config['egress_depth']} stall {_fmt(config.get('sink_stall'))}")
    if config.get("fault"):
        parts.append(f"fault {config['fault']}")
    if config.get("allow_idle"):
        parts.append("allow idle")
    return ", ".join(parts)


def _fmt(v: Any) -> str:
    if isinstance(v, list):
        return ",".join(map(_fmt, v))
    return f"{v:g}" if isinstance(v, float) else str(v)


# ------------------------------------------------------------------ reading
def read_matrix(path: str | os.PathLike) -> tuple[dict, list[dict]]:
    """Read a matrix file: its defaults and its configurations, unchecked.

    Parameters
    ----------
    path : path-like
        A ``.toml`` file (``[defaults]``, ``[[config]]``) or a ``.json`` file (a list, or an object with
        ``defaults`` and ``config``); any other suffix is read as TOML.

    Returns
    -------
    (dict, list of dict)
        The defaults (empty when none) and the configurations as the file gives them.

    Raises
    ------
    MatrixError
        The file cannot be read or parsed (not a regular file, over :data:`MAX_MATRIX_BYTES`, not UTF-8), nests
        deeper than :data:`MAX_DEPTH`, has other top-level keys, or holds no configuration or more than
        :data:`MAX_ENTRIES`.
    """
    p = Path(path)
    shown = one_line(os.fspath(path))
    text = _read_text(p, shown)
    try:
        if p.suffix.lower() == ".json":
            try:
                data = json.loads(text)
            except ValueError as e:
                raise MatrixError(f"{shown}: not valid JSON ({one_line(str(e))})") from None
            if isinstance(data, list):
                data = {"config": data}
        else:
            import tomllib
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as e:
                raise MatrixError(f"{shown}: not valid TOML ({one_line(str(e))})") from None
    except RecursionError:  # the parser's own stack: far deeper than MAX_DEPTH
        raise MatrixError(f"{shown}: values nest deeper than {MAX_DEPTH} levels") from None
    if _too_deep(data, MAX_DEPTH):
        raise MatrixError(f"{shown}: values nest deeper than {MAX_DEPTH} levels")
    if not isinstance(data, dict):
        raise MatrixError(f"{shown}: must hold a list of configurations (got {type(data).__name__})")
    other = [k for k in data if k not in ("config", "defaults")]
    if other:
        raise MatrixError(f"{shown}: unknown top-level key {other[0]!r} (a matrix holds [[config]] tables and an "
                          f"optional [defaults] table)")
    defaults, configs = data.get("defaults", {}), data.get("config", [])
    if not isinstance(defaults, dict):
        raise MatrixError(f"{shown}: defaults must be a table of settings (got {type(defaults).__name__})")
    if not isinstance(configs, list) or not configs:
        raise MatrixError(f"{shown}: holds no configuration (give [[config]] tables, or a JSON list of objects)")
    if len(configs) > MAX_ENTRIES:
        raise MatrixError(f"{shown}: holds {len(configs):,} configurations; at most {MAX_ENTRIES:,} are allowed "
                          f"(split it into several matrices)")
    for i, c in enumerate(configs, 1):
        if not isinstance(c, dict):
            raise MatrixError(f"{shown}: entry {i}: must be a table of settings (got {type(c).__name__})")
    return defaults, configs


def one_line(text: str) -> str:
    """``text`` as one printable line: control characters (a newline, a tab, an escape) as Python escapes.

    Examples
    --------
    >>> one_line("a\\nb")
    'a\\\\nb'
    """
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _read_text(p: Path, shown: str) -> str:
    """The text of a regular UTF-8 file of at most :data:`MAX_MATRIX_BYTES` (:func:`radixnet.gen.params.read_text_file`)."""
    try:
        return read_text_file(p, MAX_MATRIX_BYTES, "a matrix file")
    except ValueError as e:
        raise MatrixError(f"cannot read {shown}: {e}") from None


def _too_deep(value: Any, limit: int) -> bool:
    """Whether tables and lists nest more than ``limit`` levels (iterative: no recursion limit of its own)."""
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list)):
            if d > limit:
                return True
            stack.extend((x, d + 1) for x in (v.values() if isinstance(v, dict) else v))
    return False


def _keys(values: dict, path: str | os.PathLike, at: str) -> dict:
    """``values`` with ``-`` in keys as ``_``; two spellings of one key are refused."""
    out: dict = {}
    for k, v in values.items():
        key = str(k).replace("-", "_")
        if key in out:
            raise MatrixError(f"{one_line(os.fspath(path))}: {at}: key {one_line(key)} given twice ({k!r} and "
                              f"another spelling)")
        out[key] = v
    return out


def load_matrix(path: str | os.PathLike, check: Callable[[dict], tuple[list[str], dict]]) -> list[Entry]:
    """Read a matrix file and check every configuration before any runs.

    Parameters
    ----------
    path : path-like
        The matrix file (:func:`read_matrix`).
    check : callable
        ``check(settings) -> (argv, normal_form)``: the co-simulation's own checks of one configuration
        (:func:`radixnet.cosim_cli.matrix_entry`), raising :class:`EntryError` or ``ValueError``.

    Returns
    -------
    list of Entry
        In the file's order.

    Raises
    ------
    MatrixError
        One line naming the file, the entry (its position and name) and, where one is at fault, the key:
        a bad value, an unknown key, two entries with one name or with the same configuration.
    """
    defaults, configs = read_matrix(path)
    shown = one_line(os.fspath(path))
    defaults = _keys(defaults, path, "defaults")
    if "name" in defaults:
        raise MatrixError(f"{shown}: defaults: name is given per entry, not in the defaults")
    entries: list[Entry] = []
    names: dict[str, int] = {}
    prints: dict[str, Entry] = {}
    for i, raw in enumerate(configs, 1):
        values = {**defaults, **_keys(raw, path, f"entry {i}")}
        name = values.pop("name", None)
        at = f"{shown}: entry {i}"
        if name is None:
            name = f"#{i}"
        elif not isinstance(name, str) or not name.strip() or not name.isprintable() or len(name) > MAX_NAME:
            # a name is a line of the table and of every message: printable, one line
            raise MatrixError(f"{at}: name: must be a non-empty line of at most {MAX_NAME} printable characters "
                              f"(got {one_line(repr(name)[:MAX_NAME + 2])})")
        else:
            at += f" ({name})"
        if name in names:
            raise MatrixError(f"{at}: name: {name!r} is the name of entry {names[name]} too")
        names[name] = i
        try:
            argv, config = check(values)
        except EntryError as e:
            raise MatrixError(one_line(f"{at}: " + (f"key {e.key}: {e.message}" if e.key else e.message))) from None
        except ValueError as e:
            raise MatrixError(one_line(f"{at}: {str(e).splitlines()[0] if str(e) else type(e).__name__}")) from None
        fp = fingerprint(config)
        if fp in prints:
            raise MatrixError(f"{at}: the same configuration as entry {prints[fp].index} ({prints[fp].name}); "
                              f"change one or remove it")
        entry = Entry(i, name, tuple(argv), config, fp, summary(config, values), values)
        prints[fp] = entry
        entries.append(entry)
    return entries


# ------------------------------------------------------------------ running
def worker_cache() -> Path:
    """The build root of a configuration run on a Dask worker that names no ``build_dir``.

    Returns
    -------
    Path
        ``$RADIXNET_COSIM_CACHE`` (:data:`CACHE_ENV`), else ``$XDG_CACHE_HOME/radixnet/cosim``, else
        ``~/.cache/radixnet/cosim``, on the worker's machine. Builds there are keyed by the Verilog's digest
        and file-locked (:func:`radixnet.cosim.run.build_design`), so the workers of a machine build each
        design once between them.
    """
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "radixnet" / "cosim"


def where() -> dict:
    """Where this task runs: the Dask worker (address and name) or this machine's process.

    Returns
    -------
    dict
        ``worker`` (the worker's address, or ``local``), ``worker_name``, ``host``, ``pid`` and ``dask``
        (True on a Dask worker).
    """
    info = {"host": socket.gethostname(), "pid": os.getpid()}
    try:
        from distributed import get_worker
        w = get_worker()
    except (ImportError, ValueError):   # not a Dask task
        return {"worker": "local", "worker_name": f"{info['host']} pid {info['pid']}", "dask": False, **info}
    return {"worker": str(w.address), "worker_name": str(w.name), "dask": True, **info}


def _one_line(e: BaseException) -> str:
    text = str(e).strip()
    return f"{type(e).__name__}: {text.splitlines()[0]}" if text else type(e).__name__


def run_entry(entry: Entry, run: Callable[[list[str]], dict]) -> dict:
    """Run one configuration (a task: in this process, a local worker process or on a Dask worker).

    Parameters
    ----------
    entry : Entry
        The configuration.
    run : callable
        ``run(argv) -> verdict``, a top-level function importable where the task runs
        (:func:`radixnet.cosim_cli.run_configuration`); the verdict has ``outcome``.

    Returns
    -------
    dict
        The verdict record: the entry's ``index``, ``name``, ``fingerprint``, ``config``, ``summary``; the
        ``verdict`` (``MATCH``, ``MISMATCH``, ``VACUOUS`` or, when the run raised, ``ERROR`` with the
        ``message``); the verdict's counts and timings (:data:`VERDICT_FIELDS`), ``coverage``
        (``hit/total`` per bin family), ``missed_bins``, ``first`` (the first differing packets, one line
        each), ``wall_s``, ``finished`` and where it ran (:func:`where`). Never raises but for
        ``KeyboardInterrupt``.
    """
    t0 = time.perf_counter()
    here = where()
    argv = list(entry.argv)
    if here["dask"] and not any(a == "--build-dir" or a.startswith("--build-dir=") for a in argv):
        argv += ["--build-dir", str(worker_cache())]
    rec: dict[str, Any] = {"index": entry.index, "name": entry.name, "fingerprint": entry.fingerprint,
                           "summary": entry.summary, "config": entry.config}
    try:
        v = run(argv)
        rec["verdict"] = v["outcome"]
        rec.update({k: v[k] for k in VERDICT_FIELDS if k in v})
        rec["coverage"] = {fam: "n/a" if "n/a" in c else f"{c['hit']}/{c['total']}"
                           for fam, c in v.get("coverage", {}).items()}
        rec["missed_bins"] = list(v.get("missed_bins", []))[:12]
        rec["observe_errors"] = list(v.get("observe_errors", []))[:3]
        rec["rtl_checks"] = list(v.get("rtl_checks", []))[:3]
        rec["first"] = list(v.get("first_described", []))
    except (Exception, SystemExit) as e:  # noqa: BLE001 - any failure is this configuration's ERROR, in one line
        rec.update(verdict=ERROR, message=_one_line(e))
    rec.update(wall_s=time.perf_counter() - t0, finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
               worker=here["worker"], worker_name=here["worker_name"], host=here["host"], pid=here["pid"])
    return rec


def describe(rec: dict) -> str:
    """A verdict record in one line (the progress line of a finished configuration).

    Parameters
    ----------
    rec : dict
        A verdict record (:func:`run_entry`).

    Returns
    -------
    str
    """
    head = f"{rec['name']}: {rec['verdict']}"
    if rec["verdict"] == ERROR:
        return f"{head} ({rec.get('message', '')})"
    if rec["verdict"] == PENDING:
        return head
    hops = f", {rec['hops_compared']} hops" if rec.get("hops_compared") is not None else ""
    what = f"{rec.get('packets')} {'traversals' if rec.get('router') is not None else 'packets'}{hops}"
    extra = ""
    if rec["verdict"] == MISMATCH:
        extra = f", {rec.get('mismatches')} differ"
    elif rec["verdict"] == VACUOUS:
        extra = ", " + ", ".join(f"{k} = 0" for k in rec.get("idle", []))
    return (f"{head} ({what}{extra}; build {rec.get('build_s', 0):.1f} s, simulation {rec.get('sim_s', 0):.1f} s; "
            f"{worker_label(rec)})")


def worker_label(rec: dict) -> str:
    """Who ran a record: the Dask worker's name (and address when they differ), or ``local``.

    Parameters
    ----------
    rec : dict
        A verdict record.

    Returns
    -------
    str
    """
    worker, name = rec.get("worker", ""), rec.get("worker_name", "")
    if worker == "local" or not name or name == worker:
        return worker or "-"
    return f"{name} ({worker})"


class MatrixRun:
    """The configurations of a matrix, their verdicts in a directory, and the run of those missing.

    Parameters
    ----------
    entries : sequence of Entry
        The checked configurations (:func:`load_matrix`).
    out : path-like
        The directory (created; resumed when it holds ``verdicts.jsonl``).
    run : callable
        ``run(argv) -> verdict`` (:func:`radixnet.cosim_cli.run_configuration`), sent to the workers.
    jobs : int, optional
        Without a scheduler: configurations run at once, each in a worker process of its own (default 1:
        one after the other in this process; a Verilator build already compiles with two jobs). With a
        scheduler: configurations in flight at most (default twice the cluster's worker threads).
    scheduler : distributed.Client, optional
        Run each configuration as a task on this client's cluster; the caller connects and closes it.
    on_verdict : callable, optional
        ``on_verdict(record)`` after each configuration of this run finishes (recorded or ``ERROR``).
    meta : dict, optional
        Put into ``verdicts.json`` (the matrix file, the command line).

    Raises
    ------
    ParamError
        ``out`` cannot be a directory radixnet writes into; ``jobs`` < 1.
    """

    def __init__(self, entries: Sequence[Entry], out: str | os.PathLike, run: Callable[[list[str]], dict], *,
                 jobs: int | None = None, scheduler: Any = None, on_verdict: Callable[[dict], None] | None = None,
                 meta: dict | None = None) -> None:
        from ..gen import ParamError
        self.entries = list(entries)
        self.out = check_out_dir(out, "out")
        self.run_fn = run
        if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
            raise ParamError("jobs", f"must be an integer >= 1 (got {jobs})")
        self.jobs = jobs
        self.scheduler = scheduler
        self.on_verdict = on_verdict
        self.meta = dict(meta or {})
        self.store = PointStore(self.out / "verdicts.jsonl", keys=RECORD_KEYS, what="verdict")
        #: fingerprint -> record, for the configurations of this matrix (earlier runs and this one)
        self.done: dict[str, dict] = {}
        #: fingerprint -> ERROR record of this run (not recorded: they run again next time)
        self.errors: dict[str, dict] = {}
        #: records in ``verdicts.jsonl`` of configurations this matrix no longer has
        self.stale = 0
        known = {e.fingerprint for e in self.entries}
        for rec in self.store.read():
            if rec["fingerprint"] not in known:
                self.stale += 1
            elif rec["fingerprint"] not in self.done:
                self.done[rec["fingerprint"]] = rec

    @property
    def warnings(self) -> list[str]:
        """What reading ``verdicts.jsonl`` found: lines that are not records, verdicts of other configurations."""
        extra = [f"{self.store.path}: {self.stale} verdict(s) of configurations not in this matrix; left out of "
                 f"the table"] if self.stale else []
        return self.store.warnings + extra

    def pending(self) -> list[Entry]:
        """The configurations without a verdict in ``verdicts.jsonl``, in the file's order.

        Returns
        -------
        list of Entry
        """
        return [e for e in self.entries if e.fingerprint not in self.done]

    def _record(self, rec: dict) -> None:
        fp = rec["fingerprint"]
        if fp in self.done:   # a second answer for a configuration already recorded
            return
        if rec["verdict"] == ERROR:
            self.errors[fp] = rec
        else:
            self.store.append(rec)
            self.done[fp] = rec
            self.errors.pop(fp, None)
        try:
            self.write_tables()
        except OSError:   # the table is rewritten at the end too; the record itself is safe
            pass
        if self.on_verdict:
            self.on_verdict(rec)

    def run(self) -> dict[str, dict]:
        """Run every configuration without a verdict; each is recorded the moment it finishes.

        Returns
        -------
        dict
            Fingerprint -> record of every configuration with a verdict (earlier runs included); the
            ``ERROR`` ones of this run are in :attr:`errors`.

        Raises
        ------
        radixnet.gen.cluster.SchedulerLost
            The Dask scheduler was lost; the verdicts recorded stay.
        KeyboardInterrupt
            Ctrl-C: the configurations in flight are stopped (local workers and what they started ended,
            cluster tasks cancelled); the verdicts recorded stay.
        """
        self.out.mkdir(parents=True, exist_ok=True)
        queue = self.pending()
        try:
            if self.scheduler is None and (self.jobs in (None, 1) or len(queue) <= 1):
                for e in queue:
                    self._record(run_entry(e, self.run_fn))
                return self.done
            if queue:
                self._run_pool(queue)
            return self.done
        finally:
            self.write_tables()

    def _run_pool(self, queue: list[Entry]) -> None:
        if self.scheduler is None:
            pool: Any = LocalPool(min(self.jobs or 1, len(queue)), self.jobs or 1, own_group=True)
        else:
            from ..gen.cluster import DaskPool
            pool = DaskPool(self.scheduler, self.jobs)
        by_print = {e.fingerprint: e for e in queue}
        running: set[Hashable] = set()  # in flight: each recorded once, at its first answer
        try:
            while queue or running:
                while queue and len(running) < pool.slots():
                    e = queue.pop(0)
                    pool.submit(e.fingerprint, run_entry, e, self.run_fn)
                    running.add(e.fingerprint)
                for fp, result in pool.completed():
                    if fp not in running:
                        continue
                    running.discard(fp)
                    if isinstance(result, BaseException):   # cluster.WorkerLost: given up; runs again next time
                        e = by_print[fp]
                        result = {"index": e.index, "name": e.name, "fingerprint": fp, "summary": e.summary,
                                  "config": e.config, "verdict": ERROR, "message": _one_line(result),
                                  "worker": "-", "worker_name": ""}
                    self._record(result)
        except BaseException:
            pool.abort()
            raise
        pool.close()

    # ------------------------------------------------------------- results
    def rows(self) -> list[dict]:
        """The table: one row per configuration of the matrix, in the file's order.

        Returns
        -------
        list of dict
            Its record (the one recorded, else this run's ``ERROR``), or a ``PENDING`` row.
        """
        out = []
        for e in self.entries:
            rec = self.done.get(e.fingerprint) or self.errors.get(e.fingerprint)
            if rec is None:
                rec = {"fingerprint": e.fingerprint, "config": e.config, "verdict": PENDING}
            # the entry's current name and place (a record keeps those of the run that made it)
            out.append({**rec, "index": e.index, "name": e.name, "summary": e.summary})
        return out

    def counts(self) -> dict[str, int]:
        """Configurations per verdict (:data:`VERDICTS`, the ones that occur)."""
        rows = self.rows()
        return {v: n for v in VERDICTS if (n := sum(r["verdict"] == v for r in rows))}

    def exit_status(self) -> int:
        """The command's exit status: :func:`exit_status` of the table."""
        return exit_status(self.rows())

    def write_tables(self) -> list[Path]:
        """Write ``verdicts.json`` and ``verdicts.md`` (:func:`write_tables`).

        Returns
        -------
        list of Path
        """
        meta = {**self.meta, "out": str(self.out), "counts": self.counts(),
                "exit_status": self.exit_status() if PENDING not in self.counts() else None}
        return write_tables(self.out, self.rows(), meta)


def exit_status(rows: Sequence[dict]) -> int:
    """0 when every configuration matched; 1 when one mismatched, errored or has no verdict yet; else 3.

    Parameters
    ----------
    rows : sequence of dict
        The table (:meth:`MatrixRun.rows`).

    Returns
    -------
    int
        1 for any ``MISMATCH``, ``ERROR`` or ``PENDING``; else 3 (``radixnet cosim``'s vacuous-run status) for
        any ``VACUOUS``; else 0.

    Examples
    --------
    >>> exit_status([{"verdict": "MATCH"}, {"verdict": "VACUOUS"}])
    3
    """
    seen = {r["verdict"] for r in rows}
    if seen & {MISMATCH, ERROR, PENDING}:
        return 1
    return 3 if VACUOUS in seen else 0


def _cell(v: Any, digits: int | None = None) -> str:
    if v is None or v == "":
        return "-"
    if digits is not None and isinstance(v, (int, float)):
        return f"{v:.{digits}f}"
    return str(v).replace("|", "\\|")


#: Columns of ``verdicts.md``: header, and how a row gives the cell.
MD_COLUMNS: tuple[tuple[str, Callable[[dict], str]], ...] = (
    ("#", lambda r: _cell(r.get("index"))),
    ("name", lambda r: _cell(r.get("name"))),
    ("configuration", lambda r: _cell(r.get("summary"))),
    ("verdict", lambda r: f"**{r['verdict']}**" if r["verdict"] != MATCH else r["verdict"]),
    ("packets", lambda r: _cell(r.get("packets"))),
    ("hops compared", lambda r: _cell(r.get("hops_compared"))),
    ("stall cycles", lambda r: _cell(r.get("stall_cycles"))),
    ("full-buffer cycles", lambda r: _cell(r.get("full_buffer_cycles"))),
    ("credit-zero cycles", lambda r: _cell(r.get("credit_zero_cycles"))),
    ("build s", lambda r: _cell(r.get("build_s"), 1)),
    ("sim s", lambda r: _cell(r.get("sim_s"), 1)),
    ("worker", lambda r: _cell(worker_label(r)) if r["verdict"] != PENDING else "-"),
)


def markdown(rows: Sequence[dict], meta: dict | None = None) -> str:
    """The verdict table as Markdown, with a line per configuration that did not match saying why.

    Parameters
    ----------
    rows : sequence of dict
        The table (:meth:`MatrixRun.rows`).
    meta : dict, optional
        ``matrix`` (the file), ``scheduler`` and ``counts``, shown above the table.

    Returns
    -------
    str
    """
    meta = meta or {}
    lines = ["# Co-simulation matrix", ""]
    where_ = f"on the Dask cluster at {meta['scheduler']}" if meta.get("scheduler") else "on this machine"
    counts = meta.get("counts") or {}
    lines.append(f"{meta.get('matrix', 'matrix')}, {len(rows)} configurations, {where_}: "
                 + ", ".join(f"{n} {v}" for v, n in counts.items()) + ".")
    lines += ["", "| " + " | ".join(h for h, _ in MD_COLUMNS) + " |",
              "|" + "|".join("---:" if h in ("#", "packets", "hops compared", "stall cycles", "full-buffer cycles",
                                              "credit-zero cycles", "build s", "sim s") else "---"
                             for h, _ in MD_COLUMNS) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(cell(r) for _, cell in MD_COLUMNS) + " |")
    notes = []
    for r in rows:
        if r["verdict"] == ERROR:
            notes.append(f"- {r['name']}: ERROR: {r.get('message', '')} (not recorded: it runs again next time)")
        elif r["verdict"] == MISMATCH:
            why = r.get("first") or r.get("observe_errors") or r.get("rtl_checks") or [f"{r.get('mismatches')} differ"]
            notes.append(f"- {r['name']}: MISMATCH, {r.get('mismatches')} of {r.get('packets')} differ; first: "
                         f"{why[0]}")
        elif r["verdict"] == VACUOUS:
            notes.append(f"- {r['name']}: VACUOUS: " + ", ".join(f"{k} = 0" for k in r.get("idle", []))
                         + " (it never exercised backpressure; allow_idle = true accepts it)")
    if notes:
        lines += ["", *notes]
    return "\n".join(lines) + "\n"


def write_tables(out: str | os.PathLike, rows: Sequence[dict], meta: dict | None = None) -> list[Path]:
    """Write ``out/verdicts.json`` and ``out/verdicts.md``, each replaced whole (a reader never sees half).

    Parameters
    ----------
    out : path-like
        The directory.
    rows : sequence of dict
        The table (:meth:`MatrixRun.rows`).
    meta : dict, optional
        Fields of ``verdicts.json`` beside ``verdicts`` (and the heading of the Markdown).

    Returns
    -------
    list of Path
        The two files.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    doc = {**(meta or {}), "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "verdicts": list(rows)}
    files = []
    for name, text in (("verdicts.json", json.dumps(doc, indent=1, default=str) + "\n"),
                       ("verdicts.md", markdown(rows, meta))):
        tmp = out / f".{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, out / name)
        files.append(out / name)
    return files

