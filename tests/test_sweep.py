"""`radixnet sweep`: outputs, resume without loss, refusal of a changed configuration, determinism."""

import csv
import json
import subprocess
import sys

import pytest

from radixnet.cli import main
from radixnet.gen.pool import PointStore
from radixnet.studies.sweep import CSV_COLUMNS, parse_loads

#: a 4-ary 2-flat of routers with speedup 2, where min carries 0.8 of uniform load and val saturates at 0.6
SMALL = ["--topo", "fbfly", "--k", "4", "--n", "2", "--measure", "200", "--speedup", "2"]


def sweep(capsys, out, *args, jobs="1"):
    rc = main(["sweep", *SMALL, "--out", str(out), "--jobs", jobs, *args])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def points(out):
    return [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]


def key(rec):
    return rec["routing"], rec["load"]


def comparable(rec):
    """A record without its wall-clock time (the one field that differs between identical runs)."""
    res = {k: v for k, v in rec["result"].items() if k != "wall_seconds"}
    return {**rec, "result": res}


def test_parse_loads():
    grid = parse_loads("0.05:0.95:0.05")
    assert len(grid) == 19 and grid[0] == 0.05 and grid[-1] == 0.95 and grid[2] == 0.15
    assert parse_loads("0.1:0.35:0.1") == [0.1, 0.2, 0.3]  # stop off the grid: not included
    assert parse_loads("1:1:0.1") == [1.0]
    assert parse_loads("0.5,0.1,0.5") == [0.1, 0.5]


