"""``radixnet cosim-matrix`` (cosim/matrix.py, docs/cluster.md): bad matrices refused in one line before any
work; a matrix on a loopback Dask cluster and resumed; a fault's MISMATCH in local worker processes; a worker
killed mid-configuration loses nothing and records nothing twice; Ctrl-C cancels the rest.

The co-simulations are the default suite's own (tests/test_cosim.py's CLI configurations: the 2-ary 2-flat with
V = 1, B = 2, its fault ``out_arb_fixed``), built in the same cache, so no test here adds a Verilator build
to a full run. The worker-death and Ctrl-C tests run a stand-in for the co-simulation (no simulator)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

from radixnet.cli import main  # noqa: E402
from radixnet.cosim import matrix as mx  # noqa: E402
from radixnet.cosim_cli import matrix_entry  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "build" / "cosim"
needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")

TINY = 'topo = "fbfly"\nk = 2\nn = 2\nvcs = 1\nvc_depth = 2\n'


def write(tmp_path, text, name="m.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def records(out):
    return [json.loads(line) for line in (out / "verdicts.jsonl").read_text().splitlines()]


# ------------------------------------------------------------------------------------------------ bad input
BAD = [
    ("[[config]]\nname = \"a\"\n" + TINY + "load = 2.0\n", "entry 1 (a): key load: --load must be in (0, 1]"),
    ("[[config]]\n" + TINY + "colour = \"red\"\n", "entry 1: key colour: unknown key: radixnet cosim takes no --colour"),
    ("[[config]]\n" + TINY + "[[config]]\nk = 2\nn = 2\nvcs = 2\nrouting = \"ugal-l\"\n",
     "entry 2: key routing: --routing: the RTL router implements"),
    ("[[config]]\n" + TINY + "allow_idle = 1\n", "entry 1: key allow_idle: must be true or false (got 1)"),
    ("[[config]]\n" + TINY + "fault = \"nope\"\n", "entry 1: key fault: --fault must be one of"),
    ("[[config]]\n" + TINY + "json = true\n", "entry 1: key json: unknown key"),
    ("[[config]]\ntopo = \"nope\"\n", "entry 1: key topo: unknown family 'nope'"),
    ("[[config]]\n" + TINY + "k = 1\n", "not valid TOML (Cannot overwrite a value (at line 7"),  # a key twice
    ("[[config]]\n" + TINY + "vc-depth = 3\n", "entry 1: key vc_depth given twice"),
    ("[[config]]\nname = \"x\"\n" + TINY + "[[config]]\nname = \"x\"\n" + TINY + "load = 0.5\n",
     "entry 2 (x): name: 'x' is the name of entry 1 too"),
    ("[[config]]\n" + TINY + "[[config]]\nk = 2\nn = 2\nvcs = 1\nrouting = \"min\"\nseed = 0\ncycles = 200\n",  # defaults
     "entry 2: the same configuration as entry 1 (#1)"),
    ("[[config]]\n" + TINY + "router = 0\npacket_length = 2\n", "entry 1: key packet_length: --packet-length: the "
                                                                 "router-level co-simulation takes single-flit"),
    ("[defaults]\ncycles = 0\n[[config]]\n" + TINY, "entry 1: key cycles: --cycles must be an integer in [1,"),
    ("[matrix]\nx = 1\n", "unknown top-level key 'matrix'"),
    ("[defaults]\ncycles = 10\n", "holds no configuration"),
    ("[[config]\nk = 2\n", "not valid TOML"),
]


@pytest.mark.parametrize("text, needle", BAD, ids=[n.split(":")[-1].strip()[:30] for _, n in BAD])
def test_bad_matrix_is_one_line_exit_2(tmp_path, capsys, text, needle):
    path = write(tmp_path, text)
    rc = main(["cosim-matrix", "--matrix", str(path), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1, err
    assert err.startswith(f"radixnet cosim-matrix: error: {path}") and needle in err, err
    assert not (tmp_path / "out").exists()   # refused before any work or file


@pytest.mark.parametrize("args, needle", [
    (["--jobs", "0"], "radixnet: error: --jobs: must be an integer in [1, 256]"),
    (["--scheduler", "http://head:8786"], "radixnet: error: --scheduler: must be tcp://HOST:PORT"),
    (["--matrix", "/nonexistent/m.toml"], "cannot read /nonexistent/m.toml"),
])
def test_bad_options_are_one_line_exit_2(tmp_path, capsys, args, needle):
    path = write(tmp_path, "[[config]]\n" + TINY)
    rc = main(["cosim-matrix", "--matrix", str(path), "--out", str(tmp_path / "out"), *args])
    err = capsys.readouterr().err
    assert rc == 2 and err.count("\n") == 1 and needle in err, err
    assert not (tmp_path / "out").exists()


def test_json_matrix_and_normal_form(tmp_path):
    """A JSON list reads as TOML's [[config]]; a default spelt out, a list value and a dashed key change nothing."""
    path = write(tmp_path, json.dumps([{"name": "a", "topo": "torus", "dims": [2, 2], "routing": "dor"},
                                       {"topo": "fbfly", "k": 2, "n": 2, "vc-depth": 3, "allow_idle": True}]),
                 "m.json")
    a, b = mx.load_matrix(path, matrix_entry)
    assert (a.name, b.name) == ("a", "#2") and "--dims=2,2" in a.argv and "--allow-idle" in b.argv
    _, same = matrix_entry({"topo": "torus", "dims": "2,2", "routing": "dor", "vc_depth": 2, "seed": 0})
    assert mx.fingerprint(same) == a.fingerprint
    assert b.config["vc_depth"] == 3 and b.summary.endswith("axis, allow idle")


