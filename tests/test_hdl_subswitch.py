"""The ``subswitch`` router model in RTL (router-spec §R12; hdl/router_subswitch.py): RI | row | SA | column | GO.

Amaranth-simulator scenarios of one router (fbfly k = 4, n = 2, router 0: terminal ports 0-3, network
ports 4-6), checked against §R12's timeline worked by hand, then random traffic under the invariants every
router model keeps (tests/helpers/router_sim.py) for several groupings, VC counts and egress credits, what
the model refuses, and Verilator lint of a generated tree. The co-simulation against the golden model is in
tests/test_cosim_subswitch.py.
"""

import shutil

import pytest

from radixnet.gen import build
from radixnet.gen.routing import compile_table
from radixnet.hdl.alloc import ColumnArbiter, SubSwitchAllocator
from radixnet.hdl.router import Router
from radixnet.hdl.rtlgen import main as rtlgen_main

from helpers.router_sim import check_invariants, flit, packet, random_run, simulate, source

needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")


@pytest.fixture(scope="module")
def fbfly():
    return build("fbfly", k=4, n=2)


def router(fbfly, **kw):
    return Router(fbfly, 0, **{"n_vcs": 2, "vc_depth": 4, "data_width": 16, "router_model": "subswitch", **kw})


def test_zero_load_timeline(fbfly):
    """A head usable at a (sent at a - 1) is on its output link at a + 5 (RI, row, SA, column, GO), with
    hops + 1 on a network port; its bodies follow a cycle apart (nothing waits for a binding); an ejection
    keeps hops and leaves on VC 0; a slot freed at RI in a is credited upstream in a + 1."""
    dut = router(fbfly)
    t = compile_table(fbfly)
    port = int(t.next_port[0][int(t.term_router[13])])
    outs, creds = simulate(dut, source({2: [(0, flit(13, vc=1, data=0xab))],
                                        1: packet(13, 4, vc=0, at=10, data=1),
                                        0: [(20, flit(2, vc=1, data=7))]}), 32)
    assert outs == [
        (6, port, flit(13, vc=0, hops=1, data=0xab)),
        (16, port, flit(13, vc=0, tail=0, hops=1, data=1)),
        (17, port, flit(13, vc=0, head=0, tail=0, data=2)),
        (18, port, flit(13, vc=0, head=0, tail=0, data=3)),
        (19, port, flit(13, vc=0, head=0, tail=1, data=4)),
        (26, 2, flit(2, vc=0, data=7)),
    ]
    assert creds == [(2, 2, 1), (12, 1, 0), (13, 1, 0), (14, 1, 0), (15, 1, 0), (22, 0, 1)]


def test_one_vc_streams_a_flit_per_cycle_on_four_credits(fbfly):
    """Each credit loop (row buffer, column buffer, the link) is four cycles, so a 12-flit packet on one VC
    with ``B = Bs = 4`` leaves one flit per cycle behind its head."""
    dut = router(fbfly)
    outs, _ = simulate(dut, source({0: packet(13, 12, vc=0, at=0, data=1)}), 40)
    times = [t for t, _, _ in outs]
    assert len(times) == 12 and times == list(range(times[0], times[0] + 12)) and times[0] == 6


def test_two_inputs_of_one_row_meet_at_one_output(fbfly):
    """Two heads for one output from inputs of one row: SA grants one a cycle (the other keeps its row
    buffer's front and goes the next cycle); GO then sends them one after the other."""
    dut = router(fbfly)
    outs, _ = simulate(dut, source({0: [(0, flit(13, vc=0, data=1))], 1: [(0, flit(13, vc=0, data=2))]}), 16)
    assert [(t, f["data"]) for t, _, f in outs] == [(6, 1), (7, 2)]


@pytest.mark.parametrize("seed, kw", [
    (1, {}), (2, {"group": 2}), (3, {"group": 1}), (4, {"group": 7}), (5, {"group": 3, "egress_depth": 2}),
    (6, {"n_vcs": 4, "vc_depth": 2}), (7, {"vc_depth": 1, "group": 2}),
])
def test_random_traffic_invariants(fbfly, seed, kw):
    """Every flit leaves once on its route's port with the right header, an output VC carries a packet's
    flits together, and per input VC, output and output VC the flits keep their order (§R12: a row buffer per
    column and a column buffer per output VC, so packets of one input VC for different outputs, or given
    different output VCs of one class, may pass each other)."""
    dut, outs, sent = random_run(fbfly, seed, cycles=220, router_model="subswitch", **kw)
    check_invariants(fbfly, dut, outs, sent, order="vc-output")


