"""Progress displays for long runs, shared by every command: what a run is doing and how long it will take.

The engines (the golden simulator, CLEX, the static metrics, the RTL generator, the co-simulation)
report their progress through one callable, ``progress(phase, done, total=None, info="")``, and know
nothing of how it is shown. :class:`Progress` is the one that shows it: a ``rich`` bar on standard
error naming the command, the phase (``warm-up``, ``measure``, ``drain`` ...), ``done/total`` with the
time elapsed and remaining, and a short ``info``. It shows nothing when standard error is not a
terminal or with ``quiet`` (``--quiet``), so logs and pipes see only results. ``FORCE_COLOR=1`` makes
rich treat standard error as a terminal (how the tests see the bar). Within :func:`progress_lines` (a
command whose run is long, such as a large ``radixnet rtl``), a :class:`Progress` that draws no bar prints
a line per tenth of each phase instead, on the stream given (standard output, beside the results).

Examples
--------
>>> import io
>>> from rich.console import Console
>>> out = io.StringIO()
>>> with Progress("sim", console=Console(file=out, force_terminal=True, width=100)) as progress:
...     progress("measure", 1000, 2000, info="accepted 0.300")
>>> "sim measure" in out.getvalue() and "1000/2000" in out.getvalue()
True
>>> with Progress("sim", quiet=True) as progress:    # shows nothing, accepts every call
...     progress("warm-up", 500)
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import time
from typing import IO, Any, Callable, Iterator, Optional

__all__ = ["ItemProgress", "Progress", "ProgressFn", "progress_lines", "report"]

_LINES: contextvars.ContextVar[Optional[IO[str]]] = contextvars.ContextVar("radixnet_progress_lines", default=None)


@contextlib.contextmanager
def progress_lines(stream: Optional[IO[str]] = None) -> Iterator[None]:
    """Within the block, a :class:`Progress` that draws no bar (standard error is not a terminal) and is not
    quiet prints ``radixnet LABEL: PHASE DONE/TOTAL, S s`` on ``stream`` (default standard output) at each
    tenth of a phase's total, and at its end.

    Examples
    --------
    >>> import io
    >>> from rich.console import Console
    >>> out = io.StringIO()
    >>> with progress_lines(out), Progress("rtl", console=Console(file=io.StringIO())) as progress:
    ...     for r in range(21):
    ...         progress("routers", r, 20)
    >>> [line.split(",")[0] for line in out.getvalue().splitlines()]
    ['radixnet rtl: routers 2/20', 'radixnet rtl: routers 4/20', 'radixnet rtl: routers 6/20', 'radixnet rtl: routers 8/20', 'radixnet rtl: routers 10/20', 'radixnet rtl: routers 12/20', 'radixnet rtl: routers 14/20', 'radixnet rtl: routers 16/20', 'radixnet rtl: routers 18/20', 'radixnet rtl: routers 20/20']
    """
    token = _LINES.set(stream if stream is not None else sys.stdout)
    try:
        yield
    finally:
        _LINES.reset(token)

#: What the engines call: ``progress(phase, done, total=None, info="")``.
ProgressFn = Callable[..., None]


def report(progress: Optional[ProgressFn], phase: str, done: int, total: int | None = None, info: str = "") -> None:
    """Call ``progress`` when there is one (the engines' shorthand)."""
    if progress is not None:
        progress(phase, done, total, info)


class Progress:
    """A rich progress bar on standard error for one command; a context manager and a :data:`ProgressFn`.

    Parameters
    ----------
    label : str
        The command, shown before the phase (``"sim"``, ``"rtl"``).
    quiet : bool
        Show nothing (``--quiet``).
    console : rich.console.Console, optional
        Where to draw; default standard error. Nothing is drawn unless it is a terminal.
    """

    def __init__(self, label: str, *, quiet: bool = False, console: Any = None) -> None:
        self.label = label
        self.phase: str | None = None
        self.bar = None
        self.lines: Optional[IO[str]] = None
        if quiet:
            return
        from rich.console import Console
        self.console = console if console is not None else Console(stderr=True)
        if not self.console.is_terminal:
            self.lines = _LINES.get()  # within progress_lines: a line per tenth of a phase instead of a bar
            self._mark, self._start = 0, time.monotonic()
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress as RichProgress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        self.bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[info]}"),
                                console=self.console, transient=True)
        self.task = self.bar.add_task(label, total=None, info="")

    @property
    def active(self) -> bool:
        """True when a bar is drawn (a terminal, not quiet)."""
        return self.bar is not None

    def __enter__(self) -> "Progress":
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.stop()

    def __call__(self, phase: str, done: int, total: int | None = None, info: str = "") -> None:
        """Show ``done`` of ``total`` (None: not known) in ``phase``; a new phase restarts the clock."""
        if self.bar is None:
            if self.lines is not None:
                self._line(phase, done, total)
            return
        if phase != self.phase:   # a task per phase: its own clock, and a total that may be unknown (None)
            self.phase = phase
            self.bar.remove_task(self.task)
            self.task = self.bar.add_task(f"{self.label} {phase}", total=total, completed=done, info=info)
        else:
            self.bar.update(self.task, total=total, completed=done, info=info)

    def _line(self, phase: str, done: int, total: int | None) -> None:
        if phase != self.phase:
            self.phase, self._mark, self._start = phase, 0, time.monotonic()
        if not total or done < self._mark:
            return
        step = -(-total // 10)
        self._mark = (done // step + 1) * step if done < total else total + 1
        if done == 0:
            return
        label = self.label if self.label.startswith("radixnet") else f"radixnet {self.label}"
        print(f"{label}: {phase} {done}/{total}, {time.monotonic() - self._start:.0f} s", file=self.lines, flush=True)

    def log(self, line: str) -> None:
        """Print ``line`` on standard error (above the bar when one is drawn); nothing when quiet."""
        if self.bar is not None:
            self.bar.console.print(line, highlight=False, markup=False)
        elif getattr(self, "console", None) is not None:
            print(line, file=sys.stderr, flush=True)


class ItemProgress:
    """A line per finished item (above the bar on a terminal, else on stderr) and a :class:`Progress` bar
    of items; nothing when quiet. Sweeps count points, co-simulation matrices configurations.

    Parameters
    ----------
    title : str
        The bar's title (the command).
    unit : str
        What is counted, e.g. ``"points"``.
    total : int
        Items to run.
    quiet : bool
        Show nothing.
    describe : callable
        ``describe(item)``: the item's line.
    """

    def __init__(self, title: str, unit: str, total: int, quiet: bool, describe) -> None:
        self.unit, self.total, self.count, self.describe = unit, total, 0, describe
        self.progress = Progress(title, quiet=quiet)

    def __enter__(self) -> "ItemProgress":
        self.progress.__enter__()
        self.progress(self.unit, 0, self.total)
        return self

    def __exit__(self, *exc) -> None:
        self.progress.__exit__(*exc)

    def __call__(self, item) -> None:
        self.count += 1
        self.progress.log(f"[{self.count}/{self.total}] {self.describe(item)}")
        self.progress(self.unit, self.count, self.total)
