"""Progress of a co-simulation across the simulator's process boundary.

The cocotb testbench runs inside the simulator, a process of its own; ``radixnet cosim`` shows its
progress as the golden model's does (:class:`radixnet.gen.progress.Progress`). The testbench writes
a :class:`CycleReporter` line -- ``cycle done total`` -- to the job's ``progress`` file every few
hundred cycles (atomically: a reader sees a whole line or the previous one), and the parent's
:func:`watch` polls it from a thread while the simulator runs. :func:`watch` also reports a
Verilator build by the object files it has compiled out of the C++ files Verilator wrote.

Examples
--------
>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "progress")
>>> tick = CycleReporter(path, total=40, every=10)
>>> tick(10, 7)
>>> read_progress(path)
(10, 7, 40)
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Optional

__all__ = ["CycleReporter", "read_progress", "watch", "build_files"]


class CycleReporter:
    """Testbench side: ``tick(cycle, done)`` writes ``cycle done total`` to ``path`` every ``every`` cycles.

    Parameters
    ----------
    path : str or None
        The job's progress file; None (no progress wanted) makes every call a no-op.
    total : int
        What ``done`` counts up to (packets delivered, or cycles at router level).
    every : int
        Cycles between writes (default 200: a write costs far less than 200 cycles of cocotb).
    """

    def __init__(self, path: Optional[str], total: int, every: int = 200) -> None:
        self.path, self.total, self.every = path, int(total), max(1, int(every))

    def __call__(self, cycle: int, done: int, force: bool = False) -> None:
        """Write ``cycle done total`` when ``cycle`` is a multiple of ``every`` (or ``force``: the last one)."""
        if self.path is None or (cycle % self.every and not force):
            return
        tmp = f"{self.path}.tmp"
        with open(tmp, "w") as fh:
            fh.write(f"{cycle} {done} {self.total}\n")
        os.replace(tmp, self.path)


def read_progress(path: str | os.PathLike) -> Optional[tuple[int, int, int]]:
    """The last ``(cycle, done, total)`` a :class:`CycleReporter` wrote, or None (nothing yet)."""
    try:
        cycle, done, total = Path(path).read_text().split()
        return int(cycle), int(done), int(total)
    except (OSError, ValueError):
        return None


def build_files(bdir: Path) -> tuple[int, int]:
    """A Verilator build's progress: (object files compiled, C++ files to compile) under ``bdir``."""
    cpp = sum(1 for _ in bdir.rglob("*.cpp"))
    obj = sum(1 for _ in bdir.rglob("*.o"))
    return min(obj, cpp), cpp


@contextmanager
def watch(poll: Callable[[], None], period: float = 0.5) -> Iterator[None]:
    """Call ``poll()`` every ``period`` seconds from a thread while the ``with`` body runs (and once at the end)."""
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(period):
            poll()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        poll()
