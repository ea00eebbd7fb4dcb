"""Formal checks of the RTL units: bounded model checking with yosys-smtbmc (docs/formal.md).

Each check is a small wrapper that instantiates one unit of ``hdl/``, drives its inputs from free
values (``AnySeq``: any value in every cycle; ``AnyConst``: one arbitrary value for the whole run),
constrains them to the protocol with ``Assume`` and states the unit's behaviour (router-spec §R2,
§R6, §R8b, §R11) with ``Assert`` over shadow registers of its own: a credit or occupancy count, the
cycles a requester has waited, the pointer the round robin should hold, an arbitrary tagged flit.
``Cover`` statements show that the interesting states are reachable, so an assumption that rules
out everything cannot make a check pass.

The flow: :func:`amaranth.back.rtlil.convert`, then Amaranth 0.5's ``$check`` cells rewritten to
the ``$assert``/``$assume``/``$cover`` cells that Yosys 0.23 knows (:func:`lower_checks`), then
``yosys`` (``prep; memory_map; async2sync; dffunmap; write_smt2``) and ``yosys-smtbmc -s z3 --unroll``: bounded model
checking for ``depth`` cycles from reset (``--presat``: the assumptions alone are satisfiable), the
covers (``-c``), and, for the checks marked so, k-induction (``-i``), which proves them for every
cycle. Reset: ``rst`` is high in cycle 0 and low after it.

``python -m radixnet.cosim.formal [--depth N] [--only NAME ...] [--list]`` (``make formal``) runs
them and prints one line per check; exit status 1 when one fails, 2 on bad input.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from amaranth import Cat, Elaboratable, Module, Mux, ResetSignal, Signal, unsigned
from amaranth.back import rtlil
from amaranth.hdl import Assert, Assume, Cover
from amaranth.hdl._ast import AnyConst, AnySeq, Initial  # not re-exported by amaranth.hdl in 0.5
from amaranth.lib import data

from ..hdl.alloc import InputSelect, OutputArbiter
from ..hdl.arbiter import RoundRobinArbiter, RoundRobinMultiArbiter, ptr_width
from ..hdl.credits import CreditCounter
from ..hdl.input_unit import FrontInputUnit, InputUnit
from ..hdl.output_queue import OutputQueue
from ..hdl.seq_alloc import SequentialAllocator, WavefrontAllocator

__all__ = ["CHECKS", "Check", "Result", "FormalError", "available", "lower_checks", "main", "run_check",
           "credit_top", "credit_error_top", "arbiter_top", "output_arbiter_top", "input_select_top",
           "output_queue_top", "input_unit_top", "seq_alloc_top", "seq_alloc_equiv_top", "seq_alloc_wavefront_top", "output_arbiter_alt_top"]

SOLVER = "z3"
#: yosys-smtbmc options for every run: with z3 4.8, inlined functions (``--unroll``) are several times
#: faster on these designs (and far faster on the first query); checks with ``noincr`` also restart
#: the solver for every query
SMTBMC_FLAGS = ("--unroll",)
#: seconds one solver run may take before the check counts as failed
TIMEOUT = 900
#: memories as flip-flops (bit vectors, not SMT arrays)
YOSYS_EXTRA = "memory_map; opt -fast; "
ROOT = Path(__file__).resolve().parents[1]


class FormalError(Exception):
    """A tool is missing or failed outside the proof (message: one line)."""


# ------------------------------------------------------------------ wrapper helpers
def _free(m: Module, shape, name: str, *, const: bool = False) -> Signal:
    """A signal driven by one free value: any value each cycle (``AnySeq``) or one for the run (``AnyConst``)."""
    sig = Signal(shape, name=name)
    width = len(sig)
    m.d.comb += sig.eq((AnyConst if const else AnySeq)(width))
    return sig


def _reset_first(m: Module):
    """``rst`` high in cycle 0 and low after it (the registers also start at their init values)."""
    m.d.comb += Assume(ResetSignal() == Initial())


def _popcount(v, n: int):
    return sum(v[i] for i in range(n))


def _order(m: Module, ptr, n: int, name: str) -> dict:
    """``before[i, j]``: requester ``i`` precedes ``j`` in round-robin order from ``ptr`` (§R6).

    Comparisons of ``ptr`` with constants, no arithmetic on it (the solver handles them far better).
    """
    before = {}
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            b = Signal(name=f"{name}_{i}_{j}")
            if i < j:   # i first unless the order starts in (i, j]
                m.d.comb += b.eq(~((ptr > i) & (ptr <= j)))
            else:       # j first unless the order starts in (j, i]
                m.d.comb += b.eq((ptr > j) & (ptr <= i))
            before[i, j] = b
    return before


def _wait_counter(m: Module, waiting, tick, limit: int, name: str) -> Signal:
    """Cycles with ``tick`` during which ``waiting`` held without a break (saturating at ``limit + 1``)."""
    w = Signal(range(limit + 2), name=name)
    with m.If(~waiting):
        m.d.sync += w.eq(0)
    with m.Elif(tick & (w <= limit)):
        m.d.sync += w.eq(w + 1)
    return w


def _progress(m: Module, ptr, waits, n: int, k: int, what: str):
    """The invariant behind fairness: ``k * wait[i] + rank[i] <= n - 1`` (``rank``: position from ``ptr``).

    Every grant cycle that passes over a waiting requester grants ``k`` requesters ahead of it and
    moves the pointer past them, so its rank drops by ``k`` or more. Inductive, unlike the bound.
    """
    for i, w in enumerate(waits):
        for p in range(n):
            rank = (i - p) % n
            m.d.comb += Assert(~(ptr == p) | (w <= (n - 1 - rank) // k), f"{what}: {i} nearer the pointer each wait")


def _next_after_last(m: Module, gnt, before: dict, n: int, name: str) -> Signal:
    """One past the last granted requester in round-robin order, modulo ``n`` (where a §R6 pointer moves)."""
    nxt = Signal(ptr_width(n), name=name)
    for i in range(n):
        later = [gnt[k] & before[i, k] for k in range(n) if k != i]
        last = gnt[i] & ~Cat(*later).any() if later else gnt[i]
        with m.If(last):
            m.d.comb += nxt.eq((i + 1) % n)
    return nxt


def _assert_first_in_order(m: Module, chosen, wanting, before: dict, n: int, msg: str) -> None:
    """No requester that wanted and was not chosen precedes a chosen one in round-robin order (§R6)."""
    for i in range(n):
        for j in range(n):
            if i != j:
                m.d.comb += Assert(~(chosen[i] & wanting[j] & ~chosen[j] & before[j, i]), msg)


def _expected_ptr(m: Module, chosen, before: dict, n: int, when) -> Signal:
    """The pointer §R6 predicts: a register moved to one past the last ``chosen`` in the cycles ``when`` holds
    (``when`` None: never moved)."""
    expect = Signal(ptr_width(n), name="ptr_expect")
    nxt = _next_after_last(m, chosen, before, n, "ptr_expect_next")
    if when is not None:
        with m.If(when):
            m.d.sync += expect.eq(nxt)
    return expect


class _Top(Elaboratable):
    """An elaboratable built by a function of a fresh :class:`Module` (the wrappers below)."""

    def __init__(self, body: Callable[[Module], None]):
        self.body = body

    def elaborate(self, platform):
        m = Module()
        self.body(m)
        return m


# ------------------------------------------------------------------ credit counters (§R2, §R8b)
def credit_top(depth: int = 3, takes: int = 1, thresholds: int = 0, unit=None) -> Elaboratable:
    """CreditCounter under the credit protocol: no credit is lost, made up, or taken twice (§R2, §R8b).

    A shadow ``out`` counts the credits downstream (flits granted, credit not yet back). Assumed:
    a grant takes only available credits (``take`` needs ``avail``; with ``takes > 1``,
    ``take <= count``) and a credit returns only for a flit granted in an earlier cycle
    (``ret <= out``). Asserted: ``count + out == depth`` in every cycle (so ``count`` stays in
    ``0 .. depth`` and every credit comes home), ``avail == (count > 0)``, no ``error``, and the
    registered ``ge`` bits equal ``count >= k``. Covered: every credit out, then every one back.

    ``unit`` replaces the counter (a broken one, to see the check fail); it needs the same ports.
    """
    def body(m):
        cc = unit if unit is not None else CreditCounter(depth, takes=takes, thresholds=thresholds)
        m.submodules.dut = cc
        _reset_first(m)
        take, ret = _free(m, len(cc.take), "take"), _free(m, 1, "ret")
        m.d.comb += [cc.take.eq(take), cc.ret.eq(ret)]
        out = Signal(range(2 * depth + 2), name="outstanding")
        m.d.sync += out.eq(out + take - ret)
        m.d.comb += Assume(~take | cc.avail if takes == 1 else take <= cc.count)
        m.d.comb += Assume(ret <= out)
        m.d.comb += [
            Assert(cc.count + out == depth, "credits: count + outstanding == depth"),
            Assert(cc.avail == (cc.count != 0), "credits: avail == (count > 0)"),
            Assert(~cc.error, "credits: no error under the protocol"),
        ]
        for k in range(1, thresholds + 1):
            m.d.comb += Assert(cc.ge[k - 1] == (cc.count >= k), f"credits: ge[{k - 1}] == (count >= {k})")
        drained = Signal(name="drained")
        with m.If(cc.count == 0):
            m.d.sync += drained.eq(1)
        m.d.comb += [Cover(cc.count == 0), Cover(drained & (cc.count == depth))]
    return _Top(body)


def credit_error_top(depth: int = 3, takes: int = 1) -> Elaboratable:
    """CreditCounter off the protocol: it saturates and flags every underflow and overflow (module doc).

    Nothing is assumed about ``take`` and ``ret``. A shadow ``seen`` records whether a violation
    happened (``take`` with fewer credits than it takes; ``ret`` with every credit home and, with
    ``takes > 1``, no ``take``). Asserted: ``count`` stays in ``0 .. depth``, ``error == seen``
    (sticky), a cycle without violation moves ``count`` by ``ret - take`` and one with a violation
    leaves it unchanged. Covered: an ``error``.
    """
    def body(m):
        cc = CreditCounter(depth, takes=takes, check=False)
        m.submodules.dut = cc
        _reset_first(m)
        take, ret = _free(m, len(cc.take), "take"), _free(m, 1, "ret")
        m.d.comb += [cc.take.eq(take), cc.ret.eq(ret)]
        viol = Signal(name="violation")
        if takes == 1:
            m.d.comb += viol.eq((take & (cc.count == 0)) | (ret & (cc.count == depth)))
        else:
            m.d.comb += viol.eq((take > cc.count) | (ret & (cc.count - take == depth)))
        seen = Signal(name="seen")
        prev, prev_viol = Signal.like(cc.count, name="prev_count"), Signal(name="prev_violation")
        prev_take, prev_ret = Signal.like(take, name="prev_take"), Signal(name="prev_ret")
        started = Signal(name="started")
        m.d.sync += [prev.eq(cc.count), prev_viol.eq(viol), prev_take.eq(take), prev_ret.eq(ret),
                     started.eq(~ResetSignal())]
        with m.If(viol):
            m.d.sync += seen.eq(1)
        m.d.comb += [
            Assert(cc.count <= depth, "credits: count never beyond depth"),
            Assert(cc.error == seen, "credits: error is set by, and only by, a violation"),
            Assert(~started | Mux(prev_viol, cc.count == prev, cc.count == prev - prev_take + prev_ret),
                   "credits: count moves by ret - take, held on a violation"),
            Cover(cc.error),
        ]
    return _Top(body)


# ------------------------------------------------------------------ round-robin arbiters (§R6)
def arbiter_top(n: int = 4, s: int = 1, bound: int | None = None, unit=None) -> Elaboratable:
    """RoundRobinArbiter (``s = 1``) or RoundRobinMultiArbiter: §R6's round robin, exactly, and fair.

    Asserted: ``gnt`` is a subset of ``req`` with ``min(s, popcount(req))`` bits (one-hot for
    ``s = 1``, none without requests); every granted requester precedes every requesting,
    non-granted one in round-robin order from ``ptr``; ``ptr < n``; after a cycle with ``update``
    and a request, ``ptr`` is one past the last granted (a shadow pointer), else unchanged.
    Fairness: a requester that keeps requesting waits at most ``bound`` committed grant cycles
    (``update`` with a request), default ``ceil((n - 1) / s)``; covered: a wait of exactly
    ``bound`` (the bound is tight).

    ``unit`` replaces the arbiter (same ports: ``req``, ``update``, ``gnt``, ``ptr``).
    """
    k = min(s, n)
    bound = (n - 1) // k if bound is None else bound

    def body(m):
        arb = unit if unit is not None else (RoundRobinArbiter(n) if s == 1 else RoundRobinMultiArbiter(n, s))
        m.submodules.dut = arb
        _reset_first(m)
        req, update = _free(m, n, "req"), _free(m, 1, "update")
        m.d.comb += [arb.req.eq(req), arb.update.eq(update)]
        gnt = Signal(n, name="gnt")
        m.d.comb += gnt.eq(arb.gnt)
        before = _order(m, arb.ptr, n, "before")
        pc_req, pc_gnt = _popcount(req, n), _popcount(gnt, n)
        m.d.comb += [
            Assert((gnt & ~req) == 0, "arbiter: grants only requesters"),
            Assert(pc_gnt == Mux(pc_req < k, pc_req, k), "arbiter: min(s, requests) grants (one-hot for s = 1)"),
            Assert(arb.ptr < n, "arbiter: ptr < n"),
        ]
        _assert_first_in_order(m, gnt, req, before, n, "arbiter: grants the first requesters in round-robin order")
        # the pointer (§R6 step 4)
        commit = Signal(name="commit")
        m.d.comb += commit.eq(update & req.any())
        expect = _expected_ptr(m, gnt, before, n, commit)
        m.d.comb += Assert(arb.ptr == expect, "arbiter: ptr moves to one past the last grant, on update")
        # fairness
        waits = [_wait_counter(m, req[i] & ~gnt[i], commit, bound, f"wait_{i}") for i in range(n)]
        for i, w in enumerate(waits):
            m.d.comb += Assert(w <= bound, f"arbiter: requester {i} granted within {bound} grant cycles")
        _progress(m, arb.ptr, waits, n, k, "arbiter: requester")
        m.d.comb += Cover(waits[n - 1] == bound)
    return _Top(body)


def output_arbiter_top(n_inputs: int = 3, s: int = 2, frozen: bool = False, second_blocks: bool = False) -> Elaboratable:
    """GO's OutputArbiter (§R11.3, §R8b): first and second grant in round-robin order, fair per input.

    Lanes ``p * s + j``; rank of a lane: its input's position from ``ptr``, then its lane.
    Asserted: ``first`` is one-hot (none without requests), a request, and no request precedes it;
    ``second`` is at most one of ``req & ~first & second_ok``, after ``first``, with none of those
    between them, and present whenever one of those exists; ``ptr`` is one past the input of the
    last grant after a cycle with a request (a shadow pointer). Fairness: an input that keeps a
    request (on any lane) waits at most ``n_inputs - 1`` cycles; covered: such a wait.

    ``frozen=True`` builds the router's fixed-priority fault, which fails the pointer and fairness.
    """
    P, S = n_inputs, s
    n = P * S

    def body(m):
        arb = OutputArbiter(P, S, frozen=frozen)
        m.submodules.dut = arb
        _reset_first(m)
        req = _free(m, n, "req")
        m.d.comb += arb.req.eq(req)
        ok = _free(m, n, "second_ok") if S > 1 else None
        if S > 1:
            m.d.comb += arb.second_ok.eq(ok)
        first, second = Signal(n, name="first"), Signal(n, name="second")
        m.d.comb += [first.eq(arb.first), second.eq(arb.second)]
        in_before = _order(m, arb.ptr, P, "in_before")
        before = {(i, j): in_before[i // S, j // S] if i // S != j // S else int(i < j)
                  for i in range(n) for j in range(n) if i != j}
        m.d.comb += [
            Assert(arb.ptr < P, "go: ptr < inputs"),
            Assert((first & ~req) == 0, "go: first grant is a request"),
            Assert(_popcount(first, n) <= 1, "go: first grant one-hot"),
            Assert(~req.any() | first.any(), "go: a request gets a first grant"),
        ]
        cand2 = Signal(n, name="cand2")
        m.d.comb += cand2.eq(req & ~first & (ok if S > 1 else 0))
        if S > 1:
            m.d.comb += [
                Assert((second & ~cand2) == 0, "go: second grant is a request the first left grantable"),
                Assert(_popcount(second, n) <= 1, "go: second grant one-hot"),
                Assert(~cand2.any() | second.any(), "go: a grantable second request gets the second grant"),
            ]
        else:
            m.d.comb += Assert(second == 0, "go: no second grant with s = 1")
        for i in range(n):
            for j in range(n):
                if i != j:
                    m.d.comb += Assert(~(first[j] & req[i] & before[i, j]),
                                       "go: no request precedes the first grant")
                    m.d.comb += Assert(~(first[j] & second[i] & before[i, j]),
                                       "go: second grant after the first")
                    m.d.comb += Assert(~(second[j] & cand2[i] & before[i, j]),
                                       "go: no grantable request between first and second")
        last = Signal(n, name="last")
        m.d.comb += last.eq(Mux(second.any(), second, first))
        in_last = Signal(P, name="in_last")
        m.d.comb += in_last.eq(Cat(*[last[p * S:(p + 1) * S].any() for p in range(P)]))
        expect = Signal(ptr_width(P), name="ptr_expect")
        nxt = _next_after_last(m, in_last, in_before, P, "ptr_expect_next")
        with m.If(req.any()):
            m.d.sync += expect.eq(nxt)
        m.d.comb += Assert(arb.ptr == expect, "go: ptr moves to one past the last input granted")
        granted = first | second
        waits = []
        for p in range(P):
            lanes = slice(p * S, (p + 1) * S)
            pending = req[lanes].any() & ~granted[lanes].any()
            if S > 1 and not second_blocks:   # a request the first grant left ungrantable restarts the count
                pending = pending & cand2[lanes].any()
            waits.append(_wait_counter(m, pending, 1, P - 1, f"wait_in{p}"))
            m.d.comb += Assert(waits[p] <= P - 1, f"go: input {p} granted within {P - 1} cycles")
        _progress(m, arb.ptr, waits, P, 1, "go: input")
        m.d.comb += Cover(waits[P - 1] == P - 1)
    return _Top(body)


def output_arbiter_alt_top(n_inputs: int = 4) -> Elaboratable:
    """GO's OutputArbiter with two request vectors (``alt``, §R11.3) equals the plain one on the vector chosen.

    Both read the same free ``req``, ``req_alt`` and ``use_alt``; the plain arbiter's requests are
    ``req_alt`` when ``use_alt``, else ``req``. Asserted every cycle: ``first`` and ``ptr`` equal, and
    the chosen vector's one-hot halves (``alt_first_hl`` or ``first_hl``) the plain ``first_hl``.
    Covered: a grant of the other vector's first request differs from this one's.
    """
    P = n_inputs

    def body(m):
        two, ref = OutputArbiter(P, 1, alt=True), OutputArbiter(P, 1)
        m.submodules.dut, m.submodules.ref = two, ref
        _reset_first(m)
        req, req_alt, use_alt = _free(m, P, "req"), _free(m, P, "req_alt"), _free(m, 1, "use_alt")
        m.d.comb += [two.req.eq(req), two.req_alt.eq(req_alt), two.use_alt.eq(use_alt),
                     ref.req.eq(Mux(use_alt, req_alt, req))]
        m.d.comb += [Assert(two.first == ref.first, "go alt: first == plain arbiter's on the chosen requests"),
                     Assert(two.ptr == ref.ptr, "go alt: ptr == plain arbiter's"),
                     Assert(Mux(use_alt, two.alt_first_hl, two.first_hl) == ref.first_hl,
                            "go alt: the chosen chain's halves == plain first_hl")]
        m.d.comb += Cover(use_alt & (two.alt_first_hl != two.first_hl) & (two.ptr != 0))
    return _Top(body)


def input_select_top(n: int = 4, s: int = 2, bound: int | None = None) -> Elaboratable:
    """RI's InputSelect (§R11.2): up to ``s`` distinct eligible VCs in round-robin order, fair.

    Asserted: each lane's pick is one-hot within ``elig``, the picks are disjoint, lane ``j`` picks
    iff more than ``j`` are eligible, lanes follow round-robin order from ``ptr`` and no eligible,
    unpicked VC precedes a pick; ``ptr`` is one past the last pick after a cycle with an eligible
    VC (a shadow pointer). Fairness: a VC eligible without a break is picked within ``bound``
    cycles (default ``ceil((n - 1) / s)``); covered: a wait of ``bound``.
    """
    k = min(s, n)
    bound = (n - 1) // k if bound is None else bound

    def body(m):
        sel = InputSelect(n, s)
        m.submodules.dut = sel
        _reset_first(m)
        elig = _free(m, n, "elig")
        m.d.comb += sel.elig.eq(elig)
        picks = []
        for j in range(s):
            p = Signal(n, name=f"pick_{j}")
            m.d.comb += p.eq(sel.pick[j])
            picks.append(p)
        before = _order(m, sel.ptr, n, "before")
        picked = Signal(n, name="picked")
        m.d.comb += picked.eq(_or(picks))
        pc = _popcount(elig, n)
        m.d.comb += Assert(sel.ptr < n, "ri: ptr < n")
        for j, p in enumerate(picks):
            m.d.comb += [
                Assert((p & ~elig) == 0, f"ri: lane {j} picks an eligible VC"),
                Assert(_popcount(p, n) <= 1, f"ri: lane {j} one-hot"),
                Assert(p.any() == (pc > j), f"ri: lane {j} picks iff more than {j} eligible"),
            ]
            for jj in range(j):
                m.d.comb += Assert((p & picks[jj]) == 0, f"ri: lanes {jj} and {j} pick distinct VCs")
                for a in range(n):
                    for b in range(n):
                        if a != b:
                            m.d.comb += Assert(~(picks[jj][a] & p[b] & before[b, a]),
                                               f"ri: lane {jj} before lane {j} in round-robin order")
        _assert_first_in_order(m, picked, elig, before, n, "ri: picks the first eligible VCs in round-robin order")
        expect = _expected_ptr(m, picked, before, n, elig.any() if n > 1 else None)
        m.d.comb += Assert(sel.ptr == expect, "ri: ptr moves to one past the last pick")
        waits = [_wait_counter(m, elig[i] & ~picked[i], 1, bound, f"wait_{i}") for i in range(n)]
        for i, w in enumerate(waits):
            m.d.comb += Assert(w <= bound, f"ri: VC {i} picked within {bound} cycles")
        _progress(m, sel.ptr, waits, n, k, "ri: VC")
        m.d.comb += Cover(waits[n - 1] == bound)
    return _Top(body)


def _or(values):
    out = values[0]
    for v in values[1:]:
        out = out | v
    return out


# ------------------------------------------------------------------ FIFOs (§R2, §R8a, §R8b)
def output_queue_top(depth: int = 4, lanes: int = 2, bypass: bool = False, width: int = 2) -> Elaboratable:
    """OutputQueue: in order, nothing lost or duplicated, occupancy exact (§R2 phase 3, §R8b).

    Assumed: lanes written from lane 0 up, no write that would overfill (the allocator's
    guarantee). Shadows: ``occ`` (writes minus reads) and one **tracked** flit, chosen freely
    among the flits written (``pick``, a free value: the proof covers every choice): its value and
    its place ``pos`` in the queue (0: the oldest). Asserted: ``count == occ``; a flit is on the
    link whenever one is held (or, with ``bypass``, one is granted into an empty queue); no
    ``error``; the tracked flit stays in the queue (``pos < occ``), moves up one place per read
    and, when it is the oldest, is the flit read, bit for bit; with ``bypass`` a flit written into
    an empty queue is read in the same cycle. Covered: a full queue; the tracked flit leaving after
    the queue was full.
    """
    def body(m):
        q = OutputQueue(depth, lanes, unsigned(width), bypass=bypass)
        m.submodules.dut = q
        _reset_first(m)
        valid = _free(m, lanes, "in_valid")
        flits = [_free(m, width, f"in_flit_{j}") for j in range(lanes)]
        m.d.comb += q.in_valid_lane.eq(valid)
        m.d.comb += [q.in_flit_lane[j].eq(flits[j]) for j in range(lanes)]
        for j in range(1, lanes):
            m.d.comb += Assume(~valid[j] | valid[j - 1])
        n_in = _popcount(valid, lanes)
        m.d.comb += Assume(q.count + n_in - q.out_valid <= depth)
        occ = Signal(range(depth + lanes + 2), name="occ")
        m.d.sync += occ.eq(occ + n_in - q.out_valid)
        m.d.comb += [
            Assert(q.count == occ, "oq: count == writes - reads"),
            Assert(q.out_valid == ((occ != 0) | (valid[0] if bypass else 0)), "oq: the oldest flit on the link"),
            Assert(~q.error, "oq: no error under the protocol"),
        ]
        through = Signal(name="bypassed")   # lane 0 into an empty queue leaves at once
        m.d.comb += through.eq(valid[0] & (occ == 0) if bypass else 0)
        m.d.comb += Assert(~through | (q.out_flit == flits[0]), "oq: a flit into an empty queue leaves at once")
        tracking, pos, val = Signal(name="tracking"), Signal(range(depth + 1), name="pos"), Signal(width, name="val")
        pick = _free(m, range(lanes + 1), "pick")   # 1 + lane of the flit to track (0: none)
        leaving = Signal(name="tracked_leaving")
        m.d.comb += leaving.eq(tracking & (pos == 0) & q.out_valid)
        m.d.comb += [
            Assert(~tracking | (pos < occ), "oq: the tracked flit is in the queue"),
            Assert(~leaving | (q.out_flit == val), "oq: the oldest flit read first, unchanged"),
        ]
        with m.If(leaving):
            m.d.sync += tracking.eq(0)
        with m.Elif(tracking & q.out_valid):
            m.d.sync += pos.eq(pos - 1)
        for j in range(lanes):
            with m.If(~tracking & valid[j] & (pick == j + 1) & (~through if j == 0 else 1)):
                m.d.sync += [tracking.eq(1), val.eq(flits[j]), pos.eq(occ + j - q.out_valid)]
        was_full = Signal(name="was_full")
        with m.If(q.count == depth):
            m.d.sync += was_full.eq(1)
        m.d.comb += [Cover(q.count == depth), Cover(leaving & was_full)]
    return _Top(body)


def input_unit_top(n_vcs: int = 2, depth: int = 3, front: bool = False, width: int = 2,
                   fronts: int = 2, ram: str = "lut") -> Elaboratable:
    """InputUnit (``front=False``) or FrontInputUnit: per VC a FIFO, in order, nothing lost (§R2, §R8a).

    Flit: a ``vc`` field and ``width`` data bits. Assumed: a flit arrives only at a VC with a
    slot free at the start of the cycle, its ``vc < n_vcs``, and a pop only of a VC holding a flit.
    Shadows per VC: the occupancy and one tracked flit (chosen freely among the arrivals) with its
    place ``pos`` (0: the front). Asserted per VC: ``count == occupancy``; ``front_valid`` (the
    ``nge`` bits of the front unit) follow the occupancy at the start of the cycle, so an arriving
    flit is at the front from the next cycle on, never in its arrival cycle; ``credit_ret == pop``;
    the tracked flit stays in the buffer (``pos < count``), moves up one place per pop, and is the
    front flit when ``pos == 0`` (with ``front``: ``front1`` when ``pos == 1``); no ``error``. With
    ``front`` the entries carry a 2-bit side-band, tracked with the flit (the third entry's is a register
    of its own; with ``fronts = 3`` the whole third entry is; ``ram`` holds the entries behind, router-spec
    §R11.1a).
    Covered per VC: a full buffer; the tracked flit popped after the buffer was full.
    """
    layout = data.StructLayout({"vc": ptr_width(n_vcs), "data": width})

    def body(m):
        u = (FrontInputUnit(n_vcs, depth, layout, side_shape=unsigned(2), fronts=fronts, ram=ram) if front else
             InputUnit(n_vcs, depth, layout))
        m.submodules.dut = u
        _reset_first(m)
        in_valid = _free(m, 1, "in_valid")
        flit = _free(m, layout.size, "in_flit")
        pop = _free(m, n_vcs, "pop")
        m.d.comb += [u.in_valid.eq(in_valid), u.in_flit.eq(flit), u.pop_ivc.eq(pop)]
        entry = flit
        if front:
            side = _free(m, 2, "in_side")
            m.d.comb += u.in_side.eq(side)
            entry = Cat(flit, side)
        vc = flit[:ptr_width(n_vcs)]
        m.d.comb += Assume(~in_valid | (vc < n_vcs))
        m.d.comb += Assert(~u.error, "iu: no error under the protocol")
        pick = _free(m, n_vcs, "pick")   # bit v: track this arrival on VC v
        for v in range(n_vcs):
            count = u.count_ivc[v]
            arrive = in_valid & (vc == v)
            m.d.comb += [Assume(~arrive | (count != depth)), Assume(~pop[v] | (count != 0))]
            occ = Signal(range(depth + 2), name=f"occ_{v}")
            m.d.sync += occ.eq(occ + arrive - pop[v])
            tracking, pos = Signal(name=f"tracking_{v}"), Signal(range(depth + 1), name=f"pos_{v}")
            val = Signal(len(entry), name=f"val_{v}")
            if front:
                head = u.front0_ivc[v]
                m.d.comb += [Assert(u.nge_ivc[v][k - 1] == (occ >= k), f"iu: VC {v} nge[{k - 1}] == (count >= {k})")
                             for k in range(1, 4)]
                m.d.comb += Assert(~(tracking & (pos == 1)) | (u.front1_ivc[v] == val),
                                   f"iu: VC {v} second flit in order")
            else:
                head = u.front_flit_ivc[v].as_value()
                m.d.comb += Assert(u.front_valid_ivc[v] == (occ != 0), f"iu: VC {v} front valid iff it holds a flit")
            m.d.comb += [
                Assert(count == occ, f"iu: VC {v} count == arrivals - pops"),
                Assert(u.credit_ret_ivc[v] == pop[v], f"iu: VC {v} a credit per pop"),
                Assert(~tracking | (pos < occ), f"iu: VC {v} the tracked flit is in the buffer"),
                Assert(~(tracking & (pos == 0)) | (head == val), f"iu: VC {v} front flit in arrival order"),
            ]
            leaving = Signal(name=f"tracked_leaving_{v}")
            m.d.comb += leaving.eq(tracking & (pos == 0) & pop[v])
            with m.If(leaving):
                m.d.sync += tracking.eq(0)
            with m.Elif(tracking & pop[v]):
                m.d.sync += pos.eq(pos - 1)
            with m.If(~tracking & arrive & pick[v]):
                m.d.sync += [tracking.eq(1), val.eq(entry), pos.eq(occ - pop[v])]
            was_full = Signal(name=f"was_full_{v}")
            with m.If(count == depth):
                m.d.sync += was_full.eq(1)
            m.d.comb += [Cover(count == depth), Cover(leaving & was_full)]
    return _Top(body)


# ------------------------------------------------------------------ sequential allocator (§R6, §R8b)
_SA_WIDTHS = {"q_bits": 2, "hop_bits": 2, "bias_bits": 2}


def _sa_inputs(m: Module, n: int, n_out: int, n_cand: int, q_bits: int, hop_bits: int, bias_bits: int) -> dict:
    ow = ptr_width(n_out)
    return {
        "start": _free(m, ptr_width(n), "start"),
        "q": [_free(m, q_bits, f"q_{o}") for o in range(n_out)],
        "valid": [_free(m, n_cand, f"valid_{i}") for i in range(n)],
        "op": [[_free(m, ow, f"op_{i}_{j}") for j in range(n_cand)] for i in range(n)],
        "hops": [[_free(m, hop_bits, f"hops_{i}_{j}") for j in range(n_cand)] for i in range(n)],
        "bias": [[_free(m, bias_bits, f"bias_{i}_{j}") for j in range(n_cand)] for i in range(n)],
    }


def _sa_drive(m: Module, sa: SequentialAllocator, ins: dict):
    n, n_out, mc = sa.n, sa.n_out, sa.n_cand
    m.d.comb += sa.start.eq(ins["start"])
    m.d.comb += [sa.q_op[o].eq(ins["q"][o]) for o in range(n_out)]
    for i in range(n):
        m.d.comb += sa.valid_rq_cd[i].eq(ins["valid"][i])
        for j in range(mc):
            m.d.comb += [sa.op_rq_cd[i][j].eq(ins["op"][i][j]), sa.hops_rq_cd[i][j].eq(ins["hops"][i][j]),
                         sa.bias_rq_cd[i][j].eq(ins["bias"][i][j])]


def seq_alloc_top(n: int = 4, n_out: int = 3, n_cand: int = 2, s: int = 1, impl: str = "ripple",
                  widths: dict | None = None) -> Elaboratable:
    """SequentialAllocator (combinational): no output granted more than ``S`` times, grants well formed (§R6).

    All inputs free. Asserted per requester: it requests iff it has a valid candidate with an
    output ``< n_out``; a grant only to a requester; its choice is one of its valid candidates and
    ``sel_op`` that candidate's output; a requester that waits chose an output with ``S`` grants
    (capacity is the only reason to wait). Per output: ``count_op`` equals the grants to it and is
    at most ``S`` (with ``S = 1``: never granted twice). Covered: an output granted ``S`` times
    while a requester waits.
    """
    w = dict(_SA_WIDTHS if widths is None else widths)

    def body(m):
        sa = SequentialAllocator(n, n_out, n_cand, s=s, impl=impl, **w)
        m.submodules.dut = sa
        ins = _sa_inputs(m, n, n_out, n_cand, **w)
        _sa_drive(m, sa, ins)
        cw = ptr_width(n_cand)
        for i in range(n):
            has = Cat(*[ins["valid"][i][j] & (ins["op"][i][j] < n_out) for j in range(n_cand)]).any()
            m.d.comb += [
                Assert(sa.req_rq[i] == has, f"sa: requester {i} requests iff it has a valid candidate"),
                Assert(~sa.gnt_rq[i] | sa.req_rq[i], f"sa: grant to requester {i} only with a request"),
            ]
            if (1 << cw) > n_cand:
                m.d.comb += Assert(~sa.req_rq[i] | (sa.sel_rq[i] < n_cand), f"sa: requester {i} chooses a candidate")
            for j in range(n_cand):
                chosen = sa.req_rq[i] & (sa.sel_rq[i] == j)
                m.d.comb += Assert(~chosen | (ins["valid"][i][j] & (ins["op"][i][j] == sa.sel_op_rq[i])
                                              & (ins["op"][i][j] < n_out)),
                                   f"sa: requester {i} chose a valid candidate, sel_op its output")
            for o in range(n_out):
                m.d.comb += Assert(~(sa.req_rq[i] & ~sa.gnt_rq[i] & (sa.sel_op_rq[i] == o)) | (sa.count_op[o] == s),
                                   f"sa: requester {i} waits only on a full output")
        for o in range(n_out):
            grants = _popcount(Cat(*[sa.gnt_rq[i] & (sa.sel_op_rq[i] == o) for i in range(n)]), n)
            m.d.comb += [
                Assert(sa.count_op[o] == grants, f"sa: count_op[{o}] == grants to output {o}"),
                Assert(sa.count_op[o] <= s, f"sa: output {o} granted at most S = {s} times"),
            ]
        m.d.comb += Cover((sa.count_op[0] == s) & (sa.req_rq & ~sa.gnt_rq).any())
    return _Top(body)


def seq_alloc_equiv_top(n: int = 4, n_out: int = 3, n_cand: int = 2, s: int = 1,
                        widths: dict | None = None) -> Elaboratable:
    """The ripple and prefix SequentialAllocator agree on every output, for every input (§R6 sequential).

    Both structures read the same free inputs; asserted: ``req``, ``gnt``, ``sel``, ``sel_op`` and
    ``count_op`` are equal bit for bit. Covered: a cycle with a waiting requester.
    """
    w = dict(_SA_WIDTHS if widths is None else widths)

    def body(m):
        a = SequentialAllocator(n, n_out, n_cand, s=s, impl="ripple", **w)
        b = SequentialAllocator(n, n_out, n_cand, s=s, impl="prefix", **w)
        m.submodules.ripple, m.submodules.prefix = a, b
        ins = _sa_inputs(m, n, n_out, n_cand, **w)
        _sa_drive(m, a, ins)
        _sa_drive(m, b, ins)
        m.d.comb += [Assert(a.req_rq == b.req_rq, "sa: ripple == prefix (req)"),
                     Assert(a.gnt_rq == b.gnt_rq, "sa: ripple == prefix (gnt)")]
        for i in range(n):
            m.d.comb += [Assert(a.sel_rq[i] == b.sel_rq[i], f"sa: ripple == prefix (sel {i})"),
                         Assert(a.sel_op_rq[i] == b.sel_op_rq[i], f"sa: ripple == prefix (sel_op {i})")]
        for o in range(n_out):
            m.d.comb += Assert(a.count_op[o] == b.count_op[o], f"sa: ripple == prefix (count {o})")
        m.d.comb += Cover((a.req_rq & ~a.gnt_rq).any())
    return _Top(body)


def seq_alloc_wavefront_top(n: int = 4, n_out: int = 3, n_cand: int = 2, s: int = 1, per_stage: int = 2,
                            widths: dict | None = None) -> Elaboratable:
    """The WavefrontAllocator's outputs in every cycle are the prefix SequentialAllocator's of the inputs
    ``latency`` cycles earlier (docs/seq-alloc.md "The wavefront"), for every input sequence.

    Both read the same free inputs (any value in every cycle); the prefix structure's outputs go through
    ``latency`` registers that start at zero, as the wavefront's registers do (before the first batch
    arrives both show an empty allocation). Covered: a delayed cycle with a waiting requester.
    """
    w = dict(_SA_WIDTHS if widths is None else widths)

    def body(m):
        ref = SequentialAllocator(n, n_out, n_cand, s=s, impl="prefix", **w)
        wf = WavefrontAllocator(n, n_out, n_cand, s=s, per_stage=per_stage, **w)
        m.submodules.prefix, m.submodules.wavefront = ref, wf
        ins = _sa_inputs(m, n, n_out, n_cand, **w)
        _sa_drive(m, ref, ins)
        _sa_drive(m, wf, ins)
        pairs = [(ref.req_rq, wf.req_rq, "req"), (ref.gnt_rq, wf.gnt_rq, "gnt")]
        pairs += [(ref.sel_rq[i], wf.sel_rq[i], f"sel {i}") for i in range(n)]
        pairs += [(ref.sel_op_rq[i], wf.sel_op_rq[i], f"sel_op {i}") for i in range(n)]
        pairs += [(ref.count_op[o], wf.count_op[o], f"count {o}") for o in range(n_out)]
        for k, (a, b, what) in enumerate(pairs):
            cur = a
            for d in range(wf.latency):
                nxt = Signal(len(a), name=f"ref_{k}_d{d}")
                m.d.sync += nxt.eq(cur)
                cur = nxt
            m.d.comb += Assert(b == cur, f"wavefront == prefix {wf.latency} cycles earlier ({what})")
            if what == "gnt":
                gnt_late = cur
            if what == "req":
                req_late = cur
        m.d.comb += Cover((req_late & ~gnt_late).any())
    return _Top(body)


# ------------------------------------------------------------------ the catalogue
@dataclass(frozen=True)
class Check:
    """One formal check.

    Attributes
    ----------
    name : str
        Its name on the command line.
    build : callable
        Returns the wrapper (an Elaboratable with the properties).
    depth : int
        Cycles of bounded model checking (1 for a combinational unit).
    spec : str
        The router-spec sections whose behaviour it encodes.
    what : str
        One line: the unit and what is proved.
    quick : bool
        Part of the default test suite (a few seconds).
    induction : bool
        Also run k-induction at ``depth``: the asserts then hold in every cycle, unbounded.
    noincr : bool
        A fresh solver for every query (``--noincr``; faster for the input units' memories).
    flatten : bool
        Flatten and optimize the netlist first (faster for the two-structure equivalence).
    """

    name: str
    build: Callable[[], Elaboratable]
    depth: int
    spec: str
    what: str
    quick: bool = True
    induction: bool = False
    noincr: bool = False
    flatten: bool = False


def _catalogue() -> tuple:
    c = [
        Check("credit", lambda: credit_top(3, 1), 8, "§R2",
              "CreditCounter(3): count + outstanding == depth, avail, no error", induction=True),
        Check("credit_s2", lambda: credit_top(3, 2, thresholds=3), 8, "§R2 §R8b §R11.1",
              "CreditCounter(3, takes=2, thresholds=3): as credit, two takes a cycle, ge bits", induction=True),
        Check("credit_errors", lambda: credit_error_top(3, 1), 8, "§R2",
              "CreditCounter(3) off protocol: saturates, sticky error iff a violation", induction=True),
        Check("credit_errors_s2", lambda: credit_error_top(3, 2), 8, "§R2 §R8b",
              "CreditCounter(3, takes=2) off protocol: saturates, sticky error iff a violation", induction=True),
        Check("rr4", lambda: arbiter_top(4, 1), 8, "§R6",
              "RoundRobinArbiter(4): one-hot, requesters only, rr order, pointer, fair within 3", induction=True),
        Check("rr3", lambda: arbiter_top(3, 1), 8, "§R6",
              "RoundRobinArbiter(3): as rr4 with the pointer wrapping at 3, fair within 2", induction=True),
        Check("rr_multi4x2", lambda: arbiter_top(4, 2), 8, "§R6 §R8b",
              "RoundRobinMultiArbiter(4, 2): min(2, req) grants, rr order, pointer, fair within 1", induction=True),
        Check("rr_multi5x2", lambda: arbiter_top(5, 2), 8, "§R6 §R8b",
              "RoundRobinMultiArbiter(5, 2): as rr_multi4x2 at n = 5, fair within 2", induction=True),
        Check("go3x2", lambda: output_arbiter_top(3, 2), 10, "§R11.3 §R8b",
              "OutputArbiter(3, 2): first/second grant order, pointer, fair within 2 unless blocked"),
        Check("go4x1", lambda: output_arbiter_top(4, 1), 10, "§R11.3",
              "OutputArbiter(4, 1): one grant in rr order, pointer, fair within 3"),
        Check("go4x1_alt", lambda: output_arbiter_alt_top(4), 10, "§R11.3",
              "OutputArbiter(4, 1, alt): equals the plain arbiter on the chosen request vector"),
        Check("ri4x2", lambda: input_select_top(4, 2), 8, "§R11.2",
              "InputSelect(4, 2): distinct picks in rr order, pointer, fair within 1", induction=True),
        Check("ri6x2", lambda: input_select_top(6, 2), 8, "§R11.2",
              "InputSelect(6, 2): as ri4x2 with the carry-chain picker (n > 4), fair within 2", induction=True),
        Check("oq4x2", lambda: output_queue_top(4, 2, bypass=False), 8, "§R2 §R8b §R10.4",
              "OutputQueue(4, 2) (iq): count, in order, nothing lost or duplicated", induction=True),
        Check("oq4x2_bypass", lambda: output_queue_top(4, 2, bypass=True), 8, "§R2 §R8b",
              "OutputQueue(4, 2, bypass) (single-cycle): as oq4x2 with the same-cycle bypass", induction=True),
        Check("oq3x2", lambda: output_queue_top(3, 2, bypass=True), 8, "§R2 §R8b",
              "OutputQueue(3, 2, bypass): depth not a power of two", induction=True),
        Check("iu2x3", lambda: input_unit_top(2, 3), 10, "§R2 §R8a",
              "InputUnit(2 VCs, 3 deep): per VC count, front timing, credit per pop, in order", noincr=True),
        Check("iu_front2x4", lambda: input_unit_top(2, 4, front=True), 10, "§R2 §R8a §R11",
              "FrontInputUnit(2 VCs, 4 deep): as iu2x3, two front registers, nge bits", noincr=True),
        Check("iu_front2x3", lambda: input_unit_top(2, 3, front=True), 10, "§R2 §R8a §R11",
              "FrontInputUnit(2 VCs, 3 deep): one RAM slot as a register", noincr=True),
        Check("iu_fronts3x5", lambda: input_unit_top(2, 5, front=True, fronts=3), 10, "§R2 §R8a §R11.1a",
              "FrontInputUnit(2 VCs, 5 deep, fronts=3): three front registers, a RAM of 2 behind them", noincr=True),
        Check("iu_bram2x5", lambda: input_unit_top(2, 5, front=True, ram="block"), 10, "§R2 §R8a §R11.1a",
              "FrontInputUnit(2 VCs, 5 deep, ram=block): a RAM of 3 read a cycle ahead, transparent", noincr=True),
    ]
    for impl in ("ripple", "prefix"):
        for s in (1, 2):
            c.append(Check(f"sa_{impl}_s{s}", lambda impl=impl, s=s: seq_alloc_top(4, 3, 2, s, impl), 1, "§R6 §R8b",
                           f"SequentialAllocator(4, 3, 2, S={s}, {impl}): at most S grants an output, well formed"))
    for s in (1, 2):
        c.append(Check(f"sa_equiv_s{s}", lambda s=s: seq_alloc_equiv_top(4, 3, 2, s), 1, "§R6",
                       f"SequentialAllocator(4, 3, 2, S={s}): ripple == prefix for every input (2-bit q, h, b)",
                       flatten=True))
    c.append(Check("sa_equiv_m1", lambda: seq_alloc_equiv_top(5, 3, 1, 2), 1, "§R6 §R11.2a",
                   "SequentialAllocator(5, 3, 1, S=2): ripple == prefix (index order, thermometer mask) for every "
                   "input and start", flatten=True))
    c.append(Check("sa_wavefront", lambda: seq_alloc_wavefront_top(3, 2, 2, 1, per_stage=2), 7, "§R6 §R11.2a",
                   "WavefrontAllocator(3, 2, 2, S=1, 2 a stage): the prefix allocation 6 cycles late, every input "
                   "sequence", flatten=True, quick=False))
    return tuple(c)


#: Every check, in the order ``make formal`` runs them.
CHECKS = _catalogue()


# ------------------------------------------------------------------ the flow
_CHECK_CELL = re.compile(r"^(?P<ind>[ \t]*)cell \$check (?P<name>\S+)\n(?P<body>.*?)^[ \t]*end\n", re.M | re.S)


def lower_checks(text: str) -> str:
    """Rewrite Amaranth 0.5's ``$check`` cells as ``$assert``/``$assume``/``$cover`` (Yosys before 0.37).

    A clocked check (``m.d.sync += Assert(...)``, the units' own protocol assertions) becomes an
    immediate one on the same values: it is evaluated in the cycle before the edge it samples.
    """
    def repl(mo):
        body, ind = mo["body"], mo["ind"]
        flavor = re.search(r'parameter \\FLAVOR "(\w+)"', body)[1]
        a = re.search(r"connect \\A (.+)", body)[1]
        en = re.search(r"connect \\EN (.+)", body)[1]
        return f"{ind}cell ${flavor} {mo['name']}\n{ind}  connect \\A {a}\n{ind}  connect \\EN {en}\n{ind}end\n"
    return _CHECK_CELL.sub(repl, text)


def available() -> str | None:
    """None when yosys, yosys-smtbmc and the solver are on ``PATH``, else which one is missing."""
    for tool in ("yosys", "yosys-smtbmc", SOLVER):
        if shutil.which(tool) is None:
            return tool
    return None


@dataclass(frozen=True)
class Result:
    """The outcome of one check.

    Attributes
    ----------
    name : str
    passed : bool
        BMC, covers and (when asked) induction all passed.
    depth : int
    seconds : float
    proven : bool
        k-induction proved the asserts for every cycle.
    detail : str
        Which step failed and smtbmc's lines naming the assertion or cover (empty on a pass).
    workdir : str
        Where the RTLIL, SMT2, logs and any counterexample (``*.vcd``) are.
    """

    name: str
    passed: bool
    depth: int
    seconds: float
    proven: bool
    detail: str
    workdir: str

    def line(self) -> str:
        mode = "bmc+induction" if self.proven else "bmc"
        head = f"{'PASS' if self.passed else 'FAIL'}  {self.name:<18} depth {self.depth:>3}  {self.seconds:6.1f} s  {mode}"
        return head if self.passed else f"{head}  {self.detail}"


def _smtbmc(smt2: Path, depth: int, flags: list, log: Path, vcd: Path | None) -> tuple:
    """One yosys-smtbmc run; (passed, the lines naming what failed)."""
    cmd = ["yosys-smtbmc", "-s", SOLVER, *SMTBMC_FLAGS, *flags, "-t", str(depth)]
    if vcd is not None:
        cmd += ["--dump-vcd", str(vcd)]
    cmd.append(str(smt2))
    # a session of its own, so that a timeout also ends the solver it started
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        log.write_text(" ".join(cmd) + "\n" + out)
        return False, f"timeout after {TIMEOUT} s"
    log.write_text(" ".join(cmd) + "\n" + out)
    ok = proc.returncode == 0 and "Status: PASSED" in out
    lines = [ln.split("  ", 1)[-1].strip() for ln in out.splitlines() if ln.startswith("##")]
    why = [ln for ln in lines if "failed" in ln.lower() or "unreached" in ln.lower()]
    tail = out.strip().splitlines()
    return ok, "; ".join(dict.fromkeys(why)) or (tail[-1] if tail else f"exit {proc.returncode}")


def run_check(check: Check, depth: int | None = None, workdir: Path | str | None = None) -> Result:
    """Run one check: BMC for ``depth`` cycles, the covers, and k-induction when the check asks for it.

    Parameters
    ----------
    check : Check
    depth : int, optional
        Overrides ``check.depth``.
    workdir : path, optional
        For the files; default ``build/formal/<name>`` in the repository.

    Returns
    -------
    Result

    Raises
    ------
    FormalError
        When a tool is missing or Yosys rejects the design.
    """
    missing = available()
    if missing:
        raise FormalError(f"{missing} not found on PATH (make setup installs it)")
    depth = check.depth if depth is None else depth
    work = Path(workdir) if workdir is not None else ROOT / "build" / "formal" / check.name
    work.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    text = lower_checks(rtlil.convert(check.build(), ports=[]))
    il, smt2 = work / "top.il", work / "top.smt2"
    il.write_text(text)
    # a flat, optimized netlist: the allocator equivalence goes from minutes to seconds
    prep = "prep -flatten -top top; opt" if check.flatten else "prep -top top"
    ys = subprocess.run(["yosys", "-q", "-p", f"read_rtlil {il.name}; {prep}; {YOSYS_EXTRA}async2sync; dffunmap; "
                                              f"write_smt2 -wires {smt2.name}"],
                        cwd=work, capture_output=True, text=True)
    if ys.returncode != 0:
        err = (ys.stderr or ys.stdout).strip().splitlines()
        raise FormalError(f"{check.name}: yosys failed: {err[0] if err else ys.returncode}")
    extra = ["--noincr"] if check.noincr else []
    steps = [("bmc", ["--presat"])] + ([("cover", ["-c"])] if "$cover" in text else [])
    if check.induction:
        steps.append(("induction", ["-i"]))
    detail, passed = "", True
    for step, flags in steps:
        ok, why = _smtbmc(smt2, depth, extra + flags, work / f"{step}.log", None if step == "induction" else work / f"{step}.vcd")
        if not ok:
            passed, detail = False, f"{step}: {why}"
            break
    return Result(check.name, passed, depth, time.monotonic() - t0, passed and check.induction, detail, str(work))


# ------------------------------------------------------------------ command line
class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise FormalError(message)


def _parse(argv):
    ap = _Parser(prog="python -m radixnet.cosim.formal", description=__doc__.split("\n\n")[0])
    ap.add_argument("--depth", type=int, help="cycles of BMC for every check (default: each check's own)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run only these checks (see --list)")
    ap.add_argument("--list", action="store_true", help="list the checks and exit")
    args = ap.parse_args(argv)
    if args.depth is not None and args.depth < 1:
        raise FormalError(f"--depth must be >= 1, got {args.depth}")
    names = {c.name for c in CHECKS}
    for name in args.only or []:
        if name not in names:
            raise FormalError(f"--only: no check {name!r} (one of {', '.join(sorted(names))})")
    return args


def main(argv=None) -> int:
    """Command line; returns the exit status (0 all pass, 1 a check failed, 2 bad input or missing tool)."""
    try:
        args = _parse(argv)
        if args.list:
            for c in CHECKS:
                tags = ("" if c.quick else " [slow]") + (" [induction]" if c.induction else "")
                print(f"{c.name:<18} depth {c.depth:>3}  {c.spec:<18} {c.what}{tags}")
            return 0
        chosen = [c for c in CHECKS if args.only is None or c.name in args.only]
        failed = 0
        for c in chosen:
            r = run_check(c, args.depth)
            print(r.line(), flush=True)
            failed += not r.passed
    except FormalError as exc:
        print(f"formal: {exc}", file=sys.stderr)
        return 2
    print(f"formal: {len(chosen) - failed} of {len(chosen)} checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
