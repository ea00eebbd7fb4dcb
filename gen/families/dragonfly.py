"""Dragonfly (Kim, Dally, Scott, Abts, "Technology-Driven, Highly-Scalable
Dragonfly Topology", ISCA 2008).

``g`` groups of ``a`` routers; every router has ``p`` terminals, ``a-1``
local channels (the group is a complete graph) and ``h`` global channels, so
radix ``k = p + a - 1 + h``. The largest dragonfly has ``g = a h + 1`` groups
with exactly one global link between every pair of groups (ISCA 2008 §3.1);
the paper recommends the balanced ``a = 2p = 2h`` (§3.1: "to balance channel
load ... a = 2p = 2h"), which is the default when only ``--p`` is given.

Numbering
---------
Router ``r = G * a + i`` is router ``i`` of group ``G``;
``coords = (group, router)``; terminal ``t`` sits on router ``t // p``.
The ``a h`` global ports of a group are numbered ``j = i * h + c`` (router
``i``, its global channel ``c``).

Global link arrangement (choice; the paper's figures are not normative)
-----------------------------------------------------------------------
*Absolute (consecutive) arrangement*: the global ports of group ``G`` are
handed out in order to the other groups in increasing group number, each
group ``H`` taking ``mult(G, H)`` consecutive ports. For ``g = a h + 1``,
``mult = 1`` and port ``j`` of group ``G`` leads to group ``j`` if ``j < G``,
else ``j + 1``; it lands on port ``G`` of that group if ``G < H``, else ``G-1``.

For ``g < a h + 1`` the links are spread evenly: with ``q = a h // (g-1)`` and
``e = a h mod (g-1)``, every pair of groups gets ``q`` links, plus one more
link for the pairs of a circulant ``e``-regular graph on the groups (group
distances ``±1 .. ±e/2``, and ``g/2`` when ``e`` is odd). The ``l``-th link of
the pair ``(G, H)`` joins port ``base_G(H) + l`` of ``G`` to port
``base_H(G) + l`` of ``H``. ``g a h`` must be even (global ports pair up) and
``2 <= g <= a h + 1``; other values are refused.

Port layout (contract for routing tables and RTL)
-------------------------------------------------
Ports ``0 .. p-1`` terminals; ``p .. p+a-2`` local ports, port ``p + x``
leading to router ``x`` of the group if ``x < i``, else ``x + 1`` (increasing
order, skipping itself); ``p+a-1 .. p+a-1+h-1`` global ports, port
``p + a - 1 + c`` carrying the group's global port ``j = i h + c``. Input and
output with the same port number face the same neighbour.

Channel ``tag``: 0 = local, 1 = global. ``lane`` numbers parallel global
links between the same two routers (only when ``mult >= 2``).
"""

from __future__ import annotations

import numpy as np

from ..builder import NetworkBuilder
from ..cost import CostParams, Packaging, Placement, direct_placement
from ..family import Family, Knowledge, register
from ..network import Network
from ..params import Param, ParamError

__all__ = ["group_multiplicity"]


