"""Sweeps and studies on a Dask distributed cluster (``radixnet sweep|study ... --scheduler ADDRESS``).

Without ``--scheduler`` a sweep runs its points in a local pool of worker processes
(:class:`radixnet.gen.pool.LocalPool`). With it, this process becomes a Dask client: each
``(routing, load)`` point is one task, :func:`radixnet.studies.sweep.run_point`, on any worker of the
cluster, and the client alone writes ``points.jsonl``, one record the moment a point's result arrives,
whichever worker ran it. A sweep interrupted on a cluster resumes like a local one, on a cluster or not.

**Worker death.** When a worker dies, the scheduler runs its tasks again on another worker; the client
sees one result per point and records it once (the sweep keeps the points in flight by
``(routing, load)`` and drops a second answer). A task that has been running on
``distributed.scheduler.allowed-failures`` + 1 workers that all died is given up by the scheduler with
``KilledWorker``; :class:`DaskPool` then submits it again under a new key, at most
:data:`KILLED_RESUBMITS` times, and after that reports it as :class:`WorkerLost`, which the sweep lists
in :attr:`Sweep.errors <radixnet.studies.sweep.Sweep.errors>` like a point the watchdog stopped (not
recorded; it runs again next time).

**In flight.** The sweep submits points in the order they would start locally (load, then routing) and
keeps at most :meth:`DaskPool.slots` of them in flight: ``--jobs`` if given, else twice the cluster's
worker threads (re-read as workers come and go). Holding the rest back keeps the saturation short-cut
useful: a load above a routing's first saturated load is recorded as skipped when its turn comes.

**Ctrl-C** cancels the points in flight (``Client.cancel``) and closes the client; the points already
written stay, and the next run resumes after them. Losing the scheduler itself ends the run with
:class:`SchedulerLost` (one line from the CLI, exit status 1); the points written stay as well.

Each worker needs radixnet installed as on the client machine (``make setup``, which also compiles the
numba kernels); :func:`connect` checks that every worker present can import it.
"""

from __future__ import annotations

import contextlib
import contextvars
import socket
import struct
import time
import uuid
from typing import Any, Callable, Hashable, Iterator
from urllib.parse import urlsplit

from ..gen import ParamError

__all__ = ["ADDRESS_ALLOWED", "CONNECT_TIMEOUT", "HANDSHAKE_MAX", "KILLED_RESUBMITS", "DaskPool", "SchedulerLost",
           "WorkerLost", "active_client", "cluster_line", "connect", "parse_address", "probe", "scheduler", "use_client",
           "worker_threads"]

#: What ``--scheduler`` takes (the error message names it).
ADDRESS_ALLOWED = "tcp://HOST:PORT or tls://HOST:PORT of a running Dask scheduler (HOST:PORT means tcp://)"
#: Seconds :func:`connect` waits for the scheduler before giving up.
CONNECT_TIMEOUT = 10.0
#: Bytes a Dask scheduler's first message (its handshake, a few hundred) may announce; more is not Dask.
HANDSHAKE_MAX = 1 << 20
#: Times a point that ended in ``KilledWorker`` is submitted again before it is reported as lost.
KILLED_RESUBMITS = 2

_ACTIVE: contextvars.ContextVar[Any] = contextvars.ContextVar("radixnet_dask_client", default=None)


class WorkerLost(RuntimeError):
    """A point whose workers kept dying: given up after :data:`KILLED_RESUBMITS` resubmissions."""


class SchedulerLost(RuntimeError):
    """The connection to the Dask scheduler was lost during a run; ``str()`` is one line for users."""


