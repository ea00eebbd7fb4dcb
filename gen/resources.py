"""Memory estimates made before any work, and the limit they are held to (``--max-memory``).

Every command that builds a network, its metrics or an export first estimates the bytes it will
allocate from the parameters alone (routers, channels, terminals) and refuses, in one line naming
the figure, the limit and how to raise it, a request that needs more than the limit: by default
:data:`MEMORY_FRACTION` of the machine's RAM (read at run time), or ``--max-memory``.

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
from typing import Iterator, Mapping

from .params import ParamError

__all__ = ["MEMORY_FRACTION", "NETWORK_BYTES", "ram_bytes", "memory_limit", "format_bytes", "network_memory",
           "check_memory", "memory_budget", "current_max_memory"]

#: Share of the machine's RAM a command may plan to use unless ``--max-memory`` says otherwise.
MEMORY_FRACTION = 0.5

#: Bytes per element: ``peak`` while a Network is built, ``kept`` once it is built.
NETWORK_BYTES = {"peak": {"channel": 240, "terminal": 80, "router": 64},
                 "kept": {"channel": 56, "terminal": 40, "router": 32}}

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


def memory_limit(max_memory: int | None = None) -> int:
    """The limit in bytes: ``max_memory`` when given, else :data:`MEMORY_FRACTION` of the RAM.

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
    if max_memory is None:
        return int(ram_bytes() * MEMORY_FRACTION)
    ram = ram_bytes()
    if isinstance(max_memory, bool) or not isinstance(max_memory, int) or not 1 <= max_memory <= ram:
        raise ParamError("max-memory", f"must be a size from 1 byte to this machine's RAM, {format_bytes(ram)} "
                                       f"(got {max_memory} bytes)")
    return int(max_memory)


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
    given = max_memory is not None or current_max_memory() is not None
    limit = memory_limit(max_memory)
    if total > limit:
        src = "--max-memory" if given else f"{MEMORY_FRACTION:g} of this machine's RAM"
        detail = ", ".join(f"{k} {format_bytes(v)}" for k, v in sorted(parts.items(), key=lambda kv: -kv[1]) if v)
        raise ParamError("max-memory", f"{what} needs about {format_bytes(total)} ({detail}), more than the limit "
                                       f"of {format_bytes(limit)} ({src}); {hint} or raise --max-memory")
    return total
