"""RI's input arbiter (router-spec §R11.2): up to ``S`` eligible VCs of one input, round robin.

Input ``p`` selects up to ``S`` eligible VCs in round-robin order from ``ptr_in[p]`` (distinct VCs),
and ``ptr_in[p]`` moves to one past the **last VC selected** -- on selection, not on a grant: RI does
not wait for GO. The ``s``-th selection is the request of lane ``s``.

Examples
--------
>>> from radixnet.hdl.verilog import to_verilog
>>> "module sel(" in to_verilog(InputSelect(4, 2), "sel")
True
"""

from __future__ import annotations

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..arbiter import check_int, onehot_index, ptr_width
from .go import rr_first_chain

__all__ = ["InputSelect"]


def _rr_small(m: Module, req, ptr, n: int, name: str) -> Signal:
    """:func:`~radixnet.hdl.alloc.go.rr_first_chain` for a few requesters (``n <= 4``, e.g. an input's VCs):
    a sum of products over the pointer's values, a LUT or two, no carry chain."""
    gnt = Signal(n, name=name)
    for i in range(n):
        terms = []
        for p in range(n):
            order = [(p + k) % n for k in range(n)]
            before = order[:order.index(i)]
            t = (ptr == p) & req[i]
            for j in before:
                t = t & ~req[j]
            terms.append(t)
        m.d.comb += gnt[i].eq(Cat(*terms).any())
    return gnt


class InputSelect(wiring.Component):
    """Round-robin selection of up to ``s`` of ``n`` eligible requesters; the pointer moves on selection.

    Parameters
    ----------
    n : int
        Requesters (the input's VCs), ``>= 1``.
    s : int
        Selections per cycle (the speedup ``S``), ``>= 1``.

    Attributes
    ----------
    elig : Signal(n), in
        Eligible requesters this cycle.
    pick : list of Signal(n), out
        Per lane ``0 .. s - 1``, the one-hot selection (0: none); lane ``j`` is the ``j``-th eligible
        requester in round-robin order from ``ptr``.
    ptr : Signal(ptr_width(n)), out
        The pointer (a register, reset 0): one past the last requester selected.
    """

    def __init__(self, n: int, s: int):
        self.n = check_int(self, "n", "requesters", n, 1)
        self.s = check_int(self, "s", "selections per cycle", s, 1)
        super().__init__({"elig": In(n), "pick": Out(n).array(s), "ptr": Out(ptr_width(n))})

    def elaborate(self, platform):
        m = Module()
        n, s = self.n, self.s
        rest = self.elig
        for j in range(s):
            pk = rr_first_chain(m, rest, self.ptr, n, f"pick_{j}") if n > 4 else _rr_small(m, rest, self.ptr, n,
                                                                                            f"pick_{j}")
            m.d.comb += self.pick[j].eq(pk)
            nxt = Signal(n, name=f"rest_{j}")
            m.d.comb += nxt.eq(rest & ~pk)
            rest = nxt
        if n > 1:
            last = self.pick[0]
            for j in range(1, s):
                last = Mux(self.pick[j].any(), self.pick[j], last)
            lastv = Signal(n, name="last")
            m.d.comb += lastv.eq(last)
            # one past the last selected: the index of the one-hot rotated by one (no adder)
            nxt_ptr = Signal(ptr_width(n), name="ptr_next")
            m.d.comb += nxt_ptr.eq(onehot_index(Cat(lastv[n - 1], lastv[:n - 1]), n))
            with m.If(self.elig.any()):
                m.d.sync += self.ptr.eq(nxt_ptr)
        return m
