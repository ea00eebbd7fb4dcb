"""Traffic patterns of the golden simulator: who sends to whom.

A pattern maps source terminals to destination terminals. The simulator makes
one :class:`Pattern` per simulation with :func:`make_pattern` and asks it, each
cycle, for the destinations of the packets it injects
(:meth:`Pattern.destinations`, vectorised). Everything random in a pattern
comes either from ``seed`` (fixed choices: a random permutation, the hot
terminals) or from the ``rng`` the simulator passes in (per-packet choices),
so a simulation is reproducible from its seeds.

Conventions
-----------
* Terminal ids are ``0 .. T-1``; terminal ``t`` belongs to router
  ``net.inj_router[t]`` (its *injection* router; for indirect networks such as
  the butterfly that is the router a pattern's "router of t" means).
* **Grid families** (``fbfly``, ``hyperx``, ``2dfb``, ``torus``, ``mesh``,
  ``hypercube``) have router coordinates ``net.coords`` (dimension 1 least
  significant, router index ``sum_d x_d prod_{e<d} k_e``) and ``c`` terminals
  per router; a terminal's *slot* is its index among its router's terminals
  (``t = r*c + slot``). Coordinate patterns move the router and keep the slot.
  A grid network with no dimension (``fbfly`` with ``n=1``: one router) is
  treated as non-grid.
* Bit patterns act on the ``b = log2(T)``-bit terminal id ``s_{b-1} .. s_0``
  and need ``T`` to be a power of two.
* Patterns that can map a terminal to itself (the simulator then delivers the
  packet through the terminal's own router) have ``self_traffic = True``:
  ``bit-reversal``, ``bit-flip``, ``transpose``, ``matrix-transpose``, ``shuffle``, ``randperm``,
  ``tornado`` (when ``ceil(k/2)-1 = 0 mod k``, i.e. ``k = 2``; ``T = 2`` for
  non-grid networks). ``uniform``, ``worst-case``, ``complement``, ``shift``,
  ``neighbor``, ``hotspot`` and the three ``2dfb-*`` patterns never do.

Examples
--------
>>> import numpy as np
>>> from radixnet.gen import build
>>> net = build("fbfly", k=4, n=2)              # 4 routers x 4 terminals
>>> p = make_pattern("bit-reversal", net)
>>> p.destinations(np.array([1, 2, 3]), np.random.default_rng(0)).tolist()
[8, 4, 12]
>>> wc = make_pattern("worst-case", net)         # router i -> router i+1
>>> d = wc.destinations(np.arange(16), np.random.default_rng(0))
>>> (net.inj_router[d] - net.inj_router[np.arange(16)]).tolist() == [1] * 12 + [-3] * 4
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..gen.network import Network
from ..gen.params import Param, ParamError
from .sources import PacketDraws

__all__ = ["DEFAULT_TRAFFIC", "Pattern", "PATTERNS", "PATTERN_OPTIONS", "GRID_FAMILIES", "make_pattern", "integers_below"]

#: The traffic every tool takes when none is given (``radixnet sim``, ``sweep``, ``cosim``, the golden model's
#: :class:`~radixnet.golden.sim.SimConfig` and the co-simulation's entry points).
DEFAULT_TRAFFIC = "uniform"

#: Families whose routers sit on a full grid given by ``net.coords``.
GRID_FAMILIES = frozenset({"fbfly", "hyperx", "2dfb", "torus", "mesh", "hypercube"})


class Pattern:
    """A traffic pattern bound to one network (one instance per simulation).

    Parameters
    ----------
    name : str
        Pattern name (a key of :data:`PATTERNS`).
    doc : str
        One-line definition.
    deterministic : bool
        True when each source always sends to the same destination (a permutation).
    self_traffic : bool
        True when some source can be its own destination.
    table : ndarray of int, optional
        For deterministic patterns, ``table[s]`` is the destination of source ``s``.
    """

    def __init__(self, name: str, doc: str, deterministic: bool, self_traffic: bool,
                 table: np.ndarray | None = None) -> None:
        self.name = name
        self.doc = doc
        self.deterministic = deterministic
        self.self_traffic = self_traffic
        self.table = None if table is None else np.ascontiguousarray(table, dtype=np.int64)

    def destinations(self, src: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Destination terminal of each source terminal.

        Parameters
        ----------
        src : ndarray of int
            Source terminal ids (any shape; may repeat).
        rng : numpy.random.Generator
            Per-packet randomness (unused by deterministic patterns).

        Returns
        -------
        ndarray of int64
            Destination terminal ids, same shape as ``src``.
        """
        src = np.asarray(src, dtype=np.int64)
        if self.table is None:  # pragma: no cover - subclasses override
            raise NotImplementedError
        return self.table[src]

    def __repr__(self) -> str:
        return f"Pattern({self.name!r}: {self.doc})"