def parse_address(address: str) -> str:
    """Check a ``--scheduler`` address and put it in normal form.

    Parameters
    ----------
    address : str
        ``tcp://HOST:PORT``, ``tls://HOST:PORT`` or ``HOST:PORT`` (taken as ``tcp://``); an IPv6 host in
        brackets.

    Returns
    -------
    str
        ``scheme://HOST:PORT``.

    Raises
    ------
    ParamError
        Naming ``--scheduler`` and :data:`ADDRESS_ALLOWED`.

    Examples
    --------
    >>> parse_address("127.0.0.1:8786")
    'tcp://127.0.0.1:8786'
    >>> parse_address("http://head:8786")
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --scheduler: must be tcp://HOST:PORT or tls://HOST:PORT of a running Dask scheduler (HOST:PORT means tcp://) (got 'http://head:8786')
    """
    text = str(address).strip()
    bad = ParamError("scheduler", f"must be {ADDRESS_ALLOWED} (got {address!r})")
    if "://" not in text:
        text = "tcp://" + text
    scheme, _, rest = text.partition("://")
    if scheme.lower() not in ("tcp", "tls") or not rest:
        raise bad
    try:
        parts = urlsplit("//" + rest)
        port = parts.port
    except ValueError:  # a port that is not a number or not in 0-65535
        raise bad from None
    if not parts.hostname or port is None or not 1 <= port <= 65535 or parts.path or parts.query \
            or parts.fragment or parts.username is not None:
        raise bad
    return f"{scheme.lower()}://{parts.netloc}"


def _tls_context(addr: str):
    """The client TLS context of the Dask configuration, or ParamError naming what ``tls://`` needs."""
    from distributed.security import Security
    try:  # what a Client does: the configured security loader, else the configuration's settings
        from distributed.client import _maybe_call_security_loader
        security = _maybe_call_security_loader(addr) or Security()
    except ImportError:  # pragma: no cover - another distributed
        security = Security()
    ctx = security.get_connection_args("client").get("ssl_context")
    if ctx is None:
        raise ParamError("scheduler", f"{addr}: tls:// needs the Dask configuration's client TLS settings "
                                      "(distributed.comm.tls.ca-file, .client.cert, .client.key; docs/cluster.md); "
                                      "or give tcp://HOST:PORT")
    return ctx


def _recv(sock: socket.socket, n: int, left: Callable[[], float]) -> bytes:
    """Exactly ``n`` bytes from ``sock`` before the deadline (TimeoutError), or ConnectionError at its end."""
    buf = bytearray()
    while len(buf) < n:
        sock.settimeout(left())
        chunk = sock.recv(min(n - len(buf), 1 << 16))
        if not chunk:
            raise ConnectionError("closed the connection")
        buf += chunk
    return bytes(buf)


