"""Static metrics of a Network.

Definitions (hops are inter-router channels):

``diameter``, ``avg_distance``
    Router-to-router, over ordered pairs (u, v), u != v, where u has a terminal
    injecting and v a terminal ejecting ("terminal routers"; all routers in a
    direct network with terminals everywhere).
``avg_distance_terminal``
    Over ordered pairs of distinct terminals: hops between the source's
    injection router and the destination's ejection router (0 on one router).
``path_diversity``
    Mean number of distinct minimal router paths over the same pairs as
    ``avg_distance`` (parallel lanes are not counted as extra paths; Kim §2.2
    counts j! minimal routes for j differing digits).
``bisection_width``
    Channels crossing (in the weaker direction) a cut that splits the
    terminals in two equal halves. Exact when the family supplies a proven
    formula (``bisection_exact``), otherwise the best of the family's cut and a
    METIS partition (pymetis), which is an upper bound.
``arc_connectivity``
    Fewest channels whose removal disconnects the router graph (directed).
    Vertex-transitive families: the degree (Mader 1971); otherwise max-flow.
``links``
    Physical links: a channel and its reverse count once, an unpaired
    (unidirectional) channel once.
``moore_bound_ratio``
    Routers / Moore bound ``1 + d sum_{i<D} (d-1)^i`` for undirected degree d
    (distinct neighbours) and router diameter D.

How distances were obtained is reported in ``distance_method``: all-pairs BFS,
one BFS per vertex class (exact, for families that declare their symmetry),
or a sample of sources (then ``diameter`` is a lower bound and is labelled so).

Examples
--------
>>> from radixnet.gen import build
>>> m = static_metrics(build("fbfly", k=4, n=3))
>>> m["diameter"], m["avg_distance"], m["bisection_width"], m["arc_connectivity"]
(2, 1.6, 16, 6)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

from .family import knowledge as family_knowledge
from .network import Network
from .progress import report

__all__ = ["static_metrics", "distance_stats", "bisection", "arc_connectivity", "links", "moore_bound",
           "memory_estimate"]

#: All-pairs BFS is used while routers x channels stays below this; beyond it,
#: vertex classes (if known) or a sample of sources.
ALL_PAIRS_WORK = 4e8
SAMPLE_SOURCES = 64
_BLOCK = 128

#: Bytes :func:`static_metrics` needs beyond the Network: per channel (adjacency matrices, their
#: transposes and METIS's copy), per terminal, and per (router x BFS source) of one block of sources
#: (distances, masks and path counts). Measured with tracemalloc and RSS, rounded up.
METRICS_BYTES = {"channel": 160, "terminal": 96, "router": 64, "router_source": 80}


def memory_estimate(routers: int, channels: int, terminals: int, sample: int | None = None,
                    family: str | None = None) -> int:
    """Bytes :func:`static_metrics` needs beyond the Network, from the sizes alone (before building).

    Distances run over blocks of at most 128 BFS sources (fewer with ``sample``), so their part grows
    with routers x min(routers, block), not routers squared.

    Parameters
    ----------
    routers, channels, terminals : int
        The network's size.
    sample : int, optional
        ``--sample``: BFS sources at most.
    family : str, optional
        The family: those of :data:`ROUTED_FAMILIES` add their all-pairs route table (``routers^2``,
        :data:`ROUTED_BYTES` per pair) up to :data:`ROUTED_MAX_ROUTERS` routers.

    Returns
    -------
    int
        Bytes (:data:`METRICS_BYTES` per element).

    Examples
    --------
    >>> from radixnet.gen.resources import format_bytes
    >>> format_bytes(memory_estimate(262_144, 49_545_216, 262_144))   # Kim's 64-ary 4-flat, c = 1
    '9.92 GiB'
    """
    R, C, T = int(routers), int(channels), int(terminals)
    block = min(R, _BLOCK if sample is None else max(1, min(int(sample), _BLOCK)))
    per = METRICS_BYTES
    routed = ROUTED_BYTES * R * R if family in ROUTED_FAMILIES and R <= ROUTED_MAX_ROUTERS else 0
    return per["channel"] * C + per["terminal"] * T + per["router"] * R + per["router_source"] * block * R + routed


def moore_bound(d: int, D: int) -> int:
    """Largest number of vertices of a graph with degree d and diameter D.

    >>> moore_bound(7, 2)
    50
    """
    if d <= 2:
        return 1 + d * D if d == 2 else 1 + d
    return 1 + d * sum((d - 1) ** i for i in range(D))


def links(net: Network) -> int:
    """Physical links: bidirectional channel pairs count once, unpaired channels once."""
    rev = net.channel_reverse()
    paired = int(np.count_nonzero(rev >= 0))
    return paired // 2 + (net.num_channels - paired)


def _unit_adjacency(net: Network) -> sparse.csr_array:
    A = net.adjacency()
    A.data[:] = 1
    return A


def distance_stats(net: Network, *, rng_seed: int = 0, sample: int | None = None, progress=None) -> dict[str, Any]:
    """Diameter, average distances and minimal-path diversity (see module docs); ``progress`` (a
    :data:`radixnet.gen.progress.ProgressFn`) is told the BFS sources done."""
    R = net.num_routers
    A = _unit_adjacency(net)
    AT = A.T.tocsr()
    t_inj = np.bincount(net.inj_router, minlength=R).astype(np.float64)
    t_ej = np.bincount(net.ej_router, minlength=R).astype(np.float64)
    dst_mask = t_ej > 0
    src_routers = np.flatnonzero(t_inj > 0)
    kn = family_knowledge(net)
    C = max(net.num_channels, 1)
    n_classes = len(kn.vertex_classes) if kn.vertex_classes else None
    if sample is None and (n_classes is None or n_classes >= src_routers.size) and src_routers.size * C <= ALL_PAIRS_WORK:
        sources, weights, method = src_routers, np.ones(src_routers.size), "all-pairs BFS"
    elif sample is None and n_classes is not None and n_classes * C <= ALL_PAIRS_WORK:
        reps = np.array([r for r, _ in kn.vertex_classes], dtype=np.int64)
        w = np.array([n for _, n in kn.vertex_classes], dtype=np.float64)
        keep = t_inj[reps] > 0
        sources, weights, method = reps[keep], w[keep], f"BFS per vertex class ({reps.size} classes)"
    else:
        n = min(sample or SAMPLE_SOURCES, src_routers.size)
        rng = np.random.default_rng(rng_seed)
        sources = np.sort(rng.choice(src_routers, size=n, replace=False))
        weights = np.full(n, src_routers.size / n) if n else np.zeros(0)  # no terminals: no pairs
        method = f"sampled {n} of {src_routers.size} sources (seed {rng_seed})"
    exact = not method.startswith("sampled")

    diam = 0
    unreachable = False
    sum_d = sum_pairs = 0.0
    sum_td = 0.0
    sum_paths = 0.0
    min_paths = math.inf
    for lo in range(0, sources.size, _BLOCK):
        report(progress, "distances", lo, int(sources.size), method)
        src = sources[lo:lo + _BLOCK]
        w = weights[lo:lo + _BLOCK]
        dist = csgraph.shortest_path(A, method="D", unweighted=True, directed=True, indices=src)
        dist[np.arange(src.size), src] = 0.0
        valid = np.ones_like(dist, dtype=bool)
        valid[np.arange(src.size), src] = False
        valid &= dst_mask[None, :]
        finite = np.isfinite(dist)
        if np.any(valid & ~finite):
            unreachable = True
        dv = np.where(valid & finite, dist, 0.0)
        diam = max(diam, int(dv.max(initial=0)))
        npairs = (valid & finite).sum(1)
        sum_d += float(w @ dv.sum(1))
        sum_pairs += float(w @ npairs)
        # terminal pairs: t_inj[s] * t_ej[v] * d(s, v); same-router pairs add 0 hops
        sum_td += float((w * t_inj[src]) @ (np.where(finite, dist, 0.0) @ t_ej))
        # minimal path counts, level by level
        paths = _count_min_paths(AT, dist, src)
        pv = paths[valid & finite]
        if pv.size:
            sum_paths += float(w @ np.where(valid & finite, paths, 0.0).sum(1))
            min_paths = min(min_paths, float(pv.min()))
    # Direct networks: distinct terminal pairs (a terminal never sends to itself
    # through the network). Indirect networks: every pair, self included, crosses it.
    T = float(net.num_terminals)
    T_pairs = T * (T - 1) if net.is_direct else T * T
    out = {
        "diameter": None if unreachable else diam,
        "diameter_is_lower_bound": not exact,
        "avg_distance": round(sum_d / sum_pairs, 6) if sum_pairs else 0.0,
        "avg_distance_terminal": round(sum_td / T_pairs, 6) if T_pairs else 0.0,
        "path_diversity": round(sum_paths / sum_pairs, 6) if sum_pairs else 0.0,
        "path_diversity_min": None if min_paths is math.inf else int(min_paths),
        "strongly_connected": not unreachable,
        "distance_method": method,
    }
    return out


def _count_min_paths(AT: sparse.csr_array, dist: np.ndarray, src: np.ndarray) -> np.ndarray:
    """Number of shortest router paths from each ``src`` row to every router.

    Level by level over the BFS layers, touching only each layer's entries, so
    the work is proportional to one BFS per source.
    """
    B, R = dist.shape
    counts = np.zeros_like(dist)
    counts[np.arange(B), src] = 1.0
    flat = np.where(np.isfinite(dist), dist, -1.0).ravel()
    order = np.argsort(flat, kind="stable")
    levels = flat[order]
    maxd = int(levels[-1]) if levels.size else 0
    bounds = np.searchsorted(levels, np.arange(-1, maxd + 2) - 0.5)
    A = AT.T.tocsr()
    cflat = counts.ravel()
    for level in range(1, maxd + 1):
        prev = order[bounds[level]:bounds[level + 1]]          # entries at level-1
        cur = order[bounds[level + 1]:bounds[level + 2]]       # entries at level
        if cur.size == 0:
            break
        M = sparse.csr_array((cflat[prev], (prev // R, prev % R)), shape=(B, R))
        nxt = (M @ A).tocoo()                                  # sum over in-neighbours u of counts[u]
        keys = nxt.row.astype(np.int64) * R + nxt.col
        srt = np.argsort(keys)
        pos = np.searchsorted(keys[srt], cur)
        pos = np.minimum(pos, max(keys.size - 1, 0))
        hit = keys.size > 0
        cflat[cur] = np.where(hit & (keys[srt][pos] == cur), nxt.data[srt][pos], 0.0) if hit else 0.0
    return cflat.reshape(B, R)


def bisection(net: Network, seed: int = 0) -> dict[str, Any]:
    """Bisection width: the family's proven figure, else the best upper bound found."""
    kn = family_knowledge(net)
    if kn.bisection_width is not None and kn.bisection_exact:
        return {"bisection_width": int(kn.bisection_width), "bisection_exact": True,
                "bisection_method": kn.bisection_note or "family formula"}
    best, how = None, ""
    if kn.bisection_width is not None:
        best, how = int(kn.bisection_width), kn.bisection_note or "family cut (bound)"
    cut = _metis_bisection(net, seed)
    if cut is not None and (best is None or cut < best):
        best, how = cut, "METIS partition, balanced by terminals (upper bound)"
    return {"bisection_width": best, "bisection_exact": False, "bisection_method": how}


