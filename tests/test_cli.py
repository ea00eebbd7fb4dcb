"""The `radixnet` command line: every family end to end, bad input refused in one line with exit 2."""

import json
import subprocess
import sys

import pytest

from radixnet.cli import main
from radixnet.gen import build, family_names

REQUIRED_KEYS = {"family", "params", "terminals", "routers", "radix", "network_degree", "diameter", "avg_distance",
                 "bisection_width", "bisection_exact", "arc_connectivity", "links"}

# One small instance of every family, as a user would type it.
SMALL = {
    "fbfly": ["--k", "4", "--n", "3"],
    "hyperx": ["--dims", "3,4", "--mult", "1,2", "--c", "2"],
    "2dfb": ["--k", "8", "--n", "1"],
    "hypercube": ["--n", "6"],
    "torus": ["--dims", "4,4,4"],
    "mesh": ["--dims", "4,5"],
    "slimfly": ["--q", "5"],
    "clex": [],
    "ttn": [],
    "tesh": [],
    "butterfly": ["--k", "4", "--n", "3"],
    "clos": ["--k", "4", "--n", "3"],
    "dragonfly": ["--p", "2"],
    "file": None,  # needs a file: see test_file_family_from_an_exported_edge_list
}


def run(*argv):
    p = subprocess.run([sys.executable, "-m", "radixnet", *argv], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def test_every_family_has_a_cli_case():
    assert set(family_names()) == set(SMALL)


@pytest.mark.parametrize("family", [f for f in SMALL if SMALL[f] is not None])
def test_topo_metrics_json(family, capsys):
    assert main(["topo", family, *SMALL[family], "--metrics", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert REQUIRED_KEYS <= set(report)
    assert report["family"] == family
    assert report["routers"] > 0 and report["terminals"] > 0
    assert report["diameter"] is None or report["diameter"] >= 1
    assert report["links"] <= report["channels"]


def test_file_family_from_an_exported_edge_list(tmp_path, capsys):
    path = tmp_path / "t.el"
    assert main(["topo", "torus", "--dims", "3,4", "--export", "edgelist", str(path)]) == 0
    capsys.readouterr()
    assert main(["topo", "file", "--path", str(path), "--metrics", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    torus = build("torus", dims=[3, 4])
    assert report["routers"] == 12 and report["channels"] == torus.num_channels and report["diameter"] == 3


def test_topo_list_names_every_family():
    code, out, _ = run("topo", "list")
    assert code == 0
    assert {line.split()[0] for line in out.splitlines()} == set(family_names())


@pytest.mark.parametrize("argv,needle", [
    (["topo", "fbfly", "--k", "1"], "--k: must be an integer >= 2"),
    (["topo", "fbfly", "--k", "four"], "--k:"),
    (["topo", "fbfly", "--k", "3", "--n", "2", "--radix", "6", "--spare", "redundant"], "--spare:"),
    (["topo", "fbfly", "--colour", "red"], "unrecognized arguments"),
    (["topo", "torus", "--dims", "4,1"], "--dims:"),
    (["topo", "slimfly", "--q", "6"], "--q:"),
    (["topo", "hyperx", "--dims", "2000,2000,2000"], "at most"),
    (["topo", "nosuch"], "unknown family"),
    (["topo", "--topo"], "--topo needs a family"),
    (["cost", "--topo"], "--topo needs a family"),
    (["cost", "--topo=nosuch"], "unknown family 'nosuch'"),
    (["topo", "torus", "--export", "svg", "/tmp/x"], "--export:"),
    (["frobnicate"], "unknown command"),
])
def test_bad_input_is_one_line_and_exit_2(argv, needle):
    code, out, err = run(*argv)
    assert code == 2
    assert err.count("\n") == 1 and needle in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("command", ["topo", "cost"])
def test_a_family_command_also_takes_topo_as_sim_does(command, capsys):
    """``radixnet topo FAMILY`` and ``cost FAMILY`` also take the family as ``--topo FAMILY`` (``sim``'s spelling),
    with the same result."""
    outs = []
    for head in (["fbfly"], ["--topo", "fbfly"], ["--topo=fbfly"]):
        assert main([command, *head, "--k", "4", "--n", "2", "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0]["family"] == "fbfly" and outs[0]["terminals"] == 16 and outs[0] == outs[1] == outs[2]


def test_family_help_lists_parameters():
    code, out, _ = run("topo", "fbfly", "--help")
    assert code == 0 and "--spare" in out and "Kim" in out
