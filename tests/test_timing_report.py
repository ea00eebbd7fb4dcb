"""The device timing flow (hdl/timing_report.py): a small router core through the ECP5 and Xilinx flows.

The full report (radix 8 and 16, both router models, both allocators) takes tens of minutes:
``make timing-report``. Here one radix-4 core goes through every step in about 20 s on an idle machine (about a
minute beside other jobs), under ``-m slow``; the default suite checks the harness and the arguments.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from radixnet.hdl import timing_report as tr


@pytest.mark.slow
def test_small_core_end_to_end(tmp_path):
    """Post-route Fmax, resources, a critical path of named signals, Xilinx counts; the second run is cached,
    and the report names the tools, the seed and each row."""
    versions = tr.tool_versions()
    row = tr.Row(4, "iq", "greedy", vcs=1, depth=2, width=8)
    got = tr.run_row(row, tmp_path, versions=versions, log=lambda s: None)
    assert not got["cached"] and got["n_ports"] == 4
    assert 10 < got["fmax_mhz"] < 1000 and got["gbit_s"] == pytest.approx(4 * 8 * got["fmax_mhz"] / 1000, abs=0.1)
    assert got["luts"] > 100 and got["ffs"] > 50 and got["xilinx"]["luts"] > 50
    assert got["critical_path"] and all("$" not in s and "TRELLIS" not in s for s in got["critical_path"])
    assert got["crit_segments"] and all(s["ns"] >= 0 and s["dist"] >= 0 for s in got["crit_segments"])
    # nextpnr's slack histogram: no endpoint fails half the Fmax, the worst one fails 5 % above it, more fail higher
    hist = got["slack_histogram"]
    assert sum(b[2] * hist["unit"] + b[3] for b in hist["bins"]) > 50
    assert tr.failing_endpoints(hist, got["fmax_mhz"] / 2, 100.0) == (0, 0)
    # the endpoints that miss each target, by register family (nextpnr's detailed timing): none, this core is fast
    assert [(c["mhz"], c["failing"]) for c in got["endpoint_families"]] == [(100.0, 0), (120.0, 0)]
    above, far = (tr.failing_endpoints(hist, got["fmax_mhz"] * x, 100.0) for x in (1.05, 3))
    assert above[1] >= 1 and far[0] >= above[0] and far[0] > 0
    # LUT levels in front of every register, from the netlist: each flip-flop counted, the deepest named
    lv = got["logic_levels"]
    assert sum(lv["levels"].values()) >= got["ffs"] and max(lv["levels"]) == lv["deepest"][0][0] >= 2
    assert all("TRELLIS" not in name for _, name in lv["deepest"])
    assert json.loads((tmp_path / f"{row.name}.json").read_text())["fmax_mhz"] == got["fmax_mhz"]
    # another placer seed places the same netlist: synthesised once in this process
    said = []
    seed2 = tr.run_row(row, tmp_path, versions=versions, seed=2, xilinx=False, log=said.append)
    assert not seed2["cached"] and seed2["synth_s"] == got["synth_s"] and seed2["luts"] > 100
    assert not any("synth_ecp5" in s for s in said) and any("--seed 2" in s for s in said)
    again = tr.run_row(row, tmp_path, versions=versions, log=lambda s: None)
    assert again["cached"] and again["fmax_mhz"] == got["fmax_mhz"]
    # nextpnr's other router: a row of its own, cached beside the default router's
    said = []
    r2 = tr.run_row(row, tmp_path, versions=versions, xilinx=False, flow=tr.Flow(router="router2"), log=said.append)
    assert not r2["cached"] and r2["pnr_router"] == "router2" and 10 < r2["fmax_mhz"] < 1000
    assert any("--router router2" in s for s in said) and (tmp_path / f"{row.name}-router2.json").exists()
    assert "pnr_router" not in got
    assert "(router2); device" in tr.render([r2], command="x", versions=versions, device="85k", freq=100,
                                            flow=tr.Flow(router="router2"))
    # nextpnr's timing-driven rip-up: a row of its own too, keyed by it
    said = []
    tr_ = tr.run_row(row, tmp_path, versions=versions, xilinx=False, flow=tr.Flow(tmg_ripup=True), log=said.append)
    assert not tr_["cached"] and tr_["tmg_ripup"] and tr_["key"] != got["key"] and 10 < tr_["fmax_mhz"] < 1000
    assert any("--tmg-ripup" in s for s in said) and (tmp_path / f"{row.name}-tmgripup.json").exists()
    assert "tmg_ripup" not in got
    assert "(timing-driven rip-up); device" in tr.render([tr_], command="x", versions=versions, device="85k",
                                                         freq=100, flow=tr.Flow(tmg_ripup=True))
    # nextpnr's electrostatic placer: a row of its own too
    said = []
    st = tr.run_row(row, tmp_path, versions=versions, xilinx=False, flow=tr.Flow(placer="static"), log=said.append)
    assert not st["cached"] and st["placer"] == "static" and st["key"] != got["key"] and 10 < st["fmax_mhz"] < 1000
    assert any("--placer static" in s for s in said) and (tmp_path / f"{row.name}-static.json").exists()
    assert "placer" not in got
    assert "(static placer); device" in tr.render([st], command="x", versions=versions, device="85k", freq=100,
                                                  flow=tr.Flow(placer="static"))
    other = tr.Row(4, "single-cycle", "greedy", vcs=1, depth=2, width=8)
    assert tr.run_row(other, tmp_path, versions=versions, log=lambda s: None, cached_only=True) is None
    text = tr.render([got], command="x", versions=versions, device="85k", freq=100, seeds=(1,), missing=[other.name])
    assert "nextpnr" in text and "placer seed 1" in text and "| 4 | iq | greedy (sp) | 1 |" in text
    assert other.name in text.split("not in this report")[1]
    # speedup-2 rows have their own cache file next to the speedup-1 row's
    assert tr.Row(8, "iq", "greedy", speedup=2).name == "r8-iq-greedy-s2-v2-b4-w32" != tr.Row(8, "iq", "greedy").name


def test_subswitch_rows_of_another_group_size():
    """``--group G``: a ``subswitch`` row of sub-switches other than 4 ports has a cache file and a model cell of
    its own; the other models ignore ``G``."""
    g2 = tr.Row(8, "subswitch", "greedy", group=2)
    assert g2.name == "r8-subswitch-g2-greedy-v2-b4-w32" != tr.Row(8, "subswitch", "greedy").name
    assert tr.Row(8, "iq", "greedy", group=2).name == tr.Row(8, "iq", "greedy").name
    assert g2.router().group == 2
    assert [r.group for r in tr.rows([8], ["subswitch"], ["greedy"], group=2)] == [2]
    row = {"name": g2.name, "radix": 8, "model": "subswitch", "group": 2, "allocator": "greedy", "routing": "sp",
           "speedup": 1, "fmax_mhz": 70.0, "gbit_s": 17.9, "luts": 1, "ffs": 1, "lutram_w": 0, "bram": 0,
           "xilinx": None, "crit_logic_ns": 3.0, "crit_routing_ns": 11.0, "critical_path": ["a", "b"], "vcs": 2,
           "depth": 4, "width": 32}
    text = tr.render([row], command="x", versions={"yosys": "y", "nextpnr": "n"}, device="85k", freq=100)
    assert "| 8 | subswitch G=2 | greedy (sp) | 1 | 70.0 |" in text and "* r8 subswitch G=2 greedy" in text
    assert tr.main(["--group", "0", "--cached-only"]) == 2


def test_rows_with_three_front_registers():
    """``--buffer-fronts 3`` (router-spec §R11.1a): a split model's row has a cache file and a model cell of its
    own; the other models ignore it."""
    f3 = tr.Row(8, "hiradix-decoupled", "greedy", buffer_fronts=3)
    assert f3.name == "r8-hiradix-decoupled-f3-greedy-v2-b4-w32" != tr.Row(8, "hiradix-decoupled", "greedy").name
    assert f3.router().buffer_fronts == 3
    assert [r.buffer_fronts for r in tr.rows([8], ["iq", "hiradix"], ["greedy"], buffer_fronts=3)] == [2, 3]
    assert tr._model({"model": "hiradix", "buffer_fronts": 3}) == "hiradix fronts=3"
    assert tr._model({"model": "hiradix"}) == "hiradix"
    assert tr.main(["--buffer-fronts", "4", "--cached-only"]) == 2


def test_registered_io_harness():
    """The harness registers every port bit of the core once: a combinational core's output shows two clock
    edges after its input (input register, output register), a path the bare core would leave untimed; and
    ``bits`` counts the port bits (the flip-flops the report subtracts)."""
    from amaranth import Module
    from amaranth.lib import wiring
    from amaranth.lib.wiring import In, Out
    from amaranth.sim import Simulator

    class Inc(wiring.Component):
        def __init__(self):
            super().__init__({"a": In(4).array(2), "y": Out(4)})

        def elaborate(self, platform):
            m = Module()
            m.d.comb += self.y.eq(self.a[0] + self.a[1])
            return m

    top = tr.RegisteredIO(Inc())
    assert top.bits == 12
    seen = []

    async def bench(ctx):
        ctx.set(top.a[0], 3)
        ctx.set(top.a[1], 4)
        for _ in range(3):
            seen.append(ctx.get(top.y))
            await ctx.tick()
        seen.append(ctx.get(top.y))

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    assert seen == [0, 0, 7, 7]


@pytest.mark.parametrize("argv, needle", [
    (["--radix", "7"], "--radix"),
    (["--models", "deep"], "--models"),
    (["--device", "12k"], "--device"),
    (["--jobs", "0"], "--jobs"),
    (["--speedups", "3"], "--speedups"),
    (["--no-ecp5", "--no-xilinx"], "nothing to run"),
    (["--xilinx-yosys", "vivado"], "--xilinx-yosys"),
    (["--pnr-router", "router3"], "--pnr-router"),
    (["--nextpnr", "wasm"], "--nextpnr"),
    (["--speed", "9"], "--speed"),
])
def test_bad_arguments_one_line(capsys, argv, needle):
    assert tr.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_native_nextpnr_version_is_the_makefiles():
    """The native build's version is written twice, in the Makefile (what ``make nextpnr-native`` builds and the
    directory it writes) and here (where the report looks): the same."""
    import re
    from pathlib import Path

    make = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    assert re.search(r"^NEXTPNR_VERSION := (\S+)$", make, re.M)[1] == tr.NEXTPNR_NATIVE_VERSION


def test_native_nextpnr_missing_is_refused_before_work(capsys, monkeypatch):
    """``--nextpnr native`` without ``make nextpnr-native``'s binary: one line naming the target, exit 2, nothing run."""
    monkeypatch.setenv("RADIXNET_NEXTPNR", "/nonexistent/nextpnr-ecp5")
    assert tr.main(["--radix", "8", "--nextpnr", "native", "--no-xilinx"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--nextpnr native" in err[0] and "make nextpnr-native" in err[0]


@pytest.mark.slow
@pytest.mark.skipif(not tr.native_built(), reason="make nextpnr-native has not been run")
def test_small_core_native_nextpnr(tmp_path):
    """The machine's own nextpnr build places the same netlist: a row of its own (``-native``), keyed by it, its
    version in the report; the ECP5's fastest speed grade another row (``-speed8``), with a higher Fmax."""
    flow = tr.Flow(nextpnr="native")
    versions = tr.tool_versions(nextpnr="native")
    assert "nextpnr-0.11.1" in versions["nextpnr_native"]
    row = tr.Row(4, "iq", "greedy", vcs=1, depth=2, width=8)
    said = []
    got = tr.run_row(row, tmp_path, versions=versions, xilinx=False, flow=flow, log=said.append)
    assert not got["cached"] and got["nextpnr"] == "native" and 10 < got["fmax_mhz"] < 1000
    assert (tmp_path / f"{row.name}-native.json").exists() and not (tmp_path / f"{row.name}.json").exists()
    text = tr.render([got], command="x", versions=versions, device="85k", freq=100, flow=flow)
    assert versions["nextpnr_native"] + " (native nextpnr); device" in text
    # the fastest speed grade: a row of its own, faster than the slowest grade's
    fast = tr.Flow(nextpnr="native", speed=8)
    got8 = tr.run_row(row, tmp_path, versions=versions, xilinx=False, flow=fast, log=said.append)
    assert got8["speed_grade"] == 8 and got8["key"] != got["key"] and got8["fmax_mhz"] > got["fmax_mhz"]
    assert any("--speed 8" in x for x in said) and (tmp_path / f"{row.name}-native-speed8.json").exists()


def test_block_of_its_own_keeps_the_rest(tmp_path):
    """``--block``: a block with markers of its own, appended to a document that lacks them, then rewritten in
    place; the prose and the main block stay."""
    from radixnet.hdl.synth_report import write_between_markers

    doc = tmp_path / "r.md"
    doc.write_text(f"# T\n\nprose\n\n{tr.BEGIN}\nmain\n{tr.END}\n\nmore prose\n")
    begin, end = tr.markers("hiradix")
    write_between_markers(doc, "one\n", begin=begin, end=end, title="x")
    write_between_markers(doc, "two\n", begin=begin, end=end, title="x")
    text = doc.read_text()
    assert f"{tr.BEGIN}\nmain\n{tr.END}" in text and "more prose" in text and "one" not in text
    assert text.endswith(f"{begin}\ntwo\n{end}\n") and not list(tmp_path.glob(".*.tmp"))


def test_bad_block_name_is_one_line(capsys):
    assert tr.main(["--block", "../x", "--cached-only"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--block" in err[0]


def test_a_core_larger_than_the_device_is_a_row():
    """A core nextpnr cannot place for want of cells is reported with what it needs and no Fmax; the
    utilisation comes from nextpnr's own lines (used / available)."""
    log = ("Info: Device utilisation:\nInfo: \t          TRELLIS_FF:   10178/  24288    41%\n"
           "Info: \t        TRELLIS_COMB:   45089/  24288   185%\n"
           "ERROR: Unable to place cell 'x', no BELs remaining to implement cell type 'TRELLIS_COMB'\n")
    assert tr.utilisation(log) == {"TRELLIS_FF": (10178, 24288), "TRELLIS_COMB": (45089, 24288)}
    base = {"radix": 32, "model": "hiradix", "allocator": "greedy", "routing": "sp", "speedup": 1, "vcs": 2,
            "depth": 4, "width": 32, "ffs": 1, "lutram_w": 0, "bram": 0, "xilinx": {"luts": 7, "ffs": 8},
            "crit_logic_ns": 0.0, "crit_routing_ns": 0.0, "critical_path": []}
    big = {**base, "name": "big", "seed": 1, "fits": False, "fmax_mhz": None, "gbit_s": None, "luts": 45089,
           "device_luts": 24288}
    small = {**base, "name": "small", "radix": 8, "seed": 1, "fits": True, "fmax_mhz": 88.8, "gbit_s": 22.7,
             "luts": 15368, "crit_logic_ns": 2.5, "crit_routing_ns": 8.8, "critical_path": ["a", "b"]}
    text = tr.render([small, big, {**big, "seed": 2}], command="x", versions={"yosys": "y", "nextpnr": "n"},
                     device="25k", freq=100, seeds=(1, 2))
    row = next(ln for ln in text.splitlines() if ln.startswith("| 32 |"))
    assert "does not fit (45089 of 24288 LUT4)" in row and "| - | 45089 |" in row and row.endswith("| - |")
    assert "* r8 hiradix" in text and "* r32" not in text   # no critical path for a core that was not placed
    alone = tr.render([big], command="x", versions={"yosys": "y", "nextpnr": "n"}, device="25k", freq=100)
    assert "does not fit" in alone and "Critical paths" not in alone


def test_xilinx_counts_alone_are_a_row():
    """``--no-ecp5`` (a core too large for the WebAssembly tools): the row has the Xilinx counts and says it was
    not placed, with no ECP5 figure and no critical path; the Yosys that mapped it is named in the header."""
    row = {"name": "r64", "radix": 64, "model": "hiradix", "allocator": "greedy", "routing": "sp", "speedup": 1,
           "vcs": 2, "depth": 4, "width": 32, "seed": 1, "ecp5": False, "fits": False, "fmax_mhz": None,
           "gbit_s": None, "luts": None, "ffs": None, "lutram_w": None, "bram": None, "device_luts": None,
           "xilinx": {"luts": 300000, "ffs": 70000, "lutram": 3000, "bram": 0}, "crit_logic_ns": 0.0,
           "crit_routing_ns": 0.0, "critical_path": []}
    text = tr.render([row], command="x", versions={"yosys": "y", "nextpnr": "n", "yosys_xilinx": "Yosys 0.23"},
                     device="85k", freq=100)
    line = next(ln for ln in text.splitlines() if ln.startswith("| 64 |"))
    assert "not placed (`--no-ecp5`) | - | - | - | - | - | 300000 | 70000 | 3000 | 0 | - |" in line
    assert "synth_xilinx: Yosys 0.23" in text and "Critical paths" not in text


def test_unit_rows_in_docs_are_the_units_now():
    """The allocator rows docs/seq-alloc.md shows (``python -m radixnet.hdl.unit_timing``) were placed from
    the Verilog the units give now: each cached row's key is recomputed from today's Verilog and the tools'
    versions it recorded; a change to the unit's hardware fails here until its rows are placed again."""
    from pathlib import Path

    from radixnet.hdl.unit_timing import UnitRow, main, unit_key, unit_top

    rows = Path(__file__).resolve().parents[1] / "docs" / "timing-rows"
    doc = (rows.parent / "seq-alloc.md").read_text()
    for impl, g in (("wavefront", 1), ("wavefront", 2), ("prefix", 1)):
        row = UnitRow(n=8, n_out=16, s=3, impl=impl, per_stage=g)
        got = json.loads((rows / f"{row.name}.json").read_text())
        unit, _, text = unit_top(row)
        assert got["key"] == unit_key(row, text, got["versions"]), row.name
        assert got["latency"] == getattr(unit, "latency", 0)
        assert f"| {got['latency']} | " in doc
    assert main(["--n", "0"]) == 2 and main(["--per-stage", "1", "--impls", "tree"]) == 2


def test_failing_endpoint_families_rendered():
    """A row below a target names the register families of the endpoints that miss it (the first target above
    its Fmax); a row that meets both targets, or one placed before the census was kept, adds no line."""
    docs = Path(__file__).resolve().parents[1] / "docs" / "timing-rows"
    row = json.loads((docs / "r16-hiradix-staged-greedy-v2-b4-w32.json").read_text())
    rep = {"detailed_net_timings": [{"endpoints": [
        {"cell": f"core.rq_op_ip_{p}_TRELLIS_FF_Q", "port": "DI", "delay": [1.0, 11.0 + p / 10]} for p in range(3)]
        + [{"cell": "core.req_pending2_ip_7_TRELLIS_FF_Q", "port": "LSR", "delay": [1.0, 9.0]},
           {"cell": "core.g_lane_op_2_TRELLIS_FF_Q", "port": "DI", "delay": [1.0, 8.0]}]}]}
    fam = [tr.endpoint_families(rep, f) for f in tr.FAMILY_TARGETS_MHZ]
    assert fam[0] == {"mhz": 100.0, "failing": 3, "families": [["rq_op_ip_N", 3, 11.2]]}
    assert fam[1]["failing"] == 4 and fam[1]["families"][1] == ["req_pending2_ip_N", 1, 9.42]
    versions = row["versions"]
    text = tr.render([{**row, "endpoint_families": fam}], command="x", versions=versions, device="85k", freq=100)
    assert "* r16 hiradix-staged greedy at 100 MHz, 3 endpoints: `rq_op_ip_N` 3 (11.2 ns)" in text
    assert "miss a target" not in tr.render([row], command="x", versions=versions, device="85k", freq=100)
    fast = {**row, "fmax_mhz": 130.0, "endpoint_families": fam}
    assert "miss a target" not in tr.render([fast], command="x", versions=versions, device="85k", freq=100)