def probe(address: str, timeout: float | None = None) -> None:
    """Check that a Dask scheduler greets at ``address`` within ``timeout`` seconds, before any Dask client.

    A Dask scheduler sends its handshake first: one message of a few hundred bytes, framed as an 8-byte
    length, then an 8-byte frame count and the frame lengths. The deadline covers connecting (retried
    while refused, as Dask does for a scheduler still starting), the TLS handshake and that first message;
    a Dask client itself would wait for the message forever, and take any 8 bytes for a length to allocate.

    Parameters
    ----------
    address : str
        The scheduler (:func:`parse_address`).
    timeout : float, optional
        Seconds (default :data:`CONNECT_TIMEOUT`).

    Raises
    ------
    ParamError
        Naming ``--scheduler``: no server, a server that sends nothing in time, one whose first message is
        not Dask's, or ``tls://`` without the Dask TLS settings.
    """
    addr = parse_address(address)
    wait = CONNECT_TIMEOUT if timeout is None else float(timeout)
    scheme, _, rest = addr.partition("://")
    parts = urlsplit("//" + rest)
    ctx = _tls_context(addr) if scheme == "tls" else None
    deadline = time.monotonic() + wait

    def left() -> float:
        t = deadline - time.monotonic()
        if t <= 0:
            raise TimeoutError
        return t

    stage, delay = "connect", 0.01
    try:
        while True:
            try:
                raw = socket.create_connection((parts.hostname, parts.port), timeout=left())
                break
            except (ConnectionRefusedError, socket.gaierror) as e:
                if deadline - time.monotonic() <= delay:
                    raise e
                time.sleep(delay)
                delay = min(2 * delay, 0.5)
        with raw:
            stage = "greet"
            raw.settimeout(left())
            sock = ctx.wrap_socket(raw, server_hostname=parts.hostname) if ctx is not None else raw
            with sock:
                (size,) = struct.unpack("Q", head := _recv(sock, 8, left))
                if not 16 <= size <= HANDSHAKE_MAX:
                    raise ValueError(head)
                body = _recv(sock, size, left)
                (frames,) = struct.unpack_from("Q", body)
                if not 1 <= frames <= 64 or 8 + 8 * frames > size:
                    raise ValueError(body[:8])
    except ParamError:
        raise
    except ValueError as e:
        raise ParamError("scheduler", f"the server at {addr} is not a Dask scheduler (its first answer begins "
                                      f"{e.args[0][:16]!r}, not a Dask message); give {ADDRESS_ALLOWED}") from None
    except (TimeoutError, socket.timeout):
        if stage == "connect":
            raise ParamError("scheduler", f"no Dask scheduler answered at {addr} within {wait:g} s (TimeoutError); "
                                          f"start one with `dask scheduler`, or give {ADDRESS_ALLOWED}") from None
        raise ParamError("scheduler", f"the server at {addr} accepted the connection but sent no Dask greeting "
                                      f"within {wait:g} s (not a Dask scheduler, or a tls:// one given as tcp://); "
                                      f"give {ADDRESS_ALLOWED}") from None
    except OSError as e:  # refused, unreachable, unknown host, a TLS handshake refused, closed
        why = type(e).__name__ + (f": {e.strerror or e.reason}" if getattr(e, "strerror", None)
                                  or getattr(e, "reason", None) else f": {e}" if str(e) else "")
        if stage == "connect":
            raise ParamError("scheduler", f"no Dask scheduler answered at {addr} within {wait:g} s ({why}); start "
                                          f"one with `dask scheduler`, or give {ADDRESS_ALLOWED}") from None
        raise ParamError("scheduler", f"the server at {addr} broke off the Dask greeting ({why}); give "
                                      f"{ADDRESS_ALLOWED}") from None


def connect(address: str, timeout: float | None = None, check: bool = True):
    """Connect to a Dask scheduler, refusing an address that is malformed or does not answer in time.

    Parameters
    ----------
    address : str
        The scheduler (:func:`parse_address`).
    timeout : float, optional
        Seconds to wait for the scheduler (default :data:`CONNECT_TIMEOUT`).
    check : bool
        Check that every worker connected now has radixnet installed (workers that join later are not
        checked).

    Returns
    -------
    distributed.Client
        A client that is not the process's default one; the caller closes it.

    Raises
    ------
    ParamError
        Naming ``--scheduler``: a malformed address, no scheduler answering within ``timeout`` (its first
        message included, :func:`probe`), a server that is not Dask's, or a worker without radixnet.
    """
    addr = parse_address(address)
    wait = CONNECT_TIMEOUT if timeout is None else timeout
    probe(addr, wait)  # a server that is not Dask's, or that never answers, is refused here
    from distributed import Client
    try:
        client = Client(addr, timeout=wait, set_as_default=False)
    except (OSError, TimeoutError) as e:
        raise ParamError("scheduler", f"no Dask scheduler answered at {addr} within {wait:g} s "
                                      f"({type(e).__name__}); start one with `dask scheduler`, or give "
                                      f"{ADDRESS_ALLOWED}") from None
    except Exception as e:  # noqa: BLE001 - whatever else the handshake raises is a refused address
        raise ParamError("scheduler", f"cannot connect to the Dask scheduler at {addr} ({type(e).__name__}: "
                                      f"{str(e).splitlines()[0] if str(e) else ''})") from None
    if check:
        try:
            _check_workers(client)
        except BaseException:
            client.close()
            raise
    return client


def _check_workers(client) -> None:
    """ParamError naming the first worker that cannot find the radixnet distribution."""
    from importlib.metadata import version
    found = client.run(version, "radixnet", on_error="return")
    for worker, got in sorted(found.items()):
        if isinstance(got, BaseException):
            raise ParamError("scheduler", f"worker {worker} has no radixnet installed ({type(got).__name__}: "
                                          f"{got}); run `make setup` on every worker machine")


