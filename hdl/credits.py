"""Credit counter of one output VC (router-spec §R2 credit loop, §R7 queue estimate).

One counter per output port and VC (``credit_op_ovc``) tracks the free slots
of the downstream input VC buffer (depth ``B``):

* it starts at ``depth`` (the downstream buffer is empty after reset);
* ``take`` is asserted in the cycle a flit is **granted** to this VC (credits
  are taken at grant, §R2 phase 2), and the count drops by one at the clock edge;
* ``ret`` is asserted in the cycle a returned credit **arrives** (§R2 phase 4:
  usable from the next cycle on), and the count rises by one at the edge;
* both in one cycle leave the count unchanged.

``avail`` (``count > 0``) is what the allocator reads at the start of a cycle;
``count`` feeds the adaptive routing's queue estimate ``q = depth - count``
(§R7, summed over the VCs of an output by the route unit).

Protocol violations and what the hardware does
----------------------------------------------
Under the protocol neither can happen: a grant needs ``avail`` (so ``take``
never meets ``count == 0``), and the downstream router returns exactly one
credit per flit it received (so ``ret`` never meets ``count == depth``). A
same-cycle ``ret`` does not make ``take`` at zero legal: the returned credit
is only usable from the next cycle (§R2 phase 4).

* **underflow**: ``take`` while ``count == 0`` (with ``takes > 1``: ``take > count``);
* **overflow**: ``ret`` while ``count == depth`` (with ``takes > 1``: and no ``take``).

On either, the count **saturates** (it is clamped to ``0 .. depth``, never
wraps) and the sticky ``error`` output is set until reset, so a co-simulation
can check one bit at the end of a run. With ``check=True`` (the default) the
unit also carries an assertion on the same condition, sampled at the clock
edge: the Amaranth simulator raises ``AssertionError`` in the offending cycle,
and the Verilog has an immediate ``assert`` (Verilator honours it with
``--assert``; synthesis drops it).

Examples
--------
>>> from radixnet.hdl.verilog import to_verilog
>>> text = to_verilog(CreditCounter(4), "credit4")
>>> "reg [2:0] count = 3'h4;" in text, "assert (" in text
(True, True)
>>> CreditCounter(0)
Traceback (most recent call last):
...
ValueError: CreditCounter: depth (flits per downstream VC buffer) must be an int with depth >= 1, got 0
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.hdl import Assert
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .arbiter import check_int, reject

__all__ = ["CreditCounter"]


class CreditCounter(wiring.Component):
    """Credits of one output VC: ``depth`` at reset, minus grants, plus returned credits.

    Parameters
    ----------
    depth : int
        Flits per downstream VC buffer (``B``, §R1); the reset value and the maximum, ``depth >= 1``.
    check : bool
        Also emit an assertion (simulation and Verilog) that fires on underflow or overflow.
    takes : int
        Most flits granted to this VC in one cycle (the router's speedup ``S``, §R6), ``>= 1``; default 1.
    thresholds : int
        Also keep registered bits ``count >= k`` for ``k = 1 .. thresholds`` (``ge``); default 0: none.

    Attributes
    ----------
    take : Signal(range(takes + 1)), in
        Flits granted to this VC this cycle (as many credits consumed at the edge; one bit when ``takes``
        is 1).
    ret : Signal(1), in
        A returned credit arrives this cycle (one credit added at the edge).
    count : Signal(range(depth + 1)), out
        Credits available (a register; reset value ``depth``).
    avail : Signal(1), out
        ``count > 0``: a grant to this VC is allowed this cycle.
    error : Signal(1), out
        Sticky: an underflow or overflow happened since reset (never under the protocol).
    ge : Signal(thresholds), out (``thresholds >= 1`` only)
        Bit ``k - 1``: ``count >= k``, a register of its own (written with ``count``), so that a
        ``count >= k`` test costs no comparator (the ``hiradix`` router's view, router-spec §R11.1).
    """

    def __init__(self, depth: int, *, check: bool = True, takes: int = 1, thresholds: int = 0):
        self.depth = check_int(self, "depth", "flits per downstream VC buffer", depth, 1)
        self.takes = check_int(self, "takes", "grants to one VC per cycle", takes, 1)
        self.thresholds = check_int(self, "thresholds", "registered count >= k bits", thresholds, 0)
        if not isinstance(check, bool):
            reject(self, f"check (emit the protocol assertion) must be a bool, got {check!r}")
        self.check = check
        ge = {"ge": Out(thresholds, init=(1 << min(thresholds, depth)) - 1)} if thresholds else {}
        super().__init__({
            "take": In(range(takes + 1)),
            "ret": In(1),
            "count": Out(range(depth + 1), init=depth),
            "avail": Out(1),
            "error": Out(1),
            **ge,
        })

    def elaborate(self, platform):
        m = Module()
        count, depth = self.count, self.depth
        empty, full = Signal(), Signal()
        underflow, overflow = Signal(), Signal()
        m.d.comb += self.avail.eq(~empty)
        if self.takes == 1:
            m.d.comb += [
                empty.eq(count == 0),
                full.eq(count == depth),
                underflow.eq(self.take & empty),
                overflow.eq(self.ret & full),
            ]
            with m.If(self.take & ~self.ret & ~empty):
                m.d.sync += count.eq(count - 1)
            with m.Elif(self.ret & ~self.take & ~full):
                m.d.sync += count.eq(count + 1)
        else:   # several grants a cycle (speedup): count - take + ret, held on a violation
            m.d.comb += [
                empty.eq(count == 0),
                full.eq(count == depth),
                underflow.eq(self.take > count),
                overflow.eq(self.ret & (count - self.take == depth)),
            ]
            with m.If(~underflow & ~overflow):
                m.d.sync += count.eq(count - self.take + self.ret)
        if self.thresholds:
            # registered ``count >= k`` bits of the next count (hiradix's view, §R11.1). ``take`` comes late in
            # the cycle (after GO's arbiter), so each bit is a select by ``take`` of compares made on
            # ``count`` and ``ret`` alone: one LUT after ``take``, not an adder and a comparator
            ge_next = []
            for j in range(1 << len(self.take)):   # the next count if ``take`` is j (held on a violation)
                nj = Signal(range(depth + 2), name=f"count_next_take{j}")
                under_j = Const(0, 1) if j == 0 else (j > count) if self.takes > 1 else empty
                over_j = self.ret & ((count - j) == depth) if self.takes > 1 else self.ret & full & (j == 0)
                m.d.comb += nj.eq(Mux(under_j | over_j, count, count - j + self.ret))
                ge_next.append(Cat(*[nj >= k for k in range(1, self.thresholds + 1)]))
            sel = ge_next[0]
            for j in range(1, len(ge_next)):
                sel = Mux(self.take == j, ge_next[j], sel)
            m.d.sync += self.ge.eq(sel)
        with m.If(underflow | overflow):
            m.d.sync += self.error.eq(1)
        if self.check:
            m.d.sync += [
                Assert(~underflow, "CreditCounter underflow: take with no credit"),
                Assert(~overflow, "CreditCounter overflow: credit returned with all credits home"),
            ]
        return m
