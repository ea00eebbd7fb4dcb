"""k-ary n-cube torus and mesh with per-dimension sizes (Dally & Towles ch. 5).

Router index ``i = sum_d x_d prod_{e<d} k_e`` (dimension 1 least significant).
Port layout: terminal ports ``0 .. c-1``, then for each dimension ``d`` the
``+`` port (``c + 2d``) and the ``-`` port (``c + 2d + 1``); input and output
of one port number face the same neighbour. A torus dimension of size 2 keeps
both ring channels (lane 1 on the wrap-around). Channel ``tag`` = dimension.
A mesh leaves the edge ports unused. The TTN paper's Table 1 compares 2D mesh
and 2D torus rows at 256 and 4096 nodes.
"""

from __future__ import annotations

import math

import numpy as np

from ..builder import NetworkBuilder
from ..family import Family, Knowledge, register
from ..network import Network
from ..params import Param, ParamError
from ..routing import ROUTINGS, RouteTable, cap_classes, compile_hyperx, pair_chunks, route_lengths, table_routers


def _build(p: dict, wrap: bool):
    dims, c = p["dims"], p["c"]
    D, R = len(dims), math.prod(dims)
    idx = np.arange(R, dtype=np.int64)
    strides = np.cumprod([1] + dims[:-1]).astype(np.int64)
    coords = np.stack([(idx // strides[d]) % dims[d] for d in range(D)], axis=1)
    b = NetworkBuilder(p["_family"], {k: v for k, v in p.items() if k != "_family"}, R, c + 2 * D)
    b.terminals(np.repeat(idx, c))
    for d, k in enumerate(dims):
        x = coords[:, d]
        plus = np.where(x == k - 1, idx - (k - 1) * strides[d], idx + strides[d])
        has_plus = np.ones(R, bool) if wrap else x < k - 1
        lane = np.where(x == k - 1, 1, 0) if (wrap and k == 2) else 0
        u, v = idx[has_plus], plus[has_plus]
        lane = np.broadcast_to(lane, (R,))[has_plus]
        b.channels(u, v, tag=d, lane=lane, src_port=2 * d, dst_port=2 * d + 1)      # + direction
        b.channels(v, u, tag=d, lane=lane, src_port=2 * d + 1, dst_port=2 * d)      # - direction
    return b.build(coords=coords, coord_names=tuple(f"x{d + 1}" for d in range(D)),
                   tag_names={d: f"dim{d + 1}" for d in range(D)})


def _knowledge(net, wrap: bool) -> Knowledge:
    dims = net.params["dims"]
    R = math.prod(dims)
    k = Knowledge()
    if wrap:
        k.vertex_classes, k.vertex_transitive = [(0, R)], True
    else:
        # mesh: orbits under reflections; one representative per class of
        # folded coordinates min(x, k-1-x) (exact, product of reflections)
        coords = net.coords
        folded = np.minimum(coords, np.asarray(dims) - 1 - coords)
        _, first, counts = np.unique(folded, axis=0, return_index=True, return_counts=True)
        k.vertex_classes = [(int(f), int(n)) for f, n in zip(first, counts)]
    even = [d for d in dims if d % 2 == 0]
    if even:
        # cutting the largest even dimension in half (the minimum cut for k-ary n-cubes)
        kmax = max(even)
        per_ring = 2 if wrap else 1
        k.bisection_width = R // kmax * per_ring
        k.bisection_exact = len(set(dims)) == 1
        k.bisection_note = "cut across the largest dimension" + ("" if k.bisection_exact else " (bound)")
    return k


# ---------------------------------------------------------------- route tables (router-spec §R7d)
def ring_step(x, t, k, wrap: bool):
    """Direction (+1/-1) and dateline class of one ring (torus) or line (mesh) dimension, x != t.

    Torus (router-spec §R7d): the shorter way round, ties (offset exactly k/2) going ``+``; class 0
    while the wrap-around link (k-1 -> 0 going ``+``, 0 -> k-1 going ``-``) still lies ahead, else 1.
    Mesh: toward ``t``, class 0.
    """
    if wrap:
        o = (t - x) % k
        plus = 2 * o <= k
        ahead = np.where(plus, t < x, t > x)
        return np.where(plus, 1, -1), np.where(ahead, 0, 1)
    return np.where(t > x, 1, -1), np.zeros(np.shape(x), np.int64)


def ring_dist(x, t, k, wrap: bool):
    o = np.abs(t - x)
    return np.minimum(o, k - o) if wrap else o


def compile_dor(net: Network, classes: int | None = None) -> RouteTable:
    """Dimension-order routing with dateline VC classes on a torus, mesh or hypercube (router-spec §R7d).

    Dimension order (Dally & Towles ch. 14; Kim et al. §3.1 "DOR"): the lowest dimension in which
    the current and the destination router differ is corrected first. In a torus each dimension is
    a ring, taken the shorter way round (offset exactly ``k/2``: ``+``), with two VC classes: class 0
    while the ring's wrap-around link still lies ahead on the packet's way, class 1 once it is
    behind (or never on it); the class restarts in every dimension. That is the dateline scheme of
    Dally & Seitz (1987) that the TTN paper's Lemma 4 uses (Rahman et al. 2009 §3.2, Fig. 6): class
    0 channels never close a ring because the channel leaving coordinate 0 (``+``) or ``k-1``
    (``-``) is never used in class 0, class 1 never crosses the wrap-around link, and dimensions are
    only entered in increasing order. A mesh needs one class (no ring); the hypercube's dimension
    order is e-cube routing (one class; Kim §3.3).

    Parameters
    ----------
    net : Network
        A ``torus``, ``mesh`` or ``hypercube`` network.
    classes : int, optional
        VC classes (``--vc-classes``); default 2 on a torus, 1 otherwise. Fewer than the routing
        uses fold the upper classes onto the last one, which :func:`check_deadlock_free` refuses on a
        torus (it names a ring of the channel-dependency graph).

    Returns
    -------
    RouteTable
        ``next_port``, ``dist`` (= hops of the dimension-order route, minimal) and the per-(router,
        destination) class table ``cls``.

    Examples
    --------
    >>> from radixnet.gen import build
    >>> ring = build("torus", dims=[5])
    >>> t = compile_dor(ring)
    >>> t.classes, t.dist[0].tolist(), t.cls[3].tolist()   # only 3 -> 0 (+, via 4 -> 0) crosses the wrap
    (2, [0, 1, 2, 2, 1], [0, 1, 1, -1, 1])
    >>> from radixnet.gen.routing import check_deadlock_free
    >>> check_deadlock_free(ring, compile_dor(ring, classes=1))
    Traceback (most recent call last):
    ...
    radixnet.gen.routing.DeadlockError: dor with 1 VC class on torus has a cyclic channel-dependency graph: 0->1 (class 0) -> 1->2 (class 0) -> 2->3 (class 0) -> 3->4 (class 0) -> 4->0 (class 0) -> back to the start
    """
    families = ROUTINGS["dor"].families   # the routing's own list (router-spec §R7d)
    if net.family not in families or net.coords is None or net.coords.shape[1] == 0:
        raise ParamError("routing", f"dor is dimension-order routing on {', '.join(families)} (got "
                                    f"{net.family}; fbfly/hyperx/2dfb use min, any network sp)")
    R = table_routers(net, "dor")
    coords = net.coords
    dims = (coords.max(0) + 1).astype(np.int64)
    D = dims.size
    nxt = np.full((R, R), -1, np.int32)
    cls = np.full((R, R), -1, np.int32)
    if net.family == "hypercube":
        t = compile_hyperx(net)
        for r, d in pair_chunks(R):
            diff = coords[r] != coords[d]
            dim = np.argmax(diff, axis=1)
            go = diff.any(axis=1)
            nxt[r[go], d[go]] = t.port_to[r[go], dim[go], coords[d[go], dim[go]]]
            cls[r[go], d[go]] = 0
        need = 1
    else:
        wrap = net.family == "torus"
        tpr = net.terminals_per_router()
        local = net.src_port - tpr[net.src]                     # network port index (torus.py layout)
        plus = np.full((R, D), -1, np.int64)
        minus = np.full((R, D), -1, np.int64)
        sel = local == 2 * net.tag
        plus[net.src[sel], net.tag[sel]] = net.src_port[sel]
        sel = local == 2 * net.tag + 1
        minus[net.src[sel], net.tag[sel]] = net.src_port[sel]
        for r, d in pair_chunks(R):
            diff = coords[r] != coords[d]
            go = diff.any(axis=1)
            r, d, dim = r[go], d[go], np.argmax(diff[go], axis=1)
            x, tt = coords[r, dim], coords[d, dim]
            sign, c = ring_step(x, tt, dims[dim], wrap)
            nxt[r, d] = np.where(sign > 0, plus[r, dim], minus[r, dim])
            cls[r, d] = c
        need = 2 if wrap else 1
    if np.any((nxt < 0) & (np.arange(R)[:, None] != np.arange(R)[None, :])):
        raise ParamError("topo", f"dor: a {net.family} router lacks a port toward its dimension-order neighbour")
    cls, K = cap_classes(cls, need, classes, "dor")
    table = RouteTable(nxt, np.zeros((R, R), np.int32), K, net.ej_port.copy(), net.ej_router.copy(), cls, "dor")
    table.dist = route_lengths(net, nxt, "dor")
    return table


for _name, _wrap, _summary in (("torus", True, "k-ary n-cube torus, per-dimension sizes"),
                               ("mesh", False, "k-ary n-mesh, per-dimension sizes")):
    register(Family(
        name=_name,
        summary=_summary,
        params=(
            Param("dims", list, [8, 8], "routers per dimension, e.g. 16,16", minimum=2),
            Param("c", int, 1, "terminals per router", minimum=0),
        ),
        check=None,
        build=(lambda w, n: (lambda p: _build({**p, "_family": n}, w)))(_wrap, _name),
        size=lambda p: (math.prod(p["dims"]), 2 * len(p["dims"]) * math.prod(p["dims"])),
        knowledge=(lambda w: (lambda net: _knowledge(net, w)))(_wrap),
        tables={"dor": compile_dor},
        reference="Dally & Towles, Principles and Practices of Interconnection Networks, ch. 5; TTN paper Table 1",
    ))
