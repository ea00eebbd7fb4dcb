"""``make rtl`` with shared router cores (hdl/rtlgen.py, hdl/topgen.py): equivalence, lint, timing, synthesis.

* core + external ROM == the default Router, every output every cycle (Amaranth simulator);
* the structural ``network_top.v`` == the Amaranth ``NetworkTop``, every output every cycle
  (Icarus Verilog on the Amaranth run's inputs);
* generated trees (top included, all files together) lint clean with the standard waivers;
* TTN generation time (small by default, larger under ``-m slow``); Yosys synthesis of cores (slow).

Under ``-m slow`` too: the second of each pair that shows the same thing on a larger design (the Slim Fly core,
the iq core at speedup 1 and the single-cycle core at speedup 2 with their ROMs; the per-router trees of the
sequential routings under iq and at speedup 2; the decided routings' per-router trees of the sequential
allocator, whose Verilog the co-simulations build and compile by default).
"""

import json
import random
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from amaranth import Module
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.sim import Simulator

from radixnet.gen import build
from radixnet.gen.routing import compile_table, deterministic_table
from radixnet.hdl.network import NetworkTop
from radixnet.hdl.router import Router
from radixnet.hdl.rtlgen import flat_verilog, generate, lint_tree, main as rtlgen_main
from radixnet.hdl.topgen import verilog_ports
from radixnet.hdl.verilog import synth

ROOT = Path(__file__).resolve().parents[1]
needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")
needs_iverilog = pytest.mark.skipif(shutil.which("iverilog") is None or shutil.which("vvp") is None,
                                    reason="iverilog not installed (make setup)")
needs_yosys = pytest.mark.skipif(shutil.which("yosys") is None, reason="yosys not installed (make setup)")


def _silence(*objs):
    for o in objs:
        o._MustUse__silence = True


# ------------------------------------------------------------------ 1. core + ROM == Router (Amaranth)
class CoreWithRoms(wiring.Component):
    """A ``Router(external_rom=True)`` with a comb-read ROM of its ``rom_ints`` on every input VC."""

    def __init__(self, core: Router):
        self.core = core
        super().__init__({n: m for n, m in core.signature.members.items() if not n.startswith("route_")})

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = c = self.core
        for n in self.signature.members:
            ours, theirs = getattr(self, n), getattr(c, n)
            pairs = zip(ours, theirs) if isinstance(ours, list) else [(ours, theirs)]
            for a, b in pairs:
                if self.signature.members[n].flow == wiring.In:
                    m.d.comb += b.eq(a)
                else:
                    m.d.comb += a.eq(b)
        # a ROM per read: per input VC, or per input port under iq's lookahead (router-spec §R10.4)
        reads = [(c.route_addr_ip[p], c.route_word_ip[p]) for p in range(c.n_ports)] if c.lookahead else \
            [(c.route_addr_ip_ivc[p][v], c.route_word_ip_ivc[p][v]) for p in range(c.n_ports) for v in range(c.n_vcs)]
        for i, (addr, word) in enumerate(reads):
            rom = Memory(shape=c.rom_word_bits, depth=len(c.rom_ints), init=c.rom_ints)
            m.submodules[f"rom_{i}"] = rom
            rp = rom.read_port(domain="comb")
            m.d.comb += [rp.addr.eq(addr), word.eq(rp.data)]
        return m


def _run_pair(ref: Router, dut, cycles: int, seed: int, load: float = 0.7):
    """Drive ``ref`` and ``dut`` with the same random protocol-respecting traffic; compare every output
    every cycle. Inputs follow ``ref``'s credit returns; returns the flits ``ref`` sent."""
    rng = random.Random(seed)
    lay, P, V, B = ref.flit_layout, ref.n_ports, ref.n_vcs, ref.vc_depth
    T, K = ref.net.num_terminals, ref.n_classes
    up = [[B] * V for _ in range(P)]                   # credits of each input VC (we are upstream)
    left = [[0] * V for _ in range(P)]
    hdr = [[None] * V for _ in range(P)]
    owed = [[0] * V for _ in range(P)]                 # flits sent on a network output, not yet credited
    sent = [0]

    def flit(head, tail, vc, dest, hops, data):
        f = {"head": head, "tail": tail, "vc": vc, "dest": dest, "hops": hops, "data": data}
        return sum((val & ((1 << lay[k].width) - 1)) << lay[k].offset for k, val in f.items())

    async def bench(ctx):
        for t in range(cycles):
            valid, flits = 0, []
            for p in range(P):
                ready = [v for v in range(V) if up[p][v] > 0]
                if rng.random() < load and ready:
                    v = rng.choice(ready)
                    if left[p][v] == 0:
                        left[p][v] = rng.randint(1, 3)
                        hdr[p][v] = (rng.randrange(T), rng.randrange(K + 1))
                        head = 1
                    else:
                        head = 0
                    left[p][v] -= 1
                    up[p][v] -= 1
                    valid |= 1 << p
                    flits.append(flit(head, int(left[p][v] == 0), v, *hdr[p][v], rng.randrange(1 << 8)))
                else:
                    flits.append(rng.getrandbits(lay.size))       # garbage when not valid
            cred_in = []
            for o in range(P):
                bits = 0
                for v in range(V):
                    if owed[o][v] and rng.random() < 0.5:
                        owed[o][v] -= 1
                        bits |= 1 << v
                cred_in.append(bits)
            for d in (ref, dut):
                ctx.set(d.in_valid_ip, valid)
                for p in range(P):
                    ctx.set(d.in_flit_ip[p].as_value(), flits[p])
                    ctx.set(d.credit_in_op_ovc[p], cred_in[p])
            outs = []
            for d in (ref, dut):
                outs.append((ctx.get(d.out_valid_op), ctx.get(d.error),
                             [ctx.get(d.out_flit_op[o].as_value()) for o in range(P)],
                             [ctx.get(d.credit_out_ip_ivc[p]) for p in range(P)]))
            assert outs[0] == outs[1], f"cycle {t}: Router {outs[0]} != core+ROM {outs[1]}"
            ov, err, oflits, ocred = outs[0]
            assert err == 0
            for p in range(P):
                for v in range(V):
                    up[p][v] += ocred[p] >> v & 1
            for o in range(P):
                if ov >> o & 1:
                    sent[0] += 1
                    if o not in ref.eject_ports:
                        owed[o][(oflits[o] >> lay["vc"].offset) & ((1 << lay["vc"].width) - 1)] += 1
            await ctx.tick()

    top = Module()
    top.submodules.ref, top.submodules.dut = ref, dut
    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return sent[0]


