"""The §R2 output queue of one router output with speedup ``S > 1`` (router-spec §R2, §R10.4).

With speedup ``S`` an output may be granted ``S`` flits in a cycle but its link
carries one: the rest wait in a FIFO **output queue** and leave one per cycle,
the oldest first (§R2 phase 3). A network output's queue is bounded by its
credits (``V * B`` flits); an ejection output's has that depth explicitly and
the allocator does not grant a full one (§R6 step 3).

Each cycle up to ``lanes`` flits are written, in grant order (lane 0 first;
lane ``j`` valid only if lane ``j - 1`` is), and the oldest flit is on the
link:

* ``bypass=True`` (the ``single-cycle`` model, §R2): a flit granted into an
  empty queue leaves in its grant cycle (``out_flit`` is lane 0 then), so an
  idle output adds no cycle, as with ``S = 1``;
* ``bypass=False`` (the ``iq`` model, §R10.4): the lanes are the crossbar's
  outputs in the ST stage, and a flit written at the edge ending ``t`` is on
  the link from ``t + 1``: the queue's head is the output register.

``out_*`` depend on registers (and, with ``bypass``, on lane 0 of the same
cycle). Storage: ``depth`` rounded up to a power of two (at least 2) flip-flop entries,
written at ``head + count + j``. A write that would hold more than ``depth``
flits is a protocol violation: it sets the sticky ``error`` (the flit is still
written; under the protocol it never happens).

Examples
--------
>>> from radixnet.hdl.flit import flit_layout
>>> from radixnet.hdl.verilog import to_verilog
>>> q = OutputQueue(8, 2, flit_layout(4, 1, 16))
>>> header = to_verilog(q, "oq").split("module oq(")[1].split(");")[0]
>>> sorted(header.split(", "))    # doctest: +NORMALIZE_WHITESPACE
['clk', 'count', 'error', 'in_flit_lane__0', 'in_flit_lane__1', 'in_valid_lane', 'out_flit', 'out_valid', 'rst']
>>> OutputQueue(0, 2, flit_layout(4, 1, 16))
Traceback (most recent call last):
...
ValueError: OutputQueue: depth (flits the queue holds) must be an int with depth >= 1, got 0
"""

from __future__ import annotations

from amaranth import Module, Mux, Signal
from amaranth.hdl import Assert
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .arbiter import check_int, reject

__all__ = ["OutputQueue"]


class OutputQueue(wiring.Component):
    """FIFO of ``depth`` flits, ``lanes`` writes and one read per cycle (module docstring).

    Parameters
    ----------
    depth : int
        Flits the queue holds (``V * B``, §R2), ``>= 1``.
    lanes : int
        Writes per cycle (the speedup ``S``), ``>= 1``.
    layout : amaranth.lib.data.Layout
        The flit.
    bypass : bool
        A flit written into an empty queue is on ``out_flit`` in the same cycle (``single-cycle``);
        False: from the next (``iq``).
    check : bool
        Also emit an assertion (simulation and Verilog) on an overfull write.

    Attributes
    ----------
    in_flit_lane : list of View(layout), in
        The flits granted to this output this cycle, in grant order.
    in_valid_lane : Signal(lanes), in
        Bit ``j``: ``in_flit_lane[j]`` is a flit (set bits are the low ones).
    out_flit : View(layout), out
        The oldest flit, on the link this cycle.
    out_valid : Signal(1), out
        ``out_flit`` is a flit.
    count : Signal(range(depth + 1)), out
        Flits held at the start of the cycle (a register).
    error : Signal(1), out
        Sticky: a write overfilled the queue (never under the protocol).
    """

    def __init__(self, depth: int, lanes: int, layout, *, bypass: bool = False, check: bool = True):
        self.depth = check_int(self, "depth", "flits the queue holds", depth, 1)
        self.lanes = check_int(self, "lanes", "writes per cycle", lanes, 1)
        if not isinstance(bypass, bool):
            reject(self, f"bypass (a flit into an empty queue leaves at once) must be a bool, got {bypass!r}")
        self.bypass, self.check, self.layout = bypass, check, layout
        super().__init__({
            "in_flit_lane": In(layout).array(lanes),
            "in_valid_lane": In(lanes),
            "out_flit": Out(layout),
            "out_valid": Out(1),
            "count": Out(range(depth + 1)),
            "error": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        S, D = self.lanes, self.depth
        # depth slots suffice: a write lands at most ``depth`` past the head, and only when the head
        # leaves this cycle; rounded up to a power of two (at least 2) so that pointers wrap for free
        n = max(2, 1 << (D - 1).bit_length())
        aw = (n - 1).bit_length()
        slots = [Signal(self.layout, name=f"slot_{i}") for i in range(n)]
        head = Signal(aw)
        count = self.count
        n_in = Signal(range(S + 1))
        m.d.comb += n_in.eq(sum(self.in_valid_lane[j] for j in range(S)))

        oldest = Signal(self.layout)
        with m.Switch(head):
            for i in range(n):
                with m.Case(i):
                    m.d.comb += oldest.eq(slots[i])
        if self.bypass:
            m.d.comb += [self.out_valid.eq((count != 0) | self.in_valid_lane[0]),
                         self.out_flit.eq(Mux(count != 0, oldest, self.in_flit_lane[0]))]
        else:
            m.d.comb += [self.out_valid.eq(count != 0), self.out_flit.eq(oldest)]
        # every lane is written at the tail (a bypassed lane 0 too: the head then steps over its slot)
        tail = Signal(aw)
        m.d.comb += tail.eq(head + count)
        at = []
        for j in range(S):
            a = Signal(aw, name=f"write_at_lane_{j}")
            m.d.comb += a.eq(tail + j)
            at.append(a)
        for i in range(n):
            for j in range(S):
                with m.If(self.in_valid_lane[j] & (at[j] == i)):
                    m.d.sync += slots[i].eq(self.in_flit_lane[j])
        m.d.sync += [head.eq(head + self.out_valid), count.eq(count + n_in - self.out_valid)]

        over = Signal()
        m.d.comb += over.eq(count + n_in - self.out_valid > D)
        with m.If(over):
            m.d.sync += self.error.eq(1)
        if self.check:
            m.d.sync += Assert(~over, "OutputQueue overflow: more flits than depth")
        return m
