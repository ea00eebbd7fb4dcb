"""The sequential RI's chain beside GO (router-spec §R11.2a): per output, the first ``S`` requests in service order.

Under the decision line no choice depends on the chain, and what is left of §R11.2's chain is its capacity
rule: an output takes at most ``S`` requests of an RI, counted in service order (inputs from that RI's
``ptr_seq``, each input's lanes in lane order). Each output applies it to the registered one-hot requests it
reads anyway, in the cycle GO decides them (``t + 1`` for the requests RI made in ``t``): the first ``S``
are **admitted** (GO ranks and grants these only) and the rest **dropped** (the router registers ``drop``
and returns it to the inputs: RI in ``t + 2`` no longer counts the request in ``u(v)``).

The pointer is RI's ``ptr_seq`` of the cycle before: it moves one input every cycle, from input 0 at the
first RI, so each output keeps its own copy (a thermometer-mask register, bit ``p`` set for the inputs at or
after the pointer; reset to input ``P - 1``, one behind ``ptr_seq``'s reset, since the first requests arrive
a cycle after the first RI). With ``S = 1`` the chain is one ``x & -x`` carry chain over
``(req & mask, req)``, as GO's own arbiter (:class:`~radixnet.hdl.alloc.go.OutputArbiter`); each further
grant another over the requests not yet admitted.

Examples
--------
>>> from radixnet.hdl.verilog import to_verilog
>>> "module chain(" in to_verilog(OutputChain(4, 2), "chain")
True
"""

from __future__ import annotations

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..arbiter import check_int
from .go import rr_masked

__all__ = ["OutputChain"]


class OutputChain(wiring.Component):
    """One output's admission of the first ``s`` requests in service order (module docstring).

    Parameters
    ----------
    n_inputs : int
        Inputs ``P``, ``>= 1``.
    s : int
        Lanes per input and requests admitted per cycle (the speedup ``S``), ``>= 1``.

    Attributes
    ----------
    req : Signal(n_inputs * s), in
        This output's requests, lane ``p * s + j`` (input ``p``'s ``j``-th lane).
    admit : Signal(n_inputs * s), out
        The first ``s`` requests from the pointer's input (inputs in order, wrapping; lanes in order).
    drop : Signal(n_inputs * s), out
        The other requests (``req & ~admit``).
    ptr_mask : Signal(n_inputs), out
        The pointer as its thermometer mask (bit ``p``: input ``p`` is at or after it).
    """

    def __init__(self, n_inputs: int, s: int):
        self.n_inputs = check_int(self, "n_inputs", "inputs", n_inputs, 1)
        self.s = check_int(self, "s", "requests admitted per cycle", s, 1)
        n = n_inputs * s
        super().__init__({"req": In(n), "admit": Out(n), "drop": Out(n), "ptr_mask": Out(n_inputs)})

    def elaborate(self, platform):
        m = Module()
        P, S = self.n_inputs, self.s
        n = P * S
        full = (1 << P) - 1
        mask = Signal(P, init=1 << (P - 1), name="mask")   # input P - 1: ptr_seq of the cycle before the first
        # one input on, every cycle: the inputs after it, or all of them after the last input
        shifted = Signal(P, name="mask_shifted")
        m.d.comb += shifted.eq(mask << 1)
        m.d.sync += mask.eq(Mux(shifted.any(), shifted, full))
        m.d.comb += self.ptr_mask.eq(mask)
        lane_mask = Cat(*[mask[p] for p in range(P) for _ in range(S)])
        left = self.req
        for j in range(S):
            g, _, _ = rr_masked(m, left, lane_mask, n, f"admit{j}")
            nxt = Signal(n, name=f"left{j}")
            m.d.comb += nxt.eq(left & ~g)
            left = nxt
        m.d.comb += [self.admit.eq(self.req & ~left), self.drop.eq(left)]
        return m
