"""Bernoulli sources whose packets are a function of (seed, terminal, cycle), generated lazily.

Router-spec §R3: in each cycle ``c`` terminal ``s`` creates a packet with probability ``p = load / L``. Here
that coin is a counter-based hash, ``mix64(base ^ (c << 32 | s)) < p * 2**64`` (``base`` from the seed), and
the packet's other random choices (its destination, §R3, and intermediate router, §R7) are further hashes of
the same cell (:class:`PacketDraws`). A packet therefore does not depend on when it is generated, and a
source whose queue is backed up need not generate its packets ahead of time: it keeps a *frontier*
``fr[s]``, the first cycle whose coin it has not drawn, and draws on only when its queue in the packet ring
has room (BookSim2's ``_qtime``, trafficmanager.cpp ``_Inject``). A saturated source's backlog is then one
integer, not a queue that grows with the run (docs/performance.md), and every packet is created, routed and timed as
if every source queue were unbounded (``tests/test_golden.py``, ``test_lazy_sources_change_no_cycle``).

The injection rate can change between calls (``Simulator.step`` with another load): :class:`Sources` keeps
the rate of every stretch of cycles, so a source catching up draws each cycle's coin at that cycle's rate.

Examples
--------
>>> src = Sources(terminals=4, seed=1)
>>> src.rate(0, 0.5)
>>> room = np.full(4, 100, np.int64)
>>> g = src.generate(0, 8, room)
>>> g["created"].size == src.count(np.zeros(4, np.int64), 8)     # every coin of cycles 0-7 drawn
True
>>> bool((np.diff(g["created"]) >= 0).all()), src.fr.tolist()
(True, [8, 8, 8, 8])
>>> bool((g["key"] == cell_keys(src.base, g["created"], g["src"])).all())   # each packet's draws' root
True
"""

from __future__ import annotations

import numpy as np

from .native import compiled

__all__ = ["Sources", "PacketDraws", "mix64", "mix64_jit", "seed_base", "threshold", "cell_keys", "catch_up",
           "draw_span", "by_cycle", "draw_free", "count_cells", "uniforms", "uniform_ints", "uniform_others",
           "reused", "FULL"]

_C1 = np.uint64(0xBF58476D1CE4E5B9)   # SplitMix64's finalizer (Steele, Lea, Flood 2014)
_C2 = np.uint64(0x94D049BB133111EB)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_S30, _S27, _S31, _S32, _S11 = (np.uint64(k) for k in (30, 27, 31, 32, 11))
#: :func:`catch_up`'s and :func:`draw_span`'s status when their outputs are full (call again with wider ones)
FULL = 1


def mix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finalizer: a bijection of 64-bit words, of each entry of a ``uint64`` array (the
    multiplications wrap, as the hash wants)."""
    x = x ^ (x >> _S30)
    x = x * _C1
    x = x ^ (x >> _S27)
    x = x * _C2
    return x ^ (x >> _S31)


#: :func:`mix64` of a ``uint64`` scalar in compiled code
mix64_jit = compiled(cache=True, inline="always", _nrt=False)(mix64)


def seed_base(seed: int) -> np.uint64:
    """The 64-bit word every cell key of a run is mixed with."""
    return mix64(np.array([int(seed) & (2**64 - 1)], np.uint64) ^ np.uint64(0x5EED5EED5EED5EED))[0]


def cell_keys(base: np.uint64, created: np.ndarray, src: np.ndarray) -> np.ndarray:
    """The hash of each cell (creation cycle, terminal): its Bernoulli coin and the root of its draws."""
    x = (created.astype(np.uint64) << _S32) | src.astype(np.uint64)
    return mix64(x ^ base)


def threshold(p: float) -> np.uint64:
    """The coin's threshold on ``hash >> 11`` (53 bits) for probability ``p``: a hit is ``hash >> 11 < thr``."""
    return np.uint64(min(max(round(float(p) * 2.0**53), 0), 2**53))


def reused(pool: dict, key, n: int, dtype) -> np.ndarray:
    """The first ``n`` entries of ``pool[key]``, an array kept from call to call and grown (at least doubled) when
    it holds fewer. A column of a few MB rewritten at every kernel call then takes its pages once: a new one
    gets fresh pages from the operating system each time (glibc maps an array that large and unmaps it when
    freed), and faulting them in cost 4% of a run at load 0.8 (measured).

    >>> pool = {}
    >>> a = reused(pool, "seq", 3, np.int64); b = reused(pool, "seq", 2, np.int64)
    >>> np.shares_memory(a, b), reused(pool, "seq", 5, np.int64).size, pool["seq"].size
    (True, 5, 6)
    """
    buf = pool.get(key)
    if buf is None or buf.size < n:
        buf = pool[key] = np.empty(max(n, 0 if buf is None else 2 * buf.size), dtype)
    return buf[:n]


