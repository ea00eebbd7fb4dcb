"""Issue 14 (hardening): the regression corpus. Each case ends in one line on stderr naming the option and
exit status 2, with no traceback and nothing written; valid uses at the new bounds still run.

The CLI runs in-process (``radixnet.cli.main``) except for the parallel sweeps, which run as a subprocess
so that the default ``--jobs`` pool really starts (it did, and broke, before the fix).
"""

from __future__ import annotations

import os
import pickle
import re
import subprocess
import sys

import pytest

from radixnet.cli import UsageError, main
from radixnet.cosim.run import CosimError
from radixnet.gen import NetworkError, ParamError, build
from radixnet.gen.routing import DeadlockError
from radixnet.golden.sim import LIMITS, SimConfig, SimulationError, Simulator
from radixnet.golden.sweep import MAX_LOADS, parse_loads

SMALL = ["--topo", "fbfly", "--k", "2", "--n", "2"]


def refused(capsys, argv: list[str], option: str) -> str:
    """Run ``radixnet argv`` in-process; assert exit 2 and one stderr line naming ``option``."""
    rc = main(argv)
    out, err = capsys.readouterr()
    assert rc == 2, (rc, out, err)
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    assert re.match(r"radixnet( \w+)?: error: ", err), err
    assert option in err, err
    return err


# ------------------------------------------------------------ 1. worker errors and parallel sweeps
@pytest.mark.parametrize("exc", [ParamError("traffic", "unknown pattern 'nope'"), DeadlockError("cycle a -> b"),
                                 NetworkError("bad arrays"), SimulationError("watchdog"), CosimError("no verdict"),
                                 UsageError("radixnet sim: error: x")])
def test_every_radixnet_exception_pickles(exc):
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc) and str(back) == str(exc)
    if isinstance(exc, ParamError):
        assert back.name == exc.name and back.message == exc.message


def test_hdl_exceptions_pickle():
    from radixnet.hdl.verilog import LintError, SynthError, ToolError
    for cls in (ToolError, LintError, SynthError):
        assert str(pickle.loads(pickle.dumps(cls("verilator failed")))) == "verilator failed"


def _cli(*argv: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "radixnet", *argv], capture_output=True, text=True, timeout=120,
                          cwd=cwd)


@pytest.mark.parametrize("traffic, option", [(["--traffic", "nope"], "--traffic"),
                                             (["--traffic", "hotspot", "--hotspot-fraction", "2"], "--hotspot-fraction"),
                                             (["--traffic", "shift", "--shift", "9999"], "--shift")])
def test_parallel_sweep_bad_traffic_is_one_line_before_any_file(tmp_path, traffic, option):
    out = tmp_path / "sw"
    p = _cli("sweep", *SMALL, *traffic, "--loads", "0.1,0.2", "--out", str(out), "--jobs", "2")
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr and option in p.stderr, p.stderr
    assert p.stderr.startswith("radixnet: error: " + option)
    assert not out.exists()  # validated before config.json


def test_sweep_bad_traffic_in_process_writes_nothing(tmp_path, capsys):
    refused(capsys, ["sweep", *SMALL, "--traffic", "shift", "--shift", "9999", "--loads", "0.1,0.2",
                     "--out", str(tmp_path / "sw")], "--shift")
    assert not (tmp_path / "sw").exists()


def test_simconfig_validate_checks_the_traffic_options():
    net = build("fbfly", k=2, n=2)
    with pytest.raises(ParamError, match="--hotspot-fraction"):
        SimConfig(net, traffic="hotspot", traffic_opts={"hotspot_fraction": 2}).validate()


# ------------------------------------------------------------ 2. output paths
@pytest.mark.parametrize("cmd", ["sweep", "study"])
@pytest.mark.parametrize("kind", ["empty", "proc", "file"])
def test_out_directory_checked_up_front(tmp_path, capsys, monkeypatch, cmd, kind):
    monkeypatch.chdir(tmp_path)
    afile = tmp_path / "afile"
    afile.write_text("keep\n")
    out = {"empty": "", "proc": "/proc/x", "file": str(afile)}[kind]
    argv = (["sweep", *SMALL, "--loads", "0.1", "--out", out] if cmd == "sweep"
            else ["study", "2dfb-fig4", "--out", out])
    err = refused(capsys, argv, "--out")
    assert {"empty": "empty string", "proc": "/proc/x", "file": "not a directory"}[kind] in err
    assert sorted(os.listdir(tmp_path)) == ["afile"] and afile.read_text() == "keep\n"


@pytest.mark.parametrize("trace, why", [("", "empty string"), ("/dev/full", "No space left"),
                                        ("/proc/x/y", "not a directory"), (".", "is a directory")])
def test_sim_trace_path(capsys, tmp_path, monkeypatch, trace, why):
    monkeypatch.chdir(tmp_path)
    err = refused(capsys, ["sim", *SMALL, "--load", "0.1", "--measure", "100", "--trace", trace], "--trace")
    assert why in err
    assert os.listdir(tmp_path) == []


def test_sim_trace_still_written(tmp_path, capsys):
    path = tmp_path / "t.jsonl"
    assert main(["sim", *SMALL, "--load", "0.1", "--measure", "100", "--trace", str(path)]) == 0
    assert path.read_text().count("\n") > 0


