"""CLEX graphs C(s, l) (Lenzen & Wattenhofer, *CLEX: Yet Another Supercomputer Architecture?*).

The paper, §II-B, Definition 2.3 (CLEX Graphs):

    "Suppose for a constant s ∈ (0, 1] that n^s and 1/s are integer. We
    recursively define the (directed) CLEX graph C(s, l) of l ∈ {1, ..., 1/s}
    levels. Set C(s, 1) := K_{n^s}, i.e., a clique of n^s nodes, and label its
    nodes (1), (2), ..., (n^s). Assuming that C(s, l) is already defined,
    C(s, l+1) is composed of n^s isomorphic copies C(s, l)_i, i ∈ {1, ..., n^s},
    plus additional edges. Using the label (v_1, ..., v_l) ... a node
    v ∈ V(C(s, l)_i) inherits from C(s, l)_i, we can identify it uniquely with
    (v_1, ..., v_l, i) ∈ {1, ..., n^s}^(l+1). The edges of C(s, l+1) are all
    edges contained in the C(s, l)_i plus
    E_{i,l+1} := {((v_1, ..., v_l, i), (v_1, ..., v_{l-1}, j, v_l))
                  | j ∈ {1, ..., n^s} ∧ v ∈ V(C(s, l)_i)}."

Parameters here: ``k`` = n^s (nodes per level-1 clique) and ``levels`` = l.
The graph C(s, l) depends on s only through n^s = k, so radixnet builds
C(1/l, l), the full system of ``n = k^l`` nodes (the paper's C(1/4, 4) with
n = 32^4 is ``k=32, levels=4``; C(1/3, 3) with n = 64^3 is ``k=64, levels=3``).
A C(s, l) with l < 1/s is the same graph as ``levels=l``. ``n`` may be given
instead of ``k`` and must then be a perfect ``levels``-th power.

Addresses and coordinates
-------------------------
A node's address is the paper's label (v_1, ..., v_L), L = ``levels``;
v_1 is its index inside its level-1 clique and v_m (m >= 2) the copy index
added when level m was built. radixnet stores the digits 0-based
(coordinate = label - 1) in coord columns ``v1 .. vL`` and numbers routers
``r = sum_m v_m k^(m-1)`` (v_1 least significant).

Edges, read from the definition
-------------------------------
* Level 1: every node is linked to the k - 1 other nodes that differ only in
  v_1 (the clique K_k), in both directions.
* Level m >= 2 (the set E_{i,m} with l + 1 = m): node (…, v_{m-1}, v_m, …)
  has k *outgoing* edges, one per j, to (…, j, v_{m-1}, …): digit m takes the
  value of digit m-1, digit m-1 becomes j, all other digits are unchanged.
  Hence it has k incoming level-m edges, from (…, v_m, q, …), q = 0 .. k-1.
  The graph is directed as the paper says; each edge is one unidirectional
  channel. As the paper counts ("degrees increase by exactly n^s on each
  level. Thus, C(s, 1/s) has uniform degrees of n^s/s - 1"), every node has
  out-degree = in-degree = (k - 1) + (L - 1) k = kL - 1.
* The definition creates, literally, some degenerate edges (the paper mentions
  "the redundant links of node (1, 1) on level 1" in Fig. 1): a self-loop on
  level m where j = v_{m-1} = v_m, and channels parallel to a lower-level
  channel (level m with v_{m-1} = v_m, j != v_{m-1} and m = 2 or j = v_{m-2}).
  They are all kept by default (``loops=True``) so that degrees are exactly
  kL - 1 as the paper states; parallel channels get ``lane`` 1, and the
  self-loops of a node get lanes 0, 1, ... in level order. With
  ``loops=False`` the self-loop channels are omitted and their ports left
  unused (the port layout does not change).

Diameter
--------
The paper bounds the diameter by 2^l - 1 (§II-B recursion; the extraction
prints "2^s - 1") and §II-C calls it "2^(1/s) - 1". The directed graph built
here has diameter at most L: a level-1 hop sets v_1 := t_L, then levels
2, ..., L in turn shift it up to digit L while writing t_1 .. t_(L-1) below;
BFS finds exactly L on every instance tested (tests/test_clex.py). 2^L - 1 is the hop bound of the paper's
hierarchical algorithm A(l), not the graph's diameter.

Port layout (a contract for routing tables and the RTL)
-------------------------------------------------------
Every router has radix ``c + kL - 1``:

* ports ``0 .. c-1``: terminals;
* network ports ``0 .. k-2`` (router ports ``c .. c+k-2``): level 1; the
  neighbour with in-clique digit ``x != v_1`` is on port ``x - (x > v_1)``
  (input and output of a port face the same neighbour);
* level m = 2 .. L: network ports ``(k-1) + (m-2)k + j``, j = 0 .. k-1. Port j
  *outputs* to the node with digit m-1 := j and digit m := v_{m-1}, and
  *inputs* from the node with digit m-1 := v_m and digit m := j (input and
  output of one higher-level port face different neighbours in general).

Channel ``tag`` = level m (1 .. L, the paper's numbering; 1 = clique).

Choices where the paper is silent: the 0-based digit encoding and router
numbering above, the port order, one terminal per node (``c``), lanes of the
degenerate parallel channels, and keeping the self-loops by default.
The paper's remark that the n^s level-m edges of a node may be replaced by
one link of capacity n^s, and its Fig. 2 note that higher levels need not be
wired "precisely in this way", are not modelled.
"""

