"""docs/studies.md's generated blocks (radixnet.study_docs): the page matches the stored results, and the
studies that compute in seconds still give those results."""

import json

import pytest

from radixnet import study_docs
from radixnet.studies.registry import run_study


def test_docs_match_the_stored_results():
    """Every block of a study with stored results is what those results render (else: make study-docs)."""
    assert study_docs.update(check=True) == []


def test_a_stale_block_is_found(tmp_path):
    doc = tmp_path / "studies.md"
    text = study_docs.DOC.read_text()
    begin, end = study_docs.markers("kim-power", "power")
    i = text.index(begin)
    doc.write_text(text[:i] + text[i:].replace("| 4.04 |", "| 4.05 |", 1))
    assert study_docs.update(check=True, doc=doc) == ["kim-power:power"]
    assert study_docs.update(doc=doc) == ["kim-power:power"] and doc.read_text() == text


def test_a_missing_block_is_an_error(tmp_path):
    doc = tmp_path / "studies.md"
    doc.write_text(study_docs.DOC.read_text().replace("<!-- study:slimfly-cost:networks:end -->", ""))
    with pytest.raises(ValueError, match="slimfly-cost:networks"):
        study_docs.update(check=True, doc=doc)


@pytest.mark.parametrize("name", ["kim-cost", "kim-power", "slimfly-cost"])
def test_the_study_reproduces_its_stored_results(name, tmp_path):
    """Pure computation, seconds: a fresh run gives the stored claims and points to the last digit."""
    run_study(name, tmp_path / name)
    stored = study_docs.RESULTS / name
    for f in ("claims.json", "points.json"):
        assert json.loads((tmp_path / name / f).read_text()) == json.loads((stored / f).read_text()), f


@pytest.mark.parametrize("name, kw", [
    ("2dfb-fig4", {}),
    pytest.param("2dfb-fig5", {}, marks=pytest.mark.slow),            # under a minute
    pytest.param("2dfb-fig5-terminal", {"rate": 1, "packet": 1, "jobs": 1}, marks=pytest.mark.slow),   # under a minute
    pytest.param("kim-fig4", {}, marks=pytest.mark.slow),             # Kim's router; about a minute and a half
    pytest.param("kim-fig14", {}, marks=pytest.mark.slow),            # seconds
    pytest.param("kim-fig6", {"jobs": 2}, marks=pytest.mark.slow),   # N = 1024, about 8 min
    pytest.param("ttn-dynamic", {"jobs": 2}, marks=pytest.mark.slow),  # the paper's 4,096 nodes, about 70 min on one core
])
def test_the_simulated_study_reproduces_its_stored_points(name, kw, tmp_path):
    """A simulation study's rerun: its claims and every point (accepted throughput, latency, saturation and
    its reasons) as stored, and the page's blocks rendered from the rerun unchanged."""
    run_study(study_docs.STUDIES[name].get("study", name), tmp_path / name, **kw)
    stored = study_docs.RESULTS / name
    assert json.loads((tmp_path / name / "claims.json").read_text()) == \
        json.loads((stored / "claims.json").read_text())
    results = tmp_path / "results"
    study_docs.take(name, tmp_path / name, results=results, figures=tmp_path)
    assert (results / name / "points.csv").read_text() == (stored / "points.csv").read_text()
    assert study_docs.update(check=True, results=results) == []


def test_sweep_points_leave_out_the_wall_clock(tmp_path):
    """``points.csv`` keeps what the simulation computed, not how long it took, what it skipped or what ran
    above the first saturated load (timing decides that), so a rerun matches it; routings keep the sweep's
    order, loads rise."""
    def rec(routing, load, **res):
        return json.dumps({"routing": routing, "load": load, "skipped": res.pop("skipped", False),
                           "result": {"accepted_throughput": load, "avg_latency": 3.0, "p99_latency": 4.0,
                                      "max_latency": 5, "saturated": False, "saturation_reasons": [],
                                      "wall_seconds": 0.5, **res}})
    (tmp_path / "uniform").mkdir()
    (tmp_path / "uniform" / "points.jsonl").write_text("\n".join([
        rec("val", 0.2), rec("min", 0.1), rec("val", 0.1), rec("min", 0.2, saturated=True,
                                                                 saturation_reasons=["backlog", "tail"]),
        rec("min", 0.4, saturated=True), rec("min", 0.3, skipped=True, accepted_throughput=None)]) + "\n")
    rows = study_docs.sweep_points(tmp_path)
    assert [(r["routing"], r["load"]) for r in rows] == [("val", 0.1), ("val", 0.2), ("min", 0.1), ("min", 0.2)]
    assert all(set(r) == set(study_docs.POINT_FIELDS) and r["sweep"] == "uniform" for r in rows)
    assert rows[3]["saturated"] is True and rows[3]["saturation_reasons"] == "backlog tail"


@pytest.mark.slow
def test_clex_tables_reproduces_its_stored_results(tmp_path):
    """The round model's four experiments (about a minute and 1.3 GiB): the stored claims and tables."""
    run_study("clex-tables", tmp_path / "clex")
    stored = study_docs.RESULTS / "clex-tables"

    def computed(x):   # what the experiments computed, not how long they took
        if isinstance(x, dict):
            return {k: computed(v) for k, v in x.items() if k != "wall_seconds"}
        return [computed(v) for v in x] if isinstance(x, list) else x
    for f in ("claims.json", "tables.json"):
        assert computed(json.loads((tmp_path / "clex" / f).read_text())) == \
            computed(json.loads((stored / f).read_text())), f


def test_take_refuses_what_is_not_a_run(tmp_path, capsys):
    assert study_docs.main(["--take", "kim-cost", str(tmp_path)]) == 2
    assert study_docs.main(["--take", "no-such-study", str(tmp_path)]) == 2
    (tmp_path / "claims.json").write_text("{}")
    assert study_docs.main(["--take", "2dfb-fig4", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 and "missing claims.json" in err[0] and "must be one of" in err[1]
    assert "no sweep's points.jsonl" in err[2]


@pytest.mark.parametrize("name, kw", [("kim-fig5", {}), ("kim-fig5-radixnet", {"router": "radixnet"})])
def test_kim_fig5_reproduces_its_stored_batches(name, kw, tmp_path):
    """Both study routers' batch runs (seconds each): the stored claims and batch table."""
    run_study("kim-fig5", tmp_path / name, **kw)
    stored = study_docs.RESULTS / name
    for f in ("claims.json", "fig5.csv"):
        assert (tmp_path / name / f).read_text() == (stored / f).read_text(), f


def test_a_run_of_the_other_router_is_refused(tmp_path, capsys):
    """``kim-fig5`` keeps Kim's router's run, ``kim-fig5-radixnet`` radixnet's: the run's claims say which."""
    for f in ("claims.json", "fig5.csv"):
        (tmp_path / f).write_bytes((study_docs.RESULTS / "kim-fig5-radixnet" / f).read_bytes())
    assert study_docs.main(["--take", "kim-fig5", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is not a run of kim-fig5" in err and "--set router=kim" in err
