"""Output VC choice (router-spec §R5) and the credit queue-length estimate (§R7), per output port.

:class:`OutputVCSelect`: of the VCs of the class a hop may use, the output VC
is the **idle** one (no packet holds it, ``busy_ovc`` bit clear) with **at
least one credit** and the **most credits**; ties go to the lowest index; no
such VC makes the candidate **unavailable** (``valid = 0``). This is
``best_ovc`` of ``radixnet.golden.kernel``.

Classes are **contiguous blocks** of VCs, as in the golden model: with
``V`` VCs and ``n_classes`` classes (``V`` a multiple of ``n_classes``, §R5),
class ``k`` is VCs ``[k * V/n_classes, (k+1) * V/n_classes)``. The class is an
**input** (``cls``, from :class:`~radixnet.hdl.route_table.RouteCompute` or
the routing's phase), the class count a parameter: each output port needs one
unit per requester that can target it in a cycle, and the class changes from
flit to flit. A ``cls >= n_classes`` selects nothing (``valid = 0``).

Implementation: each VC's key is its credit count, or 0 when busy (so "idle
with ``>= 1`` credit" is "key ``> 0``"); ``cls`` picks the class's ``V/n_classes``
keys (one word select); a balanced tree of comparators keeps, at each node,
the left (lower-index) operand unless the right one is **strictly** greater,
which yields the maximum key at its lowest index, the same answer as the
golden model's linear scan with ``>``; ``valid`` is "maximum key ``> 0``".

Ejection ports have one implicit, always available VC (§R5): the router does
not put them through this unit.

:class:`QueueLength`: ``q = sum_v (depth - credit_ovc[v])``, the flits sent
downstream and not credited back (§R7 ``q(o)``, ``queue_length``); an adder tree.
For an ejection port ``q = 0`` (§R7): it has no credit counters and the router
uses the constant.

Examples
--------
>>> from radixnet.hdl.verilog import to_verilog
>>> "module vcsel(" in to_verilog(OutputVCSelect(4, 4, n_classes=2), "vcsel")
True
>>> OutputVCSelect(6, 3, n_classes=4)
Traceback (most recent call last):
...
ValueError: OutputVCSelect: n_vcs (virtual channels) must be a multiple of n_classes = 4 (router-spec §R5), got 6
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .arbiter import check_int, ptr_width, reject

__all__ = ["OutputVCSelect", "QueueLength", "vc_class"]


def vc_class(m: Module, vc, n_vcs: int, n_classes: int, name: str) -> Signal:
    """The class of VC ``vc`` (§R8a: class ``k`` is VCs ``[k * V / n_classes, (k + 1) * V / n_classes)``)."""
    vpc = n_vcs // n_classes
    out = Signal(ptr_width(n_classes), name=name)
    with m.Switch(vc):
        for v in range(n_vcs):
            with m.Case(v):
                m.d.comb += out.eq(v // vpc)
        with m.Default():
            m.d.comb += out.eq(0)
    return out


class OutputVCSelect(wiring.Component):
    """Combinational §R5 output VC choice within a class: idle, ``>= 1`` credit, most credits, lowest index.

    Parameters
    ----------
    n_vcs : int
        ``V``, VCs of the output port, ``>= 1``, a multiple of ``n_classes``.
    credit_bits : int
        Width of each credit count, ``>= 1`` (a :class:`~radixnet.hdl.credits.CreditCounter`
        of depth ``B`` has ``B.bit_length()`` bits).
    n_classes : int
        VC classes, ``>= 1``; class ``k`` is VCs ``[k*V/n_classes, (k+1)*V/n_classes)``.

    Attributes
    ----------
    credit_ovc : list of Signal(credit_bits), in
        Credits of each output VC (at the start of the cycle).
    busy_ovc : Signal(n_vcs), in
        Bit ``v``: output VC ``v`` is held by a packet (§R5 wormhole; never for ``L = 1``).
    cls : Signal(ptr_width(n_classes)), in
        The VC class the hop may use.
    ovc : Signal(ptr_width(n_vcs)), out
        The chosen output VC (don't-care when not ``valid``).
    valid : Signal(1), out
        Some VC of class ``cls`` is idle with a credit (the candidate is available).
    """

    def __init__(self, n_vcs: int, credit_bits: int, *, n_classes: int = 1):
        self.n_vcs = check_int(self, "n_vcs", "virtual channels", n_vcs, 1)
        self.credit_bits = check_int(self, "credit_bits", "width of a credit count", credit_bits, 1)
        self.n_classes = check_int(self, "n_classes", "VC classes", n_classes, 1)
        if n_vcs % n_classes:
            reject(self, f"n_vcs (virtual channels) must be a multiple of n_classes = {n_classes} "
                          f"(router-spec §R5), got {n_vcs}")
        super().__init__({
            "credit_ovc": In(credit_bits).array(n_vcs),
            "busy_ovc": In(n_vcs),
            "cls": In(ptr_width(n_classes)),
            "ovc": Out(ptr_width(n_vcs)),
            "valid": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        n, cb, k = self.n_vcs, self.credit_bits, self.n_classes
        vpc = n // k
        keys = []
        for v in range(n):
            key = Signal(cb, name=f"key_ovc_{v}")  # credits if idle, else 0
            m.d.comb += key.eq(Mux(self.busy_ovc[v], 0, self.credit_ovc[v]))
            keys.append(key)

        # the class's keys: one word select of vpc keys by cls (padded so it never leaves the vector)
        cw = len(self.cls)
        pad = (1 << cw) - k
        flat = Cat(*keys, *([Const(0, pad * vpc * cb)] if pad else []))
        class_keys = Signal(vpc * cb)
        m.d.comb += class_keys.eq(flat.word_select(self.cls, vpc * cb))
        in_range = Signal()
        m.d.comb += in_range.eq(self.cls < k if pad else 1)

        iw = ptr_width(vpc)
        level = [(class_keys[i * cb:(i + 1) * cb], Const(i, iw)) for i in range(vpc)]
        depth = 0
        while len(level) > 1:
            nxt = []
            for j in range(0, len(level) - 1, 2):
                (ka, ia), (kb, ib) = level[j], level[j + 1]
                take_b = Signal(name=f"take_{depth}_{j // 2}")
                key, idx = Signal(cb, name=f"key_{depth}_{j // 2}"), Signal(iw, name=f"idx_{depth}_{j // 2}")
                m.d.comb += [take_b.eq(kb > ka), key.eq(Mux(take_b, kb, ka)), idx.eq(Mux(take_b, ib, ia))]
                nxt.append((key, idx))
            if len(level) % 2:
                nxt.append(level[-1])
            level, depth = nxt, depth + 1
        best_key, best_idx = level[0]

        # the best key is nonzero iff some key of the class is: the OR of them, beside the compare tree, not after it
        m.d.comb += self.valid.eq(class_keys.any() & in_range)
        if k == 1:
            m.d.comb += self.ovc.eq(best_idx)
        else:
            m.d.comb += self.ovc.eq(self.cls * vpc + best_idx)
        return m


class QueueLength(wiring.Component):
    """Combinational queue-length estimate of one output port: ``q = sum_v (depth - credit_ovc[v])`` (§R7).

    Parameters
    ----------
    n_vcs : int
        ``V``, VCs of the output port, ``>= 1``.
    depth : int
        ``B``, flits per downstream VC buffer (each credit count is in ``0 .. depth``), ``>= 1``.

    Attributes
    ----------
    credit_ovc : list of Signal(range(depth + 1)), in
        Credits of each output VC (a :class:`~radixnet.hdl.credits.CreditCounter` ``count``; never
        above ``depth``: the counters saturate).
    q : Signal(range(n_vcs * depth + 1)), out
        Flits sent downstream and not yet credited back.
    """

    def __init__(self, n_vcs: int, depth: int):
        self.n_vcs = check_int(self, "n_vcs", "virtual channels", n_vcs, 1)
        self.depth = check_int(self, "depth", "flits per downstream VC buffer", depth, 1)
        super().__init__({
            "credit_ovc": In(range(depth + 1)).array(n_vcs),
            "q": Out(range(n_vcs * depth + 1)),
        })

    def elaborate(self, platform):
        m = Module()
        n, depth = self.n_vcs, self.depth
        width = len(self.q)
        # balanced adder tree over the credits, then q = V*B - sum (one subtractor, not V)
        level = list(self.credit_ovc)
        depth_i = 0
        while len(level) > 1:
            nxt = []
            for j in range(0, len(level) - 1, 2):
                s = Signal(width, name=f"sum_{depth_i}_{j // 2}")
                m.d.comb += s.eq(level[j] + level[j + 1])
                nxt.append(s)
            if len(level) % 2:
                nxt.append(level[-1])
            level, depth_i = nxt, depth_i + 1
        m.d.comb += self.q.eq(n * depth - level[0])
        return m
