"""Mutation testing as a tool (docs/cosim.md): the catalogue, and a small sample of the run end to end.

The whole catalogue against the default checks is slow (``make mutate``, about an hour); here every
catalogue entry is checked to still apply to the sources (its find text occurs exactly once), and three
cheap mutants -- killed by RTL unit tests, no Verilator build -- go through the runner end to end:
snapshot, mutated copy, checks, kill table, resume, and the one-line refusal of a failing baseline.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from radixnet.cosim.mutate import (
    CATALOGUE,
    DEFAULT_CHECKS,
    SUMMARY_LINE,
    Mutant,
    MutateError,
    apply,
    classify,
    load_catalogue,
    package_path,
)

ROOT = Path(__file__).resolve().parents[1]
CAT = load_catalogue()


def test_catalogue_ids_unique_and_size():
    ids = [m.id for m in CAT]
    assert len(ids) == len(set(ids))
    assert 25 <= len(CAT) <= 140   # one catalogue per router model grows it; a cap keeps a full run finite
    # the bug classes the issue names are all there
    classes = {m.cls for m in CAT}
    for c in ("stuck pointer", "off-by-one credits", "swapped index", "inverted compare", "dropped chain state",
              "late credit", "header bit", "VC choice ignores busy VCs", "tready ignored"):
        assert c in classes, c


@pytest.mark.parametrize("m", CAT, ids=[m.id for m in CAT])
def test_every_find_text_matches_exactly_once(m):
    """A refactoring that moves a mutated line must update its entry (cosim/mutations.toml)."""
    path = ROOT / m.file
    assert path.exists(), m.file
    text = path.read_text()
    assert text.count(m.find) == 1, f"{m.id}: find text occurs {text.count(m.find)} times in {m.file}"
    mutated = apply(m, text)
    assert mutated != text
    compile(mutated, str(path), "exec")
    assert package_path(m.file).parts[:2] == ("radixnet", m.file.split("/")[0])


def test_catalogue_validation(tmp_path):
    dup = tmp_path / "dup.toml"
    entry = '[[mutant]]\nid = "a"\nfile = "hdl/arbiter.py"\nfind = "x"\nreplace = "y"\nclass = "c"\ndesc = "d"\n'
    dup.write_text(entry * 2)
    with pytest.raises(MutateError, match="not unique"):
        load_catalogue(dup)
    noop = tmp_path / "noop.toml"
    noop.write_text(entry.replace('replace = "y"', 'replace = "x"'))
    with pytest.raises(MutateError, match="changes nothing"):
        load_catalogue(noop)
    with pytest.raises(MutateError, match="occurs 2 times"):
        apply(Mutant("m", "hdl/a.py", "a", "b", "c", "d"), "a a")
    with pytest.raises(MutateError, match="not in the package"):
        package_path("docs/cosim.md")


def test_classify():
    assert classify("AssertionError: mismatch", "") == "test"
    assert classify("assert 3 == 0", "") == "test"
    assert classify("radixnet.cosim.run.CosimError: verilator build failed (see x)", "") == "build"
    assert classify("ValueError: CreditCounter: depth ...", "x/radixnet/hdl/credits.py:100: in __init__") == "build"
    assert classify("radixnet.cosim.run.CosimError: verilator run failed (see x)", "") == "error"


def test_summary_line_not_a_log_record():
    """The failing node comes from pytest's short summary, not from a captured log record at level ERROR
    (cocotb's runner logs "ERROR    ...: Failed 1 of 1 tests" before the summary)."""
    log = ("------------------------------ Captured log call ------------------------------\n"
           "ERROR    Verilator:runner.py:674 ERROR: Failed 1 of 1 tests.\n"
           "=========================== short test summary info ===========================\n"
           "FAILED tests/test_cosim_hiradix.py::test_decision_line_ugal_s - AssertionError: packet 14\n")
    m = SUMMARY_LINE.search(log)
    assert m.group(2) == "tests/test_cosim_hiradix.py::test_decision_line_ugal_s"
    assert m.group(3) == "AssertionError: packet 14"


def test_default_checks_are_in_the_default_suite():
    """Every check stage names existing test files, none of them marked slow."""
    for stage in DEFAULT_CHECKS:
        for arg in stage.replace("'", " ").split():
            if arg.startswith("tests/"):
                assert (ROOT / arg.split("::")[0]).exists(), arg
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "slow", "-p", "no:cacheprovider",
                        *[a.strip("'") for a in DEFAULT_CHECKS[1].split()]],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 5, r.stdout[-800:]   # every one deselected by -m slow: none is slow


