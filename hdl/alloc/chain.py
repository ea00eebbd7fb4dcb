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

__all__ = ["OutputChain", "service_mask"]


def service_mask(m: Module, n: int, *, behind: int, name: str) -> Signal:
    """RI's ``ptr_seq`` as a thermometer-mask register (bit ``p``: input ``p`` is at or after it), one input on
    every cycle from input 0 at the first RI; ``behind``: that many cycles behind it (reset to input ``-behind mod
    n``), for a reader of the requests RI made that many cycles before."""
    full = (1 << n) - 1
    mask = Signal(n, init=full ^ ((1 << (-behind % n)) - 1), name=name)
    # one input on, every cycle: the inputs after it, or all of them after the last input
    shifted = Signal(n, name=f"{name}_shifted")
    m.d.comb += shifted.eq(mask << 1)
    m.d.sync += mask.eq(Mux(shifted.any(), shifted, full))
    return mask


class OutputChain(wiring.Component):
    """One output's admission of the first ``s`` requests in service order (module docstring).

    Parameters
    ----------
    n_inputs : int
        Inputs ``P``, ``>= 1``.
    s : int
        Requests admitted per cycle (the speedup ``S``), ``>= 1``.
    lanes : int, optional
        Lanes per input (default ``s``: an input's ``S`` lanes); 1 when each position is one candidate.
    mask_in : bool
        The pointer comes in as ``ptr_mask`` instead of the unit's own register: the two-level arbitration under
        the decision line (router-spec §R11.6), where LO ranks a group's lanes by a slice of the router's
        service order and GO its candidates by the place each kept.

    Attributes
    ----------
    req : Signal(n_inputs * lanes), in
        This output's requests, lane ``p * lanes + j`` (input ``p``'s ``j``-th lane).
    admit : Signal(n_inputs * lanes), out
        The first ``s`` requests from the pointer's input (inputs in order, wrapping; lanes in order).
    slot_admit : list of Signal(n_inputs * lanes), out
        The ``j``-th of them, one-hot (0 when fewer were asked).
    drop : Signal(n_inputs * lanes), out
        The other requests (``req & ~admit``).
    ptr_mask : Signal(n_inputs), out (in with ``mask_in``)
        The pointer as its thermometer mask (bit ``p``: input ``p`` is at or after it).
    """

    def __init__(self, n_inputs: int, s: int, *, lanes: int | None = None, mask_in: bool = False):
        self.n_inputs = check_int(self, "n_inputs", "inputs", n_inputs, 1)
        self.s = check_int(self, "s", "requests admitted per cycle", s, 1)
        self.lanes = check_int(self, "lanes", "lanes per input", s if lanes is None else lanes, 1)
        self.mask_in = bool(mask_in)
        n = n_inputs * self.lanes
        super().__init__({"req": In(n), "admit": Out(n), "slot_admit": Out(n).array(s), "drop": Out(n),
                          "ptr_mask": (In if mask_in else Out)(n_inputs)})

    def elaborate(self, platform):
        m = Module()
        P, S, L = self.n_inputs, self.s, self.lanes
        n = P * L
        mask = self.ptr_mask
        if not self.mask_in:
            own = service_mask(m, P, behind=True, name="mask")
            m.d.comb += mask.eq(own)
        lane_mask = Cat(*[mask[p] for p in range(P) for _ in range(L)])
        left = self.req
        for j in range(S):
            g, _, _ = rr_masked(m, left, lane_mask, n, f"admit{j}")
            nxt = Signal(n, name=f"left{j}")
            m.d.comb += [nxt.eq(left & ~g), self.slot_admit[j].eq(g)]
            left = nxt
        m.d.comb += [self.admit.eq(self.req & ~left), self.drop.eq(left)]
        return m
