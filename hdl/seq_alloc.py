"""Sequential allocator with adaptive choices (router-spec §R6 "sequential", Kim §3.1-3.2).

The unit serves ``N`` requesters one after the other in the rotating order
``start, start+1, ..., start+N-1 (mod N)``. Requester ``i`` offers up to ``M``
candidates ``j``, each a valid bit, an output ``o_ij``, a hop weight ``h_ij``
and a bias ``b_ij``. With ``c[o]`` the grants made to output ``o`` by the
requesters served earlier in the cycle, the candidate's cost is

    ``cost_ij = (q0[o_ij] + c[o_ij]) * h_ij + b_ij``

and the requester **chooses** the valid candidate of least cost (ties: the
lowest ``j``). It is **granted** iff ``c[chosen] < S``, and then
``c[chosen] += 1``; otherwise it waits and its choice is not committed:
capacity never steers the choice (§R6). UGAL-S is ``M = 2``: candidate 0 the
minimal route (``h = H(c, d)``, ``b = 0``), candidate 1 the non-minimal one
(``h = H(c, b) + H(b, d)``, ``b = θ``), so "least cost, ties to 0" is §R7's
"minimal iff ``q_min·H_min <= q_nm·H_nm + θ``"; a CLOS AD-style choice uses
more candidates. :func:`seq_alloc_model` is the reference model, in Python.

:class:`SequentialAllocator` builds the same function two ways (``impl``):

``"ripple"``
    A chain of ``N`` stages in service order. Stage ``k`` reads the running
    grant counts of its candidates' outputs, computes the costs, takes the
    argmin, checks the capacity and increments the count it was granted: the
    cost arithmetic (add, multiply, compare) is on the chain.
``"prefix"``
    Speculation plus a Ladner-Fischer prefix network, exact for every input.
    Off the chain, each requester compares its candidates pairwise under
    **every** hypothesis of their counts ``(a, b) in {0..S}^2`` (``M(M-1)/2 *
    (S+1)^2`` comparators, all in parallel). The counts come from one
    minimum-depth Ladner-Fischer (Sklansky) prefix network per output over
    the requesters' *choice* bits, with saturating addition ``min(S, x + y)``:
    a requester's choice only selects, by the counts it reads from the
    network's exclusive prefix, among its precomputed comparison bits, and
    feeds its own leaf of the network. This is exact because ``c[o]`` before
    requester ``k`` equals ``min(S, number of earlier requesters that chose
    o)`` (granted or not: the first ``S`` to choose ``o`` are granted), and
    acyclic because the exclusive prefix at ``k`` reads only leaves ``< k``.

Depth (proved in ``docs/seq-alloc.md``): the exact function is not an
associative scan when choices adapt to the state, and it is inherently
sequential in general: with equal ``q0``, ``h = 1``, ``b = 0`` and ``S = 1``
it is the greedy first-fit matching, i.e. the lexicographically first
maximal matching, whose P-completeness (Anderson & Mayr 1987; see Cook 1985)
means no polylog-depth polynomial-size circuit is expected. The ``"prefix"``
structure therefore still has a path through every requester for ``M >= 2``,
``Θ(N·(δ + σ·log N))`` with a short per-requester step ``δ`` (a count mux and
a comparison-bit select, no arithmetic) and ``σ`` the depth of one saturating
add, against ``Θ(N·δ_ripple)`` with the arithmetic in ``δ_ripple``; with
``M = 1`` (one candidate: the choices do not depend on the counts) it is
the classic prefix-sum arbiter, ``O(log N + log O)`` deep: a requester is
granted iff fewer than ``S`` earlier requesters ask for its output (the
``"prefix"`` structure then keeps the requesters in index order, with a
thermometer mask from ``start`` instead of a rotation).

Candidates whose output index is ``>= O`` (possible when ``O`` is not a power
of two) count as invalid. ``start`` is taken modulo ``N``.

Examples
--------
Three requesters, each with a cheap candidate to output 0 and a dearer one to
output 1, and ``S = 2``: the third sees output 0 loaded by the first two and
moves to output 1 (a greedy allocator, deciding on ``q0`` alone, would send
all three to output 0 and grant only two):

>>> cands = [[(0, 1, 0), (1, 2, 1)]] * 3
>>> a = seq_alloc_model([0, 0], cands, s=2)
>>> a.choice, a.granted, a.counts
((0, 0, 1), (True, True, True), (2, 1))

The ports, as they appear in the Verilog (``N = O = M = 2``):

>>> from radixnet.hdl.verilog import to_verilog
>>> text = to_verilog(SequentialAllocator(2, 2, 2, impl="prefix"), "sa2")
>>> [ln.split()[-1].rstrip(";") for ln in text.splitlines() if ln.lstrip().startswith("input")][:7]
['bias_rq_cd__0__0', 'bias_rq_cd__0__1', 'bias_rq_cd__1__0', 'bias_rq_cd__1__1', 'hops_rq_cd__0__0', 'hops_rq_cd__0__1', 'hops_rq_cd__1__0']
>>> SequentialAllocator(4, 4, 2, impl="tree")
Traceback (most recent call last):
...
ValueError: SequentialAllocator: impl (structure) must be 'ripple' or 'prefix', got 'tree'
"""

from __future__ import annotations

from typing import NamedTuple

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .arbiter import check_int, onehot_index, ptr_width, reject

