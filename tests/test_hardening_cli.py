"""Bad command-line input is refused before any work: one line on stderr naming the parameter, exit status 2.

Covers ``radixnet study --set`` (each value against the study's declared bounds), ``radixnet cosim-matrix
--matrix`` (the file: regular, bounded size, entry count and nesting, printable names), ``radixnet mutate``'s
arguments and catalogue, and the private build root of a ``--build-dir`` with a space. Every command here is
refused before it simulates or builds anything, so the file runs in seconds.
"""

from __future__ import annotations

import inspect
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from radixnet.cosim.run import CosimError, private_dir, spaceless
from radixnet.studies.registry import STUDIES, STUDY_ARGS

ROOT = Path(__file__).resolve().parents[1]


def refused(args: list[str], needle: str, status: int = 2) -> str:
    """Run ``radixnet ARGS``; assert ``status``, exactly one stderr line holding ``needle``, no traceback."""
    r = subprocess.run([sys.executable, "-m", "radixnet", *args], capture_output=True, text=True, cwd=ROOT,
                       timeout=60)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == status, (r.returncode, r.stderr[-2000:])
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    return lines[0]


# ------------------------------------------------------------------ radixnet study --set
STUDY_BAD = [
    (["kim-fig12", "--set", "N=-1"], "--N: must be an integer in [4, 65536]"),
    (["kim-fig12", "--set", "N=100"], "--N: kim-fig12 needs an N with at least two k-ary n-flats"),
    (["kim-fig12", "--set", "storage=0"], "--storage: must be an integer in [2,"),
    (["kim-fig12", "--set", "storage=5"], "--storage: must be >= 11 for N = 4096"),  # MIN AD's 11 VCs
    (["slimfly-perf", "--set", "q=-1"], "--q: must be an integer in [3, 32]"),
    (["slimfly-perf", "--set", "q=6"], "--q: must be a prime power"),
    (["kim-fig5", "--set", "batches=1,2"], "--batches: must include a batch >= 4"),
    (["kim-fig5", "--set", "batches=4,4"], "--batches: must be a comma-separated list of 1 to 64 distinct"),
    (["kim-cost", "--set", "sizes=1000000000000"], "--sizes: must be a comma-separated list"),
    (["kim-power", "--set", "butterfly_sizes=1"], "--butterfly-sizes: must be a comma-separated list"),
    (["ttn-dynamic", "--set", "patterns="], "--patterns: must be a comma-separated list"),
    (["ttn-dynamic", "--set", "patterns=uniform,nope"], "--patterns: must be a comma-separated list"),
    (["ttn-dynamic", "--set", "m=4", "--set", "L=3"], "--L: ttn-dynamic needs m * L <= 8"),
    (["kim-fig6", "--set", "k=12"], "--k: kim-fig6 needs a power of two"),
    (["kim-fig4", "--set", "loads=0:1:0"], "--loads: step must be > 0"),
    (["kim-fig14", "--set", "measure=1"], "--measure: must be an integer in [10,"),
    (["clex-tables", "--set", "seed=-1"], "--seed: must be an integer in [0,"),
    (["kim-fig4", "--jobs", "100000"], "--jobs: must be an integer in [1, 256]"),
    (["kim-fig5", "--jobs", "0"], "--jobs: must be an integer in [1, 256]"),
    (["kim-fig4", "--k", "1"], "--k: must be an integer in [2, 256]"),
    (["kim-fig12", "--set", "Q=3"], "--set: 'Q=3': give NAME=VALUE with NAME one of N, loads, storage, measure"),
    (["kim-fig12", "--set", "N=abc"], "--N: must be an integer in [4, 65536] (got 'abc')"),
    (["ttn-dynamic", "--set", "L=1e3"], "--L: must be an integer in [2, 8] (got '1e3')"),
]


@pytest.mark.parametrize("args, needle", STUDY_BAD, ids=[" ".join(a) for a, _ in STUDY_BAD])
def test_study_values_refused_before_any_work(tmp_path, args, needle):
    out = tmp_path / "out"
    refused(["study", *args, "--out", str(out), "--quiet"], needle)
    assert not out.exists()  # refused before any file or simulation


#: every numeric parameter of every study, given a value that is not a number (in-process: one import)
NOT_NUMBERS = [(name, p.name) for name, st in STUDIES.items() for p in st.params if p.type in (int, list)]


