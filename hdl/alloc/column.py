"""The ``subswitch`` model's output stage (router-spec §R12 GO): one output over its column buffers, local.

Output ``o`` has a column buffer per row ``r`` and output VC ``w`` (lane ``r · W + w``; ``W = V`` at a network
output, 1 at an ejection output). A lane's front flit may go when it is a head and output VC ``w`` is idle
with a credit, or a body or tail and ``w`` has a credit (its packet holds ``w``: the flits ahead of it in the
same column buffer are its own). One lane is granted round robin from ``ptr_go`` (moving to one past it); the
grant takes a credit of ``w``, a head of a packet longer than a flit holds ``w`` and a tail releases it.

Examples
--------
>>> from radixnet.hdl.verilog import to_verilog
>>> "module go(" in to_verilog(ColumnArbiter(4, 2), "go")
True
"""

from __future__ import annotations

from amaranth import Cat, Module, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..arbiter import RoundRobinArbiter, check_int

__all__ = ["ColumnArbiter"]


class ColumnArbiter(wiring.Component):
    """GO of one output (module docstring; router-spec §R12).

    Parameters
    ----------
    n_rows : int
        ``Q``, the rows (sub-switches of the output's column), ``>= 1``.
    n_ovcs : int
        ``W``, the output's VCs (1 at an ejection output).

    Attributes
    ----------
    rdy_l, head_l, tail_l : Signal(n_rows * n_ovcs), in
        Per lane ``r * W + w``: its column buffer holds a flit; the front flit's head and tail bits.
    avail_ovc : Signal(n_ovcs), in
        Output VC ``w`` has a credit (all ones at an ejection output without credits).
    gnt_l : Signal(n_rows * n_ovcs), out
        The lane granted, one-hot (0: none).
    take_ovc : Signal(n_ovcs), out
        The output VC granted a flit (one-hot, or 0): a credit taken.
    busy_ovc : Signal(n_ovcs), out
        Output VC ``w`` is held by a packet (a register: a head's grant sets it, a tail's clears it).
    """

    def __init__(self, n_rows: int, n_ovcs: int):
        self.n_rows = check_int(self, "n_rows", "rows of the output's column", n_rows, 1)
        self.n_ovcs = check_int(self, "n_ovcs", "output VCs", n_ovcs, 1)
        n = n_rows * n_ovcs
        super().__init__({"rdy_l": In(n), "head_l": In(n), "tail_l": In(n), "avail_ovc": In(n_ovcs),
                          "gnt_l": Out(n), "take_ovc": Out(n_ovcs), "busy_ovc": Out(n_ovcs)})

    def elaborate(self, platform):
        m = Module()
        Q, W = self.n_rows, self.n_ovcs
        n = Q * W
        elig = Signal(n, name="go_elig")
        m.d.comb += elig.eq(Cat(*[
            self.rdy_l[r * W + w] & self.avail_ovc[w] & (~self.head_l[r * W + w] | ~self.busy_ovc[w])
            for r in range(Q) for w in range(W)]))
        m.submodules.go_arb = arb = RoundRobinArbiter(n)
        m.d.comb += [arb.req.eq(elig), arb.update.eq(1), self.gnt_l.eq(arb.gnt)]
        for w in range(W):
            lanes = Cat(*[arb.gnt[r * W + w] for r in range(Q)])
            head = (lanes & Cat(*[self.head_l[r * W + w] for r in range(Q)])).any()
            tail = (lanes & Cat(*[self.tail_l[r * W + w] for r in range(Q)])).any()
            m.d.comb += self.take_ovc[w].eq(lanes.any())
            with m.If(head & ~tail):
                m.d.sync += self.busy_ovc[w].eq(1)
            with m.If(tail):
                m.d.sync += self.busy_ovc[w].eq(0)
        return m