class PacketDraws:
    """The per-packet random choices of :class:`radixnet.golden.traffic.Pattern` and the intermediate
    routers, as :class:`numpy.random.Generator`'s ``integers`` and ``random`` (the calls they make), but
    hashed from each packet's cell: draw ``j`` of a packet is ``mix64(key + j * 0x9E37...)``.

    Parameters
    ----------
    keys : ndarray of uint64
        The packets' cell keys (:func:`cell_keys`); every draw returns one value per packet.
    pool : dict, optional
        Arrays reused from one set of packets to the next (:func:`reused`): draw ``j`` returns a view of the
        pool's array for draw ``j``, which the next :class:`PacketDraws` on the same pool overwrites. Without
        a pool every draw returns a new array.

    Examples
    --------
    >>> d = PacketDraws(cell_keys(seed_base(3), np.arange(5), np.zeros(5, np.int64)))
    >>> x = d.integers(0, 10, size=5)
    >>> x.dtype, bool(((0 <= x) & (x < 10)).all())
    (dtype('int64'), True)
    >>> bool((PacketDraws(d.keys).integers(0, 10, size=5) == x).all())    # a function of the cells alone
    True
    >>> pool = {}
    >>> bool((PacketDraws(d.keys, pool).integers(0, 10, size=5) == x).all()), sorted(pool)
    (True, [(1, '<i8')])
    """

    def __init__(self, keys: np.ndarray, pool: dict | None = None) -> None:
        self.keys = keys
        self.pool = pool
        self.j = 0

    def _out(self, dtype) -> np.ndarray:
        """Where draw ``j`` writes its values: the pool's array for it, or a new one."""
        if self.pool is None:
            return np.empty(self.keys.shape, dtype)
        return reused(self.pool, (self.j, np.dtype(dtype).str), self.keys.size, dtype).reshape(self.keys.shape)

    def random(self, size=None) -> np.ndarray:
        """Uniform floats in [0, 1), 53 bits."""
        self._check(size)
        self.j += 1
        out = self._out(np.float64)
        uniforms(self.keys, self._inc(), out)
        return out

    def _inc(self) -> np.uint64:
        """What draw ``j`` adds to the keys before mixing: ``j * 0x9E3779B97F4A7C15 mod 2**64``."""
        return np.uint64(int(_GOLDEN) * self.j & (2**64 - 1))

    def integers(self, low, high=None, size=None, dtype=np.int64) -> np.ndarray:
        """Uniform integers in ``[low, high)`` (``high`` a scalar or an array of the packets' shape)."""
        if high is None:
            low, high = 0, low
        self._check(size)
        n = np.asarray(high, np.int64) - np.asarray(low, np.int64)
        if n.size not in (1, self.keys.size) or np.ndim(low):
            raise ValueError("PacketDraws.integers: a scalar low and a scalar or per-packet high")
        self.j += 1
        out = self._out(np.int64)
        uniform_ints(self.keys, self._inc(), int(low), n.reshape(-1), out)
        return out.astype(dtype, copy=False)

    def integers_other(self, n: int, other: np.ndarray) -> np.ndarray:
        """Uniform integers in ``[0, n)`` other than ``other`` (one per packet): ``integers(0, n - 1)``, one
        more from ``other`` on (a uniform destination other than the source, in one compiled pass).

        >>> d = PacketDraws(np.arange(6, dtype=np.uint64))
        >>> x = PacketDraws(d.keys).integers(0, 3, size=6)
        >>> other = np.array([0, 1, 2, 3, 0, 1])
        >>> bool((d.integers_other(4, other) == x + (x >= other)).all())
        True
        """
        self.j += 1
        out = self._out(np.int64)
        uniform_others(self.keys, self._inc(), int(n), np.asarray(other, np.int64).reshape(-1), out)
        return out

    def _check(self, size) -> None:
        if size is not None and tuple(np.atleast_1d(size)) != self.keys.shape:
            raise ValueError(f"PacketDraws: one value per packet ({self.keys.shape}), not {size}")