@pytest.mark.parametrize("name, param", NOT_NUMBERS, ids=[f"{n} {p}" for n, p in NOT_NUMBERS])
def test_study_non_numbers_refused(tmp_path, capsys, name, param):
    from radixnet.cli import main
    assert main(["study", name, "--set", f"{param}=abc", "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"--{param.replace('_', '-')}: must be " in err[0] and "'abc'" in err[0], err
    assert not (tmp_path / "out").exists()


def test_study_declarations_match_the_functions():
    """Each study declares exactly its function's parameters (besides the runner's), with the same defaults."""
    for name, st in STUDIES.items():
        sig = inspect.signature(st.run).parameters
        own = {k: v.default for k, v in sig.items() if k not in STUDY_ARGS and v.kind is not v.VAR_KEYWORD}
        declared = {p.name: p.default for p in st.params}
        assert declared.keys() == own.keys(), name
        for k, v in own.items():
            assert (tuple(v) if isinstance(v, list) else v) == declared[k], (name, k)


# ------------------------------------------------------------------ radixnet cosim-matrix --matrix
def _matrix_file(tmp_path: Path, kind: str) -> Path:
    if kind == "device":
        return Path("/dev/zero")
    if kind == "fifo":
        p = tmp_path / "m.toml"
        os.mkfifo(p)
        return p
    p = tmp_path / ("m.json" if kind in ("deep", "many", "big") else "m.toml")
    if kind == "deep":
        p.write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "many":
        p.write_text(json.dumps([{"topo": "fbfly", "k": 2, "n": 2, "seed": i} for i in range(20_000)]))
    elif kind == "big":
        p.write_text(" " * (2 << 20) + "[]")
    elif kind == "name":
        p.write_text('[[config]]\nname = "two\\nlines"\ntopo = "fbfly"\nk = 2\nn = 2\n')
    elif kind == "binary":
        p.write_bytes(b"\xff\xfe\x00\x01")
    return p


MATRIX_BAD = [("device", "not a regular file"), ("fifo", "not a regular file"), ("deep", "nest deeper than 16"),
              ("many", "holds 20,000 configurations; at most 1,000"), ("big", "a matrix file is at most 1,048,576"),
              ("name", "name: must be a non-empty line of at most 128 printable characters (got 'two\\nlines')"),
              ("binary", "not UTF-8 text")]


@pytest.mark.parametrize("kind, needle", MATRIX_BAD, ids=[k for k, _ in MATRIX_BAD])
def test_matrix_file_refused_in_one_line(tmp_path, kind, needle):
    path = _matrix_file(tmp_path, kind)
    line = refused(["cosim-matrix", "--matrix", str(path), "--out", str(tmp_path / "out")], needle)
    assert line.startswith("radixnet cosim-matrix: error: ") and str(path) in line
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ radixnet mutate
MUTATE_BAD = [
    ("binary catalogue", ["--catalogue", "{bin}", "--list"], "--catalogue {bin}: not UTF-8 text"),
    ("catalogue mutant = 5", ["--catalogue", "{m5}", "--list"], "--catalogue {m5}: mutant must be an array of [[mutant]] tables"),
    ("catalogue device", ["--catalogue", "/dev/zero"], "--catalogue /dev/zero: not a regular file"),
    ("checks missing", ["--checks", "@{tmp}/nonexistent"], "--checks @{tmp}/nonexistent: No such file"),
    ("checks binary", ["--checks", "@{bin}"], "--checks @{bin}: not UTF-8 text"),
    ("timeout nan", ["--timeout", "nan"], "--timeout: must be a number of seconds in (0, "),
    ("timeout negative", ["--timeout", "-1"], "--timeout: must be a number of seconds in (0, "),
    ("repo missing", ["--repo", "/nonexistent"], "--repo: /nonexistent is not a radixnet repository"),
    ("out device", ["--out", "/dev/full"], "--out: /dev/full exists and is not a directory"),
    ("cache proc", ["--cache", "/proc/x"], "--cache: cannot create directory /proc/x"),
    ("only empty", ["--only", ","], "--only: must be a comma-separated list of mutant ids"),
    ("jobs huge", ["--jobs", "100000"], "--jobs: must be an integer in [1, 256]"),
]


@pytest.mark.parametrize("args, needle", [m[1:] for m in MUTATE_BAD], ids=[m[0] for m in MUTATE_BAD])
def test_mutate_arguments_refused_in_one_line(tmp_path, args, needle):
    files = {"bin": tmp_path / "bin.toml", "m5": tmp_path / "m5.toml", "tmp": tmp_path}
    files["bin"].write_bytes(b"\xff\xfe\x00garbage")
    files["m5"].write_text("mutant = 5\n")
    fill = {k: str(v) for k, v in files.items()}
    args = [a.format(**fill) for a in args]
    if "--out" not in args:
        args += ["--out", str(tmp_path / "out")]
    refused(["mutate", *args], "radixnet mutate: error: " + needle.format(**fill))
    assert not (tmp_path / "out").exists()  # nothing written, no check run


# ------------------------------------------------------------------ a --build-dir with a space: a private root
@pytest.mark.parametrize("mode", [0o777, 0o770, 0o702])
def test_build_root_writable_by_others_is_refused(tmp_path, mode):
    root = tmp_path / "root"
    root.mkdir()
    root.chmod(mode)
    with pytest.raises(CosimError, match="writable by its group or others") as e:
        private_dir(root)
    assert "\n" not in str(e.value)


def test_build_root_link_or_other_owner_is_refused(tmp_path, monkeypatch):
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(CosimError, match="is a link"):
        private_dir(tmp_path / "link")
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o700)
    monkeypatch.setattr(os, "getuid", lambda: os.stat(mine).st_uid + 1)
    with pytest.raises(CosimError, match="belongs to another user"):
        private_dir(mine)


def test_build_dir_with_space_gets_a_private_reused_root(tmp_path, monkeypatch):
    import tempfile
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    root = spaceless(tmp_path / "with space")
    assert root.parent == tmp and stat.S_IMODE(root.stat().st_mode) & 0o077 == 0
    assert (tmp_path / "with space" / "builds").resolve() == root.resolve()
    (root / "keep").write_text("a cached build")
    assert spaceless(tmp_path / "with space") == root and (root / "keep").exists()  # its owner's cache stays
    root.chmod(0o777)  # as if someone else could have written into it
    with pytest.raises(CosimError, match="writable by its group or others"):
        spaceless(tmp_path / "with space")


@pytest.mark.parametrize("value", ["1e308", "1e13", "inf", "nan", "-1"])
def test_cost_parameter_out_of_range_refused_in_one_line(value):
    """A cost-model value the model's sums cannot hold (``COST_PARAM_MAX``) or that is no finite number: one line,
    exit 2, no ``Infinity`` in a JSON report."""
    refused(["cost", "fbfly", "--k", "4", "--n", "2", "--cost", f"router_chip={value}", "--json"], "router_chip")


def test_cost_parameter_at_its_maximum_stays_finite(capsys):
    from radixnet.cli import main
    from radixnet.gen.cost import COST_PARAM_MAX
    assert main(["cost", "fbfly", "--k", "4", "--n", "2", "--cost", f"router_chip={COST_PARAM_MAX:g}",
                 "--cost", f"cable_per_m={COST_PARAM_MAX:g}", "--json"]) == 0
    out = capsys.readouterr().out
    rep = json.loads(out)
    assert "Infinity" not in out and 1e11 < rep["cost_per_node"] < 1e15


def test_huge_dims_list_refused_in_one_short_line():
    """50,001 torus dimensions: a network of about 10^15052 routers, refused in one line of bounded length (no
    "Exceeds the limit (4300 digits)" traceback, no 100 KB message)."""
    line = refused(["topo", "torus", "--dims", ",".join(["2"] * 50001)], "about 10^15052 routers")
    assert len(line) < 400


def test_graphml_with_two_graphs_refused(tmp_path):
    """networkx reads a GraphML file's first graph only: a file with two is refused, not half read."""
    f = tmp_path / "two.graphml"
    f.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
                 '<graph id="a" edgedefault="undirected"><node id="0"/><node id="1"/><edge source="0" target="1"/>'
                 '</graph>\n<graph id="b" edgedefault="undirected"><node id="2"/><node id="3"/>'
                 '<edge source="2" target="3"/></graph>\n</graphml>\n')
    refused(["topo", "file", "--path", str(f)], "holds 2 graphs")