def integers_below(rng: np.random.Generator, high: np.ndarray) -> np.ndarray:
    """``rng.integers(0, high)`` for an array of bounds; a bound that is the same everywhere takes numpy's
    scalar path, which draws the same numbers about 4x faster.

    >>> a = integers_below(np.random.default_rng(5), np.full(1000, 31))
    >>> bool((a == np.random.default_rng(5).integers(0, np.full(1000, 31), dtype=np.int64)).all())
    True
    """
    high = np.asarray(high, dtype=np.int64)
    if high.size and high.min() == high.max():
        return rng.integers(0, int(high.flat[0]), size=high.shape, dtype=np.int64)
    return rng.integers(0, high, dtype=np.int64)


class _Uniform(Pattern):
    def __init__(self, name: str, doc: str, T: int) -> None:
        super().__init__(name, doc, deterministic=False, self_traffic=False)
        self.T = T

    def destinations(self, src, rng):
        src = np.asarray(src, dtype=np.int64)
        if isinstance(rng, PacketDraws):   # the same numbers, in one compiled pass
            return rng.integers_other(self.T, src).reshape(src.shape)
        d = rng.integers(0, self.T - 1, size=src.shape, dtype=np.int64)
        return d + (d >= src)


class _RandomInGroup(Pattern):
    """Random terminal of a destination router (worst-case)."""

    def __init__(self, name: str, doc: str, groups: "_Groups", dst_group: np.ndarray) -> None:
        super().__init__(name, doc, deterministic=False, self_traffic=False)
        self.g = groups
        self.dst_group = dst_group  # per router (group) index

    def destinations(self, src, rng):
        src = np.asarray(src, dtype=np.int64)
        g = self.g
        sg = g.group[src]
        dg = self.dst_group[sg]
        same = (dg == sg).astype(np.int64)
        x = integers_below(rng, g.count[dg] - same)
        x = x + (same.astype(bool) & (x >= g.slot[src]))
        return g.members[g.start[dg] + x]


class _Hotspot(Pattern):
    def __init__(self, name: str, doc: str, T: int, hot: np.ndarray, fraction: float) -> None:
        super().__init__(name, doc, deterministic=False, self_traffic=False)
        self.T, self.hot, self.fraction = T, np.sort(hot), float(fraction)
        self._uniform = _Uniform(name, doc, T)

    def destinations(self, src, rng):
        src = np.asarray(src, dtype=np.int64)
        d = self._uniform.destinations(src, rng)
        to_hot = rng.random(size=src.shape) < self.fraction
        h = self.hot.size
        pos = np.searchsorted(self.hot, src)
        is_hot = (pos < h) & (self.hot[np.minimum(pos, h - 1)] == src)
        # A hot source sends its hot packets to another hot terminal; with one
        # hot terminal it has none, and all its packets are uniform.
        n_choice = h - is_hot.astype(np.int64)
        to_hot &= n_choice > 0
        x = integers_below(rng, np.maximum(n_choice, 1))
        x = x + (is_hot & (x >= pos))
        return np.where(to_hot, self.hot[np.minimum(x, h - 1)], d)


