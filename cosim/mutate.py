"""Mutation testing of the RTL: plant each bug of a catalogue, run the checks, tabulate the kills.

``make mutate`` or ``python -m radixnet.cosim.mutate`` reads the catalogue (``cosim/mutations.toml``:
per mutant an ``id``, the ``file``, the exact ``find`` text, which must occur once, its ``replace``ment,
the bug ``class`` and a one-line ``desc``), and for each mutant:

1. copies the package (``radixnet`` with ``gen``, ``golden``, ``hdl``, ``cosim`` as subpackages, as
   ``pyproject.toml``'s ``package-dir`` lays it out) from a **snapshot** of the working tree taken at
   the start of the run, and applies the one textual mutation to the copy (the tree is never
   touched: other people run tests from it). Only the subpackage holding the mutated file is copied;
   the others are links into the snapshot;
2. runs **the checks** against the copy: each stage is one ``pytest -x`` process with
   ``PYTHONPATH`` at the copy (``python -P``, from a directory outside the tree; the plugin
   :mod:`radixnet.cosim.mutate_probe` refuses to run when ``radixnet`` is imported from anywhere
   else), and the first failing test kills the mutant and ends its checks;
3. records the result at once (``results.jsonl`` in the output directory), so that an interrupted
   run resumes where it stopped.

The default checks (:data:`DEFAULT_CHECKS`) are part of the default test suite (``make test``):
the RTL unit tests that need no Verilator build (Amaranth simulation of the arbiters, credit counters,
input units, VC choice, decision units against the golden ``_decide``, the router against its
reference model, the AXI4-Stream ports), then a selection of the co-simulations of
``tests/test_cosim*.py`` and ``tests/test_egress.py`` covering each router model, allocator, routing
family, speedup and terminal kind. ``--checks`` replaces them.

Before any mutant the unmutated snapshot must pass the checks, else the run stops with one line.
A mutant is **killed** by the first test that fails (``build`` when the generator crashed or the
design did not build, ``timeout`` when its checks ran past ``--timeout``) and **survives** when every
check passes. A survivor whose every co-simulated design has the unmutated Verilog, byte for byte
(the builds are keyed by the Verilog's hash), is **dropped**: it is not a mutant of anything the
checks build. The score is killed / (killed + survived).

Co-simulation builds go into one cache (``--cache``, default ``build/mutate/cache``), keyed by the
Verilog, so a design a mutant does not change is never rebuilt; finished builds of the same Verilog
in the repository's ``build/cosim`` are linked rather than rebuilt (``--no-seed`` turns that off). A
mutant's own builds are deleted when it is done (``--keep-builds`` keeps them). The unmutated run
also stores every co-simulation's verdict under a hash of the Verilog and the job; a mutant of
``hdl/`` (whose golden model and testbenches are the unmutated ones) takes that verdict for a design
it leaves byte for byte unchanged instead of simulating it again (Verilator is deterministic), so a
mutant costs the builds and simulations of the designs it does change.

Output (``--out``, default ``build/mutate``): ``kill-table.md``, ``kill-table.csv``,
``kill-table.json``, ``results.jsonl`` and ``logs/<id>.log`` (the checks' output).

Examples
--------
>>> cat = load_catalogue()
>>> len(cat) >= 25 and len({m.id for m in cat}) == len(cat)
True
>>> apply(Mutant("x", "hdl/a.py", "a < b", "a <= b", "inverted compare", "demo"), "c = a < b")
'c = a <= b'
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..gen.params import read_text_file

__all__ = ["Mutant", "DEFAULT_CHECKS", "CATALOGUE", "SUMMARY_LINE", "load_catalogue", "apply", "classify", "main"]

#: the catalogue kept in the repository
CATALOGUE = Path(__file__).with_name("mutations.toml")

#: the package's subpackages and where they live in the repository (pyproject.toml's package-dir)
SUBPACKAGES = ("gen", "golden", "hdl", "cosim")
#: a catalogue or an ``@FILE`` of checks is a regular UTF-8 text file of at most this many bytes
MAX_TEXT_BYTES = 1 << 20
#: ``--jobs`` at most (as ``radixnet sweep``'s) and ``--timeout`` at most (seconds: a week)
MAX_JOBS = 256
MAX_TIMEOUT = 7 * 24 * 3600.0

#: the default checks: stages of pytest arguments, run in order with ``-x`` (the first failure kills).
#: All of them are in the default test suite. The unit stage needs no Verilator build (seconds per
#: mutant); the co-simulations are ordered so that the designs most mutants change come first.
DEFAULT_CHECKS = [
    "tests/test_hdl_rr_helpers.py tests/test_hdl_units.py tests/test_hdl_router_units.py tests/test_hdl_router.py "
    "tests/test_hdl_route_adaptive.py tests/test_hdl_axis.py tests/test_hdl_hiradix.py tests/test_hdl_subswitch.py "
    "tests/test_hdl_seq_alloc.py::test_wavefront_matches_model tests/test_hdl_seq_alloc.py::test_wavefront_small_patterns "
    "tests/test_hdl_decision_line.py tests/test_hdl_seq_alloc.py::test_rtl_single_candidate_exhaustive "
    "-k 'not yosys and not synthesizes and not make_rtl and not rtlgen'",
    " ".join([
        # single-cycle, table routing, AXI4-Stream terminals: wormhole packets past saturation
        "tests/test_cosim.py::test_multiflit_packets_above_saturation_exercise_backpressure",
        "tests/test_cosim.py::test_flit_level_network_top",
        # the sequential allocator (§R6) whole-network (ugal-s, one-slot egress FIFOs, sinks that stall), then
        # the adaptive routings decided in logic (Kim §3.1) one router at a time: ugal (greedy), clos-ad and
        # 2dfb-adaptive (sequential)
        "tests/test_egress.py::test_flit_sinks_with_one_slot_under_the_sequential_allocator",
        "tests/test_cosim.py::test_router_level_adaptive_routings",
        # the iq router (§R10): the switch top, the ejection queue, the greedy and the sequential VA
        "tests/test_cosim_iq.py::test_tiny_network_multiflit_past_saturation",
        "'tests/test_cosim_iq.py::test_smallest_buffers[1]'",
        "'tests/test_cosim_iq.py::test_router_level[fbfly-params5-ugal-kw5]'",
        "'tests/test_cosim_iq.py::test_router_level[fbfly-params6-clos-ad-kw6]'",
        # speedup 2 (§R8b)
        "tests/test_cosim_speedup.py::test_single_cycle_bypass_and_full_ejection_queue",
        # speedup 2, the sequential allocator and multi-flit packets together under single-cycle and iq, then
        # min-ad's second VA grant at speedup 2
        "'tests/test_cosim_corners.py::test_sequential_speedup2_multiflit[single-cycle-2-ary-3-flat]'",
        "'tests/test_cosim_corners.py::test_sequential_speedup2_multiflit[iq-2-ary-3-flat]'",
        "tests/test_cosim_speedup.py::test_greedy_va_second_vc",
        # sinks that stall (§R3a)
        "'tests/test_egress.py::test_axis_sinks_that_drop_tready_at_random[single-cycle-1-seeds0]'",
        # the hiradix router (§R11): RI's copy, GO's checks, ST's bindings (speedup 2 on the switch top, speedup 1
        # with one-flit buffers, a greedy adaptive routing at router level, UGAL-S's sequential RI)
        "'tests/test_cosim_hiradix.py::test_tiny_network_multiflit_past_saturation[2]'",
        "'tests/test_cosim_hiradix.py::test_smallest_buffers[1]'",
        "'tests/test_cosim_hiradix.py::test_router_level[fbfly-params2-ugal-kw2]'",
        "tests/test_cosim_hiradix.py::test_sequential_ri_ugal_s",
        "tests/test_cosim_hiradix.py::test_decision_line_ugal_s",
        # hiradix-local (§R11.6): LO in groups of two on the switch top
        "tests/test_cosim_hiradix.py::test_local_tiny_network_multiflit_past_saturation",
        # hiradix-staged (§R11.7): LO and ST2 in cycles of their own, u(v) up to 3, the ejection queue with ST2
        "tests/test_cosim_hiradix.py::test_staged_tiny_network_multiflit_past_saturation",
        "'tests/test_cosim_hiradix.py::test_staged_smallest_buffers[1]'",
        # hiradix-decoupled (§R11.8): u(v) without LO's verdict of the cycle before, greedy and with UGAL-S's chain
        "tests/test_cosim_hiradix.py::test_decoupled_tiny_network_multiflit_past_saturation",
        "'tests/test_cosim_hiradix.py::test_local_sequential_ri_ugal_s[hiradix-decoupled]'",
        # hiradix-twohead (§R11.9): second heads asked beside the first, taken from behind the front
        "tests/test_cosim_hiradix.py::test_twohead_tiny_network_single_flit_past_saturation",
        # hiradix-relay (§R11.10): the request loop's relays, u(v) up to 5, GO's flit count over five grants
        "tests/test_cosim_hiradix.py::test_relay_tiny_network_single_flit_past_saturation",
        "tests/test_cosim_hiradix.py::test_relay_tiny_network_streaming_bodies",
        "'tests/test_cosim_hiradix.py::test_two_level_decision_line_ugal_s[hiradix-relay]'",
        # hiradix-relay1 (§R11.11): the relays with one head of a VC in flight
        "tests/test_cosim_hiradix.py::test_relay1_tiny_network_single_flit_past_saturation",
        # the decision line under hiradix-staged (§R11.6): LO and GO in the service order
        "'tests/test_cosim_hiradix.py::test_two_level_decision_line_ugal_s[hiradix-staged]'",
        # the subswitch router (§R12): row and column buffers, SA's holds and choices, GO, egress credits
        "tests/test_cosim_subswitch.py::test_tiny_network_multiflit_past_saturation",
        "tests/test_cosim_subswitch.py::test_stalling_sinks_one_port_groups",
    ]),
]


class MutateError(Exception):
    """A one-line reason the run cannot go on (bad arguments, a catalogue entry, a failing baseline)."""


@dataclass(frozen=True)
class Mutant:
    """One catalogue entry: replace ``find`` (exactly one occurrence) by ``replace`` in ``file``."""

    id: str
    file: str
    find: str
    replace: str
    cls: str
    desc: str

    @property
    def digest(self) -> str:
        """Hash of what the mutant does (a changed entry is run again on resume)."""
        return hashlib.sha1(json.dumps([self.file, self.find, self.replace]).encode()).hexdigest()[:12]


def _show(text: Any) -> str:
    """``text`` as one printable line (control characters escaped), for messages."""
    t = str(text)
    return t if t.isprintable() else repr(t)[1:-1]


def read_text(path: str | os.PathLike, shown: str) -> str:
    """The text of a regular UTF-8 file of at most :data:`MAX_TEXT_BYTES`, or MutateError starting ``shown``
    (the option and the file, e.g. ``--catalogue FILE``; :func:`radixnet.gen.params.read_text_file`)."""
    try:
        return read_text_file(path, MAX_TEXT_BYTES)
    except ValueError as e:
        raise MutateError(f"{shown}: {e}") from None


def load_catalogue(path: str | os.PathLike = CATALOGUE) -> list[Mutant]:
    """The mutants of a catalogue file, validated: every field present, ids unique and plain, a real change.

    Raises
    ------
    MutateError
        One line: the file is not a regular UTF-8 text file (:func:`read_text`) or not TOML, ``mutant`` is not
        an array of tables, or an entry lacks a field, repeats an id or changes nothing.
    """
    shown = f"--catalogue {_show(os.fspath(path))}"
    try:
        raw = tomllib.loads(read_text(path, shown))
    except tomllib.TOMLDecodeError as e:
        raise MutateError(f"{shown}: not valid TOML ({_show(e)})") from None
    except RecursionError:  # nesting past the parser's stack
        raise MutateError(f"{shown}: not valid TOML (nested too deeply)") from None
    entries = raw.get("mutant", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise MutateError(f"{shown}: mutant must be an array of [[mutant]] tables (got {type(entries).__name__})")
    out, seen = [], set()
    for i, e in enumerate(entries):
        missing = [k for k in ("id", "file", "find", "replace", "class", "desc") if not isinstance(e.get(k), str)]
        if missing:
            raise MutateError(f"{shown}: mutant #{i + 1} ({_show(e.get('id', '?'))}) lacks {', '.join(missing)}")
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", e["id"]) or e["id"] in seen:
            raise MutateError(f"{shown}: mutant id {_show(repr(e['id']))} is not unique or not a plain name")
        if e["find"] == e["replace"] or not e["find"]:
            raise MutateError(f"{shown}: mutant {e['id']} changes nothing")
        seen.add(e["id"])
        out.append(Mutant(e["id"], e["file"], e["find"], e["replace"], e["class"], e["desc"]))
    if not out:
        raise MutateError(f"{shown}: no [[mutant]] entries")
    return out


def package_path(file: str) -> Path:
    """Where repository file ``file`` lives in the installed layout: ``hdl/router.py`` -> ``radixnet/hdl/router.py``."""
    parts = Path(file).parts
    if parts and parts[0] == "radixnet":
        parts = parts[1:]
    if not parts or (len(parts) > 1 and parts[0] not in SUBPACKAGES):
        raise MutateError(f"mutant file {file!r} is not in the package ({', '.join(SUBPACKAGES)} or radixnet/)")
    return Path("radixnet", *parts)


def apply(mutant: Mutant, text: str) -> str:
    """``text`` with the mutation applied; MutateError unless ``find`` occurs exactly once."""
    n = text.count(mutant.find)
    if n != 1:
        raise MutateError(f"mutant {mutant.id}: its find text occurs {n} times in {mutant.file} (must be once)")
    return text.replace(mutant.find, mutant.replace)


# ------------------------------------------------------------------ the snapshot and the mutated copies
def repo_root() -> Path:
    """The repository this module was installed from (editable install), or MutateError."""
    root = Path(__file__).resolve().parents[1]
    if not is_repo(root):
        raise MutateError(f"cannot find the repository (looked at {root}); give --repo")
    return root


def is_repo(root: Path) -> bool:
    """Whether ``root`` has the layout a snapshot copies: pyproject.toml, tests/, radixnet/ and the subpackages."""
    try:
        return ((root / "pyproject.toml").is_file() and (root / "tests").is_dir() and (root / "radixnet").is_dir()
                and all((root / d).is_dir() for d in SUBPACKAGES))
    except OSError:
        return False


def snapshot(repo: Path, dest: Path) -> str:
    """Copy the package, the tests and pyproject.toml of ``repo`` to ``dest`` (``dest/pkg/radixnet``, ``dest/tests``);
    return a hash of the copied sources. Copies keep their modification times (numba's on-disk cache of the
    golden kernel stays valid)."""
    if dest.exists():
        shutil.rmtree(dest)
    pkg = dest / "pkg" / "radixnet"
    pkg.mkdir(parents=True)
    for name in SUBPACKAGES:
        shutil.copytree(repo / name, pkg / name, symlinks=False)
    for f in sorted((repo / "radixnet").glob("*.py")):
        shutil.copy2(f, pkg / f.name)
    shutil.copytree(repo / "tests", dest / "tests", ignore=shutil.ignore_patterns("__pycache__", ".hypothesis"))
    shutil.copy2(repo / "pyproject.toml", dest / "pyproject.toml")
    h = hashlib.sha1()
    for f in sorted([*pkg.rglob("*.py"), *pkg.rglob("*.toml"), *(dest / "tests").rglob("*.py")]):
        if "__pycache__" not in f.parts:
            h.update(str(f.relative_to(dest)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def mutated_copy(snap: Path, work: Path, mutant: Mutant | None) -> Path:
    """A package root under ``work`` for ``mutant`` (None: the snapshot itself): links into the snapshot, except
    a real copy of the subpackage (or top-level file) the mutation changes. Returns the root for PYTHONPATH."""
    src = snap / "pkg"
    if mutant is None:
        return src
    rel = package_path(mutant.file)
    root = work / "pkg"
    if root.exists():
        shutil.rmtree(root)
    (root / "radixnet").mkdir(parents=True)
    top = rel.parts[1]   # the subpackage, or the top-level module's file name
    for child in sorted((src / "radixnet").iterdir()):
        dst = root / "radixnet" / child.name
        if child.name == top and child.is_dir():
            shutil.copytree(child, dst)
        elif child.name == top:
            shutil.copy2(child, dst)
        else:
            dst.symlink_to(child, target_is_directory=child.is_dir())
    target = root / rel
    if not target.exists():
        raise MutateError(f"mutant {mutant.id}: {mutant.file} does not exist")
    text = apply(mutant, target.read_text())
    try:
        compile(text, str(target), "exec")
    except SyntaxError as e:
        raise MutateError(f"mutant {mutant.id}: the replacement is not valid Python ({e.msg}, line {e.lineno})")
    target.write_text(text)
    return root


# ------------------------------------------------------------------ running the checks
#: pytest's short summary line (one space after the word: a captured log record at level ERROR has several)
SUMMARY_LINE = re.compile(r"^(FAILED|ERROR) (?! )(.+?)(?: - (.*))?$", re.M)


def classify(message: str, log: str) -> str:
    """How a failure killed: ``build`` (the generator crashed or the design did not build), ``test`` (a check's
    assertion failed) or ``error`` (anything else, e.g. the simulation did not run)."""
    first = message.split("\n", 1)[0]
    if "CosimError" in first and "build failed" in first:
        return "build"
    kind = first.split(":", 1)[0].strip()
    if kind.endswith("AssertionError") or first.startswith("assert") or kind.endswith("Failed"):
        return "test"
    if "CosimError" in kind:
        return "error"
    # an exception raised while the design was elaborated or converted: a frame in hdl/ or amaranth
    if re.search(r"(/radixnet/hdl/|/amaranth/)\S*\.py:\d+", log) or kind in ("SyntaxError", "ImportError",
                                                                             "ModuleNotFoundError"):
        return "build"
    return "error"


@dataclass
class Outcome:
    """What the checks of one tree did."""

    passed: bool
    kind: str = ""        # test | build | error | timeout (not passed)
    by: str = ""          # the node id that failed
    message: str = ""
    stage: int = -1
    seconds: float = 0.0
    designs: tuple = ()   # (test, design, build_s) per co-simulation build or reuse
    stage_seconds: tuple = ()


def _stage_args(stage: str, snap: Path) -> list[str]:
    args = shlex.split(stage)
    return [str(snap / a) if a.startswith("tests/") else a for a in args]


def run_checks(root: Path, work: Path, snap: Path, checks: list[str], *, cache: Path, seed: Path | None,
               timeout: float, log: Path, memo: Path | None = None, memo_mode: str = "read") -> Outcome:
    """Run the check stages on the package at ``root`` (PYTHONPATH), from ``work``; stop at the first failure.

    ``memo`` (a directory): co-simulation verdicts are stored there (``memo_mode="write"``) or taken from
    there for the same Verilog and job (``"read"``; :mod:`radixnet.cosim.mutate_probe`)."""
    work.mkdir(parents=True, exist_ok=True)
    dlog = work / "designs.jsonl"
    dlog.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RADIXNET_COSIM_JOB", "PYTEST_"))}
    env.update(PYTHONPATH=str(root), RADIXNET_MUTATE_ROOT=str(root), RADIXNET_MUTATE_CACHE=str(cache),
               RADIXNET_MUTATE_LOG=str(dlog), COLUMNS="400", PYTHONUNBUFFERED="1")
    if seed is not None:
        env["RADIXNET_MUTATE_SEED"] = str(seed)
    if memo is not None:
        env.update(RADIXNET_MUTATE_MEMO=str(memo), RADIXNET_MUTATE_MEMO_MODE=memo_mode)
    t0 = time.monotonic()
    out = Outcome(passed=True)
    stage_s = []
    with open(log, "w") as lf:
        for i, stage in enumerate(checks):
            cmd = [sys.executable, "-P", "-m", "pytest", "-x", "-q", "--tb=short", "-rfE", "-p", "no:cacheprovider",
                   "-p", "radixnet.cosim.mutate_probe", f"--rootdir={snap}", "-c", str(snap / "pyproject.toml"),
                   f"--basetemp={work / 'tmp'}", "--hypothesis-seed=0", *_stage_args(stage, snap)]
            lf.write(f"$ {shlex.join(cmd)}\n")
            lf.flush()
            left = timeout - (time.monotonic() - t0)
            ts = time.monotonic()
            proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    text=True, start_new_session=True)
            try:
                text, _ = proc.communicate(timeout=max(left, 1))
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                text = (proc.communicate()[0] or "")
                lf.write(text)
                stage_s.append(time.monotonic() - ts)
                out = Outcome(False, "timeout", f"stage {i + 1}", f"checks still running after {timeout:.0f} s", i)
                break
            lf.write(text)
            stage_s.append(time.monotonic() - ts)
            if proc.returncode == 0:
                continue
            m = SUMMARY_LINE.search(text)
            if m:
                by, message = m.group(2), (m.group(3) or "").strip()
                at = by.find("tests/")   # node ids come relative to the working directory
                by = by[at:] if at > 0 else by
                out = Outcome(False, classify(message, text), by, message, i)
            elif proc.returncode == 5:
                out = Outcome(False, "error", f"stage {i + 1}", "the stage collected no tests", i)
            else:
                tail = [ln for ln in text.strip().splitlines() if ln.strip()][-1:] or [""]
                out = Outcome(False, classify(tail[0], text), f"stage {i + 1}",
                              f"pytest exit status {proc.returncode}: {tail[0][:300]}", i)
            break
    out.seconds = time.monotonic() - t0
    out.stage_seconds = tuple(round(s, 1) for s in stage_s)
    if dlog.exists():
        out.designs = tuple((d["test"], d["design"], d["build_s"]) for d in map(json.loads, dlog.read_text().splitlines()))
    return out


def _kill_group(proc: subprocess.Popen) -> None:
    """End the process group this runner started (pytest and the simulators under it), by its id."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


