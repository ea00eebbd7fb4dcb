"""Router units (docs/rtl-checks.md "Router units"): flit layout, input unit, table route computation,
output VC choice and queue length, each in the Amaranth simulator against docs/router-spec.md
(and the golden kernel's own functions where they exist), then Verilator lint and Yosys synthesis."""

import itertools
import shutil
from collections import deque

import numpy as np
import pytest
from amaranth import unsigned
from amaranth.sim import Simulator
from hypothesis import given, settings, strategies as st

from radixnet.gen import build
from radixnet.gen.routing import TABLE, compile_table
from radixnet.golden import kernel
from radixnet.hdl.arbiter import ptr_width
from radixnet.hdl.credits import CreditCounter
from radixnet.hdl.flit import HOPS_BITS, FlitWidths, flit_layout, flit_widths
from radixnet.hdl.input_unit import FRONTS, RAMS, FrontInputUnit, InputUnit
from radixnet.hdl.route_table import RouteCompute
from radixnet.hdl.vc_select import OutputVCSelect, QueueLength
from radixnet.hdl.verilog import WAIVERS, lint, synth, to_verilog

SETTINGS = settings(max_examples=100, deadline=None)
needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")
needs_yosys = pytest.mark.skipif(shutil.which("yosys") is None, reason="yosys not installed (make setup)")

# the golden kernel's §R5/§R7 functions as plain Python (numba dispatchers expose .py_func)
best_ovc = kernel.best_ovc.py_func
qlen = kernel.queue_length.py_func


def run(dut, bench, *, clock=True):
    """Run one async testbench on dut (with a 1 MHz sync clock unless clock=False)."""
    sim = Simulator(dut)
    if clock:
        sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


@pytest.fixture(scope="module")
def networks():
    """The three networks of the route-table tests and their sp tables (built once)."""
    out = {}
    for fam, kw in (("slimfly", {"q": 5}), ("dragonfly", {}), ("fbfly", {"k": 4, "n": 3})):
        net = build(fam, **kw)
        out[fam] = (net, compile_table(net))
    return out


# ------------------------------------------------------------------ §R4 flit
def test_flit_layout_fields_and_order():
    lay = flit_layout(8, 2, 64, inter_bits=6)
    assert list(lay.members) == ["head", "tail", "vc", "dest", "phase", "inter", "decided", "h1", "hops", "data"]
    widths = {name: lay[name].width for name in lay.members}
    assert widths == {"head": 1, "tail": 1, "vc": 2, "dest": 8, "phase": 1, "inter": 6, "decided": 1, "h1": 1,
                      "hops": HOPS_BITS, "data": 64}
    assert HOPS_BITS == 8 and lay.size == sum(widths.values())
    with_src = flit_layout(8, 2, 64, inter_bits=6, src_bits=8)
    assert list(with_src.members)[4] == "src" and with_src.size == lay.size + 8


def test_flit_widths_from_network(networks):
    net, _ = networks["slimfly"]  # T = 200, R = 50
    assert flit_widths(net, 4) == FlitWidths(dest_bits=8, vc_bits=2, inter_bits=6, data_width=64)
    w = flit_widths(net, 1, 32, with_src=True)
    assert (w.vc_bits, w.src_bits, w.data_width) == (1, 8, 32)
    assert w.layout()["src"].width == 8 and w.size == w.layout().size
    for fam, (net, _) in networks.items():
        w = flit_widths(net, 3)
        assert 2 ** w.dest_bits >= net.num_terminals > 2 ** (w.dest_bits - 1)
        assert 2 ** w.inter_bits >= net.num_routers


# ------------------------------------------------------------------ §R2 input unit
TEST_FLIT_ARGS = dict(dest_bits=3, data_width=8, inter_bits=2)


def unit_layout(n_vcs):
    return flit_layout(vc_bits=ptr_width(n_vcs), **TEST_FLIT_ARGS)


def with_vc(layout, bits, vc):
    """The flit ``bits`` with its ``vc`` field set to ``vc``."""
    f = layout["vc"]
    mask = ((1 << f.width) - 1) << f.offset
    return (bits & ~mask) | (vc << f.offset)


def bit(bits, field):
    """A one-bit field of a flit's bits."""
    return (bits >> field.offset) & 1