@dataclass
class _Groups:
    """Terminals grouped by injection router, over the routers that have terminals."""

    routers: np.ndarray   # (G,) router index of each group, increasing
    group: np.ndarray     # (T,) group of each terminal
    slot: np.ndarray      # (T,) rank of each terminal within its group
    start: np.ndarray     # (G,) offset of each group in members
    count: np.ndarray     # (G,) terminals per group
    members: np.ndarray   # (T,) terminals sorted by (group, id)

    @classmethod
    def of(cls, net: Network) -> "_Groups":
        inj = net.inj_router
        routers, group, count = np.unique(inj, return_inverse=True, return_counts=True)
        members = np.argsort(group, kind="stable").astype(np.int64)
        start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
        slot = np.empty_like(members)
        slot[members] = np.arange(members.size) - start[group[members]]
        return cls(routers.astype(np.int64), group.astype(np.int64), slot, start,
                   count.astype(np.int64), members)


class _Grid:
    """The router grid of a grid-family network with uniform concentration."""

    def __init__(self, net: Network) -> None:
        self.dims = (net.coords.max(axis=0) + 1).astype(np.int64)
        self.strides = np.cumprod(np.concatenate([[1], self.dims[:-1]])).astype(np.int64)
        if int(np.prod(self.dims)) != net.num_routers or not np.array_equal(
                net.coords @ self.strides, np.arange(net.num_routers)):
            raise ParamError("traffic", f"the routers of this {net.family} network do not form a "
                                        "coordinate grid (router index = sum x_d prod_{e<d} k_e)")
        per = net.terminals_per_router()
        self.c = int(per[0])
        g = _Groups.of(net)
        if np.any(per != self.c) or not np.array_equal(g.members, np.arange(net.num_terminals)):
            raise ParamError("traffic", "coordinate patterns need the same number of terminals on every router, "
                                        "numbered router by router")
        self.coords = net.coords
        self.slot = g.slot

    def move(self, offsets: np.ndarray) -> np.ndarray:
        """Permutation table: terminal (router x, slot j) -> (router (x + offsets[j]) mod k, slot j).

        ``offsets`` has shape (D,) (same for every slot) or (c, D).
        """
        offsets = np.broadcast_to(np.asarray(offsets, dtype=np.int64), (self.c, self.dims.size))
        r = np.repeat(np.arange(self.coords.shape[0], dtype=np.int64), self.c)
        new = (self.coords[r] + offsets[self.slot]) % self.dims
        return (new @ self.strides) * self.c + self.slot


# ----------------------------------------------------------------- registry
@dataclass(frozen=True)
class _Spec:
    doc: str
    source: str
    options: tuple[Param, ...]
    make: Callable[..., Pattern]


_SPECS: dict[str, _Spec] = {}


def _register(name: str, doc: str, source: str, options: tuple[Param, ...] = ()):
    def deco(fn):
        _SPECS[name] = _Spec(doc, source, options, fn)
        return fn
    return deco


def _grid(net: Network) -> _Grid | None:
    if net.family in GRID_FAMILIES and net.coords is not None and net.coords.shape[1] > 0:
        return _Grid(net)
    return None


def _need_grid(name: str, net: Network) -> _Grid:
    g = _grid(net)
    if g is None:
        got = f"{net.family} with no dimension" if net.family in GRID_FAMILIES else net.family
        raise ParamError("traffic", f"{name} is defined on router coordinates: it needs a grid network with "
                                    f"at least one dimension ({', '.join(sorted(GRID_FAMILIES))}; got {got})")
    return g


def _bits(name: str, T: int) -> int:
    if T & (T - 1):
        raise ParamError("traffic", f"{name} needs a power-of-two number of terminals (got {T})")
    return T.bit_length() - 1


def _perm(name: str, table: np.ndarray, self_traffic: bool | None = None) -> Pattern:
    table = np.asarray(table, dtype=np.int64)
    if self_traffic is None:
        self_traffic = bool(np.any(table == np.arange(table.size)))
    return Pattern(name, _SPECS[name].doc, deterministic=True, self_traffic=self_traffic, table=table)


@_register("uniform", "uniform random over all terminals except the source",
           "Kim et al. 2007 §3.2 (UR); Rahman et al. 2009 §5.4.1")
