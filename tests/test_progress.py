"""Progress on every long run (gen/progress.py, docs/simulation.md "Progress"), and the bounded kernel calls
of big simulations.

The display (:class:`radixnet.gen.progress.Progress`) draws only on a terminal: the end-to-end tests
set ``FORCE_COLOR=1``, which makes rich treat standard error as one, and check that each command names
its phases; without it, or with ``--quiet``, standard error stays empty.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from rich.console import Console

from radixnet.gen import build
from radixnet.gen.progress import Progress
from radixnet.golden import sim as golden_sim
from radixnet.golden.sim import SimConfig, Simulator

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def run_cli(args, tty: bool, tmp_path=None):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE")}
    if tty:
        env["FORCE_COLOR"] = "1"
        env["COLUMNS"] = "160"
    r = subprocess.run([sys.executable, "-m", "radixnet", *args], capture_output=True, text=True, env=env,
                       timeout=600, cwd=tmp_path)
    return r.returncode, r.stdout, ANSI.sub("", r.stderr).replace("\r", "\n")


def test_progress_phases_restart_and_unknown_totals():
    out = io.StringIO()
    with Progress("sim", console=Console(file=out, force_terminal=True, width=120)) as p:
        assert p.active
        p("warm-up", 3, 40, "accepted 0.300")
        p("measure", 1500, 2000)
        p("drain", 7, None)
        p.log("a line")
    text = ANSI.sub("", out.getvalue())
    assert "sim warm-up" in text and "3/40" in text and "accepted 0.300" in text
    assert "sim measure" in text and "1500/2000" in text
    assert "sim drain" in text and "7/?" in text      # a phase whose total is unknown
    assert "a line" in text


def test_progress_quiet_and_off_terminal_draw_nothing(capsys):
    out = io.StringIO()
    with Progress("x", console=Console(file=out, force_terminal=False)) as p:
        assert not p.active
        p("phase", 1, 2)
    assert out.getvalue() == ""
    with Progress("x", quiet=True) as p:
        p("phase", 1, 2)
        p.log("hidden")
    assert capsys.readouterr().err == ""


def test_run_load_reports_each_phase_in_order():
    seen = []
    cfg = SimConfig(build("fbfly", k=4, n=2), seed=1, measure=200, window=100, speedup=2)
    Simulator(cfg).run_load(0.3, progress=lambda phase, done, total=None, info="": seen.append((phase, done, total)))
    phases = list(dict.fromkeys(p for p, _, _ in seen))
    assert phases == ["warm-up", "measure", "drain"] or phases == ["warm-up", "measure"]
    measure = [(d, t) for p, d, t in seen if p == "measure"]
    assert measure[-1] == (200, 200) and all(t == 200 for _, t in measure)
    assert all(d <= t for p, d, t in seen if t is not None)


@pytest.mark.parametrize("argv, phases", [
    (["sim", "--k", "4", "--n", "2", "--load", "0.3"], ["sim warm-up", "sim measure"]),
    (["sim", "--k", "4", "--n", "2", "--batch", "4"], ["sim batch"]),
    (["clex", "--k", "4", "--levels", "2", "--messages", "2"], ["clex steps"]),
    (["topo", "slimfly", "--q", "5", "--metrics"], ["slimfly metrics distances", "slimfly metrics bisection"]),
])
def test_cli_shows_progress_on_a_terminal_only(argv, phases):
    rc, out, err = run_cli(argv, tty=True)
    assert rc == 0, err
    for phase in phases:
        assert phase in err, (phase, err[-2000:])
    rc, out2, err = run_cli(argv, tty=False)    # a pipe: results only
    assert rc == 0 and err == "", err
    rc, out3, err = run_cli(argv + ["--quiet"], tty=True)
    assert rc == 0 and err.strip() == "", err


def test_rtl_progress_counts_routers(tmp_path):
    rc, out, err = run_cli(["rtl", "fbfly", "--k", "2", "--n", "2", "--out", str(tmp_path / "r")], tty=True)
    assert rc == 0, err
    assert "rtl routers" in err and "2/2" in err
    assert "router_core_0" in err            # the per-core line, printed above the bar
    rc, out, err = run_cli(["rtl", "fbfly", "--k", "2", "--n", "2", "--out", str(tmp_path / "q"), "--quiet"], tty=True)
    assert rc == 0 and "rtl routers" not in err


def test_big_injection_is_split_into_bounded_kernel_calls(monkeypatch):
    """A window that would create more than PACKETS_PER_CALL packets runs as several kernel calls, so the
    packet ring holds one call's packets and those in flight, not a whole window's (a
    262,144-terminal flattened butterfly at load 0.3 makes 39 million packets per window), and the run's
    result is the same to the last field (the sources hash each packet from its cell)."""
    net = build("fbfly", k=8, n=2)                 # 64 terminals
    monkeypatch.setattr(Simulator, "CAP0", 256)    # the ring starts small and grows to what a call needs
    cfg = SimConfig(net, seed=3, window=400, measure=400, max_warmup=2, speedup=2)
    whole = Simulator(cfg)
    assert whole.chunk_cycles(400, 0.5) == 400     # small networks are never split
    a = whole.run_load(0.5)
    monkeypatch.setattr(golden_sim, "PACKETS_PER_CALL", 64)   # read at every step
    split = Simulator(SimConfig(net, seed=3, window=400, measure=400, max_warmup=2, speedup=2))
    assert split.chunk_cycles(400, 0.5) == 2       # 64 packets / (0.5 x 64 terminals per cycle)
    b = split.run_load(0.5)
    for r in (a, b):
        assert not r["saturated"] and abs(r["accepted_throughput"] - 0.5) < 0.05
        r.pop("wall_seconds")
    assert a == b   # every packet is a hash of (seed, terminal, cycle): the calls' boundaries change nothing
    assert whole.cap >= 8192 and split.cap <= 2048  # a window is ~12,800 packets; a call 64 + those in flight
    t0 = split.t
    out = split.step(37, 0.5)                      # an odd length: 18 calls of 2 cycles and one of 1
    assert out["ej_flits"].shape == (37,) and split.t == t0 + 37


def test_memory_estimate_counts_one_call_of_packets_not_a_window():
    """The k=64 n=3 flattened butterfly (262,144 terminals) fits the estimate: its injection and packet
    parts are bounded by the terminals and PACKETS_PER_CALL, not by window x terminals (#16: no per-cell
    random draws are held; a source's frontier is one integer)."""
    cfg = SimConfig(build("fbfly", k=64, n=3), max_memory=None, speedup=2)
    cfg.check_memory = lambda *a, **k: None        # the parts are checked here, whatever the machine
    cfg.validate()
    parts = cfg.memory_estimate()
    assert parts["injection"] <= 24 * 262_144 + 96 * golden_sim.PACKETS_PER_CALL
    assert parts["packets"] < 2 << 30
    assert np.isfinite(sum(parts.values()))


# slow (21 s, a cold Verilator build in a fresh directory every run): the default suite shows the other commands'
# phases on a terminal (test_cli_shows_progress_on_a_terminal_only, test_rtl_progress_counts_routers)
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")
def test_cosim_progress_build_then_packets(tmp_path):
    """``radixnet cosim`` on a terminal: the golden model, the Verilog, the Verilator build (files compiled, in a
    fresh build directory) and the replay's delivered packets, which the testbench reports from inside the
    simulator's process; the runner's own ``INFO:`` lines stay off standard output. A cached build goes
    straight to the replay; ``--quiet`` draws nothing."""
    args = ["cosim", "--topo", "fbfly", "--k", "2", "--n", "2", "--vcs", "1", "--cycles", "600",
            "--build-dir", str(tmp_path / "b")]
    rc, out, err = run_cli(args, tty=True)
    assert rc == 0, err[-2000:]
    for phase in ("cosim golden model", "cosim Verilog", "cosim verilator build", "cosim simulation"):
        assert phase in err, (phase, err[-3000:])
    assert re.search(r"cosim simulation .*\d+/\d+", err), err[-2000:]
    assert "MATCH" in out and "INFO" not in out
    rc, out, err = run_cli(args + ["--quiet"], tty=True)
    assert rc == 0 and err.strip() == "" and "MATCH" in out
