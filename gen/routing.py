"""Routing relations and the tables compiled from them (docs/router-spec.md §R5–R7).

A routing is separate from the topology: :class:`Routing` names the rule, its
VC classes and the allocator it needs; :func:`compile_hyperx` turns a
HyperX-family Network (fbfly, hyperx, 2dfb, hypercube) into the port tables
the golden kernel and the RTL route computation read. :func:`resolve` decides
which routings a network takes and how they run; the other families route on
tables: ``sp`` (:func:`compile_table`, §R7a) on every family, and each family's own
(router-spec §R7d), compiled in the family's module and named by its
:attr:`~radixnet.gen.family.Family.tables`: ``dor`` on tori, meshes and hypercubes
(:func:`radixnet.gen.families.torus.compile_dor`), the TTN paper's ``hdor``
(:func:`radixnet.gen.families.ttn.compile_hdor`), the butterfly's ``dest-tag``
(:func:`radixnet.gen.families.butterfly.compile_dest_tag`); the folded Clos's ``clos-adaptive``
is :mod:`radixnet.gen.families.clos`'s. :func:`table_compiler` finds a table's compiler. Every table
routing is checked for an acyclic channel-dependency graph (:func:`check_deadlock_free`;
the Clos's :func:`radixnet.gen.families.clos.check_clos_adaptive`).

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

__all__ = ["deterministic_table", "DETERMINISTIC", "Routing", "ROUTINGS", "get_routing", "HyperXTables",
           "compile_hyperx", "HYPERX_FAMILIES", "RouteTable", "compile_table", "compile_dor_table",
           "channel_dependencies", "check_deadlock_free", "DeadlockError", "is_acyclic", "check_acyclic",
           "uniform_channel_load", "TABLE_CODES", "route_lengths", "cap_classes", "pair_chunks", "table_routers",
           "Plan", "resolve", "accepted_routings", "default_vcs", "default_vc_depth", "DEFAULT_ROUTING",
           "parallel_lanes", "table_compiler"]

# kernel codes
MIN, MIN_AD, VAL, UGAL, CLOS_AD, TABLE, PRIO = 0, 1, 2, 3, 4, 5, 6
TVAL, TUGAL_L, TUGAL_G = 7, 8, 9  # table-driven versions for any topology
TCLOS = 10  # clos-adaptive: adaptive up phase, table down phase (folded Clos)


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
    families : tuple of str, optional
        The topology families it runs on; ``None``: every family (see :func:`resolve`).
    vcs_per_class : int, optional
        Default VCs per class (``--vcs`` not given); ``None``: the simulator's rule (two per class for
        the flattened-butterfly routings, one for the table routings).
    """

    name: str
    code: int
    allocator: str
    n_classes: int | None
    intermediate: bool
    doc: str
    families: tuple[str, ...] | None = None
    vcs_per_class: int | None = None

    def classes(self, net: Network) -> int:
        if self.n_classes is not None:
            return self.n_classes
        dims = max(1, len(net.coord_names))
        # 2dfb-adaptive: VC class = hops taken; at most one misroute per dimension, so <= 2 hops each
        return 2 * dims if self.code == PRIO else dims


HYPERX_FAMILIES = ("fbfly", "hyperx", "2dfb", "hypercube")

ROUTINGS: dict[str, Routing] = {r.name: r for r in (
    Routing("min", MIN, "greedy", 1, False, "dimension-order minimal routing (torus/mesh: dor; families "
                                           "without dimensions: sp)"),
    Routing("min-ad", MIN_AD, "greedy", None, False,
            "minimal adaptive: productive channel with the shortest queue; VC by hops remaining (Kim §3.1)",
            families=HYPERX_FAMILIES),
    Routing("val", VAL, "greedy", 2, True, "Valiant: DOR to a random intermediate router, then DOR (2 VCs)"),
    Routing("ugal", UGAL, "greedy", 2, True, "UGAL: minimal vs Valiant by queue x hops, greedy allocator"),
    Routing("ugal-s", UGAL, "sequential", 2, True, "UGAL with the sequential allocator (Kim §3.1)"),
    Routing("clos-ad", CLOS_AD, "sequential", 2, False,
            "adaptive Clos: least-loaded intermediate in the flattened Clos, sequential allocator",
            families=HYPERX_FAMILIES),
    Routing("2dfb-adaptive", PRIO, "sequential", None, False,
            "2DFB priority-flag adaptive routing (Thamarakuzhi & Chandy Algorithm 1), threshold --threshold",
            families=HYPERX_FAMILIES),
    Routing("ugal-l", TUGAL_L, "greedy", None, True,
            "UGAL with local queue estimates over the route tables (Slim Fly UGAL-L), any topology"),
    Routing("ugal-g", TUGAL_G, "greedy", None, True,
            "UGAL with global knowledge: the queues along the whole route (Slim Fly UGAL-G), any topology"),
)}

