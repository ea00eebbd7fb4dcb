"""The §R2 output queue of speedup 2 (hdl/output_queue.py) against a Python FIFO, cycle by cycle."""

from __future__ import annotations

from collections import deque

import pytest
from amaranth.sim import Simulator
from hypothesis import given, settings, strategies as st

from radixnet.hdl.flit import flit_layout
from radixnet.hdl.output_queue import OutputQueue

LAY = flit_layout(4, 1, 16)


def simulate(depth, lanes, bypass, writes):
    """Drive ``writes`` (per cycle, a list of payloads, at most ``lanes``) and return per cycle the payload on
    the link (or None), the count register and the error bit."""
    dut = OutputQueue(depth, lanes, LAY, bypass=bypass, check=False)
    seen = []

    async def bench(ctx):
        for cycle in writes:
            ctx.set(dut.in_valid_lane, (1 << len(cycle)) - 1)
            for j, x in enumerate(cycle):
                ctx.set(dut.in_flit_lane[j].data, x)
            out = ctx.get(dut.out_flit.data) if ctx.get(dut.out_valid) else None
            seen.append((out, ctx.get(dut.count), ctx.get(dut.error)))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen


def model(depth, bypass, writes):
    """§R2: flits join in grant order; the oldest leaves, in its grant cycle when ``bypass``, else the next."""
    q, out = deque(), []
    for cycle in writes:
        count = len(q)
        if bypass:
            q.extend(cycle)
            out.append((q.popleft() if q else None, count, 0))
        else:
            out.append((q.popleft() if q else None, count, 0))
            q.extend(cycle)
    return out


@settings(max_examples=30, deadline=None)
@given(depth=st.integers(1, 9), bypass=st.booleans(), data=st.data())
def test_matches_a_fifo(depth, bypass, data):
    """Random writes of 0-2 flits a cycle that never overfill the queue: the same flit on the link each cycle."""
    writes, held = [], 0
    for _ in range(data.draw(st.integers(1, 40))):
        # a cycle's writes fit: held + n - (one leaves) <= depth (bypass), held + n <= depth + 1 otherwise
        n = data.draw(st.integers(0, 2))
        leaves = 1 if held + (n if bypass else 0) > 0 else 0
        while n and held + n - leaves > depth:
            n -= 1
            leaves = 1 if held + (n if bypass else 0) > 0 else 0
        writes.append([data.draw(st.integers(1, 0xFFFF)) for _ in range(n)])
        held = held + n - leaves
    assert simulate(depth, 2, bypass, writes) == model(depth, bypass, writes)


def test_overfill_sets_error():
    """Three flits into a queue of two (no bypass): the protocol violation is sticky in ``error``."""
    seen = simulate(2, 2, False, [[1, 2], [3, 4], [], []])
    assert [e for _, _, e in seen] == [0, 0, 1, 1]


def test_parameters_are_checked():
    with pytest.raises(ValueError, match=r"lanes \(writes per cycle\) must be an int with lanes >= 1, got 0"):
        OutputQueue(4, 0, LAY)