def test_file_name_too_long_refused_in_one_line(tmp_path):
    """A 300-character file name (past the file system's 255): refused before any work, in one short line."""
    line = refused(["topo", "fbfly", "--k", "4", "--n", "2", "--export", "json", str(tmp_path / ("a" * 300))],
                   "File name too long")
    assert "--export" in line and len(line) < 300


def test_sweep_points_with_wrong_types_run_again(tmp_path):
    """A ``points.jsonl`` line with every key but a wrong type (``"result": "oops"``) or an edited load outside
    (0, 1] is not a record: a warning naming the file, line and field, and the point runs again (no traceback,
    no silent use of the edited load)."""
    out = tmp_path / "sw"
    args = ["sweep", "--topo", "fbfly", "--k", "2", "--n", "2", "--routing", "min", "--loads", "0.1,0.2",
            "--measure", "200", "--out", str(out), "--quiet"]
    r = subprocess.run([sys.executable, "-m", "radixnet", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr
    path = out / "points.jsonl"
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    recs[0]["result"] = "oops"
    recs[1]["load"] = 5.0
    path.write_text("".join(json.dumps(x) + "\n" for x in recs))
    r = subprocess.run([sys.executable, "-m", "radixnet", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "points.jsonl:1: 'result' must be a JSON object" in r.stderr
    assert "points.jsonl:2: 'load' must be in (0, 1] (got 5.0)" in r.stderr
    again = [json.loads(x) for x in path.read_text().splitlines()[2:]]
    assert sorted(x["load"] for x in again) == [0.1, 0.2]
