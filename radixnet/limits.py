"""Running under an address-space limit (``ulimit -v``, ``prlimit --as``): one line, never a traceback or a hang.

Imported by the command line before numpy, so it uses the standard library only. Under a soft ``RLIMIT_AS``
:func:`install`

* runs OpenBLAS on one thread unless ``OPENBLAS_NUM_THREADS`` or ``OMP_NUM_THREADS`` says otherwise (each
  thread takes a 32 MiB buffer, a stack and a malloc arena of address space as the library loads);
* checks, before numpy and before scipy's own OpenBLAS (``scipy.linalg``) load, that the address space they
  take can still be mapped (:func:`room`): OpenBLAS retries a buffer it cannot allocate forever, or exits
  with its own message, as it loads.

What the commands plan to allocate is held to the same limit by :mod:`radixnet.gen.resources`; a
:class:`MemoryError` past the estimates ends the command in one line (:func:`out_of_memory`, exit status 1).

Examples
--------
>>> out_of_memory("radixnet sim", MemoryError("Unable to allocate 4.00 MiB\\nmore")).split(" (")[0]
'radixnet sim: error: out of memory'
"""

from __future__ import annotations

import os
import sys

__all__ = ["address_space", "library_bytes", "room", "starved", "out_of_memory", "install"]


def address_space() -> int | None:
    """The soft ``RLIMIT_AS`` in bytes, None when there is none."""
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, OSError, ValueError):  # pragma: no cover - not POSIX
        return None
    return None if soft == resource.RLIM_INFINITY else int(soft)


def _threads() -> int:
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        try:
            return max(1, int(os.environ[name]))
        except (KeyError, ValueError):
            continue
    return os.cpu_count() or 1


def library_bytes(which: str) -> int:
    """Address space ``which`` (``"numpy"`` or ``"scipy.linalg"``) takes as it loads, with its OpenBLAS.

    Measured: numpy 84 MiB on one OpenBLAS thread, 124 MiB on two; scipy.linalg 70 and 110 MiB; rounded up.
    """
    return (48 << 20) * (1 + _threads())


def room(nbytes: int, what: str) -> None:
    """Under ``ulimit -v``: MemoryError unless ``nbytes`` of address space can still be mapped.

    Parameters
    ----------
    nbytes : int
        Bytes to map (and unmap at once; no page is touched).
    what : str
        What needs them, for the message.
    """
    if address_space() is None:
        return
    import mmap
    try:
        mmap.mmap(-1, nbytes).close()
    except (OSError, ValueError, OverflowError, MemoryError):
        raise MemoryError(f"loading {what} takes about {nbytes >> 20} MiB more address space than is left") from None


def starved(e: BaseException) -> bool:
    """True when ``e`` is the process running out of memory: a MemoryError or, under ``ulimit -v``, a library
    that could not be mapped (ImportError) or an allocation that failed inside the interpreter (SystemError)."""
    return isinstance(e, MemoryError) or (isinstance(e, (ImportError, SystemError)) and address_space() is not None)


def out_of_memory(command: str, e: BaseException) -> str:
    """The one line of a command that ran out of memory: what failed and the address-space limit in force.

    Parameters
    ----------
    command : str
        The command, e.g. ``"radixnet sim"``.
    e : BaseException
        What was raised (:func:`starved`).
    """
    lines = [x.strip() for x in str(e).strip().splitlines() if x.strip()]
    why = next((x for x in lines if "failed to map" in x or "allocate" in x), lines[0] if lines else "")[:200]
    soft = address_space()
    where = f" under ulimit -v {soft / (1 << 20):.0f} MiB" if soft is not None else ""
    return (f"{command}: error: out of memory ({type(e).__name__}{': ' + why if why else ''}){where}; give smaller "
            f"parameters or more memory (--max-memory refuses a plan past the limit before any work)")


class _ScipyRoom:
    """A one-shot import hook: :func:`room` for scipy's OpenBLAS before ``scipy.linalg`` loads it."""

    def find_spec(self, name, path=None, target=None):
        if name == "scipy.linalg":
            if self in sys.meta_path:
                sys.meta_path.remove(self)
            room(library_bytes(name), "scipy's OpenBLAS")
        return None


def install() -> None:
    """Under ``ulimit -v``: one OpenBLAS thread unless the environment sets them, and :func:`room` for
    numpy (now, before it is imported) and for scipy's OpenBLAS (when ``scipy.linalg`` is first imported).

    Raises
    ------
    MemoryError
        Too little address space left to load numpy.
    """
    if address_space() is None:
        return
    if "OPENBLAS_NUM_THREADS" not in os.environ and "OMP_NUM_THREADS" not in os.environ:
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    if "scipy.linalg" not in sys.modules and not any(isinstance(f, _ScipyRoom) for f in sys.meta_path):
        sys.meta_path.insert(0, _ScipyRoom())
    if "numpy" not in sys.modules:
        room(library_bytes("numpy"), "numpy and its OpenBLAS")
