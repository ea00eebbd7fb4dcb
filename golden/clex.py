"""Message-level simulation of CLEX routing (Lenzen & Wattenhofer, *CLEX: Yet Another Supercomputer Architecture?*).

This is not the cycle-accurate router model of :mod:`radixnet.golden.sim`: it
runs the paper's own abstract model (§II-A: synchronous rounds, one unit
payload per node and edge and round, loops ``{v, v}`` in ``E``) on node
*addresses*, without building a :class:`~radixnet.gen.network.Network`, so
that the paper's 32^4 = 1,048,576-node experiment fits in memory and minutes.

What is simulated
-----------------
* **Point-to-point, algorithm A(l)** (§II-D) on C(1/L, L) with ``k = n^s``
  nodes per clique, with the simulation modifications of §III-A:

  - no Valiant trick: every node sends ``messages`` messages whose
    destinations are "a uniformly random permutation of the set containing
    each node [messages] times" (``destinations="permutation"``; the
    alternative ``"uniform"`` draws every destination u.i.r.);
  - A(l), l > 1: (1) A(l-1) moves each message, inside its level-(l-1) copy,
    to a gateway "choosing u.i.r. from the nodes fulfilling this criterion"
    (their level-l edges lead to the copy holding the destination);
    (2) the gateway forwards it over one of its ``k`` level-l edges,
    "balancing the load on these edges" with the "subset of neighbors
    receiving one message more than the others [chosen] uniformly at
    random"; (3) A(l-1) delivers it inside the destination's copy;
  - A(1), the randomized load balancing inside a clique (§II-D, after [23]):
    phase 1 is the direct attempt ("nodes initially send along each link one
    message (if available) directly to its destination", 1 round); every
    further phase relays: each remaining message gets ``floor(k(i))``
    requests, ``k(i+1) = min{k(i) e^(floor(k(i))/5), sqrt(log n)}``; a node
    sends its requests to distinct relays chosen uniformly at random (so
    every relay gets the same number from it, up to one, and no link carries
    two), every relay forwards one message per destination and confirms it.
    Dense traffic (§III-A) relays "by request and acknowledgement" (a relayed
    message costs 2 hops, the requests none, and the handshake delays it by
    2 more rounds); light traffic (§III-B, ``light=True``) sends full copies
    (every copy costs a hop, no handshake).

  Recursive calls are independent (§III-A: "neither parallel nor
  sequentially executed recursive calls interfere with each other"), so all
  messages run the same sequence of steps in lock-step and every instance of
  a step is simulated for all messages at once: numpy for the elementwise
  steps, numba kernels (parallel over cliques) for the per-clique contention.

* **Measurements** (§III-A), per level ``l``: the maximal number of rounds
  (recursive calls excluded) of any instance of A(l); the average number of
  rounds a message spends on level ``l`` in total; the maximal average load
  (messages per node) of any instance of A(l); the average number of
  level-``l`` edges a message traverses. Plus, for A(1), its phases
  (Fig. 3: messages still to deliver after each phase).

* **The 3D-torus comparison** of §III-A/B (:func:`torus_comparison`) and the
  **all-to-all** schemes of §II-C (:func:`clex_all_to_all`,
  :func:`torus_all_to_all`, :func:`flood_clex`).

Addresses follow :mod:`radixnet.gen.families.clex`: node ``r = sum_m v_m
k^(m-1)`` with 0-based digits, ``v_1`` the position in the clique; the
level-m edges of ``(.., v_{m-1}, v_m, ..)`` lead to ``(.., j, v_{m-1}, ..)``,
``j = 0 .. k-1`` (Definition 2.3). Every choice the paper leaves open is
listed in ``docs/clex-sim.md``. A run is deterministic for a given seed
(independent of the number of threads).

Examples
--------
>>> r = simulate(4, 2, 3, seed=1)
>>> r.delivered, r.n, r.total_messages
(True, 16, 48)
>>> r.table[1].avg_hops
1.0
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numba import get_num_threads, njit, prange

from ..gen.params import ParamError
from ..gen.progress import report
from ..gen.resources import check_memory

__all__ = ["LevelStats", "ClexResult", "simulate", "copy_schedule", "torus_comparison", "torus_dims",
           "clex_all_to_all", "torus_all_to_all", "flood_clex", "MAX_PHASES", "memory_estimate"]

#: phases of A(1) tracked individually (more are counted in the last bucket)
MAX_PHASES = 64

_G = np.uint64(0x9E3779B97F4A7C15)
#: work units of every parallel kernel (fixed, so that results do not depend on the thread count)
_NCHUNKS = 64


# --------------------------------------------------------------------------------------------
# counter-based random numbers: a stream per (seed, step, instance), so results do not depend
# on how instances are spread over threads.
# --------------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _stream(seed, step, inst):
    return _mix(_mix(seed ^ (np.uint64(step) * np.uint64(0xD1B54A32D192ED03)))
                ^ (np.uint64(inst) * np.uint64(0x8CB92BA72F3D8DD7)))


@njit(cache=True, inline="always")
def _below(r, m):
    """Map a 64-bit random word to [0, m) (multiply-shift on its high 32 bits)."""
    return np.int64(((r >> np.uint64(32)) * np.uint64(m)) >> np.uint64(32))


# --------------------------------------------------------------------------------------------
# kernels
# --------------------------------------------------------------------------------------------

@njit(cache=True, parallel=True)
def _regroup(S, out, k, nb, nchunks):
    """Stable counting sort of the message rows ``S`` by clique ``S[:, 0] // k`` into ``out``.

    Returns the clique offsets (``nb + 1``)."""
    N = S.shape[0]
    F = S.shape[1]
    step = (N + nchunks - 1) // nchunks
    hist = np.zeros((nchunks, nb), dtype=np.int64)
    for c in prange(nchunks):
        lo = c * step
        hi = min(N, lo + step)
        for i in range(lo, hi):
            hist[c, S[i, 0] // k] += 1
    starts = np.zeros(nb + 1, dtype=np.int64)
    run = 0
    for b in range(nb):
        starts[b] = run
        for c in range(nchunks):
            h = hist[c, b]
            hist[c, b] = run
            run += h
    starts[nb] = run
    for c in prange(nchunks):
        lo = c * step
        hi = min(N, lo + step)
        pos = hist[c]
        for i in range(lo, hi):
            b = S[i, 0] // k
            p = pos[b]
            pos[b] = p + 1
            for f in range(F):
                out[p, f] = S[i, f]
    return starts


@njit(cache=True, parallel=True)
def _enter(S, level, k, seed, step, nchunks):
    """Step 1 of A(level): the gateway target ``S[:, level-1]`` for every message (§II-D).

    The gateway lies in the message's current level-(level-1) copy, has digit
    ``level-1`` equal to digit ``level`` of the level-``level`` target (its
    level-``level`` edges lead to that copy) and u.i.r. lower digits."""
    N = S.shape[0]
    Klo = np.int64(k) ** (level - 2)
    Kmid = Klo * k
    per = (N + nchunks - 1) // nchunks
    for c in prange(nchunks):
        lo = c * per
        hi = min(N, lo + per)
        st = _stream(seed, step, c)
        for i in range(lo, hi):
            cur = np.int64(S[i, 0])
            t = np.int64(S[i, level])
            g = (cur // Kmid) * Kmid + ((t // Kmid) % k) * Klo
            if Klo > 1:
                st += _G
                g += _below(_mix(st), Klo)
            S[i, level - 1] = g


@njit(cache=True, parallel=True)
def _copy_col(S, dst, src, nchunks):
    N = S.shape[0]
    per = (N + nchunks - 1) // nchunks
    for c in prange(nchunks):
        for i in range(c * per, min(N, (c + 1) * per)):
            S[i, dst] = S[i, src]


@njit(cache=True, parallel=True)
def _copy_load(S, level, k, nchunks):
    """Messages per level-``level`` copy (the load of every instance of A(level)); returns the maximum."""
    N = S.shape[0]
    K = np.int64(k) ** level
    nb = 1
    for _ in range(S.shape[1] - 1 - level):
        nb *= k
    per = (N + nchunks - 1) // nchunks
    hist = np.zeros((nchunks, nb), dtype=np.int64)
    for c in prange(nchunks):
        for i in range(c * per, min(N, (c + 1) * per)):
            hist[c, S[i, 0] // K] += 1
    best = 0
    used = 0
    for b in range(nb):
        s = 0
        for c in range(nchunks):
            s += hist[c, b]
        if s > best:
            best = s
        if s > 0:
            used += 1
    return best, used


@njit(cache=True, parallel=True)
def _a1(S, starts, k, seed, step, handshake, kk, nchunks, out_stats, out_phase_inst, out_remaining):
    """A(1) in every clique (§II-D with the §III-A/B modifications); moves no data.

    Per chunk of cliques ``out_stats[c]`` = (instances, max rounds, sum of
    message rounds, sum of handshake rounds, hops, max load, bad targets,
    max phases); ``out_phase_inst[c, p]`` counts instances that needed
    ``p + 1`` phases and ``out_remaining[c, p]`` the messages still to deliver
    after ``p`` phases (Fig. 3)."""
    nb = starts.shape[0] - 1
    P = out_remaining.shape[1]
    per = (nb + nchunks - 1) // nchunks
    for c in prange(nchunks):
        b0 = c * per
        b1 = min(nb, b0 + per)
        mmax = 0
        for b in range(b0, b1):
            mmax = max(mmax, starts[b + 1] - starts[b])
        spv = np.empty(mmax, np.int64)
        dpv = np.empty(mmax, np.int64)
        rem = np.empty(mmax, np.int64)
        order = np.empty(mmax, np.int64)
        acc = np.zeros(mmax, np.int64)
        win = np.empty(k * k, np.int64)
        winp = np.empty(k * k, np.uint64)
        cnt = np.empty(k, np.int64)
        off = np.empty(k + 1, np.int64)
        perm = np.empty(k, np.int64)
        inst = 0
        maxr = 0
        rsum = 0
        hsum = 0
        hops = 0
        maxload = 0
        bad = 0
        maxph = 0
        for b in range(b0, b1):
            a = starts[b]
            m = starts[b + 1] - a
            if m == 0:
                continue
            inst += 1
            maxload = max(maxload, m)
            base = np.int64(b) * k
            st = _stream(seed, step, b)
            # phase 1: one message per (source, destination) link, directly
            for s in range(k * k):
                win[s] = -1
            for t in range(m):
                sp = np.int64(S[a + t, 0]) - base
                dp = np.int64(S[a + t, 1]) - base
                if dp < 0 or dp >= k:
                    bad += 1
                    dp = 0
                spv[t] = sp
                dpv[t] = dp
                st += _G
                r = _mix(st)
                s = sp * k + dp
                if win[s] < 0 or r > winp[s]:
                    win[s] = t
                    winp[s] = r
            for t in range(m):
                acc[t] = 0
            d1 = 0
            for s in range(k * k):
                if win[s] >= 0:
                    acc[win[s]] = 1
                    d1 += 1
            nrem = 0
            for t in range(m):
                if acc[t] == 0:
                    rem[nrem] = t
                    nrem += 1
            rsum += d1
            hops += d1
            out_remaining[c, 0] += m
            out_remaining[c, 1] += nrem
            R = 0
            while nrem > 0:
                R += 1
                cr = kk[min(R - 1, kk.shape[0] - 1)]
                for v in range(k):
                    cnt[v] = 0
                for q in range(nrem):
                    cnt[spv[rem[q]]] += 1
                off[0] = 0
                for v in range(k):
                    off[v + 1] = off[v] + cnt[v]
                for v in range(k):
                    cnt[v] = off[v]
                for q in range(nrem):
                    t = rem[q]
                    order[cnt[spv[t]]] = t
                    cnt[spv[t]] += 1
                for s in range(k * k):
                    win[s] = -1
                sent = 0
                for v in range(k):
                    o0 = off[v]
                    rv = off[v + 1] - o0
                    if rv == 0:
                        continue
                    if rv > k:  # at most one request per link: a random k of them take part
                        for x in range(k):
                            st += _G
                            j = x + _below(_mix(st), rv - x)
                            tmp = order[o0 + x]
                            order[o0 + x] = order[o0 + j]
                            order[o0 + j] = tmp
                        npart = k
                        cp = 1
                    else:
                        npart = rv
                        cp = max(1, min(cr, k // rv))
                    for x in range(k):
                        perm[x] = x
                    for x in range(npart * cp):  # distinct relays, uniformly at random
                        st += _G
                        j = x + _below(_mix(st), k - x)
                        tmp = perm[x]
                        perm[x] = perm[j]
                        perm[j] = tmp
                    for p in range(npart):
                        t = order[o0 + p]
                        for cc in range(cp):
                            w = perm[p * cp + cc]
                            st += _G
                            r = _mix(st)
                            s = w * k + dpv[t]
                            if win[s] < 0 or r > winp[s]:
                                win[s] = t
                                winp[s] = r
                    sent += npart * cp
                nacc = 0
                for s in range(k * k):
                    if win[s] >= 0:
                        acc[win[s]] += 1
                        nacc += 1
                newrem = 0
                done = 0
                for q in range(nrem):
                    t = rem[q]
                    if acc[t] > 0:
                        done += 1
                    else:
                        rem[newrem] = t
                        newrem += 1
                rsum += done * (1 + 2 * R)
                if handshake:
                    hsum += done * 2
                    hops += 2 * done
                else:
                    hops += sent + nacc
                if R + 1 < P:
                    out_remaining[c, R + 1] += newrem
                nrem = newrem
            rounds = 1 if R == 0 else 1 + 2 * R + (2 if handshake else 0)
            maxr = max(maxr, rounds)
            maxph = max(maxph, R + 1)
            out_phase_inst[c, min(R, out_phase_inst.shape[1] - 1)] += 1
        out_stats[c, 0] = inst
        out_stats[c, 1] = maxr
        out_stats[c, 2] = rsum
        out_stats[c, 3] = hsum
        out_stats[c, 4] = hops
        out_stats[c, 5] = maxload
        out_stats[c, 6] = bad
        out_stats[c, 7] = maxph


@njit(cache=True, parallel=True)
def _hop(S, starts, level, k, seed, step, nchunks, out_stats):
    """Step 2 of A(level): every gateway sends its messages over its ``k`` level-``level`` edges.

    Messages of a gateway are put in random order; message ``t`` takes edge
    ``perm[t % k]`` (``perm`` a random permutation, so the edges carrying one
    message more are a uniformly random subset, §III-A) in round
    ``t // k + 1``. Needs ``S`` grouped by clique (``starts``).
    ``out_stats[c]`` = (max rounds, sum of message rounds, bad gateways)."""
    nb = starts.shape[0] - 1
    Klo = np.int64(k) ** (level - 2)
    Kmid = Klo * k
    Ktop = Kmid * k
    per = (nb + nchunks - 1) // nchunks
    for c in prange(nchunks):
        b0 = c * per
        b1 = min(nb, b0 + per)
        mmax = 0
        for b in range(b0, b1):
            mmax = max(mmax, starts[b + 1] - starts[b])
        order = np.empty(mmax, np.int64)
        cnt = np.empty(k, np.int64)
        off = np.empty(k + 1, np.int64)
        perm = np.empty(k, np.int64)
        maxr = 0
        rsum = 0
        bad = 0
        for b in range(b0, b1):
            a = starts[b]
            m = starts[b + 1] - a
            if m == 0:
                continue
            base = np.int64(b) * k
            st = _stream(seed, step, b)
            for v in range(k):
                cnt[v] = 0
            for t in range(m):
                cnt[np.int64(S[a + t, 0]) - base] += 1
            off[0] = 0
            for v in range(k):
                off[v + 1] = off[v] + cnt[v]
            for v in range(k):
                cnt[v] = off[v]
            for t in range(m):
                p = np.int64(S[a + t, 0]) - base
                order[cnt[p]] = t
                cnt[p] += 1
            for v in range(k):
                o0 = off[v]
                mv = off[v + 1] - o0
                if mv == 0:
                    continue
                for x in range(mv - 1):  # random order of the gateway's messages
                    st += _G
                    j = x + _below(_mix(st), mv - x)
                    tmp = order[o0 + x]
                    order[o0 + x] = order[o0 + j]
                    order[o0 + j] = tmp
                for x in range(k):
                    perm[x] = x
                for x in range(min(mv, k - 1)):  # random edges for the first min(mv, k) messages
                    st += _G
                    j = x + _below(_mix(st), k - x)
                    tmp = perm[x]
                    perm[x] = perm[j]
                    perm[j] = tmp
                g = base + v
                head = (g // Ktop) * Ktop + ((g // Klo) % k) * Kmid + (g % Klo)
                for t in range(mv):
                    i = a + order[o0 + t]
                    if (S[i, level] // Kmid) % k != (g // Klo) % k:
                        bad += 1
                    S[i, 0] = head + perm[t % k] * Klo
                    rd = t // k + 1
                    rsum += rd
                    if rd > maxr:
                        maxr = rd
        out_stats[c, 0] = maxr
        out_stats[c, 1] = rsum
        out_stats[c, 2] = bad


@njit(cache=True, parallel=True)
def _count_mismatch(S, col, nchunks):
    N = S.shape[0]
    per = (N + nchunks - 1) // nchunks
    bad = np.zeros(nchunks, np.int64)
    for c in prange(nchunks):
        for i in range(c * per, min(N, (c + 1) * per)):
            if S[i, 0] != S[i, col]:
                bad[c] += 1
    return bad.sum()


# --------------------------------------------------------------------------------------------
# point-to-point driver
# --------------------------------------------------------------------------------------------

def copy_schedule(k: int, phases: int = MAX_PHASES, first: float = 1.0) -> np.ndarray:
    """Copies (requests) per message, ``floor(k(i))``, in relay phase ``i`` of A(1) (§II-D, step 4).

    ``k(1) = first`` (the paper: 1), ``k(i+1) = min{k(i) e^(floor(k(i))/5), sqrt(log n)}`` with
    ``n`` the number of nodes of the complete graph A(1) runs on (the clique size ``k``) and the
    natural logarithm (which makes §III-A's ``1 + 2 log* 32 = 1 + 2 log* 64 = 7`` hold); a
    ``first`` above the cap stays constant. The direct attempt of §III-A comes before relay phase 1.

    >>> copy_schedule(64, 8).tolist()
    [1, 1, 1, 1, 2, 2, 2, 2]
    >>> copy_schedule(32, 6).tolist()
    [1, 1, 1, 1, 1, 1]
    >>> copy_schedule(32, 3, first=3).tolist()
    [3, 3, 3]
    """
    cap = max(math.sqrt(math.log(k)) if k > 1 else 1.0, float(first))
    out, x = [], float(first)
    for _ in range(phases):
        out.append(max(1, math.floor(x)))
        x = max(min(x * math.exp(math.floor(x) / 5), cap), 1.0)
    return np.array(out, dtype=np.int64)


def _hist_chunks(nb: int) -> int:
    """Work units of the histogram kernels: at most 64 MiB of per-unit counters (results do not depend on it)."""
    return max(1, min(_NCHUNKS, (64 << 20) // (8 * max(1, nb))))


def _ops(level: int) -> list[tuple[str, int]]:
    """The lock-step schedule of A(level) (§II-D): ``enter`` (pick step-1 gateways), ``a1``, ``hop``, ``exit``.

    >>> [op for op, _ in _ops(2)]
    ['enter', 'a1', 'hop', 'exit', 'a1']
    >>> sum(op == "a1" for op, _ in _ops(4))
    8
    """
    if level == 1:
        return [("a1", 1)]
    sub = _ops(level - 1)
    return [("enter", level)] + sub + [("hop", level), ("exit", level)] + sub


@dataclass
class LevelStats:
    """The §III-A measurements for one level ``l`` (the rows of Tables I–IV).

    Attributes
    ----------
    level : int
        ``l`` (1 = the cliques).
    instances : int
        Instances of A(l) run (recursive calls with at least one message).
    max_rounds : int
        "the maximal number of rounds (excluding recursive calls) that any instance of A(l)
        required"; on level 1 with request/acknowledgement it includes the 2 handshake rounds.
    avg_rounds : float
        "the average number of rounds (excluding recursive calls) messages spent on this level in
        total"; a relayed message is charged the 2 handshake rounds (§III-A: "this will delay the
        messages that are not delivered immediately by two more rounds").
    avg_rounds_no_handshake : float
        ``avg_rounds`` without the handshake rounds (equal to it above level 1 and in light mode).
    max_avg_load : float
        "the maximal average load per node any instance of A(l) had to deal with": messages of the
        instance divided by its ``k^l`` nodes.
    avg_hops : float
        "the (average) number of edges messages traversed on Level l during the course of the
        complete algorithm"; loops count (§II-A puts them in E); in light mode every copy counts.
    max_phases : int or None
        Level 1: phases of the slowest instance of A(1) (Fig. 3).
    phase_instances : list of int or None
        Level 1: ``phase_instances[p]`` instances of A(1) finished after ``p + 1`` phases.
    remaining : list of int or None
        Level 1: messages of all instances of A(1) still to deliver after ``p`` phases (Fig. 3).
    """

    level: int
    instances: int
    max_rounds: int
    avg_rounds: float
    avg_rounds_no_handshake: float
    max_avg_load: float
    avg_hops: float
    max_phases: int | None = None
    phase_instances: list[int] | None = None
    remaining: list[int] | None = None


@dataclass
class ClexResult:
    """Outcome of :func:`simulate`; ``table[l - 1]`` holds level ``l``."""

    k: int
    levels: int
    n: int
    messages: int
    seed: int
    light: bool
    destinations: str
    copies: float
    total_messages: int
    delivered: bool
    table: list[LevelStats]
    wall_seconds: float
    threads: int

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready)."""
        return asdict(self)


def memory_estimate(k: int, levels: int, messages: int) -> dict[str, int]:
    """Bytes :func:`simulate` allocates, by part: ``messages`` (two int32 tables of ``k^levels * messages``
    rows and ``levels + 1`` columns, the second for regrouping) and ``nodes`` (per-node histograms).

    >>> memory_estimate(64, 3, 57)["messages"] // 2**20
    456
    """
    n = int(k) ** int(levels)
    return {"messages": 2 * n * int(messages) * (int(levels) + 1) * 4, "nodes": 3 * 8 * n}


def _check(k: Any, levels: Any, messages: Any, destinations: Any, copies: Any, max_memory: int | None = None) -> None:
    for name, v, lo in (("k", k, 2), ("levels", levels, 1), ("messages", messages, 1)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < lo:
            raise ParamError(name, f"must be an integer >= {lo} (got {v!r})")
    if k > 4096:
        raise ParamError("k", f"must be an integer in [2, 4096] (got {k})")
    if destinations not in ("permutation", "uniform"):
        raise ParamError("destinations", f"must be one of permutation, uniform (got {destinations!r})")
    if isinstance(copies, bool) or not isinstance(copies, (int, float)) or not 1 <= copies <= 4096:
        raise ParamError("copies", f"must be a number in [1, 4096] (got {copies!r})")
    n = k ** levels
    if n >= 2 ** 31:
        raise ParamError("levels", f"k^levels must be < 2^31 node addresses (got {k}^{levels} = {n})")
    N = n * messages
    if N >= 2 ** 31:
        raise ParamError("messages", f"k^levels * messages must be < 2^31 (got {n} * {messages} = {N})")
    check_memory(memory_estimate(k, levels, messages), max_memory,
                 what=f"CLEX with {n:,} nodes x {messages:,} messages", hint="give fewer --messages or --levels")


def simulate(k: int, levels: int, messages: int, seed: int = 0, light: bool = False,
             destinations: str = "permutation", copies: float = 1.0,
             threads: int | None = None, max_memory: int | None = None, progress=None) -> ClexResult:
    """Run A(levels) on C(1/levels, levels) with ``k^levels`` nodes (§II-D, §III-A/B).

    Parameters
    ----------
    k : int
        Nodes per level-1 clique, ``n^s`` (32 for C(1/4, 4) of Table I, 64 for C(1/3, 3) of Table II).
    levels : int
        ``1/s``, the number of levels.
    messages : int
        Messages each node sends (and, with ``destinations="permutation"``, receives): 28/57 in
        Tables I/II (dense, §III-A), 4/5 in Tables III/IV (light, §III-B).
    seed : int
        Seed; a run is a deterministic function of all arguments except ``threads``.
    light : bool
        §III-B: A(1) sends full copies to relays instead of requesting relaying first (no handshake).
    destinations : {"permutation", "uniform"}
        §III-A's "uniformly random permutation of the set containing each node [messages] times",
        or destinations drawn u.i.r. (each node then receives a random number of messages).
    copies : float
        ``k(1)`` of A(1)'s copy schedule (:func:`copy_schedule`); the paper's value is 1.
    threads : int, optional
        numba threads (default: all); does not change the result.
    max_memory : int, optional
        Bytes the run may allocate (:func:`memory_estimate`); default
        :func:`radixnet.gen.resources.memory_limit`.
    progress : callable, optional
        A :data:`radixnet.gen.progress.ProgressFn`, told each step of the lock-step schedule (``A(l)``
        entries, A(1) runs, level-``l`` hops and exits) as it finishes.

    Returns
    -------
    ClexResult
        Per-level statistics (Tables I–IV); ``delivered`` is true iff every message reached its
        destination and every step found its messages where the algorithm put them.

    Raises
    ------
    ParamError
        Bad ``k``, ``levels``, ``messages``, ``destinations`` or ``copies``, or a run past the
        memory limit (``--max-memory``).
    """
    _check(k, levels, messages, destinations, copies, max_memory)
    import numba
    old_threads = get_num_threads()
    if threads is not None:
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
            raise ParamError("threads", f"must be an integer >= 1 (got {threads!r})")
        numba.set_num_threads(min(int(threads), numba.config.NUMBA_NUM_THREADS))
    t0 = time.perf_counter()
    try:
        return _simulate(int(k), int(levels), int(messages), int(seed), bool(light), destinations,
                         float(copies), t0, progress)
    finally:
        numba.set_num_threads(old_threads)


def _simulate(k: int, L: int, M: int, seed: int, light: bool, destinations: str, copies: float,
              t0: float, progress=None) -> ClexResult:
    n = k ** L
    N = n * M
    rng = np.random.default_rng(seed)
    kseed = np.uint64(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0])
    # one row per message: [current node, target of A(1), ..., target of A(L) = destination]
    S = np.empty((N, L + 1), dtype=np.int32)
    S[:, 0] = np.repeat(np.arange(n, dtype=np.int32), M)
    if destinations == "permutation":
        S[:, L] = rng.permutation(S[:, 0])
    else:
        S[:, L] = rng.integers(0, n, size=N, dtype=np.int32)
    S2 = np.empty_like(S)
    nch = _NCHUNKS
    kk = copy_schedule(k, first=copies)
    inst = [0] * (L + 1)
    maxr = [0] * (L + 1)
    rsum = [0] * (L + 1)
    hsum = [0] * (L + 1)
    hops = [0] * (L + 1)
    maxload = [0] * (L + 1)
    phase_inst = np.zeros(MAX_PHASES, dtype=np.int64)
    remaining = np.zeros(MAX_PHASES + 1, dtype=np.int64)
    maxph = 0
    bad = 0
    starts = None
    grouped = True  # initially every node's messages are contiguous (sorted by node)
    ops = _ops(L)
    for step, (op, l) in enumerate(ops):
        report(progress, "steps", step, len(ops), f"A({l}) {op}")
        if op == "enter":
            best, used = _copy_load(S, l, k, _hist_chunks(n // k ** l))
            inst[l] += int(used)
            maxload[l] = max(maxload[l], int(best))
            _enter(S, l, k, kseed, step, nch)
        elif op == "a1":
            if not grouped or starts is None:
                if starts is None and grouped:
                    starts = np.arange(0, N + 1, k * M, dtype=np.int64)
                else:
                    starts = _regroup(S, S2, k, n // k, _hist_chunks(n // k))
                    S, S2 = S2, S
            grouped = True
            st = np.zeros((nch, 8), dtype=np.int64)
            pi = np.zeros((nch, MAX_PHASES), dtype=np.int64)
            rm = np.zeros((nch, MAX_PHASES + 1), dtype=np.int64)
            _a1(S, starts, k, kseed, step, not light, kk, nch, st, pi, rm)
            inst[1] += int(st[:, 0].sum())
            maxr[1] = max(maxr[1], int(st[:, 1].max()))
            rsum[1] += int(st[:, 2].sum())
            hsum[1] += int(st[:, 3].sum())
            hops[1] += int(st[:, 4].sum())
            maxload[1] = max(maxload[1], int(st[:, 5].max()))
            bad += int(st[:, 6].sum())
            maxph = max(maxph, int(st[:, 7].max()))
            phase_inst += pi.sum(axis=0)
            remaining += rm.sum(axis=0)
            _copy_col(S, 0, 1, nch)  # every message is now at the target of this A(1)
        elif op == "hop":
            st = np.zeros((nch, 3), dtype=np.int64)
            _hop(S, starts, l, k, kseed, step, nch, st)
            maxr[l] = max(maxr[l], int(st[:, 0].max()))
            rsum[l] += int(st[:, 1].sum())
            hops[l] += N
            bad += int(st[:, 2].sum())
            grouped = False
        else:  # exit: step 3 of A(l) goes to the target of A(l) itself
            _copy_col(S, l - 1, l, nch)
    report(progress, "steps", len(ops), len(ops), "done")
    bad += int(_count_mismatch(S, L, nch))
    del S, S2
    table = []
    for l in range(1, L + 1):
        one = l == 1
        table.append(LevelStats(
            level=l, instances=inst[l], max_rounds=maxr[l],
            avg_rounds=(rsum[l] + hsum[l]) / N, avg_rounds_no_handshake=rsum[l] / N,
            max_avg_load=maxload[l] / k ** l, avg_hops=hops[l] / N,
            max_phases=maxph if one else None,
            phase_instances=[int(x) for x in np.trim_zeros(phase_inst, "b")] if one else None,
            remaining=[int(x) for x in np.trim_zeros(remaining, "b")] if one else None))
    return ClexResult(k=k, levels=L, n=n, messages=M, seed=seed, light=light, destinations=destinations,
                      copies=copies, total_messages=N, delivered=(bad == 0), table=table,
                      wall_seconds=time.perf_counter() - t0, threads=get_num_threads())


# --------------------------------------------------------------------------------------------
# the 3D torus of §III and the all-to-all schemes of §II-C
# --------------------------------------------------------------------------------------------

def torus_dims(n: int) -> tuple[int, int, int]:
    """The most cubic ``k1 <= k2 <= k3`` with ``k1 k2 k3 = n`` (smallest ``k3``, then largest ``k1``).

    >>> torus_dims(64 ** 3), torus_dims(32 ** 4)
    ((64, 64, 64), (64, 128, 128))
    """
    best = None
    a = 1
    while a * a * a <= n:
        if n % a == 0:
            m = n // a
            b = a
            while b * b <= m:
                if m % b == 0:
                    cand = (a, b, m // b)
                    key = (cand[2], -cand[0])
                    if best is None or key < best[0]:
                        best = (key, cand)
                b += 1
        a += 1
    return best[1]


def _ring_mean(k: int) -> float:
    """Mean shortest distance from a node to a u.i.r. node (itself included) of a bidirectional ring."""
    return (k * k / 4 if k % 2 == 0 else (k * k - 1) / 4) / k


def torus_comparison(res: ClexResult) -> dict[str, Any]:
    """§III-A/B: hop, bandwidth and propagation factors of CLEX against the 3D torus of ``n`` nodes.

    Following the paper: the torus's average hop count is ``3 n^(1/3) / 2`` (§II-C's
    ``(k1 + k2 + k3)/2``) and its uniform-traffic bandwidth per node is at most
    ``2B / (3 n^(1/3))`` (bisection of ``2 k^2`` links of capacity ``B/6``); CLEX gives each node
    ``B / H`` with ``H`` the hops per message summed over the levels. Hence

    * ``hop_factor = 3 n^(1/3) / (2 sum_l avg_rounds_l)`` (each round costs one hop delay),
    * ``bandwidth_factor = 3 n^(1/3) / (2 sum_l avg_hops_l)``,
    * ``propagation_ratio = sum_l avg_rounds_l / k^((L - l)/3)`` (link lengths grow by ``k^(1/3)``
      per level; the top level's ~ the torus's average shortest-path length),
    * ``matching_light_load = messages / bandwidth_factor`` (§III-B: "initial loads need to be
      4 > 28/8.6").

    The ``*_exact`` variants use a concrete torus :func:`torus_dims` instead: its mean
    shortest-path distance (``3k/4`` for a cube, half the paper's figure) and the bisection of its
    longest dimension.
    """
    L, k, n = res.levels, res.k, res.n
    c = n ** (1 / 3)
    rounds = sum(lv.avg_rounds for lv in res.table)
    rounds_nh = sum(lv.avg_rounds_no_handshake for lv in res.table)
    hops = sum(lv.avg_hops for lv in res.table)
    scale = k ** (1 / 3)
    prop = sum(lv.avg_rounds / scale ** (L - lv.level) for lv in res.table)
    prop_nh = sum(lv.avg_rounds_no_handshake / scale ** (L - lv.level) for lv in res.table)
    dims = torus_dims(n)
    mean = sum(_ring_mean(d) for d in dims)
    bw = 1.5 * c / hops
    return {
        "n_cbrt": c, "level_length_scale": scale,
        "torus_avg_hops": 1.5 * c, "torus_bandwidth_per_node": 2 / (3 * c),
        "clex_rounds": rounds, "clex_rounds_no_handshake": rounds_nh, "clex_hops": hops,
        "clex_bandwidth_per_node": 1 / hops,
        "hop_factor": 1.5 * c / rounds, "hop_factor_no_handshake": 1.5 * c / rounds_nh,
        "bandwidth_factor": bw,
        "propagation_ratio": prop, "propagation_ratio_no_handshake": prop_nh,
        "matching_light_load": res.messages / bw,
        "torus_dims": list(dims), "torus_mean_distance_exact": mean,
        "hop_factor_exact": mean / rounds, "hop_factor_no_handshake_exact": mean / rounds_nh,
        "bandwidth_factor_exact": 1.5 * max(dims) / hops,
    }


def clex_all_to_all(k: int, levels: int, weights: list[float] | None = None) -> dict[str, Any]:
    """§II-C, all-to-all on C(1/L, L): every message flooded with one edge per level, top level first.

    Message ``m_v`` goes from ``v`` over the ``k`` level-L edges ending in ``v`` (used backwards,
    links being bidirectional, §II-A) to one node in every level-(L-1) copy, from each of those
    over level L-1 into every level-(L-2) copy, and so on; level 1 finishes in the cliques. Every
    node receives every message exactly once (:func:`flood_clex` checks it), so links on lower
    levels carry most of the load, as the paper says.

    Per node: level 1 sends ``(k-1) k^(L-1)`` copies over ``k-1`` links, level ``l >= 2`` sends
    ``k^(L-l+1)`` over ``k`` links (loops included), i.e. ``k^(L-l)`` per link. With unit edge
    capacities and the levels running concurrently the flood takes ``k^(L-1) = n/k`` rounds,
    against the lower bound ``(n-1)/Δ``, ``Δ = kL - 1``: ratio about ``L = 1/s`` ("bandwidth-optimal
    up to factor 1/s"). With ``weights`` (the node's bandwidth split over the levels in these
    proportions, §III-A's assignment by average hops) the ratio is ``max_l sends_l / (w_l (n-1))``
    ("at least 2-competitive").

    >>> a = clex_all_to_all(64, 3, weights=[5.34, 2, 1])
    >>> a["rounds_uniform"], round(a["ratio_uniform"], 2), round(a["ratio_weighted"], 2)
    (4096, 2.98, 1.54)
    """
    n = k ** levels
    sends = [(k - 1) * k ** (levels - 1)] + [k ** (levels - l + 1) for l in range(2, levels + 1)]
    per_link = [k ** (levels - 1)] + [k ** (levels - l) for l in range(2, levels + 1)]
    delta = k * levels - 1
    lower = (n - 1) / delta
    out: dict[str, Any] = {
        "n": n, "hops_per_level": [1] * levels, "sends_per_node": sends, "per_link": per_link,
        "rounds_uniform": max(per_link), "rounds_sequential": sum(per_link),
        "lower_bound": lower, "ratio_uniform": max(per_link) / lower,
    }
    if weights is not None:
        w = np.asarray(weights, dtype=float)
        if w.shape != (levels,) or np.any(w <= 0):
            raise ParamError("weights", f"must be {levels} positive numbers (got {weights!r})")
        w = w / w.sum()
        out["weights"] = w.tolist()
        out["ratio_weighted"] = float(max(s / (wl * (n - 1)) for s, wl in zip(sends, w)))
    return out


def torus_all_to_all(dims: tuple[int, ...] | list[int]) -> dict[str, Any]:
    """§II-C, all-to-all on a ``k1 x k2 x k3`` torus: flood along x, then y, then z.

    In phase ``d`` every node holds ``k1 ... k_(d-1)`` messages and floods each both ways round
    its ring; the busier direction of a link carries ``ceil((k_d - 1)/2)`` per message held.
    Against the bound ``(n-1)/6`` this is "bandwidth-optimal up to factor three"; messages travel
    ``sum k_d/4`` hops on average and at most ``sum floor(k_d/2)`` (the paper quotes
    ``(k1 + k2 + k3)/2``).

    >>> t = torus_all_to_all((64, 64, 64))
    >>> t["rounds"], round(t["ratio"], 3), t["mean_hops"], t["paper_hops"]
    (133152, 3.048, 48.0, 96.0)
    """
    dims = [int(d) for d in dims]
    n = int(np.prod(dims))
    held, rounds = 1, 0
    for d in dims:
        rounds += held * ((d - 1 + 1) // 2)
        held *= d
    lower = (n - 1) / (2 * len(dims))
    return {"dims": dims, "n": n, "rounds": rounds, "lower_bound": lower, "ratio": rounds / lower,
            "mean_hops": sum(_ring_mean(d) for d in dims), "max_hops": sum(d // 2 for d in dims),
            "paper_hops": sum(dims) / 2}


def flood_clex(k: int, levels: int) -> dict[str, Any]:
    """Run the all-to-all flood of :func:`clex_all_to_all` message by message (``k^levels <= 4096``).

    Returns the per-level sends per node (max and mean, loops included and excluded), the
    heaviest link per level, the non-loop edges per level of every delivery (at most one), and
    whether every node received every message exactly once.

    >>> f = flood_clex(3, 3)
    >>> f["every_node_once"], f["max_nonloop_edges_per_level"], f["per_link_max"]
    (True, [1, 1, 1], [9, 3, 1])
    """
    n = k ** levels
    if n > 4096:
        raise ParamError("k", f"flood_clex needs k^levels <= 4096 (got {k}^{levels} = {n})")
    K = [k ** m for m in range(levels + 1)]
    hold = np.arange(n, dtype=np.int64)[:, None]          # hold[msg] = nodes holding it
    nonloop = np.zeros((n, 1, levels + 1), dtype=np.int64)
    sends = np.zeros((levels + 1, n), dtype=np.int64)
    sends_nl = np.zeros((levels + 1, n), dtype=np.int64)
    per_link_max = [0] * (levels + 1)
    a = np.arange(k, dtype=np.int64)
    for l in range(levels, 0, -1):
        x = hold[:, :, None]                                       # (msgs, holders, 1)
        if l == 1:
            y = x - x % k + a                                      # the whole clique
            link = (x * k + a)
            keep = y != x
        else:
            dl = (x // K[l - 1]) % k                               # digit l of the holder
            y = x - (x // K[l - 2] % k) * K[l - 2] - dl * K[l - 1] + dl * K[l - 2] + a * K[l - 1]
            link = x * k + a
            keep = np.ones_like(y, dtype=bool)
        loop = y == x
        y = np.broadcast_to(y, (n, hold.shape[1], k))
        link = np.broadcast_to(link, y.shape)
        send_mask = np.broadcast_to(keep, y.shape)
        xs = np.broadcast_to(x, y.shape)
        sends[l] = np.bincount(xs[send_mask].ravel(), minlength=n)
        sends_nl[l] = np.bincount(xs[send_mask & ~np.broadcast_to(loop, y.shape)].ravel(), minlength=n)
        per_link_max[l] = int(np.bincount(link[send_mask & ~np.broadcast_to(loop, y.shape)].ravel(),
                                          minlength=n * k).max())
        nl = np.broadcast_to(nonloop[:, :, None, :], y.shape + (levels + 1,)).copy()
        nl[..., l] += ~np.broadcast_to(loop, y.shape)
        hold = y.reshape(n, -1)
        nonloop = nl.reshape(n, -1, levels + 1)
    every = bool(np.array_equal(np.sort(hold, axis=1), np.broadcast_to(np.arange(n), (n, n))))
    return {
        "n": n, "every_node_once": every,
        "sends_max": [int(sends[l].max()) for l in range(1, levels + 1)],
        "sends_nonloop_mean": [float(sends_nl[l].mean()) for l in range(1, levels + 1)],
        "per_link_max": per_link_max[1:],
        "max_nonloop_edges_per_level": [int(nonloop[:, :, l].max()) for l in range(1, levels + 1)],
        "mean_nonloop_edges_per_level": [float(nonloop[:, :, l].mean()) for l in range(1, levels + 1)],
    }
