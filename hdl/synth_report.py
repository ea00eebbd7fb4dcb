"""Synthesis report: cells, flip-flops and logic depth of the switch and allocator variants by radix.

``python -m radixnet.hdl.synth_report [--radix 8 16 32] [--designs ...] [--width 64] [--out FILE]
[--jobs N] [--cache DIR] [--force]`` synthesizes each variant with the system
(apt) Yosys and prints a Markdown table. The variants (``--designs``):

``flat``
    :class:`~radixnet.hdl.crossbar.Crossbar` ``(k, k)``: the combinational
    multiplexer crossbar alone (its allocator is elsewhere).
``flat-stream``
    :class:`~radixnet.hdl.crossbar_hier.HierarchicalCrossbar` with ``sub = k``:
    one ``k x k`` subswitch, i.e. a flat crossbar with input FIFOs, ``k``
    round-robin arbiters of ``k`` requesters and output FIFOs, and the same
    stream interface and latency as ``hier`` (the fair comparison).
``hier``
    :class:`~radixnet.hdl.crossbar_hier.HierarchicalCrossbar` with ``sub =``
    :func:`~radixnet.hdl.crossbar_hier.default_sub` ``(k)`` (4 for radix 8 and 16,
    8 for 32 and 64, as YARC).
``alloc-ripple``, ``alloc-prefix``
    ``radixnet.hdl.seq_alloc.build(k, impl)``, the sequential allocator of a
    radix-``k`` router (router-spec §R6). Imported only when asked for; if the
    module or its ``build`` is missing, those rows are left out with a note on
    stderr.

Measurement: the same Yosys flow as :func:`radixnet.hdl.verilog.synth`
(``read_verilog -sv -noassert -noassume; synth -flatten -top TOP; stat``,
parsed by the same code) plus ``ltp -noff``: the **logic depth** is the
number of cells on the longest combinational path (register or port to
register or port) of the mapped netlist, in Yosys's generic gate library
(ABC maps to 2-input gates and 2:1 multiplexers, each one cell). Yosys CPU
time and peak memory (its own and ABC's) are recorded too.

Resume: each row is written to ``CACHE/<variant>.json`` (default
``build/synth``) as soon as it finishes and reused on the next run if its
key matches: the design's parameters, the Yosys script (:data:`SCRIPT`), the
SHA-256 of the code that builds it (the syntax tree, without docstrings, of
its module and of the ``radixnet.hdl`` modules it imports, transitively), the
Amaranth version and the Yosys version. ``--force`` recomputes. Progress
goes to stderr, one line per row started and finished; the table to stdout
and, with ``--out``, to a Markdown file: between the markers
``<!-- synth-report:begin -->`` and ``<!-- synth-report:end -->`` if the file
has them (the prose around them is kept), else as a new document.

Exit status: 0; 1 if a row failed (the others are still reported and
cached); 2 on a bad argument (one line on stderr).

Examples
--------
>>> [v.name for v in variants([8], ["flat", "hier"], width=16)]
['flat-r8-w16', 'hier-r8-p4-d2-w16']
>>> main(["--radix", "1"])
2
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..gen.params import Parser, UsageError

__all__ = ["DESIGNS", "SCRIPT", "Variant", "variants", "run_variant", "render", "main", "sources", "code_digest",
           "write_between_markers", "run_parallel",
           "cached_row", "store_row"]

#: Every variant family, in table order.
DESIGNS = ("flat", "flat-stream", "hier", "alloc-ripple", "alloc-prefix")
BEGIN, END = "<!-- synth-report:begin -->", "<!-- synth-report:end -->"
_HDL = Path(__file__).resolve().parent
_ELABORATE = threading.Lock()  # Amaranth elaboration, one at a time (Yosys runs in parallel)
#: The Yosys script (``{top}`` filled in); :func:`radixnet.hdl.verilog.synth`'s plus ``ltp``. Part of the cache key.
SCRIPT = ("read_verilog -sv -noassert -noassume {top}.v; synth -flatten -top {top}; "
          "tee -q -o stat.txt stat; tee -q -o ltp.txt ltp -noff")


@dataclass
class Variant:
    """One row of the report: a named design at one radix and how to build it.

    Parameters
    ----------
    name : str
        Identifier, also the cache file stem and the Verilog top (``-`` becomes ``_``).
    design : str
        One of :data:`DESIGNS`.
    radix : int
        Router radix ``k``.
    params : dict
        What the row's design depends on (shown in the table, part of the cache key).
    make : callable
        ``() -> Component``.
    module : str
        The ``radixnet.hdl`` module (file stem) that defines the design.
    """

    name: str
    design: str
    radix: int
    params: dict
    make: Callable = field(repr=False)
    module: str = field(repr=False, default="")

    @property
    def top(self) -> str:
        return self.name.replace("-", "_")


def variants(radices, designs, *, width: int = 64, depth: int = 2, alloc_build=None) -> list[Variant]:
    """The report's rows: each design at each radix, grouped by radix.

    Parameters
    ----------
    radices : list of int
        Router radices.
    designs : list of str
        A subset of :data:`DESIGNS`.
    width : int
        Crossbar payload bits.
    depth : int
        FIFO depth (input and output FIFOs) of ``flat-stream`` and ``hier``.
    alloc_build : callable, optional
        ``build(n, impl)`` of ``radixnet.hdl.seq_alloc``; without it the allocator rows are skipped.

    Returns
    -------
    list of Variant
    """
    from amaranth.lib import data

    from .crossbar import Crossbar
    from .crossbar_hier import HierarchicalCrossbar, default_sub

    layout = data.StructLayout({"data": width})
    rows = []
    for k in radices:
        for design in [d for d in DESIGNS if d in designs]:
            if design == "flat":
                rows.append(Variant(f"flat-r{k}-w{width}", design, k, {"width": width},
                                    lambda k=k: Crossbar(k, k, layout), "crossbar"))
            elif design in ("flat-stream", "hier"):
                p = k if design == "flat-stream" else default_sub(k)
                name = f"{design}-r{k}" + (f"-p{p}" if design == "hier" else "") + f"-d{depth}-w{width}"
                rows.append(Variant(name, design, k, {"sub": p, "depth": depth, "width": width},
                                    lambda k=k, p=p: HierarchicalCrossbar(k, k, layout, sub=p, depth=depth,
                                                                          out_depth=depth),
                                    "crossbar_hier"))
            elif alloc_build is not None:
                impl = design.removeprefix("alloc-")
                rows.append(Variant(f"{design}-r{k}", design, k, {"impl": impl},
                                    lambda k=k, impl=impl: alloc_build(k, impl), "seq_alloc"))
    return rows


def _load_alloc_build():
    """``radixnet.hdl.seq_alloc.build`` or None, with a one-line note on stderr."""
    import importlib

    try:
        seq_alloc = importlib.import_module(f"{__package__}.seq_alloc")
    except Exception as exc:  # missing, or mid-edit by its author
        print(f"synth_report: note: allocator rows left out (radixnet.hdl.seq_alloc not importable: "
              f"{type(exc).__name__}: {exc})".splitlines()[0], file=sys.stderr)
        return None
    build = getattr(seq_alloc, "build", None)
    if not callable(build):
        print("synth_report: note: allocator rows left out (radixnet.hdl.seq_alloc has no build(n, impl))",
              file=sys.stderr)
        return None
    return build


def sources(module: str) -> list[Path]:
    """The hdl/ source files a module depends on: itself and its ``from .x import``, transitively."""
    seen, todo = [], [module]
    while todo:
        mod = todo.pop()
        path = _HDL / f"{mod}.py"
        if path in seen or not path.exists():
            continue
        seen.append(path)
        todo += re.findall(r"^\s*from \.(\w+) import", path.read_text(), re.M)
    return sorted(seen)


def code_digest(path: Path) -> bytes:
    """SHA-256 of a module's code: its AST without docstrings, so comment and doc edits keep the cache."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).digest()