@pytest.mark.parametrize("family, kw, rid, n_vcs, depth, seed", [
    ("fbfly", {"k": 4, "n": 2}, 1, 2, 3, 1),
    # 2 VC classes; slow (17 s): the mesh corner below has 4 and the torus core a class column
    pytest.param("slimfly", {"q": 5}, 7, 4, 2, 2, marks=pytest.mark.slow),
    ("mesh", {"dims": [3, 3]}, 0, 4, 2, 3),   # a corner router: 2 unused ports, 4 classes
])
def test_core_with_rom_equals_router(family, kw, rid, n_vcs, depth, seed):
    """Router(external_rom=True) + ROMs holding its rom_ints == Router(default): every output (flits,
    valids, credits, error) identical every cycle under random traffic (all destinations, hops 0..K)."""
    check_core_with_rom(family, kw, rid, n_vcs, depth, seed)


def check_core_with_rom(family, kw, rid, n_vcs, depth, seed, routing="sp", router_model="single-cycle"):
    """Build both routers, run them side by side, and return the core."""
    from radixnet.gen.routing import deterministic_table
    net = build(family, **kw)
    table = compile_table(net) if routing == "sp" else deterministic_table(net, routing)
    ref = Router(net, rid, n_vcs, depth, 8, table=table, router_model=router_model)
    core = Router(net, rid, n_vcs, depth, 8, table=table, external_rom=True, router_model=router_model)
    assert core.rom_ints == ref.rom_ints and len(core.rom_ints) == 1 << core.rom_addr_bits
    sent = _run_pair(ref, CoreWithRoms(core), 160, seed)
    assert sent > 60
    return core


def test_core_with_class_table_rom_equals_router():
    """A torus with dimension order and dateline classes (§R7d): the ROM words carry the table's class."""
    core = check_core_with_rom("torus", {"dims": [4, 4]}, 5, 2, 2, 4, routing="dor")
    assert core.rom_cls_bits == 1 and core.rom_word_bits == core.rom_cls_bits + 3 + 3


# slow (45 s): test_core_with_rom_equals_router_speedup_2 checks the iq core's ROM (read in VA) by default
@pytest.mark.slow
def test_core_with_rom_equals_router_iq():
    """The same under the iq pipeline (§R10): the ROM is read in VA, the core is the router."""
    check_core_with_rom("slimfly", {"q": 5}, 7, 4, 2, 2, router_model="iq")


