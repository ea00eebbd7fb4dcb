"""Routing relations and the tables compiled from them (docs/router-spec.md §R5–R7).

A routing is separate from the topology: :class:`Routing` names the rule, its
VC classes and the allocator it needs; :func:`compile_hyperx` turns a
HyperX-family Network (fbfly, hyperx, 2dfb, hypercube) into the port tables
the golden kernel and the RTL route computation read. Routing relations for
the other families arrive with issue 5.

Examples
--------
>>> from radixnet.gen import build
>>> r = get_routing("ugal-s")
>>> r.classes(build("fbfly", k=4, n=3)), r.allocator
(2, 'sequential')
>>> get_routing("min-ad").classes(build("fbfly", k=4, n=4))
3
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .network import Network
from .params import ParamError

__all__ = ["Routing", "ROUTINGS", "get_routing", "HyperXTables", "compile_hyperx", "HYPERX_FAMILIES", "RouteTable",
           "compile_table", "compile_dor_table", "channel_dependencies", "check_deadlock_free", "DeadlockError",
           "uniform_channel_load", "TABLE_VERSION", "TABLE_CODES"]

HYPERX_FAMILIES = ("fbfly", "hyperx", "2dfb", "hypercube")

# kernel codes
MIN, MIN_AD, VAL, UGAL, CLOS_AD, TABLE, PRIO = 0, 1, 2, 3, 4, 5, 6
TVAL, TUGAL_L, TUGAL_G = 7, 8, 9  # table-driven versions for any topology


@dataclass(frozen=True)
class Routing:
    """A routing algorithm (Kim et al. §3.1; docs/router-spec.md §R7).

    Parameters
    ----------
    name : str
        CLI name.
    code : int
        Kernel algorithm code.
    allocator : str
        ``"greedy"`` or ``"sequential"`` (§R6).
    n_classes : int or None
        VC classes; ``None`` means one per dimension (``min-ad``: n').
    intermediate : bool
        Packets carry a random intermediate router drawn at creation.
    doc : str
        One line.
    """

    name: str
    code: int
    allocator: str
    n_classes: int | None
    intermediate: bool
    doc: str

    def classes(self, net: Network) -> int:
        if self.n_classes is not None:
            return self.n_classes
        dims = max(1, len(net.coord_names))
        # 2dfb-adaptive: VC class = hops taken; at most one misroute per dimension, so <= 2 hops each
        return 2 * dims if self.code == PRIO else dims


ROUTINGS: dict[str, Routing] = {r.name: r for r in (
    Routing("min", MIN, "greedy", 1, False, "dimension-order minimal routing"),
    Routing("min-ad", MIN_AD, "greedy", None, False,
            "minimal adaptive: productive channel with the shortest queue; VC by hops remaining (Kim §3.1)"),
    Routing("val", VAL, "greedy", 2, True, "Valiant: DOR to a random intermediate router, then DOR (2 VCs)"),
    Routing("ugal", UGAL, "greedy", 2, True, "UGAL: minimal vs Valiant by queue x hops, greedy allocator"),
    Routing("ugal-s", UGAL, "sequential", 2, True, "UGAL with the sequential allocator (Kim §3.1)"),
    Routing("clos-ad", CLOS_AD, "sequential", 2, False,
            "adaptive Clos: least-loaded intermediate in the flattened Clos, sequential allocator"),
    Routing("2dfb-adaptive", PRIO, "sequential", None, False,
            "2DFB priority-flag adaptive routing (Thamarakuzhi & Chandy Algorithm 1), threshold --threshold"),
    Routing("ugal-l", TUGAL_L, "greedy", None, True,
            "UGAL with local queue estimates over the route tables (Slim Fly UGAL-L), any topology"),
    Routing("ugal-g", TUGAL_G, "greedy", None, True,
            "UGAL with global knowledge: the queues along the whole route (Slim Fly UGAL-G), any topology"),
)}

#: On networks outside the HyperX family these routings run on the route tables (router-spec §R7c).
TABLE_VERSION = {"min": "sp", "val": TVAL, "ugal": TUGAL_L, "ugal-s": TUGAL_L}
TABLE_CODES = (TABLE, TVAL, TUGAL_L, TUGAL_G)


def get_routing(name: str) -> Routing:
    try:
        return ROUTINGS[name]
    except KeyError:
        raise ParamError("routing", f"must be one of {', '.join(ROUTINGS)} (got {name!r})") from None


@dataclass
class HyperXTables:
    """Port tables of a HyperX-family Network for dimension-ordered routing.

    Attributes
    ----------
    dims : ndarray (D,)
        Routers per dimension.
    coords : ndarray (R, D)
        Router coordinates.
    port_to : ndarray (R, D, max(dims))
        Output port from router r in dimension d to digit m (lane 0); -1 for r's own digit.
    eject_port : ndarray (T,)
        Port of terminal t on its router.
    term_router : ndarray (T,)
        Router of terminal t.
    port_lanes : ndarray (R, D, max(dims), lanes)
        Like ``port_to`` for every parallel lane (the 2DFB's two channels per neighbour).
    """

    dims: np.ndarray
    coords: np.ndarray
    port_to: np.ndarray
    eject_port: np.ndarray
    term_router: np.ndarray
    port_lanes: np.ndarray | None = None


def compile_hyperx(net: Network) -> HyperXTables:
    """Compile the dimension port tables (lane 0 of every dimension)."""
    if net.family not in HYPERX_FAMILIES or net.coords is None:
        raise ParamError("topo", f"this routing needs a flattened-butterfly/HyperX network "
                                 f"({', '.join(HYPERX_FAMILIES)}); got {net.family}")
    if not net.is_direct:
        raise ParamError("topo", "routing tables need a direct network")
    coords = net.coords
    D = coords.shape[1]
    dims = coords.max(0) + 1 if D else np.zeros(0, np.int64)
    kmax = int(dims.max()) if D else 1
    R = net.num_routers
    port_to = np.full((R, max(D, 1), kmax), -1, dtype=np.int64)
    sel = net.lane == 0
    s, d, tag, port = net.src[sel], net.dst[sel], net.tag[sel], net.src_port[sel]
    port_to[s, tag, coords[d, tag]] = port
    lanes = int(net.lane.max(initial=0)) + 1
    port_lanes = np.full((R, max(D, 1), kmax, lanes), -1, dtype=np.int64)
    port_lanes[net.src, net.tag, coords[net.dst, net.tag], net.lane] = net.src_port
    return HyperXTables(dims=dims.astype(np.int64), coords=coords, port_to=port_to,
                        eject_port=net.ej_port.copy(), term_router=net.ej_router.copy(), port_lanes=port_lanes)


# ----------------------------------------------------------- table-driven routing
ROUTINGS["sp"] = Routing("sp", TABLE, "greedy", None, False,
                         "shortest path for any topology (minimal ports spread by destination), VC class = hops "
                         "taken (deadlock-free with as many classes as the diameter)")

#: table routing works up to this many routers (the table is routers x routers)
MAX_TABLE_ROUTERS = 4096


@dataclass
class RouteTable:
    """Deterministic next-hop table for any Network (router-spec §R5, routing ``sp``).

    Attributes
    ----------
    next_port : ndarray (R, R) of int32
        Output port from router r toward destination router d (-1 where d == r or unreachable): of
        the m minimal output ports, in port order, the ``(r + d) mod m``-th.
    dist : ndarray (R, R) of int32
        Router hop distance.
    classes : int
        VC classes; a packet's class is ``min(hops taken, classes - 1)``.
    eject_port, term_router : ndarray (T,)
        Ejection router and port of each terminal.
    """

    next_port: np.ndarray
    dist: np.ndarray
    classes: int
    eject_port: np.ndarray
    term_router: np.ndarray


def compile_table(net: Network, classes: int | None = None) -> RouteTable:
    """Shortest-path next hops (spread over the minimal ports by destination) and hop-index VC classes.

    Examples
    --------
    >>> from radixnet.gen import build
    >>> t = compile_table(build("slimfly", q=5))
    >>> t.classes, int(t.dist.max())          # diameter 2: 2 VC classes, as the Slim Fly slides use
    (2, 2)
    """
    from scipy.sparse import csgraph

    R = net.num_routers
    if R > MAX_TABLE_ROUTERS:
        raise ParamError("routing", f"sp builds a routers x routers table; at most {MAX_TABLE_ROUTERS} routers "
                                    f"(this network has {R})")
    A = net.adjacency()
    dist = csgraph.shortest_path(A, method="D", unweighted=True, directed=True)
    src_r, dst_r = np.unique(net.inj_router), np.unique(net.ej_router)
    if not np.all(np.isfinite(dist[np.ix_(src_r, dst_r)])):
        raise ParamError("topo", "some terminal cannot reach another: the network is not connected")
    dist = np.where(np.isfinite(dist), dist, -1).astype(np.int32)
    # channel c (s -> x) is a minimal first hop toward d iff dist[x, d] == dist[s, d] - 1
    cand_s, cand_d, cand_p = [], [], []
    for c0 in range(0, net.num_channels, 4096):
        s, x, p = net.src[c0:c0 + 4096], net.dst[c0:c0 + 4096], net.src_port[c0:c0 + 4096]
        ok = (dist[x] == dist[s] - 1) & (dist[s] > 0)
        ci, d = np.nonzero(ok)
        cand_s.append(s[ci]), cand_d.append(d), cand_p.append(p[ci])
    cs, cd, cp = (np.concatenate(a).astype(np.int64) for a in (cand_s, cand_d, cand_p))
    # among the m minimal ports of (s, d) in port order take the ((s + d) mod m)-th: spreads routes
    # over the minimal ports (a different choice at each hop), deterministic so the dependency check
    # below is exact
    order = np.lexsort((cp, cd, cs))
    cs, cd, cp = cs[order], cd[order], cp[order]
    key = cs * R + cd
    first = np.searchsorted(key, key, side="left")
    count = np.searchsorted(key, key, side="right") - first
    pick = (np.arange(key.size) - first) == ((cd + cs) % count)
    nxt = np.full((R, R), -1, dtype=np.int32)
    nxt[cs[pick], cd[pick]] = cp[pick]
    diam = int(dist[np.ix_(src_r, dst_r)].max())
    classes = max(1, diam) if classes is None else int(classes)
    if classes < 1:
        raise ParamError("vc-classes", f"must be an integer >= 1 (got {classes})")
    return RouteTable(nxt, dist, classes, net.ej_port.copy(), net.ej_router.copy())


# ------------------------------------------------------------ deadlock freedom
class DeadlockError(ValueError):
    """A routing + VC scheme whose channel-dependency graph has a cycle (the message names one)."""


def _walk_routes(net: Network, table: RouteTable):
    """Walk every route between terminal routers at once, one hop per step.

    Yields ``(pair, channel, hop)`` arrays for each step, ``pair`` indexing the (source router,
    destination router) pairs of ``np.unique(inj_router) x np.unique(ej_router)`` without s == d.
    """
    out_ch = net.port_table()["out_channel"]
    src_r, dst_r = np.unique(net.inj_router), np.unique(net.ej_router)
    S, D = np.meshgrid(src_r, dst_r, indexing="ij")
    cur, dst = S.ravel(), D.ravel()
    pair = np.flatnonzero(cur != dst)
    cur, dst = cur[pair], dst[pair]
    hop = 0
    while cur.size:
        ch = out_ch[cur, table.next_port[cur, dst]]
        yield pair, ch, hop
        cur = net.dst[ch]
        hop += 1
        alive = cur != dst
        pair, cur, dst = pair[alive], cur[alive], dst[alive]
        if hop > net.num_routers:
            raise DeadlockError("routing loop: a route does not reach its destination")


def channel_dependencies(net: Network, table: RouteTable) -> tuple[np.ndarray, np.ndarray, int]:
    """Edges (u, v) of the channel-dependency graph of ``sp`` over nodes ``channel * classes + class``.

    A packet holding channel c in class k that next takes channel c' in class k' adds (c,k) -> (c',k').
    """
    K = table.classes
    n_pairs = np.unique(net.inj_router).size * np.unique(net.ej_router).size
    prev = np.full(n_pairs, -1, np.int64)
    us, vs = [], []
    for pair, ch, hop in _walk_routes(net, table):
        node = ch * K + min(hop, K - 1)
        p = prev[pair]
        m = p >= 0
        us.append(p[m])
        vs.append(node[m])
        prev[pair] = node
    u = np.concatenate(us) if us else np.zeros(0, np.int64)
    v = np.concatenate(vs) if vs else np.zeros(0, np.int64)
    N = net.num_channels * K
    key = np.unique(u * N + v)
    return key // N, key % N, N


def uniform_channel_load(net: Network, table: RouteTable) -> np.ndarray:
    """Flits per cycle on each channel per unit of uniform-random injection (flits/terminal/cycle).

    Every terminal sends to the other terminals uniformly; the saturation throughput of the
    routing is at most ``1 / max(load)`` (and 1).
    """
    src_r, dst_r = np.unique(net.inj_router), np.unique(net.ej_router)
    t_in = np.bincount(net.inj_router, minlength=net.num_routers)[src_r]
    t_out = np.bincount(net.ej_router, minlength=net.num_routers)[dst_r]
    T = net.num_terminals
    weight = (t_in[:, None] * t_out[None, :]).ravel() / (T - 1)
    load = np.zeros(net.num_channels)
    for pair, ch, _ in _walk_routes(net, table):
        np.add.at(load, ch, weight[pair])
    return load


def check_deadlock_free(net: Network, table: RouteTable) -> int:
    """Raise :class:`DeadlockError` naming one cycle if the channel-dependency graph is cyclic.

    Returns the number of dependency edges checked (Dally & Seitz: acyclic CDG => deadlock-free).

    Examples
    --------
    >>> from radixnet.gen import build
    >>> ring = build("torus", dims=[6])
    >>> check_deadlock_free(ring, compile_table(ring)) > 0      # 3 classes = diameter: acyclic
    True
    >>> check_deadlock_free(ring, compile_table(ring, classes=1))
    Traceback (most recent call last):
    ...
    radixnet.gen.routing.DeadlockError: sp with 1 VC class on torus has a cyclic channel-dependency graph: 0->1 (class 0) -> 1->2 (class 0) -> 2->3 (class 0) -> 3->4 (class 0) -> 4->5 (class 0) -> 5->0 (class 0) -> back to the start
    """
    from scipy import sparse
    from scipy.sparse import csgraph

    u, v, n = channel_dependencies(net, table)
    g = sparse.coo_array((np.ones(u.size, np.int8), (u, v)), shape=(n, n)).tocsr()
    ncomp, labels = csgraph.connected_components(g, directed=True, connection="strong")
    sizes = np.bincount(labels, minlength=ncomp)
    self_loop = u == v
    if np.all(sizes <= 1) and not np.any(self_loop):
        return int(u.size)
    import networkx as nx
    comp = int(np.argmax(sizes))
    nodes = set(np.flatnonzero(labels == comp).tolist())
    sub = nx.DiGraph([(int(a), int(b)) for a, b in zip(u, v) if int(a) in nodes and int(b) in nodes])
    cycle = nx.find_cycle(sub)
    K = table.classes
    start = min(range(len(cycle)), key=lambda i: cycle[i][0])
    cycle = cycle[start:] + cycle[:start]
    names = [f"{net.src[a // K]}->{net.dst[a // K]} (class {a % K})" for a, _ in cycle]
    raise DeadlockError(f"sp with {K} VC class{'es' if K > 1 else ''} on {net.family} has a cyclic "
                        f"channel-dependency graph: {' -> '.join(names)} -> back to the start")


def compile_dor_table(net: Network) -> RouteTable:
    """Dimension-order next hops of a HyperX-family Network as a one-class :class:`RouteTable`."""
    t = compile_hyperx(net)
    R = net.num_routers
    c = t.coords
    r_idx, d_idx = np.meshgrid(np.arange(R), np.arange(R), indexing="ij")
    diff = c[r_idx] != c[d_idx]                      # (R, R, D)
    dim = np.argmax(diff, axis=2)
    nxt = t.port_to[r_idx, dim, c[d_idx, dim]]
    nxt = np.where(diff.any(axis=2), nxt, -1).astype(np.int32)
    dist = diff.sum(axis=2).astype(np.int32)
    return RouteTable(nxt, dist, 1, t.eject_port, t.term_router)
