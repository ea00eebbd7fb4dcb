"""The ``hiradix`` router model in RTL (router-spec §R11; hdl/router_hiradix.py): RI | GO | ST | link.

Amaranth-simulator scenarios of one router (fbfly k = 4, n = 2, router 0: terminal ports 0-3, network
ports 4-6), each checked against §R11's rules worked by hand: the zero-load timeline, the credit
register, two heads meeting at one output, RI's ``u(v)`` rule, wormhole streaming, speedup 2, egress
credits, the greedy adaptive routings; then Verilator lint of a generated tree."""

import shutil

import pytest
from amaranth.sim import Simulator

from radixnet.gen import build
from radixnet.gen.routing import compile_table
from radixnet.hdl.router import Router
from radixnet.hdl.rtlgen import main as rtlgen_main

from helpers.flits import pack
from helpers.router_sim import check_invariants, flit, packet, random_run, simulate, source

needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")


@pytest.fixture(scope="module")
def fbfly():
    return build("fbfly", k=4, n=2)


def net_port(fbfly, rid, dest):
    t = compile_table(fbfly)
    return int(t.next_port[rid][int(t.term_router[dest])])


def router(fbfly, **kw):
    kw = {"n_vcs": 2, "vc_depth": 4, "data_width": 16, "router_model": "hiradix", **kw}
    return Router(fbfly, 0, **kw)


def brief(outs):
    return [(t, o, f["data"], f["vc"]) for t, o, f in outs]


# ------------------------------------------------------------------ zero-load timeline (§R11, §R11.5)
def test_zero_load_timeline(fbfly):
    """A head usable at a (sent at a - 1) is on its output link at a + 3, with hops + 1 on a network port;
    the first body at a + 6 (requested three cycles after its head, once IN bound the VC), then one per
    cycle; an ejection keeps hops and leaves on VC 0."""
    dut = router(fbfly, vc_depth=6)
    port = net_port(fbfly, 0, 13)
    outs, creds = simulate(dut, source({2: [(0, flit(13, vc=1, data=0xab))],
                                        1: packet(13, 4, vc=0, at=10, data=1),
                                        0: [(20, flit(2, vc=1, data=7))]}), 30)
    assert outs == [
        (4, port, flit(13, vc=0, hops=1, data=0xab)),
        (14, port, flit(13, vc=0, tail=0, hops=1, data=1)),
        (17, port, flit(13, vc=0, head=0, tail=0, data=2)),
        (18, port, flit(13, vc=0, head=0, tail=0, data=3)),
        (19, port, flit(13, vc=0, head=0, tail=1, data=4)),
        (24, 2, flit(2, vc=0, data=7)),
    ]
    # a flit crossing the switch at ST in s (on the link in s + 1) frees its slot at IN in s + 1, credited
    # upstream in s + 2
    assert creds == [(5, 2, 1), (15, 1, 0), (18, 1, 0), (19, 1, 0), (20, 1, 0), (25, 0, 1)]


def test_credit_register(fbfly):
    """credit_out is a register: high in s + 1 for a pop at IN in s, never in s itself."""
    dut = router(fbfly)
    seen = []

    async def bench(ctx):
        lay = dut.flit_layout
        ctx.set(dut.in_flit_ip[3].as_value(), pack(lay, flit(13, vc=1)))
        ctx.set(dut.in_valid_ip, 1 << 3)
        for t in range(6):
            seen.append((ctx.get(dut.credit_out_ip_ivc[3]), ctx.get(dut.out_valid_op)))
            await ctx.tick()
            ctx.set(dut.in_valid_ip, 0)

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    port = net_port(fbfly, 0, 13)
    # sent 0, usable 1 (RI), GO 2, ST 3, link and IN (pop) in 4, credit in 5
    assert seen == [(0, 0), (0, 0), (0, 0), (0, 0), (0, 1 << port), (0b10, 0)]


