"""Round-robin arbiters with the priority-pointer semantics of router-spec §R6.

Both arbiters keep a priority pointer ``ptr`` (a register, reset to 0) and
grant combinationally from the requests of the current cycle:

* :class:`RoundRobinArbiter` grants the **first** requester at or after
  ``ptr`` (indices ``ptr, ptr+1, ..., n-1, 0, ..., ptr-1``);
* :class:`RoundRobinMultiArbiter` grants the first **up to** ``s``
  requesters in that order (the input/output arbitration of the greedy
  allocator with speedup ``S``, §R6 steps 2-3).

Pointers move only on grants (§R6 step 4): when ``update`` is asserted in a
cycle with at least one grant, ``ptr`` becomes one past the **last** index
granted in round-robin order, modulo ``n``. With ``update`` low, or with no
request, ``ptr`` holds. The separate ``update`` input lets the allocator move
a pointer only when the arbiter's choice actually wins (e.g. an input
arbiter's pick that the output stage rejects must not advance it).

Note for the router (a later increment): §R6 moves an input pointer
``ptr_in[p]`` to one past the last VC of ``p`` *granted by the outputs*, in
``p``'s round-robin order. With ``S > 1`` an output may reject a VC the input
arbiter selected, so the input stage drives its pointer from the output
grants rather than from this arbiter's ``update``.

Examples
--------
The ports, as they appear in the Verilog:

>>> from radixnet.hdl.verilog import to_verilog
>>> print(to_verilog(RoundRobinArbiter(4), "rr4").splitlines()[4])
module rr4(update, clk, rst, gnt, ptr, req);
>>> RoundRobinMultiArbiter(4, 0)
Traceback (most recent call last):
...
ValueError: RoundRobinMultiArbiter: s (grants per cycle) must be an int with s >= 1, got 0
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

__all__ = ["RoundRobinArbiter", "RoundRobinMultiArbiter", "ptr_width", "check_int", "reject", "onehot_index", "later_than",
           "rr_first", "next_ptr", "lowest_one", "or_all", "mux_onehot"]


def ptr_width(n: int) -> int:
    """Bits of a pointer/index over ``n`` requesters (at least 1, so no port is 0 bits wide).

    Parameters
    ----------
    n : int
        Number of requesters.

    Returns
    -------
    int
        ``max(1, ceil(log2(n)))``.

    Examples
    --------
    >>> [ptr_width(n) for n in (1, 2, 3, 4, 5, 8, 9)]
    [1, 1, 2, 2, 3, 3, 4]
    """
    return max(1, (n - 1).bit_length())


def reject(owner, message: str):
    """Raise ValueError for a component whose constructor refuses its parameters.

    The half-built object would otherwise trigger Amaranth's "created but never
    used" warning when collected; it is silenced (Amaranth 0.5 ``MustUse`` flag).
    """
    owner._MustUse__silence = True
    raise ValueError(f"{type(owner).__name__}: {message}")


def check_int(owner, name: str, what: str, value, lo: int) -> int:
    """Validate an integer parameter ``>= lo`` of ``owner``; raise ValueError naming it and what is allowed."""
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        reject(owner, f"{name} ({what}) must be an int with {name} >= {lo}, got {value!r}")
    return value


def check_choice(owner, name: str, what: str, value, allowed):
    """Validate a parameter of ``owner`` that takes one of ``allowed`` (never a bool standing for an int); raise
    ValueError naming it, what it is and what is allowed."""
    if isinstance(value, bool) or value not in allowed:
        reject(owner, f"{name} ({what}) must be one of {', '.join(map(str, allowed))}, got {value!r}")
    return value


def lowest_one(m: Module, x, n: int, name: str) -> Signal:
    """A signal holding only the lowest set bit of the ``n``-bit value ``x`` (``x & -x``)."""
    out = Signal(n, name=name)
    m.d.comb += out.eq(x & (~x + 1)[:n])
    return out


def onehot_index(onehot, n: int):
    """Index (``ptr_width(n)`` bits) of the set bit of an ``n``-bit one-hot value, 0 when none is set.

    Bit ``b`` of the index is the OR of the bits whose index has bit ``b`` set (no priority mux).
    """
    return Cat(*[
        Cat(*[onehot[i] for i in range(n) if (i >> b) & 1]).any() if n > (1 << b) else Const(0, 1)
        for b in range(ptr_width(n))
    ])


def rr_first(m: Module, req, ptr, n: int, name: str) -> Signal:
    """One-hot: the first set bit of the ``n``-bit ``req`` at or after ``ptr`` in round-robin order (0 if none).

    The requests at or above ``ptr`` (a thermometer mask) are searched first for their lowest set bit,
    and only if there are none, all requests; each search is an ``x & -x`` carry chain.
    """
    req_hi = Signal(n, name=f"{name}_req_hi")
    m.d.comb += req_hi.eq(req & (Const((1 << n) - 1, n) << ptr)[:n])
    gnt_hi = lowest_one(m, req_hi, n, f"{name}_hi")
    gnt_lo = lowest_one(m, req, n, f"{name}_lo")
    gnt = Signal(n, name=name)
    m.d.comb += gnt.eq(Mux(req_hi.any(), gnt_hi, gnt_lo))
    return gnt


def later_than(m: Module, onehot, ptr, n: int, name: str) -> Signal:
    """The bits after the set bit of the one-hot ``onehot`` in round-robin order from ``ptr`` (``ptr, ptr + 1,
    ..., n - 1, 0, ..., ptr - 1``): the candidates a second grant of the same arbiter may still take."""
    ones = Const((1 << n) - 1, n)
    idx = Signal(ptr_width(n), name=f"{name}_idx")
    m.d.comb += idx.eq(onehot_index(onehot, n))
    above = (ones << (idx + 1))[:n]       # index above the grant
    below_ptr = ~(ones << ptr)[:n]        # index below ptr (after the wrap)
    out = Signal(n, name=name)
    m.d.comb += out.eq(Mux(idx >= ptr, above | below_ptr, above & below_ptr))
    return out


def next_ptr(m: Module, base, offset, n: int, name: str) -> Signal:
    """``(base + offset + 1) mod n`` for ``base, offset < n`` (one compare-subtract, any ``n``).

    ``offset`` may be None (then ``(base + 1) mod n``).
    """
    w = ptr_width(n)
    total = Signal(w + 1, name=f"{name}_sum")
    out = Signal(w, name=name)
    m.d.comb += total.eq(base + 1 if offset is None else base + offset + 1)
    m.d.comb += out.eq(Mux(total >= n, total - n, total)[:w])
    return out


class RoundRobinArbiter(wiring.Component):
    """Round-robin arbiter: grant the first requester at or after the pointer (§R6).

    Grant logic is combinational (``gnt`` follows ``req`` in the same cycle);
    the pointer is a register in the ``sync`` domain. Implementation: the
    requests at or above ``ptr`` (a thermometer mask) are searched first for
    their lowest set bit, and only if there are none, all requests; each
    search is an ``x & -x`` carry chain, not an ``n``-way priority mux.

    Parameters
    ----------
    n : int
        Number of requesters, ``n >= 1``.

    Attributes
    ----------
    req : Signal(n), in
        Request vector, bit ``i`` for requester ``i``.
    update : Signal(1), in
        Move the pointer this cycle: if any grant, ``ptr`` becomes one past the granted index.
    gnt : Signal(n), out
        One-hot grant (all zero without requests).
    ptr : Signal(ptr_width(n)), out
        The priority pointer (the register itself; reset value 0).

    Examples
    --------
    >>> RoundRobinArbiter(0)
    Traceback (most recent call last):
    ...
    ValueError: RoundRobinArbiter: n (number of requesters) must be an int with n >= 1, got 0
    """

    def __init__(self, n: int):
        self.n = check_int(self, "n", "number of requesters", n, 1)
        super().__init__({
            "req": In(n),
            "update": In(1),
            "gnt": Out(n),
            "ptr": Out(ptr_width(n)),
        })

    def elaborate(self, platform):
        m = Module()
        n = self.n
        ptr = Signal(ptr_width(n), name="ptr_reg")
        m.d.comb += self.ptr.eq(ptr)

        m.d.comb += self.gnt.eq(rr_first(m, self.req, ptr, n, "gnt_rr"))
        gnt_idx = Signal(ptr_width(n))
        m.d.comb += gnt_idx.eq(onehot_index(self.gnt, n))
        nxt = next_ptr(m, gnt_idx, None, n, "ptr_next")
        with m.If(self.update & self.req.any()):
            m.d.sync += ptr.eq(nxt)
        return m


class RoundRobinMultiArbiter(wiring.Component):
    """Round-robin arbiter granting up to ``s`` requesters per cycle (§R6 with speedup ``S``).

    The grants are the first ``min(s, popcount(req))`` requesters in the
    order ``ptr, ptr+1, ..., ptr-1 (mod n)``; on ``update`` the pointer moves
    to one past the last of them. With ``s = 1`` it behaves exactly like
    :class:`RoundRobinArbiter`; with ``s >= n`` it grants every requester (so
    a router with ``V = 1`` and ``S = 2`` can pass ``s = S`` unchanged). Implementation: the requests are rotated so
    that ``ptr`` is bit 0, ``s`` lowest-set-bit stages peel off the grants, and
    the grant vector is rotated back; the last grant is the highest set bit of
    the rotated grant vector.

    Parameters
    ----------
    n : int
        Number of requesters, ``n >= 1``.
    s : int
        Maximum grants per cycle (the speedup), ``s >= 1``; values above ``n`` act as ``n``.

    Attributes
    ----------
    req : Signal(n), in
        Request vector, bit ``i`` for requester ``i``.
    update : Signal(1), in
        Move the pointer this cycle: if any grant, ``ptr`` becomes one past the last index granted.
    gnt : Signal(n), out
        Grant vector with at most ``s`` bits set, a subset of ``req``.
    ptr : Signal(ptr_width(n)), out
        The priority pointer (the register itself; reset value 0).
    """

    def __init__(self, n: int, s: int):
        self.n = check_int(self, "n", "number of requesters", n, 1)
        self.s = check_int(self, "s", "grants per cycle", s, 1)
        super().__init__({
            "req": In(n),
            "update": In(1),
            "gnt": Out(n),
            "ptr": Out(ptr_width(n)),
        })

    def elaborate(self, platform):
        m = Module()
        n, s = self.n, min(self.s, self.n)
        w = ptr_width(n)
        ptr = Signal(w, name="ptr_reg")
        m.d.comb += self.ptr.eq(ptr)

        # rotate right by ptr: req_rot[j] = req[(ptr + j) mod n]
        req_rot = Signal(n)
        m.d.comb += req_rot.eq((Cat(self.req, self.req) >> ptr)[:n])
        rest = req_rot
        gnt_rot = Signal(n)
        picks = []
        for k in range(s):
            pick = lowest_one(m, rest, n, f"pick_{k}")
            picks.append(pick)
            if k < s - 1:
                nxt = Signal(n, name=f"rest_{k}")
                m.d.comb += nxt.eq(rest & ~pick)
                rest = nxt
        m.d.comb += gnt_rot.eq(or_all(picks))
        # rotate left by ptr: gnt[i] = gnt_rot[(i - ptr) mod n]
        m.d.comb += self.gnt.eq((Cat(gnt_rot, gnt_rot) << ptr)[n:2 * n])

        # offset (from ptr) of the last grant = highest set bit of gnt_rot
        last_off = Signal(w)
        for j in range(n):
            with m.If(gnt_rot[j]):
                m.d.comb += last_off.eq(j)
        nxt_ptr = next_ptr(m, ptr, last_off, n, "ptr_next")
        with m.If(self.update & self.req.any()):
            m.d.sync += ptr.eq(nxt_ptr)
        return m


def or_all(values):
    """Bitwise OR of a non-empty list of equal-width values."""
    out = values[0]
    for v in values[1:]:
        out = out | v
    return out


def mux_onehot(sel_bits, values):
    """AND-OR multiplexer: ``OR_i (sel_bits[i] ? values[i] : 0)``, the entry of the non-empty ``values`` whose
    bit of ``sel_bits`` is set (0 when none; at most one may be)."""
    return or_all([Mux(sel_bits[i], v, 0) for i, v in enumerate(values)])