def _key(v: Variant, yosys_version: str) -> str:
    import amaranth

    h = hashlib.sha256()
    h.update(json.dumps({"name": v.name, "params": v.params, "amaranth": amaranth.__version__,
                         "yosys": yosys_version, "script": SCRIPT}, sort_keys=True).encode())
    for path in sources(v.module):
        h.update(path.name.encode() + b"\0" + code_digest(path))
    return h.hexdigest()


def _yosys_version(exe: str) -> str:
    # no time limit: a YoWASP Yosys's first run on a machine compiles its WebAssembly (minutes on 2 cores)
    out = subprocess.run([exe, "-V"], capture_output=True, text=True).stdout.strip()
    return out or "unknown"


def _run_yosys(exe: str, verilog_text: str, top: str, timeout: float):
    """Yosys synth + stat + ltp; returns (SynthStats, depth, cpu seconds, peak MB)."""
    from .verilog import SynthError, ToolError, parse_stat

    with tempfile.TemporaryDirectory(prefix="radixnet-synthrep-") as tmp:
        Path(tmp, f"{top}.v").write_text(verilog_text)
        script = SCRIPT.format(top=top)
        proc = subprocess.Popen([exe, "-q", "-p", script], cwd=tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        try:
            output = proc.stdout.read()
            _, status, usage = os.wait4(proc.pid, 0)  # rusage of Yosys and the ABC it waited for
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        proc.stdout.close()
        if proc.returncode == -9:
            raise ToolError(f"synth_report: yosys killed after {timeout} s on {top}")
        if proc.returncode != 0:
            raise SynthError(f"synth_report: yosys failed on {top} (exit {proc.returncode}):\n{output.strip()}")
        stat = Path(tmp, "stat.txt").read_text() if Path(tmp, "stat.txt").exists() else ""
        ltp = Path(tmp, "ltp.txt").read_text() if Path(tmp, "ltp.txt").exists() else ""
    warnings = tuple(ln.strip() for ln in output.splitlines() if "Warning:" in ln)
    stats = parse_stat(top, stat, warnings)
    mt = re.search(r"Longest topological path in \S+ \(length=(\d+)\)", ltp)
    if mt is None:
        raise SynthError(f"synth_report: no longest path in Yosys ltp for {top}:\n{ltp}")
    return stats, int(mt.group(1)), usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def cached_row(path: Path, key: str) -> dict | None:
    """The row cached at ``path`` if it was computed under ``key``; None if missing, unreadable or stale."""
    try:
        row = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return row if isinstance(row, dict) and row.get("key") == key else None


def store_row(path: Path, row: dict) -> None:
    """Write a finished row to its cache file atomically: a killed run leaves no half-written row."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(row, indent=1, sort_keys=True) + "\n")
    tmp.replace(path)


def run_variant(v: Variant, cache: Path, *, yosys: str, yosys_version: str, force: bool = False,
                timeout: float = 14400.0, log=print) -> dict:
    """Synthesize one row, or reuse its cache file; the result dict is written to ``cache/<name>.json``.

    Returns
    -------
    dict
        ``name, design, radix, params, cells, flip_flops, latches, depth, cell_types,
        yosys_cpu_s, yosys_peak_mb, verilog_s, detail, yosys, key`` and ``cached`` (True if reused).
    """
    from .verilog import to_verilog

    path = cache / f"{v.name}.json"
    key = _key(v, yosys_version)
    row = None if force else cached_row(path, key)
    if row is not None:
        log(f"{v.name}: cached ({row['cells']} cells, {row['flip_flops']} FFs, depth {row['depth']})")
        return {**row, "cached": True}
    log(f"{v.name}: generating Verilog")
    t0 = time.monotonic()
    with _ELABORATE:
        component = v.make()
        text = to_verilog(component, v.top)
    detail = ", ".join(f"{label} = {getattr(component, attr)}" for attr, label in
                       (("n_cand", "M"), ("s", "S"), ("q_bits", "q bits")) if hasattr(component, attr))
    t_verilog = time.monotonic() - t0
    log(f"{v.name}: synthesizing ({len(text) // 1000} kB of Verilog)")
    stats, depth, cpu, peak = _run_yosys(yosys, text, v.top, timeout)
    row = {"name": v.name, "design": v.design, "radix": v.radix, "params": v.params,
           "cells": stats.cells, "flip_flops": stats.flip_flops, "latches": stats.latches, "depth": depth,
           "cell_types": stats.cell_types, "yosys_cpu_s": round(cpu, 1), "yosys_peak_mb": round(peak),
           "verilog_s": round(t_verilog, 1), "detail": detail, "yosys": yosys_version, "key": key}
    store_row(path, row)
    log(f"{v.name}: done in {cpu:.0f} s CPU, {peak:.0f} MB ({stats.cells} cells, {stats.flip_flops} FFs, "
        f"depth {depth})")
    return {**row, "cached": False}


def _describe(row: dict) -> str:
    p = row["params"]
    if row["design"] == "flat":
        return f"combinational, {p['width']}-bit"
    if row["design"] in ("flat-stream", "hier"):
        return f"p = {p['sub']}, FIFOs {p['depth']} deep, {p['width']}-bit"
    return ", ".join(x for x in (p.get("impl", ""), row.get("detail", "")) if x)


def render(rows: list[dict], *, command: str, yosys_version: str) -> str:
    """The Markdown block: how it was made and one table (rows in the given order).

    Examples
    --------
    >>> row = {"name": "flat-r8-w16", "design": "flat", "radix": 8, "params": {"width": 16},
    ...        "cells": 896, "flip_flops": 0, "depth": 3, "yosys_cpu_s": 0.3, "yosys_peak_mb": 27}
    >>> print(render([row], command="python -m radixnet.hdl.synth_report", yosys_version="Yosys 0.23"))
    Made by `python -m radixnet.hdl.synth_report` with Yosys 0.23 (`synth -flatten`, generic gates; `ltp -noff`).
    <BLANKLINE>
    | design | radix | parameters | cells | flip-flops | logic depth | Yosys CPU | Yosys peak |
    |---|---:|---|---:|---:|---:|---:|---:|
    | flat | 8 | combinational, 16-bit | 896 | 0 | 3 | 0.3 s | 27 MB |
    """
    lines = [f"Made by `{command}` with {yosys_version} (`synth -flatten`, generic gates; `ltp -noff`).", "",
             "| design | radix | parameters | cells | flip-flops | logic depth | Yosys CPU | Yosys peak |",
             "|---|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        cpu = r["yosys_cpu_s"]
        cpu_s = f"{cpu:.1f} s" if cpu < 60 else f"{cpu / 60:.1f} min"
        lines.append(f"| {r['design']} | {r['radix']} | {_describe(r)} | {r['cells']} | {r['flip_flops']} | "
                     f"{r['depth']} | {cpu_s} | {r['yosys_peak_mb']} MB |")
    return "\n".join(lines) + "\n"


def write_between_markers(path: Path, block: str, *, begin: str, end: str, title: str) -> None:
    """Write ``block`` between the markers ``begin``/``end`` of ``path`` (the prose around is kept); a file
    without them gets the block appended, a missing file a new document with ``title``. Written to a
    temporary name, then renamed: a killed run leaves the old document whole."""
    if path.exists():
        text = path.read_text()
        if begin in text and end in text.split(begin, 1)[1]:
            head, rest = text.split(begin, 1)
            tail = rest.split(end, 1)[1]
            text = f"{head}{begin}\n{block}{end}{tail}"
        else:
            text = f"{text.rstrip()}\n\n{begin}\n{block}{end}\n"
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = f"# {title}\n\n{begin}\n{block}{end}\n"
    from ..gen.params import replacing
    with replacing(path) as tmp:
        tmp.write_text(text)


def _write_out(path: Path, block: str) -> None:
    write_between_markers(path, block, begin=BEGIN, end=END, title="Synthesis report")


def run_parallel(items, work, *, jobs: int, name_of) -> tuple[list, int]:
    """``work(item, log)`` for every item, ``jobs`` at a time; ``log`` prints ``[i/n] message`` on stderr.

    Returns the results of the items that finished, in the items' order, and the number that raised (each
    failure is logged in one line; one bad row does not lose the others).
    """
    n = len(items)
    lock = threading.Lock()

    def log_for(i: int):
        def log(msg: str):
            with lock:
                print(f"[{i + 1}/{n}] {msg}", file=sys.stderr, flush=True)
        return log

    results: dict[int, object] = {}
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(work, item, log_for(i)): i for i, item in enumerate(items)}
        for fut in concurrent.futures.as_completed(futures):
            i = futures[fut]
            try:
                results[i] = fut.result()
            except Exception as exc:
                failed += 1
                log_for(i)(f"{name_of(items[i])}: FAILED: "
                           f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")
    return [results[i] for i in sorted(results)], failed


def _int_at_least(lo: int, what: str):
    def parse(s: str) -> int:
        try:
            value = int(s)
        except ValueError:
            value = None
        if value is None or value < lo:
            raise argparse.ArgumentTypeError(f"{what} must be an integer >= {lo} (got {s!r})")
        return value
    return parse


def _parser() -> Parser:
    p = Parser(name="synth_report", prog="python -m radixnet.hdl.synth_report",
               description="Yosys cells, flip-flops and logic depth of the crossbar and allocator variants.")
    p.add_argument("--radix", nargs="+", type=_int_at_least(2, "--radix"), default=[8, 16, 32],
                   help="router radices (default 8 16 32; 64 takes tens of minutes and GBs per row)")
    p.add_argument("--designs", nargs="+", choices=DESIGNS, default=list(DESIGNS), metavar="DESIGN",
                   help=f"variants, from {', '.join(DESIGNS)} (default all)")
    p.add_argument("--width", type=_int_at_least(1, "--width"), default=64, help="crossbar payload bits (64)")
    p.add_argument("--depth", type=_int_at_least(2, "--depth"), default=2,
                   help="FIFO depth of flat-stream and hier (2)")
    p.add_argument("--out", type=Path, help="also write the table to this Markdown file")
    p.add_argument("--cache", type=Path, default=Path("build/synth"), help="row cache directory (build/synth)")
    p.add_argument("--jobs", type=_int_at_least(1, "--jobs"), default=1, help="Yosys runs at once (1)")
    p.add_argument("--force", action="store_true", help="ignore the cache")
    p.add_argument("--timeout", type=_int_at_least(1, "--timeout"), default=14400,
                   help="seconds per Yosys run (14400)")
    p.add_argument("--yosys", default="yosys", help="the Yosys executable (the apt one)")
    return p


def main(argv=None) -> int:
    """Command line; returns the exit status (2 on a bad argument, with one line on stderr)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = _parser().parse_args(argv)
        if args.radix != sorted(set(args.radix)):
            args.radix = sorted(set(args.radix))
        from .verilog import ToolError, find_tool
        try:
            yosys = find_tool(args.yosys, "--yosys")
        except ToolError as exc:
            raise UsageError(f"synth_report: error: {exc}") from None
    except UsageError as exc:
        print(str(exc).splitlines()[0], file=sys.stderr)
        return 2
    alloc = _load_alloc_build() if any(d.startswith("alloc-") for d in args.designs) else None
    rows = variants(args.radix, args.designs, width=args.width, depth=args.depth, alloc_build=alloc)
    version = _yosys_version(yosys)
    done, failed = run_parallel(
        rows, lambda v, log: run_variant(v, args.cache, yosys=yosys, yosys_version=version, force=args.force,
                                         timeout=args.timeout, log=log), jobs=args.jobs, name_of=lambda v: v.name)
    command = "python -m radixnet.hdl.synth_report " + " ".join(argv) if argv else \
        "python -m radixnet.hdl.synth_report"
    block = render(done, command=command.strip(), yosys_version=version)
    print(block, end="")
    if args.out is not None:
        _write_out(args.out, block)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