def input_unit_run(n_vcs, depth, steps, *, speedup=2, front=False, kinds=4, second=False, fronts=2, ram="lut"):
    """Drive an InputUnit under the credit protocol and compare every cycle with a FIFO model.

    ``steps`` items are ``(send, pop_wish, bits)``: the upstream sends a flit with payload ``bits``
    on VC ``send`` if that VC has a credit (``send >= n_vcs``: no flit); the allocator pops the
    non-empty VCs of ``pop_wish`` (as seen at the start of the cycle), at most ``speedup`` of them.
    Credits returned in cycle t are usable upstream from t + 1 (§R2, Tl = 1).
    Returns the number of flits that went through.

    ``front``: the ``hiradix`` router's :class:`FrontInputUnit`, whose oldest two entries, the kinds (tail and
    head bits) of the ``kinds`` oldest (``kind_ivc``) and the occupancy bits ``nge_ivc`` are checked too; its
    entries carry a 3-bit side-band (a function of the flit's bits), checked with the flit.

    ``second`` (``front`` only): ``steps`` items carry a fourth element, ``second_wish``: a popped VC that holds
    two flits or more and whose bit is set gives up its second oldest flit instead (``pop1_ivc``, router-spec
    §R11.9).

    ``fronts``, ``ram`` (``front`` only): the oldest entries per VC held in registers and what holds the rest
    (router-spec §R11.1a).
    """
    layout = unit_layout(n_vcs)
    dut = (FrontInputUnit(n_vcs, depth, layout, side_shape=unsigned(3), kinds=kinds, second_pop=second,
                          fronts=fronts, ram=ram) if front else InputUnit(n_vcs, depth, layout))

    def side(bits):
        return (bits * 5 + 3) % 8 if front else 0
    fifo = [deque() for _ in range(n_vcs)]
    upstream = [depth] * n_vcs  # credits held by the upstream router
    moved = [0]

    async def bench(ctx):
        for send, pop_wish, bits, *more in steps:
            # start of the cycle: what the allocator sees
            nonempty = sum(1 << v for v in range(n_vcs) if fifo[v])
            if not front:
                assert ctx.get(dut.front_valid_ivc) == nonempty
            for v in range(n_vcs):
                assert ctx.get(dut.count_ivc[v]) == len(fifo[v])
                if front:
                    assert ctx.get(dut.nge_ivc[v]) == sum(1 << k for k in range(kinds) if len(fifo[v]) > k)
                    for k, port in enumerate((dut.front0_ivc, dut.front1_ivc)):
                        if len(fifo[v]) > k:
                            assert ctx.get(port[v]) == fifo[v][k], (v, k)
                    kd = ctx.get(dut.kind_ivc[v])
                    for k in range(min(kinds, len(fifo[v]))):
                        want = bit(fifo[v][k], layout["tail"]) | bit(fifo[v][k], layout["head"]) << 1
                        assert (kd >> 2 * k) & 3 == want, (v, k)
                elif fifo[v]:
                    assert ctx.get(dut.front_flit_ivc[v].as_value()) == fifo[v][0]
            pops = [v for v in range(n_vcs) if (pop_wish >> v) & 1 and fifo[v]][:speedup]
            behind = [v for v in pops if more and (more[0] >> v) & 1 and len(fifo[v]) >= 2]
            pop_mask = sum(1 << v for v in pops)
            pop1_mask = sum(1 << v for v in behind)
            flit = None
            if send < n_vcs and upstream[send] > 0:
                upstream[send] -= 1
                flit = with_vc(layout, bits, send)
            ctx.set(dut.pop_ivc, pop_mask & ~pop1_mask)
            if second:
                ctx.set(dut.pop1_ivc, pop1_mask)
            ctx.set(dut.in_valid, flit is not None)
            ctx.set(dut.in_flit.as_value(), flit if flit is not None else bits)
            if front:
                ctx.set(dut.in_side, side(bits))
            assert ctx.get(dut.credit_ret_ivc) == pop_mask  # one credit per pop, in the same cycle
            assert ctx.get(dut.error) == 0
            if front:   # the front registers' next entries (what a reader registers a cycle early)
                nxt = [(ctx.get(dut.front0_next_ivc[v]), ctx.get(dut.front1_next_ivc[v])) for v in range(n_vcs)]
            await ctx.tick()
            if front:
                for v in range(n_vcs):
                    assert (ctx.get(dut.front0_ivc[v]), ctx.get(dut.front1_ivc[v])) == nxt[v], v
            # end of the cycle: pops leave, the arrival is written, credits reach upstream
            for v in pops:
                if v in behind:
                    del fifo[v][1]
                else:
                    fifo[v].popleft()
                upstream[v] += 1
                moved[0] += 1
            if flit is not None:
                fifo[send].append(flit | side(bits) << layout.size)
                assert len(fifo[send]) <= depth
        assert ctx.get(dut.error) == 0

    run(dut, bench)
    return moved[0]