from __future__ import annotations

import math

import numpy as np

from ..builder import NetworkBuilder
from ..family import Family, Knowledge, register
from ..network import Network
from ..params import Param, ParamError

__all__ = ["build_clex", "clex_size", "clex_degree", "clex_diameter_bound", "clex_vertex_classes"]

#: largest number of representatives :func:`clex_vertex_classes` enumerates
MAX_CLASSES = 100_000


def clex_degree(k: int, levels: int) -> int:
    """Out- (and in-) degree of every node, §II-B: ``n^s/s - 1`` with n^s = k, 1/s = levels.

    >>> clex_degree(32, 4), clex_degree(64, 3)
    (127, 191)
    """
    return k * levels - 1


def clex_diameter_bound(levels: int) -> int:
    """§II-B: D(K_k) = 1 and D(C(s, l+1)) <= 2 D(C(s, l)) + 1, so D <= 2^l - 1.

    (The extraction prints "2^s - 1" in §II-B; §II-C restates it as
    "the diameter of C(s, 1/s) is 2^(1/s) - 1", which the recursion gives.)

    >>> clex_diameter_bound(4)
    15
    """
    return 2 ** levels - 1


def clex_size(k: int, levels: int, loops: bool = True) -> tuple[int, int]:
    """(routers, channels): ``k^L`` routers, ``k^L (kL - 1)`` channels, minus the
    ``(L - 1) k^(L-1)`` self-loops when ``loops`` is false.

    >>> clex_size(32, 4)
    (1048576, 133169152)
    >>> clex_size(64, 3)
    (262144, 50069504)
    """
    R = k ** levels
    C = R * clex_degree(k, levels)
    if not loops:
        C -= (levels - 1) * k ** (levels - 1)
    return R, C


def _digits(idx: np.ndarray, k: int, levels: int) -> np.ndarray:
    out = np.empty((idx.size, levels), dtype=np.int64)
    rest = idx.copy()
    for m in range(levels):
        out[:, m] = rest % k
        rest //= k
    return out


def build_clex(params: dict) -> Network:
    """Build C(1/L, L) with L = ``params["levels"]`` and cliques of ``params["k"]`` nodes."""
    k, L, c, loops = params["k"], params["levels"], params["c"], params["loops"]
    R = k ** L
    D = clex_degree(k, L)
    idx = np.arange(R, dtype=np.int64)
    v = _digits(idx, k, L)
    # Per router, one row of D channels in network-port order, so the channel
    # list comes out sorted by (src, src_port).
    dst = np.empty((R, D), dtype=np.int64)
    dport = np.empty((R, D), dtype=np.int64)
    lane = np.zeros((R, D), dtype=np.int64)
    loop = np.zeros((R, D), dtype=bool) if not loops else None
    tag = np.empty(D, dtype=np.int64)
    # level 1: the clique on digit 1
    v1 = v[:, :1]
    p = np.arange(k - 1, dtype=np.int64)[None, :]
    x = p + (p >= v1)                       # neighbour's digit 1, skipping our own
    dst[:, :k - 1] = idx[:, None] + (x - v1)
    dport[:, :k - 1] = v1 - (v1 > x)        # our position among the neighbour's k-1 peers
    tag[:k - 1] = 1
    # levels 2..L: E_{i,m}: (.., a=v_{m-1}, b=v_m, ..) -> (.., j, a, ..)
    nloops = np.zeros(R, dtype=np.int64)    # self-loops of the node on lower levels (their lanes)
    j = np.arange(k, dtype=np.int64)[None, :]
    for m in range(2, L + 1):
        base = (k - 1) + (m - 2) * k
        sl = slice(base, base + k)
        a = v[:, m - 2:m - 1]
        b = v[:, m - 1:m]
        dst[:, sl] = idx[:, None] + (j - a) * k ** (m - 2) + (a - b) * k ** (m - 1)
        dport[:, sl] = base + b             # at the target, the input port is our digit m
        tag[sl] = m
        same = a == b
        is_loop = same & (j == a)
        below = (j == v[:, m - 3:m - 2]) if m >= 3 else True
        lane[:, sl] = np.where(is_loop, nloops[:, None], (same & below & (j != a)).astype(np.int64))
        nloops += same[:, 0]
        if loop is not None:
            loop[:, sl] = is_loop
    sport = np.arange(D, dtype=np.int64)
    bld = NetworkBuilder("clex", params, R, radix=c + D)
    bld.terminals(np.repeat(idx, c))
    if loop is None:
        src = np.repeat(idx, D)
        bld.channels(src, dst.ravel(), np.tile(tag, R), lane.ravel(), np.tile(sport, R), dport.ravel())
    else:
        keep = ~loop
        rows = np.broadcast_to(idx[:, None], (R, D))[keep]
        bld.channels(rows, dst[keep], np.broadcast_to(tag, (R, D))[keep], lane[keep],
                     np.broadcast_to(sport, (R, D))[keep], dport[keep])
    del dst, dport, lane, loop
    return bld.build(coords=v, coord_names=tuple(f"v{m + 1}" for m in range(L)),
                     tag_names={1: "level1 (clique)", **{m: f"level{m}" for m in range(2, L + 1)}})


