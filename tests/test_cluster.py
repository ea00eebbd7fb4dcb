"""Sweeps on a Dask cluster (``--scheduler``, gen/cluster.py): the same points as a local run, no point lost
or doubled when a worker is killed, resume, Ctrl-C, bad addresses. Every cluster is a LocalCluster on loopback."""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

distributed = pytest.importorskip("distributed")

from radixnet.cli import main  # noqa: E402
from radixnet.gen import (  # noqa: E402
    ParamError,
    build,
    cluster as cl,  # noqa: E402
)
from radixnet.golden.sim import SimConfig  # noqa: E402
from radixnet.studies.sweep import Sweep  # noqa: E402

# each point 0.7-1.8 s on one core: long enough for a kill to land while points are in flight
MEASURE = 150_000
SMALL = ["--topo", "fbfly", "--k", "4", "--n", "2", "--measure", str(MEASURE)]
ROUTINGS, LOADS = ["min", "val"], [0.2, 0.4, 0.6]
ARGS = [*SMALL, "--routing", "min,val", "--loads", "0.2,0.4,0.6", "--no-plot", "--speedup", "2"]


def local_cluster(**kw):
    return distributed.LocalCluster(n_workers=kw.pop("n_workers", 2), threads_per_worker=1, processes=True,
                                    host="127.0.0.1", dashboard_address=None, **kw)


@pytest.fixture(scope="module")
def dask_cluster():
    with local_cluster() as c:
        yield c