@st.composite
def input_case(draw):
    n_vcs = draw(st.integers(1, 4))
    depth = draw(st.integers(1, 7))
    speedup = draw(st.integers(1, 2))
    bits = st.integers(0, 2 ** unit_layout(n_vcs).size - 1)
    pop_wish = st.integers(0, 2 ** n_vcs - 1)
    if draw(st.booleans()):  # slow drain: buffers fill up and the credit limit is exercised
        pop_wish = st.sampled_from([0, 0, 0]) | pop_wish
    steps = draw(st.lists(st.tuples(st.integers(0, n_vcs), pop_wish, bits), min_size=1, max_size=40))
    return n_vcs, depth, speedup, steps


@SETTINGS
@given(input_case())
def test_input_unit_matches_fifo_model(case):
    n_vcs, depth, speedup, steps = case
    input_unit_run(n_vcs, depth, steps, speedup=speedup)


@SETTINGS
@given(input_case(), st.sampled_from(FRONTS), st.sampled_from(RAMS))
def test_front_input_unit_matches_fifo_model(case, fronts, ram):
    """The hiradix input unit: the same FIFO, its first four entries readable (two from registers), whether the
    third entry is a register too or not, the rest in a LUT-RAM or a RAM read a cycle ahead (router-spec
    §R11.1a)."""
    n_vcs, depth, speedup, steps = case
    input_unit_run(n_vcs, depth, steps, speedup=speedup, front=True, fronts=fronts, ram=ram)


@SETTINGS
@given(input_case(), st.data())
def test_front_input_unit_gives_up_its_second_flit(case, data):
    """``hiradix-twohead`` (router-spec §R11.9): a pop may take a VC's second oldest flit instead (``pop1_ivc``);
    the front registers, the kinds of the five oldest entries, the occupancy bits and the credits follow the FIFO
    model with that flit removed from the middle."""
    n_vcs, depth, speedup, steps = case
    wishes = data.draw(st.lists(st.integers(0, 2 ** n_vcs - 1), min_size=len(steps), max_size=len(steps)))
    steps = [(*x, w) for x, w in zip(steps, wishes)]
    input_unit_run(n_vcs, depth, steps, speedup=speedup, front=True, kinds=5, second=True,
                   fronts=data.draw(st.sampled_from(FRONTS)), ram=data.draw(st.sampled_from(RAMS)))


@pytest.mark.parametrize("ram", RAMS)
@pytest.mark.parametrize("fronts", FRONTS)
@pytest.mark.parametrize("depth", [3, 4, 5, 7])
def test_front_input_unit_full_buffers(depth, fronts, ram):
    """Long runs near full (router-spec §R11.1a): arrivals while a VC holds three flits or more, with and without
    a pop, so every entry passes through every register and RAM slot (a seeded draw, the FIFO model as above)."""
    rng = np.random.default_rng(depth * 10 + fronts)
    steps = [(int(rng.integers(0, 3)), int(rng.random() < 0.3) | int(rng.random() < 0.3) << 1,
              int(rng.integers(0, 1 << unit_layout(2).size)), int(rng.integers(0, 4))) for _ in range(300)]
    assert input_unit_run(2, depth, [x[:3] for x in steps], front=True, fronts=fronts, ram=ram) > 100
    assert input_unit_run(2, depth, steps, front=True, kinds=5, second=True, fronts=fronts, ram=ram) > 100