def worker_threads(client) -> int:
    """The worker threads of the cluster now (0 before any worker has joined).

    Parameters
    ----------
    client : distributed.Client

    Returns
    -------
    int
    """
    return int(sum(client.nthreads().values()))


def cluster_line(client, address: str, unit: str) -> str:
    """What a run says of the cluster it starts on: its address, workers and threads.

    Parameters
    ----------
    client : distributed.Client
    address : str
        The scheduler's address.
    unit : str
        What waits when no worker has joined yet (``"points"``, ``"configurations"``).

    Returns
    -------
    str
    """
    threads = worker_threads(client)
    return (f"on the Dask cluster at {address}: {len(client.nthreads())} workers, {threads} threads now"
            + ("" if threads else f" (the {unit} wait for a worker to join)"))


def active_client():
    """The client that :func:`use_client` made active in this context, or None.

    Returns
    -------
    distributed.Client or None
        A :class:`radixnet.studies.sweep.Sweep` created without ``scheduler`` runs on it.
    """
    return _ACTIVE.get()


@contextlib.contextmanager
def use_client(client) -> Iterator[Any]:
    """Make ``client`` the active one: every sweep created inside runs its points on its cluster.

    This is how a study (:func:`radixnet.studies.registry.run_study`) puts all its sweeps on one cluster
    without a parameter in each study function.

    Parameters
    ----------
    client : distributed.Client or None
        None makes sweeps inside run locally.

    Yields
    ------
    distributed.Client or None
        ``client``.
    """
    token = _ACTIVE.set(client)
    try:
        yield client
    finally:
        _ACTIVE.reset(token)


@contextlib.contextmanager
def scheduler(address: str | None, timeout: float | None = None) -> Iterator[Any]:
    """Connect to ``address`` (:func:`connect`), make the client active (:func:`use_client`), close it after.

    Parameters
    ----------
    address : str or None
        The scheduler; None runs everything inside locally (and connects to nothing).
    timeout : float, optional
        Seconds to wait for the scheduler (default :data:`CONNECT_TIMEOUT`).

    Yields
    ------
    distributed.Client or None
    """
    if address is None:
        with use_client(None):
            yield None
        return
    client = connect(address, timeout)
    try:
        with use_client(client):
            yield client
    finally:
        client.close()


