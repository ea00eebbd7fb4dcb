"""The round-robin helpers every allocator shares (hdl/arbiter.py), exhaustively against router-spec §R6.

``rr_first`` is an arbiter's first pick: the first request at or after the pointer in round-robin order
``ptr, ptr + 1, ..., n - 1, 0, ..., ptr - 1``. GO's and LO's ``rr_masked`` (hdl/alloc/go.py) takes the pointer
as a thermometer mask, one carry chain over the masked and then all requests, and is checked against the same
order. ``later_than`` is what a second grant of the same arbiter may still take (§R8b "the second grant of an
input": the VCs after the first grant in round-robin order). An off-by-one at the pointer boundary -- the
requester *at* the pointer treated as later than a grant that wrapped around, or the reverse -- only shows when a
second grant is taken across the wrap, which chosen traffic reaches rarely; here every request vector, pointer
and first grant is checked for each ``n``.
"""

from __future__ import annotations

import pytest
from amaranth import Module, Signal
from amaranth.sim import Simulator

from radixnet.hdl.alloc.go import rr_masked
from radixnet.hdl.arbiter import later_than, ptr_width, rr_first


def rr_order(ptr: int, n: int) -> list[int]:
    """§R6: the round-robin order from ``ptr``."""
    return [(ptr + j) % n for j in range(n)]


def first_model(req: int, ptr: int, n: int) -> int:
    """One-hot of the first set bit of ``req`` in round-robin order from ``ptr`` (0 when none)."""
    return next((1 << i for i in rr_order(ptr, n) if (req >> i) & 1), 0)


def later_model(i: int, ptr: int, n: int) -> int:
    """The bits after bit ``i`` in round-robin order from ``ptr``."""
    order = rr_order(ptr, n)
    return sum(1 << b for b in order[order.index(i) + 1:])


def _comb_table(n: int, build, inputs):
    """Evaluate the combinational helper ``build(m, a, ptr)`` for every ``(a, ptr)`` of ``inputs``."""
    m = Module()
    a = Signal(n, name="a")
    ptr = Signal(ptr_width(n), name="ptr")
    out = build(m, a, ptr)
    seen = {}

    async def bench(ctx):
        for x, p in inputs:
            ctx.set(a, x)
            ctx.set(ptr, p)
            seen[(x, p)] = ctx.get(out)

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    return seen


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 8])
def test_rr_first_every_request_and_pointer(n):
    cases = [(req, ptr) for req in range(1 << n) for ptr in range(n)]
    got = _comb_table(n, lambda m, a, ptr: rr_first(m, a, ptr, n, "first"), cases)
    bad = [(req, ptr, g, first_model(req, ptr, n)) for (req, ptr), g in got.items() if g != first_model(req, ptr, n)]
    assert not bad, f"rr_first n={n}: (req, ptr, rtl, spec) {bad[:5]}"


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 8])
def test_later_than_every_grant_and_pointer(n):
    """Including the boundary cases: the grant at the pointer (everything else is later), the grant just
    before it (nothing is later), and grants on either side of the wrap."""
    cases = [(1 << i, ptr) for i in range(n) for ptr in range(n)]
    got = _comb_table(n, lambda m, a, ptr: later_than(m, a, ptr, n, "later"), cases)
    bad = [(oh.bit_length() - 1, ptr, g, later_model(oh.bit_length() - 1, ptr, n))
           for (oh, ptr), g in got.items() if g != later_model(oh.bit_length() - 1, ptr, n)]
    assert not bad, f"later_than n={n}: (grant, ptr, rtl, spec) {bad[:5]}"


@pytest.mark.parametrize("n", [3, 4, 5])
def test_second_pick_is_the_next_in_order(n):
    """The composition the allocators build: a second pick is ``rr_first`` of the requests ``later_than``
    the first -- the second requester in round-robin order, never the first again, never one before it."""
    def second(m, a, ptr):
        first = rr_first(m, a, ptr, n, "f1")
        rest = Signal(n, name="rest")
        m.d.comb += rest.eq(a & later_than(m, first, ptr, n, "after"))
        return rr_first(m, rest, ptr, n, "f2")

    cases = [(req, ptr) for req in range(1 << n) for ptr in range(n)]
    got = _comb_table(n, second, cases)
    for (req, ptr), g in got.items():
        picks = [i for i in rr_order(ptr, n) if (req >> i) & 1]
        assert g == (1 << picks[1] if len(picks) > 1 else 0), (req, ptr, g, picks)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_masked_rr_every_request_and_pointer(n):
    """``rr_masked`` (GO's and LO's, §R11.3): the thermometer mask of ``ptr`` grants ``rr_first``'s pick;
    ``after`` is the bits at or after it in (masked, all) order."""
    m = Module()
    req, mask = Signal(n), Signal(n)
    gnt, low, after = rr_masked(m, req, mask, n, "g")
    got = {}

    async def bench(ctx):
        for r in range(1 << n):
            for p in range(n):
                ctx.set(req, r)
                ctx.set(mask, ((1 << n) - 1) & ~((1 << p) - 1))
                got[(r, p)] = (ctx.get(gnt), ctx.get(low), ctx.get(after))

    sim = Simulator(m)
    sim.add_testbench(bench)
    sim.run()
    for (r, p), (g, lo, af) in got.items():
        assert g == first_model(r, p, n), (n, r, p)
        full = (1 << n) - 1
        masked = r & full & ~((1 << p) - 1)
        assert lo == (g if masked else g << n), (n, r, p)   # in the masked half iff a masked lane asks
        assert af == (((1 << 2 * n) - 1) & ~(lo - 1) if lo else 0), (n, r, p)