__all__ = ["IMPLS", "Allocation", "SequentialAllocator", "WavefrontAllocator", "build", "seq_alloc_model",
           "rotate"]

#: The structures :class:`SequentialAllocator` can build.
IMPLS = ("ripple", "prefix")


class Allocation(NamedTuple):
    """The result of one allocation cycle, per requester (natural index) and per output.

    Attributes
    ----------
    req : tuple of bool
        Requester ``i`` has a valid candidate.
    granted : tuple of bool
        Requester ``i`` is granted its choice.
    choice : tuple of (int or None)
        Index ``j`` of the chosen candidate (None without a request).
    output : tuple of (int or None)
        Its output ``o_ij`` (None without a request).
    counts : tuple of int
        Grants per output this cycle (each ``<= S``).
    """

    req: tuple
    granted: tuple
    choice: tuple
    output: tuple
    counts: tuple


def _model_error(message: str):
    raise ValueError(f"seq_alloc_model: {message}")


def _nonneg(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def seq_alloc_model(q0, cands, *, start: int = 0, s: int = 1) -> Allocation:
    """Reference model of the sequential allocator (one cycle), in plain Python.

    Parameters
    ----------
    q0 : sequence of int
        Start-of-cycle queue estimate of each output (``O = len(q0) >= 1``), ``>= 0``.
    cands : sequence of sequences
        ``cands[i][j]`` is candidate ``j`` of requester ``i`` (``N = len(cands) >= 1``):
        None when not valid, else a triple ``(o, h, b)`` of ints ``>= 0`` (output,
        hop weight, bias). A candidate with ``o >= O`` counts as not valid.
    start : int
        The requester served first; taken modulo ``N``.
    s : int
        Grants per output per cycle, ``>= 1``.

    Returns
    -------
    Allocation
        Requests, grants, choices and outputs per requester; grants per output.

    Raises
    ------
    ValueError
        On a malformed argument (one line naming it).

    Examples
    --------
    Requester 1 is served first (``start = 1``) and takes output 1 at cost 0.
    Requester 0 would pick output 1 on the start-of-cycle state (cost
    ``0·2 + 1 = 1`` against ``3·1 = 3``), but now sees it loaded, ``(0 + 1)·2 + 1
    = 3``, a tie that goes to its candidate 0; requester 2 has no candidate:

    >>> a = seq_alloc_model([3, 0], [[(0, 1, 0), (1, 2, 1)], [None, (1, 1, 0)], []], start=1)
    >>> a.req, a.choice, a.output, a.granted, a.counts
    ((True, True, False), (0, 1, None), (0, 1, None), (True, True, False), (1, 1))
    >>> seq_alloc_model([1], [[(0, 1, 0)]], s=0)
    Traceback (most recent call last):
    ...
    ValueError: seq_alloc_model: s (grants per output) must be an int >= 1, got 0
    """
    if isinstance(s, bool) or not isinstance(s, int) or s < 1:
        _model_error(f"s (grants per output) must be an int >= 1, got {s!r}")
    if not _nonneg(start):
        _model_error(f"start (first requester) must be an int >= 0, got {start!r}")
    q0 = list(q0)
    if not q0 or not all(_nonneg(q) for q in q0):
        _model_error(f"q0 (queue estimate per output) must be a non-empty sequence of ints >= 0, got {q0!r}")
    cands = [list(c) for c in cands]
    if not cands:
        _model_error("cands (candidates per requester) must hold at least one requester, got none")
    for i, row in enumerate(cands):
        for j, cand in enumerate(row):
            if cand is not None and not (isinstance(cand, tuple) and len(cand) == 3
                                         and all(_nonneg(x) for x in cand)):
                _model_error(f"cands[{i}][{j}] must be None or a triple (o, h, b) of ints >= 0, got {cand!r}")
    n, n_out = len(cands), len(q0)
    counts = [0] * n_out
    req, granted, choice, output = [False] * n, [False] * n, [None] * n, [None] * n
    for step in range(n):
        i = (start + step) % n
        best = None  # (cost, j, o)
        for j, cand in enumerate(cands[i]):
            if cand is None or cand[0] >= n_out:
                continue
            o, h, b = cand
            cost = (q0[o] + counts[o]) * h + b
            if best is None or cost < best[0]:  # strict: ties keep the lower j
                best = (cost, j, o)
        if best is None:
            continue
        req[i], choice[i], output[i] = True, best[1], best[2]
        if counts[best[2]] < s:
            counts[best[2]] += 1
            granted[i] = True
    return Allocation(tuple(req), tuple(granted), tuple(choice), tuple(output), tuple(counts))


# ------------------------------------------------------------------ netlist helpers
def _pick(m: Module, values, index, width: int, name: str) -> Signal:
    """``values[index]`` (an ``len(values)``-way mux of ``width``-bit values; 0 beyond the end)."""
    pad = (1 << len(index)) - len(values)
    flat = Cat(*[v for v in values], *([Const(0, pad * width)] if pad > 0 else []))
    out = Signal(width, name=name)
    m.d.comb += out.eq(flat.word_select(index, width))
    return out


def _seen_count(m: Module, counts, index, width: int, name: str) -> Signal:
    """The count of output ``index`` that a requester's **choice** reads (both structures).

    The grant check reads the counts through :func:`_pick` directly; this
    separate seam lets the tests substitute a wrong rule (choices on the
    start-of-cycle state, i.e. greedy) and see the comparison catch it.
    """
    return _pick(m, counts, index, width, name)


def _shift_add(x, h):
    """``x · h`` as a sum of shifted copies of ``x``, one per bit of the (narrow) weight ``h``: LUTs and carry
    chains, where ``*`` would map to a DSP block the placer may put far from its operands."""
    total = Const(0, 1)
    for b in range(len(h)):
        total = total + Mux(h[b], x << b, 0)
    return total


def rotate(m: Module, words, amount, forward: bool, name: str) -> list:
    """Barrel rotation: ``out[k] = words[(k + amount) mod n]`` (forward) or ``words[(k - amount) mod n]``.

    One 2-way mux level per bit of ``amount``, each rotating by ``2^b mod n``,
    so any ``amount`` (also ``>= n``) rotates by ``amount mod n``.
    """
    n = len(words)
    cur = list(words)
    for bit in range(len(amount)):
        r = (1 << bit) % n
        if r == 0:
            continue
        nxt = []
        for k in range(n):
            src = (k + r) % n if forward else (k - r) % n
            sig = Signal(len(cur[k]), name=f"{name}_b{bit}_{k}")
            m.d.comb += sig.eq(Mux(amount[bit], cur[src], cur[k]))
            nxt.append(sig)
        cur = nxt
    return cur


def _sklansky(leaves, op) -> list:
    """Inclusive prefixes ``y[k] = leaves[0] op ... op leaves[k]`` by the minimum-depth Ladner-Fischer network.

    ``op(left, right, level, position)`` builds one node. Level ``l`` combines,
    at every position ``p`` with bit ``l`` set, the running value of ``p`` with
    that of the last position of the left sibling block; ``ceil(log2 n)``
    levels, ``(n/2)·log2 n`` nodes (Ladner & Fischer 1980, ``P_0``; Sklansky 1960).
    """
    y = list(leaves)
    level = 0
    while (1 << level) < len(y):
        prev = list(y)
        for p in range(len(y)):
            if (p >> level) & 1:
                left = ((p >> (level + 1)) << (level + 1)) + (1 << level) - 1
                y[p] = op(prev[left], prev[p], level, p)
        level += 1
    return y


def _sat_add(m: Module, s: int, kb: int, prefix: str):
    """A node builder for :func:`_sklansky`: ``min(S, a + b)`` on ``kb``-bit counts, named
    ``<prefix>_l<level>_k<position>``."""
    def op(a, b, level, p):
        node = Signal(kb, name=f"{prefix}_l{level}_k{p}")
        total = a + b
        m.d.comb += node.eq(Mux(total > s, s, total))
        return node
    return op


def _one_hot_index(m: Module, onehot, width: int, name: str) -> Signal:
    """Index of the set bit of a one-hot list of 1-bit values (0 when none is set)."""
    out = Signal(width, name=name)
    m.d.comb += out.eq(onehot_index(Cat(*onehot), len(onehot)))
    return out


def _or_select(m: Module, onehot, values, width: int, name: str) -> Signal:
    """``values[j]`` for the set bit ``j`` of a one-hot list (0 when none is set): an AND-OR."""
    out = Signal(width, name=name)
    acc = Const(0, width)
    for sel, v in zip(onehot, values):
        acc = acc | Mux(sel, v, 0)
    m.d.comb += out.eq(acc)
    return out


def _le_bits(cost_j, cost_jp, s: int, kb: int):
    """The pairwise table of candidates ``j < jp``: bit ``a << kb | b`` is ``cost_j[a] <= cost_jp[b]``, for
    every hypothesis ``a, b in {0..S}`` of their counts (the prefix and wavefront structures, off the chain)."""
    bits = [Const(0, 1)] * (1 << (2 * kb))
    for a in range(s + 1):
        for b in range(s + 1):
            bits[(a << kb) | b] = cost_j[a] <= cost_jp[b]
    return Cat(*bits)


def _winners(m: Module, k: int, valid, tables, seen) -> list:
    """One-hot choice of the requester at position ``k``: candidate ``j`` wins iff it is valid and, against
    every other valid ``jp``, its table bit at the counts ``seen`` says so (``j < jp``: ``cost_j <= cost_jp``;
    ``j > jp``: ``cost_jp > cost_j``), so ties go to the lower index."""
    mc = len(valid)
    win = []
    for j in range(mc):
        beats = []
        for jp in range(mc):
            if jp == j:
                continue
            if j < jp:
                le = tables[j, jp].bit_select(Cat(seen[jp], seen[j]), 1)
                beats.append(~valid[jp] | le)
            else:
                le = tables[jp, j].bit_select(Cat(seen[j], seen[jp]), 1)
                beats.append(~valid[jp] | ~le)
        wj = Signal(name=f"win_k{k}_cd{j}")
        m.d.comb += wj.eq(valid[j] & Cat(*beats).all() if beats else valid[j])
        win.append(wj)
    return win


class SequentialAllocator(wiring.Component):
    """Combinational sequential allocator: adaptive choice on the running counts, capacity ``S`` per output.

    Computes exactly :func:`seq_alloc_model` (see the module docstring for the
    rule and the two structures). Purely combinational; the router keeps the
    ``start`` pointer.

    Parameters
    ----------
    n : int
        ``N``, requesters, ``>= 1``.
    n_out : int
        ``O``, outputs, ``>= 1``.
    n_cand : int
        ``M``, candidates per requester, ``>= 1``.
    s : int
        ``S``, grants per output per cycle, ``>= 1``.
    q_bits : int
        Width of a queue estimate ``q0``, ``>= 1``.
    hop_bits : int
        Width of a hop weight ``h``, ``>= 1``.
    bias_bits : int
        Width of a bias ``b``, ``>= 1``.
    impl : {"ripple", "prefix"}
        The structure; both compute the same function bit for bit.

    Attributes
    ----------
    start : Signal(ptr_width(n)), in
        The requester served first (modulo ``N``). Unused when ``N = 1``.
    q_op : list of Signal(q_bits), in
        ``q0[o]``, the start-of-cycle queue estimate of each output.
    valid_rq_cd : list of Signal(n_cand), in
        Bit ``j`` of entry ``i``: candidate ``j`` of requester ``i`` is valid.
    op_rq_cd : list of list of Signal(ptr_width(n_out)), in
        ``o_ij``; a valid candidate with ``o_ij >= O`` counts as not valid.
    hops_rq_cd : list of list of Signal(hop_bits), in
        ``h_ij``, the weight of the queue in the cost.
    bias_rq_cd : list of list of Signal(bias_bits), in
        ``b_ij``, added to the cost.
    req_rq : Signal(n), out
        Bit ``i``: requester ``i`` has a valid candidate.
    gnt_rq : Signal(n), out
        Bit ``i``: requester ``i`` is granted its choice.
    sel_rq : list of Signal(ptr_width(n_cand)), out
        The chosen candidate ``j`` (0 without a request).
    sel_op_rq : list of Signal(ptr_width(n_out)), out
        Its output ``o_ij`` (0 without a request).
    count_op : list of Signal(s.bit_length()), out
        Grants to each output this cycle.

    Examples
    --------
    >>> from radixnet.hdl.verilog import to_verilog
    >>> alloc = SequentialAllocator(3, 2, 2, s=2, impl="ripple")
    >>> alloc.count_bits, alloc.cost_bits, len(alloc.op_rq_cd), len(alloc.op_rq_cd[2])
    (2, 11, 3, 2)
    >>> "module sa3(" in to_verilog(alloc, "sa3")
    True
    >>> SequentialAllocator(8, 8, 0)
    Traceback (most recent call last):
    ...
    ValueError: SequentialAllocator: n_cand (candidates per requester) must be an int with n_cand >= 1, got 0
    """

    def __init__(self, n: int, n_out: int, n_cand: int, *, s: int = 1, q_bits: int = 8,
                 hop_bits: int = 3, bias_bits: int = 4, impl: str = "ripple"):
        self.n = check_int(self, "n", "requesters", n, 1)
        self.n_out = check_int(self, "n_out", "outputs", n_out, 1)
        self.n_cand = check_int(self, "n_cand", "candidates per requester", n_cand, 1)
        self.s = check_int(self, "s", "grants per output per cycle", s, 1)
        self.q_bits = check_int(self, "q_bits", "width of a queue estimate", q_bits, 1)
        self.hop_bits = check_int(self, "hop_bits", "width of a hop weight", hop_bits, 1)
        self.bias_bits = check_int(self, "bias_bits", "width of a bias", bias_bits, 1)
        if impl not in IMPLS:
            reject(self, f"impl (structure) must be 'ripple' or 'prefix', got {impl!r}")
        self.impl = impl
        #: Width of a count ``c[o] in {0..S}``.
        self.count_bits = s.bit_length()
        #: Width of the largest cost, ``(2^q_bits - 1 + S)·(2^hop_bits - 1) + 2^bias_bits - 1``.
        self.cost_bits = ((2 ** q_bits - 1 + s) * (2 ** hop_bits - 1) + 2 ** bias_bits - 1).bit_length()
        ow, cw = ptr_width(n_out), ptr_width(n_cand)
        super().__init__({
            "start": In(ptr_width(n)),
            "q_op": In(q_bits).array(n_out),
            "valid_rq_cd": In(n_cand).array(n),
            "op_rq_cd": In(ow).array(n, n_cand),
            "hops_rq_cd": In(hop_bits).array(n, n_cand),
            "bias_rq_cd": In(bias_bits).array(n, n_cand),
            "req_rq": Out(n),
            "gnt_rq": Out(n),
            "sel_rq": Out(cw).array(n),
            "sel_op_rq": Out(ow).array(n),
            "count_op": Out(self.count_bits).array(n_out),
        })

    # -------------------------------------------------------------- shared front and back ends
    def _front(self, m: Module):
        """Rotate the requests into service order; per position the valid bits, outputs, weights, biases, ``q0``."""
        n, mc, ow, hb, bb = self.n, self.n_cand, ptr_width(self.n_out), self.hop_bits, self.bias_bits
        words = [Cat(self.valid_rq_cd[i], *self.op_rq_cd[i], *self.hops_rq_cd[i], *self.bias_rq_cd[i])
                 for i in range(n)]
        rot = rotate(m, words, self.start, True, "rot_rq")
        pos = []
        for k in range(n):
            w = rot[k]
            o0, h0, b0 = mc, mc + mc * ow, mc + mc * (ow + hb)
            ops = [w[o0 + j * ow:o0 + (j + 1) * ow] for j in range(mc)]
            hops = [w[h0 + j * hb:h0 + (j + 1) * hb] for j in range(mc)]
            bias = [w[b0 + j * bb:b0 + (j + 1) * bb] for j in range(mc)]
            valid = []
            for j in range(mc):
                v = Signal(name=f"valid_k{k}_cd{j}")
                in_range = ops[j] < self.n_out if (1 << ow) > self.n_out else Const(1, 1)
                m.d.comb += v.eq(w[j] & in_range)
                valid.append(v)
            qs = [_pick(m, list(self.q_op), ops[j], self.q_bits, f"q0_k{k}_cd{j}") for j in range(mc)]
            pos.append((valid, ops, hops, bias, qs))
        return pos

    def _back(self, m: Module, results):
        """Rotate the per-position results (req, gnt, sel, sel_op) back to the requesters' own indices."""
        cw, ow = ptr_width(self.n_cand), ptr_width(self.n_out)
        words = [Cat(req, gnt, sel, sel_o) for req, gnt, sel, sel_o in results]
        back = rotate(m, words, self.start, False, "unrot_rq")
        for i in range(self.n):
            w = back[i]
            m.d.comb += [self.req_rq[i].eq(w[0]), self.gnt_rq[i].eq(w[1]),
                         self.sel_rq[i].eq(w[2:2 + cw]), self.sel_op_rq[i].eq(w[2 + cw:2 + cw + ow])]

    def _outcome(self, m: Module, k: int, win, ops, counts):
        """From a one-hot choice: (req, gnt, sel, sel_op); ``gnt`` reads ``counts`` at the chosen output."""
        cw, ow, kb = ptr_width(self.n_cand), ptr_width(self.n_out), self.count_bits
        req = Signal(name=f"req_k{k}")
        m.d.comb += req.eq(Cat(*win).any())
        sel = _one_hot_index(m, win, cw, f"sel_k{k}")
        sel_o = _or_select(m, win, ops, ow, f"sel_op_k{k}")
        c_sel = _pick(m, counts, sel_o, kb, f"c_sel_k{k}")
        gnt = Signal(name=f"gnt_k{k}")
        m.d.comb += gnt.eq(req & (c_sel < self.s))
        return req, gnt, sel, sel_o

    # -------------------------------------------------------------- the two structures
    def elaborate(self, platform):
        m = Module()
        if self.impl == "prefix" and self.n_cand == 1:
            return self._prefix_one(m)
        pos = self._front(m)
        if self.impl == "ripple":
            results, final = self._ripple(m, pos)
        else:
            results, final = self._prefix(m, pos)
        self._back(m, results)
        for o in range(self.n_out):
            m.d.comb += self.count_op[o].eq(final[o])
        return m

    def _ripple(self, m: Module, pos):
        """Chain of ``N`` stages; stage ``k`` decides on the running grant counts and increments one."""
        O, mc, kb, cb = self.n_out, self.n_cand, self.count_bits, self.cost_bits
        counts = [Const(0, kb)] * O
        results = []
        for k, (valid, ops, hops, bias, qs) in enumerate(pos):
            # argmin over the candidates in order, keeping the earlier one on ties
            take, best, have = [], None, None
            for j in range(mc):
                seen = _seen_count(m, counts, ops[j], kb, f"c_k{k}_cd{j}")
                cost = Signal(cb, name=f"cost_k{k}_cd{j}")
                m.d.comb += cost.eq((qs[j] + seen) * hops[j] + bias[j])
                t = Signal(name=f"take_k{k}_cd{j}")
                if j == 0:
                    m.d.comb += t.eq(valid[0])
                    best, have = cost, valid[0]
                else:
                    m.d.comb += t.eq(valid[j] & (~have | (cost < best)))
                    nb, nh = Signal(cb, name=f"best_k{k}_cd{j}"), Signal(name=f"have_k{k}_cd{j}")
                    m.d.comb += [nb.eq(Mux(t, cost, best)), nh.eq(have | valid[j])]
                    best, have = nb, nh
                take.append(t)
            win = []
            for j in range(mc):
                later = Cat(*take[j + 1:]).any() if j + 1 < mc else Const(0, 1)
                wj = Signal(name=f"win_k{k}_cd{j}")
                m.d.comb += wj.eq(take[j] & ~later)
                win.append(wj)
            req, gnt, sel, sel_o = self._outcome(m, k, win, ops, counts)
            results.append((req, gnt, sel, sel_o))
            nxt = []
            for o in range(O):
                c = Signal(kb, name=f"cnt_k{k + 1}_op{o}")
                m.d.comb += c.eq(counts[o] + (gnt & (sel_o == o)))
                nxt.append(c)
            counts = nxt
        return results, counts

    def _prefix_one(self, m: Module):
        """``M = 1``, the prefix-sum arbiter, without rotation: no choice depends on a count, so the requesters
        stay in index order. Per output two Ladner-Fischer networks over the requesters' leaves, one over those
        at or after ``start`` (a thermometer mask), one over all; requester ``i``'s count of earlier requesters
        is the first network's exclusive prefix at ``i`` when ``i >= start``, else that network's total plus the
        second's exclusive prefix at ``i`` (the service order ``start .. N-1, 0 .. i-1``)."""
        n, O, S, kb = self.n, self.n_out, self.s, self.count_bits
        ow = ptr_width(O)
        st = Signal(len(self.start), name="start_mod")   # start mod N (start < 2N: one subtraction)
        m.d.comb += st.eq(Mux(self.start >= n, self.start - n, self.start) if (1 << len(self.start)) > n
                          else self.start)
        valid, ops, hi = [], [], []
        for i in range(n):
            o = self.op_rq_cd[i][0]
            v = Signal(name=f"valid_rq{i}")
            m.d.comb += v.eq(self.valid_rq_cd[i][0] & (o < O if (1 << ow) > O else 1))
            h = Signal(name=f"after_start_rq{i}")
            m.d.comb += h.eq(st <= i if i < (1 << len(st)) - 1 else 1)   # no comparison that is constant
            valid.append(v)
            ops.append(o)
            hi.append(h)

        incl_hi, incl_all = [], []   # per output, per requester: the inclusive prefixes of the two networks
        for o in range(O):
            leaf = [Signal(kb, name=f"choose_rq{i}_op{o}") for i in range(n)]   # counts: kb bits wide
            leaf_hi = [Signal(kb, name=f"choose_hi_rq{i}_op{o}") for i in range(n)]
            m.d.comb += [leaf[i].eq(valid[i] & (ops[i] == o)) for i in range(n)]
            m.d.comb += [leaf_hi[i].eq(leaf[i] & hi[i]) for i in range(n)]
            incl_hi.append(_sklansky(leaf_hi, _sat_add(m, S, kb, f"pfxh_op{o}")))
            incl_all.append(_sklansky(leaf, _sat_add(m, S, kb, f"pfxa_op{o}")))
        zero = Const(0, kb)
        for i in range(n):
            c_hi = _pick(m, [incl_hi[o][i - 1] if i else zero for o in range(O)], ops[i], kb, f"c_hi_rq{i}")
            tot = _pick(m, [incl_hi[o][n - 1] for o in range(O)], ops[i], kb, f"c_tot_rq{i}")
            c_lo = _pick(m, [incl_all[o][i - 1] if i else zero for o in range(O)], ops[i], kb, f"c_lo_rq{i}")
            wrapped = Signal(kb + 1, name=f"c_wrap_rq{i}")
            m.d.comb += wrapped.eq(tot + c_lo)
            m.d.comb += [self.req_rq[i].eq(valid[i]),
                         self.gnt_rq[i].eq(valid[i] & Mux(hi[i], c_hi < S, wrapped < S)),
                         self.sel_rq[i].eq(0), self.sel_op_rq[i].eq(Mux(valid[i], ops[i], 0))]
        for o in range(O):
            m.d.comb += self.count_op[o].eq(incl_all[o][n - 1])
        return m

    def _prefix(self, m: Module, pos):
        """Speculative pairwise comparisons, online Ladner-Fischer count networks over the choices."""
        n, O, mc, S, kb = self.n, self.n_out, self.n_cand, self.s, self.count_bits

        # leaves: x[k][o] = requester at position k chooses output o (granted or not); driven below
        leaves = [[Signal(name=f"choose_k{k}_op{o}") for o in range(O)] for k in range(n)]

        incl = [_sklansky([leaves[k][o] for k in range(n)], _sat_add(m, S, kb, f"pfx_op{o}")) for o in range(O)]
        excl = []  # excl[k][o] = min(S, choosers of o before position k) = grants to o before k
        for k in range(n):
            row = []
            for o in range(O):
                e = Signal(kb, name=f"excl_k{k}_op{o}")
                m.d.comb += e.eq(incl[o][k - 1] if k else 0)
                row.append(e)
            excl.append(row)

        results = []
        for k, (valid, ops, hops, bias, qs) in enumerate(pos):
            # off the chain: costs under every hypothesis a in {0..S} of each candidate's count ...
            # (one multiplier per candidate: cost_j(a) = base_j + a·h_j, a constant multiple)
            costs = []
            for j in range(mc):
                base = Signal(self.cost_bits, name=f"cost_k{k}_cd{j}_c0")
                m.d.comb += base.eq(qs[j] * hops[j] + bias[j])
                row = [base]
                for a in range(1, S + 1):
                    c = Signal(self.cost_bits, name=f"cost_k{k}_cd{j}_c{a}")
                    m.d.comb += c.eq(base + a * hops[j])
                    row.append(c)
                costs.append(row)
            # ... and pairwise tables le[j][jp], j < jp: bit (a << kb | b) = cost_j(a) <= cost_jp(b)
            tables = {}
            for j in range(mc):
                for jp in range(j + 1, mc):
                    bits = _le_bits(costs[j], costs[jp], S, kb)
                    t = Signal(len(bits), name=f"le_k{k}_cd{j}_cd{jp}")
                    m.d.comb += t.eq(bits)
                    tables[j, jp] = t
            # on the chain: read the counts, select the comparison bits, AND them
            seen = [_seen_count(m, excl[k], ops[j], kb, f"c_k{k}_cd{j}") if mc > 1 else None
                    for j in range(mc)]
            win = _winners(m, k, valid, tables, seen)
            for o in range(O):
                terms = [win[j] & (ops[j] == o) for j in range(mc)]
                m.d.comb += leaves[k][o].eq(Cat(*terms).any())
            results.append(self._outcome(m, k, win, ops, excl[k]))
        final = []
        for o in range(O):
            f = Signal(kb, name=f"total_op{o}")
            m.d.comb += f.eq(incl[o][n - 1])
            final.append(f)
        return results, final



class WavefrontAllocator(SequentialAllocator):
    """The sequential allocator's function pipelined as a wavefront: one batch in per cycle, its allocation
    :attr:`latency` cycles later.

    Computes, for the inputs presented in cycle ``t``, exactly :func:`seq_alloc_model` of those inputs, on
    its outputs in cycle ``t + latency`` (docs/seq-alloc.md "The wavefront"). Batches are independent: each
    is served on its own ``q0`` from zero counts, so a new batch enters every cycle. The stages, each ending
    in registers:

    1. **rotate** the requests into service order (from ``start``), register them with ``q0``;
    2. **cost** per position and candidate: ``q0[o]`` looked up, the cost under every hypothesis
       ``a in {0..S}`` of its count, ``(q0 + a)·h + b`` (the product as shifted adds, no DSP block);
    3. **compare** the candidates pairwise under every pair of hypotheses (the ``"prefix"`` structure's
       tables, off the chain);
    4. **serve**, ``D = ceil(N / per_stage)`` stages: stage ``d`` serves positions ``d·g .. d·g + g − 1`` in
       order on the grant counts the earlier stages left (registered between stages), each choosing by a
       count select and a table select, granted iff its output's count is ``< S``, then that count
       incremented;
    5. **unrotate** the results to the requesters' indices, into the output registers.

    ``latency = 4 + D``. A serve stage is ``per_stage`` decisions deep; ``per_stage = N`` gives one serve
    stage (the ripple chain over the tables, registered around).

    Parameters
    ----------
    n, n_out, n_cand, s, q_bits, hop_bits, bias_bits
        As :class:`SequentialAllocator`.
    per_stage : int
        ``g``, positions a serve stage decides, ``>= 1``.

    Attributes
    ----------
    latency : int
        Cycles from a batch's inputs to its outputs.
    serve_stages : int
        ``D``.

    Examples
    --------
    >>> w = WavefrontAllocator(16, 16, 2, s=1, per_stage=2)
    >>> w.serve_stages, w.latency
    (8, 12)
    >>> WavefrontAllocator(4, 4, 2, per_stage=0)
    Traceback (most recent call last):
    ...
    ValueError: WavefrontAllocator: per_stage (positions a serve stage decides) must be an int with per_stage >= 1, got 0
    """

    def __init__(self, n: int, n_out: int, n_cand: int, *, s: int = 1, q_bits: int = 8, hop_bits: int = 3,
                 bias_bits: int = 4, per_stage: int = 1):
        self.per_stage = check_int(self, "per_stage", "positions a serve stage decides", per_stage, 1)
        super().__init__(n, n_out, n_cand, s=s, q_bits=q_bits, hop_bits=hop_bits, bias_bits=bias_bits,
                         impl="prefix")
        self.impl = "wavefront"
        self.serve_stages = -(-n // per_stage)
        self.latency = 4 + self.serve_stages

    def elaborate(self, platform):
        m = Module()
        n, O, mc, S, kb = self.n, self.n_out, self.n_cand, self.s, self.count_bits
        ow, hb, bb = ptr_width(self.n_out), self.hop_bits, self.bias_bits

        def reg(value, name):
            r = Signal(len(value), name=name)
            m.d.sync += r.eq(value)
            return r

        # 1. rotate, register with q0 and start
        words = [Cat(self.valid_rq_cd[i], *self.op_rq_cd[i], *self.hops_rq_cd[i], *self.bias_rq_cd[i])
                 for i in range(n)]
        rot_k = [reg(w, f"rot_k{k}") for k, w in enumerate(rotate(m, words, self.start, True, "rot_rq"))]
        q_op = [reg(q, f"rot_q_op{o}") for o, q in enumerate(self.q_op)]
        start = reg(self.start, "start_s1")

        # 2. costs under every hypothesis of the count
        o0, h0, b0 = mc, mc + mc * ow, mc + mc * (ow + hb)
        valid_k_cd, op_k_cd, cost_k_cd = [], [], []
        for k, w in enumerate(rot_k):
            vs, os_, cs = [], [], []
            for j in range(mc):
                o = w[o0 + j * ow:o0 + (j + 1) * ow]
                h = w[h0 + j * hb:h0 + (j + 1) * hb]
                b = w[b0 + j * bb:b0 + (j + 1) * bb]
                in_range = o < O if (1 << ow) > O else Const(1, 1)
                vs.append(reg(w[j] & in_range, f"valid_k{k}_cd{j}_s2"))
                os_.append(reg(o, f"op_k{k}_cd{j}_s2"))
                q = _pick(m, q_op, o, self.q_bits, f"q0_k{k}_cd{j}")
                cs.append([reg(_shift_add(q + a, h) + b, f"cost_k{k}_cd{j}_c{a}") for a in range(S + 1)])
            valid_k_cd.append(vs)
            op_k_cd.append(os_)
            cost_k_cd.append(cs)
        start = reg(start, "start_s2")

        # 3. pairwise tables: bit (a << kb | b) of le[j, jp] is cost_j(a) <= cost_jp(b), j < jp
        tables_k = []
        for k in range(n):
            t = {}
            for j in range(mc):
                for jp in range(j + 1, mc):
                    t[j, jp] = reg(_le_bits(cost_k_cd[k][j], cost_k_cd[k][jp], S, kb), f"le_k{k}_cd{j}_cd{jp}")
            tables_k.append(t)
        valid_k_cd = [[reg(v, f"valid_k{k}_cd{j}_s3") for j, v in enumerate(vs)] for k, vs in enumerate(valid_k_cd)]
        op_k_cd = [[reg(o, f"op_k{k}_cd{j}_s3") for j, o in enumerate(os_)] for k, os_ in enumerate(op_k_cd)]
        start = reg(start, "start_s3")

        # 4. serve: D stages of per_stage positions, counts and results registered between them
        counts = [Const(0, kb)] * O
        results = []   # per position: (req, gnt, sel, sel_op), registered at the stage that decided it
        g = self.per_stage
        for d in range(self.serve_stages):
            done = []
            for k in range(d * g, min(n, (d + 1) * g)):
                valid, ops = valid_k_cd[k], op_k_cd[k]
                seen = [_seen_count(m, counts, ops[j], kb, f"c_k{k}_cd{j}") for j in range(mc)]
                win = _winners(m, k, valid, tables_k[k], seen)
                # granted iff the chosen output's count is below S: an AND-OR of the candidates' own reads
                gnt_cd = [Signal(name=f"gnt_k{k}_cd{j}") for j in range(mc)]
                m.d.comb += [gnt_cd[j].eq(win[j] & (seen[j] < S)) for j in range(mc)]
                req = Signal(name=f"req_k{k}")
                gnt = Signal(name=f"gnt_k{k}")
                m.d.comb += [req.eq(Cat(*win).any()), gnt.eq(Cat(*gnt_cd).any())]
                sel = _one_hot_index(m, win, ptr_width(mc), f"sel_k{k}")
                sel_o = _or_select(m, win, ops, ow, f"sel_op_k{k}")
                nxt = []
                for o in range(O):
                    c = Signal(kb, name=f"cnt_k{k + 1}_op{o}")
                    m.d.comb += c.eq(counts[o] + Cat(*[gnt_cd[j] & (ops[j] == o) for j in range(mc)]).any())
                    nxt.append(c)
                counts = nxt
                done.append((req, gnt, sel, sel_o))
            results = [tuple(reg(x, f"{nm}_k{k}_d{d}") for nm, x in zip(("req", "gnt", "sel", "sel_op"), r))
                       for k, r in enumerate(results + done)]
            counts = [reg(c, f"cnt_op{o}_d{d}") for o, c in enumerate(counts)]
            # the positions still to serve, carried to the next stage
            for k in range((d + 1) * g, n):
                valid_k_cd[k] = [reg(v, f"valid_k{k}_cd{j}_d{d}") for j, v in enumerate(valid_k_cd[k])]
                op_k_cd[k] = [reg(o, f"op_k{k}_cd{j}_d{d}") for j, o in enumerate(op_k_cd[k])]
                tables_k[k] = {jj: reg(t, f"le_k{k}_cd{jj[0]}_cd{jj[1]}_d{d}") for jj, t in tables_k[k].items()}
            start = reg(start, f"start_d{d}")

        # 5. unrotate into the output registers
        cw = ptr_width(mc)
        back = rotate(m, [Cat(*r) for r in results], start, False, "unrot_rq")
        for i in range(n):
            w = back[i]
            m.d.sync += [self.req_rq[i].eq(w[0]), self.gnt_rq[i].eq(w[1]),
                         self.sel_rq[i].eq(w[2:2 + cw]), self.sel_op_rq[i].eq(w[2 + cw:2 + cw + ow])]
        for o in range(O):
            m.d.sync += self.count_op[o].eq(counts[o])
        return m

def build(n: int, impl: str = "ripple", **kw) -> SequentialAllocator:
    """A sequential allocator sized for a radix-``n`` router with UGAL-S candidates.

    ``N = O = n``, ``M = 2`` (minimal and non-minimal route), ``S = 2``, 8-bit
    queue estimates, 3-bit hop weights, 4-bit biases (``θ``); keyword
    arguments override any of these (``n_out``, ``n_cand``, ``s``, ``q_bits``,
    ``hop_bits``, ``bias_bits``).

    Parameters
    ----------
    n : int
        Router radix (requesters and outputs).
    impl : {"ripple", "prefix"}
        The structure.
    **kw
        Overrides of the :class:`SequentialAllocator` parameters.

    Returns
    -------
    SequentialAllocator

    Examples
    --------
    >>> from radixnet.hdl.verilog import to_verilog
    >>> a = build(4, "prefix", s=1)
    >>> a.n, a.n_out, a.n_cand, a.s, a.q_bits, a.hop_bits, a.bias_bits, a.impl
    (4, 4, 2, 1, 8, 3, 4, 'prefix')
    >>> "module alloc4(" in to_verilog(a, "alloc4")
    True
    """
    params = {"n_out": n, "n_cand": 2, "s": 2, "q_bits": 8, "hop_bits": 3, "bias_bits": 4}
    params.update(kw)
    n_out, n_cand = params.pop("n_out"), params.pop("n_cand")
    return SequentialAllocator(n, n_out, n_cand, impl=impl, **params)