# ------------------------------------------------------------------ results and tables
def verdict(row: dict) -> str:
    """The kill table's result column."""
    st = row["status"]
    if st == "killed":
        return row["by"] if row["kind"] == "test" else f"{row['kind']}: {row['by']}"
    if st == "survived":
        return "SURVIVED"
    if st == "dropped":
        return "dropped (Verilog identical)"
    return f"{st}: {row.get('message', '')}"


def score(rows: list[dict]) -> tuple[int, int]:
    """(killed, killed + survived)."""
    killed = sum(r["status"] == "killed" for r in rows)
    return killed, killed + sum(r["status"] == "survived" for r in rows)


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary name beside ``path``, then rename it: readers never see half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_tables(rows: list[dict], out: Path, meta: dict) -> None:
    """kill-table.json, .csv and .md in ``out``."""
    killed, counted = score(rows)
    doc = dict(meta, killed=killed, counted=counted, score=(killed / counted) if counted else None, mutants=rows)
    write_atomic(out / "kill-table.json", json.dumps(doc, indent=1) + "\n")
    cols = ["id", "class", "desc", "status", "kind", "by", "message", "seconds"]
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(cols)
    for r in rows:
        w.writerow([r.get(c, "") for c in cols])
    write_atomic(out / "kill-table.csv", buf.getvalue())
    lines = ["| mutant | class | description | killed by | s |", "|---|---|---|---|---|"]
    for r in rows:
        res = verdict(r).replace("|", "\\|")
        lines.append(f"| `{r['id']}` | {r['class']} | {r['desc']} | {res} | {r['seconds']:.0f} |")
    pct = f"{100 * killed / counted:.1f} %" if counted else "n/a"
    lines += ["", f"Score: {killed} of {counted} killed ({pct}); "
                  f"{sum(r['status'] == 'dropped' for r in rows)} dropped (Verilog identical), "
                  f"{sum(r['status'] in ('stale', 'invalid') for r in rows)} not applied."]
    write_atomic(out / "kill-table.md", "\n".join(lines) + "\n")


