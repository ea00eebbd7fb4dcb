"""Memory estimates made before any work, and the limit they are held to (``--max-memory``).

Every command that builds a network, its metrics or an export first estimates the bytes it will
allocate from the parameters alone (routers, channels, terminals) and refuses, in one line naming
the figure, the limit and how to raise it, a request that needs more than the limit: by default
:data:`MEMORY_FRACTION` of the machine's RAM (read at run time), or ``--max-memory``; and never more
than the process may still get (:func:`process_limits`): its soft address-space limit (``ulimit -v``,
``RLIMIT_AS``) less what it already maps, and its cgroup's memory limit (v2 ``memory.max``, v1
``memory.limit_in_bytes``, the smallest on the way to the root), which then plays the RAM.

The per-element figures are peaks measured with ``tracemalloc`` on 4-16 million element networks
of every family, rounded up: building a Network peaks at 157-224 bytes per channel (the builder's
concatenations and sorts) and 72 per terminal, and keeps 48 per channel and 32 per terminal.

Examples
--------
>>> format_bytes(3 << 30), format_bytes(1536), format_bytes(12)
('3 GiB', '1.5 KiB', '12 bytes')
>>> format_bytes(network_memory(routers=4, channels=12, terminals=400_000_000)["peak"])
'29.8 GiB'
>>> check_memory({"network": 2 << 30}, max_memory=1 << 30, what="building fbfly")
Traceback (most recent call last):
...
radixnet.gen.params.ParamError: --max-memory: building fbfly needs about 2 GiB (network 2 GiB), more than the limit of 1 GiB (--max-memory); make it smaller or raise --max-memory
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from pathlib import Path
from typing import Iterator, Mapping, NamedTuple

from .params import ParamError

__all__ = ["MEMORY_FRACTION", "NETWORK_BYTES", "CGROUP_ROOT", "Limit", "ram_bytes", "cgroup_memory_limit",
           "process_limits", "effective_limit", "memory_limit", "format_bytes", "network_memory", "check_memory",
           "memory_budget", "current_max_memory"]

#: Share of the machine's RAM a command may plan to use unless ``--max-memory`` says otherwise.
MEMORY_FRACTION = 0.5

#: Bytes per element: ``peak`` while a Network is built, ``kept`` once it is built.
NETWORK_BYTES = {"peak": {"channel": 240, "terminal": 80, "router": 64},
                 "kept": {"channel": 56, "terminal": 40, "router": 32}}

#: Where the cgroup file systems are mounted (v2 here, v1's memory controller under ``memory/``).
CGROUP_ROOT = Path("/sys/fs/cgroup")

#: A cgroup limit at or above this (v1 writes 2**63 rounded down to a page) is no limit.
_UNLIMITED = 1 << 60

_BUDGET: contextvars.ContextVar[int | None] = contextvars.ContextVar("radixnet_max_memory", default=None)


def ram_bytes() -> int:
    """Physical memory of this machine in bytes (8 GiB where the OS does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 8 << 30


def format_bytes(n: float) -> str:
    """``n`` bytes in GiB, MiB or KiB, three significant digits."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.3g} {unit}"
    return f"{int(n)} bytes"


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None  # "max" (v2): no limit


def cgroup_memory_limit(root: Path | None = None, proc: Path = Path("/proc/self/cgroup")) -> int | None:
    """The memory limit of this process's cgroup in bytes, or None when there is none.

    The smallest ``memory.max`` (cgroup v2) or ``memory.limit_in_bytes`` (v1) from the process's own
    cgroup (``/proc/self/cgroup``) up to the root of the mounted hierarchy.

    Parameters
    ----------
    root : Path, optional
        The cgroup mount (default :data:`CGROUP_ROOT`).
    proc : Path
        The process's cgroup list.
    """
    root = CGROUP_ROOT if root is None else Path(root)
    try:
        lines = proc.read_text().splitlines()
    except OSError:
        lines = []
    places = []  # (directory of the hierarchy's root, the process's path in it, file)
    for line in lines:
        _, controllers, path = (line.split(":", 2) + ["", ""])[:3]
        if controllers == "":
            places.append((root, path, "memory.max"))
        elif "memory" in controllers.split(","):
            places.append((root / "memory", path, "memory.limit_in_bytes"))
    if not places:
        places = [(root, "/", "memory.max"), (root / "memory", "/", "memory.limit_in_bytes")]
    found = []
    for base, path, name in places:
        parts = [x for x in path.split("/") if x and x != ".."]
        for depth in range(len(parts), -1, -1):  # the process's cgroup, then each parent (a namespace: not all exist)
            v = _read_int(base.joinpath(*parts[:depth]) / name)
            if v is not None and 0 < v < _UNLIMITED:
                found.append(v)
    return min(found) if found else None


def _mapped_bytes() -> int:
    """Address space this process maps now (``VmSize``), 0 where /proc does not say."""
    try:
        return int(Path("/proc/self/statm").read_text().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):  # pragma: no cover - not Linux
        return 0


class Limit(NamedTuple):
    """A memory limit: ``bytes`` a command may plan to allocate, ``source`` (what sets it, for messages) and
    ``raise_it`` (how to raise it)."""

    bytes: int
    source: str
    raise_it: str


def process_limits() -> list[Limit]:
    """The limits on what this process may still allocate that are in force, whatever ``--max-memory`` says.

    * the soft ``RLIMIT_AS`` (``ulimit -v``, ``prlimit --as``) less the address space already mapped;
    * the cgroup's memory limit (:func:`cgroup_memory_limit`).

    Returns
    -------
    list of Limit
        Empty when neither is set.
    """
    out = []
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        infinite = soft == resource.RLIM_INFINITY
    except (ImportError, OSError, ValueError):  # pragma: no cover - not POSIX
        infinite = True
    if not infinite:
        mapped = _mapped_bytes()
        out.append(Limit(max(0, soft - mapped), f"ulimit -v {format_bytes(soft)} less {format_bytes(mapped)} "
                                                f"already mapped", "raise ulimit -v"))
    cg = cgroup_memory_limit()
    if cg is not None:
        out.append(Limit(cg, f"the cgroup's memory.max of {format_bytes(cg)}", "raise the cgroup's memory.max"))
    return out


def effective_limit(max_memory: int | None = None) -> Limit:
    """The limit in force and what sets it: ``max_memory`` (else :data:`MEMORY_FRACTION` of the RAM, the
    cgroup's limit when it is smaller), held to :func:`process_limits`, whichever is smallest.

    Parameters
    ----------
    max_memory : int, optional
        A limit given by the user (``--max-memory``); None takes :func:`current_max_memory`, then the default.

    Raises
    ------
    ParamError
        ``--max-memory`` that is not an integer from 1 byte to this machine's RAM.
    """
    if max_memory is None:
        max_memory = _BUDGET.get()
    ram = ram_bytes()
    if max_memory is None:
        cg = cgroup_memory_limit()
        if cg is not None and cg < ram:
            base = Limit(int(cg * MEMORY_FRACTION), f"{MEMORY_FRACTION:g} of the cgroup's memory.max of "
                                                    f"{format_bytes(cg)}", "raise --max-memory")
        else:
            base = Limit(int(ram * MEMORY_FRACTION), f"{MEMORY_FRACTION:g} of this machine's RAM",
                         "raise --max-memory")
    elif isinstance(max_memory, bool) or not isinstance(max_memory, int) or not 1 <= max_memory <= ram:
        raise ParamError("max-memory", f"must be a size from 1 byte to this machine's RAM, {format_bytes(ram)} "
                                       f"(got {max_memory} bytes)")
    else:
        base = Limit(int(max_memory), "--max-memory", "raise --max-memory")
    return min([base, *process_limits()], key=lambda lim: lim.bytes)


def memory_limit(max_memory: int | None = None) -> int:
    """The limit in bytes: ``max_memory`` when given, else :data:`MEMORY_FRACTION` of the RAM; at most what
    the process may still get (:func:`effective_limit`).

    Parameters
    ----------
    max_memory : int, optional
        A limit given by the user (``--max-memory``); None takes :func:`current_max_memory`, then the default.

    Raises
    ------
    ParamError
        ``--max-memory`` that is not an integer from 1 byte to this machine's RAM.
    """
    return effective_limit(max_memory).bytes


@contextlib.contextmanager
def memory_budget(max_memory: int | None) -> Iterator[None]:
    """Within the block, :func:`memory_limit` (and every check under it, such as reading a graph file)
    uses ``max_memory`` when no limit is passed explicitly; None keeps the one in force."""
    if max_memory is None:
        yield
        return
    memory_limit(max_memory)  # refuses a bad value here, before any work
    token = _BUDGET.set(int(max_memory))
    try:
        yield
    finally:
        _BUDGET.reset(token)


def current_max_memory() -> int | None:
    """The ``max_memory`` of the innermost :func:`memory_budget`, or None."""
    return _BUDGET.get()


def network_memory(routers: int, channels: int, terminals: int) -> dict[str, int]:
    """Bytes of building a Network of this size: ``peak`` while building, ``kept`` afterwards.

    Parameters
    ----------
    routers, channels, terminals : int
        The counts, from the family's size estimate.
    """
    counts = {"router": int(routers), "channel": int(channels), "terminal": int(terminals)}
    return {k: sum(per[e] * counts[e] for e in counts) for k, per in NETWORK_BYTES.items()}


def check_memory(parts: Mapping[str, int], max_memory: int | None = None, what: str = "this command",
                 hint: str = "make it smaller") -> int:
    """Refuse, in one line, a plan whose ``parts`` (name -> bytes) add up to more than the limit.

    Parameters
    ----------
    parts : mapping of str to int
        What will be allocated, by part (named in the message).
    max_memory : int, optional
        The user's limit (``--max-memory``); default :func:`memory_limit`.
    what : str
        What needs the memory, for the message (``"building fbfly"``).
    hint : str
        How to make the request smaller, for the message.

    Returns
    -------
    int
        The total, when it fits.

    Raises
    ------
    ParamError
        Naming ``--max-memory``: the figure, the limit and how to raise it.
    """
    total = int(sum(parts.values()))
    limit = effective_limit(max_memory)
    if total > limit.bytes:
        detail = ", ".join(f"{k} {format_bytes(v)}" for k, v in sorted(parts.items(), key=lambda kv: -kv[1]) if v)
        raise ParamError("max-memory", f"{what} needs about {format_bytes(total)} ({detail}), more than the limit "
                                       f"of {format_bytes(limit.bytes)} ({limit.source}); {hint} or {limit.raise_it}")
    return total
