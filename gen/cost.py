"""Cost and power of a network: Kim, Dally & Abts, ISCA 2007, §4 (packaging and cables) and §5.3 (power).

The model
---------
Every router and terminal is placed in a **cabinet** (§4.1: "the modules and backplane are contained
within a cabinet"; Table 3: 128 nodes per cabinet) and the cabinets stand on a rectangular floor grid
(:func:`floor_grid`). A link between two ports in the same cabinet is a **backplane** trace; any other
link is an **electrical cable** as long as the Manhattan distance between the two cabinets plus the
2 m of vertical run (§4.3), with a repeater for every 6 m past the first 6 (Fig. 7(b), footnote 7:
ceil(ℓ/6) - 1 of them), or an **optical** cable
when :attr:`CostParams.optical_beyond` says so (off by default: "our cost analysis uses electrical
signaling with repeaters", §4.1). Every unidirectional channel carries ``pairs_per_port`` differential
signals (Table 3: 3 pairs per port) and every signal is priced by Table 2: $1.95 on a backplane,
$3.72 + $0.81 ℓ per electrical cable, $220 optical. Terminal links (node to router) are links too and
are priced the same way. A router is one radix-64 router chip, $390 ($90 chip + $300 development,
Table 2), or as many as its signal pins need; the hypercube's low-radix routers are priced by their
pins instead, a $390 router's share (footnote 10: "the router cost for the hypercube is appropriately
adjusted, based on the number of pins required"), and so are the butterfly's k x k routers, which
stand for a butterfly of radix-64 switches (:class:`Packaging`). ``router_pricing`` chooses whole
chips or pin shares for every family instead.

Power (§5.3, Table 5): a router's core draws 40 W at the reference router's full bandwidth, in
proportion to the bandwidth it uses ("P_switch ... is proportional to the total bandwidth of the
router"); every signal of every link draws one SerDes' power: 200 mW on a cable (``P_link_gg``),
40 mW on a backplane in a **direct** network, whose routers can carry dedicated local SerDes
(``P_link_ll``), and 160 mW on a backplane in an **indirect** one (butterfly, folded Clos), where the
same SerDes may drive either (``P_link_gl``).

The packagings (:data:`PACKAGINGS`) place each family's routers so that the links the paper calls
local stay in a cabinet or between neighbouring cabinets (§4.2):

* **flattened butterfly / HyperX** (``fbfly``, ``hyperx``, ``2dfb``): routers in index order
  (dimension 1 fastest) with their nodes, a dimension-1 subsystem kept together: whole subsystems
  share a cabinet when they fit, else one fills cabinets of its own, so the 256 nodes of a 16-ary
  subsystem fill a cabinet pair (Fig. 8(b), footnote 9); higher dimensions across the floor (Fig. 8(c)).
* **hypercube**: 128 single-node routers per cabinet (dimensions 1–7 on the backplane); the cabinet
  index bits split between columns and rows, so the longest cable spans half the floor, the next a
  quarter, ... (Fig. 9(b)).
* **butterfly**: router row w of every stage sits in the cabinet of the k nodes of row w, so its
  channels have the lengths of the flattened butterfly's (§4.2: "the L_max and the L_avg of the
  butterfly will be the same as that of the flattened butterfly").
* **folded Clos** (``clos``): the leaves sit with their nodes, the top-level routers in router
  cabinets in the middle of the floor (Fig. 9(a): "the router cabinet is assumed to be placed in the
  middle"); with three or more levels, each pod's other routers in a router cabinet amid the pod's
  node cabinets, a pod being Fig. 9(a)'s system one level down (``clos_routers="pods"``, the
  default), or every non-leaf router in the middle, each spine plane in one cabinet where it fits
  (``clos_routers="central"``).
* **Slim Fly** (``slimfly``): routers ordered by column pair, (0, x, ·) then (1, x, ·) for each x, a
  pair in cabinets of its own, so the dense intra-column links stay local; **dragonfly**: a group in a
  cabinet (in cabinets of its own when it does not fit).

Families without a packaging (torus, mesh, TTN/TESH, CLEX, a graph from a file) are refused: a
cable's length depends on how the network is laid out, and neither paper lays them out.

Bandwidth: §4.3 compares networks "while holding the random bisection bandwidth constant". Each
network of the comparison is sized to carry uniform random traffic at full injection over channels one
router port wide (:func:`kim_design`); the hypercube carries twice that on such channels (its channels
see half a terminal's load), so ``bandwidth="random-bisection"`` narrows a HyperX-type network's
channels to its most loaded dimension's uniform-random load (:func:`ur_load_max`, computed from the
built network), and its routers' pins with them.

Examples
--------
>>> from radixnet.gen import build
>>> r = evaluate(build("fbfly", k=32, n=2))
>>> r.terminals, r.routers, r.channels
(1024, 32, 992)
>>> round(r.cost_per_node, 2), round(r.power_per_node, 2)
(42.58, 2.01)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Callable

import numpy as np

from .family import build, knowledge
from .network import Network
from .params import Param, ParamError

__all__ = ["CostParams", "COST_PARAMS", "CostReport", "Packaging", "PACKAGINGS", "NO_PACKAGING", "Placement",
           "direct_placement", "cab_digits", "pack_groups",
           "evaluate", "floor_grid", "kim_design", "kim_network", "kim_lengths", "mean_hops", "memory_estimate",
           "ur_load_max", "packaging_names"]


# ------------------------------------------------------------------------------------------- parameters
#: Every cost, packaging and power parameter: name, type, default, what it is (with its source), range.
#: :class:`CostParams` takes its defaults from here and checks every value against it (``_check``).
COST_PARAMS: tuple[Param, ...] = (
    # Kim Table 2 and §4.1
    Param("router_chip", float, 90.0, "$ per radix-64 router chip, recurring (Table 2; MPR model, TSMC 0.13 um "
          "17x17 mm, with package and test, §4.1)", minimum=0),
    Param("router_development", float, 300.0, "$ per router chip, non-recurring (Table 2; ~$6M amortised over "
          "20k parts, §4.1)", minimum=0),
    Param("backplane_per_signal", float, 1.95, "$ per differential signal on a backplane (Table 2; footnote 4: "
          "$3000 per 1536 signals with the GbX connector)", minimum=0),
    Param("cable_fixed", float, 3.72, "$ per signal of an electrical cable: connectors, shielding, assembly "
          "(Table 2, Fig. 7 intercept)", minimum=0),
    Param("cable_per_m", float, 0.81, "$ per signal per metre of electrical cable (Table 2, Fig. 7 slope)",
          minimum=0),
    Param("repeater_length", float, 6.0, "m: longest electrical cable driven at full rate; longer ones get a "
          "repeater every this many metres (footnote 7, Fig. 7(b))", minimum=0.1),
    Param("repeater_cost", float, 3.72, "$ per signal per repeater: the step of Fig. 7(b), 'approximately the "
          "additional connector cost' (§4.1; the figure is missing: taken equal to cable_fixed)", minimum=0),
    Param("optical_per_signal", float, 220.0, "$ per signal of an optical cable ($20 of fibre + $200 transceivers, "
          "footnote 6)", minimum=0),
    Param("optical_beyond", float, None, "m: cables longer than this are optical; unset: never (Kim §4.1 uses "
          "electrical cables with repeaters)", minimum=0),
    # Kim Table 3 and §4.2-4.3
    Param("radix", int, 64, "ports of the reference router that router_chip/router_development and p_switch "
          "price (Table 3)", minimum=1, maximum=100_000),
    Param("pairs_per_port", float, 3.0, "differential signals per channel direction (Table 3: 3 pairs per port)",
          minimum=0.001),
    Param("nodes_per_cabinet", int, 128, "nodes per cabinet (Table 3, footnote 9: as in the Cray BlackWidow)",
          minimum=1, maximum=1_000_000),
    Param("cabinet_width", float, 0.57, "m, cabinet footprint width (Table 3)", minimum=0.01),
    Param("cabinet_depth", float, 1.44, "m, cabinet footprint depth (Table 3)", minimum=0.01),
    Param("row_spacing", float, 2.0, "factor on the depth for the aisle between rows of cabinets (§4.3)",
          minimum=1.0),
    Param("density", float, 75.0, "D, nodes per m^2 of floor (Table 3); sets the column pitch, E = sqrt(N/D)",
          minimum=0.001),
    Param("cable_overhead", float, 2.0, "m added to every cable: 1 m of vertical run at each end (§4.3)",
          minimum=0),
    Param("router_cabinet_routers", int, 64, "routers in a router-only cabinet (folded Clos; not in the paper: "
          "assumed)", minimum=1, maximum=1_000_000),
    Param("clos_routers", str, "pods", "folded Clos packaging: pods: each pod's upper routers in a router cabinet "
          "amid the pod, the top level in the middle of the floor (Fig. 9(a) applied to each pod and to the whole); "
          "central: every non-leaf router in the middle (not in the paper: choices of this model)",
          choices=("central", "pods")),
    Param("router_pricing", str, "kim", "kim: every router is a whole reference chip (Table 2's $390; two if it "
          "needs more pins), except the hypercube's and butterfly's, priced by their pins (footnote 10); chip: "
          "whole chips throughout; pins: every router its share of the reference router's pins",
          choices=("kim", "chip", "pins")),
    # Kim Table 5 and §5.3
    Param("p_switch", float, 40.0, "W of router core at the reference router's full bandwidth (Table 5)",
          minimum=0),
    Param("p_link_gg", float, 0.200, "W per signal driving a global cable (Table 5, P_link_gg)", minimum=0),
    Param("p_link_gl", float, 0.160, "W per signal driving a local link with a general SerDes, indirect networks "
          "(Table 5, P_link_gl)", minimum=0),
    Param("p_link_ll", float, 0.040, "W per signal driving a local (<1 m backplane) link with a dedicated SerDes, "
          "direct networks (Table 5, P_link_ll)", minimum=0),
)
#: the largest value any numeric model parameter takes (prices in $, lengths in m, powers in W, counts): far
#: above any real one, and low enough that the model's sums over a million routers and cables stay finite
COST_PARAM_MAX = 1e12
COST_PARAMS = tuple(replace(p, maximum=COST_PARAM_MAX) if p.type in (int, float) and p.maximum is None else p
                    for p in COST_PARAMS)
_BY_NAME = {p.name: p for p in COST_PARAMS}


@dataclass(frozen=True)
class CostParams:
    """The parameters of the cost and power model; every field is documented in :data:`COST_PARAMS`.

    Construct with keyword arguments (checked on construction, :class:`ParamError` naming the field) or
    from strings with :meth:`from_values`.

    Examples
    --------
    >>> CostParams().router_cost
    390.0
    >>> CostParams(density=90.0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --density: 90 nodes/m^2 is denser than 128 nodes per ... (at most 77.97)
    """

    router_chip: float = 90.0
    router_development: float = 300.0
    backplane_per_signal: float = 1.95
    cable_fixed: float = 3.72
    cable_per_m: float = 0.81
    repeater_length: float = 6.0
    repeater_cost: float = 3.72
    optical_per_signal: float = 220.0
    optical_beyond: float | None = None
    radix: int = 64
    pairs_per_port: float = 3.0
    nodes_per_cabinet: int = 128
    cabinet_width: float = 0.57
    cabinet_depth: float = 1.44
    row_spacing: float = 2.0
    density: float = 75.0
    cable_overhead: float = 2.0
    router_cabinet_routers: int = 64
    clos_routers: str = "pods"
    router_pricing: str = "kim"
    p_switch: float = 40.0
    p_link_gg: float = 0.200
    p_link_gl: float = 0.160
    p_link_ll: float = 0.040

    def __post_init__(self) -> None:
        _check(self)

    @classmethod
    def from_values(cls, values: dict[str, Any]) -> "CostParams":
        """Parameters from raw values (strings from the command line); unknown names are refused.

        Raises
        ------
        ParamError
            An unknown name, a value of the wrong type or out of range, an inconsistent floor.
        """
        out = {}
        for name, raw in values.items():
            if name not in _BY_NAME:
                raise ParamError("cost", f"unknown cost parameter {name!r} (one of {', '.join(_BY_NAME)})")
            out[name] = _BY_NAME[name].convert(raw)
        return cls(**out)

    @property
    def router_cost(self) -> float:
        """$ of the reference router: chip + development (Table 2: $390)."""
        return self.router_chip + self.router_development

    @property
    def reference_pins(self) -> float:
        """Signal pins (pairs, both directions) of the reference router: radix x pairs x 2."""
        return self.radix * self.pairs_per_port * 2

    @property
    def pitch(self) -> tuple[float, float]:
        """(column, row) pitch of the cabinet grid in metres.

        The row pitch is the depth times ``row_spacing`` (§4.3); the column pitch makes the floor hold
        ``density`` nodes per m^2 (Table 3's D): ``nodes_per_cabinet / D / row pitch`` (0.593 m for the
        defaults: cabinets of 0.57 m with 2.3 cm between them).
        """
        row = self.cabinet_depth * self.row_spacing
        return self.nodes_per_cabinet / self.density / row, row

    def doc(self) -> list[dict[str, Any]]:
        """Every parameter with its value and documentation (for ``radixnet cost --json``)."""
        return [{"name": p.name, "value": getattr(self, p.name), "doc": p.help} for p in COST_PARAMS]


def _check(p: CostParams) -> None:
    """The one place the model's parameters are checked."""
    for f in fields(p):
        prm = _BY_NAME[f.name]
        v = getattr(p, f.name)
        if v is None and prm.default is None:
            continue
        if prm.type is float and isinstance(v, int) and not isinstance(v, bool):
            object.__setattr__(p, f.name, float(v))
            v = float(v)
        ok_type = (isinstance(v, float) if prm.type is float else
                   isinstance(v, int) and not isinstance(v, bool) if prm.type is int else isinstance(v, str))
        if not ok_type or (prm.type is float and not math.isfinite(v)):
            raise ParamError(f.name, f"must be {prm.allowed()} (got {v!r})")
        prm.convert(v)  # range and choices
    row = p.cabinet_depth * p.row_spacing
    most = p.nodes_per_cabinet / (p.cabinet_width * row)
    if p.density > most + 1e-9:
        raise ParamError("density", f"{p.density:g} nodes/m^2 is denser than {p.nodes_per_cabinet} nodes per "
                                    f"{p.cabinet_width:g} m x {row:g} m cabinet footprint (at most {most:.2f})")


# ------------------------------------------------------------------------------------------- packaging
@dataclass(frozen=True)
class Placement:
    """Where a network's routers and terminals stand.

    Attributes
    ----------
    router_cab : ndarray of int, shape (R,)
        Cabinet of each router.
    term_cab : ndarray of int, shape (T,)
        Cabinet of each terminal (node).
    xy : ndarray of float, shape (C, 2)
        Centre of each cabinet on the floor, metres.
    node_cabinets, router_cabinets : int
        Cabinets holding nodes, and router-only cabinets.
    cols, rows : int
        The floor grid.
    """

    router_cab: np.ndarray
    term_cab: np.ndarray
    xy: np.ndarray
    node_cabinets: int
    router_cabinets: int
    cols: int
    rows: int


@dataclass(frozen=True)
class Packaging:
    """A family's packaging: how its routers go into cabinets (Kim §4.2).

    Attributes
    ----------
    family : str
    direct : bool
        Every router serves nodes, so local links can have dedicated SerDes (§5.3).
    summary : str
        One line: the placement and its source.
    place : callable(Network, CostParams) -> Placement
    pin_priced : bool
        Its routers are priced by their pins under ``router_pricing="kim"``: the hypercube (footnote 10),
        and the butterfly, whose k x k routers (k^n = N) stand for the radix-64 butterfly switches Kim
        uses ("with radix-64 routers, the conventional butterfly can scale to 4K nodes with only 2
        stages"): a k-ary n-fly's pins add up to the chips of a butterfly of 64 x 64 switches.
    """

    family: str
    direct: bool
    summary: str
    place: Callable[[Network, CostParams], Placement]
    pin_priced: bool = False


def floor_grid(cabinets: int, params: CostParams, digits: list[int] | None = None,
               central: int = 0) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Lay ``cabinets`` node cabinets and ``central`` router cabinets on a grid.

    The number of columns makes the floor as square as it can (the smallest longer side); when the
    cabinet index is a mixed-radix number (``digits``, least significant first, e.g. a network's
    dimensions), only column counts that keep whole digits (or a divisor of the next one) in a row are
    tried, so that a dimension runs along a row or a column (Kim Fig. 8(c)). Router cabinets take the
    slots nearest the centre (Fig. 9(a)); node cabinets fill the others row by row, in order.

    Parameters
    ----------
    cabinets : int
        Node cabinets (in the order the packaging numbers them).
    params : CostParams
        For the pitches (:attr:`CostParams.pitch`).
    digits : list of int, optional
        Mixed-radix digits of the node cabinet index (their product is ``cabinets``).
    central : int
        Router cabinets to place in the middle.

    Returns
    -------
    node_xy, router_xy : ndarray, shapes (cabinets, 2), (central, 2)
        Cabinet centres in metres.
    cols, rows : int

    Examples
    --------
    >>> node, rtr, cols, rows = floor_grid(8, CostParams())
    >>> cols, rows
    (8, 1)
    >>> node, rtr, cols, rows = floor_grid(8, CostParams(), central=1)
    >>> cols, rows, rtr.round(2).tolist()
    (9, 1, [[2.67, 1.44]])
    """
    px, py = params.pitch
    total = cabinets + central
    if total <= 0:
        return np.zeros((0, 2)), np.zeros((0, 2)), 0, 0
    cands: set[int] = set()
    if digits and central == 0 and math.prod(digits) == cabinets:
        pre = 1
        for d in digits:
            cands.update(pre * f for f in range(1, d + 1) if d % f == 0)
            pre *= d
        cands.add(pre)
    else:
        cands = set(range(1, total + 1))

    def score(x: int) -> tuple[float, float, int]:
        rows = -(-total // x)
        a, b = x * px, rows * py
        return (max(a, b), a + b, x)

    cols = min(cands, key=score)
    rows = -(-total // cols)
    slots = np.arange(cols * rows)
    sxy = np.stack([(slots % cols + 0.5) * px, (slots // cols + 0.5) * py], axis=1)
    if central:
        centre = np.array([cols * px / 2, rows * py / 2])
        d = np.abs(sxy - centre).sum(axis=1)
        order = np.lexsort((slots, d))
        mid = np.sort(order[:central])
        rest = np.setdiff1d(slots, mid)[:cabinets]
        return sxy[rest], sxy[order[:central]], cols, rows
    return sxy[:cabinets], np.zeros((0, 2)), cols, rows


def cab_digits(dims: list[int], per_cab: int) -> list[int] | None:
    """Mixed-radix digits of the cabinet index when ``per_cab`` consecutive routers share a cabinet."""
    dims = [int(d) for d in dims]
    i = 0
    while per_cab > 1 and i < len(dims):
        g = math.gcd(per_cab, dims[i])
        if g == dims[i]:
            per_cab //= g
            i += 1
        elif per_cab % g == 0 and per_cab // g == 1:
            return [dims[i] // g] + dims[i + 1:]
        else:
            return None
    if per_cab > 1:
        return None
    return dims[i:]


def direct_placement(net: Network, params: CostParams, order: np.ndarray | None = None, group: int = 1,
                      digits: list[int] | None = None) -> Placement:
    """Routers in ``order`` (default index order) with their nodes, ``nodes_per_cabinet // c`` to a cabinet.

    ``group`` consecutive routers (in that order) form a unit the packaging keeps together (a dimension-1
    subsystem, a dragonfly group, a Slim Fly column pair): whole groups share a cabinet when they fit,
    else a group fills cabinets of its own. ``digits`` are the mixed-radix digits of the group index
    (for :func:`floor_grid`).
    """
    R = net.num_routers
    tpr = net.terminals_per_router()
    c = int(tpr.max(initial=0))
    if c == 0 or np.any(tpr == 0):
        raise ParamError("c", f"{net.family}: every router needs terminals for a cost per node (got a router "
                              f"with none)")
    npc = params.nodes_per_cabinet
    rank = np.empty(R, dtype=np.int64)
    rank[np.arange(R) if order is None else order] = np.arange(R)
    t_order = np.argsort(net.inj_router, kind="stable")
    pos = np.empty(net.num_terminals, dtype=np.int64)  # a terminal's place among its router's
    starts = np.concatenate([[0], np.cumsum(tpr)[:-1]])
    pos[t_order] = np.arange(net.num_terminals) - np.repeat(starts, tpr)
    group = max(1, min(int(group), R))
    cdig = None
    if c <= npc:
        per = npc // c
        if group <= per:
            gpc = per // group
            router_cab = (rank // group) // gpc
            if digits is not None:
                cdig = cab_digits(digits, gpc)
        else:
            cpg = -(-group // per)
            router_cab = (rank // group) * cpg + (rank % group) // per
            if digits is not None:
                cdig = [cpg] + list(digits)
        term_cab = router_cab[net.inj_router]
    else:  # a router's nodes fill several cabinets; the router stands in the first
        cpr = -(-c // npc)
        router_cab = rank * cpr
        term_cab = router_cab[net.inj_router] + pos // npc
    C = int(max(router_cab.max(initial=0), term_cab.max(initial=0))) + 1
    ok = cdig is not None and math.prod(cdig) == C
    node_xy, _, cols, rows = floor_grid(C, params, cdig if ok else None)
    return Placement(router_cab, term_cab, node_xy, C, 0, cols, rows)


def pack_groups(groups: list[np.ndarray], cap: int) -> list[np.ndarray]:
    """Fill cabinets of ``cap`` routers with whole groups where a group fits, else split a group."""
    cabs: list[list[int]] = []
    cur: list[int] = []
    for g in groups:
        g = [int(v) for v in g]
        if len(g) > cap:
            if cur:
                cabs.append(cur)
                cur = []
            for i in range(0, len(g), cap):
                cabs.append(g[i:i + cap])
            continue
        if len(cur) + len(g) > cap:
            cabs.append(cur)
            cur = []
        cur += g
    if cur:
        cabs.append(cur)
    return [np.asarray(c, dtype=np.int64) for c in cabs]


class _Packagings(Mapping):
    """Family name -> its :class:`Packaging`, read from the family registry (each family's module declares its
    own, ``Family.packaging``) when asked, so that importing this module loads no family."""

    def _all(self) -> dict[str, Packaging]:
        from .family import family_names, get_family

        return {n: get_family(n).packaging for n in family_names() if get_family(n).packaging is not None}

    def __getitem__(self, name: str) -> Packaging:
        return self._all()[name]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


#: The families with a packaging (Kim §4.2: how their routers go into cabinets), by name.
PACKAGINGS: Mapping[str, Packaging] = _Packagings()

#: Why the other families have no packaging (``radixnet cost`` prints it when refusing one).
NO_PACKAGING = ("a cable's length depends on how the network is laid out on the floor, and neither Kim et al. "
                "§4.2 nor the Slim Fly slides lay out a torus, mesh, TTN/TESH, CLEX or a graph from a file")


def packaging_names() -> list[str]:
    """Families :func:`evaluate` can price."""
    return sorted(PACKAGINGS)


def memory_estimate(routers: int, channels: int, terminals: int) -> int:
    """Bytes :func:`evaluate` allocates, from the sizes alone (checked by ``radixnet cost`` before any work).

    Measured with ``tracemalloc``: 157-201 bytes per link (channels and both directions of every terminal
    link) on hypercube, folded Clos and dragonfly networks of 0.2-1 million channels, rounded up to 256;
    plus one chunk of 256 BFS rows of the shortest-path matrix (and its product) per router.

    >>> memory_estimate(routers=32, channels=992, terminals=1024)
    909312
    """
    return 256 * (int(channels) + 2 * int(terminals)) + 256 * 16 * int(routers)


# ------------------------------------------------------------------------------------ uniform random load
_HOPS_CACHE: dict[str, tuple[float, bool]] = {}


def mean_hops(net: Network, max_sources: int = 1024) -> tuple[float, bool]:
    """Mean router-to-router hops (channels) of a shortest path, over ordered pairs of distinct terminals.

    Uses the family's vertex classes when every router has the same terminals (one BFS per class),
    else a BFS from every injection router, or from ``max_sources`` of them evenly spaced (an estimate)
    when there are more. Remembered per network (by digest) for the session.

    Returns
    -------
    (float, bool)
        The mean, and whether it is exact.

    Examples
    --------
    >>> from radixnet.gen import build
    >>> h, exact = mean_hops(build("hypercube", n=4))   # n 2^(n-1) / (2^n - 1)
    >>> round(h, 4), exact
    (2.1333, True)
    """
    key = f"{net.digest()}:{max_sources}"
    if key in _HOPS_CACHE:
        return _HOPS_CACHE[key]
    from scipy.sparse.csgraph import shortest_path
    N, R = net.num_terminals, net.num_routers
    if N < 2 or net.num_channels == 0:
        return 0.0, True
    A = net.adjacency()
    A.data[:] = 1
    inj = np.bincount(net.inj_router, minlength=R).astype(np.float64)
    ej = np.bincount(net.ej_router, minlength=R).astype(np.float64)
    kn = knowledge(net)
    exact = True
    if kn.vertex_classes and np.all(inj == inj[0]) and np.array_equal(inj, ej):
        sources = np.array([r for r, _ in kn.vertex_classes], dtype=np.int64)
        weight = np.array([w for _, w in kn.vertex_classes], dtype=np.float64) * inj[0]
    else:
        sources = np.flatnonzero(inj)
        if sources.size > max_sources:
            pick = np.unique(np.linspace(0, sources.size - 1, max_sources).round().astype(np.int64))
            scale = inj[sources].sum() / inj[sources[pick]].sum()
            sources, exact = sources[pick], False
            weight = inj[sources] * scale
        else:
            weight = inj[sources]
    total = 0.0
    for i in range(0, sources.size, 256):
        D = shortest_path(A, method="D", unweighted=True, indices=sources[i:i + 256])
        if not np.all(np.isfinite(D[:, ej > 0])):
            raise ParamError("topology", f"{net.family}: some terminal cannot reach another")
        D[~np.isfinite(D)] = 0.0  # routers without ejecting terminals (butterfly stage 0)
        total += float(weight[i:i + 256] @ (D @ ej))
    out = (total / (N * (N - 1)), exact)
    if len(_HOPS_CACHE) > 64:
        _HOPS_CACHE.clear()
    _HOPS_CACHE[key] = out
    return out


def ur_load_max(net: Network) -> float:
    """Most loaded dimension's mean channel load under uniform random traffic at one flit per terminal
    per cycle, minimal routing, for HyperX-type networks (fbfly, hyperx, hypercube, 2dfb).

    A pair of terminals crosses one dimension-d channel exactly when their routers' coordinate d
    differs; counted from the network's coordinates, terminals and channel tags.

    Examples
    --------
    >>> from radixnet.gen import build
    >>> round(ur_load_max(build("hypercube", n=10)), 4)   # half a terminal channel
    0.5005
    >>> round(ur_load_max(build("fbfly", k=32, n=2)), 4)
    1.001
    """
    if net.family not in _HYPERX or net.coords is None:
        raise ParamError("bandwidth", f"random-bisection needs the most loaded channel, known exactly here for the "
                                      f"HyperX-type families ({', '.join(sorted(_HYPERX))}), not {net.family}")
    N = net.num_terminals
    if N < 2 or net.num_channels == 0:
        return 0.0
    worst = 0.0
    xs = net.coords[net.inj_router]
    for d in range(net.coords.shape[1]):
        cnt = np.bincount(xs[:, d]).astype(np.float64)
        crossing = (float(N) * N - float(cnt @ cnt)) / (N - 1)
        nch = int(np.count_nonzero(net.tag == d))
        if nch:
            worst = max(worst, crossing / nch)
    return worst


_HYPERX = {"fbfly", "hyperx", "hypercube", "2dfb"}


# ------------------------------------------------------------------------------------------- evaluation
@dataclass(frozen=True)
class CostReport:
    """Dollars, cables and watts of one network (:func:`evaluate`).

    Attributes
    ----------
    family, params : str, dict
        The network.
    terminals, routers, channels, links : int
        Nodes, routers, unidirectional inter-router channels (Kim's "links": "the folded Clos requires
        2048 links") and physical bidirectional links.
    bandwidth : str
        ``port`` or ``random-bisection``.
    channel_pairs : float
        Differential signals per inter-router channel direction.
    ur_load : float
        Mean channel load under uniform random traffic at one flit per terminal per cycle, minimal
        routing (``N * mean_hops / channels``; :func:`mean_hops`).
    ur_load_exact : bool
        False when :func:`mean_hops` sampled its BFS sources.
    floor : dict
        ``node_cabinets``, ``router_cabinets``, ``cols``, ``rows``, ``width_m``, ``depth_m``, and Kim's
        ``E = sqrt(N/D)``.
    router_cost, link_cost, terminal_link_cost : float
        Dollars; ``link_cost`` includes the terminal links.
    links_by_class : list of dict
        One row per (kind, medium, length class): ``channels``, ``signals``, ``avg_length_m`` (with the
        overhead), ``repeaters`` per signal, ``cost``.
    lengths : dict
        Over the inter-router cables, without the overhead (Kim Fig. 10(b)): ``l_avg`` over all of them,
        ``l_avg_global`` over those not between neighbouring cabinets of a row, ``l_max``, and the counts.
    by_tag : list of dict
        Per channel tag (dimension, level, local/global): ``tag``, ``name``, ``channels`` and how many are
        ``backplane``, ``neighbour`` (a cable to a neighbouring cabinet of the row) and ``global`` cables,
        and ``l_avg`` of its cables without the overhead.
    power : dict
        Watts: ``switch``, ``links`` (``terminal_links`` of it), ``total``.
    model : dict
        ``packaging`` (its one-line summary), ``direct`` (dedicated local SerDes) and ``params`` (every
        :class:`CostParams` value used).
    """

    family: str
    params: dict
    terminals: int
    routers: int
    channels: int
    links: int
    bandwidth: str
    channel_pairs: float
    ur_load: float
    ur_load_exact: bool
    floor: dict
    router_cost: float
    link_cost: float
    terminal_link_cost: float
    links_by_class: list
    lengths: dict
    by_tag: list
    power: dict
    model: dict = field(repr=False, default_factory=dict)

    @property
    def total_cost(self) -> float:
        """$ of routers and links."""
        return self.router_cost + self.link_cost

    @property
    def cost_per_node(self) -> float:
        """$ per terminal (Kim Fig. 11)."""
        return self.total_cost / self.terminals

    @property
    def link_fraction(self) -> float:
        """Link cost over the network's cost (Kim Fig. 10(a))."""
        return self.link_cost / self.total_cost if self.total_cost else 0.0

    @property
    def power_per_node(self) -> float:
        """W per terminal (Kim Fig. 15)."""
        return self.power["total"] / self.terminals

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every attribute plus the per-node figures."""
        d = asdict(self)
        d.update(total_cost=self.total_cost, cost_per_node=self.cost_per_node, link_fraction=self.link_fraction,
                 power_per_node=self.power_per_node)
        return d


def _segments(length: np.ndarray, params: CostParams) -> np.ndarray:
    return np.maximum(1, np.ceil(length / params.repeater_length - 1e-9)).astype(np.int64)


def evaluate(net: Network, params: CostParams | None = None, *, bandwidth: str = "port") -> CostReport:
    """Price and power ``net`` under Kim et al.'s model (module docstring).

    Parameters
    ----------
    net : Network
        A network of a family with a packaging (:data:`PACKAGINGS`).
    params : CostParams, optional
        The model's parameters (default: the paper's).
    bandwidth : {"port", "random-bisection"}
        ``port``: every inter-router channel is one router port (``pairs_per_port`` signals);
        ``random-bisection``: narrowed (or widened) so the most loaded dimension carries uniform random
        traffic at exactly one flit per terminal per cycle (HyperX-type families, :func:`ur_load_max`).

    Returns
    -------
    CostReport

    Raises
    ------
    ParamError
        A family without a packaging, a network with a router without nodes (direct families), an
        unknown ``bandwidth``.
    """
    p = params if params is not None else CostParams()
    if net.family not in PACKAGINGS:
        raise ParamError("topology", f"{net.family} has no packaging (families with one: "
                                     f"{', '.join(packaging_names())}): {NO_PACKAGING}")
    if bandwidth not in ("port", "random-bisection"):
        raise ParamError("bandwidth", f"must be one of port, random-bisection (got {bandwidth!r})")
    if net.num_terminals == 0:
        raise ParamError("c", f"{net.family}: a network without terminals has no cost per node")
    pk = PACKAGINGS[net.family]
    pl = pk.place(net, p)
    ppp = p.pairs_per_port
    width = ppp * (ur_load_max(net) if bandwidth == "random-bisection" else 1.0)
    px, _ = p.pitch
    R, T = net.num_routers, net.num_terminals
    N = T

    # every unidirectional link: (kind, cabinet a, cabinet b, signals)
    ca = np.concatenate([pl.router_cab[net.src], pl.term_cab, pl.router_cab[net.ej_router]])
    cb = np.concatenate([pl.router_cab[net.dst], pl.router_cab[net.inj_router], pl.term_cab])
    C = net.num_channels
    terminal = np.zeros(ca.size, dtype=bool)
    terminal[C:] = True
    sig = np.where(terminal, ppp, width)
    dist = np.abs(pl.xy[ca] - pl.xy[cb]).sum(axis=1)
    cable = ca != cb
    length = np.where(cable, dist + p.cable_overhead, 0.0)
    optical = cable & (length > p.optical_beyond) if p.optical_beyond is not None else np.zeros_like(cable)
    electrical = cable & ~optical
    seg = np.where(electrical, _segments(length, p), 0)
    per_signal = np.where(~cable, p.backplane_per_signal,
                          np.where(optical, p.optical_per_signal,
                                   p.cable_fixed + p.cable_per_m * length + p.repeater_cost * (seg - 1)))
    cost = sig * per_signal
    # SerDes power per signal (§5.3)
    local_w = p.p_link_ll if pk.direct else p.p_link_gl
    watts = sig * np.where(cable, p.p_link_gg, local_w)

    rows: list[dict[str, Any]] = []
    medium = np.where(~cable, 0, np.where(optical, 2, 1))
    for kind, kmask in (("terminal", terminal), ("network", ~terminal)):
        for med, name in ((0, "backplane"), (1, "electrical"), (2, "optical")):
            mm = kmask & (medium == med)
            if not mm.any():
                continue
            classes = seg[mm] if med == 1 else np.zeros(int(mm.sum()), dtype=np.int64)
            for s in np.unique(classes):
                sel = np.flatnonzero(mm)[classes == s]
                lab = ("backplane" if med == 0 else "optical" if med == 2 else
                       f"{(s - 1) * p.repeater_length:g}-{s * p.repeater_length:g} m"
                       + (f", {s - 1} repeater{'s' if s > 2 else ''}" if s > 1 else ""))
                rows.append({"kind": kind, "medium": name, "class": lab, "channels": int(sel.size),
                             "signals": float(sig[sel].sum()),
                             "avg_length_m": float(length[sel].mean()) if med else 0.0,
                             "repeaters": int(s - 1) if med == 1 else 0, "cost": float(cost[sel].sum())})

    # router pins (signal-directions) and price
    pins = (np.bincount(net.src, minlength=R) + np.bincount(net.dst, minlength=R)) * width \
        + (np.bincount(net.inj_router, minlength=R) + np.bincount(net.ej_router, minlength=R)) * ppp
    share = pins / p.reference_pins
    if p.router_pricing == "pins" or (p.router_pricing == "kim" and pk.pin_priced):
        router_cost = float(share.sum() * p.router_cost)
    else:
        router_cost = float(np.ceil(share - 1e-9).clip(min=1).sum() * p.router_cost)
    p_switch = float(share.sum() * p.p_switch)

    # cable lengths of the inter-router channels, without the overhead (Fig. 10(b))
    net_cable = cable[:C]
    L = dist[:C][net_cable]
    glob = L > px * 1.5  # not between neighbouring cabinets of a row
    lengths = {"cables": int(net_cable.sum()), "global_cables": int(glob.sum()),
               "l_avg": float(L.mean()) if L.size else 0.0,
               "l_avg_global": float(L[glob].mean()) if glob.any() else 0.0,
               "l_max": float(L.max()) if L.size else 0.0}
    by_tag = []
    tag_all = net.tag
    for t in np.unique(tag_all):
        sel = tag_all == t
        cab_t = net_cable & sel
        Lt = dist[:C][cab_t]
        by_tag.append({"tag": int(t), "name": net.tag_names.get(int(t), str(int(t))), "channels": int(sel.sum()),
                       "backplane": int((sel & ~net_cable).sum()), "neighbour": int((Lt <= px * 1.5).sum()),
                       "global": int((Lt > px * 1.5).sum()), "l_avg": float(Lt.mean()) if Lt.size else 0.0})
    from .metrics import links as physical_links
    hops, hops_exact = mean_hops(net)
    ur = N * hops / C if C else 0.0
    floor = {"node_cabinets": pl.node_cabinets, "router_cabinets": pl.router_cabinets, "cols": pl.cols,
             "rows": pl.rows, "width_m": pl.cols * px, "depth_m": pl.rows * p.pitch[1],
             "E": math.sqrt(N / p.density)}
    return CostReport(
        family=net.family, params=dict(net.params), terminals=T, routers=R, channels=C,
        links=physical_links(net), bandwidth=bandwidth, channel_pairs=float(width), ur_load=float(ur),
        ur_load_exact=hops_exact, floor=floor,
        router_cost=router_cost, link_cost=float(cost.sum()), terminal_link_cost=float(cost[terminal].sum()),
        links_by_class=rows, lengths=lengths, by_tag=by_tag,
        power={"switch": p_switch, "links": float(watts.sum()), "terminal_links": float(watts[terminal].sum()),
               "total": p_switch + float(watts.sum())},
        model={"packaging": pk.summary, "direct": pk.direct, "params": asdict(p)})


# ------------------------------------------------------------------------------- Kim's networks, per N
def _factorizations(n: int, parts: int, largest: int) -> list[list[int]]:
    """Non-increasing factorizations of ``n`` into ``parts`` factors >= 2, each <= ``largest``."""
    if parts == 0:
        return [[]] if n == 1 else []
    out = []
    for f in range(min(n, largest), 1, -1):
        if n % f == 0:
            out += [[f] + rest for rest in _factorizations(n // f, parts - 1, f)]
    return out


def kim_design(topology: str, N: int, radix: int = 64, clos_levels: str = "kim") -> tuple[str, dict[str, Any]]:
    """The network of ``N`` nodes and radix-``radix`` routers that Kim §4.3 compares, as (family, params).

    * ``fbfly``: §5.1.2's sizing — the smallest n' that reaches N — generalised to any N: c nodes per
      router and n' dimensions of s_d routers with c * prod(s_d) = N, and each dimension's channels
      multiplied to m_d = ceil(c / s_d) so it carries uniform random traffic at full injection (the
      random bisection held constant, §4.3; Fig. 14(a)'s redundant channels), within the radix:
      c + sum (s_d - 1) m_d <= radix. Among those, the fewest routers, then the fewest channels. A
      k-ary n-flat when that is what comes out (N = 1K: the 32-ary 2-flat), else the HyperX.
    * ``clos``: the folded Clos of radix-``radix`` routers; ``clos_levels="kim"`` takes the fewest
      levels L with (radix/2)^L >= N (§4.3: going "from 1K to 2K nodes with radix-64 routers requires
      adding an additional stage"), ``"fewest"`` the fewest the family can build (top routers use all
      their ports downward: 2 (radix/2)^L >= N).
    * ``hypercube``: the binary log2(N)-cube, one node per router (§3.3).
    * ``butterfly``: the k-ary n-fly with the fewest stages radix-``radix`` routers allow, N = k^n.

    Raises
    ------
    ParamError
        No such network for this N (e.g. a butterfly of 2048 nodes, a hypercube of 1000).

    Examples
    --------
    >>> kim_design("fbfly", 1024)
    ('fbfly', {'k': 32, 'n': 2})
    >>> kim_design("fbfly", 2048)
    ('hyperx', {'dims': [16, 8], 'mult': [1, 2], 'c': 16})
    >>> kim_design("clos", 2048)
    ('clos', {'radix': 64, 'levels': 3, 'terminals': 2048})
    >>> kim_design("butterfly", 4096)
    ('butterfly', {'k': 64, 'n': 2})
    """
    N, radix = int(N), int(radix)
    if N < 2:
        raise ParamError("N", f"must be >= 2 (got {N})")
    if topology == "fbfly":
        nd = 1
        while 2 ** nd <= N:
            best = None
            for c in (d for d in range(1, min(N, radix) + 1) if N % d == 0):
                for dims in _factorizations(N // c, nd, N):
                    mult = [-(-c // s) for s in dims]
                    ports = c + sum((s - 1) * m for s, m in zip(dims, mult))
                    if ports > radix:
                        continue
                    key = (N // c, (N // c) * (ports - c), -min(dims))
                    if best is None or key < best[0]:
                        best = (key, dims, mult, c)
            if best is not None:
                _, dims, mult, c = best
                if len(set(dims)) == 1 and set(mult) == {1} and c == dims[0]:
                    return "fbfly", {"k": c, "n": nd + 1}
                return "hyperx", {"dims": dims, "mult": mult, "c": c}
            nd += 1
        raise ParamError("N", f"no flattened butterfly of {N} nodes fits radix-{radix} routers")
    if topology == "clos":
        m = radix // 2
        L = 2
        top = (lambda L: m ** L) if clos_levels == "kim" else (lambda L: 2 * m ** L)
        while top(L) < N:
            L += 1
        return "clos", {"radix": radix, "levels": L, "terminals": N}
    if topology == "hypercube":
        n = N.bit_length() - 1
        if 1 << n != N:
            raise ParamError("N", f"a binary hypercube has a power of two of nodes (got {N})")
        return "hypercube", {"n": n, "c": 1}
    if topology == "butterfly":
        n = 1
        while radix ** n < N:
            n += 1
        k = round(N ** (1.0 / n))
        for kk in (k - 1, k, k + 1):
            if 2 <= kk <= radix and kk ** n == N:
                return "butterfly", {"k": kk, "n": n}
        raise ParamError("N", f"no butterfly of {N} nodes with the fewest stages ({n}) of radix-{radix} routers: "
                              f"N must be k^{n} with k <= {radix}")
    raise ParamError("topology", f"one of fbfly, clos, hypercube, butterfly (got {topology!r})")


def kim_network(topology: str, N: int, radix: int = 64, clos_levels: str = "kim") -> Network:
    """Build :func:`kim_design`'s network."""
    fam, prm = kim_design(topology, N, radix, clos_levels)
    return build(fam, **prm)


def kim_lengths(topology: str, N: int, density: float = 75.0) -> dict[str, float]:
    """Kim §4.2's closed-form cable lengths (metres, without the overhead), for comparison with a packaging.

    E = sqrt(N/D); flattened butterfly and butterfly: L_max ~ E, L_avg ~ E/3; folded Clos: E/2, E/4;
    hypercube: E/2 and (E - 1)/log2(E).

    Examples
    --------
    >>> {k: round(v, 2) for k, v in kim_lengths("clos", 4096).items()}
    {'E': 7.39, 'l_max': 3.7, 'l_avg': 1.85}
    """
    E = math.sqrt(N / density)
    if topology in ("fbfly", "butterfly"):
        return {"E": E, "l_max": E, "l_avg": E / 3}
    if topology == "clos":
        return {"E": E, "l_max": E / 2, "l_avg": E / 4}
    if topology == "hypercube":
        return {"E": E, "l_max": E / 2, "l_avg": (E - 1) / math.log2(E) if E > 1 else 0.0}
    raise ParamError("topology", f"one of fbfly, butterfly, clos, hypercube (got {topology!r})")