def test_sweep_writes_points_csv_and_plots(tmp_path, capsys):
    out = tmp_path / "s"
    rc, stdout, err = sweep(capsys, out, "--routing", "val,min", "--loads", "0.2,0.6,0.8")
    assert rc == 0, err
    recs = {key(r): r for r in points(out)}
    assert set(recs) == {(r, x) for r in ("val", "min") for x in (0.2, 0.6, 0.8)}
    assert all(r["seed"] == 0 and r["fingerprint"]["measure"] == 200 for r in recs.values())
    # Valiant routing halves uniform capacity: saturated at 0.6, so 0.8 is recorded, not simulated
    assert recs[("val", 0.6)]["result"]["saturated"] and not recs[("val", 0.6)]["skipped"]
    assert recs[("val", 0.8)]["skipped"] and recs[("val", 0.8)]["result"]["saturated"]
    assert "accepted_throughput" not in recs[("val", 0.8)]["result"]
    assert not recs[("min", 0.8)]["skipped"] and recs[("min", 0.8)]["result"]["avg_latency"] > 0
    with open(out / "val.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert [float(r["offered_load"]) for r in rows] == [0.2, 0.6, 0.8]
    assert [r["saturated"] for r in rows] == ["false", "true", "true"]
    assert rows[2]["avg_latency"] == "" and rows[2]["skipped"] == "true"
    for name in ("latency.png", "throughput.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert b"<svg" in (out / "latency.svg").read_bytes()[:1000]
    config = json.loads((out / "config.json").read_text())
    assert config["routings"] == ["val", "min"] and config["loads"] == [0.2, 0.6, 0.8]
    summary = {line.split()[0]: line.split() for line in stdout.splitlines()[1:3]}
    assert summary["val"][2] == "0.6" and summary["min"][2] == "none"
    assert "skipped (saturated at 0.6)" in err


def test_simulate_all_runs_the_loads_the_short_cut_skipped(tmp_path, capsys):
    """--simulate-all: the saturated loads an earlier run skipped are simulated on resume, and recorded once
    more (the later record wins); a fresh run with it skips nothing."""
    out = tmp_path / "s"
    args = ("--routing", "val", "--loads", "0.6,0.8", "--no-plot")
    assert sweep(capsys, out, *args)[0] == 0
    assert [r["skipped"] for r in points(out)] == [False, True]
    rc, _, err = sweep(capsys, out, *args, "--simulate-all")
    assert rc == 0 and "1 points to run" in err.replace("1 point to run", "1 points to run")
    recs = points(out)
    assert len(recs) == 3 and not recs[-1]["skipped"] and recs[-1]["load"] == 0.8
    assert recs[-1]["result"]["saturated"] and recs[-1]["result"]["accepted_throughput"] > 0
    assert json.loads((out / "config.json").read_text())["skip_saturated"] is False
    rc, _, err = sweep(capsys, out, *args, "--simulate-all")
    assert rc == 0 and len(points(out)) == 3   # nothing left to run


def test_resume_runs_nothing_new(tmp_path, capsys):
    out = tmp_path / "s"
    args = ("--routing", "min", "--loads", "0.2,0.4", "--no-plot")
    assert sweep(capsys, out, *args)[0] == 0
    before = (out / "points.jsonl").read_bytes()
    mtime = (out / "points.jsonl").stat().st_mtime_ns
    rc, stdout, err = sweep(capsys, out, *args)
    assert rc == 0
    assert "0 points to run, 2 already" in err
    assert (out / "points.jsonl").read_bytes() == before
    assert (out / "points.jsonl").stat().st_mtime_ns == mtime
    assert "min" in stdout


def test_interrupted_sweep_completes_only_missing_points(tmp_path, capsys):
    part, fresh = tmp_path / "part", tmp_path / "fresh"
    common = ("--routing", "min,ugal-s", "--no-plot")
    assert sweep(capsys, part, *common, "--loads", "0.2,0.6")[0] == 0
    first = points(part)
    # an interruption while a line was being written leaves half a line: it is dropped and that point re-runs
    with open(part / "points.jsonl", "a") as fh:
        fh.write('{"routing": "min", "load": 0.4, "se')
    rc, _, err = sweep(capsys, part, *common, "--loads", "0.2:0.8:0.2")
    assert rc == 0
    assert "incomplete last line" in err and "4 points to run, 4 already" in err
    after = points(part)
    assert after[:len(first)] == first  # the finished points are kept as they were
    assert {key(r) for r in after[len(first):]} == {(r, x) for r in ("min", "ugal-s") for x in (0.4, 0.8)}
    assert sweep(capsys, fresh, *common, "--loads", "0.2:0.8:0.2")[0] == 0
    full = {key(r): comparable(r) for r in points(fresh)}
    assert {key(r): comparable(r) for r in after} == full


def test_changed_configuration_is_refused(tmp_path, capsys):
    out = tmp_path / "s"
    assert sweep(capsys, out, "--routing", "min", "--loads", "0.2", "--no-plot")[0] == 0
    before = (out / "points.jsonl").read_bytes(), (out / "config.json").read_bytes()
    rc, _, err = sweep(capsys, out, "--routing", "min", "--loads", "0.2", "--vc-depth", "4")
    assert rc == 2
    assert err.count("\n") == 1 and "--out" in err and "different configuration" in err and "vc_depth" in err
    assert ((out / "points.jsonl").read_bytes(), (out / "config.json").read_bytes()) == before
    # another seed is not a different configuration: its points are added alongside
    assert sweep(capsys, out, "--routing", "min", "--loads", "0.2", "--seed", "3", "--no-plot")[0] == 0
    assert sorted(r["seed"] for r in points(out)) == [0, 3]


@pytest.mark.parametrize("loads", ["0:0.5:0.1", "0.5:0.1:0.1", "0.1:0.5:0", "0.1:0.5", "a,b", "0.5,1.5", ""])
def test_bad_loads_are_refused(tmp_path, capsys, loads):
    rc, _, err = sweep(capsys, tmp_path / "s", "--loads", loads)
    assert rc == 2
    assert err.startswith("radixnet: error: --loads:") and err.count("\n") == 1
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("args, name", [(["--routing", "min,nope"], "--routing"), (["--jobs", "0"], "--jobs")])
def test_bad_routing_or_jobs_is_refused(tmp_path, capsys, args, name):
    rc, _, err = sweep(capsys, tmp_path / "s", "--loads", "0.2", *args)
    assert rc == 2 and f"error: {name}:" in err and err.count("\n") == 1


def test_two_jobs_end_to_end_match_one_job(tmp_path, capsys):
    one, two = tmp_path / "one", tmp_path / "two"
    args = ["--routing", "min,ugal-s", "--loads", "0.2:0.6:0.2"]
    assert sweep(capsys, one, *args, "--no-plot")[0] == 0
    p = subprocess.run([sys.executable, "-m", "radixnet", "sweep", *SMALL, *args, "--out", str(two), "--jobs", "2"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "ugal-s" in p.stdout and (two / "latency.png").exists() and (two / "ugal-s.csv").exists()
    a = {key(r): comparable(r) for r in points(one)}
    b = {key(r): comparable(r) for r in points(two)}
    assert len(a) == 6 and a == b


def test_point_store_drops_a_cut_line(tmp_path):
    store = PointStore(tmp_path / "points.jsonl")
    rec = {"routing": "min", "load": 0.5, "seed": 0, "fingerprint": {}, "skipped": False, "result": {}}
    store.append(rec)
    with open(store.path, "a") as fh:
        fh.write('{"routing"')
    assert store.read() == [rec]
    store.append({**rec, "load": 0.6})
    assert [r["load"] for r in PointStore(store.path).read()] == [0.5, 0.6]


def test_watchdog_stop_is_reported_not_recorded(tmp_path, capsys, monkeypatch):
    import radixnet.studies.sweep as sw
    from radixnet.golden.sim import SimulationError

    class Stuck:
        def __init__(self, cfg):
            pass

        def run_load(self, load):
            raise SimulationError("watchdog: no flit moved")

    monkeypatch.setattr(sw, "Simulator", Stuck)
    rc, _, err = sweep(capsys, tmp_path / "s", "--routing", "min", "--loads", "0.2", "--no-plot")
    assert rc == 1 and "min load 0.2: watchdog: no flit moved" in err
    assert not (tmp_path / "s" / "points.jsonl").exists()  # not recorded: it runs again next time