class DaskPool:
    """Points as tasks on a Dask cluster, with the interface of :class:`radixnet.gen.pool.LocalPool`.

    Parameters
    ----------
    client : distributed.Client
        A connected client.
    max_in_flight : int, optional
        Points in flight at most (``--jobs``); default twice the cluster's worker threads (at least 2),
        re-read at most once a second.
    resubmits : int
        Times a task that ended in ``KilledWorker`` (or was cancelled by the cluster) is submitted again
        before :meth:`completed` reports it as :class:`WorkerLost`.
    close_client : bool
        Close ``client`` in :meth:`close` and :meth:`abort` (the pool connected it).
    """

    def __init__(self, client, max_in_flight: int | None = None, resubmits: int = KILLED_RESUBMITS,
                 close_client: bool = False) -> None:
        from distributed import as_completed
        self.client = client
        self.max_in_flight = max_in_flight
        self.resubmits = resubmits
        self.close_client = close_client
        #: tasks submitted again after their workers died (``KilledWorker``), this pool's lifetime
        self.resubmitted = 0
        self._done = as_completed(loop=client.loop, with_results=True, raise_errors=False)
        self._running: dict[Any, tuple[Hashable, Callable, tuple, int]] = {}
        self._slots, self._read = 2, -1.0

    def _lost(self, why: BaseException | str) -> SchedulerLost:
        what = why if isinstance(why, str) else f"{type(why).__name__}: {str(why).splitlines()[0] if str(why) else ''}"
        try:
            addr = self.client.scheduler.address
        except AttributeError:
            addr = "its address"
        return SchedulerLost(f"lost the Dask scheduler at {addr} during the run ({what}); the points recorded "
                             f"are kept, run the same command again to resume")

    def slots(self) -> int:
        """Points to keep in flight now.

        Returns
        -------
        int
            ``max_in_flight``, else ``max(2, 2 * worker threads)``.

        Raises
        ------
        SchedulerLost
            The scheduler does not answer.
        """
        if self.max_in_flight is not None:
            return self.max_in_flight
        now = time.monotonic()
        if now - self._read >= 1.0:
            try:
                self._slots, self._read = max(2, 2 * worker_threads(self.client)), now
            except OSError as e:  # CommClosedError, a connect timeout
                raise self._lost(e) from None
        return self._slots

    def submit(self, key: Hashable, fn: Callable, *args: Any, attempt: int = 0) -> None:
        """Submit ``fn(*args)`` as one task, known to :meth:`completed` by ``key``.

        Parameters
        ----------
        key : hashable
            The caller's name for the task, e.g. ``(routing, load)``; the Dask key is made unique from it
            (``pure=False``), so a resubmission is a new task.
        fn : callable
            A picklable top-level function, importable on the workers.
        *args
            Its arguments.
        attempt : int
            Resubmissions so far (internal).
        """
        name = "-".join(str(k) for k in (key if isinstance(key, tuple) else (key,)))
        if self.client.status not in ("running", "connecting", "newly-created"):
            raise self._lost(f"client {self.client.status}")
        try:
            fut = self.client.submit(fn, *args, key=f"{getattr(fn, '__name__', 'task')}-{name}-{uuid.uuid4().hex}",
                                     pure=False, retries=0)
        except OSError as e:
            raise self._lost(e) from None
        self._running[fut] = (key, fn, args, attempt)
        self._done.add(fut)

    def completed(self) -> list[tuple[Hashable, Any]]:
        """Wait for at least one task to end; return every one that has ended.

        Returns
        -------
        list of (key, result)
            ``result`` is ``fn``'s return value, or a :class:`WorkerLost` for a task given up after
            :attr:`resubmits` resubmissions. A task ended by ``KilledWorker`` with resubmissions left is
            submitted again and not listed, so the list may be empty.

        Raises
        ------
        SchedulerLost
            The client lost its scheduler (its tasks were cancelled).
        Exception
            What ``fn`` raised on the worker (as a local pool would).
        """
        from distributed.scheduler import KilledWorker
        out = []
        for fut, result in self._done.next_batch(block=True):
            entry = self._running.pop(fut, None)
            if entry is None:  # not ours any more (a second answer for a future already taken)
                continue
            key, fn, args, attempt = entry
            if fut.status == "finished":
                out.append((key, result))
                continue
            if fut.status == "error" and not isinstance(result[1], KilledWorker):
                _, exc, tb = result
                raise exc.with_traceback(tb)
            if fut.status != "error" and self.client.status not in ("running", "connecting"):
                raise self._lost(f"client {self.client.status}")  # every task cancelled with the connection
            why = ("its workers died" if fut.status == "error" else "the cluster cancelled it")  # e.g. a restart
            if attempt < self.resubmits:
                self.resubmitted += 1
                self.submit(key, fn, *args, attempt=attempt + 1)
            else:
                out.append((key, WorkerLost(f"{why} {attempt + 1} times (KilledWorker: each time on "
                                            f"distributed.scheduler.allowed-failures + 1 workers); not "
                                            f"recorded, it runs again next time")))
        return out

    def pending(self) -> int:
        """Tasks submitted and not yet returned by :meth:`completed`."""
        return len(self._running)

    def abort(self) -> None:
        """Cancel every task in flight (Ctrl-C); close the client if the pool owns it."""
        try:
            if self._running and self.client.status == "running":
                self.client.cancel(list(self._running), force=True, reason="radixnet: interrupted")
        except Exception:  # noqa: BLE001 - the scheduler gone too: nothing to cancel, the first error is reported
            pass
        finally:
            self._running.clear()
            self._done.clear()
            if self.close_client:
                self.client.close()

    def close(self) -> None:
        """End the pool after its last task; close the client if the pool owns it."""
        self._running.clear()
        if self.close_client:
            self.client.close()