def _metis_bisection(net: Network, seed: int) -> int | None:
    import pymetis

    R = net.num_routers
    if R < 2:
        return None
    weight = (np.bincount(net.inj_router, minlength=R) + np.bincount(net.ej_router, minlength=R)).astype(np.int64)
    if weight.sum() == 0:
        return None
    und = net.adjacency()
    und = (und + und.T).tocsr()
    und.setdiag(0)
    und.eliminate_zeros()
    opts = pymetis.Options(seed=seed, ufactor=1)
    adjacency = pymetis.CSRAdjacency(und.indptr, und.indices)
    _, part = pymetis.part_graph(2, adjacency, vweights=weight.tolist(), eweights=und.data.tolist(), options=opts)
    part = _rebalance(np.asarray(part, dtype=np.int64), weight, und)
    if part is None:
        return None
    a, b = part[net.src], part[net.dst]
    return int(min(np.count_nonzero((a == 0) & (b == 1)), np.count_nonzero((a == 1) & (b == 0))))


def _rebalance(part: np.ndarray, weight: np.ndarray, und: sparse.csr_array) -> np.ndarray | None:
    """Greedily move routers across until both halves hold half the terminal weight."""
    total = int(weight.sum())
    for _ in range(part.size):
        w0 = int(weight[part == 0].sum())
        diff = 2 * w0 - total  # > 0: side 0 too heavy
        if abs(diff) <= total % 2:
            return part
        heavy = 0 if diff > 0 else 1
        # candidates whose weight does not overshoot the target
        cand = np.flatnonzero((part == heavy) & (weight > 0) & (2 * weight <= abs(diff) + (total % 2)))
        if cand.size == 0:
            return None
        same = und @ (part == heavy).astype(np.float64)
        other = und @ (part != heavy).astype(np.float64)
        gain = other[cand] - same[cand]
        part[cand[np.argmax(gain)]] = 1 - heavy
    return None