@compiled(cache=True, _nrt=False)
def uniforms(keys, inc, out):
    """``out[i] = (mix64(keys[i] + inc) >> 11) * 2**-53``: one uniform float in [0, 1) per key (53 bits)."""
    for i in range(keys.size):
        out.flat[i] = (mix64_jit(keys.flat[i] + inc) >> _S11) * 2.0**-53


@compiled(cache=True, _nrt=False)
def uniform_ints(keys, inc, low, n, out):
    """``out[i] = low + min(floor(u_i * n_i), n_i - 1)`` with ``u_i`` as :func:`uniforms` draws it and ``n``
    one bound per key or one for all (a 1-entry array)."""
    one = n.size == 1
    for i in range(keys.size):
        ni = n[0] if one else n[i]
        v = np.int64((mix64_jit(keys.flat[i] + inc) >> _S11) * 2.0**-53 * ni)
        out.flat[i] = low + min(v, ni - 1)


@compiled(cache=True, _nrt=False)
def uniform_others(keys, inc, n, other, out):
    """``out[i]``: :func:`uniform_ints` in ``[0, n - 1)``, plus one if that is at least ``other[i]``."""
    for i in range(keys.size):
        v = min(np.int64((mix64_jit(keys.flat[i] + inc) >> _S11) * 2.0**-53 * (n - 1)), n - 2)
        out.flat[i] = v + (v >= other[i])


@compiled(cache=True, _nrt=False)
def _segment(seg_t, c):
    """The index of the rate segment holding cycle ``c`` (segments start at ``seg_t``, increasing)."""
    return np.searchsorted(seg_t, c, side="right") - 1


@compiled(cache=True, inline="always", _nrt=False)
def _segment_end(seg_t, i, hi):
    """Where rate segment ``i`` ends, or ``hi`` if that is sooner."""
    return hi if i + 1 >= seg_t.size else min(hi, seg_t[i + 1])


@compiled(cache=True, inline="always", _nrt=False)
def _cell(base, c, su):
    """The hash of cell (cycle ``c``, terminal ``su``, a uint64): :func:`cell_keys` of one cell."""
    return mix64_jit(base ^ ((np.uint64(c) << _S32) | su))


@compiled(cache=True, _nrt=False)
def catch_up(base, fr, room, a, seg_t, seg_thr, out_join, out_created, out_src, out_key, n0):
    """Draw the coins of the terminals behind ``a`` (``fr[s] < a``) up to ``a`` while they have ``room[s]``
    packets of room; write the hits from ``out_*[n0]`` on, joining at ``a``, grouped by terminal, each
    terminal's in creation order (``out_key``: the cell's hash, :func:`cell_keys`, the root of the packet's
    draws). A terminal out of room stops at the cycle of the packet it could not place: ``fr[s]`` is that
    cycle, and a later call draws it again (the same hit). ``room`` is used up.

    Returns
    -------
    (n, status)
        The entries written so far (from 0) and 0, or :data:`FULL` when the outputs filled up first (call
        again with wider outputs and ``n0 = n``: the frontiers say where each terminal stopped).
    """
    n = n0
    cap = out_src.size
    for s in range(fr.size):
        c = fr[s]
        if c >= a or room[s] <= 0:
            continue
        i = _segment(seg_t, c)
        su = np.uint64(s)
        while c < a:
            end = _segment_end(seg_t, i, a)
            thr = seg_thr[i]
            if thr == 0:
                c = end
            else:
                while c < end:
                    h = _cell(base, c, su)
                    if (h >> _S11) < thr:
                        if room[s] == 0 or n == cap:
                            break
                        out_join[n] = a
                        out_created[n] = c
                        out_src[n] = s
                        out_key[n] = h
                        n += 1
                        room[s] -= 1
                    c += 1
                if c < end:
                    break
            i += 1
        fr[s] = c
        if c < a and n == cap:
            return n, FULL
    return n, 0