# ------------------------------------------------------------------ GO: two heads, one output (§R11.3)
def test_two_heads_one_output(fbfly):
    """Two heads from inputs 0 and 1 for one output in one RI: GO grants input 0 (ptr_out 0) and drops
    input 1's request; input 1 cannot ask again in the next two RIs (u = 1: its request is being decided,
    then the view does not hold the verdict yet), asks in the one after, and leaves three cycles after the
    winner -- on the VC with the most credits in the view (VC 0 gave one to the winner, whose credit is not
    back yet)."""
    dut = router(fbfly)
    port = net_port(fbfly, 0, 13)
    outs, _ = simulate(dut, {0: {0: flit(13, data=0), 1: flit(13, data=1)}}, 12)
    assert brief(outs) == [(4, port, 0, 0), (7, port, 1, 1)]
    # ptr_out moves past the last input granted: after input 0 alone, a tie goes to input 1
    outs, _ = simulate(dut, {0: {0: flit(13, data=0)}, 8: {0: flit(13, data=2), 1: flit(13, data=3)}}, 20)
    assert [(t, d) for t, _, d, _ in brief(outs)] == [(4, 0), (12, 3), (15, 2)]


# ------------------------------------------------------------------ RI's u(v) rule (§R11.2, §R11.5)
def test_single_flit_packets_of_one_vc_go_every_third_cycle(fbfly):
    """§R11.5: a head is requested only once the view holds the verdict on its VC's request before (two
    cycles after GO): one VC sends a single-flit packet every third cycle, two VCs two in three cycles,
    three VCs one per cycle."""
    dut = router(fbfly)
    port = net_port(fbfly, 0, 13)
    outs, _ = simulate(dut, {t: {0: flit(13, data=t)} for t in range(3)}, 14)
    assert [(t, d) for t, o, d, _ in brief(outs)] == [(4, 0), (7, 1), (10, 2)]
    outs, _ = simulate(dut, {t: {0: flit(13, vc=t % 2, data=t)} for t in range(4)}, 14)
    assert [(t, o, d) for t, o, d, _ in brief(outs)] == [(4, port, 0), (5, port, 1), (7, port, 2), (8, port, 3)]
    dut = router(fbfly, n_vcs=4)
    outs, _ = simulate(dut, {t: {0: flit(13, vc=t % 3, data=t)} for t in range(4)}, 14)
    assert [(t, o, d) for t, o, d, _ in brief(outs)] == [(4, port, 0), (5, port, 1), (6, port, 2), (7, port, 3)]


def test_bound_vc_streams_with_three_credits_and_three_flits(fbfly):
    """A bound VC asks for its next flit while its two requests before await their verdicts (u(v) = 2:
    three credits, three flits in the view): one flit per cycle with B = 6 from the first body, three cycles
    after the head (§R11.5); with B = 2 downstream credits run short, and RI sees a returned credit a cycle
    after GO does (its copy of the output side, §R11.1)."""
    dut = router(fbfly, vc_depth=6)
    outs, _ = simulate(dut, source({0: packet(13, 10)}), 30)
    assert [t for t, _, _ in outs] == [4] + list(range(7, 16))
    dut = router(fbfly, vc_depth=2)
    outs, _ = simulate(dut, source({0: packet(13, 4)}), 30)
    assert [t for t, _, _ in outs] == [4, 7, 10, 13]


@pytest.mark.parametrize("V, packets, times", [
    (2, [8], [4, 7, 11, 14, 18, 21, 25, 28]),
    (1, [3, 3, 3], [4, 7, 11, 14, 18, 21, 25, 28, 32]),
])
def test_bound_vc_credit_copy_counts_own_takes(fbfly, V, packets, times):
    """B = 2 downstream, credits back two cycles after their flits: each flit uses the credit of the flit two
    before it, on ``credit_in`` 2 cycles after that flit left, in the counter a cycle later, in RI's copy a
    cycle after that (§R11.1), then RI, GO, ST and the link: 2 + 5 cycles. RI's copy of a bound VC's credit
    bits is the view's, less the VC's own take in ST (a body's, and a new binding's head's: the rule holds
    across packets on one output VC)."""
    dut = router(fbfly, n_vcs=V, vc_depth=2)
    sends = [f for i, n in enumerate(packets) for f in packet(13, n, data=10 * i)]
    outs, _ = simulate(dut, source({0: sends}), 40, credit_delay=2)
    assert [t for t, _, _ in outs] == times
    assert all(b - a >= 7 for a, b in zip(times, times[2:]))