SAMPLE = ["rr_ptr_stuck", "credit_reset_short", "vcsel_ties_high"]
# cheap checks that kill the sample: the arbiter and credit-counter units, then the VC choice unit
SAMPLE_CHECKS = ("tests/test_hdl_units.py -k 'arbiter or credit_counter'; "
                 "tests/test_hdl_router_units.py -k output_vc_select_exhaustive")


def _tree_digest():
    return hashlib.sha1(b"".join((ROOT / m.file).read_bytes() for m in CAT)).hexdigest()


def test_sample_end_to_end(tmp_path):
    """Three mutants through the runner: each killed by the unit test that checks its unit; the working tree
    untouched; the kill table written; a second run resumes instead of running them again."""
    cat = tmp_path / "sample.toml"
    text = CATALOGUE.read_text()
    blocks = ["[[mutant]]" + b for b in text.split("[[mutant]]")[1:]]
    keep = [b for b in blocks if any(f'id = "{i}"' in b for i in SAMPLE)]
    stale = ('[[mutant]]\nid = "stale_entry"\nfile = "hdl/arbiter.py"\nfind = "no such text anywhere"\n'
             'replace = "x"\nclass = "demo"\ndesc = "a find text that no longer matches"\n')
    cat.write_text("\n".join(keep) + "\n" + stale)
    before = _tree_digest()
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "radixnet.cosim.mutate", "--catalogue", str(cat), "--out", str(out), "--no-seed",
           "--cache", str(tmp_path / "cache"), "--checks", SAMPLE_CHECKS]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert _tree_digest() == before
    doc = json.loads((out / "kill-table.json").read_text())
    rows = {x["id"]: x for x in doc["mutants"]}
    assert rows["rr_ptr_stuck"]["status"] == "killed"
    assert rows["rr_ptr_stuck"]["by"].startswith("tests/test_hdl_units.py::test_arbiter")
    assert rows["credit_reset_short"]["by"].startswith("tests/test_hdl_units.py::test_credit_counter")
    assert rows["vcsel_ties_high"]["by"].startswith("tests/test_hdl_router_units.py::test_output_vc_select")
    assert all(rows[i]["kind"] == "test" for i in SAMPLE)
    assert rows["stale_entry"]["status"] == "stale"
    assert (doc["killed"], doc["counted"]) == (3, 3)
    assert "score: 3 of 3 killed (100.0 %)" in r.stdout
    md = (out / "kill-table.md").read_text()
    assert "| `vcsel_ties_high` |" in md and "Score: 3 of 3 killed" in md
    assert (out / "kill-table.csv").read_text().count("\n") == 5
    # resume: nothing runs again (the stale entry is retried: the sources may have moved back)
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 0 and "resuming, 3 mutants already done" in r.stdout, r.stdout[-2000:]
    assert "[1/1] stale_entry" in r.stdout


def test_failing_baseline_is_refused_in_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "radixnet.cosim.mutate", "--only", "rr_ptr_stuck", "--out",
                        str(tmp_path / "out"), "--no-seed", "--cache", str(tmp_path / "cache"),
                        "--checks", "tests/test_hdl_units.py::test_no_such_test"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert r.returncode == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("radixnet mutate: error: the unmutated sources fail the checks"), r.stderr


def test_bad_arguments_one_line(tmp_path):
    for args, needle in ((["--only", "nope"], "--only: unknown mutant id"), (["--jobs", "0"], "--jobs"),
                         (["--jobs", "x"], "--jobs: invalid int value"), (["--bogus"], "unrecognized arguments")):
        r = subprocess.run([sys.executable, "-m", "radixnet.cosim.mutate", *args, "--out", str(tmp_path)],
                           capture_output=True, text=True, cwd=tmp_path, timeout=120)
        assert r.returncode == 2 and needle in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")
def test_a_mutant_that_leaves_the_verilog_alone_is_dropped(tmp_path):
    """A change that reaches no generated Verilog (here a docstring) passes every check; the co-simulated
    design is byte for byte the unmutated one (its verdict comes from the unmutated run's memo, it is not
    simulated again), so the mutant is dropped, not counted as a survivor."""
    cat = tmp_path / "noop.toml"
    cat.write_text('[[mutant]]\nid = "docstring_only"\nfile = "hdl/credits.py"\n'
                   'find = "Credit counter of one output VC"\nreplace = "Credit counter of one output VC, reworded"\n'
                   'class = "demo"\ndesc = "changes no hardware"\n')
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "radixnet.cosim.mutate", "--catalogue", str(cat), "--out", str(out),
                        "--cache", str(tmp_path / "cache"), "--checks", "tests/test_cosim.py::test_batch_mode"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=900)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    row = json.loads((out / "kill-table.json").read_text())["mutants"][0]
    assert row["status"] == "dropped" and row["designs"] and not row["new_designs"], row
    assert "dropped (Verilog identical)" in r.stdout and "score: 0 of 0 killed" in r.stdout