@compiled(cache=True, _nrt=False)
def draw_span(base, fr, room, a, b, seg_t, seg_thr, t_created, t_src, t_key, m0):
    """Draw the coins of cycles ``[a, b)`` of each terminal at ``a`` (``fr[s] == a``) while it has room,
    terminal by terminal; write the hits from ``t_*[m0]`` on (:func:`by_cycle` then orders them by cycle).

    A terminal with room for every cycle of the span draws without a branch per coin (each coin's entry is
    written and kept when it hits), so ``t_*`` need ``b - a`` entries of slack. Otherwise as
    :func:`catch_up`: a terminal out of room stops at the cycle of the packet it could not place.

    Returns
    -------
    (m, status)
        As :func:`catch_up`'s ``(n, status)``.
    """
    m = m0
    cap = t_src.size
    for s in range(fr.size):
        if fr[s] != a or room[s] <= 0:
            continue
        if m + (b - a) >= cap:
            return m, FULL
        su = np.uint64(s)
        c = a
        i = _segment(seg_t, c)
        r = room[s]
        while c < b:
            end = _segment_end(seg_t, i, b)
            thr = seg_thr[i]
            if thr == 0:
                c = end
            elif r >= end - c:                   # cannot run out of room: no branch per coin
                m1 = m
                for cc in range(c, end):
                    h = _cell(base, cc, su)
                    t_created[m] = cc
                    t_src[m] = s
                    t_key[m] = h
                    m += (h >> _S11) < thr
                r -= m - m1
                c = end
            else:
                while c < end:
                    h = _cell(base, c, su)
                    if (h >> _S11) < thr:
                        if r == 0:
                            break
                        t_created[m] = c
                        t_src[m] = s
                        t_key[m] = h
                        m += 1
                        r -= 1
                    c += 1
                if c < end:
                    break
            i += 1
        fr[s] = c
        room[s] = r
    return m, 0


@compiled(cache=True, _nrt=False)
def draw_free(base, T, a, b, thr, out_join, out_created, out_src, out_key, n0):
    """Draw the coins of cycles ``[a, b)`` of all ``T`` terminals at threshold ``thr`` when every terminal is
    at ``a`` with room for every cycle (the common case below saturation): cycle by cycle, each cycle's by
    terminal, without a branch per coin, straight into ``out_*`` from ``n0`` on (the caller moves the
    frontiers to ``b``). Returns ``(n, status)``: :data:`FULL` when ``out_*`` have fewer than ``T`` entries
    of slack left at some cycle (nothing is kept: call again from ``n0`` with wider outputs)."""
    n = n0
    cap = out_src.size
    for c in range(a, b):
        if n + T > cap:
            return n0, FULL
        for s in range(T):
            h = _cell(base, c, np.uint64(s))
            out_join[n] = c
            out_created[n] = c
            out_src[n] = s
            out_key[n] = h
            n += (h >> _S11) < thr
    return n, 0


@compiled(cache=True, _nrt=False)
def by_cycle(t_created, t_src, t_key, m, a, count, out_join, out_created, out_src, out_key, n0):
    """Append :func:`draw_span`'s ``m`` hits to ``out_*`` from ``n0`` on in creation-cycle order, each
    cycle's by terminal (a stable counting sort on the cycle; ``count`` has ``b - a + 1`` entries); each
    joins in its creation cycle. Returns the entries written (from 0)."""
    count[:] = 0
    for k in range(m):
        count[t_created[k] - a + 1] += 1
    for j in range(1, count.size):
        count[j] += count[j - 1]
    for k in range(m):
        c = t_created[k]
        j = n0 + count[c - a]
        count[c - a] += 1
        out_join[j] = c
        out_created[j] = c
        out_src[j] = t_src[k]
        out_key[j] = t_key[k]
    return n0 + m


@compiled(cache=True, _nrt=False)
def count_cells(base, lo, hi, seg_t, seg_thr):
    """Packets created in cycles ``[lo[s], hi)`` by each terminal ``s``, all terminals together (the coins
    drawn again; nothing is generated)."""
    total = 0
    for s in range(lo.size):
        c = lo[s]
        if c >= hi:
            continue
        i = _segment(seg_t, c)
        su = np.uint64(s)
        while c < hi:
            end = _segment_end(seg_t, i, hi)
            thr = seg_thr[i]
            if thr != 0:
                for cc in range(c, end):
                    if (_cell(base, cc, su) >> _S11) < thr:
                        total += 1
            c = end
            i += 1
    return total