def print_table(rows: list[dict], file=sys.stdout) -> None:
    w_id = max([len(r["id"]) for r in rows] + [6])
    w_desc = min(60, max([len(r["desc"]) for r in rows] + [11]))
    print(f"{'mutant':<{w_id}}  {'description':<{w_desc}}  {'killed by':<60}  {'s':>5}", file=file)
    for r in rows:
        d = r["desc"] if len(r["desc"]) <= w_desc else r["desc"][:w_desc - 1] + "…"
        print(f"{r['id']:<{w_id}}  {d:<{w_desc}}  {verdict(r)[:60]:<60}  {r['seconds']:>5.0f}", file=file)
    killed, counted = score(rows)
    pct = f"{100 * killed / counted:.1f} %" if counted else "n/a"
    print(f"score: {killed} of {counted} killed ({pct})", file=file)


# ------------------------------------------------------------------ the run
class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (a :class:`MutateError`), not a usage dump."""

    def error(self, message):
        raise MutateError(message)


def _parse(argv):
    ap = OneLineParser(prog="radixnet mutate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated mutant ids (default: the whole catalogue)")
    ap.add_argument("--jobs", type=int, default=1, help="mutants checked at once (default 1)")
    ap.add_argument("--checks", help="pytest argument stages separated by ';' (default: DEFAULT_CHECKS), "
                                     "or @FILE with one stage per line")
    ap.add_argument("--cosim-only", action="store_true", help="only the co-simulation stage of the default checks "
                                                             "(how much the co-simulation alone catches)")
    ap.add_argument("--out", help="output directory (default: build/mutate in the repository)")
    ap.add_argument("--catalogue", default=str(CATALOGUE), help="the catalogue (default: cosim/mutations.toml)")
    ap.add_argument("--cache", help="co-simulation build cache shared by runs (default: build/mutate/cache)")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds of checks per mutant before it counts as "
                                                                "killed by timeout (default 1800)")
    ap.add_argument("--fresh", action="store_true", help="ignore the results of an earlier run (default: resume)")
    ap.add_argument("--list", action="store_true", help="print the catalogue and exit")
    ap.add_argument("--keep-builds", action="store_true", help="keep the mutants' Verilator builds")
    ap.add_argument("--no-seed", action="store_true", help="do not reuse finished builds from the repository's "
                                                           "build/cosim")
    ap.add_argument("--repo", help="the repository to snapshot (default: the one this module is installed from)")
    return ap.parse_args(argv)


def _checks(arg: str | None) -> list[str]:
    if arg is None:
        return list(DEFAULT_CHECKS)
    text = read_text(arg[1:], f"--checks @{_show(arg[1:])}") if arg.startswith("@") else arg.replace(";", "\n")
    stages = [s.strip() for s in text.splitlines() if s.strip() and not s.strip().startswith("#")]
    if not stages:
        raise MutateError("--checks: no stages given")
    return stages


def _row(m: Mutant, o: Outcome | None, status: str, **kw) -> dict:
    row = {"id": m.id, "file": m.file, "class": m.cls, "desc": m.desc, "status": status, "kind": "", "by": "",
           "message": "", "seconds": 0.0, "stage": -1, "designs": []}
    if o is not None:
        row.update(kind=o.kind, by=o.by, message=o.message[:500], seconds=round(o.seconds, 1), stage=o.stage,
                   designs=sorted({d for _, d, _ in o.designs}))
    row.update(kw)
    return row


def main(argv=None) -> int:
    try:
        return _main(_parse(argv))
    except MutateError as e:
        print(f"radixnet mutate: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:  # a write that fails midway (a full disk): the finished mutants stay in results.jsonl
        print(f"radixnet mutate: error: {_show(e)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("radixnet mutate: interrupted (finished mutants are kept; run again to resume)", file=sys.stderr)
        return 130


def _out_dir(path: str | os.PathLike, name: str) -> Path:
    """``--out``/``--cache``: a directory radixnet may create or write into (checked, not created), resolved."""
    from ..gen.params import ParamError, check_out_dir
    try:
        return check_out_dir(path, name).resolve()
    except ParamError as e:
        raise MutateError(_show(e)) from None


def _main(a) -> int:
    cat = load_catalogue(a.catalogue)
    whole = cat  # what --list prints
    # every argument before any file is written, any check runs or --list prints
    if not 1 <= a.jobs <= MAX_JOBS:
        raise MutateError(f"--jobs: must be an integer in [1, {MAX_JOBS}] (got {a.jobs})")
    if not (math.isfinite(a.timeout) and 0 < a.timeout <= MAX_TIMEOUT):
        raise MutateError(f"--timeout: must be a number of seconds in (0, {MAX_TIMEOUT:.0f}] (got {a.timeout})")
    if a.only is not None:
        want = [s.strip() for s in a.only.split(",") if s.strip()]
        if not want:  # an empty selection would run the baseline and no mutant
            raise MutateError(f"--only: must be a comma-separated list of mutant ids (got {_show(repr(a.only))})")
        unknown = [s for s in want if s not in {m.id for m in cat}]
        if unknown:
            raise MutateError(f"--only: unknown mutant id(s) {_show(', '.join(unknown))}")
        cat = [m for m in cat if m.id in want]
    if a.cosim_only and a.checks is not None:  # an empty --checks too (not taken as none given)
        raise MutateError("--cosim-only: give either it or --checks")
    checks = DEFAULT_CHECKS[1:] if a.cosim_only else _checks(a.checks)
    if a.repo is not None and not is_repo(Path(a.repo)):
        raise MutateError(f"--repo: {_show(a.repo)} is not a radixnet repository (it needs pyproject.toml, tests/, "
                          f"radixnet/ and {', '.join(d + '/' for d in SUBPACKAGES)})")
    out = _out_dir(a.out, "out") if a.out is not None else None
    cache = _out_dir(a.cache, "cache") if a.cache is not None else None
    if a.list:
        for m in whole:
            print(f"{m.id:<28} {m.file:<22} {m.cls:<28} {m.desc}")
        print(f"{len(whole)} mutants")
        return 0
    repo = Path(a.repo).resolve() if a.repo is not None else repo_root()
    out = out if out is not None else _out_dir(repo / "build" / "mutate", "out")
    cache = cache if cache is not None else repo / "build" / "mutate" / "cache"
    for d in ("logs", "work"):
        (out / d).mkdir(parents=True, exist_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    seed = None if a.no_seed else (repo / "build" / "cosim")
    seed = seed if seed is not None and seed.is_dir() else None
    checks_id = hashlib.sha1("\n".join(checks).encode()).hexdigest()[:12]

    t_run = time.monotonic()
    snap = out / "snapshot"
    tree = snapshot(repo, snap)
    print(f"mutate: {len(cat)} mutants, {len(checks)} check stages, snapshot {tree} of {repo} in {snap}", flush=True)

    # every entry must apply to the snapshot before anything runs
    stale = {}
    for m in cat:
        try:
            apply(m, (snap / "pkg" / package_path(m.file)).read_text())
        except (MutateError, OSError) as e:
            stale[m.id] = str(e)

    # the unmutated snapshot must pass the checks (cached per tree and checks)
    base_file = out / "baseline.json"
    base = json.loads(base_file.read_text()) if base_file.exists() else {}
    memo = out / "memo" / f"{tree}-{checks_id}"
    if base.get("tree") != tree or base.get("checks") != checks_id or not base.get("passed") or not memo.is_dir():
        print("mutate: checking the unmutated sources ...", flush=True)
        shutil.rmtree(out / "memo", ignore_errors=True)
        o = run_checks(mutated_copy(snap, out / "work" / "_baseline", None), out / "work" / "_baseline", snap,
                       checks, cache=cache, seed=seed, timeout=2 * a.timeout, log=out / "logs" / "_baseline.log",
                       memo=memo, memo_mode="write")
        memo.mkdir(parents=True, exist_ok=True)
        if not o.passed:
            raise MutateError(f"the unmutated sources fail the checks ({o.kind}: {o.by}: {o.message[:200]}); "
                              f"see {out / 'logs' / '_baseline.log'}")
        base = {"tree": tree, "checks": checks_id, "passed": True, "seconds": round(o.seconds, 1),
                "stage_seconds": o.stage_seconds, "designs": sorted({d for _, d, _ in o.designs}),
                "tests": [[t, d, s] for t, d, s in o.designs]}
        write_atomic(base_file, json.dumps(base, indent=1) + "\n")
        print(f"mutate: the unmutated sources pass ({o.seconds:.0f} s; {len(base['designs'])} designs)", flush=True)
    base_designs = set(base["designs"])

    # resume: the finished mutants of an earlier run with the same entry and checks
    res_file = out / "results.jsonl"
    if a.fresh and res_file.exists():
        res_file.unlink()
    done = {}
    if res_file.exists():
        for line in res_file.read_text().splitlines():
            r = json.loads(line)
            done[r["id"]] = r
    by_id = {m.id: m for m in cat}
    keep = {i: r for i, r in done.items() if i in by_id and r.get("entry") == by_id[i].digest
            and r.get("checks") == checks_id and r["status"] in ("killed", "survived", "dropped")}
    older = sum(r.get("tree") != tree for r in keep.values())
    if keep:
        print(f"mutate: resuming, {len(keep)} mutants already done"
              + (f" ({older} of them on an earlier snapshot)" if older else ""), flush=True)
    todo = [m for m in cat if m.id not in keep]
    lock = threading.Lock()
    rows = dict(keep)
    meta = {"tree": tree, "checks": checks, "baseline_s": base.get("seconds")}
    n_total, counter = len(todo), [0]

    def finish(row):
        with lock:
            row.update(entry=by_id[row["id"]].digest, checks=checks_id, tree=tree)
            rows[row["id"]] = row
            with open(res_file, "a") as f:
                f.write(json.dumps(row) + "\n")
            counter[0] += 1
            write_tables([rows[m.id] for m in cat if m.id in rows], out, meta)
            print(f"[{counter[0]}/{n_total}] {row['id']}: {verdict(row)} ({row['seconds']:.0f} s)", flush=True)

    def one(m: Mutant):
        if m.id in stale:
            return finish(_row(m, None, "stale", message=stale[m.id]))
        work = out / "work" / m.id
        try:
            root = mutated_copy(snap, work, m)
        except MutateError as e:
            return finish(_row(m, None, "invalid", message=str(e)))
        # a mutant of hdl/ leaves the golden model and the testbenches alone: a co-simulation of a design whose
        # Verilog it does not change has the unmutated verdict (taken from the memo, not simulated again)
        hdl_only = package_path(m.file).parts[1] == "hdl"
        o = run_checks(root, work, snap, checks, cache=cache, seed=seed, timeout=a.timeout,
                       log=out / "logs" / f"{m.id}.log", memo=memo if hdl_only else None)
        mine = {d for _, d, _ in o.designs}
        if o.passed:
            status = "dropped" if base_designs and mine <= base_designs else "survived"
            row = _row(m, o, status)
        else:
            row = _row(m, o, "killed")
        row["new_designs"] = sorted(mine - base_designs)
        if not a.keep_builds:
            for d in mine - base_designs:
                p = cache / d
                if p.is_dir() and not p.is_symlink() and a.jobs == 1:
                    shutil.rmtree(p, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
        finish(row)

    if a.jobs == 1:
        for m in todo:
            one(m)
    else:
        with ThreadPoolExecutor(max_workers=a.jobs) as ex:
            for f in [ex.submit(one, m) for m in todo]:
                f.result()
        if not a.keep_builds:   # with several jobs at once, the mutants' builds go at the end
            for r in rows.values():
                for d in r.get("new_designs", []):
                    p = cache / d
                    if p.is_dir() and not p.is_symlink():
                        shutil.rmtree(p, ignore_errors=True)

    final = [rows[m.id] for m in cat if m.id in rows]
    meta["run_s"] = round(time.monotonic() - t_run, 1)
    write_tables(final, out, meta)
    print()
    print_table(final)
    print(f"tables: {out / 'kill-table.md'} (.csv, .json); run {meta['run_s'] / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