def test_worker_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv(mx.CACHE_ENV, str(tmp_path / "c"))
    assert mx.worker_cache() == tmp_path / "c"
    monkeypatch.delenv(mx.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert mx.worker_cache() == tmp_path / "radixnet" / "cosim"


# ------------------------------------------------------------------------------------------------ Dask
@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    """Two single-threaded workers on loopback. Their build cache (for a configuration without build_dir) and
    the stand-ins' marker directory are temporary directories, in their environment from the start (a
    restarted worker inherits it too). The stand-ins below reach the workers by reference (pytest puts tests/
    on the path, and the workers are spawned with it)."""
    env = {mx.CACHE_ENV: str(tmp_path_factory.mktemp("worker-cache")), MARK_ENV: str(tmp_path_factory.mktemp("mark"))}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                      dashboard_address=None) as c:
            c.radixnet_cache = env[mx.CACHE_ENV]
            yield c
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@needs_verilator
def test_matrix_on_a_dask_cluster_and_resume(dask_cluster, tmp_path, capsys):
    """Two co-simulations of one design, one task each on two workers: MATCH twice, exit 0, the three files;
    the same command again runs nothing."""
    path = write(tmp_path, f'[defaults]\n{TINY}cycles = 100\nbuild_dir = "{CACHE}"\n'
                           '[[config]]\nname = "load-0.4"\nload = 0.4\n'
                           '[[config]]\nname = "load-0.6"\nload = 0.6\nseed = 1\n')
    out, addr = tmp_path / "out", dask_cluster.scheduler_address
    args = ["cosim-matrix", "--matrix", str(path), "--out", str(out), "--scheduler", addr]
    assert main(args) == 0
    std = capsys.readouterr()
    assert "2 configurations to run, 0 already" in std.err and f"on the Dask cluster at {addr}" in std.err
    assert "[2/2] " in std.err and "load-0.4  MATCH" in std.out
    recs = records(out)
    assert sorted(r["name"] for r in recs) == ["load-0.4", "load-0.6"]
    for r in recs:
        assert r["verdict"] == "MATCH" and r["packets"] > 100 and r["hops_compared"] >= r["packets"]
        assert r["worker"].startswith("tcp://127.0.0.1:") and r["build_dir"].startswith(str(CACHE))
        assert min(r["stall_cycles"], r["full_buffer_cycles"], r["credit_zero_cycles"]) > 0
    table = json.loads((out / "verdicts.json").read_text())
    assert table["scheduler"] == addr and table["counts"] == {"MATCH": 2} and table["exit_status"] == 0
    assert [v["name"] for v in table["verdicts"]] == ["load-0.4", "load-0.6"]   # the file's order
    md = (out / "verdicts.md").read_text()
    assert md.count("| MATCH |") == 2 and "| load-0.6 | fbfly k=2 n=2, min, uniform, load 0.6 x 100 cycles" in md
    before = (out / "verdicts.jsonl").read_bytes()
    assert main(args) == 0   # resume: nothing runs, nothing is appended
    assert "0 configurations to run, 2 already" in capsys.readouterr().err
    assert (out / "verdicts.jsonl").read_bytes() == before