def arc_connectivity(net: Network, *, max_routers_exact: int = 4096, progress=None) -> tuple[int | None, bool]:
    """(arc connectivity, exact?) of the directed router graph; ``progress`` is told the routers done."""
    kn = family_knowledge(net)
    outdeg = np.bincount(net.src, minlength=net.num_routers)
    indeg = np.bincount(net.dst, minlength=net.num_routers)
    upper = int(min(outdeg.min(), indeg.min())) if net.num_routers else 0
    if kn.vertex_transitive:
        return upper, True
    R = net.num_routers
    if R > max_routers_exact:
        return upper, False
    cap = net.adjacency().astype(np.int32)
    cap.setdiag(0)
    cap.eliminate_zeros()
    capT = cap.T.tocsr()
    best = upper
    # lambda(G) = min over v != 0 of min(maxflow(0 -> v), maxflow(v -> 0)) (Even 1979)
    for v in range(1, R):
        if v % 64 == 1:
            report(progress, "arc connectivity", v - 1, R - 1, "max-flow from router 0")
        for g, s, t in ((cap, 0, v), (capT, 0, v)):
            f = csgraph.maximum_flow(g, s, t).flow_value
            if f < best:
                best = int(f)
                if best == 0:
                    return 0, True
    return best, True


def static_metrics(net: Network, *, sample: int | None = None, seed: int = 0, progress=None) -> dict[str, Any]:
    """All static metrics of ``net`` as a JSON-ready dict (keys in module docs).

    ``progress`` (a :data:`radixnet.gen.progress.ProgressFn`) is told each phase: ``distances`` (BFS
    sources), ``bisection``, ``arc connectivity`` (routers).
    """
    kn = family_knowledge(net)
    deg = net.network_degree()
    A = _unit_adjacency(net)
    und = ((A + A.T) > 0).astype(np.int64).tocsr()
    und.setdiag(0)
    und.eliminate_zeros()
    neighbours = np.diff(und.indptr)
    d = distance_stats(net, sample=sample, rng_seed=seed, progress=progress)
    report(progress, "bisection", 0, None, "METIS" if net.num_routers > 2 else "")
    bis = bisection(net, seed)
    arc, arc_exact = arc_connectivity(net, progress=progress)
    out: dict[str, Any] = {
        "family": net.family,
        "params": net.params,
        "terminals": net.num_terminals,
        "routers": net.num_routers,
        "radix": net.max_radix,
        "network_degree": int(deg.max(initial=0)),
        "network_degree_min": int(deg.min()) if deg.size else 0,
        "neighbours": int(neighbours.max(initial=0)),
        "channels": net.num_channels,
        "links": links(net),
        **d,
        **bis,
        "arc_connectivity": arc,
        "arc_connectivity_exact": arc_exact,
    }
    out["degree_x_diameter"] = None if d["diameter"] is None else out["network_degree"] * d["diameter"]
    regular = neighbours.size > 0 and int(neighbours.min()) == out["neighbours"]
    out["moore_bound_ratio"] = (float(f"{net.num_routers / moore_bound(out['neighbours'], d['diameter']):.6g}")
                                if d["diameter"] and regular and net.is_direct else None)
    out.update(kn.extra)
    if net.family in ROUTED_FAMILIES:
        out.update(routed_distances(net, progress=progress))
    return out


