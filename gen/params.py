"""Validated parameters: the one place a family's parameters are checked.

Each family declares its parameters as :class:`Param` objects (name, type,
default, a one-line doc, and the allowed range or choices) plus an optional
cross-parameter check. :func:`validate` turns raw values (from Python or the
CLI's strings) into a checked dict, or raises :class:`ParamError` whose message
names the parameter and what is allowed: the CLI prints it as one line and
exits with status 2.

Examples
--------
>>> p = Param("k", int, 4, "routers per dimension", minimum=2)
>>> validate([p], {"k": "8"})
{'k': 8}
>>> validate([p], {"k": 1})
Traceback (most recent call last):
...
radixnet.gen.params.ParamError: --k: must be an integer >= 2 (got 1)
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

__all__ = ["Param", "ParamError", "UsageError", "Parser", "validate", "REQUIRED", "check_out_dir", "check_out_file",
           "read_text_file", "replacing"]


class UsageError(Exception):
    """Bad command-line input; every command prints it as one line and exits with status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one-line :class:`UsageError` exceptions, ``NAME: error: ...``.

    Parameters
    ----------
    name : str, optional
        The command's name in its errors (default: ``prog``).
    """

    def __init__(self, *args, name: str | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.name = name or self.prog

    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(f"{self.name}: error: {message}")


class ParamError(ValueError):
    """A bad parameter value; ``str()`` is the one-line message for users."""

    def __init__(self, name: str, message: str) -> None:
        self.name = name
        # one line whatever it quotes (a file name with a newline): control characters as Python escapes
        message = str(message)
        self.message = message if message.isprintable() else "".join(
            c if c.isprintable() else repr(c)[1:-1] for c in message)
        super().__init__(f"--{name.replace('_', '-')}: {self.message}")

    def __reduce__(self):  # picklable: a worker process's error reaches the parent as the same one line
        return (type(self), (self.name, self.message))


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()

@dataclass(frozen=True)
class Param:
    """One parameter of a family.

    Parameters
    ----------
    name : str
        Python name (the CLI flag is ``--name`` with ``_`` → ``-``).
    type : type
        ``int``, ``float``, ``str``, ``bool`` or ``list`` (list of ints, written ``4,4,8``).
    default : object
        Default value, :data:`REQUIRED`, or ``None`` for "derived from the others".
    help : str
        One line for ``--help`` and the docs.
    minimum, maximum : number, optional
        Inclusive bounds (for lists: per element).
    choices : sequence, optional
        Allowed values.
    """

    name: str
    type: type
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: Sequence[Any] | None = None

    def allowed(self) -> str:
        if self.choices is not None:
            return "one of " + ", ".join(str(c) for c in self.choices)
        kind = {int: "an integer", float: "a number", str: "a string", bool: "true or false",
                list: "a comma-separated list of integers"}[self.type]
        if self.minimum is not None and self.maximum is not None:
            return f"{kind} in [{_fmt(self.minimum)}, {_fmt(self.maximum)}]"
        if self.minimum is not None:
            return f"{kind} >= {_fmt(self.minimum)}"
        if self.maximum is not None:
            return f"{kind} <= {_fmt(self.maximum)}"
        return kind

    def convert(self, raw: Any) -> Any:
        if raw is None:
            return None
        try:
            value = _convert(self.type, raw)
        except (TypeError, ValueError):
            raise ParamError(self.name, f"must be {self.allowed()} (got {raw!r})") from None
        items = value if self.type is list else [value]
        if self.type is list and not items:
            raise ParamError(self.name, f"must be {self.allowed()} (got an empty list)")
        for v in items:
            if self.choices is not None and v not in self.choices:
                raise ParamError(self.name, f"must be {self.allowed()} (got {raw})")
            if (self.minimum is not None and v < self.minimum) or (self.maximum is not None and v > self.maximum):
                raise ParamError(self.name, f"must be {self.allowed()} (got {raw})")
        return value


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _convert(kind: type, raw: Any) -> Any:
    if kind is bool:
        if isinstance(raw, bool):
            return raw
        s = str(raw).strip().lower()
        if s in ("1", "true", "yes", "on"):
            return True
        if s in ("0", "false", "no", "off"):
            return False
        raise ValueError(raw)
    if kind is int:
        if isinstance(raw, bool):
            raise TypeError(raw)
        if isinstance(raw, float):
            if not raw.is_integer():
                raise ValueError(raw)
            return int(raw)
        return int(str(raw).strip(), 0) if isinstance(raw, str) else int(raw)
    if kind is float:
        return float(raw)
    if kind is list:
        if isinstance(raw, str):
            parts = [p for p in raw.replace("x", ",").split(",") if p.strip()]
            return [int(p, 0) for p in parts]
        return [_convert(int, v) for v in raw]
    return str(raw)


def validate(params: Sequence[Param], values: dict[str, Any],
             check: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Convert and check ``values`` against ``params``; fill defaults.

    Raises
    ------
    ParamError
        Unknown name, missing required value, wrong type or range, or a failed
        cross-parameter ``check``.
    """
    known = {p.name: p for p in params}
    for name in values:
        if name not in known:
            allowed = ", ".join("--" + n.replace("_", "-") for n in known) or "none"
            raise ParamError(name, f"unknown parameter (this family takes {allowed})")
    out: dict[str, Any] = {}
    for p in params:
        raw = values.get(p.name, None)
        if raw is None:
            if p.default is REQUIRED:
                raise ParamError(p.name, f"is required ({p.help}; {p.allowed()})")
            out[p.name] = p.default
        else:
            out[p.name] = p.convert(raw)
    if check is not None:
        check(out)
    return out