def test_front_input_unit_second_pop_keeps_the_front():
    """§R11.9, worked by hand: a head (not a tail), a tail and a single-flit packet in one VC; the tail leaves from
    behind the front. The front keeps its entry and its kind, the single-flit packet moves up behind it."""
    lay = unit_layout(1)
    head, tail = 1 << lay["head"].offset, 1 << lay["tail"].offset
    steps = [(0, 0, head, 0), (0, 0, tail, 0), (0, 0, head | tail, 0), (1, 0, 0, 0), (1, 1, 0, 1), (1, 0, 0, 0),
             (1, 1, 0, 0), (1, 1, 0, 0), (1, 0, 0, 0)]
    assert input_unit_run(1, 4, steps, speedup=1, front=True, kinds=5, second=True) == 3


@SETTINGS
@given(input_case())
def test_front_input_unit_with_five_kinds_matches_fifo_model(case):
    """``hiradix-staged``'s input unit (router-spec §R11.7): the kinds and occupancy of its five oldest entries."""
    n_vcs, depth, speedup, steps = case
    input_unit_run(n_vcs, depth, steps, speedup=speedup, front=True, kinds=5)


@pytest.mark.parametrize("depth", [4, 5, 7])
@pytest.mark.parametrize("kinds", [4, 5])
def test_front_input_unit_fill_then_drain(depth, kinds):
    """The hiradix input unit filled to its depth, then drained a flit per cycle while flits arrive: each entry
    behind the front two reaches ``front1`` with its own side-band (the third entry's is a register, shifted
    from the RAM's next slot)."""
    fill = [(0, 0, 10 + i) for i in range(depth)]
    drain = [(0, 1, 40 + i) for i in range(3 * depth)]
    # every flit goes through but one: the first drain cycle has no credit upstream
    assert input_unit_run(1, depth, fill + drain + [(1, 1, 0)] * depth, front=True, kinds=kinds) == 4 * depth - 1


def test_input_unit_full_rate_and_wrap():
    """One VC, the allocator pops whenever it can: FIFO order over pointer wraps, and the §R2 credit
    round trip of 2 cycles (pop in t, credit usable upstream from t + 1, flit visible from t + 2)."""
    steps = [(0, 1, 100 + i) for i in range(20)]
    assert input_unit_run(2, 1, steps) == 10   # depth 1: one flit every other cycle
    for depth in (2, 3):
        assert input_unit_run(2, depth, steps) == 19  # full rate; the first cycle has nothing to pop


def test_input_unit_timing_by_hand():
    """§R2/§R6: an arrival in cycle t is visible from t + 1, never in t; pops return credits at once."""
    layout = unit_layout(2)
    dut = InputUnit(2, 2, layout)
    a, b, c = (with_vc(layout, x, 1) for x in (0x11, 0x22, 0x33))
    d = with_vc(layout, 0x44, 0)
    seen = []

    async def bench(ctx):
        def look():
            seen.append((ctx.get(dut.front_valid_ivc), ctx.get(dut.front_flit_ivc[1].as_value()),
                         ctx.get(dut.front_flit_ivc[0].as_value()), ctx.get(dut.credit_ret_ivc)))

        ctx.set(dut.in_flit.as_value(), a)  # cycle 0: a arrives on VC 1
        ctx.set(dut.in_valid, 1)
        look()
        await ctx.tick()
        ctx.set(dut.in_flit.as_value(), b)  # cycle 1: b arrives on VC 1
        look()
        await ctx.tick()
        ctx.set(dut.in_flit.as_value(), d)  # cycle 2: pop a (VC 1 full at the start), d arrives on VC 0
        ctx.set(dut.pop_ivc, 0b10)
        look()
        await ctx.tick()
        ctx.set(dut.in_flit.as_value(), c)  # cycle 3: pop b and d together (S = 2), c arrives on VC 1
        ctx.set(dut.pop_ivc, 0b11)
        look()
        await ctx.tick()
        ctx.set(dut.in_valid, 0)
        ctx.set(dut.pop_ivc, 0)
        look()
        assert ctx.get(dut.error) == 0

    run(dut, bench)
    assert [s[0] for s in seen] == [0b00, 0b10, 0b10, 0b11, 0b10]  # front_valid_ivc
    assert [s[1] for s in seen[1:]] == [a, a, b, c]                  # FIFO order on VC 1
    assert seen[3][2] == d
    assert [s[3] for s in seen] == [0, 0, 0b10, 0b11, 0]             # two credits in one cycle