def group_multiplicity(g: int, ports: int) -> np.ndarray:
    """``(g, g)`` matrix of global links between groups (``ports = a h`` per group).

    >>> group_multiplicity(5, 8)[0].tolist()
    [0, 2, 2, 2, 2]
    >>> group_multiplicity(6, 8).sum(axis=1).tolist()
    [8, 8, 8, 8, 8, 8]
    """
    q, e = divmod(ports, g - 1)
    G = np.arange(g)
    diff = (G[None, :] - G[:, None]) % g
    dist = np.minimum(diff, g - diff)
    extra = (dist >= 1) & (dist <= e // 2)
    if e % 2:
        extra |= diff == g // 2
    return np.where(diff == 0, 0, q + extra.astype(np.int64))


def _check(p: dict) -> None:
    if p["a"] is None:
        p["a"] = 2 * p["p"]
    if p["h"] is None:
        p["h"] = p["p"]
    a, h = p["a"], p["h"]
    gmax = a * h + 1
    if p["g"] is None:
        p["g"] = gmax
    g = p["g"]
    if g > gmax:
        raise ParamError("g", f"at most a*h+1 = {gmax} groups (each group has a*h = {a * h} global ports; got {g})")
    if g < 2:
        raise ParamError("g", f"must be in [2, {gmax}] (got {g})")
    if (g * a * h) % 2:
        raise ParamError("g", f"g*a*h = {g * a * h} global ports cannot be paired into links; "
                              f"use an even g or an even a*h")


def _size(p: dict) -> tuple[int, int]:
    a, h, g = p["a"], p["h"], p["g"]
    return a * g, a * g * (a - 1 + h)


def _build(p: dict) -> Network:
    P, a, h, g = p["p"], p["a"], p["h"], p["g"]
    R = a * g
    b = NetworkBuilder("dragonfly", p, R, P + a - 1 + h)
    idx = np.arange(R, dtype=np.int64)
    b.terminals(np.repeat(idx, P))
    grp, loc = idx // a, idx % a
    # local: complete graph in each group
    if a > 1:
        src = np.repeat(idx, a)
        x = np.tile(np.arange(a, dtype=np.int64), R)
        i = np.repeat(loc, a)
        keep = x != i
        src, x, i = src[keep], x[keep], i[keep]
        dst = src + (x - i)
        b.channels(src, dst, tag=0, lane=0, src_port=x - (x > i), dst_port=i - (i > x))
    # global: one outgoing channel per global port
    ah = a * h
    mult = group_multiplicity(g, ah)
    base = np.cumsum(mult, axis=1) - mult
    G = np.repeat(np.arange(g, dtype=np.int64), ah)
    j = np.tile(np.arange(ah, dtype=np.int64), g)
    H = np.repeat(np.tile(np.arange(g, dtype=np.int64), g), mult.ravel())
    lane_pair = j - base[G, H]
    jr = base[H, G] + lane_pair
    src = G * a + j // h
    dst = H * a + jr // h
    sport, dport = (a - 1) + j % h, (a - 1) + jr % h
    lane = _pair_rank(src, dst, sport, R)
    b.channels(src, dst, tag=1, lane=lane, src_port=sport, dst_port=dport)
    return b.build(coords=np.stack([grp, loc], axis=1), coord_names=("group", "router"),
                   tag_names={0: "local", 1: "global"})


def _pair_rank(src: np.ndarray, dst: np.ndarray, port: np.ndarray, R: int) -> np.ndarray:
    """Rank of each channel among channels with the same (src, dst), ordered by ``port``."""
    key = src * np.int64(R) + dst
    order = np.lexsort((port, key))
    ks = key[order]
    starts = np.searchsorted(ks, ks, side="left")
    rank = np.empty_like(order)
    rank[order] = np.arange(ks.size) - starts
    return rank


def _knowledge(net: Network) -> Knowledge:
    """Bisection bound: cut the routers in index order (whole groups, plus half
    of the middle group when g is odd) and count channels crossing one way.
    An upper bound on the minimum bisection, not claimed exact."""
    p = net.params
    a, g, R = p["a"], p["g"], net.num_routers
    mult = group_multiplicity(g, a * p["h"])
    kn = Knowledge(extra={"groups": g, "global_links_per_group_pair_min": int(mult[~np.eye(g, dtype=bool)].min()),
                          "global_links_per_group_pair_max": int(mult.max())})
    if R % 2 == 0 and p["p"] > 0:
        side = np.arange(R) < R // 2
        kn.bisection_width = int(np.count_nonzero(side[net.src] & ~side[net.dst]))
        kn.bisection_exact = False
        kn.bisection_note = "group cut (first half of the routers by index): upper bound"
    return kn


# ---------------------------------------------------------------- packaging for the cost model (Kim §4.2)
def place_dragonfly(net: Network, params: CostParams) -> Placement:
    return direct_placement(net, params, group=int(net.params["a"]), digits=[int(net.params["g"])])


register(Family(
    name="dragonfly",
    summary="dragonfly (Kim et al. ISCA 2008): complete groups, absolute global arrangement, balanced a=2p=2h",
    params=(
        Param("p", int, 2, "terminals per router", minimum=1),
        Param("a", int, None, "routers per group (default 2p)", minimum=1),
        Param("h", int, None, "global channels per router (default p)", minimum=1),
        Param("g", int, None, "groups (default and maximum a*h+1)", minimum=2),
    ),
    check=_check,
    build=_build,
    size=_size,
    terminals=lambda p, routers: p["p"] * routers,
    knowledge=_knowledge,
    packaging=Packaging('dragonfly', True, 'a group in a cabinet, or in cabinets of its own when it does not fit (Kim et al. ISCA 2008 package a group per cabinet; assumed here)',
                        place_dragonfly),
    reference="Kim, Dally, Scott, Abts, ISCA 2008, §3.1 (a = 2p = 2h, g = ah+1)",
))