@pytest.mark.parametrize("kw, needle", [
    ({"routing": "min-ad"}, "route-table routings only"),
    ({"speedup": 2}, "S = 1 only"),
    ({"group": 0}, "group"),
])
def test_what_subswitch_refuses_is_one_line(fbfly, kw, needle):
    with pytest.raises(ValueError) as exc:
        router(fbfly, **kw)
    assert needle in str(exc.value) and "\n" not in str(exc.value)


def test_units_refuse_bad_parameters():
    with pytest.raises(ValueError, match="ovcs"):
        SubSwitchAllocator(2, [3], 2, 1, 4)
    with pytest.raises(ValueError, match="n_rows"):
        ColumnArbiter(0, 2)


@needs_verilator
def test_tree_lints_clean(tmp_path, capsys):
    """``radixnet rtl fbfly --k 4 --n 2 --router-model subswitch --lint``: the generated tree lints clean."""
    out = tmp_path / "rtl"
    assert rtlgen_main(["fbfly", "--k", "4", "--n", "2", "--router-model", "subswitch", "--lint",
                        "--out", str(out)]) == 0, capsys.readouterr()
    assert "lint clean" in capsys.readouterr().out


async def fifo_step(ctx, dut, ref, pop, push, word):
    """One cycle of a :class:`~radixnet.hdl.front_fifo.FrontFIFO` and of its reference deque ``ref``."""
    ctx.set(dut.r_en, pop)
    ctx.set(dut.w_en, push)
    ctx.set(dut.w_data, word)
    await ctx.tick()
    if pop:
        ref.popleft()
    if push:
        ref.append(word)


def run_bench(dut, bench):
    """Run the async testbench ``bench`` on ``dut`` with a clock."""
    from amaranth.sim import Simulator

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_front_fifo_is_a_fifo(depth):
    """:class:`~radixnet.hdl.front_fifo.FrontFIFO` against a deque, random reads and writes: the front, the
    ready bits and the level every cycle, and the peeked bits of the second word (``r_next``, the row buffers'
    view for SA after a grant); a word written at the edge ending t is readable in t + 1."""
    import random
    from collections import deque

    from radixnet.hdl.front_fifo import FrontFIFO

    mask = 0b10110101
    dut = FrontFIFO(8, depth, peek=mask)
    rng = random.Random(depth)
    ref = deque()

    async def bench(ctx):
        for t in range(600):
            assert ctx.get(dut.level) == len(ref)
            assert ctx.get(dut.r_rdy) == (len(ref) > 0) and ctx.get(dut.w_rdy) == (len(ref) < depth)
            assert ctx.get(dut.r_rdy2) == (len(ref) > 1)
            if ref:
                assert ctx.get(dut.r_data) == ref[0], f"cycle {t}"
            if len(ref) > 1:
                assert ctx.get(dut.r_next) == ref[1] & mask, f"cycle {t}"
            pop = bool(ref) and rng.random() < 0.5
            push = len(ref) < depth and rng.random() < (0.6 if t < 300 else 0.45)
            await fifo_step(ctx, dut, ref, pop, push, rng.randrange(256))

    run_bench(dut, bench)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_front_fifo_view(depth):
    """:class:`~radixnet.hdl.front_fifo.FrontFIFO`'s view against a deque, the reader's protocol of the row
    buffers (SA decides on the view with ``r_sel``, the word leaves a cycle later with ``r_en``): every cycle
    ``v_bits`` is the peeked bits of the oldest word not yet selected, ``v_rdy`` whether there is one."""
    import random
    from collections import deque

    from radixnet.hdl.front_fifo import FrontFIFO

    mask = 0b11010011
    dut = FrontFIFO(8, depth, peek=mask)
    rng = random.Random(100 + depth)
    ref = deque()

    async def bench(ctx):
        pop = False   # r_en: the word selected in the last cycle leaves now
        for t in range(800):
            seen = int(pop)
            assert ctx.get(dut.v_rdy) == (len(ref) > seen), f"cycle {t}"
            if len(ref) > seen:
                assert ctx.get(dut.v_bits) == ref[seen] & mask, f"cycle {t}"
            sel = len(ref) > seen and rng.random() < (0.7 if t % 200 < 100 else 0.3)
            push = len(ref) < depth and rng.random() < 0.55
            ctx.set(dut.r_sel, sel)
            await fifo_step(ctx, dut, ref, pop, push, rng.randrange(256))
            pop = sel

    run_bench(dut, bench)