@needs_verilator
def test_fault_is_a_mismatch_in_local_processes(tmp_path, capsys):
    """A planted arbitration bug is MISMATCH (exit 1), a trickle of packets VACUOUS, in two local processes."""
    path = write(tmp_path, f'[defaults]\n{TINY}build_dir = "{CACHE}"\n'
                           '[[config]]\nname = "fault"\nload = 0.5\ncycles = 150\nfault = "out_arb_fixed"\n'
                           '[[config]]\nname = "idle"\nload = 0.05\ncycles = 60\n')
    out = tmp_path / "out"
    assert main(["cosim-matrix", "--matrix", str(path), "--out", str(out), "--jobs", "2", "--quiet"]) == 1
    by_name = {r["name"]: r for r in records(out)}
    assert by_name["fault"]["verdict"] == "MISMATCH" and by_name["fault"]["mismatches"] > 0
    assert "golden path" in by_name["fault"]["first"][0]
    assert by_name["idle"]["verdict"] == "VACUOUS" and "stall_cycles" in by_name["idle"]["idle"]
    md = (out / "verdicts.md").read_text()
    assert "**MISMATCH**" in md and "- fault: MISMATCH" in md and "- idle: VACUOUS: stall_cycles = 0" in md
    assert not capsys.readouterr().err   # --quiet


# ----------------------------------------------------------- stand-ins for a co-simulation (run on the workers)
def fake_verdict(argv):
    return {"outcome": "MATCH", "packets": 10, "hops_compared": 20, "stall_cycles": 1, "full_buffer_cycles": 1,
            "credit_zero_cycles": 1, "build_s": 0.0, "sim_s": 0.1, "build_dir": argv[-1]}


#: environment variable naming the directory where dies_once leaves its mark (the workers have it from the start)
MARK_ENV = "RADIXNET_TEST_MARK_DIR"


def dies_once(argv):
    """Kill the worker the first time (a marker file says it happened), answer after."""
    marker = Path(os.environ[MARK_ENV]) / "died"
    if not marker.exists():
        marker.write_text(str(os.getpid()))
        os.kill(os.getpid(), signal.SIGKILL)
    return fake_verdict(argv)


def slow(argv):
    time.sleep(1.0)
    return fake_verdict(argv)


def entries(tmp_path, n):
    text = "".join(f"[[config]]\nname = \"c{i}\"\n{TINY}load = 0.{i + 1}\n" for i in range(n))
    return mx.load_matrix(write(tmp_path, text), matrix_entry)


def test_killed_worker_reruns_elsewhere_recorded_once(dask_cluster, tmp_path):
    """The worker running a configuration dies: the scheduler runs it again on a live worker, and it is recorded
    once. On a worker the build root is the worker's cache (the entry gives no build_dir)."""
    died = Path(os.environ[MARK_ENV]) / "died"
    with distributed.Client(dask_cluster.scheduler_address, set_as_default=False) as client:
        run = mx.MatrixRun(entries(tmp_path, 1), tmp_path / "out", dies_once, scheduler=client)
        run.run()
    assert died.exists(), [e["message"] for e in run.errors.values()]   # the first attempt died
    recs = records(tmp_path / "out")
    assert len(recs) == 1 and recs[0]["verdict"] == "MATCH" and not run.errors and run.exit_status() == 0
    assert int(died.read_text()) != recs[0]["pid"]   # answered by another worker process
    assert recs[0]["build_dir"] == dask_cluster.radixnet_cache


def test_ctrl_c_cancels_the_rest(dask_cluster, tmp_path):
    def interrupt(rec):
        raise KeyboardInterrupt

    with distributed.Client(dask_cluster.scheduler_address, set_as_default=False) as client:
        run = mx.MatrixRun(entries(tmp_path, 4), tmp_path / "out", slow, scheduler=client, jobs=2,
                           on_verdict=interrupt)
        with pytest.raises(KeyboardInterrupt):
            run.run()
        assert len(records(tmp_path / "out")) == 1   # the verdict before Ctrl-C stays
        deadline = time.monotonic() + 10
        while dask_cluster.scheduler.tasks and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not dask_cluster.scheduler.tasks   # nothing left queued or running
    table = json.loads((tmp_path / "out" / "verdicts.json").read_text())
    assert table["counts"] == {"MATCH": 1, "PENDING": 3} and table["exit_status"] is None
    again = mx.MatrixRun(entries(tmp_path, 4), tmp_path / "out", slow)
    assert len(again.pending()) == 3