#: The routing every tool takes when none is given (``radixnet sim``, ``sweep``, ``cosim``, ``rtl`` and their
#: Python entry points): ``min``, which every family takes and which is the family's own minimal routing --
#: Kim's dimension order on the HyperX families, ``dor`` on tori and meshes, ``sp`` where there are no
#: dimensions (:func:`resolve`) -- the papers' baseline.
DEFAULT_ROUTING = "min"

#: Kernel codes that read the route tables (which routing runs how on a network: :func:`resolve`).
TABLE_CODES = (TABLE, TVAL, TUGAL_L, TUGAL_G, TCLOS)


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
ROUTINGS["dor"] = Routing("dor", TABLE, "greedy", None, False,
                          "dimension-order routing with dateline VCs (torus: 2 classes; mesh, hypercube e-cube: 1)",
                          families=("torus", "mesh", "hypercube"), vcs_per_class=2)
ROUTINGS["hdor"] = Routing("hdor", TABLE, "greedy", None, False,
                           "TTN/TESH hierarchical dimension-order routing through the outlets, 4 VC classes "
                           "(Rahman et al. 2009 §3, Theorem 1)", families=("ttn", "tesh"), vcs_per_class=1)
ROUTINGS["dest-tag"] = Routing("dest-tag", TABLE, "greedy", None, False,
                               "butterfly destination-tag routing (the unique path), 1 VC class",
                               families=("butterfly",), vcs_per_class=2)
ROUTINGS["clos-adaptive"] = Routing("clos-adaptive", TCLOS, "sequential", 1, False,
                                    "folded Clos: up phase to the shortest up queue, deterministic down phase "
                                    "(Adaptive Clos as in Thamarakuzhi & Chandy §IV)", families=("clos",),
                                    vcs_per_class=2)

#: routings that route through an intermediate router (refused on indirect networks)
_TWO_PHASE = {"val", "ugal", "ugal-s", "ugal-l", "ugal-g"}


@dataclass(frozen=True)
class Plan:
    """How a routing runs on one network (:func:`resolve`).

    Attributes
    ----------
    routing : Routing
        The routing asked for.
    code : int
        Kernel code.
    table : str or None
        The route table it needs: ``"sp"``, ``"dor"``, ``"hdor"``, ``"dest-tag"``, ``"clos-adaptive"``,
        ``"two-phase"`` (val / ugal / ugal-l / ugal-g on the shortest-path tables, §R7c) or ``None``
        (the flattened-butterfly kernels, §R7/§R7b).
    """

    routing: Routing
    code: int
    table: str | None


def parallel_lanes(net: Network) -> bool:
    """Whether a HyperX-family ``net`` reaches some neighbour over parallel lanes (the 2-dilated flattened
    butterfly's two channels), where ``min`` and ``min-ad`` pick a lane by queue length (router-spec §R7).

    >>> from radixnet.gen import build
    >>> parallel_lanes(build("2dfb", k=4, n=1)), parallel_lanes(build("fbfly", k=4, n=2))
    (True, False)
    """
    return net.family in HYPERX_FAMILIES and compile_hyperx(net).port_lanes.shape[-1] > 1