# ------------------------------------------------------------------ output paths
def read_text_file(path: Any, limit: int, what: str = "the file") -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes; ValueError with the reason in a few words.

    A FIFO, a device or a directory is refused without reading (opened non-blocking: a FIFO without a writer
    does not hang); the size is checked before reading and again after (a file that grew).
    """
    too_big = f"{what} is at most {limit:,} bytes"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise ValueError(e.strerror or str(e)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if st.st_size > limit:
            raise ValueError(too_big)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
    except OSError as e:
        raise ValueError(e.strerror or str(e)) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ValueError(too_big)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("not UTF-8 text") from None


def _nearest_existing(path: Path) -> Path:
    p = path.absolute()
    while not os.path.lexists(p) and p != p.parent:
        p = p.parent
    return p


def check_out_dir(path: Any, name: str = "out") -> Path:
    """Check, before any work, that ``path`` can be (or is) a directory radixnet may write into.

    Nothing is created: an existing directory is probed with a temporary file, a missing one by
    creating (and removing) a temporary directory in its nearest existing ancestor.

    Raises
    ------
    ParamError
        Naming ``--name``: an empty string, an existing file, or a place that cannot be written.

    Examples
    --------
    >>> check_out_dir("")
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --out: must name a directory (got an empty string)
    """
    text = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if text is None or not str(text).strip():
        raise ParamError(name, "must name a directory (got an empty string)")
    p = Path(text)
    try:
        if p.exists() and not p.is_dir():
            raise ParamError(name, f"{text} exists and is not a directory")
        base = p if p.is_dir() else _nearest_existing(p)
        if not base.is_dir():
            raise ParamError(name, f"cannot create directory {text}: {base} is not a directory")
    except OSError as e:
        raise ParamError(name, f"cannot use {text}: {e.strerror or e}") from None
    try:
        if base == p:
            with tempfile.TemporaryFile(dir=base):
                pass
        else:
            os.rmdir(tempfile.mkdtemp(prefix=".radixnet-probe-", dir=base))
    except OSError as e:
        what = f"write into {text}" if base == p else f"create directory {text} (in {base})"
        raise ParamError(name, f"cannot {what}: {e.strerror or e}") from None
    return p


def check_out_file(path: Any, name: str) -> Path:
    """Check, before any work, that ``path`` names a file radixnet may create or overwrite.

    Raises
    ------
    ParamError
        Naming ``--name``: an empty string, a directory, or a place that cannot be written.
    """
    text = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if text is None or not str(text).strip():
        raise ParamError(name, "must name a file (got an empty string)")
    p = Path(text)
    try:   # a name the file system refuses (too long, ...) is an error of the parameter, not a traceback
        if p.is_dir():
            raise ParamError(name, f"{text} is a directory, not a file")
        parent = p.absolute().parent
        if not parent.is_dir():
            raise ParamError(name, f"cannot write {text}: {parent} is not a directory")
        if p.exists() and not os.access(p, os.W_OK):
            raise ParamError(name, f"cannot write {text}: permission denied")
        if not p.exists() and not os.access(parent, os.W_OK | os.X_OK):
            raise ParamError(name, f"cannot write {text}: cannot create files in {parent}")
    except OSError as e:
        raise ParamError(name, f"cannot write {_short_path(text)}: {e.strerror or e}") from None
    return p


def _short_path(text: str) -> str:
    """A path for a one-line message: a long one by its start and end."""
    return text if len(text) <= 80 else f"{text[:40]}...{text[-30:]}"


#: errors of a write that fails midway for want of room (a full disk, a quota, ``/dev/full``): not bad input,
#: the environment; a command ends with one line and exit 1 (radixnet.cli.write_failure)
OUT_OF_ROOM = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO)


@contextlib.contextmanager
def replacing(path: Any) -> Iterator[Path]:
    """A temporary path beside ``path`` to write; renamed over ``path`` when the block ends without an error.

    A write that fails (a full disk) leaves ``path`` as it was and no temporary behind: never half a file.
    The temporary keeps the suffix (matplotlib takes the format from it). A ``path`` that exists and is not
    a regular file (``/dev/stdout``, a FIFO) is yielded itself; a link to a file has its file replaced.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> with replacing(d / "a.txt") as tmp:
    ...     _ = tmp.write_text("whole")
    >>> sorted(os.listdir(d)), (d / "a.txt").read_text()
    (['a.txt'], 'whole')
    >>> try:
    ...     with replacing(d / "a.txt") as tmp:
    ...         _ = tmp.write_text("half")
    ...         raise OSError(28, "No space left on device")
    ... except OSError:
    ...     pass
    >>> sorted(os.listdir(d)), (d / "a.txt").read_text()
    (['a.txt'], 'whole')
    """
    p = Path(path)
    try:
        in_place = not stat.S_ISREG(os.stat(p).st_mode)
    except OSError:  # not there yet (or not reachable: the write says why)
        in_place = False
    if in_place:
        yield p
        return
    real = Path(os.path.realpath(p))
    tmp = real.with_name(f".{real.stem[:40]}.{os.getpid()}.tmp{real.suffix[:16]}")
    try:
        yield tmp
        os.replace(tmp, real)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