@pytest.fixture
def client(dask_cluster):
    with distributed.Client(dask_cluster.scheduler_address, set_as_default=False) as c:
        yield c


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The points of a local run in this process (``--jobs 1``), by (routing, load)."""
    out = tmp_path_factory.mktemp("local") / "s"
    assert main(["sweep", *ARGS, "--out", str(out), "--jobs", "1", "--quiet"]) == 0
    return points(out)


def points(out):
    return [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]


def by_key(recs):
    keyed = {(r["routing"], r["load"]): r for r in recs}
    assert len(keyed) == len(recs), "a point recorded twice"
    return keyed


def comparable(rec):
    """A record without its wall-clock time (the one field that differs between identical runs)."""
    return {**rec, "result": {k: v for k, v in rec["result"].items() if k != "wall_seconds"}}


def assert_same_points(got, want):
    """Every point once; every point simulated in both runs with the same values (the number of them is
    returned). A load above a routing's first saturated load may be simulated in one run and skipped in the
    other, and a skipped record's ``saturated_at`` is the lowest saturated load known when its turn came:
    the short-cut depends on what was in flight, in a local pool as on a cluster. Both records then say
    saturated."""
    a, b = by_key(got), by_key(want)
    assert set(a) == set(b)
    compared = 0
    for key in a:
        if a[key]["skipped"] or b[key]["skipped"]:
            assert a[key]["result"]["saturated"] and b[key]["result"]["saturated"], key
        else:
            assert comparable(a[key]) == comparable(b[key]), key
            compared += 1
    return compared


def test_cli_sweep_on_cluster_matches_local_and_resumes(dask_cluster, reference, tmp_path, capsys):
    out = tmp_path / "dask"
    addr = dask_cluster.scheduler_address
    assert main(["sweep", *ARGS, "--out", str(out), "--scheduler", addr]) == 0
    err = capsys.readouterr().err
    assert "6 points to run" in err and "on the Dask cluster at " + addr in err and "[6/6]" in err
    assert assert_same_points(points(out), reference) >= 5
    config = json.loads((out / "config.json").read_text())
    assert config["scheduler"] == addr and config["jobs"] is None
    # resume: the same command again runs nothing and leaves points.jsonl as it was
    before = (out / "points.jsonl").read_bytes()
    assert main(["sweep", *ARGS, "--out", str(out), "--scheduler", addr]) == 0
    assert "0 points to run, 6 already" in capsys.readouterr().err
    assert (out / "points.jsonl").read_bytes() == before


def test_killed_worker_loses_no_point(dask_cluster, client, reference, tmp_path):
    net = build("fbfly", k=4, n=2)
    killed = {}

    def kill_a_busy_worker(rec):
        if killed:
            return
        deadline = time.monotonic() + 5
        while not (busy := [(w, keys) for w, keys in client.processing().items() if keys]):
            assert time.monotonic() < deadline, "no worker is running a point"
            time.sleep(0.05)
        victim, running = busy[0]
        pid = client.run(os.getpid, workers=[victim])[victim]
        killed.update(worker=victim, pid=pid, running=list(running))
        os.kill(pid, signal.SIGKILL)

    # the sweep connects on its own (an address: its client is opened in run() and closed after it)
    sweep = Sweep(SimConfig(net, measure=MEASURE, speedup=2), ROUTINGS, LOADS, tmp_path / "s",
                  scheduler=dask_cluster.scheduler_address, on_point=kill_a_busy_worker)
    sweep.run()
    assert killed and killed["running"], "the kill did not land while a point ran"
    assert not sweep.errors
    recs = points(tmp_path / "s")
    assert len(recs) == len(by_key(recs)) == 6  # no point lost, none twice
    assert assert_same_points(recs, reference) >= 5
    with pytest.raises(ProcessLookupError):
        os.kill(killed["pid"], 0)


def test_study_runs_its_sweeps_on_the_cluster(dask_cluster, tmp_path):
    from radixnet.studies.registry import run_study
    seen = []
    res = run_study("2dfb-fig4", tmp_path / "st", scheduler=dask_cluster.scheduler_address, loads="0.3,0.9",
                    on_point=seen.append)
    assert len(seen) == 12 and res["claims"]
    for traffic in ("2dfb-benign", "2dfb-adversarial", "2dfb-random"):
        config = json.loads((tmp_path / "st" / traffic / "config.json").read_text())
        assert config["scheduler"] == dask_cluster.scheduler_address
    assert cl.active_client() is None  # the study's client is closed and no longer active


def test_ctrl_c_cancels_the_points_in_flight(dask_cluster, client, tmp_path):
    net = build("fbfly", k=4, n=2)

    def interrupt(rec):
        raise KeyboardInterrupt

    sweep = Sweep(SimConfig(net, measure=MEASURE, speedup=2), ROUTINGS, LOADS, tmp_path / "s", scheduler=client,
                  on_point=interrupt)
    with pytest.raises(KeyboardInterrupt):
        sweep.run()
    assert len(points(tmp_path / "s")) == 1  # the point recorded before Ctrl-C stays
    deadline = time.monotonic() + 10
    while dask_cluster.scheduler.tasks and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not dask_cluster.scheduler.tasks  # nothing left queued or running for this client
    assert client.status == "running"  # a client the caller gave is not closed
    again = Sweep(SimConfig(net, measure=MEASURE, speedup=2), ROUTINGS, [0.2], tmp_path / "s", scheduler=client)
    assert len(again.pending()) == 1  # the recorded point is kept and not run again


def die(cfg, load):
    """A point whose worker dies every time it runs."""
    os.kill(os.getpid(), signal.SIGKILL)


def test_killed_worker_point_is_resubmitted_then_reported(tmp_path, capfd, monkeypatch):
    import cloudpickle

    import radixnet.studies.sweep as sw
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers need not import this module
    monkeypatch.setattr(sw, "run_point", die)
    with local_cluster(n_workers=1, scheduler_kwargs={"allowed_failures": 0}) as c:
        rc = main(["sweep", *SMALL, "--routing", "min", "--loads", "0.2", "--no-plot", "--quiet",
                   "--out", str(tmp_path / "s"), "--scheduler", c.scheduler_address])
    err = [line for line in capfd.readouterr().err.splitlines() if line.startswith("radixnet")]
    assert rc == 1
    assert err == [f"radixnet sweep: min load 0.2: its workers died {cl.KILLED_RESUBMITS + 1} times (KilledWorker: "
                   "each time on distributed.scheduler.allowed-failures + 1 workers); not recorded, it runs again "
                   "next time"]
    assert not (tmp_path / "s" / "points.jsonl").exists()


def test_malformed_scheduler_is_one_line_exit_2(tmp_path):
    p = subprocess.run([sys.executable, "-m", "radixnet", "sweep", *SMALL, "--loads", "0.2", "--out",
                        str(tmp_path / "s"), "--scheduler", "http://head:8786"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("radixnet: error: --scheduler: must be tcp://HOST:PORT")
    assert not (tmp_path / "s").exists()


def test_unreachable_scheduler_is_one_line_exit_2(tmp_path, capfd, monkeypatch):
    with socket.socket() as s:  # a loopback port with nothing listening
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setattr(cl, "CONNECT_TIMEOUT", 1.0)
    rc = main(["sweep", *SMALL, "--loads", "0.2", "--out", str(tmp_path / "s"), "--scheduler", f"127.0.0.1:{port}"])
    err = capfd.readouterr().err
    assert rc == 2 and err.count("\n") == 1
    assert err.startswith(f"radixnet: error: --scheduler: no Dask scheduler answered at tcp://127.0.0.1:{port} "
                          "within 1 s")
    assert not (tmp_path / "s").exists()


def test_a_worker_without_radixnet_is_named():
    from importlib.metadata import PackageNotFoundError

    class Client:
        def run(self, fn, *args, on_error):
            return {"tcp://10.0.0.2:4000": "0.1.0", "tcp://10.0.0.3:4000": PackageNotFoundError("radixnet")}

    with pytest.raises(ParamError, match=r"--scheduler: worker tcp://10.0.0.3:4000 has no radixnet installed .*"
                                         r"run `make setup` on every worker machine"):
        cl._check_workers(Client())


@pytest.mark.parametrize("address", ["", "tcp://", "tcp://host", "host:0", "host:99999", "tcp://h:1/path",
                                     "ucx://h:1", "tcp://user@h:1"])
def test_parse_address_refuses(address):
    with pytest.raises(ParamError, match="--scheduler: must be tcp://HOST:PORT"):
        cl.parse_address(address)


def test_parse_address_normal_form():
    assert cl.parse_address(" 10.0.0.1:8786 ") == "tcp://10.0.0.1:8786"
    assert cl.parse_address("TLS://head:8786") == "tls://head:8786"
    assert cl.parse_address("[::1]:8786") == "tcp://[::1]:8786"


def test_simulate_all_gives_the_local_points_exactly(dask_cluster, tmp_path):
    """``--simulate-all``: no load is skipped, so the cluster's points.jsonl holds exactly the local run's
    results (the same points.jsonl values however the points were spread), whatever was in flight."""
    args = [*SMALL, "--routing", "min,val", "--loads", "0.4,0.6", "--no-plot", "--quiet", "--simulate-all"]
    assert main(["sweep", *args, "--out", str(tmp_path / "local"), "--jobs", "1"]) == 0
    assert main(["sweep", *args, "--out", str(tmp_path / "dask"), "--scheduler", dask_cluster.scheduler_address]) == 0
    a, b = by_key(points(tmp_path / "dask")), by_key(points(tmp_path / "local"))
    assert set(a) == set(b) and not any(r["skipped"] for r in a.values())
    assert any(r["result"]["saturated"] for r in a.values())   # val saturates here: the short-cut would skip
    assert {k: comparable(r) for k, r in a.items()} == {k: comparable(r) for k, r in b.items()}