# ------------------------------------------------------------------ speedup 2 (§R8b under §R11)
def test_speedup2(fbfly):
    """S = 2: two heads from two inputs to one output are both granted in one GO and leave in grant order
    (input 0 first, ptr_out 0) through the output queue, one per cycle; the second head gets the other VC
    (most credits once the first took one); one input sends two VCs' heads in one cycle."""
    dut = router(fbfly, speedup=2)
    port = net_port(fbfly, 0, 13)
    outs, creds = simulate(dut, {0: {0: flit(13, data=0), 1: flit(13, data=1)}}, 12)
    assert brief(outs) == [(4, port, 0, 0), (5, port, 1, 1)]
    assert creds == [(5, 0, 0), (5, 1, 0)]
    outs, creds = simulate(dut, {0: {0: flit(13, vc=0, data=0)}, 1: {0: flit(13, vc=1, data=1)},
                                 2: {1: flit(13, vc=0, data=2)}}, 12)
    assert brief(outs) == [(4, port, 0, 0), (5, port, 1, 1), (6, port, 2, 0)]
    # two packets of one input on two VCs, both streaming through two lanes
    dut = router(fbfly, speedup=2, vc_depth=6)
    a, b = packet(13, 6, 0, data=0), packet(5, 6, 1, data=10)
    outs, _ = simulate(dut, source({0: [x for pair in zip(a, b) for x in pair]}), 30)
    by_port = {}
    for t, o, f in outs:
        by_port.setdefault(o, []).append(f["data"])
    assert by_port == {port: list(range(6)), net_port(fbfly, 0, 5): list(range(10, 16))}


# ------------------------------------------------------------------ egress credits (§R3a under §R11)
@pytest.mark.parametrize("E, times", [(2, [4, 7, 10, 13, 16, 19]), (4, [4, 7, 8, 9, 10, 13])])
def test_egress_credits(fbfly, E, times):
    """A six-flit packet into an egress FIFO whose sink returns each credit a cycle after the flit arrives:
    with E = 2 two credits cover a round trip of three cycles (GO takes, the flit is on the link two cycles
    later, its credit back a cycle after that), so one flit per three cycles after the first body; E = 4
    streams four flits, then waits for credits."""
    dut = router(fbfly, egress_depth=E)
    outs, _ = simulate(dut, source({4: packet(1, 6)}), 30, ej_credit=lambda t, o, f: t + 1)
    assert [t for t, o, _ in outs] == times and {o for _, o, _ in outs} == {1}


# ------------------------------------------------------------------ random traffic: invariants
# plain speedup 2 and UGAL-S at speedup 1 are slow (7 and 4 s): seeds 4, 6 and 10 run speedup 2 by default (with egress
# credits, ugal and ugal-s), and test_cosim_hiradix.py::test_sequential_ri_ugal_s holds UGAL-S at speedup 1 to the
# golden model
@pytest.mark.parametrize("seed, kw", [
    (1, {}), pytest.param(2, {"speedup": 2}, marks=pytest.mark.slow), (3, {"egress_depth": 2}),
    (4, {"speedup": 2, "egress_depth": 3, "vc_depth": 6}),
    (5, {"routing": "min-ad"}), (6, {"routing": "ugal", "speedup": 2}), (7, {"n_vcs": 4, "vc_depth": 2}),
    (8, {"routing": "val", "n_vcs": 4}),
    pytest.param(9, {"routing": "ugal-s"}, marks=pytest.mark.slow),
    (10, {"routing": "ugal-s", "speedup": 2, "seq_impl": "ripple"}),
])
def test_random_traffic_invariants(fbfly, seed, kw):
    """Every flit leaves once, on its route's port (a table routing) with the right header; an output VC
    carries a packet's flits together (wormhole) and a VC's flits in order; no protocol error."""
    dut, outs, sent = random_run(fbfly, seed, **kw)
    check_invariants(fbfly, dut, outs, sent)