#: Families whose paper gives distances by routing, not shortest paths: the TTN paper's Table 1 computes
#: diameter (Eq. 5) and average distance "by simulation" of its hierarchical routing (docs/ttn-metrics.md).
ROUTED_FAMILIES = {"ttn": "hdor", "tesh": "hdor"}
#: Routers up to which :func:`routed_distances` compiles the all-pairs route table (routers^2 entries:
#: TTN(2, 3, q) has 4,096 routers; TTN(2, 4, 0) would need 65,536^2).
ROUTED_MAX_ROUTERS = 4096
#: Bytes per router pair of that table while it is compiled (next port, distance, class, scratch).
ROUTED_BYTES = 48


def routed_distances(net: Network, progress=None) -> dict[str, Any]:
    """Diameter and average distance of the family's paper routing (:data:`ROUTED_FAMILIES`), the
    convention of the TTN paper's Table 1 (Rahman et al. 2009, Eq. 5 and "by simulation").

    Returns ``routed_by`` (the routing), ``routed_diameter``, ``routed_avg_distance`` (over distinct
    router pairs) and ``routed_avg_distance_all_pairs`` (over all ``N^2`` ordered pairs, self pairs
    included: the paper's 256-node rows); None past :data:`ROUTED_MAX_ROUTERS` routers.

    Examples
    --------
    >>> from radixnet.gen import build
    >>> r = routed_distances(build("ttn", m=2, L=2, q=0))
    >>> r["routed_diameter"], round(r["routed_avg_distance"], 4), round(r["routed_avg_distance_all_pairs"], 4)
    (15, 7.4667, 7.4375)
    """
    from .families.ttn import compile_hdor
    routing = ROUTED_FAMILIES[net.family]
    R = net.num_routers
    out: dict[str, Any] = {"routed_by": f"{routing} (the paper's routing, Rahman et al. Fig. 4)"}
    if R > ROUTED_MAX_ROUTERS:
        out.update(routed_diameter=None, routed_avg_distance=None, routed_avg_distance_all_pairs=None,
                   routed_note=f"not computed above {ROUTED_MAX_ROUTERS} routers (an all-pairs table)")
        return out
    report(progress, "routed distances", 0, None, routing)
    dist = np.asarray(compile_hdor(net).dist, np.int64)
    total = float(dist.sum())
    out.update(routed_diameter=int(dist.max(initial=0)),
               routed_avg_distance=round(total / (R * (R - 1)), 6) if R > 1 else 0.0,
               routed_avg_distance_all_pairs=round(total / (R * R), 6))
    return out