@needs_verilator
# the per-router tree (ugal-s) is slow (28 s): the co-simulations build ugal-s under iq (speedup 2) by default
@pytest.mark.parametrize("argv, scheme", [
    (["fbfly", "--k", "4", "--n", "2", "--axis"], "shared"),
    pytest.param(["fbfly", "--k", "2", "--n", "3", "--routing", "ugal-s", "--depth", "2"], "per-router",
                 marks=pytest.mark.slow),
])
def test_iq_tree_lints_clean(tmp_path, capsys, argv, scheme):
    """``--router-model iq`` (``make rtl ... ROUTER_MODEL=iq``): the tree lints clean and the manifest
    names the model and its stage delays (§R10)."""
    out = tmp_path / "t"
    assert rtlgen_main([*argv, "--router-model", "iq", "--lint", "--data-width", "32", "--out", str(out)]) == 0, \
        capsys.readouterr().err
    man = json.loads((out / "manifest.json").read_text())
    assert man["scheme"]["name"] == scheme
    assert {k: man[k] for k in ("router_model", "vc_alloc_delay", "sw_alloc_delay", "st_final_delay",
                                "credit_delay")} == {"router_model": "iq", "vc_alloc_delay": 1,
                                                     "sw_alloc_delay": 1, "st_final_delay": 1, "credit_delay": 1}
    assert "router model iq" in capsys.readouterr().out
    assert rtlgen_main(["fbfly", "--k", "2", "--n", "2", "--router-model", "deep", "--out", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--router-model" in err[0] and not (tmp_path / "d").exists()


def test_routing_option(tmp_path, capsys):
    """--routing picks the deterministic table (the manifest records it); an adaptive routing is refused."""
    out = tmp_path / "t"
    assert rtlgen_main(["torus", "--dims", "4,4", "--routing", "dor", "--scheme", "shared", "--out", str(out)]) == 0
    man = json.loads((out / "manifest.json").read_text())
    assert man["routing"] == "dor" and man["classes"] == 2
    assert "tcls_valid" in (out / "route_rom_0.v").read_text()
    capsys.readouterr()
    assert rtlgen_main(["slimfly", "--q", "5", "--routing", "ugal-l", "--out", str(tmp_path / "u")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--routing: ugal-l is adaptive" in err[0]


def test_external_rom_ports_and_default_unchanged():
    net = build("fbfly", k=4, n=2)
    ref, core = Router(net, 0, 2, 2, 8), Router(net, 0, 2, 2, 8, external_rom=True)
    _silence(ref, core)
    assert "route_addr_ip_ivc" not in ref.signature.members and ref.external_rom is False
    extra = set(core.signature.members) - set(ref.signature.members)
    assert extra == {"route_addr_ip_ivc", "route_word_ip_ivc"}
    assert len(core.route_word_ip_ivc) == 7 and len(core.route_word_ip_ivc[0]) == 2
    with pytest.raises(ValueError, match="external_rom"):
        Router(net, 0, 2, 2, 8, external_rom=1)


# ------------------------------------------------------------------ 2. trees: structure and lint
def _tree(tmp_path, family, kw, **opts):
    out = tmp_path / family
    man = generate(build(family, **kw), out, scheme="shared", **opts)
    return out, man


def _module_of(path: Path) -> list[str]:
    import re
    return re.findall(r"^\s*module\s+\\?(\w+)", path.read_text(), re.M)


@pytest.fixture(scope="module")
def fb22(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fb22")
    return _tree(tmp, "fbfly", {"k": 2, "n": 2}, vcs=2, vc_depth=2, data_width=8)


def test_tree_structure_and_manifest(fb22):
    out, man = fb22
    files = sorted(p.name for p in out.iterdir())
    assert files == sorted(man["files"] + ["manifest.json"])
    assert sorted(man["files"]) == sorted(["router_core_0.v", "route_rom_0.v", "route_rom_1.v", "router_0.v",
                                           "router_1.v", "network_top.v"])
    for f in man["files"]:                                  # one module per file, named after it
        assert _module_of(out / f) == [f[:-2]]
    disk = json.loads((out / "manifest.json").read_text())
    assert disk["scheme"]["name"] == "shared" and [c["routers"] for c in disk["cores"]] == [[0, 1]]
    assert disk["routers"][1]["core"] == "router_core_0" and disk["routers"][1]["rom_module"] == "route_rom_1"
    assert disk["top"]["module"] == "network_top" and "tuser" not in disk
    # the wrapper has the default Router's ports; the top has NetworkTop's
    net = build("fbfly", k=2, n=2)
    ref = flat_verilog(Router(net, 0, 2, 2, 8), "router_0")
    assert sorted(verilog_ports(ref)) == sorted(verilog_ports((out / "router_0.v").read_text()))
    nt = NetworkTop(net, 2, 2, 8)
    want = sorted(verilog_ports(flat_verilog(nt, "network_top")))
    assert want == sorted(verilog_ports((out / "network_top.v").read_text()))
    assert want == sorted((p["direction"], p["name"], p["width"]) for p in disk["top"]["ports"])
    # the ROM text holds the table: router 0 ejects terminals 0, 1 on ports 0, 1 and sends 2, 3 to port 2
    rom = (out / "route_rom_0.v").read_text()
    assert "4'hc   // 0: eject on port 0" in rom and "4'ha,  // 3: port 2" in rom
    assert disk["routers"][0]["route_rom"] == [[1, 1, 0], [1, 1, 1], [1, 0, 2], [1, 0, 2]]


@needs_verilator
@pytest.mark.parametrize("family, kw, opts", [
    ("fbfly", {"k": 2, "n": 2}, {"vcs": 2, "vc_depth": 2, "data_width": 8}),
    ("fbfly", {"k": 4, "n": 2}, {"vcs": 1, "vc_depth": 2, "data_width": 8}),
    ("torus", {"dims": [3, 3]}, {"vc_depth": 2, "data_width": 8}),
    ("fbfly", {"k": 2, "n": 2}, {"vcs": 2, "vc_depth": 2, "data_width": 32, "axis": True}),
])
def test_tree_lints_clean(tmp_path, family, kw, opts):
    """verilator --lint-only -Wall on every file of the tree at once, top included, standard waivers only;
    nothing at all is waived in the text-generated files (ROMs, wrappers, tops)."""
    import re

    out, man = _tree(tmp_path, family, kw, **opts)
    waived = lint_tree(out, man)
    assert waived and all(re.match(r"%Warning-(UNUSEDSIGNAL|WIDTH): ", w) for w in waived)
    files = {re.match(r"%Warning-\w+: (\S+?\.v):", w).group(1) for w in waived}
    assert all(f.startswith(("router_core_", "axis_")) for f in files), files   # Amaranth's files only
    if opts.get("axis"):
        assert man["switch_top"]["module"] == "switch_top" and man["tuser"]["width"] == 128
        assert {"network_top.v", "switch_top.v", "axis_ingress.v", "axis_egress.v"} <= set(man["files"])


@needs_verilator
def test_split_lint_of_a_tree(tmp_path):
    """The split lint (each core alone, the structural files against port-exact core stubs), which
    ``lint_tree`` uses above 16 routers, on a small tree with two cores; and it catches a port
    width mismatch between a wrapper and its core."""
    from radixnet.hdl.verilog import LintError

    out, man = _tree(tmp_path, "torus", {"dims": [3, 3]}, vc_depth=2, data_width=8)
    lint_tree(out, man, mode="split")
    wrapper = out / "router_0.v"
    text = wrapper.read_text()
    wire = next(ln for ln in text.splitlines() if "route_word_ip_0_ivc_0;" in ln)
    wrapper.write_text(text.replace(wire, wire.replace("[", "[1+")))   # one bit too wide
    with pytest.raises(LintError, match="WIDTH"):
        lint_tree(out, man, mode="split")


@needs_verilator
def test_lint_catches_a_broken_tree(fb22, tmp_path):
    """The tree lint is not vacuous: an undriven wire in the top fails it."""
    from radixnet.hdl.verilog import LintError

    out, man = fb22
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    top = bad / "network_top.v"
    top.write_text(top.read_text().replace("  wire r0_error;", "  wire r0_error;\n  wire dangling;\n"
                                           "  wire [1:0] sink = {dangling, r0_error};"))
    with pytest.raises(LintError, match="UNDRIVEN"):
        lint_tree(bad, man)


def test_switch_top_ports_match_axis_switch_top(tmp_path):
    from radixnet.hdl.switch import AxisSwitchTop

    net = build("fbfly", k=2, n=2)
    out, man = _tree(tmp_path, "fbfly", {"k": 2, "n": 2}, vcs=1, vc_depth=2, data_width=32, axis=True)
    sw = AxisSwitchTop(net, 1, 2, 32)
    want = sorted(verilog_ports(flat_verilog(sw, "switch_top")))
    assert want == sorted(verilog_ports((out / "switch_top.v").read_text()))
    assert man["tuser"] == sw.tuser.as_dict() and man["data_width"] == sw.payload.size


# ------------------------------------------------------------------ 3. network_top.v == NetworkTop (Icarus)
def _amaranth_network_run(net, V, B, W, cycles, seed, load=0.6, egress_depth=0):
    """Random §R3-respecting injection into the Amaranth NetworkTop; per cycle the inputs and outputs. With
    ``egress_depth`` (§R3a) each terminal returns an ejection credit for a flit it holds with probability 1/2."""
    top = NetworkTop(net, V, B, W, egress_depth=egress_depth)
    lay, T = top.flit_layout, top.n_terminals
    rng = random.Random(seed)
    cred = [[B] * V for _ in range(T)]
    cur = [None] * T                  # (vc, dest, flits left) of the packet being sent
    npk = [0] * T
    held = [0] * T                    # egress_depth: flits each terminal took and has not credited back
    rows = []

    def pack(**f):
        return sum((v & ((1 << lay[k].width) - 1)) << lay[k].offset for k, v in f.items())

    async def bench(ctx):
        for t in range(cycles):
            valid, flits = 0, []
            for s in range(T):
                if cur[s] is None and rng.random() < load:
                    cur[s] = [npk[s] % V, rng.randrange(T), rng.randint(1, 4), True]
                    npk[s] += 1
                f = 0
                if cur[s] is not None and cred[s][cur[s][0]] > 0 and rng.random() < 0.9:
                    vc, dest, n, head = cur[s]
                    f = pack(head=int(head), tail=int(n == 1), vc=vc, dest=dest, data=rng.randrange(1 << W))
                    valid |= 1 << s
                    cred[s][vc] -= 1
                    cur[s] = None if n == 1 else [vc, dest, n - 1, False]
                flits.append(f)
            ctx.set(top.inj_valid_t, valid)
            for s in range(T):
                ctx.set(top.inj_flit_t[s].as_value(), flits[s])
            cr = 0
            if egress_depth:
                for s in range(T):
                    if held[s] and rng.random() < 0.5:
                        held[s] -= 1
                        cr |= 1 << s
                ctx.set(top.ej_credit_t, cr)
            ejv, err = ctx.get(top.ej_valid_t), ctx.get(top.error)
            for s in range(T):
                held[s] += ejv >> s & 1
            ejf = [ctx.get(top.ej_flit_t[s].as_value()) for s in range(T)]
            icr = [ctx.get(top.inj_credit_t_ivc[s]) for s in range(T)]
            for s in range(T):
                for v in range(V):
                    cred[s][v] += icr[s] >> v & 1
            rows.append(((valid, flits, cr), (ejv, ejf, icr, err)))
            await ctx.tick()

    sim = Simulator(top)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return rows, lay.size


_TB = """
module tb;
  reg clk = 1'b0;
  reg rst = 1'b0;
  reg [{T1}:0] inj_valid_t;
  reg [{T1}:0] ej_credit_t;
{decl}
  reg [{S1}:0] stim [0:{N1}];
  integer c, fd;
  network_top dut (
{conn}
  );
  always #5 clk = ~clk;
  initial begin
    $readmemh("stim.hex", stim);
    fd = $fopen("out.txt", "w");
    // one reset cycle, then a kick of every core's `always @*` processes: under -g2012 Icarus sets
    // a declaration's initial value without an event, so Yosys's time-0 trigger ($auto$verilog_backend)
    // never fires and a process whose inputs never change stays X (the registers' reset values are
    // their initial ones, the Amaranth simulator's state at cycle 0; no input is valid, no buffer written)
    {{{lead}, {flits}}} = 0;
    rst = 1'b1;
    @(posedge clk);
    #1;
    rst = 1'b0;
{kick}
    for (c = 0; c < {N}; c = c + 1) begin
      {{{lead}, {flits}}} = stim[c];
      #1;
      $fwrite(fd, "{fmt}\\n", {outs});
      @(posedge clk);
      #1;
    end
    $fclose(fd);
    $finish;
  end
endmodule
"""


def _icarus_run(tree: Path, rows, T, V, F, work: Path, egress: bool = False):
    """Replay the recorded inputs into network_top.v under Icarus; per cycle (ej_valid, ej_flits, credits, error).
    ``egress``: the tree's network_top has ``ej_credit_t`` (router-spec §R3a), driven from the rows too."""
    N = len(rows)
    decl = "\n".join(f"  reg [{F - 1}:0] inj_flit_t__{t};\n  wire [{F - 1}:0] ej_flit_t__{t};\n"
                     f"  wire [{V - 1}:0] inj_credit_t_ivc__{t};" for t in range(T))
    decl += f"\n  wire [{T - 1}:0] ej_valid_t;\n  wire error;"
    conn = ",\n".join(["    .clk(clk)", "    .rst(rst)", "    .inj_valid_t(inj_valid_t)", "    .ej_valid_t(ej_valid_t)",
                       "    .error(error)"] + (["    .ej_credit_t(ej_credit_t)"] if egress else []) + [f"    .{n}__{t}({n}__{t})" for t in range(T)
                                               for n in ("inj_flit_t", "ej_flit_t", "inj_credit_t_ivc")])
    flits = ", ".join(f"inj_flit_t__{t}" for t in reversed(range(T)))
    outs = (["ej_valid_t"] + [f"ej_flit_t__{t}" for t in range(T)] + [f"inj_credit_t_ivc__{t}" for t in range(T)]
            + ["error"])
    import re

    man = json.loads((tree / "manifest.json").read_text())
    kick = []
    for r in man["routers"]:
        text = (tree / f"{r['core']}.v").read_text()
        kick += [f"    dut.router_{r['router']}.core.{n} = 1'b1;"
                 for n in re.findall(r"^\s*reg (\\\$auto\$verilog_backend\S+)\s", text, re.M)]
    lead = "ej_credit_t, inj_valid_t" if egress else "inj_valid_t"
    tb = _TB.format(kick="\n".join(kick), T1=T - 1, S1=(2 if egress else 1) * T + T * F - 1, N1=N - 1, N=N, decl=decl,
                    conn=conn, flits=flits, lead=lead,
                    fmt=" ".join(["%h"] * len(outs)), outs=", ".join(outs))
    work.mkdir(parents=True, exist_ok=True)
    (work / "tb.v").write_text(tb)
    with open(work / "stim.hex", "w") as fh:
        for (valid, fl, cr), _ in rows:
            word = (cr << T | valid) if egress else valid
            for f in reversed(fl):
                word = (word << F) | f
            fh.write(f"{word:x}\n")
    srcs = [str(p) for p in sorted(tree.glob("*.v"))]
    comp = subprocess.run(["iverilog", "-g2012", "-o", str(work / "sim.vvp"), "-s", "tb", str(work / "tb.v"), *srcs],
                          capture_output=True, text=True, timeout=300)
    assert comp.returncode == 0, comp.stderr
    run = subprocess.run(["vvp", "-n", "sim.vvp"], cwd=work, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    got = []
    for line in (work / "out.txt").read_text().split("\n"):
        if line.strip():
            xs = line.split()
            assert not any(c in "xzXZ" for c in "".join(xs)), f"unknown value in {line!r}"
            v = [int(x, 16) for x in xs]
            got.append((v[0], v[1:1 + T], v[1 + T:1 + 2 * T], v[-1]))
    return got


@needs_iverilog
@needs_verilator
# the sequential allocator's two are slow (30 s each): min-ad shows the per-router scheme by default
@pytest.mark.parametrize("family, kw, routing, allocator", [
    pytest.param("fbfly", ["--k", "2", "--n", "3"], "ugal-s", "sequential", marks=pytest.mark.slow),
    pytest.param("2dfb", ["--k", "3", "--n", "1"], "2dfb-adaptive", "sequential", marks=pytest.mark.slow),
    ("fbfly", ["--k", "2", "--n", "3"], "min-ad", "greedy"),
])
def test_decided_routings_one_module_per_router(tmp_path, capsys, family, kw, routing, allocator):
    """Routings decided in logic (the sequential allocator's UGAL-S, the 2DFB priority flag, greedy MIN AD):
    every router is its own module (its decision units are built from its coordinates), the tree lints."""
    out = tmp_path / "t"
    thr = "--threshold" if routing == "2dfb-adaptive" else "--ugal-threshold"   # T_h, or UGAL's bias
    assert rtlgen_main([family, *kw, "--routing", routing, thr, "2", "--axis", "--lint",
                        "--data-width", "32", "--depth", "2", "--out", str(out)]) == 0, capsys.readouterr().err
    man = json.loads((out / "manifest.json").read_text())
    R = man["num_routers"]
    assert (man["routing"], man["allocator"], man["scheme"]["name"], man["threshold"]) == \
        (routing, allocator, "per-router", 2)
    assert man["files"] == [f"router_{r}.v" for r in range(R)] + ["network_top.v", "axis_ingress.v",
                                                                  "axis_egress.v", "switch_top.v"]
    bodies = {(out / f"router_{r}.v").read_text().replace(f"router_{r}", "router") for r in range(R)}
    assert len(bodies) == R                     # no two routers are the same hardware
    assert f"{R} routers, {R} router module(s)" in capsys.readouterr().out


def test_decided_routing_refused_off_hyperx(tmp_path, capsys):
    assert rtlgen_main(["slimfly", "--q", "5", "--routing", "ugal-s", "--out", str(tmp_path / "u")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--routing: ugal-s is decided in logic on the HyperX families" in err[0]
    assert rtlgen_main(["fbfly", "--k", "2", "--n", "3", "--routing", "clos-ad", "--vc-classes", "3",
                        "--out", str(tmp_path / "c")]) == 2
    assert "--vc-classes: clos-ad fixes its VC classes" in capsys.readouterr().err


@pytest.mark.parametrize("egress_depth", [0, 2])
def test_network_top_verilog_equals_amaranth(tmp_path, egress_depth):
    """fbfly k=2 n=2: the structural network_top.v (cores + ROMs + wrappers, Icarus) and the Amaranth
    NetworkTop (default routers, Amaranth simulator) give identical ej_valid, ej_flit, inj_credit and
    error every cycle on the same random traffic; also with egress credits (router-spec §R3a: 2 per
    ejection port, returned at random on ``ej_credit_t``, so the ejection ports stall)."""
    net, V, B, W, N = build("fbfly", k=2, n=2), 2, 2, 8, 400
    out = tmp_path / "tree"
    man = generate(net, out, vcs=V, vc_depth=B, data_width=W, scheme="shared", egress_depth=egress_depth)
    assert man["egress_depth"] == egress_depth
    rows, F = _amaranth_network_run(net, V, B, W, N, seed=7, egress_depth=egress_depth)
    assert F == man["flit"]["size"]
    want = [(o[0], o[1], o[2], o[3]) for _, o in rows]
    assert sum(bin(v).count("1") for v, *_ in want) > 150          # real traffic, both routers
    assert all(e == 0 for *_, e in want)
    got = _icarus_run(out, rows, net.num_terminals, V, F, tmp_path / "sim", egress=egress_depth > 0)
    assert len(got) == N
    for t, (g, w) in enumerate(zip(got, want)):
        assert g == w, f"cycle {t}: Verilog {g} != Amaranth {w}"


def test_shared_network_verilog_is_cores_and_wires():
    """The co-simulation's network Verilog under a route table (rtlgen's shared scheme): TTN m=1 L=2 (16
    routers) is a few cores, a ROM and a wrapper per router and a top that only instantiates them; the
    wrappers carry the routers' ``obs_*`` ports, the top (fbfly k=2 n=2) the same ports as ``flat_verilog``
    of the whole ``NetworkTop``; routers that decide in logic are refused (each is its own hardware).
    The co-simulations check the hardware: every network run with a route table builds this text."""
    from radixnet.hdl.rtlgen import shared_network_verilog

    net = build("ttn", m=1, L=2)
    kw = dict(n_vcs=4, vc_depth=2, data_width=8, table=deterministic_table(net, "hdor"), observe=True)
    text = shared_network_verilog(NetworkTop(net, **kw), "network_top")
    modules = re.findall(r"^module\s+(\w+)", text, re.M)
    cores = [x for x in modules if x.startswith("router_core_")]
    assert 1 <= len(cores) < 16
    assert sorted(x for x in modules if x.startswith("route_rom_")) == sorted(f"route_rom_{r}" for r in range(16))
    assert sorted(x for x in modules if x.startswith("router_") and x[7:].isdigit()) == \
        sorted(f"router_{r}" for r in range(16))
    assert len(modules) == len(cores) + 2 * 16 + 1 and modules[-1] == "network_top"
    top = text[text.index("module network_top"):]
    assert all(f"router_{r} router_{r} (" in top for r in range(16))
    assert "obs_dec_ivc_ip_lane__0" in text[text.index("module router_0"):text.index("module network_top")]
    hx = build("fbfly", k=2, n=2)
    kw = dict(n_vcs=2, vc_depth=2, data_width=8, observe=True)
    assert verilog_ports(shared_network_verilog(NetworkTop(hx, **kw), "network_top").split("module network_top")[1]) \
        == verilog_ports(flat_verilog(NetworkTop(hx, **kw), "network_top"))
    decided = NetworkTop(hx, 2, 2, 8, routing="min-ad", observe=True)
    _silence(decided, *decided.routers)
    with pytest.raises(ValueError, match="decide their routes in logic"):
        shared_network_verilog(decided, "network_top")


# ------------------------------------------------------------------ 4. TTN, the CLI, deadlock refusal
def test_ttn_small_generates_fast(tmp_path, capsys):
    """TTN m=1 L=2 (16 routers, 8 classes): a handful of cores, the rest is text."""
    t0 = time.perf_counter()
    assert rtlgen_main(["ttn", "--m", "1", "--L", "2", "--data-width", "8", "--depth", "2",
                        "--out", str(tmp_path / "ttn")]) == 0
    took = time.perf_counter() - t0
    man = json.loads((tmp_path / "ttn" / "manifest.json").read_text())
    assert man["num_routers"] == 16 and len(man["cores"]) <= 3
    assert len(man["files"]) == 2 * 16 + len(man["cores"]) + 1
    assert sum(len(c["routers"]) for c in man["cores"]) == 16
    assert took < 120, took
    assert "16 routers" in capsys.readouterr().out


def test_cli_refuses_deadlock_in_one_line(tmp_path, capsys):
    assert rtlgen_main(["torus", "--dims", "6", "--vc-classes", "1", "--axis", "--out", str(tmp_path / "t")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rtlgen: error: dor with 1 VC class on torus has a cyclic") and "\n" not in err
    assert not (tmp_path / "t").exists()


def test_flat_scheme_is_the_legacy_output(tmp_path):
    man = generate(build("fbfly", k=2, n=2), tmp_path, vcs=1, vc_depth=2, data_width=8)
    assert man["scheme"]["name"] == "flat" and man["files"] == ["router_0.v", "router_1.v"]
    assert "top" not in man and man["modules"] == ["router_0", "router_1"]


@needs_verilator
def test_flat_scheme_with_axis_top_lints(tmp_path):
    """The legacy flat routers also take the tops (``axis`` implies ``top``)."""
    man = generate(build("fbfly", k=2, n=2), tmp_path, vcs=1, vc_depth=2, data_width=32, axis=True)
    assert man["files"] == ["router_0.v", "router_1.v", "network_top.v", "axis_ingress.v", "axis_egress.v",
                            "switch_top.v"]
    lint_tree(tmp_path, man)


@pytest.mark.slow
@needs_verilator
def test_ttn_moderate_generates_and_lints(tmp_path):
    """TTN m=1 L=3 (64 routers, V = classes): generation in well under the old per-router cost, lint clean."""
    t0 = time.perf_counter()
    man = generate(build("ttn", m=1, L=3), tmp_path / "ttn", vc_depth=2, data_width=16, scheme="shared")
    took = time.perf_counter() - t0
    assert man["num_routers"] == 64 and len(man["cores"]) <= 3 and took < 300, took
    lint_tree(tmp_path / "ttn", man)


@pytest.mark.slow
def test_make_rtl_ttn_default(tmp_path):
    """``make rtl TOPO=ttn`` at its defaults (256 routers, V = 14, B = 4, 64-bit data): minutes, not hours."""
    if shutil.which("make") is None:
        pytest.skip("make not installed")
    t0 = time.perf_counter()
    out = subprocess.run(["make", "-s", "rtl", "TOPO=ttn", f"RTL_OUT={tmp_path}/ttn", f"PY={sys.executable}"],
                         cwd=ROOT, capture_output=True, text=True, timeout=1200)
    took = time.perf_counter() - t0
    assert out.returncode == 0, out.stderr
    man = json.loads((tmp_path / "ttn" / "manifest.json").read_text())
    assert man["num_routers"] == 256 and len(man["cores"]) == 3 and took < 600, took


# ------------------------------------------------------------------ 5. Yosys synthesis of cores (slow)
@pytest.mark.slow
@needs_yosys
@pytest.mark.parametrize("family, kw", [
    ("fbfly", {"k": 4, "n": 2}), ("slimfly", {"q": 5}), ("torus", {"dims": [4, 4]}), ("dragonfly", {}),
    ("ttn", {"m": 1, "L": 2}),
])
def test_core_synthesizes(tmp_path, family, kw):
    """One core per family (the first router's), V = classes, B = 2, 16-bit data: synthesizes, no latch,
    no memory cell left."""
    man = generate(build(family, **kw), tmp_path, vc_depth=2, data_width=16, scheme="shared")
    core = man["cores"][0]
    stats = synth((tmp_path / core["file"]).read_text(), core["module"])
    assert stats.latches == 0 and not any(t.startswith("$mem") for t in stats.cell_types)
    assert stats.flip_flops > 0


# single-cycle is slow: iq's core covers the two lanes and its ROM read in VA by default
@pytest.mark.parametrize("model", [pytest.param("single-cycle", marks=pytest.mark.slow), "iq"])
def test_core_with_rom_equals_router_speedup_2(model):
    """The same with speedup 2 under both models (§R8b): two lanes, output queues."""
    net = build("fbfly", k=4, n=2)
    ref = Router(net, 1, 2, 3, 8, router_model=model, speedup=2)
    core = Router(net, 1, 2, 3, 8, external_rom=True, router_model=model, speedup=2)
    assert _run_pair(ref, CoreWithRoms(core), 160, 5) > 60


@needs_verilator
# the per-router tree (ugal-s) is slow (56 s): the co-simulations build ugal-s at speedup 2 by default
@pytest.mark.parametrize("argv", [
    ["fbfly", "--k", "4", "--n", "2", "--axis"],
    pytest.param(["fbfly", "--k", "2", "--n", "3", "--routing", "ugal-s", "--depth", "2"], marks=pytest.mark.slow),
])
def test_speedup_2_tree_lints_clean(tmp_path, capsys, argv):
    """``--speedup 2`` (``make rtl ... SPEEDUP=2``), under ``iq``: the tree lints clean and the manifest
    records ``speedup: 2``; ``--speedup 3`` is one line and exit code 2."""
    out = tmp_path / "t"
    assert rtlgen_main([*argv, "--router-model", "iq", "--speedup", "2", "--lint", "--data-width", "32",
                        "--out", str(out)]) == 0, capsys.readouterr().err
    man = json.loads((out / "manifest.json").read_text())
    assert man["speedup"] == 2 and man["router_model"] == "iq"
    assert "S=2, router model iq" in capsys.readouterr().out
    assert rtlgen_main(["fbfly", "--k", "2", "--n", "2", "--speedup", "3", "--out", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--speedup" in err[0] and not (tmp_path / "d").exists()


@needs_verilator
def test_egress_depth_tree(tmp_path, capsys):
    """``--egress-depth 2 --axis`` (router-spec §R3a): the tree lints clean, ``network_top`` takes
    ``ej_credit_t``, ``switch_top.v`` has the ports of the Amaranth AxisSwitchTop with egress FIFOs, every
    egress's ``ej_credit`` reaches the network, and the manifest records the depth; a negative depth is one
    line and exit code 2."""
    from radixnet.hdl.switch import AxisSwitchTop

    out = tmp_path / "t"
    assert rtlgen_main(["fbfly", "--k", "2", "--n", "2", "--axis", "--egress-depth", "2", "--vcs", "1", "--depth", "2",
                        "--data-width", "32", "--lint", "--out", str(out)]) == 0, capsys.readouterr().err
    man = json.loads((out / "manifest.json").read_text())
    assert man["egress_depth"] == 2
    assert {"name": "ej_credit_t", "direction": "input", "width": 4} in man["top"]["ports"]
    sw = AxisSwitchTop(build("fbfly", k=2, n=2), 1, 2, 32, egress_depth=2)
    text = (out / "switch_top.v").read_text()
    assert sorted(verilog_ports(flat_verilog(sw, "switch_top"))) == sorted(verilog_ports(text))
    assert all(f".ej_credit(ej_credit_{t})" in text for t in range(4)) and ".ej_credit_t(ej_credit)" in text
    assert "egress_ej_credit_" not in text
    capsys.readouterr()
    assert rtlgen_main(["fbfly", "--k", "2", "--n", "2", "--egress-depth", "-1", "--out", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--egress-depth must be an integer in [0, 65536]" in err[0] and not (tmp_path / "d").exists()


def test_decided_routings_take_the_group_and_the_front_registers(tmp_path):
    """Under a routing decided in logic (``ugal``) the routers are built with the table's ``group`` (§R11.6) and
    ``buffer_fronts`` (§R11.1a) as given, which the manifest names: each changes the Verilog."""
    net = build("fbfly", k=2, n=2)
    kw = dict(vcs=2, vc_depth=4, data_width=8, routing="ugal", router_model="hiradix-local")

    def text(name, **more):
        man = generate(net, tmp_path / name, **kw, **more)
        return man, "".join((tmp_path / name / f).read_text() for f in man["files"])

    base, v0 = text("base")
    g2, v1 = text("g2", group=2)
    f3, v2 = text("f3", buffer_fronts=3)
    assert (base["group"], base["buffer_fronts"], g2["group"], f3["buffer_fronts"]) == (4, 2, 2, 3)
    assert len({v0, v1, v2}) == 3 and "front2_ivc_0" in v2 and "front2_ivc_0" not in v0