def resolve(name: str, net: Network) -> Plan:
    """Decide whether routing ``name`` runs on ``net`` and how: the one place that decides (CLI and simulator).

    ``min`` is dimension order: Kim's DOR kernel on the flattened-butterfly/HyperX families, ``dor`` on a
    torus or mesh (router-spec §R7d), ``sp`` on every other family (no dimensions). ``val``, ``ugal`` and
    ``ugal-s`` outside the HyperX families, and ``ugal-l``/``ugal-g`` everywhere, run on the route tables
    (§R7c) and need a direct network.

    Raises
    ------
    ParamError
        ``--routing`` naming the routings this network accepts.

    Examples
    --------
    >>> from radixnet.gen import build
    >>> resolve("min", build("torus", dims=[4, 4])).table, resolve("min", build("fbfly", k=4, n=2)).table
    ('dor', None)
    >>> resolve("hdor", build("torus", dims=[4, 4]))
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --routing: hdor needs --topo ttn or tesh (got torus); torus takes min, val, ugal, ugal-s, ugal-l, ugal-g, sp, dor
    """
    fam = net.family
    if name not in ROUTINGS:
        raise ParamError("routing", f"must be one of {', '.join(accepted_routings(net))} (what {fam} takes; "
                                    f"got {name!r})")
    r = get_routing(name)
    if r.families is not None and fam not in r.families:
        raise ParamError("routing", f"{name} needs --topo {' or '.join(r.families)} (got {fam}); {fam} takes "
                                    f"{', '.join(accepted_routings(net))}")
    if name in _TWO_PHASE and not (fam in HYPERX_FAMILIES and name in ("val", "ugal", "ugal-s")) \
            and not net.is_direct:
        raise ParamError("routing", f"{name} routes through an intermediate router and needs a direct network; "
                                    f"{fam} is indirect ({fam} takes {', '.join(accepted_routings(net))})")
    hyperx = fam in HYPERX_FAMILIES and net.coords is not None
    if name == "min":
        if hyperx:
            return Plan(r, MIN, None)
        return Plan(r, TABLE, "dor" if fam in ("torus", "mesh") else "sp")
    if name in ("sp", "dor", "hdor", "dest-tag"):
        return Plan(r, TABLE, name)
    if name == "clos-adaptive":
        return Plan(r, TCLOS, "clos-adaptive")
    if name in ("val", "ugal", "ugal-s"):
        if hyperx:
            return Plan(r, r.code, None)
        return Plan(r, TVAL if name == "val" else TUGAL_L, "two-phase")
    if name in ("ugal-l", "ugal-g"):
        return Plan(r, r.code, "two-phase")
    return Plan(r, r.code, None)


def default_vcs(plan: Plan, classes: int) -> int:
    """VCs per port when none are given (router-spec §R1), for the golden model and the RTL alike.

    A routing that says how many VCs each of its classes takes gets those (``dor`` and ``dest-tag`` two,
    ``hdor`` one); another route-table routing one per class (the Slim Fly slides' 2 VCs minimal, 4 adaptive);
    Kim's HyperX routings two per class (one FIFO per class limits an input-queued router's throughput by
    head-of-line blocking), one per class past four classes.

    >>> from radixnet.gen import build
    >>> net = build("fbfly", k=4, n=2)
    >>> default_vcs(resolve("min", net), 1), default_vcs(resolve("sp", net), 1)
    (2, 1)
    """
    per = ROUTINGS[plan.table].vcs_per_class if plan.table in ROUTINGS else plan.routing.vcs_per_class
    if per is not None:
        return per * classes
    if plan.table is not None:
        return classes
    return 2 * classes if classes <= 4 else classes