@pytest.mark.parametrize("n_vcs, cycles, message", [
    # a pop in the same cycle does not make room: the arrival must find count < depth at the start
    (2, [(1, 0, 0), (1, 0, 0), (1, 0, 0b01)], "overflow"),
    (2, [(0, 0, 0b10)], "underflow"),
    (3, [(1, 3, 0)], "bad VC"),
])
def test_input_unit_assertions_fire(n_vcs, cycles, message):
    layout = unit_layout(n_vcs)
    dut = InputUnit(n_vcs, 2, layout)

    async def bench(ctx):
        for valid, vc, pop in cycles + [(0, 0, 0)]:
            ctx.set(dut.in_valid, valid)
            ctx.set(dut.in_flit.as_value(), with_vc(layout, 0, vc))
            ctx.set(dut.pop_ivc, pop)
            await ctx.tick()

    with pytest.raises(AssertionError, match=message):
        run(dut, bench)


def test_input_unit_violations_drop_and_stick():
    """Without assertions: an overflowing flit is dropped, an empty pop ignored, error sticks."""
    layout = unit_layout(1)
    dut = InputUnit(1, 1, layout, check=False)
    seen = []

    async def bench(ctx):
        for valid, bits, pop in [(1, 0x10, 0), (1, 0x20, 0), (0, 0, 1), (0, 0, 1), (0, 0, 0)]:
            ctx.set(dut.in_valid, valid)
            ctx.set(dut.in_flit.as_value(), with_vc(layout, bits, 0))
            ctx.set(dut.pop_ivc, pop)
            seen.append((ctx.get(dut.count_ivc[0]), ctx.get(dut.front_flit_ivc[0].as_value()),
                         ctx.get(dut.credit_ret_ivc), ctx.get(dut.error)))
            await ctx.tick()

    run(dut, bench)
    assert [s[0] for s in seen] == [0, 1, 1, 0, 0]
    assert seen[2][1] == 0x10                      # the second flit was dropped
    assert [s[2] for s in seen] == [0, 0, 1, 0, 0]  # no credit for the empty pop
    assert [s[3] for s in seen] == [0, 0, 1, 1, 1]


# ------------------------------------------------------------------ §R7a table route computation
def golden_table_route(table, r, dest, hops, n_ports):
    """The TABLE branch of the golden kernel's _decide for one head flit, all output VCs idle and full.

    Two VCs per class with equal credits, so the §R5 choice is the class's first VC: class = ov // 2.
    Returns (port, eject, class) or None when the kernel finds no candidate.
    """
    R, K = table.next_port.shape[0], table.classes
    V, B = 2 * K, 4
    credit = np.full((R, n_ports, V), B, np.int64)
    busy = np.zeros((R, n_ports, V), np.int64)
    out_term = np.full((R, n_ports), -1, np.int64)
    here = table.term_router == r
    out_term[r, table.eject_port[here]] = np.flatnonzero(here)
    pkt = lambda x: np.array([x], np.int64)  # noqa: E731
    dec = np.zeros(5, np.int64)
    # by keyword: arguments the TABLE branch does not read are None (robust to kernel signature growth)
    known = dict(r=r, pid=0, algo=TABLE, ncls=K, V=V, B=B, thr=0, term_router=table.term_router,
                 eject_port=table.eject_port, out_term=out_term, credit=credit, ovc_busy=busy, pkt_dst=pkt(dest),
                 pkt_phase=pkt(0), pkt_decided=pkt(0), pkt_inter=pkt(0), dec=dec, tbl=table.next_port,
                 pkt_hops=pkt(hops), p=0,
                 tcls=np.full((1, 1), -1, np.int64), up_port=np.full((1, 1), -1, np.int64))
    ok = kernel.decide_reference(known)
    if not ok:
        return None
    eject = bool(out_term[r, dec[0]] >= 0)
    return int(dec[0]), eject, None if eject else int(dec[1]) // 2


def route_rtl(dut, queries):
    """(valid, port, eject, cls, hops_out) for each (dest, hops) query."""
    seen = []

    async def bench(ctx):
        for dest, hops in queries:
            ctx.set(dut.dest, dest)
            ctx.set(dut.hops, hops)
            seen.append((ctx.get(dut.valid), ctx.get(dut.port), ctx.get(dut.eject), ctx.get(dut.cls),
                         ctx.get(dut.hops_out)))

    run(dut, bench, clock=False)
    return seen


