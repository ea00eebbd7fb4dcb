"""The co-simulation toolchain's settings (docs/cosim.md "Speed"): the C++ level, the options it brings, the build
key, and the design checks read back from a simulator's log."""

from __future__ import annotations

from pathlib import Path

import pytest

from radixnet.cosim.run import (
    AUTO_O1_CYCLES,
    PLANNED_CYCLES,
    CosimError,
    build_key,
    cxx_opt,
    planned_cycles,
    rtl_check_failures,
    verilator_args,
)

SPLIT = "--output-split"


def test_cxx_level_and_split(monkeypatch):
    """-O0 (the default) is not split; any higher level splits the C++ (gcc's optimiser on one huge function
    does not finish in minutes); a bad level is refused in one line naming the variable."""
    monkeypatch.delenv("RADIXNET_VERILATOR_OPT", raising=False)
    assert cxx_opt() == "-O0" and SPLIT not in verilator_args()
    monkeypatch.setenv("RADIXNET_VERILATOR_OPT", "-O1")
    assert cxx_opt() == "-O1" and SPLIT in verilator_args() and "--assert" in verilator_args()
    monkeypatch.setenv("RADIXNET_VERILATOR_OPT", "-O9")
    with pytest.raises(CosimError, match=r"^RADIXNET_VERILATOR_OPT must be one of auto, -O0, -O1.*'-O9'$"):
        cxx_opt()


@pytest.mark.parametrize("env", [None, "auto"])
def test_auto_level_follows_the_replay_length(monkeypatch, env):
    """``auto`` (the default) builds at -O1 from AUTO_O1_CYCLES replayed cycles on (where -O1's faster replay
    pays for its longer build), at -O0 below; an explicit level wins over the length."""
    if env is None:
        monkeypatch.delenv("RADIXNET_VERILATOR_OPT", raising=False)
    else:
        monkeypatch.setenv("RADIXNET_VERILATOR_OPT", env)
    for cycles, want in ((0, "-O0"), (AUTO_O1_CYCLES - 1, "-O0"), (AUTO_O1_CYCLES, "-O1")):
        token = PLANNED_CYCLES.set(cycles)
        try:
            assert cxx_opt() == want
        finally:
            PLANNED_CYCLES.reset(token)
    job = {"packets": [[0, 1, 2, 0, 1, AUTO_O1_CYCLES + 5]]}
    assert planned_cycles(job) == AUTO_O1_CYCLES + 5
    monkeypatch.setenv("RADIXNET_VERILATOR_OPT", "-O0")
    token = PLANNED_CYCLES.set(planned_cycles(job))
    assert cxx_opt() == "-O0"
    PLANNED_CYCLES.reset(token)


def test_build_key_holds_the_level(monkeypatch):
    """A build made at one level is not reused at another (the key holds the level and the options)."""
    v = "module t(input clk);\nendmodule\n"
    monkeypatch.setenv("RADIXNET_VERILATOR_OPT", "-O0")
    k0 = build_key(v, "verilator", False)[1]
    monkeypatch.setenv("RADIXNET_VERILATOR_OPT", "-O1")
    k1 = build_key(v, "verilator", False)[1]
    assert k0 != k1 and k1 == build_key(v, "verilator", False)[1] != build_key(v, "verilator", True)[1]


def test_design_checks_from_both_simulators_logs(tmp_path):
    """Verilator's and Icarus's ways of printing a failed assertion both count; Verilator's $stop line (and
    a testbench line) do not."""
    log = tmp_path / "sim.log"
    log.write_text("     0.00ns INFO     cocotb  Running tests\n"
                   "InputUnit overflow: flit arrived at a full VC buffer[150000] %Error: top.v:1612: Assertion failed "
                   "in top: 'assert' failed.\n"
                   "%Error: top.v:1612: Verilog $stop\n"
                   "InputUnit underflow: pop of an empty VCERROR: top.v:1618: \n"
                   "       Time: 25 Scope: top\n")
    n, first = rtl_check_failures(log)
    assert n == 2
    assert first == ["InputUnit overflow: flit arrived at a full VC buffer (line 1612 of the Verilog)",
                     "InputUnit underflow: pop of an empty VC (line 1618 of the Verilog)"]
    assert rtl_check_failures(tmp_path / "missing.log") == (0, [])


def test_build_under_a_relative_root(tmp_path, monkeypatch):
    """``radixnet cosim``'s default build root is relative (``build/cosim``): Verilator, which runs in the build
    directory, still finds the ports' control file, and the design is built there once."""
    from radixnet.cosim.run import build_design

    monkeypatch.chdir(tmp_path)
    verilog = ("module tiny(input wire clk, input wire [3:0] a, output reg [3:0] q);\n"
               "  always @(posedge clk) q <= a + 4'd1;\nendmodule\n")
    bdir, secs = build_design(verilog, "tiny", "verilator", False, Path("build/cosim"), False)
    assert bdir.is_absolute() and bdir.parent == tmp_path / "build" / "cosim" and secs > 0
    assert (bdir / "built.ok").exists() and (bdir / "ports.vlt").exists()
    assert build_design(verilog, "tiny", "verilator", False, Path("build/cosim"), False) == (bdir, 0.0)