def default_vc_depth(vcs: int) -> int:
    """Flits per VC buffer when none are given: 32 flits of buffering per port (Kim et al. §3.2), split over the VCs.

    >>> default_vc_depth(2), default_vc_depth(64)
    (16, 1)
    """
    return max(1, 32 // vcs)


def accepted_routings(net: Network) -> list[str]:
    """The routings :func:`resolve` accepts on ``net``, in registry order."""
    out = []
    for name in ROUTINGS:
        r = ROUTINGS[name]
        if r.families is not None and net.family not in r.families:
            continue
        if name in _TWO_PHASE and not (net.family in HYPERX_FAMILIES and name in ("val", "ugal", "ugal-s")) \
                and not net.is_direct:
            continue
        out.append(name)
    return out

#: table routing works up to this many routers (the table is routers x routers)
MAX_TABLE_ROUTERS = 4096


def table_routers(net: Network, what: str) -> int:
    """The router count of ``net``; ParamError above :data:`MAX_TABLE_ROUTERS` (``what`` builds a R x R table)."""
    R = net.num_routers
    if R > MAX_TABLE_ROUTERS:
        raise ParamError("routing", f"{what} builds a routers x routers table; at most {MAX_TABLE_ROUTERS} "
                                    f"routers (this network has {R})")
    return R


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
        VC classes; without ``cls`` a packet's class is ``min(hops taken, classes - 1)``.
    eject_port, term_router : ndarray (T,)
        Ejection router and port of each terminal.
    cls : ndarray (R, R) of int32, optional
        VC class of the hop from router r toward destination router d (router-spec §R7d), already
        capped at ``classes - 1``; ``-1`` (or no table at all, the default) means the hop-index rule
        ``min(hops taken, classes - 1)`` of §R7a. Set by ``dor`` and ``hdor``, whose classes are
        functions of the current and the destination router only.
    routing : str
        The routing the table implements (names it in errors); ``"sp"`` by default.
    """

    next_port: np.ndarray
    dist: np.ndarray
    classes: int
    eject_port: np.ndarray
    term_router: np.ndarray
    cls: np.ndarray | None = None
    routing: str = "sp"

    def hop_class(self, cur: np.ndarray, dst: np.ndarray, hops) -> np.ndarray:
        """VC class of the hop from routers ``cur`` toward routers ``dst`` after ``hops`` hops (§R5)."""
        by_hops = np.minimum(np.asarray(hops, dtype=np.int64), self.classes - 1)
        if self.cls is None:
            return np.broadcast_to(by_hops, np.shape(cur)).astype(np.int64)
        c = self.cls[cur, dst].astype(np.int64)
        return np.where(c >= 0, c, by_hops)


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

    R = table_routers(net, "sp")
    A = net.adjacency()
    dist = csgraph.shortest_path(A, method="D", unweighted=True, directed=True)
    src_r, dst_r = np.unique(net.inj_router), np.unique(net.ej_router)
    if not np.all(np.isfinite(dist[np.ix_(src_r, dst_r)])):
        raise ParamError("topo", "some terminal cannot reach another: the network is not connected")
    dist = np.where(np.isfinite(dist), dist, -1).astype(np.int32)
    # channel c (s -> x) is a minimal first hop toward d iff dist[x, d] == dist[s, d] - 1; among the m
    # minimal ports of (s, d) in port order take the ((s + d) mod m)-th: spreads routes over the minimal
    # ports (a different choice at each hop), deterministic so the dependency check below is exact.
    # Channels are sorted by (src, src_port), so each router's channels are one run, in port order: per
    # block of whole routers, a running count of minimal channels down each run picks the port.
    nxt = np.full((R, R), -1, dtype=np.int32)
    starts = np.searchsorted(net.src, np.arange(R + 1))
    r0 = 0
    while r0 < R:  # (no channels: a single router, every route local)
        r1 = max(r0 + 1, int(np.searchsorted(starts, starts[r0] + 4096, side="right")) - 1)
        r1 = min(r1, R)
        c0, c1 = int(starts[r0]), int(starts[r1])
        if c1 > c0:
            s, x = net.src[c0:c1], net.dst[c0:c1]
            ok = (dist[x] == dist[s] - 1) & (dist[s] > 0)             # (channels, R)
            run = np.zeros((c1 - c0 + 1, R), np.int32)                 # minimal channels before each row
            np.cumsum(ok, axis=0, dtype=np.int32, out=run[1:])
            before = run[starts[r0:r1 + 1] - c0]                       # ... before each router's run
            m = before[1:] - before[:-1]                               # (routers, R): minimal ports
            rows = np.arange(r0, r1)[:, None]
            pick = (rows + np.arange(R)[None, :]) % np.maximum(m, 1)    # which of them, 0-based
            rank = run[1:] - before[s - r0]                            # 1-based rank down the router's run
            ci, d = np.nonzero(ok & (rank == pick[s - r0] + 1))
            nxt[s[ci], d] = net.src_port[c0 + ci]
        r0 = r1
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

    Yields ``(pair, channel, cls)`` arrays for each step, ``pair`` indexing the (source router,
    destination router) pairs of ``np.unique(inj_router) x np.unique(ej_router)`` without s == d and
    ``cls`` the VC class of the hop (:meth:`RouteTable.hop_class`).
    """
    out_ch = net.port_table()["out_channel"]
    src_r, dst_r = np.unique(net.inj_router), np.unique(net.ej_router)
    S, D = np.meshgrid(src_r, dst_r, indexing="ij")
    cur, dst = S.ravel(), D.ravel()
    pair = np.flatnonzero(cur != dst)
    cur, dst = cur[pair], dst[pair]
    hop = 0
    while cur.size:
        port = table.next_port[cur, dst]
        if np.any(port < 0):
            raise DeadlockError(f"{table.routing}: router {int(cur[port < 0][0])} has no route toward router "
                                f"{int(dst[port < 0][0])}")
        ch = out_ch[cur, port]
        yield pair, ch, table.hop_class(cur, dst, hop)
        cur = net.dst[ch]
        hop += 1
        alive = cur != dst
        pair, cur, dst = pair[alive], cur[alive], dst[alive]
        if hop > 4 * net.num_routers:
            raise DeadlockError(f"{table.routing}: routing loop, a route does not reach its destination")


def channel_dependencies(net: Network, table: RouteTable) -> tuple[np.ndarray, np.ndarray, int]:
    """Edges (u, v) of the channel-dependency graph of a table routing over nodes ``channel * classes + class``.

    A packet holding channel c in class k that next takes channel c' in class k' adds (c,k) -> (c',k').
    """
    K = table.classes
    R = net.num_routers
    if net.num_channels == 0:  # one router (a 1-stage butterfly, a 1-flat): every route is local
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    if table.cls is not None and not np.any((table.cls < 0) & ~np.eye(R, dtype=bool)):
        return _table_dependencies(net, table)
    n_pairs = np.unique(net.inj_router).size * np.unique(net.ej_router).size
    prev = np.full(n_pairs, -1, np.int64)
    us, vs = [], []
    for pair, ch, cls in _walk_routes(net, table):
        node = ch * K + cls
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


def _table_dependencies(net: Network, table: RouteTable) -> tuple[np.ndarray, np.ndarray, int]:
    """Dependency edges of a table whose classes depend on (router, destination) only (``dor``, ``hdor``).

    Then a hop is fixed by its router and destination, so the graph has one edge per router on a
    route toward d (not the last): (its channel toward d) -> (the next router's channel toward d),
    without walking each source's route: O(R^2) work and memory for R routers.
    """
    K = table.classes
    R = net.num_routers
    out_ch = net.port_table()["out_channel"]
    src_r, dst_r = np.unique(net.inj_router), np.unique(net.ej_router)
    us, vs = [], []
    step = max(1, (1 << 21) // max(R, 1))
    for d0 in range(0, dst_r.size, step):
        d = dst_r[d0:d0 + step]
        on = np.zeros((R, d.size), bool)           # routers on some route toward each d
        on[src_r] = True
        on[d, np.arange(d.size)] = False
        port = table.next_port[:, d]
        if np.any(on & (port < 0)):
            r, c = np.argwhere(on & (port < 0))[0]
            raise DeadlockError(f"{table.routing}: router {r} has no route toward router {d[c]}")
        ch = np.where(port >= 0, out_ch[np.arange(R)[:, None], np.maximum(port, 0)], -1)
        nb = np.where(ch >= 0, net.dst[np.maximum(ch, 0)], -1)
        for _ in range(R + 1):                     # close under "next router" (the route's remainder)
            r, c = np.nonzero(on)
            n = nb[r, c]
            grow = (n != d[c]) & ~on[n, c]
            if not grow.any():
                break
            on[n[grow], c[grow]] = True
        else:
            raise DeadlockError(f"{table.routing}: routing loop, a route does not reach its destination")
        r, c = np.nonzero(on)
        n = nb[r, c]
        cont = n != d[c]
        r, c, n = r[cont], c[cont], n[cont]
        dc = d[c]
        us.append(ch[r, c] * K + table.hop_class(r, dc, 0))
        vs.append(ch[n, c] * K + table.hop_class(n, dc, 0))
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

    Returns the number of dependency edges checked (Dally & Seitz: acyclic CDG => deadlock-free). A
    hop-index table with more than :data:`MAX_WALK_HOPS` route hops is not walked: when no route is
    longer than its classes, every dependency rises a class and the count returned is that of the
    hop-to-hop dependencies along the routes; otherwise it is refused (ParamError naming ``--vc-classes``).

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
    if table.cls is None:
        shortcut = _rising_classes(net, table)
        if shortcut is not None:
            return shortcut
    u, v, n = channel_dependencies(net, table)
    return check_acyclic(net, u, v, n, table.classes, table.routing)


#: Route hops (summed over the pairs of terminal routers) up to which :func:`check_deadlock_free` walks
#: every route; beyond, a hop-index table whose class rises on every hop is acyclic by construction and
#: any other hop-index table is refused (the walk's time and memory grow with the hops).
MAX_WALK_HOPS = 4_000_000


def _rising_classes(net: Network, table: RouteTable) -> int | None:
    """For a hop-index table (``cls`` None) with more than :data:`MAX_WALK_HOPS` route hops: the number of
    hop-to-hop dependencies when every route is at most ``classes`` hops long (then each dependency goes
    from class h to class h + 1: acyclic, Dally & Seitz); ParamError naming ``--vc-classes`` when it is
    not; None when the routes are short enough to walk."""
    src_r, dst_r = np.unique(net.inj_router), np.unique(net.ej_router)
    if net.num_channels == 0 or src_r.size * dst_r.size * max(int(table.dist.max(initial=0)), 1) <= MAX_WALK_HOPS:
        return None  # few hops to walk: pairs x the longest shortest path (the routes of a minimal table)
    lengths = _table_route_lengths(net, table, dst_r)
    sub = lengths[src_r].astype(np.int64)
    hops = int(sub.sum())
    if hops <= MAX_WALK_HOPS:
        return None
    longest = int(sub.max(initial=0))
    if longest <= table.classes:
        return int(np.maximum(sub - 1, 0).sum())
    raise ParamError("vc-classes", f"{table.routing} with {table.classes} VC class{'es' if table.classes > 1 else ''} "
                                   f"on this {net.family} network: checking its channel-dependency graph would walk "
                                   f"{hops:,} route hops (more than {MAX_WALK_HOPS:,}); give at least {longest} VC "
                                   f"classes (the longest route), which is deadlock-free by construction")


def _table_route_lengths(net: Network, table: RouteTable, dst_r: np.ndarray) -> np.ndarray:
    """Hops of the table's route from every router to each router of ``dst_r`` (R x len(dst_r)).

    ``table.dist`` when every next hop is a minimal one (then routes are shortest paths), else by
    pointer doubling (:func:`route_lengths`), which refuses routes that loop.
    """
    R = net.num_routers
    out_ch = net.port_table()["out_channel"]
    step = max(1, (1 << 21) // max(R, 1))
    minimal = True
    for d0 in range(0, dst_r.size, step):
        d = dst_r[d0:d0 + step]
        dist = table.dist[:, d]
        port = table.next_port[:, d]
        need = dist > 0
        if np.any(need & (port < 0)):
            minimal = False
            break
        ch = out_ch[np.arange(R)[:, None], np.maximum(port, 0)]
        nb = net.dst[np.maximum(ch, 0)]
        if np.any(need & ((ch < 0) | (table.dist[nb, d[None, :]] != dist - 1))):
            minimal = False
            break
    if minimal:
        return np.maximum(table.dist[:, dst_r], 0)
    return route_lengths(net, table.next_port, table.routing)[:, dst_r]


def is_acyclic(u: np.ndarray, v: np.ndarray, n: int) -> bool:
    """Whether the directed graph of edges ``u[i] -> v[i]`` over nodes ``0..n-1`` has no cycle: Kahn's
    algorithm a level at a time (each pass removes every node left without a predecessor, in numpy), so
    the passes are the longest path's nodes. No scipy: a simulation's start-up does not pay its import
    (34 MB of resident memory, measured with the golden-model memory benchmark).

    >>> is_acyclic(np.array([0, 1]), np.array([1, 2]), 3), is_acyclic(np.array([0, 1, 2]), np.array([1, 2, 0]), 3)
    (True, False)
    """
    u = np.asarray(u, np.int64)
    v = np.asarray(v, np.int64)
    if np.any(u == v):
        return False
    indeg = np.bincount(v, minlength=n)
    order = np.argsort(u, kind="stable")
    succ = v[order]
    start = np.searchsorted(u[order], np.arange(n + 1))
    frontier = np.flatnonzero(indeg == 0)
    left = n - frontier.size
    while frontier.size and left:
        lo, cnt = start[frontier], start[frontier + 1] - start[frontier]
        ends = np.cumsum(cnt)
        idx = np.arange(int(ends[-1])) + np.repeat(lo - (ends - cnt), cnt)   # the frontier's out-edges
        tgt = succ[idx]
        indeg -= np.bincount(tgt, minlength=n)
        frontier = np.unique(tgt[indeg[tgt] == 0])
        left -= frontier.size
    return left == 0


def check_acyclic(net: Network, u: np.ndarray, v: np.ndarray, n: int, K: int, what: str) -> int:
    """Raise :class:`DeadlockError` naming one cycle of the dependency graph (u, v) over ``channel * K + class``."""
    if is_acyclic(u, v, n):
        return int(u.size)
    import networkx as nx
    from scipy import sparse
    from scipy.sparse import csgraph

    g = sparse.coo_array((np.ones(u.size, np.int8), (u, v)), shape=(n, n)).tocsr()
    ncomp, labels = csgraph.connected_components(g, directed=True, connection="strong")
    sizes = np.bincount(labels, minlength=ncomp)
    self_loop = u == v
    if np.any(sizes > 1):
        comp = int(np.argmax(sizes))
        nodes = set(np.flatnonzero(labels == comp).tolist())
        sub = nx.DiGraph([(int(a), int(b)) for a, b in zip(u, v) if int(a) in nodes and int(b) in nodes])
        cycle = nx.find_cycle(sub)
    else:
        a = int(u[self_loop][0])
        cycle = [(a, a)]
    start = min(range(len(cycle)), key=lambda i: cycle[i][0])
    cycle = cycle[start:] + cycle[:start]
    names = [f"{net.src[a // K]}->{net.dst[a // K]} (class {a % K})" for a, _ in cycle]
    if len(names) > 24:  # keep the message one readable line
        names = names[:24] + [f"... ({len(cycle)} channels in all)"]
    raise DeadlockError(f"{what} with {K} VC class{'es' if K > 1 else ''} on {net.family} has a cyclic "
                        f"channel-dependency graph: {' -> '.join(names)} -> back to the start")


def compile_dor_table(net: Network) -> RouteTable:
    """Dimension-order next hops of a HyperX-family Network as a one-class :class:`RouteTable`."""
    t = compile_hyperx(net)
    R = net.num_routers
    c = t.coords
    r_idx, d_idx = np.meshgrid(np.arange(R), np.arange(R), indexing="ij")
    diff = c[r_idx] != c[d_idx]                      # (R, R, D)
    if c.shape[1] == 0:                              # a k-ary 1-flat: one router, every route ejects there
        return RouteTable(np.full((R, R), -1, np.int32), np.zeros((R, R), np.int32), 1, t.eject_port,
                          t.term_router)
    dim = np.argmax(diff, axis=2)
    nxt = t.port_to[r_idx, dim, c[d_idx, dim]]
    nxt = np.where(diff.any(axis=2), nxt, -1).astype(np.int32)
    dist = diff.sum(axis=2).astype(np.int32)
    return RouteTable(nxt, dist, 1, t.eject_port, t.term_router)


# ------------------------------------------------------- deterministic tables per family (§R7d)
def route_lengths(net: Network, next_port: np.ndarray, what: str) -> np.ndarray:
    """Hops of every table route (R x R), by pointer doubling; refuses a table whose routes loop."""
    R = net.num_routers
    out_ch = net.port_table()["out_channel"]
    dist = np.zeros((R, R), np.int32)
    rounds = max(1, int(np.ceil(np.log2(4 * R + 1))) + 1)
    step = max(1, (1 << 21) // max(R, 1))
    rows = np.arange(R)[:, None]
    for d0 in range(0, R, step):
        cols = np.arange(d0, min(R, d0 + step))
        port = next_port[:, cols]
        moving = port >= 0
        ch = out_ch[rows, np.where(moving, port, 0)]
        ptr = np.where(moving & (ch >= 0), net.dst[np.maximum(ch, 0)], rows).astype(np.int64)
        length = moving.astype(np.int64)
        j = np.arange(cols.size)[None, :]
        for _ in range(rounds):
            length = length + length[ptr, j]
            ptr = ptr[ptr, j]
        ok = (ptr == cols[None, :]) | ~np.isin(np.arange(R), np.unique(net.inj_router))[:, None]
        if not np.all(ok):
            r, c = np.argwhere(~ok)[0]
            raise DeadlockError(f"{what}: the route from router {r} does not reach router {cols[c]}")
        dist[:, cols] = np.minimum(length, np.iinfo(np.int32).max)
    return dist


def cap_classes(cls: np.ndarray, need: int, classes: int | None, what: str) -> tuple[np.ndarray, int]:
    """Apply ``--vc-classes``: fewer classes than the routing uses map the upper ones onto the last."""
    K = need if classes is None else int(classes)
    if K < 1:
        raise ParamError("vc-classes", f"must be an integer >= 1 (got {classes})")
    return np.where(cls >= 0, np.minimum(cls, K - 1), cls).astype(np.int32), K


def pair_chunks(R: int):
    step = max(1, (1 << 20) // max(R, 1))
    for r0 in range(0, R, step):
        r = np.arange(r0, min(R, r0 + step))
        rr, dd = np.meshgrid(r, np.arange(R), indexing="ij")
        yield rr.ravel(), dd.ravel()


#: the deterministic table routings (a next hop and a VC class per router and destination): what the RTL
#: route ROMs hold (router-spec §R7a, §R7d)
DETERMINISTIC = ("sp", "dor", "hdor", "dest-tag", "min")


def table_compiler(name: str, net: Network):
    """The compiler ``fn(net, classes=None) -> RouteTable`` of deterministic route table ``name``
    (:attr:`Plan.table`) on ``net``: :func:`compile_table` for ``sp``, else the one ``net``'s family names in its
    :attr:`~radixnet.gen.family.Family.tables`. The one dispatch the golden model
    (:class:`~radixnet.golden.sim.SimConfig`) and the RTL (:func:`deterministic_table`) share.

    >>> from radixnet.gen import build
    >>> table_compiler("dor", build("torus", dims=[4, 4])).__module__
    'radixnet.gen.families.torus'
    """
    if name == "sp":
        return compile_table
    from .family import get_family

    fn = get_family(net.family).tables.get(name)
    if fn is None:
        raise ParamError("routing", f"{name} is not a route table of {net.family}")
    return fn


def deterministic_table(net: Network, routing: str = DEFAULT_ROUTING, classes: int | None = None) -> RouteTable:
    """The route table of a deterministic routing on ``net``, checked deadlock-free.

    ``sp``, ``dor``, ``hdor`` and ``dest-tag`` as the simulator compiles them (``resolve`` decides whether
    ``net`` takes the routing); ``min`` is the routing ``min`` means on ``net``: one of those, or on the
    flattened-butterfly / HyperX families Kim's dimension order as the one-class ``compile_dor_table``.

    Raises
    ------
    ParamError
        ``--routing`` naming the deterministic routings ``net`` takes.
    DeadlockError
        The table's channel-dependency graph has a cycle (too few ``classes``).

    Examples
    --------
    >>> from radixnet.gen import build
    >>> t = deterministic_table(build("torus", dims=[4, 4]), "dor")
    >>> t.classes, t.cls is not None
    (2, True)
    >>> deterministic_table(build("slimfly", q=5), "ugal-l")
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --routing: ugal-l is adaptive; route tables hold sp, dor, hdor, dest-tag, min (those slimfly takes: sp, min)
    """
    takes = [r for r in DETERMINISTIC if r in accepted_routings(net)]
    if routing not in takes:
        why = "is adaptive" if routing in ROUTINGS and routing not in DETERMINISTIC else "is not taken here"
        raise ParamError("routing", f"{routing} {why}; route tables hold {', '.join(DETERMINISTIC)} (those "
                                    f"{net.family} takes: {', '.join(takes)})")
    plan = resolve(routing, net)
    if plan.table is None:        # min on a HyperX: Kim's DOR
        if routing == "min" and parallel_lanes(net):
            raise ParamError("routing", f"min on {net.family}'s parallel lanes picks a lane by queue length "
                                        "(router-spec §R7), which no route table holds")
        table = compile_dor_table(net)
    else:
        table = table_compiler(plan.table, net)(net, classes)
    check_deadlock_free(net, table)
    return table