def _make_uniform(net, seed, name):
    return _Uniform(name, _SPECS[name].doc, net.num_terminals)


@_register("worst-case", "each terminal of router R_i sends to a random terminal of R_(i+1): "
                         "every coordinate +1 mod k on grids, router +1 mod R otherwise",
           "Kim et al. 2007 §3.2 (WC); seeds README")
def _make_worst_case(net, seed, name):
    groups = _Groups.of(net)
    G = groups.routers.size
    grid = _grid(net)
    if grid is None:
        dst_group = (np.arange(G, dtype=np.int64) + 1) % G
    else:  # groups are all routers, in index order
        dst = ((grid.coords + 1) % grid.dims) @ grid.strides
        dst_group = dst.astype(np.int64)
    return _RandomInGroup(name, _SPECS[name].doc, groups, dst_group)


@_register("2dfb-benign", "terminal pair p = slot//2 of each router sends to the router with every "
                          "coordinate +(p+1) mod k, same slot (one pair per direct link)",
           "Thamarakuzhi & Chandy §IV.1 (benign)")
def _make_2dfb_benign(net, seed, name):
    g = _need_grid(name, net)
    pairs = -(-g.c // 2)
    kmin = int(g.dims.min())
    if pairs > kmin - 1:
        raise ParamError("traffic", f"{name} sends each pair of a router's terminals to a different direct "
                                    f"neighbour, so it needs at most 2(k-1) = {2 * (kmin - 1)} terminals per "
                                    f"router (got {g.c})")
    p = np.arange(g.c, dtype=np.int64) // 2
    return _perm(name, g.move(np.repeat((p + 1)[:, None], g.dims.size, axis=1)), self_traffic=False)


@_register("2dfb-adversarial", "all terminals of router S_i send to router S_(i+j): every coordinate "
                               "+j mod k (option offset j, default 1), same slot",
           "Thamarakuzhi & Chandy §IV.2 (adversarial)",
           (Param("offset", int, 1, "router offset j of 2dfb-adversarial (per coordinate)", minimum=1),))
def _make_2dfb_adversarial(net, seed, name, offset):
    g = _need_grid(name, net)
    kmin = int(g.dims.min())
    if offset > kmin - 1:
        raise ParamError("offset", f"must be an integer in [1, {kmin - 1}] (k-1 for the smallest dimension, "
                                   f"so that S_(i+j) is another router; got {offset})")
    return _perm(name, g.move(np.full(g.dims.size, offset)), self_traffic=False)


@_register("2dfb-random", "random permutation without fixed points, fixed by seed "
                          "(destinations selected randomly, permutation traffic)",
           "Thamarakuzhi & Chandy §IV.3 (random) and §IV (permutation type)")
def _make_2dfb_random(net, seed, name):
    T = net.num_terminals
    rng = np.random.default_rng(seed)
    while True:  # rejection: uniform over derangements, ~e tries on average
        table = rng.permutation(T)
        if not np.any(table == np.arange(T)):
            return _perm(name, table, self_traffic=False)


@_register("matrix-transpose", "Node(x, y) -> Node(y, x) at every level: each (y_l, x_l) digit pair of a TTN/TESH "
                              "address swapped (the node in its BM, and the subnetwork at each higher level); on a "
                              "grid the coordinate order reversed (k x k: x1 <-> x2); same slot",
           "Rahman et al. 2009 §5.3, §5.4.3 (matrix transpose)")
def _make_matrix_transpose(net, seed, name):
    """Rahman et al. 2009 §5.4.3: "each node sends messages to a node with an address of the reversed
    dimension index, i.e., Node(x, y) communicates with Node(y, x). In the BM, Node(x, y) sends messages to
    Node(y, x). At higher levels, the x-coordinates and y-coordinates of the subnet modules at a certain
    level are transposed. For instance, in the Level-2 TTN, BM(x, y) sends messages to BM(y, x)."

    On a TTN/TESH every address group ``(y_l, x_l)`` of Eq. 1 is swapped at once (router index
    ``sum_i a_i k^i``, :mod:`radixnet.gen.families.ttn`); on a grid the coordinate order is reversed
    (a k x k grid: the two coordinates swapped; the "reversed dimension index"), which needs dimension
    sizes that read the same backwards (one dimension: the identity). The terminal's slot on its router
    is kept. Nodes whose address reads the same transposed map to themselves (``self_traffic``).
    """
    groups = _Groups.of(net)
    per = net.terminals_per_router()
    c = int(per.max(initial=0))
    if np.any(per != c) or not np.array_equal(groups.members, np.arange(net.num_terminals)):
        raise ParamError("traffic", f"{name} needs the same number of terminals on every router, numbered router "
                                    "by router")
    if net.family in ("ttn", "tesh"):
        from ..gen.families.ttn import transpose_routers

        new_router = transpose_routers(net)
    else:
        g = _need_grid(name, net)
        if not np.array_equal(g.dims, g.dims[::-1]):
            raise ParamError("traffic", f"{name} reverses the coordinate order, so it needs a ttn/tesh network or a "
                                        f"grid whose dimension sizes read the same backwards (got {net.family} "
                                        f"with dims {g.dims.tolist()})")
        new_router = g.coords[:, ::-1] @ g.strides
    t = np.arange(net.num_terminals, dtype=np.int64)
    return _perm(name, new_router[net.inj_router] * c + groups.slot[t])


@_register("sf-worst-case", "routers joined in paths R1-R2-R3-R4 (R2 the only common neighbour of R1 and R3, R3 "
                           "of R2 and R4); slot j of R1 <-> slot j of R3 and of R2 <-> R4, so 2p minimal routes "
                           "share the channel R2 -> R3 (and R3 -> R2); routers left over are paired",
           "Besta & Hoefler, Slim Fly talk (worst-case traffic); Besta & Hoefler SC14 §5")
def _make_sf_worst_case(net, seed, name):
    """The Slim Fly talk's "worst-case traffic" for minimal routing (Besta & Hoefler, SC14 §5): a
    permutation that puts as many minimal routes as possible on single channels.

    A diameter-2 network has no more than two hops per minimal route, so the most routes that can
    share one channel without sharing an endpoint router are those of two router pairs at distance 2
    whose minimal paths run in opposite ends through the same channel: ``R1 -> R2 -> R3`` and
    ``R2 -> R3 -> R4``. Routers are grouped greedily (in an order drawn from ``seed``, the best of 64
    orders) into such paths ``R1-R2-R3-R4`` in which R2 is the *only* common neighbour of R1 and R3 and
    R3 the only one of R2 and R4, so every minimal routing uses the channels ``R2 -> R3`` and
    ``R3 -> R2``. Terminal slot j of R1 and slot j of R3 send to each other, and so do R2 and R4: each of
    the two channels carries the 2p flows of 4p terminals, and minimal routing is limited to
    ``1 / (2p)`` flits per terminal per cycle (p terminals per router). Routers that fit no path (e.g.
    2 of the 50 of q = 5) are paired with each other (at distance 2 where possible).
    """
    groups = _Groups.of(net)
    per = net.terminals_per_router()
    routers = groups.routers
    c = int(per[routers].max(initial=0))
    if np.any(per[routers] != c) or not np.array_equal(groups.members, np.arange(net.num_terminals)):
        raise ParamError("traffic", f"{name} needs the same number of terminals on every router that has any, "
                                    "numbered router by router")
    if routers.size < 2:
        raise ParamError("traffic", f"{name} needs at least two routers with terminals (got {routers.size})")
    from ..gen.families.slimfly import worst_case_partners

    partner = worst_case_partners(net, routers, seed)
    t = np.arange(net.num_terminals, dtype=np.int64)
    src_router = net.inj_router
    dst_router = partner[src_router]
    slot = groups.slot[t]
    same = dst_router == src_router
    slot = np.where(same, (slot + 1) % c, slot)
    table = groups.start[np.searchsorted(routers, dst_router)] + slot
    return _perm(name, groups.members[table])


@_register("bit-reversal", "d_i = s_(b-1-i): the address bits reversed",
           "Rahman et al. 2009 §5.4.4")
def _make_bit_reversal(net, seed, name):
    T = net.num_terminals
    b = _bits(name, T)
    return _perm(name, _reverse(np.arange(T, dtype=np.int64), b))


@_register("complement", "d_i = NOT s_i: every address bit inverted",
           "Rahman et al. 2009 §5.4.5")
def _make_complement(net, seed, name):
    T = net.num_terminals
    _bits(name, T)
    return _perm(name, (T - 1) ^ np.arange(T, dtype=np.int64), self_traffic=False)


@_register("bit-flip", "d_i = NOT s_(b-1-i): complement of bit-reversal",
           "Rahman et al. 2009 §5.4.6")
def _make_bit_flip(net, seed, name):
    T = net.num_terminals
    b = _bits(name, T)
    return _perm(name, (T - 1) ^ _reverse(np.arange(T, dtype=np.int64), b))


@_register("transpose", "d_i = s_((i + b/2) mod b): high and low halves of the address swapped",
           "Rahman et al. 2009 §5.4.3 (matrix transpose); bit form as in Dally & Towles §3.2")
def _make_transpose(net, seed, name):
    T = net.num_terminals
    b = _bits(name, T)
    if b % 2:
        raise ParamError("traffic", f"transpose swaps two halves of the address bits, so it needs an even "
                                    f"number of bits: T = 4^m terminals (got T={T}, {b} bits)")
    s = np.arange(T, dtype=np.int64)
    h = b // 2
    return _perm(name, (s >> h) | ((s & ((1 << h) - 1)) << h))


@_register("shuffle", "d_i = s_((i-1) mod b): perfect shuffle, address rotated left by 1 bit",
           "Rahman et al. 2009 §5.4.7")
def _make_shuffle(net, seed, name):
    T = net.num_terminals
    b = _bits(name, T)
    s = np.arange(T, dtype=np.int64)
    return _perm(name, ((s << 1) | (s >> (b - 1))) & (T - 1))


@_register("hotspot", "a fraction hotspot_fraction of packets go to one of the hotspots hot terminals "
                      "(chosen from seed), the rest uniform",
           "Rahman et al. 2009 §5.4.2 (Pfister & Norton); the threshold is hotspot_fraction",
           (Param("hotspots", int, 1, "number of hot terminals (hotspot)", minimum=1),
            Param("hotspot_fraction", float, 0.1, "fraction of packets sent to a hot terminal (hotspot)")))
def _make_hotspot(net, seed, name, hotspots, hotspot_fraction):
    T = net.num_terminals
    if hotspots > T:
        raise ParamError("hotspots", f"must be an integer in [1, {T}] (the number of terminals; got {hotspots})")
    if not (0.0 < hotspot_fraction <= 1.0):
        raise ParamError("hotspot_fraction", f"must be a number in (0, 1] (got {hotspot_fraction})")
    hot = np.random.default_rng(seed).choice(T, size=hotspots, replace=False).astype(np.int64)
    return _Hotspot(name, _SPECS[name].doc, T, hot, hotspot_fraction)


@_register("shift", "d = (s + shift) mod T (option shift, default T/2)",
           "Besta & Hoefler, Slim Fly talk (shift traffic)",
           (Param("shift", int, None, "terminal offset of shift (default T//2)", minimum=1),))
def _make_shift(net, seed, name, shift):
    T = net.num_terminals
    shift = T // 2 if shift is None else shift
    if shift > T - 1:
        raise ParamError("shift", f"must be an integer in [1, {T - 1}] (T-1; got {shift})")
    return _perm(name, (np.arange(T, dtype=np.int64) + shift) % T, self_traffic=False)


@_register("randperm", "a random permutation of the terminals fixed by seed (fixed points allowed)",
           "random permutation traffic, Dally & Towles §3.2")
def _make_randperm(net, seed, name):
    return _perm(name, np.random.default_rng(seed).permutation(net.num_terminals), self_traffic=True)


@_register("tornado", "every router coordinate x_d -> x_d + ceil(k_d/2) - 1 mod k_d, same slot; "
                      "non-grid: d = s + ceil(T/2) - 1 mod T",
           "Dally & Towles §3.2 (tornado)")
def _make_tornado(net, seed, name):
    g = _grid(net)
    if g is None:
        T = net.num_terminals
        return _perm(name, (np.arange(T, dtype=np.int64) + (-(-T // 2) - 1)) % T)
    return _perm(name, g.move(-(-g.dims // 2) - 1))


@_register("neighbor", "nearest neighbour: router coordinate x_1 -> x_1 + 1 mod k_1, same slot; "
                       "non-grid: d = s + 1 mod T",
           "Dally & Towles §3.2 (neighbor), applied in dimension 1")
def _make_neighbor(net, seed, name):
    g = _grid(net)
    if g is None:
        T = net.num_terminals
        return _perm(name, (np.arange(T, dtype=np.int64) + 1) % T, self_traffic=False)
    off = np.zeros(g.dims.size, dtype=np.int64)
    off[0] = 1
    return _perm(name, g.move(off), self_traffic=False)


def _reverse(s: np.ndarray, b: int) -> np.ndarray:
    out = np.zeros_like(s)
    for i in range(b):
        out |= ((s >> i) & 1) << (b - 1 - i)
    return out


#: Pattern name -> one-line definition (for ``radixnet sim --traffic NAME`` and the docs).
PATTERNS: dict[str, str] = {name: spec.doc for name, spec in _SPECS.items()}

#: Pattern name -> the options it takes (as :class:`~radixnet.gen.params.Param`).
PATTERN_OPTIONS: dict[str, tuple[Param, ...]] = {name: spec.options for name, spec in _SPECS.items()}

#: Pattern name -> where its definition comes from.
PATTERN_SOURCES: dict[str, str] = {name: spec.source for name, spec in _SPECS.items()}


def make_pattern(name: str, net: Network, seed: int = 0, **opts: Any) -> Pattern:
    """Bind traffic pattern ``name`` to ``net``.

    Parameters
    ----------
    name : str
        A key of :data:`PATTERNS`.
    net : Network
        The network whose terminals send and receive.
    seed : int
        Fixes the pattern's own random choices (``randperm``, ``2dfb-random``,
        the hot terminals of ``hotspot``); per-packet choices use the ``rng``
        given to :meth:`Pattern.destinations`.
    **opts
        Pattern options (see :data:`PATTERN_OPTIONS`); values may be strings
        (from the CLI). ``None`` means the default.

    Returns
    -------
    Pattern

    Raises
    ------
    ParamError
        ``--traffic`` for an unknown name or a network the pattern does not
        apply to; the option's name for a bad or unknown option.

    Examples
    --------
    >>> from radixnet.gen import build
    >>> make_pattern("transpose", build("fbfly", k=2, n=3))
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --traffic: transpose swaps two halves of the address bits, so it needs an even number of bits: T = 4^m terminals (got T=8, 3 bits)
    """
    spec = _SPECS.get(name)
    if spec is None:
        raise ParamError("traffic", f"unknown pattern {name!r} (one of {', '.join(_SPECS)})")
    known = {p.name: p for p in spec.options}
    for opt in opts:
        if opt not in known:
            takes = ", ".join("--" + n.replace("_", "-") for n in known) or "no options"
            raise ParamError(opt, f"not an option of traffic {name} (it takes {takes})")
    try:
        seed = int(seed)
    except (TypeError, ValueError):
        raise ParamError("seed", f"must be a non-negative integer (got {seed!r})") from None
    if seed < 0:
        raise ParamError("seed", f"must be a non-negative integer (got {seed})")
    T = net.num_terminals
    if T < 2:
        raise ParamError("traffic", f"{name} needs a network with at least 2 terminals (got {T})")
    values = {n: (p.default if opts.get(n) is None else p.convert(opts[n])) for n, p in known.items()}
    return spec.make(net, seed, name, **values)
