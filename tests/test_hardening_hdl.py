"""Hardening of ``radixnet rtl`` and ``radixnet cosim``: one line and exit 2 on bad input, checked
before any work; output paths checked up front; builds in a path with a space; the Icarus switch top."""

from __future__ import annotations

import shutil

import pytest

from radixnet.cli import main

needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")
needs_iverilog = pytest.mark.skipif(shutil.which("iverilog") is None, reason="iverilog not installed (make setup)")

RTL = ["rtl", "fbfly", "--k", "2", "--n", "2"]
COSIM = ["cosim", "--topo", "fbfly", "--k", "2", "--n", "2"]


def _one_line(capsys, *want):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert all(w in err[0] for w in want), err[0]


@pytest.mark.parametrize("extra, want", [
    (["--out", "/proc/radixnet-x"], ["--out", "/proc/radixnet-x"]),
    (["--out", ""], ["--out", "empty string"]),
    (["--vcs", "100000"], ["--vcs", "[1, 256]"]),
    (["--depth", "1000000000"], ["--depth", "[1, 4096]"]),
    (["--egress-depth", "-1"], ["--egress-depth"]),
    (["--threshold", "-1"], ["--threshold"]),
])
def test_rtl_refuses_in_one_line(tmp_path, capsys, monkeypatch, extra, want):
    monkeypatch.chdir(tmp_path)
    assert main([*RTL, *extra]) == 2
    _one_line(capsys, *want)
    assert list(tmp_path.iterdir()) == []          # nothing written, not even into the working directory


def test_rtl_out_naming_a_file(tmp_path, capsys):
    f = tmp_path / "f"
    f.write_text("x")
    assert main([*RTL, "--out", str(f)]) == 2
    _one_line(capsys, "--out", "not a directory")


def test_rtl_help_names_itself_and_every_option(capsys):
    with pytest.raises(SystemExit) as e:
        main([*RTL[:2], "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: radixnet rtl fbfly") and "rtlgen" not in out
    from radixnet.gen import get_family
    from radixnet.hdl.rtlgen import arg_parser

    actions = [a for a in arg_parser("radixnet rtl", get_family("fbfly"))._actions if a.option_strings]
    assert {"--k", "--vcs", "--depth", "--egress-depth", "--router-model", "--out"} <= \
        {o for a in actions for o in a.option_strings}
    assert all(a.help and len(a.help) > 10 for a in actions), [a.option_strings for a in actions if not a.help]
    assert all(o in out for a in actions for o in a.option_strings)


@pytest.mark.parametrize("extra, want", [
    (["--batch", "0"], ["--batch", "[1, 100000]"]),
    (["--cycles", "0"], ["--cycles"]),
    (["--data-width", "100000"], ["--data-width"]),
    (["--build-dir", "/proc/radixnet-x"], ["--build-dir"]),
])
def test_cosim_refuses_before_building(capsys, extra, want):
    assert main([*COSIM, *extra]) == 2
    _one_line(capsys, *want)


@needs_verilator
def test_cosim_builds_in_a_path_with_a_space(tmp_path, capsys):
    root = tmp_path / "with space" / "b"
    assert main([*COSIM, "--cycles", "40", "--build-dir", str(root)]) == 0
    assert "\nMATCH: " in "\n" + capsys.readouterr().out
    assert (root / "builds").is_symlink() and any((root / "builds").iterdir())


@needs_iverilog
def test_cosim_switch_top_under_icarus(tmp_path, capsys):
    """Icarus (-g2012) once read X in tuser's constant field (Yosys's constant `always @*`, no event at time 0)."""
    assert main([*COSIM, "--cycles", "50", "--sim", "icarus", "--build-dir", str(tmp_path)]) == 0
    assert "\nMATCH: " in "\n" + capsys.readouterr().out
