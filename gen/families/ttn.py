"""TTN and TESH: hierarchical networks of 2D basic modules joined by higher-level 2D tori.

Follows Rahman, Inoguchi, Sato, Horiguchi, *TTN: A High Performance
Hierarchical Interconnection Network for Massively Parallel Computers*, IEICE
Trans. Inf. & Syst. E92-D(5), 2009, §2 ("Interconnection of the TTN").

Structure (§2.1)
----------------
"The BM of the TTN is a 2D-torus network of size (2^m x 2^m) ... Successively
higher level networks are built by recursively interconnecting immediately
lower level subnetworks in a 2D-torus network ... using a 2D-toroidal
connection among (2^2m) immediate lower level subnetworks." TESH (ref. [12],
§1) is the same hierarchy with a **2D-mesh** basic module (BM). With
``k = 2^m``, ``TTN(m, L, q)`` / ``TESH(m, L, q)`` has ``N = k^(2L)`` nodes
(Lemma 3), ``k^(2(L-1))`` BMs, one router per node and ``c`` terminals per
router.

Addressing (Eq. 1) and router index
-----------------------------------
``A = (a_{2L-1} a_{2L-2}) ... (a_3 a_2)(a_1 a_0)`` in base ``k``; group ``l``
is ``(y_l, x_l) = (a_{2l-1}, a_{2l-2})``: row (vertical, y) then column
(horizontal, x) of the level-``(l-1)`` subnetwork inside the level-``l``
network (group 1 = node inside its BM, "the first representing the row index
and the next representing the column index"). Router index
``r = sum_i a_i k^i`` (row-major), so ``r = b * k^2 + (y_1 k + x_1)`` with
``b`` the BM index. ``coords[r] = (y_L, x_L, ..., y_2, x_2, y_1, x_1)``,
``coord_names = ("yL", "xL", ..., "y1", "x1")`` (most significant first, as
in Eq. 1). Row 0 of a BM is its bottom (south) row, column 0 its left (west).

Higher-level links (§2.1 Lemma 1, Lemma 2, Eq. 2, §2.2)
-------------------------------------------------------
"A 2^m x 2^m BM has 2^(m+2) free ports at the contours" -- the ports a mesh
node on the contour lacks: one on each non-corner contour node, two on each
corner. "For each higher level interconnection, a BM uses 4 x (2^q) of its free
links, 2(2^q) ... for vertical interconnections and 2(2^q) ... for
horizontal", ``q in {0..m}``, hence ``L <= 2^(m-q) + 1`` (Lemma 2). Every BM
takes part in every level: Eq. 2 links BMs whose addresses differ by ±1
(mod k) in exactly one digit ``i >= 2`` and agree in all other digits
``j >= 2`` (the BM at the same position in the neighbouring subnetwork), and
Eq. 6 counts ``4 * 2^q`` free links per BM per level. "In this paper, we have
also considered the inter-level links are unidirectional" (§2.2), so each
higher-level link is **one channel**:

* ``q = 0``: one ``vertical_out``, ``vertical_in``, ``horizontal_out``,
  ``horizontal_in`` per BM and level ("a single link is used for vertical_in,
  vertical_out, horizontal_in, and horizontal_out"). With one out and one in
  link per dimension the level-``l`` torus is a **directed** torus: every
  link goes ``+1`` (§3.1: "the direction of communication of the higher level
  networks for vertical links is from bottom to top, and for horizontal links
  it is from left to right").
* ``q >= 1``: ``2^q`` out and ``2^q`` in links per dimension; half go ``+1``
  and half ``-1`` (``2^(q-1)`` lanes per direction), which is what the routing
  needs ("Each free-link is labeled as (g, l, d, delta) ... delta in {+, -}";
  Fig. 4 routes ``routedir = negative`` to the previous BM). This choice is
  ours: the text and Fig. 3 labels ("2V_out_k ... link number k") do not say
  which way the extra links run. It reproduces the Table 1 drop of diameter
  from q = 0 to q = 1 (see docs/ttn-metrics.md).

Port placement (Fig. 3 is missing; our choice)
----------------------------------------------
A **slot** is an (out, in) pair of free ports carrying one role
``(level l, dimension y|x, direction ±1, lane g)``: the out-port sends to the
neighbouring subnetwork, the in-port receives the same role's link from the
opposite neighbour, so a packet crossing a subnetwork in that dimension and
direction transits from the in-port to the out-port. Slots, in rank order:

1. **corner slots** -- both free ports of one corner, transit 0 hops:
   ``SW (0, 0)``, ``SE (0, k-1)``, ``NW (k-1, 0)``, ``NE (k-1, k-1)``
   (``(row, col)``);
2. **edge slots** -- two adjacent non-corner contour nodes of one side,
   transit 1 hop. Each side's ``k-2`` non-corner nodes are walked clockwise
   (right side top→bottom, bottom side right→left, left side bottom→top, top
   side left→right) and paired consecutively; the out-port is on the first
   node of a pair, the in-port on the second. Pairs are ranked in rounds
   ``j = 0, 1, ..``: the ``j``-th pair of the right, bottom, left, top side.

Levels take consecutive blocks of ``2^(q+1)`` slots, level 2 first, so lower
levels get the corners (§4.2: "D_i = 7 for Level-2 and Level-3 routing.
D_i = 13 for Level-4 and Level-5 routing, because forward and backward nodes
are separated by one node-distance by design"). Within a block the roles are
``[y+, x+]`` for ``q = 0`` and ``[y+ g, x+ g, x- g, y- g]`` for
``g = 0 .. 2^(q-1)-1`` for ``q >= 1``. TTN and TESH use the same placement
(§1: TTN is TESH with the 2D-mesh BM "replaced by a 2D-torus network").

For ``m = 2`` and ``q = 0`` this is level 2 on the bottom corners (y+ SW,
x+ SE) and level 3 on the top corners (y+ NW, x+ NE): a turn from y to x costs
1 hop in a TTN BM and the move from level-3's x inlet (NE) to level-2's y
outlet (SW) costs 2, Eq. 5's ``D_BM^level-move``; the top-level y+ outlet of a
3-level network is node (3, 0), as in §3.1's example ("the outlet node of
Level-3, 00 00 30"). Under the paper's routing (Fig. 4) this placement gives
exactly Table 1's diameter and average distance for TTN(2,2,0), TTN(2,3,0)
and TESH(2,2,0); for ``q = 1`` the ``+`` and ``-`` outlets of a dimension sit
on opposite corners. docs/ttn-metrics.md compares all rows. :func:`outlets`
lists the placement (the paper's ``outlet_x``/``outlet_y``).

Port layout (contract for routing tables and the RTL)
-----------------------------------------------------
Terminal ports ``0 .. c-1``; then network ports (indices below are after the
terminal ports): ``0`` = +x (east), ``1`` = -x (west), ``2`` = +y (north),
``3`` = -y (south) BM links; input and output of one BM port face the same
neighbour. TTN: the torus uses all four, and a contour node's free ports are
ports ``4`` (and ``5`` on a corner), numbered in the order of the mesh
directions the node lacks (E, W, N, S). TESH: a contour node's free ports *are*
its unused mesh-direction ports. A higher-level link uses one side of a free
port (output at the out-port, input at the in-port); at a corner slot the
out-port is the free port with the lower number. Radix: TESH ``c + 4``;
TTN ``c + 4`` plus the node's free ports (``c + 5`` on a non-corner contour
node, ``c + 6`` on a corner), whether or not ``(L, q)`` uses them. A 2x2 TTN BM keeps both ring channels per dimension
(lane 1 on the wrap-around, as the ``torus`` family).

Channel ``tag`` = level: ``1`` for BM links, ``l`` (``2 .. L``) for level-``l``
links; ``lane`` is 0 on higher levels (lanes ``g`` of one role sit on
different routers; :func:`outlets` gives ``g`` and the direction).

Examples
--------
>>> from radixnet.gen import build
>>> net = build("ttn", m=2, L=2, q=0)
>>> net.num_routers, net.num_channels, int(net.radix.max())
(256, 1056, 7)
>>> net.coord_names
('y2', 'x2', 'y1', 'x1')
>>> [o.out_node for o in outlets(2, 3, 0) if o.level == 3 and o.dim == "y"]
[(3, 0)]
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..builder import NetworkBuilder
from ..family import Family, Knowledge, register
from ..network import Network
from ..params import Param, ParamError
from ..routing import (
    ROUTINGS,
    DeadlockError,
    RouteTable,
    cap_classes,
    check_deadlock_free,
    pair_chunks,
    route_lengths,
    table_routers,
)
from .torus import ring_dist, ring_step

__all__ = ["Outlet", "outlets", "build_ttn", "ttn_size", "ttn_knowledge", "max_levels"]

_E, _W, _N, _S = 0, 1, 2, 3


class Outlet(NamedTuple):
    """One higher-level link role of every BM and where it sits.

    ``out_node``/``in_node`` are BM-local ``(row, col)`` = ``(y_1, x_1)``;
    ``out_port``/``in_port`` are network port indices (after terminal ports).
    The link leaves ``out_node`` of a BM and enters ``in_node`` of the BM whose
    level-``level`` coordinate ``dim`` is larger by ``sign`` (mod ``2^m``).
    """

    level: int
    dim: str
    sign: int
    lane: int
    out_node: tuple[int, int]
    out_port: int
    in_node: tuple[int, int]
    in_port: int


def max_levels(m: int, q: int) -> int:
    """Lemma 2: ``L_max = 2^(m-q) + 1``."""
    return 2 ** (m - q) + 1


def _free_dirs(k: int, r: int, c: int) -> list[int]:
    """Mesh directions a BM node lacks (its free ports), in E, W, N, S order."""
    return [d for d, miss in ((_E, c == k - 1), (_W, c == 0), (_N, r == k - 1), (_S, r == 0)) if miss]


def _free_port(k: int, bm: str, r: int, c: int, d: int) -> int:
    """Network port index of node (r, c)'s free port for missing direction ``d``."""
    return d if bm == "mesh" else 4 + _free_dirs(k, r, c).index(d)


