"""Points of work that run in worker processes and land in an append-only store, resumable.

:class:`PointStore` is a JSON-lines file that one process appends to (each record flushed and fsynced the
moment it exists, so an interrupted run loses only what was running); :class:`LocalPool` runs tasks in spawned
worker processes of this machine that ignore Ctrl-C and die with their parent (:func:`worker_init`);
:class:`radixnet.gen.cluster.DaskPool` has the same interface on a Dask cluster. Load sweeps
(:mod:`radixnet.studies.sweep`) and co-simulation matrices (:mod:`radixnet.cosim.matrix`) use them.
"""

from __future__ import annotations

import json
import os
import signal
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from pathlib import Path
from typing import Any, Callable, Hashable

__all__ = ["PointStore", "LocalPool", "worker_init", "json_default", "LOAD_DIGITS"]

#: loads are rounded to 1e-9: grid arithmetic and keys compare exactly
LOAD_DIGITS = 9


def json_default(x: Any) -> Any:
    """``json.dumps``'s ``default``: numpy scalars and arrays as Python numbers and lists."""
    if hasattr(x, "item"):  # numpy scalars
        return x.item()
    if hasattr(x, "tolist"):
        return x.tolist()
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def worker_init(parent: int | None = None, own_group: bool = False) -> None:
    """Initialise a sweep worker process: it ignores Ctrl-C and dies with its parent.

    Ctrl-C is handled by the parent, which terminates the workers (no traceback from each of them). If
    the parent dies without doing so (``kill -9``), the worker must not run on: on Linux the kernel
    sends it SIGKILL (``prctl(PR_SET_PDEATHSIG)``); elsewhere, or if that fails, a daemon thread polls
    the parent's pid every second and ends the process.

    Parameters
    ----------
    parent : int, optional
        The parent's pid (``os.getpid()`` in the parent); the worker exits at once if its parent is
        already another process (the parent died before this ran).
    own_group : bool
        Lead a process group of its own (POSIX): the processes the worker starts (a simulator, a
        compiler) are in it, so :meth:`LocalPool.abort` ends them with the worker, and a terminal's
        Ctrl-C reaches only the parent.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if own_group and hasattr(os, "setpgid"):
        os.setpgid(0, 0)
    if parent is None:
        return
    if _set_parent_death_signal() and os.getppid() == parent:
        return
    if os.getppid() != parent:
        os._exit(1)
    import threading

    def watch() -> None:
        import time
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="radixnet-parent-watch", daemon=True).start()


def _set_parent_death_signal() -> bool:
    """Ask Linux to SIGKILL this process when its parent dies; False where that is not available."""
    import sys
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


_JSON_NAME = {str: "string", int: "integer", dict: "object"}


def _short_json(v: Any) -> str:
    text = json.dumps(v)
    return text if len(text) <= 40 else text[:37] + "..."


class PointStore:
    """``points.jsonl``: append-only, one record per finished point, durable per line.

    Parameters
    ----------
    path : path-like
        The file (created on the first append).
    keys : tuple of str
        Fields every record has; a line without one of them is not a record (default: a sweep point's).
        ``radixnet cosim-matrix`` keeps its ``verdicts.jsonl`` with other keys.
    what : str
        What a record is, for the warnings.
    """

    #: Fields of a sweep point's record.
    POINT_KEYS = ("routing", "load", "seed", "fingerprint", "result")
    #: The JSON type each field of a sweep point's record must have (its ``load`` is also in (0, 1])
    TYPES = {"routing": str, "load": (int, float), "seed": int, "fingerprint": dict, "result": dict}

    def __init__(self, path: str | os.PathLike, keys: tuple[str, ...] = POINT_KEYS, what: str = "point") -> None:
        self.path = Path(path)
        self.keys, self.what = tuple(keys), what
        self.warnings: list[str] = []

    def read(self) -> list[dict[str, Any]]:
        """Every complete record; an incomplete last line (a write cut short) is cut off the file.

        Returns
        -------
        list of dict
            The records in file order. Lines that are not records are left out, with a note in
            :attr:`warnings`.
        """
        if not self.path.exists():
            return []
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            keep = data.rfind(b"\n") + 1
            with open(self.path, "r+b") as fh:
                fh.truncate(keep)
                fh.flush()
                os.fsync(fh.fileno())
            self.warnings.append(f"{self.path}: dropped an incomplete last line (that {self.what} runs again)")
            data = data[:keep]
        records = []
        for no, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                for key in self.keys:
                    rec[key]  # noqa: B018
            except (ValueError, KeyError, TypeError, RecursionError):
                self.warnings.append(f"{self.path}:{no}: not a {self.what} record, ignored")
                continue
            bad = self._bad_field(rec)
            if bad:
                self.warnings.append(f"{self.path}:{no}: {bad}; not a {self.what} record, ignored (it runs again)")
                continue
            if "load" in self.keys:
                rec["load"] = round(float(rec["load"]), LOAD_DIGITS)
            records.append(rec)
        return records

    def _bad_field(self, rec: Any) -> str:
        """What is wrong with a record's fields (a type, a load outside (0, 1]), or "" when nothing is.

        >>> PointStore("p.jsonl")._bad_field({"routing": "min", "load": 5.0, "seed": 0, "fingerprint": {},
        ...                                   "result": {}})
        "'load' must be in (0, 1] (got 5.0)"
        """
        if not isinstance(rec, dict):
            return f"a record must be a JSON object (got {type(rec).__name__})"
        types = self.TYPES if self.keys == self.POINT_KEYS else {}   # other stores keep records of their own
        for key in self.keys:
            want = types.get(key)
            if want is not None and (not isinstance(rec[key], want) or isinstance(rec[key], bool)):
                return f"{key!r} must be a JSON {_JSON_NAME.get(want, 'number')} (got {_short_json(rec[key])})"
        if types and not 0 < rec["load"] <= 1:
            return f"'load' must be in (0, 1] (got {rec['load']!r})"
        return ""

    def append(self, record: dict[str, Any]) -> None:
        """Append one record as one line, then flush it to disk (``fsync``).

        Parameters
        ----------
        record : dict
            A JSON-serialisable point record.
        """
        line = (json.dumps(record, default=json_default) + "\n").encode("utf-8")
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)  # one write: a line is whole or (if cut short) dropped by read()
            os.fsync(fd)
        finally:
            os.close(fd)


class LocalPool:
    """Points in spawned worker processes of this machine; :class:`radixnet.golden.cluster.DaskPool` has the
    same interface for a Dask cluster.

    Parameters
    ----------
    workers : int
        Worker processes to start.
    slots : int
        Points to keep in flight (:meth:`slots`).
    own_group : bool
        Each worker leads a process group (:func:`worker_init`), and :meth:`abort` ends the whole group:
        for tasks that start processes of their own (a co-simulation's compiler and simulator).
    """

    def __init__(self, workers: int, slots: int, own_group: bool = False) -> None:
        import multiprocessing
        ctx = multiprocessing.get_context("spawn")  # no fork of a process with threads (progress bar)
        self.ex = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=worker_init,
                                      initargs=(os.getpid(), own_group))  # workers die with this process
        self.own_group = own_group and hasattr(os, "killpg")
        self._slots = slots
        self._running: dict[Any, Hashable] = {}

    def slots(self) -> int:
        """Points to keep in flight.

        Returns
        -------
        int
        """
        return self._slots

    def submit(self, key: Hashable, fn: Callable, *args: Any) -> None:
        """Run ``fn(*args)`` in a worker, known to :meth:`completed` by ``key``.

        Parameters
        ----------
        key : hashable
            The caller's name for the task, e.g. ``(routing, load)``.
        fn : callable
            A picklable top-level function.
        *args
            Its arguments.
        """
        self._running[self.ex.submit(fn, *args)] = key

    def completed(self) -> list[tuple[Hashable, Any]]:
        """Wait for at least one task to end; return every one that has ended.

        Returns
        -------
        list of (key, result)

        Raises
        ------
        Exception
            What ``fn`` raised.
        """
        finished, _ = wait(self._running, return_when=FIRST_COMPLETED)
        return [(self._running.pop(f), f.result()) for f in finished]

    def abort(self) -> None:
        """Stop at once (Ctrl-C): cancel what has not started and terminate the workers."""
        procs = list(getattr(self.ex, "_processes", {}).values())  # no public way to stop running workers
        self.ex.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            if self.own_group and p.pid is not None:
                try:  # the worker and everything it started (its group: worker_init)
                    os.killpg(p.pid, signal.SIGTERM)
                    continue
                except OSError:  # not (yet) a group leader, or gone
                    pass
            p.terminate()
        for p in procs:
            p.join(timeout=5)

    def close(self) -> None:
        """End the pool after its last task."""
        self.ex.shutdown(wait=True)
