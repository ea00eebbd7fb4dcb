"""GO's output arbiter (router-spec §R11.3): per output, up to ``S`` grants, round robin over inputs.

The requests for one output are the bits of the registered per-input-lane one-hot request vectors
(lane ``i = p * S + s``: input ``p``'s ``s``-th request), already masked by what the view allows
(``req``). They are ranked by input from ``ptr_out`` and, within an input, by lane; the first is
granted, and with ``S = 2`` the next one that the first left grantable (``second_ok``, from the
first grant: a credit, a VC hold, a queue slot). ``ptr_out`` moves to one past the last input
granted (only when something is granted).

With ``alt=True`` (``S = 1``) the arbiter decides on one of two request vectors, ``req`` or
``req_alt`` as ``use_alt`` says, and runs the chain on both: the router reduces each outcome's
grant before it knows which one holds, and selects by ``use_alt`` last (GO's loop through the
output's availability, router-spec §R11.3).

Examples
--------
>>> from radixnet.hdl.verilog import to_verilog
>>> "module go(" in to_verilog(OutputArbiter(4, 2), "go")
True
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..arbiter import check_int, onehot_index, ptr_width, reject

__all__ = ["OutputArbiter", "rr_first_chain", "rr_masked"]


def rr_first_chain(m: Module, req, ptr, n: int, name: str) -> Signal:
    """One-hot: the first set bit of the ``n``-bit ``req`` at or after ``ptr`` in round-robin order (0 if none).

    As :func:`radixnet.hdl.arbiter.rr_first`, but one ``x & -x`` carry chain over the ``2n`` bits
    ``(req & mask, req)`` (the masked requests first) and an OR of its halves, instead of two chains and a
    multiplexer on "any masked request": one level less after the chain.
    """
    req_hi = Signal(n, name=f"{name}_req_hi")
    m.d.comb += req_hi.eq(req & (Const((1 << n) - 1, n) << ptr)[:n])
    both = Signal(2 * n, name=f"{name}_both")
    m.d.comb += both.eq(Cat(req_hi, req))
    low = Signal(2 * n, name=f"{name}_low")
    m.d.comb += low.eq(both & (~both + 1)[:2 * n])
    gnt = Signal(n, name=name)
    m.d.comb += gnt.eq(low[:n] | low[n:])
    return gnt


class OutputArbiter(wiring.Component):
    """Round robin over ``n_inputs`` inputs of ``s`` lanes each, up to ``s`` grants (one per lane bit).

    Parameters
    ----------
    n_inputs : int
        Inputs ``P``, ``>= 1``.
    s : int
        Lanes per input and grants per cycle (the speedup ``S``), 1 or more.
    frozen : bool
        Never move the pointer (fixed priority; the router's ``out_arb_fixed`` fault). Default False.
    alt : bool
        Two request vectors, the decision on ``req_alt`` when ``use_alt`` (``s = 1`` only). Default False.

    Attributes
    ----------
    req : Signal(n_inputs * s), in
        Grantable requests, lane ``p * s + j``.
    second_ok : Signal(n_inputs * s), in (``s >= 2``)
        Lanes a second grant may take, given ``first`` (the router computes it from ``first``).
    first, second : Signal(n_inputs * s), out
        One-hot first and (``s >= 2``) second grant; ``second`` 0 for ``s = 1``.
    first_hl : Signal(2 * n_inputs * s), out
        The first grant as the chain finds it: one-hot over (the requests at or after the pointer, all
        requests), ``first = first_hl[:n] | first_hl[n:]`` (a select by it is one AND-OR after the chain).
    ptr : Signal(ptr_width(n_inputs)), out
        The pointer, in inputs (kept as a thermometer-mask register; 0 after the last input was granted).
    req_alt, use_alt : Signal(n_inputs), Signal(1), in (``alt``)
        The other request vector, and which one the decision is on (``first``, ``ptr``).
    alt_first_hl : Signal(2 * n_inputs), out (``alt``)
        ``first_hl`` of ``req_alt``; with ``alt``, ``first_hl`` is always ``req``'s.

    Examples
    --------
    >>> OutputArbiter(4, 2, alt=True)
    Traceback (most recent call last):
    ...
    ValueError: OutputArbiter: alt needs s = 1 (got s = 2)
    """

    def __init__(self, n_inputs: int, s: int, *, frozen: bool = False, alt: bool = False):
        self.n_inputs = check_int(self, "n_inputs", "inputs", n_inputs, 1)
        self.s = check_int(self, "s", "grants per cycle", s, 1)
        if alt and s != 1:
            reject(self, f"alt needs s = 1 (got s = {s})")
        self.frozen, self.alt = frozen, alt
        n = n_inputs * s
        members = {"req": In(n), "first": Out(n), "first_hl": Out(2 * n), "second": Out(n),
                   "ptr": Out(ptr_width(n_inputs))}
        if s > 1:
            members["second_ok"] = In(n)
        if alt:
            members |= {"req_alt": In(n), "use_alt": In(1), "alt_first_hl": Out(2 * n)}
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        P, S = self.n_inputs, self.s
        n = P * S
        # the pointer as a thermometer mask over inputs (bit p: input p is at or after ptr_out): the masked
        # requests are one AND, no decoder in front of the carry chain
        mask = Signal(P, init=(1 << P) - 1, name="mask")
        lane_mask = Cat(*[mask[p] for p in range(P) for _ in range(S)])
        m.d.comb += self.ptr.eq(onehot_index(mask & ~(mask << 1)[:P], P))   # its lowest set bit (0: none)
        first, low, after = rr_masked(m, self.req, lane_mask, n, "first_rr")
        m.d.comb += self.first_hl.eq(low)
        any_req = self.req.any()
        if self.alt:   # both chains; the decision selected last
            first_b, low_b, after_b = rr_masked(m, self.req_alt, lane_mask, n, "alt_rr")
            m.d.comb += self.alt_first_hl.eq(low_b)
            first, after = Mux(self.use_alt, first_b, first), Mux(self.use_alt, after_b, after)
            any_req = Mux(self.use_alt, self.req_alt.any(), any_req)
        m.d.comb += self.first.eq(first)
        last = self.first
        if S > 1:
            second, _, _ = rr_masked(m, self.req & ~self.first & self.second_ok, lane_mask, n, "second_rr")
            m.d.comb += self.second.eq(second)
            last = Mux(self.second.any(), self.second, self.first)
        if P > 1 and not self.frozen and S == 1:
            # one past the input granted, from the chain's own bits (``after``: at or after the first set bit of
            # (masked, all) requests): a masked grant at g sets ``after[j]`` for j >= g, an unmasked one (no
            # masked request: ``after[P - 1]`` clear) ``after[P + j]``; one LUT after the chain, no prefix OR
            nxt = Signal(P, name="mask_next")
            m.d.comb += nxt.eq(Cat(Const(0, 1), *[after[j - 1] | (after[P + j - 1] & ~after[P - 1])
                                                 for j in range(1, P)]))
            with m.If(any_req):
                m.d.sync += mask.eq(nxt)
        elif P > 1 and not self.frozen:
            # one past the last input granted: the inputs after it, a prefix OR of the input one-hot
            lastv = Signal(n, name="last")
            m.d.comb += lastv.eq(last)
            in_oh = [Cat(*[lastv[p * S + j] for j in range(S)]).any() for p in range(P)]
            nxt = Signal(P, name="mask_next")
            m.d.comb += nxt.eq(Cat(Const(0, 1), *[Cat(*in_oh[:j]).any() for j in range(1, P)]))
            with m.If(self.req.any()):
                m.d.sync += mask.eq(nxt)
        return m


def rr_masked(m: Module, req, mask, n: int, name: str):
    """:func:`rr_first_chain` with the pointer given as a thermometer ``mask`` (the requests at or after it).

    Returns the one-hot grant, its ``2n``-bit one-hot over ``(req & mask, req)`` and the ``2n`` bits at or after
    that first set bit (``x | -x``: the same chain's sum bits)."""
    both = Signal(2 * n, name=f"{name}_both")
    m.d.comb += both.eq(Cat(req & mask, req))
    neg = Signal(2 * n, name=f"{name}_neg")
    m.d.comb += neg.eq((~both + 1)[:2 * n])
    low = Signal(2 * n, name=f"{name}_low")
    m.d.comb += low.eq(both & neg)
    gnt = Signal(n, name=name)
    m.d.comb += gnt.eq(low[:n] | low[n:])
    after = Signal(2 * n, name=f"{name}_after")
    m.d.comb += after.eq(both | neg)
    return gnt, low, after