class Sources:
    """Every terminal's Bernoulli source (router-spec §R3): rates by stretch of cycles and frontiers.

    Parameters
    ----------
    terminals : int
        The network's terminals.
    seed : int
        The run's seed (the coins and draws are hashes of it, the terminal and the cycle).
    """

    def __init__(self, terminals: int, seed: int) -> None:
        self.T = terminals
        self.base = seed_base(seed)
        #: per terminal, the first cycle whose coin it has not drawn
        self.fr = np.zeros(terminals, np.int64)
        #: the rate stretches: from cycle ``seg_t[i]`` on, the threshold ``seg_thr[i]`` (:func:`threshold`)
        self.seg_t = np.zeros(1, np.int64)
        self.seg_thr = np.zeros(1, np.uint64)
        self._out, self._tmp = self._arrays(0, 4), self._arrays(0, 3)

    def rate(self, t: int, p: float) -> None:
        """From cycle ``t`` on (no earlier than the last stretch's start), each cycle's coin hits with
        probability ``p``."""
        thr = threshold(p)
        if thr == self.seg_thr[-1]:
            return
        if t < self.seg_t[-1]:
            raise ValueError("Sources.rate: stretches start in increasing cycles")
        if t == self.seg_t[-1]:
            self.seg_thr[-1] = thr
        else:
            self.seg_t = np.append(self.seg_t, np.int64(t))
            self.seg_thr = np.append(self.seg_thr, thr)

    def behind(self, t: int) -> bool:
        """Does any terminal still have coins of cycles before ``t`` to draw?"""
        return bool(self.fr.min(initial=t) < t)

    def generate(self, a: int, b: int, room: np.ndarray) -> dict[str, np.ndarray]:
        """The packets of a kernel call over ``[a, b)``, in the kernel's order: those of the terminals behind
        ``a`` catching up (:func:`catch_up`, joining at ``a``), then those of cycles ``[a, b)``
        (:func:`draw_span`, :func:`by_cycle`); per packet ``join`` (the cycle it joins its source queue),
        ``created``, ``src`` and ``key`` (:func:`cell_keys`). ``room`` (packets per terminal) is used up.
        The columns are views of buffers the next call overwrites."""
        T, span = self.T, b - a
        p = float(self.seg_thr[-1]) * 2.0**-53
        cap = int(1.25 * p * T * span) + 4 * T + span + 64
        if self._out[0].size < cap:   # reused from call to call (fresh pages cost more than the draws)
            self._out, self._tmp = self._arrays(cap, 4), self._arrays(cap, 3)
        out, tmp = self._out, self._tmp
        n = 0
        while True:
            n, status = catch_up(self.base, self.fr, room, a, self.seg_t, self.seg_thr, *out, n)
            if status != FULL:
                break
            out = self._out = self._wider(out, n)
        i = _segment(self.seg_t, a)
        if _segment_end(self.seg_t, i, b) == b and bool((self.fr == a).all()) \
                and int(room.min(initial=span)) >= span:     # every terminal free for the whole span
            while True:
                n1, status = draw_free(self.base, T, a, b, self.seg_thr[i], *out, n)
                if status != FULL:
                    break
                out = self._out = self._wider(out, n)
            self.fr[:] = b
            room -= np.bincount(out[2][n:n1], minlength=T)
            n = n1
        else:
            m = 0
            while True:
                m, status = draw_span(self.base, self.fr, room, a, b, self.seg_t, self.seg_thr, *tmp, m)
                if status != FULL:
                    break
                tmp = self._tmp = self._wider(tmp, m)
            if n + m > out[0].size:
                out = self._out = self._wider(out, n, n + m)
            n = by_cycle(*tmp, m, a, np.empty(span + 1, np.int64), *out, n)
        return {"join": out[0][:n], "created": out[1][:n], "src": out[2][:n], "key": out[3][:n]}

    @staticmethod
    def _arrays(cap: int, k: int) -> list[np.ndarray]:
        """``k`` output columns of ``cap`` entries: int64 ones, then the uint64 keys."""
        return [np.empty(cap, np.int64) for _ in range(k - 1)] + [np.empty(cap, np.uint64)]

    @staticmethod
    def _wider(cols: list[np.ndarray], n: int, need: int = 0) -> list[np.ndarray]:
        """``cols`` at twice their size (at least ``need``), their first ``n`` entries kept."""
        size = max(2 * cols[0].size, need)
        wider = [np.empty(size, c.dtype) for c in cols]
        for w, c in zip(wider, cols):
            w[:n] = c[:n]
        return wider

    def count(self, lo: np.ndarray, hi: int) -> int:
        """Packets created in cycles ``[lo[s], hi)`` by the terminals together (generated or not)."""
        return int(count_cells(self.base, lo.astype(np.int64, copy=False), hi, self.seg_t, self.seg_thr))