def _stirling2_row(n: int) -> list[int]:
    row = [1]                                # S(0, 0)
    for i in range(1, n + 1):
        new = [0] * (i + 1)
        for b in range(1, i + 1):
            new[b] = b * (row[b] if b < len(row) else 0) + row[b - 1]
        row = new
    return row


def clex_vertex_classes(k: int, levels: int) -> list[tuple[int, int]] | None:
    """Representatives (router, class size) of the orbits of relabelling all digits by one permutation.

    A permutation σ of {0..k-1} applied to every digit is an automorphism of
    C(s, l): it keeps level-1 cliques (digit 1 varies, others fixed) and maps a
    level-m edge (.., a, b, ..) -> (.., j, a, ..) to (.., σj, σa, ..), again a
    level-m edge (self-loops and parallel channels included). Its orbits are
    the equality patterns of the address (set partitions of the L digit
    positions into at most k blocks); a pattern with b blocks has
    k!/(k-b)! nodes. These orbits may be finer than the full automorphism
    orbits, which keeps distance metrics exact (every node of a class has the
    same distance profile). The graph is *not* vertex-transitive: with
    self-loops only nodes with v_{m-1} = v_m carry one on level m, and even
    without them such nodes have fewer distinct out-neighbours (for L = 2,
    (a, a) has k - 1, (a, b) has 2k - 1); the paper also notes these graphs
    are not Cayley graphs. Returns ``None`` when there would be more than
    :data:`MAX_CLASSES` classes.

    >>> clex_vertex_classes(3, 2)
    [(0, 3), (3, 6)]
    """
    count = sum(_stirling2_row(levels)[1:min(k, levels) + 1])
    if count > MAX_CLASSES:
        return None
    out: list[tuple[int, int]] = []

    def rec(prefix: list[int], used: int) -> None:
        if len(prefix) == levels:
            r = sum(d * k ** m for m, d in enumerate(prefix))
            out.append((r, math.perm(k, used)))
            return
        for d in range(min(used + 1, k)):
            rec(prefix + [d], max(used, d + 1))

    rec([], 0)
    out.sort()
    return out


def _knowledge(net: Network) -> Knowledge:
    k, L = net.params["k"], net.params["levels"]
    return Knowledge(vertex_classes=clex_vertex_classes(k, L), vertex_transitive=False,
                     extra={"paper_degree": clex_degree(k, L), "paper_diameter_bound": clex_diameter_bound(L)})


def _integer_root(n: int, e: int) -> int:
    r = max(1, int(round(math.exp(math.log(n) / e))))
    while r ** e > n:
        r -= 1
    while (r + 1) ** e <= n:
        r += 1
    return r


def _check(p: dict) -> None:
    L = p["levels"]
    if p["n"] is not None:
        r = _integer_root(p["n"], L)
        if r ** L != p["n"] or r < 2:
            near = f"{r}^{L}={r ** L} and {r + 1}^{L}={(r + 1) ** L}" if r >= 2 else f"2^{L}={2 ** L}"
            raise ParamError("n", f"must be k^levels for an integer k >= 2 (got {p['n']} with levels={L}; "
                                  f"nearest: {near})")
        if p["k"] is not None and p["k"] != r:
            raise ParamError("n", f"must equal k^levels = {p['k'] ** L} for k={p['k']}, levels={L} (got {p['n']})")
        p["k"] = r
    if p["k"] is None:
        p["k"] = 4
    p["n"] = p["k"] ** L


register(Family(
    name="clex",
    summary="CLEX C(s, l): cliques of k = n^s nodes, l levels of directed inter-copy edges (Lenzen & Wattenhofer)",
    params=(
        Param("k", int, None, "nodes per level-1 clique, k = n^s (default 4, or derived from --n)", minimum=2),
        Param("levels", int, 2, "levels l (the paper's 1/s for the full system C(s, 1/s))", minimum=1, maximum=40),
        Param("n", int, None, "total nodes n = k^levels, instead of --k (must be a perfect levels-th power)",
              minimum=2),
        Param("c", int, 1, "terminals per router", minimum=0),
        Param("loops", bool, True, "keep the self-loop channels of Definition 2.3 (false: leave those ports unused)"),
    ),
    check=_check,
    build=build_clex,
    size=lambda p: clex_size(p["k"], p["levels"], p["loops"]),
    knowledge=_knowledge,
    reference="Lenzen & Wattenhofer, CLEX, §II-B Definition 2.3",
))