# ------------------------------------------------------------ 3. bounds of sim's options
@pytest.mark.parametrize("argv, option", [
    (["--topo", "2dfb", "--k", "4", "--n", "1", "--routing", "2dfb-adaptive", "--threshold", "-1", "--load", "0.3"],
     "--threshold"),
    ([*SMALL, "--load", "0.1", "--packet-length", "1000000"], "--packet-length"),
    ([*SMALL, "--load", "0.1", "--vcs", "100000"], "--vcs"),
    ([*SMALL, "--load", "0.1", "--measure", "1000000000000"], "--measure"),
    ([*SMALL, "--batch", "1000000000"], "--batch"),
    ([*SMALL, "--load", "0.1", "--vc-depth", "1000000000"], "--vc-depth"),
    ([*SMALL, "--load", "0.1", "--link-latency", "1000000000"], "--link-latency"),
    ([*SMALL, "--load", "0.1", "--ugal-threshold", "-1"], "--ugal-threshold"),
    ([*SMALL, "--load", "0.1", "--speedup", "1000"], "--speedup"),
    ([*SMALL, "--load", "0.1", "--seed", "-1"], "--seed"),
    ([*SMALL, "--load", "nan"], "--load"),
    ([*SMALL, "--load", "0.1", "--max-memory", "0"], "--max-memory"),
])
def test_sim_option_bounds(capsys, argv, option):
    err = refused(capsys, ["sim", *argv], option)
    assert err.startswith(("radixnet: error: " + option, "radixnet sim: error: argument " + option)), err


def test_bounds_are_stated_in_help(capsys):
    with pytest.raises(SystemExit):
        main(["sim", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    for name in ("vcs", "vc-depth", "packet-length", "link-latency", "measure", "threshold"):
        lo, hi = LIMITS[name.replace("-", "_")]
        assert re.search(rf"--{name} N .*?an integer in \[{lo}, {hi}\]", out), name
    assert "--max-memory" in out and "[1, 1000000]" in out  # --batch


def test_packet_length_at_its_bound_labels_packets_or_is_refused(capsys):
    # 1024-flit packets: a load that labels no packet is refused naming --measure; a higher one runs
    err = refused(capsys, ["sim", *SMALL, "--load", "0.01", "--packet-length", "1024"], "--measure")
    assert ">= 25600" in err
    assert main(["sim", *SMALL, "--load", "0.5", "--packet-length", "1024", "--measure", "4000", "--json"]) == 0


def test_memory_estimate_refuses_before_allocating(capsys):
    err = refused(capsys, ["sim", "--topo", "fbfly", "--k", "32", "--n", "2", "--load", "0.1", "--vcs", "256",
                           "--vc-depth", "4096"], "--max-memory")
    assert "GiB" in err and "--vc-depth" in err
    err = refused(capsys, ["sim", *SMALL, "--batch", "100", "--max-memory", "1K"], "--max-memory")
    assert "1 KiB" in err
    err = refused(capsys, ["sim", *SMALL, "--load", "0.1", "--max-memory", "100000T"], "--max-memory")
    assert "RAM" in err


def test_large_bounds_still_run(capsys):
    assert main(["sim", *SMALL, "--load", "0.1", "--vcs", "256", "--measure", "100"]) == 0
    assert main(["sim", *SMALL, "--batch", "4", "--link-latency", "64", "--max-memory", "1G"]) == 0
    assert main(["sim", "--topo", "2dfb", "--k", "4", "--n", "1", "--routing", "2dfb-adaptive", "--threshold", "0",
                 "--load", "0.2", "--measure", "100"]) == 0


def test_simulator_api_refuses_out_of_bounds():
    net = build("fbfly", k=2, n=2)
    with pytest.raises(ParamError, match="--vcs"):
        SimConfig(net, vcs=100_000).validate()
    sim = Simulator(SimConfig(net, measure=100))
    with pytest.raises(ParamError, match="--batch"):
        sim.run_batch(10**9)
    with pytest.raises(ParamError, match="--load"):
        sim.run_load(1.5)


# ------------------------------------------------------------ --loads: the documented 100,000-point limit
def test_loads_limit_is_exact(capsys, tmp_path):
    err = refused(capsys, ["sweep", *SMALL, "--loads", "0.1:0.2:1e-6", "--out", str(tmp_path / "sw")], "--loads")
    assert "at most 100000" in err and "100001" in err
    assert not (tmp_path / "sw").exists()
    assert len(parse_loads("0.00001:1:0.00001")) == MAX_LOADS  # exactly the limit passes
    with pytest.raises(ParamError, match="at most 100000"):
        parse_loads(",".join(["0.5"] * (MAX_LOADS + 1)))
    with pytest.raises(ParamError, match="--loads"):
        parse_loads("0:1e308:1e-308")  # the point count overflows a float


def test_sweep_jobs_bounded(capsys, tmp_path):
    err = refused(capsys, ["sweep", *SMALL, "--loads", "0.1", "--jobs", "100000", "--out", str(tmp_path / "sw")],
                  "--jobs")
    assert "[1, 256]" in err and not (tmp_path / "sw").exists()