def _slots(k: int, bm: str) -> list[tuple[tuple[int, int], int, tuple[int, int], int]]:
    """All ``2k`` slots ``(out_node, out_port, in_node, in_port)`` in rank order."""
    slots = []
    for r, c in ((0, 0), (0, k - 1), (k - 1, 0), (k - 1, k - 1)):   # SW, SE, NW, NE
        lo, hi = _free_dirs(k, r, c)
        slots.append(((r, c), _free_port(k, bm, r, c, lo), (r, c), _free_port(k, bm, r, c, hi)))
    inner = range(1, k - 1)
    sides = [[(r, k - 1) for r in reversed(inner)],       # right, top -> bottom
             [(0, c) for c in reversed(inner)],           # bottom, right -> left
             [(r, 0) for r in inner],                     # left, bottom -> top
             [(k - 1, c) for c in inner]]                 # top, left -> right
    for j in range((k - 2) // 2):
        for side in sides:
            a, b = side[2 * j], side[2 * j + 1]
            slots.append((a, _free_port(k, bm, *a, _free_dirs(k, *a)[0]),
                          b, _free_port(k, bm, *b, _free_dirs(k, *b)[0])))
    return slots


def outlets(m: int, L: int, q: int, bm: str = "torus") -> list[Outlet]:
    """The higher-level link roles of a BM and their ports (see module docstring).

    Parameters
    ----------
    m, L, q : int
        ``TTN(m, L, q)`` / ``TESH(m, L, q)`` parameters (already valid).
    bm : {"torus", "mesh"}
        Basic module: ``"torus"`` for TTN, ``"mesh"`` for TESH.

    Returns
    -------
    list of Outlet
        ``(L - 1) * 2^(q+1)`` roles, level 2 first.

    Examples
    --------
    >>> [(o.dim, o.sign, o.out_node) for o in outlets(2, 2, 1)]
    [('y', 1, (0, 0)), ('x', 1, (0, 3)), ('x', -1, (3, 0)), ('y', -1, (3, 3))]
    """
    k = 2 ** m
    slots = _slots(k, bm)
    if q == 0:
        roles = [("y", 1, 0), ("x", 1, 0)]
    else:
        roles = [(d, s, g) for g in range(2 ** (q - 1)) for d, s in (("y", 1), ("x", 1), ("x", -1), ("y", -1))]
    out, i = [], 0
    for level in range(2, L + 1):
        for dim, sign, lane in roles:
            o_node, o_port, i_node, i_port = slots[i]
            out.append(Outlet(level, dim, sign, lane, o_node, o_port, i_node, i_port))
            i += 1
    return out


def ttn_size(p: dict, bm: str) -> tuple[int, int]:
    """``(routers, channels)`` without building."""
    k, L, q = 2 ** p["m"], p["L"], p["q"]
    bms = k ** (2 * (L - 1))
    bm_channels = 4 * k * k if bm == "torus" else 4 * k * (k - 1)
    return bms * k * k, bms * (bm_channels + 2 ** (q + 1) * (L - 1))


def _check(p: dict) -> None:
    m, L, q = p["m"], p["L"], p["q"]
    if q > m:
        raise ParamError("q", f"must be in [0, m] = [0, {m}] (got {q})")
    lmax = max_levels(m, q)
    if L > lmax:
        raise ParamError("L", f"must be <= 2^(m-q)+1 = {lmax} for m={m}, q={q}: each level uses 4*2^q of the "
                              f"BM's 2^(m+2) = {2 ** (m + 2)} free ports (got {L})")


def build_ttn(p: dict, family: str) -> Network:
    """Build ``TTN(m, L, q)`` (``family="ttn"``) or ``TESH(m, L, q)`` (``"tesh"``)."""
    bm = "torus" if family == "ttn" else "mesh"
    m, L, q, c = p["m"], p["L"], p["q"], p["c"]
    k = 2 ** m
    k2 = k * k
    nbm = k ** (2 * (L - 1))
    R = nbm * k2
    idx = np.arange(R, dtype=np.int64)
    local = idx % k2
    row, col = local // k, local % k
    # radix: c + 4 BM ports (+ free ports of a TTN contour node)
    if bm == "torus":
        nfree = ((col == 0).astype(np.int64) + (col == k - 1) + (row == 0) + (row == k - 1))
        radix = c + 4 + nfree
    else:
        radix = c + 4
    b = NetworkBuilder(family, p, R, radix)
    b.terminals(np.repeat(idx, c))
    # ---- level 1: BM torus / mesh, ports +x 0, -x 1, +y 2, -y 3
    for pos, step, plus_port in ((col, 1, 0), (row, k, 2)):
        last = pos == k - 1
        nb = np.where(last, idx - (k - 1) * step, idx + step)
        keep = np.ones(R, bool) if bm == "torus" else ~last
        lane = np.where(last, 1, 0) if (bm == "torus" and k == 2) else np.zeros(R, np.int64)
        u, v, ln = idx[keep], nb[keep], lane[keep]
        b.channels(u, v, tag=1, lane=ln, src_port=plus_port, dst_port=plus_port + 1)
        b.channels(v, u, tag=1, lane=ln, src_port=plus_port + 1, dst_port=plus_port)
    # ---- levels 2..L (Eq. 2): same BM position in the neighbouring subnetwork
    bms = np.arange(nbm, dtype=np.int64)
    for o in outlets(m, L, q, bm):
        stride = k ** (2 * (o.level - 2) + (1 if o.dim == "y" else 0))
        val = (bms // stride) % k
        nbr = bms + ((val + o.sign) % k - val) * stride
        src = bms * k2 + o.out_node[0] * k + o.out_node[1]
        dst = nbr * k2 + o.in_node[0] * k + o.in_node[1]
        b.channels(src, dst, tag=o.level, lane=0, src_port=o.out_port, dst_port=o.in_port)
    digits = np.stack([(idx // k ** i) % k for i in range(2 * L - 1, -1, -1)], axis=1)
    names = tuple(f"{a}{lv}" for lv in range(L, 0, -1) for a in ("y", "x"))
    tag_names = {1: f"level 1 (BM {bm})", **{lv: f"level {lv}" for lv in range(2, L + 1)}}
    return b.build(coords=digits, coord_names=names, tag_names=tag_names)


def ttn_knowledge(net: Network) -> Knowledge:
    """Translation classes, a bisection bound and the paper's degree / wiring counts.

    * ``vertex_classes``: translating every BM address (groups 2..L, each mod
      ``k``) is an automorphism (every level is a torus and links depend only
      on the role), so routers at the same BM position are alike: ``k^2``
      classes of ``k^(2(L-1))`` routers (possibly unions of orbits).
    * ``bisection_width``: channels crossing in the weaker direction a cut
      across the level-``L`` torus (``x_L < k/2``); an upper bound. Cutting
      the level-``l`` torus inside every level-``l`` subnetwork costs the same
      for every ``l``; cuts through BMs cost more.
    * ``extra``: ``degree`` (the paper's node degree: network ports used,
      maximum over routers), ``wiring_complexity`` (Eq. 6's count: each BM
      link once plus each higher-level link once at *each* BM it touches, the
      ``4 * 2^q`` free links per BM per level), ``bisection_links`` (the cut
      counted as Table 1 counts links: higher-level channels in both
      directions).
    """
    p = net.params
    k, L = 2 ** p["m"], p["L"]
    k2 = k * k
    nbm = net.num_routers // k2
    kn = Knowledge(vertex_classes=[(r, nbm) for r in range(k2)])
    xl = net.coords[:, 1]
    a_side = xl < k // 2
    fwd = int(np.sum(a_side[net.src] & ~a_side[net.dst]))
    back = int(np.sum(~a_side[net.src] & a_side[net.dst]))
    kn.bisection_width = min(fwd, back)
    kn.bisection_exact = False
    kn.bisection_note = (f"upper bound: cut of the level-{L} torus across x{L} "
                         f"({fwd} channels one way, {back} the other)")
    bm_links = int(np.sum(net.tag == 1)) // 2
    hi = int(np.sum(net.tag >= 2))
    used = np.unique(np.concatenate([net.src * net.max_radix + net.src_port,
                                     net.dst * net.max_radix + net.dst_port]))
    degree = int(np.bincount(used // net.max_radix, minlength=net.num_routers).max())
    kn.extra = {"degree": degree, "wiring_complexity": bm_links + 2 * hi, "bisection_links": fwd + back}
    return kn


_PARAMS = (
    Param("m", int, 2, "basic module is 2^m x 2^m nodes", minimum=1, maximum=11),
    Param("L", int, 2, "levels of hierarchy (N = 2^(2mL) nodes); at most 2^(m-q)+1", minimum=2, maximum=64),
    Param("q", int, 0, "inter-level connectivity: 4*2^q free ports per BM per level; 0..m", minimum=0, maximum=11),
    Param("c", int, 1, "terminals per router", minimum=0),
)

# ---------------------------------------------------------------- matrix-transpose traffic (§5.4.3)
def transpose_routers(net: Network) -> np.ndarray:
    """Each router's partner under the paper's matrix transpose (Rahman et al. 2009 §5.4.3: "Node(x, y)
    communicates with Node(y, x) ... at higher levels, the x-coordinates and y-coordinates of the subnet modules
    at a certain level are transposed"): every address group ``(y_l, x_l)`` of Eq. 1 swapped at once (router
    index ``sum_i a_i k^i``, most significant digit first). The traffic pattern ``matrix-transpose``
    (:mod:`radixnet.golden.traffic`) keeps the terminal's slot.

    >>> from radixnet.gen import build
    >>> transpose_routers(build("ttn", m=1, L=2))[:4].tolist()   # (y2, x2, y1, x1) = (0, 0, 0, 1) -> (0, 0, 1, 0)
    [0, 2, 1, 3]
    """
    k = 2 ** int(net.params["m"])
    digits = net.coords                                  # (yL, xL, ..., y1, x1), most significant first
    swapped = digits.reshape(digits.shape[0], -1, 2)[:, :, ::-1].reshape(digits.shape)
    weights = np.int64(k) ** np.arange(digits.shape[1] - 1, -1, -1, dtype=np.int64)
    return swapped @ weights


# ---------------------------------------------------------------- route tables (router-spec §R7d)
#: VC-class assignments of ``hdor`` (router-spec §R7d): ``auto`` takes ``four`` when its channel-dependency
#: graph is acyclic, else ``ranked``; ``literal`` is Theorem 1 read literally (cyclic; kept to show it).
HDOR_ASSIGNMENTS = ("auto", "four", "ranked", "literal")


def _hdor_routes(net: Network, r: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Next port and the VC class under each assignment of ``hdor`` for router pairs (r, d), r != d.

    See :func:`compile_hdor`; returns ``(port, {assignment: class})``.
    """

    p = net.params
    m, L, q = p["m"], p["L"], p["q"]
    k = 2 ** m
    bm = "torus" if net.family == "ttn" else "mesh"
    wrap = bm == "torus"
    base = int(p["c"])                                   # terminal ports come first (NetworkBuilder)
    co = net.coords
    cr, cd = co[r], co[d]
    hi = 2 * L - 2                                       # columns yL, xL, ..., y2, x2 come first (Eq. 1)
    y, x = cr[:, hi], cr[:, hi + 1]
    diff = cr[:, :hi] != cd[:, :hi]
    up = diff.any(axis=1)                                # the destination is in another BM
    j = np.argmax(diff, axis=1)                          # stage: column of the highest differing digit
    rows = np.arange(r.size)
    ty, tx = cd[:, hi].copy(), cd[:, hi + 1].copy()      # target inside this BM: destination or outlet
    port = np.full(r.size, -1, np.int64)
    a = np.zeros(r.size, np.int64)                       # dateline class of the stage's higher-level ring
    edge = np.zeros(r.size, bool)                        # the outlet is an edge slot (transit crosses BM links)
    sign = np.ones(r.size, np.int64)                     # direction of the stage's higher-level ring
    if np.any(up):
        xs, ts = cr[rows, j], cd[rows, j]
        off = (ts - xs) % k
        # Fig. 4: (d_i - s_i) mod 2^m <= 2^m / 2 -> positive, else negative; q = 0 has + links only
        sign = np.where((q == 0) | (2 * off <= k), 1, -1)
        a = np.where(np.where(sign > 0, ts < xs, ts > xs), 0, 1)
        best = np.full(r.size, np.iinfo(np.int64).max)
        for o in outlets(m, L, q, bm):
            col = 2 * (L - o.level) + (0 if o.dim == "y" else 1)
            mine = up & (j == col) & (sign == o.sign)
            dist = ring_dist(y, o.out_node[0], k, wrap) + ring_dist(x, o.out_node[1], k, wrap)
            take = mine & (dist < best)                  # nearest lane, ties: the lowest (get_group_number)
            best = np.where(take, dist, best)
            ty = np.where(take, o.out_node[0], ty)
            tx = np.where(take, o.out_node[1], tx)
            port = np.where(take, base + o.out_port, port)
            edge = np.where(take, o.in_node != o.out_node, edge)
    at_outlet = up & (y == ty) & (x == tx)               # take the higher-level link
    # BM_Routing (Fig. 4): y first, then x; the shorter way round a TTN's torus BM (ties +)
    move_y = y != ty
    sy, by = ring_step(y, ty, k, wrap)
    sx, bx = ring_step(x, tx, k, wrap)
    b = np.where(move_y, by, bx)                         # BM dateline class (always 0 in a TESH mesh BM)
    port = np.where(at_outlet, port, base + np.where(move_y, np.where(sy > 0, 2, 3), np.where(sx > 0, 0, 1)))
    S = 2 * L - 2
    # four: toward an edge outlet - 1, + with the wrap behind 0, + with the wrap ahead 3 - b (y) or 1 (x);
    # toward a corner outlet 2 for the last stage's + outlet, else 0 (see compile_hdor)
    if k <= 4:
        edge_cls = np.where(sign < 0, 1, np.where(a == 1, 0, np.where(j % 2 == 0, 3 - b, 1)))
        corner_cls = np.where((j == S - 1) & (sign > 0), 2, 0)
    else:   # 2^m > 4: a - move chains hops too; the stage's dateline at an edge slot, its dimension at a corner
        edge_cls, corner_cls = a, j % 2
    return port, {
        "four": np.where(at_outlet, a, np.where(up, np.where(edge, edge_cls, corner_cls), 2 + b)),
        "ranked": np.where(at_outlet, a, np.where(up, 2 * j + a, 2 * S + b)),
        # Theorem 1 read literally: BM links VC 0/1 by Lemma 4 whatever the phase, higher levels VC 2/3
        "literal": np.where(at_outlet, 2 + a, b),
    }


def compile_hdor(net: Network, classes: int | None = None, assignment: str = "auto") -> RouteTable:
    """The TTN paper's hierarchical dimension-order routing on ``ttn``/``tesh`` (router-spec §R7d).

    Routes (Rahman et al. 2009 §3.1, Fig. 4): "Routing of messages in the TTN is performed from top to
    bottom ... first done at the highest level network; then, after the packet reaches its highest level
    sub-destination, routing continues within the subnetwork to the next lower level sub-destination";
    "at each level, vertical routing is performed first ... then the horizontal routing". Stage ``j``
    (``j = 0`` level L, y; ``1`` level L, x; ``2`` level L-1, y; ...) is the highest address digit in
    which the BM of the current router and of the destination differ. The packet goes inside its BM to
    the stage's *outlet* (``outlets`` of :mod:`radixnet.gen.families.ttn`; direction ``+`` iff the
    offset ``(d_i - s_i) mod 2^m <= 2^m/2`` or q = 0, lane = the nearest outlet, ties to the lowest, the
    paper's ``get_group_number``) and takes the higher-level link; after the last stage it routes to
    the destination inside the BM (``BM_Routing``: y then x, the shorter way round a TTN's torus BM,
    offset exactly 2^m/2 going +). The hop is a function of the current and the destination router, so
    this is a table. Its hop counts are the routed distances of docs/ttn-metrics.md (Table 1).

    VC classes (Theorem 1: "A TTN with 4 virtual channels is deadlock free"), functions of the current
    and the destination router:

    * a higher-level hop: ``a`` = 0 while the level's ring wrap-around link lies ahead on the packet's
      way (the dateline of Lemma 4 / Corollary 1, Eq. 3-4), else 1;
    * ``four`` (4 classes): a BM hop in the destination BM takes ``2 + b``, ``b`` the BM ring's dateline
      (Lemma 4; 0 in a TESH mesh BM). A BM hop toward a *corner* outlet takes 0, except toward the last
      stage's ``+`` outlet (level 2, x), which takes 2. A BM hop toward an *edge* outlet (its transit
      crosses a BM link) takes 1 on a ``-`` ring, 0 on a ``+`` ring whose wrap-around is behind
      (``a = 1``) and, on a ``+`` ring with the wrap-around ahead (``a = 0``), ``3 - b`` in y and 1 in x.
      Why it is acyclic: every ring is cut by a dateline, the higher-level rings by ``a`` on their links
      (Corollary 1) and the BM rings by ``b`` (Lemma 4), and with 2^m <= 4 a ``-`` move is at most one hop, so
      only ``+`` rings chain hops. A y-then-x route toward a router and one leaving it use disjoint BM
      channels (on each ring the hops toward ``t`` and the hops away from ``t`` are disjoint), so the
      hops toward a corner outlet (a corner's in-port and out-port are on the same router) never feed
      the hops of packets that arrive through that corner: the corner phases share class 0, and the last
      one shares class 2 with the destination phase (phase 3 of §3.2). An edge slot's transit is a BM
      hop inside its higher-level ring, so the hops into a ``+`` ring that will still cross its
      wrap-around are kept out of class 0 (which the ring's packets use after the wrap-around), y apart
      from x. No assignment that is a function of the stage's level, dimension, direction, ``a``, ``b``
      and slot kind keeps the upward hops in classes 0 and 1 beside ``2 + b`` in the destination BM
      (phases 1 and 2 of §3.2 cannot leave classes 2 and 3 to phase 3 alone). The channel-dependency graph is checked acyclic for
      ``ttn`` and ``tesh`` with m = 1 (L <= 3) and m = 2 (L <= 3, every q), which covers the paper's
      4,096-node TTN(2, 3, 1) of Figs. 7(b)-13. With 2^m > 4 (m = 3) ``-`` moves chain as well, and ``four``
      keeps the rule that is acyclic there (TTN(3, 2, q) for every q): the stage's ``a`` toward an edge
      slot, the dimension's parity (y 0, x 1) toward a corner;
    * ``ranked`` (``4L - 2`` classes): toward an outlet of stage j ``2j + a``, in the destination BM
      ``2(2L-2) + b``;
    * ``auto`` (default): ``four`` when its channel-dependency graph is acyclic, else ``ranked``.
    * ``literal`` reads Theorem 1 literally (BM links VC 0/1 by Lemma 4 in every phase, the paper's
      "phase-1 and phase-3 can share", higher levels VC 2/3); its dependency graph is cyclic (a packet
      leaving a BM and one entering it share BM channels in the same class), so it is refused.

    Parameters
    ----------
    net : Network
        A ``ttn`` or ``tesh`` network (at most :data:`MAX_TABLE_ROUTERS` routers).
    classes : int, optional
        ``--vc-classes``: fewer classes than the assignment uses fold the upper ones onto the last.
    assignment : str
        One of :data:`HDOR_ASSIGNMENTS`.

    Examples
    --------
    >>> from radixnet.gen import build
    >>> net = build("ttn", m=2, L=2, q=0)
    >>> t = compile_hdor(net)
    >>> t.classes, int(t.dist.max()), check_deadlock_free(net, t) > 0   # Table 1: diameter 15
    (4, 15, True)
    """
    if net.family not in ROUTINGS["hdor"].families:
        raise ParamError("routing", f"hdor is the TTN/TESH hierarchical dimension-order routing (Rahman et al. "
                                    f"2009 §3.1); got {net.family}")
    if assignment not in HDOR_ASSIGNMENTS:
        raise ParamError("routing", f"hdor VC assignment must be one of {', '.join(HDOR_ASSIGNMENTS)} "
                                    f"(got {assignment!r})")
    R = table_routers(net, "hdor")
    names = ("four", "ranked") if assignment == "auto" else (assignment,)
    nxt = np.full((R, R), -1, np.int32)
    cls = {n: np.full((R, R), -1, np.int8) for n in names}
    for r, d in pair_chunks(R):
        go = r != d
        r, d = r[go], d[go]
        nxt[r, d], by = _hdor_routes(net, r, d)
        for n in names:
            cls[n][r, d] = by[n]
    dist = route_lengths(net, nxt, "hdor")

    def table(name: str) -> RouteTable:
        need = 4 if name in ("four", "literal") else 4 * net.params["L"] - 2
        c, K = cap_classes(cls[name].astype(np.int32), need, classes, "hdor")
        return RouteTable(nxt, dist, K, net.ej_port.copy(), net.ej_router.copy(), c, "hdor")

    if assignment != "auto":
        return table(assignment)
    four = table("four")
    if classes is not None and classes <= 4:
        return four          # at most 4 classes asked for: its own check refuses it if it is cyclic
    try:
        check_deadlock_free(net, four)
        return four
    except DeadlockError:
        return table("ranked")


for _name, _bm, _summary in (
        ("ttn", "torus", "TTN(m, L, q): 2D-torus basic modules joined by unidirectional higher-level 2D tori"),
        ("tesh", "mesh", "TESH(m, L, q): 2D-mesh basic modules joined by unidirectional higher-level 2D tori")):
    register(Family(
        name=_name,
        summary=_summary,
        params=_PARAMS,
        check=_check,
        build=(lambda n: (lambda p: build_ttn(p, n)))(_name),
        size=(lambda bmk: (lambda p: ttn_size(p, bmk)))(_bm),
        knowledge=ttn_knowledge,
        tables={"hdor": compile_hdor},
        reference="Rahman, Inoguchi, Sato, Horiguchi, IEICE Trans. E92-D(5) 2009, §2 (Lemmas 1-3, Eq. 1-2), "
                  "§4 Table 1, Eq. 5-6; TESH: Jain, Ghirmai, Horiguchi 1997 (ref. [12])",
    ))