@pytest.mark.parametrize("family", ["slimfly", "dragonfly", "fbfly"])
def test_route_compute_matches_tables_and_golden(networks, family):
    """Every destination terminal, at two routers of each network, against gen's table and the kernel."""
    net, table = networks[family]
    T, K = net.num_terminals, table.classes
    hops_values = sorted({0, 1, K - 1, K, K + 1, 200})
    for r in (0, net.num_routers // 2 + 1):
        n_ports = int(net.radix[r])
        dut = RouteCompute.from_table(table, r, n_ports)
        queries = [(t, h) for t in range(T) for h in hops_values]
        for (t, h), (valid, port, eject, cls, hops_out) in zip(queries, route_rtl(dut, queries)):
            dr = table.term_router[t]
            spec = (table.eject_port[t], 1) if dr == r else (table.next_port[r, dr], 0)
            assert valid == 1 and (port, eject) == spec, (family, r, t)
            assert hops_out == (h if eject else h + 1)
            if not eject:
                assert cls == min(h, K - 1)
            assert golden_table_route(table, r, t, h, n_ports) == (port, bool(eject), None if eject else cls)


def test_route_compute_by_hand():
    """Missing routes and out-of-range destinations are not valid; class caps; hops saturates at 255."""
    dut = RouteCompute([-1, 2, -1], [0, 1, 2, 1, 0], [1, 0, 0, 3, 3], router_id=0, n_ports=4, n_classes=3,
                       dest_bits=4)
    assert dut.rom_words() == [(1, 1, 1), (1, 0, 2), (0, 0, 0), (1, 0, 2), (1, 1, 3)]
    seen = route_rtl(dut, [(0, 0), (1, 0), (1, 1), (1, 2), (1, 9), (2, 0), (4, 255), (1, 255), (5, 0),
                           (8, 0), (15, 0)])
    assert [s[0] for s in seen] == [1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0]
    assert [s[1:3] for s in seen[:5]] == [(1, 1), (2, 0), (2, 0), (2, 0), (2, 0)]
    assert [s[3] for s in seen[1:5]] == [0, 1, 2, 2]
    assert seen[6][4] == 255 and seen[7][4] == 255 and seen[4][4] == 10 and seen[0][4] == 0


# ------------------------------------------------------------------ §R5 output VC choice, §R7 queue length
def spec_best_ovc(credits, busy, lo, hi):
    """§R5 in words: the idle VC in [lo, hi) with >= 1 credit and the most credits, ties lowest; -1 if none."""
    ok = [v for v in range(lo, hi) if not (busy >> v) & 1 and credits[v] >= 1]
    return max(ok, key=lambda v: (credits[v], -v)) if ok else -1


@pytest.mark.parametrize("n_vcs, n_classes, credit_bits", [
    (1, 1, 2), (2, 1, 3), (2, 2, 2), (3, 1, 2), (3, 3, 2), (4, 2, 2), (4, 4, 1), (6, 3, 1),
])
def test_output_vc_select_exhaustive(n_vcs, n_classes, credit_bits):
    """Every credit vector, busy vector and class (including out-of-range classes) against best_ovc."""
    dut = OutputVCSelect(n_vcs, credit_bits, n_classes=n_classes)
    vpc = n_vcs // n_classes
    cases = list(itertools.product(itertools.product(range(2 ** credit_bits), repeat=n_vcs),
                                   range(2 ** n_vcs), range(2 ** ptr_width(n_classes))))
    seen = []

    async def bench(ctx):
        for credits, busy, cls in cases:
            for v, c in enumerate(credits):
                ctx.set(dut.credit_ovc[v], c)
            ctx.set(dut.busy_ovc, busy)
            ctx.set(dut.cls, cls)
            seen.append((ctx.get(dut.valid), ctx.get(dut.ovc)))

    run(dut, bench, clock=False)
    out_term = np.full((1, 1), -1, np.int64)
    for (credits, busy, cls), (valid, ovc) in zip(cases, seen):
        if cls >= n_classes:
            assert valid == 0
            continue
        lo, hi = cls * vpc, (cls + 1) * vpc
        want = spec_best_ovc(credits, busy, lo, hi)
        credit_a = np.array(credits, np.int64).reshape(1, 1, n_vcs)
        busy_a = np.array([(busy >> v) & 1 for v in range(n_vcs)], np.int64).reshape(1, 1, n_vcs)
        assert best_ovc(credit_a, busy_a, out_term, 0, 0, lo, hi) == want
        assert (valid, ovc if valid else -1) == (int(want >= 0), want)


@pytest.mark.parametrize("n_vcs, depth", [(1, 1), (1, 5), (2, 3), (2, 8), (3, 4), (5, 2)])
def test_queue_length_exhaustive(n_vcs, depth):
    dut = QueueLength(n_vcs, depth)
    cases = list(itertools.product(range(depth + 1), repeat=n_vcs))
    seen = []

    async def bench(ctx):
        for credits in cases:
            for v, c in enumerate(credits):
                ctx.set(dut.credit_ovc[v], c)
            seen.append(ctx.get(dut.q))

    run(dut, bench, clock=False)
    out_term = np.full((1, 1), -1, np.int64)
    for credits, q in zip(cases, seen):
        assert q == qlen(np.array(credits, np.int64).reshape(1, 1, n_vcs), out_term, 0, 0, depth)


def test_queue_length_reads_credit_counters():
    """Credit counters of width range(B+1) plug into QueueLength and OutputVCSelect unchanged."""
    b = 8
    counter, qlen_unit, vcsel = CreditCounter(b), QueueLength(2, b), OutputVCSelect(2, b.bit_length())
    assert len(counter.count) == b.bit_length() == len(qlen_unit.credit_ovc[0]) == len(vcsel.credit_ovc[0])
    for unit in (counter, qlen_unit, vcsel):  # built only to read port widths
        unit._MustUse__silence = True


# ------------------------------------------------------------------ parameters
L2 = unit_layout(2)


@pytest.mark.parametrize("make, message", [
    (lambda: flit_layout(0, 1, 8), r"flit_layout: dest_bits \(destination terminal field\) must be an int"),
    (lambda: flit_layout(4, 0, 8), r"vc_bits \(VC field\)"),
    (lambda: flit_layout(4, 1, 0), r"data_width \(payload field\)"),
    (lambda: flit_layout(4, 1, 8, inter_bits=True), r"inter_bits \(intermediate router field\)"),
    (lambda: flit_layout(4, 1, 8, src_bits=-1), r"src_bits \(source terminal field, 0 to omit it\)"),
    (lambda: flit_widths(None, 2), r"flit_widths: network \(the topology\)"),
    (lambda: flit_widths(build("fbfly", k=2, n=2), 0), r"n_vcs \(VCs per port\).*got 0"),
    (lambda: flit_widths(build("fbfly", k=2, n=2), 2, 0), r"data_width \(payload bits\)"),
    (lambda: flit_widths(build("fbfly", k=2, n=2), 2, with_src=1), r"with_src"),
    (lambda: InputUnit(0, 2, L2), r"InputUnit: n_vcs \(virtual channels\) must be an int with n_vcs >= 1, got 0"),
    (lambda: InputUnit(2, 0, L2), r"depth \(flits per VC buffer\).*got 0"),
    (lambda: InputUnit(2, 2, 32), r"flit_layout \(the flit\) must be an amaranth.lib.data.StructLayout"),
    (lambda: InputUnit(3, 2, L2), r"has a 1-bit 'vc' field; n_vcs = 3 needs at least 2"),
    (lambda: InputUnit(2, 2, L2, check=0), r"check \(emit the protocol assertions\) must be a bool"),
    (lambda: RouteCompute([], [0], [0], 0, 2), r"RouteCompute: next_port_row .* non-empty sequence of ints"),
    (lambda: RouteCompute([-1, 5], [0], [0], 0, 2), r"next_port_row .* entries must satisfy -1 <= x < 2, got 5"),
    (lambda: RouteCompute([-1, 1], [0, 2], [0, 0], 0, 2), r"term_router .* entries must satisfy 0 <= x < 2, got 2"),
    (lambda: RouteCompute([-1, 1], [0, 1], [0], 0, 2), r"eject_port .* one entry per terminal \(2 in term_router\)"),
    (lambda: RouteCompute([-1, 1], [0, 1], [3, 9], 0, 2), r"eject_port .* router 0 must be < n_ports = 2, got 3"),
    (lambda: RouteCompute([-1, 1], [0, 1], [0, 0], -1, 2), r"router_id \(this router\)"),
    (lambda: RouteCompute([-1, 1], [0, 1], [0, 0], 0, 0), r"n_ports \(ports of this router\)"),
    (lambda: RouteCompute([-1, 1], [0, 1], [0, 0], 0, 2, n_classes=257), r"n_classes \(VC classes\) must be <= 256"),
    (lambda: RouteCompute([-1, 1], [0, 1, 1], [0, 0, 0], 0, 2, dest_bits=1), r"dest_bits .* dest_bits >= 2"),
    (lambda: OutputVCSelect(0, 2), r"OutputVCSelect: n_vcs \(virtual channels\)"),
    (lambda: OutputVCSelect(2, 0), r"credit_bits \(width of a credit count\)"),
    (lambda: OutputVCSelect(4, 2, n_classes=0), r"n_classes \(VC classes\)"),
    (lambda: OutputVCSelect(4, 2, n_classes=3), r"n_vcs .* must be a multiple of n_classes = 3"),
    (lambda: QueueLength(2, 0), r"QueueLength: depth \(flits per downstream VC buffer\)"),
])
def test_parameters_are_validated(make, message):
    with pytest.raises(ValueError, match=message):
        make()


# ------------------------------------------------------------------ tool flow
def small_flit():
    """The flit of the synthesis instances: a dragonfly (P = 7, T = 72, R = 36), V = 2, 64-bit data."""
    return flit_widths(build("dragonfly"), 2, 64).layout()


def dragonfly_route(r=0):
    net = build("dragonfly")
    return RouteCompute.from_table(compile_table(net), r, int(net.radix[r]))


def table_route(family, r, **kw):
    net = build(family, **kw)
    return RouteCompute.from_table(compile_table(net), r, int(net.radix[r]))


LINT_UNITS = {
    "iu2x8": lambda: InputUnit(2, 8, small_flit()),
    "iu1x1": lambda: InputUnit(1, 1, small_flit()),
    "iu3x5": lambda: InputUnit(3, 5, flit_widths(build("dragonfly"), 3, 64).layout()),
    "rc_slimfly": lambda: table_route("slimfly", 7, q=5),
    "rc_dragonfly": lambda: dragonfly_route(3),
    "rc_fbfly": lambda: table_route("fbfly", 5, k=4, n=3),
    "rc_wide": lambda: RouteCompute([-1, 2, -1], [0, 1, 2, 1, 0], [1, 0, 0, 3, 3], 0, 4, n_classes=3, dest_bits=6),
    "vcsel1": lambda: OutputVCSelect(1, 1),
    "vcsel2": lambda: OutputVCSelect(2, 4),
    "vcsel4c2": lambda: OutputVCSelect(4, 4, n_classes=2),
    "vcsel6c3": lambda: OutputVCSelect(6, 3, n_classes=3),
    "qlen1": lambda: QueueLength(1, 1),
    "qlen2x8": lambda: QueueLength(2, 8),
    "qlen5x3": lambda: QueueLength(5, 3),
}


@needs_verilator
@pytest.mark.parametrize("top", sorted(LINT_UNITS))
def test_verilog_lints_clean(top):
    text = to_verilog(LINT_UNITS[top](), top)
    assert "`timescale" not in text and f"module {top}(" in text
    waived = lint(text, top)
    assert {w.split(":")[0].removeprefix("%Warning-") for w in waived} <= set(WAIVERS)


@needs_yosys
@pytest.mark.parametrize("top, make, flip_flops", [
    # 2 VCs x 8 flits x 91 bits of buffer; per VC 3-bit head, 3-bit tail, 4-bit count; sticky error
    ("iu2x8", lambda: InputUnit(2, 8, small_flit()), 2 * 8 * 91 + 2 * (3 + 3 + 4) + 1),
    ("rc_dragonfly", lambda: dragonfly_route(0), 0),  # ROM folded into logic
    ("vcsel2", lambda: OutputVCSelect(2, 4), 0),
    ("vcsel4c2", lambda: OutputVCSelect(4, 4, n_classes=2), 0),
    ("qlen2x8", lambda: QueueLength(2, 8), 0),
])
def test_yosys_synthesizes(top, make, flip_flops):
    stats = synth(to_verilog(make(), top), top)
    assert stats.top == top and stats.latches == 0
    assert stats.flip_flops == flip_flops
    assert stats.cells > flip_flops
    assert not any("$assert" in t or "$mem" in t for t in stats.cell_types)
