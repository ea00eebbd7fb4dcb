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


@pytest.mark.slow
def test_clex_tables_reproduces_its_stored_results(tmp_path):
    """The round model's four experiments (about a minute and 1.3 GiB): the stored claims and tables."""
    run_study("clex-tables", tmp_path / "clex")
    stored = study_docs.RESULTS / "clex-tables"
    for f in ("claims.json", "tables.json"):
        assert json.loads((tmp_path / "clex" / f).read_text()) == json.loads((stored / f).read_text()), f


def test_take_refuses_what_is_not_a_run(tmp_path, capsys):
    assert study_docs.main(["--take", "kim-cost", str(tmp_path)]) == 2
    assert study_docs.main(["--take", "kim-fig4", str(tmp_path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 2 and "missing claims.json" in err[0] and "must be one of" in err[1]