# ------------------------------------------------------------------ what hiradix refuses, and lint
# S = 2 is slow (18 s): S = 1 composes the same unit both ways, tests/test_hdl_seq_alloc.py compares both structures
# with the model at S = 2, and seed 10 of test_random_traffic_invariants runs the ripple RI at speedup 2
@pytest.mark.parametrize("S", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_sequential_ri_ripple_equals_prefix(fbfly, S):
    """The sequential RI composes hdl/seq_alloc.py's unit (router-spec §R11.2): its ripple and prefix
    structures give the same router, flit for flit and cycle for cycle, on random multi-flit traffic."""
    runs = [random_run(fbfly, 11 + S, routing="ugal-s", speedup=S, seq_impl=impl)[1] for impl in ("ripple", "prefix")]
    assert len(runs[0]) > 20 and runs[0] == runs[1]


@pytest.mark.parametrize("kw", [{}, pytest.param({"speedup": 2}, marks=pytest.mark.slow)])
def test_crossbar_index_equals_onehot(fbfly, kw):
    """The crossbar selected by the index GO registers (the default) and by GO's one-hot grant give the same
    router, flit for flit and cycle for cycle, on random multi-flit traffic."""
    runs = [random_run(fbfly, 21, crossbar_select=x, **kw)[1] for x in ("index", "onehot")]
    assert len(runs[0]) > 20 and runs[0] == runs[1]


@pytest.mark.parametrize("kw", [{"router_model": "hiradix-decoupled", "routing": "ugal"},
                                {"router_model": "hiradix-relay", "vc_depth": 6},
                                {"router_model": "hiradix-twohead", "routing": "min-ad", "vc_depth": 5},
                                pytest.param({"router_model": "hiradix-staged", "speedup": 2, "vc_depth": 3},
                                             marks=pytest.mark.slow)])
def test_input_buffer_structures_same_router(fbfly, kw):
    """The third flit of every VC in a register, and the flits behind the front registers in a block RAM read a
    cycle ahead (router-spec §R11.1a), give the same router as two front registers and a LUT-RAM, flit for flit and
    cycle for cycle, on random multi-flit traffic: with the RAM a register (depth 4 and three fronts), a LUT-RAM or
    a block RAM, or none (depth 3), and with the second head leaving from behind the front (``hiradix-twohead``)."""
    runs = [random_run(fbfly, 23, buffer_fronts=f, buffer_ram=r, **kw)[1]
            for f, r in ((2, "lut"), (3, "lut"), (2, "block"), (3, "block"))]
    assert len(runs[0]) > 20 and all(x == runs[0] for x in runs[1:])


def test_input_buffer_structures_refused_in_one_line(fbfly):
    with pytest.raises(ValueError, match=r"^Router: buffer_fronts [^\n]*must be one of 2, 3, got 4$"):
        router(fbfly, buffer_fronts=4)
    with pytest.raises(ValueError, match=r"^Router: buffer_fronts 3 needs a hiradix router_model [^\n]*'iq'$"):
        router(fbfly, buffer_fronts=3, router_model="iq")
    with pytest.raises(ValueError, match=r"^Router: buffer_ram [^\n]*must be one of lut, block, got 'bram'$"):
        router(fbfly, buffer_ram="bram")
    with pytest.raises(ValueError, match=r"^Router: buffer_ram 'block' needs a hiradix router_model [^\n]*'iq'$"):
        router(fbfly, buffer_ram="block", router_model="iq")


def test_crossbar_select_refused_in_one_line(fbfly):
    with pytest.raises(ValueError, match=r"^Router: crossbar_select [^\n]*must be one of index, onehot, got 'tree'$"):
        router(fbfly, crossbar_select="tree")


@pytest.mark.parametrize("routing", ["clos-ad", "2dfb-adaptive"])
def test_other_sequential_routings_refused_in_one_line(fbfly, routing):
    with pytest.raises(ValueError, match=rf"^Router: routing '{routing}' is not built under router_model "
                                         r"'hiradix'[^\n]*ugal-s[^\n]*$"):
        router(fbfly, routing=routing)


def test_seq_impl_refused_in_one_line(fbfly):
    with pytest.raises(ValueError, match=r"^Router: seq_impl [^\n]*must be one of prefix, ripple, got 'tree'$"):
        router(fbfly, routing="ugal-s", seq_impl="tree")


# ------------------------------------------------------------------ the decision line (§R11.2a)
@pytest.mark.parametrize("g, lw", [(1, 9), (3, 7)])
def test_decision_line_delays_injection_ports_only(fbfly, g, lw):
    """A 3-flit packet from a terminal (port 0) to router 1's first terminal and one from a neighbour router
    (port 4) to this router's terminal 1: through the line of ``Lw = 5 + ceil(4 / g)`` cycles the terminal's
    flits leave ``Lw`` cycles later than without it, the neighbour's as before; the flits are unchanged."""
    runs = []
    for wf in (0, g):
        dut = router(fbfly, routing="ugal-s", seq_wavefront=wf)
        assert dut.inject_ports == [0, 1, 2, 3]
        outs, _ = simulate(dut, source({0: packet(4, 3, data=10), 4: packet(1, 3, vc=1, data=20)}), 40)
        runs.append({f["data"]: (t, o) for t, o, f in outs})
    assert sorted(runs[0]) == sorted(runs[1]) == [10, 11, 12, 20, 21, 22]
    for d in (10, 11, 12):
        assert runs[1][d] == (runs[0][d][0] + lw, runs[0][d][1])
    for d in (20, 21, 22):
        assert runs[1][d] == runs[0][d]


def test_decision_line_random_traffic_invariants(fbfly):
    """Random multi-flit traffic on every port through a router with decision lines: every flit leaves once,
    wormhole and per-VC order kept, no protocol error."""
    dut, outs, sent = random_run(fbfly, 12, cycles=200, routing="ugal-s", seq_wavefront=2)
    check_invariants(fbfly, dut, outs, sent)


@pytest.mark.parametrize("kw", [{"seq_wavefront": 1}, {"routing": "ugal", "seq_wavefront": 1},
                                {"routing": "ugal-s", "seq_wavefront": -1},
                                {"routing": "ugal-s", "router_model": "iq", "seq_wavefront": 1}])
def test_seq_wavefront_refused_in_one_line(fbfly, kw):
    with pytest.raises(ValueError, match=r"^Router: seq_wavefront [^\n]*$"):
        router(fbfly, **kw)


@needs_verilator
# the four variants are slow (12 to 30 s each); the co-simulations build hiradix at speedup 2, with an adaptive
# routing and with the decision line by default (Verilator's co-simulation build stops on any warning but WIDTH
# and UNUSEDSIGNAL: a constant comparison in the single-candidate chain once)
@pytest.mark.parametrize("opts", [[], pytest.param(["--speedup", "2", "--vcs", "2"], marks=pytest.mark.slow),
                                  pytest.param(["--egress-depth", "2", "--vcs", "2"], marks=pytest.mark.slow),
                                  pytest.param(["--routing", "min-ad"], marks=pytest.mark.slow),
                                  pytest.param(["--routing", "ugal-s", "--seq-wavefront", "1", "--vcs", "2"],
                                               marks=pytest.mark.slow)])
def test_tree_lints_clean(tmp_path, capsys, opts):
    """``radixnet rtl fbfly --k 4 --n 2 --router-model hiradix --lint``: the generated tree lints clean."""
    out = tmp_path / "rtl"
    assert rtlgen_main(["fbfly", "--k", "4", "--n", "2", "--router-model", "hiradix", *opts, "--lint",
                        "--out", str(out)]) == 0, capsys.readouterr()
    assert "lint clean" in capsys.readouterr().out


@pytest.mark.parametrize("S", [1, pytest.param(2, marks=pytest.mark.slow)])   # S = 2: slow
def test_core_with_rom_equals_router(S):
    """``external_rom`` (the shared scheme of ``make rtl``): the core with a ROM per input port (the lookahead
    read, §R10.4) is cycle for cycle the router with its ROM inside, S = 1 and 2."""
    from test_rtlgen import CoreWithRoms, _run_pair

    net = build("fbfly", k=4, n=2)
    ref = Router(net, 1, 2, 3, 8, router_model="hiradix", speedup=S)
    core = Router(net, 1, 2, 3, 8, external_rom=True, router_model="hiradix", speedup=S)
    assert core.lookahead and _run_pair(ref, CoreWithRoms(core), 160, 5) > 40
