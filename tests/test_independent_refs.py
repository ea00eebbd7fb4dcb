"""Independent references for the pieces the golden model and the RTL share (docs/cosim.md).

Co-simulation compares the RTL with the golden model, but both read the same route tables
(``radixnet.gen.routing``: ``compile_table``, ``compile_dor``, ``compile_hdor``, ``compile_dest_tag``,
``compile_clos_adaptive``, ``compile_hyperx``), the same ``tuser`` packing (``TuserLayout``) and, in the
decision units' tests, the same golden ``_decide``. A bug in one of those is invisible to co-simulation.
This file holds each against a reference written here, from the documents, without calling the piece:

(a) **Route tables** against shortest paths computed with networkx (every table next hop lies on a
    shortest path and the table's hop count is the networkx distance, for the minimal routings; each
    leg of a two-phase route for ``val``/``ugal``) and against each family's routing rule written
    from its definition: the §R7a spread rule for ``sp``, Kim's dimension order on the HyperX
    family, dimension order with datelines on tori/meshes/hypercubes (§R7d), the TTN paper's
    hierarchical dimension order, the butterfly's destination tag and the folded Clos's up*/down*.
(b) **tuser** (:mod:`radixnet.cosim.tuser_ref`, written from docs/axis-ports.md) against
    ``TuserLayout.pack``/``unpack``/``layout`` and through the RTL ingress and egress;
    ``cosim/tb_axis.py`` drives and expects the encoder's words.
(c) **Decision units** (``hdl/route_adaptive.py``) and the golden ``_decide`` (through
    ``kernel.decide_reference``) against the formulas of Kim, Dally & Abts 2007 §3.1 (MIN AD, VAL,
    UGAL/UGAL-S, CLOS AD) and Thamarakuzhi & Chandy's Algorithm 1, with the departures
    docs/router-spec.md §R7/§R7b documents, on random router states.

The network descriptions the references need (coordinates, port layouts, terminal attachment) are
re-derived from the family docstrings (gen/families/*.py), not read from ``compile_hyperx``.
"""

from __future__ import annotations

import atexit
import doctest
import random
import shutil
import tempfile
import zlib
from functools import lru_cache
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from amaranth import Cat, Elaboratable, Module
from amaranth.sim import Simulator
from hypothesis import HealthCheck, given, settings, strategies as st

from radixnet.cosim import tuser_ref
from radixnet.cosim.tuser_ref import decode_tuser, default_encoding, encode_tuser, high_bits
from radixnet.gen import build, family_names
from radixnet.gen.families.clos import clos_up_ports
from radixnet.gen.families.ttn import compile_hdor, outlets
from radixnet.gen.routing import (
    CLOS_AD,
    MIN_AD,
    PRIO,
    UGAL,
    VAL,
    accepted_routings,
    compile_dor_table,
    compile_hyperx,
    resolve,
)
from radixnet.golden import kernel
from radixnet.golden.sim import SimConfig
from radixnet.hdl.axis import AxisEgress, AxisIngress, tuser_layout
from radixnet.hdl.route_adaptive import ClosAdDecide, MinAdDecide, PriorityFlagDecide, UgalDecide

FAST = settings(max_examples=20, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SLOW = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# =====================================================================================================
# (a) route tables
# =====================================================================================================
def nx_distances(net) -> np.ndarray:
    """Router-to-router hop distances by networkx BFS over the channel list (-1: unreachable)."""
    g = nx.DiGraph()
    g.add_nodes_from(range(net.num_routers))
    g.add_edges_from(zip(net.src.tolist(), net.dst.tolist()))
    D = np.full((net.num_routers, net.num_routers), -1, np.int64)
    for a, lengths in nx.all_pairs_shortest_path_length(g):
        for b, n in lengths.items():
            D[a, b] = n
    return D


@lru_cache(maxsize=64)
def neighbours(net) -> np.ndarray:
    """``nb[r, p]``: the router output port ``p`` of router ``r`` leads to (-1: no channel)."""
    nb = np.full((net.num_routers, net.max_radix), -1, np.int64)
    nb[net.src, net.src_port] = net.dst
    return nb


def pairs(net, D):
    """(r, d) over every router r and every terminal (ejection) router d != r that r reaches."""
    dst_r = np.unique(net.ej_router)
    r, d = np.meshgrid(np.arange(net.num_routers), dst_r, indexing="ij")
    r, d = r.ravel(), d.ravel()
    keep = (r != d) & (D[r, d] >= 0)
    return r[keep], d[keep]


def first_bad(bad, r, d, what):
    """Fail naming the first (router, destination) pair where ``bad`` holds."""
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        pytest.fail(f"{what}: router {int(r[i])} toward router {int(d[i])}")


def check_on_shortest_paths(net, table, D, what):
    """Minimal routing: every next hop reduces the networkx distance by one, the table's distance is
    the networkx one, and routers that cannot reach a destination have no entry for it."""
    r, d = pairs(net, D)
    p = table.next_port[r, d]
    first_bad(p < 0, r, d, f"{what}: no next hop where networkx finds a path")
    x = neighbours(net)[r, p]
    first_bad((x < 0) | (D[np.maximum(x, 0), d] != D[r, d] - 1), r, d,
              f"{what}: next hop not on a shortest path (networkx)")
    first_bad(table.dist[r, d] != D[r, d], r, d, f"{what}: table distance is not the networkx distance")
    dst_r = np.unique(net.ej_router)
    cannot = D[:, dst_r] < 0
    assert np.all(table.next_port[:, dst_r][cannot] < 0), f"{what}: an entry toward an unreachable router"


def walk(net, table, a, b, limit):
    """Routers of the table route from router a to router b (including both ends)."""
    nb = neighbours(net)
    path = [a]
    while a != b:
        p = int(table.next_port[a, b])
        assert p >= 0, f"{table.routing}: no entry at router {a} toward router {b}"
        a = int(nb[a, p])
        path.append(a)
        assert a >= 0 and len(path) <= limit, f"{table.routing}: route {path[0]} -> {b} does not arrive"
    return path


def sp_rule(net, D) -> np.ndarray:
    """§R7a, from the spec's words: from router r toward destination router d, of the m minimal output
    ports (in port order) the ``((r + d) mod m)``-th; a port is minimal when its channel leads one hop
    closer (networkx distance). Returns the expected ``next_port`` over (router, terminal router)."""
    exp = np.full((net.num_routers, net.num_routers), -1, np.int64)
    ports = {}
    for c in range(net.num_channels):
        ports.setdefault(int(net.src[c]), []).append((int(net.src_port[c]), int(net.dst[c])))
    for r, d in zip(*pairs(net, D)):
        minimal = sorted(p for p, x in ports.get(int(r), []) if D[x, d] == D[r, d] - 1)
        exp[r, d] = minimal[(r + d) % len(minimal)]
    return exp


def check_sp_rule(net, table, D, what):
    r, d = pairs(net, D)
    exp = sp_rule(net, D)
    first_bad(table.next_port[r, d] != exp[r, d], r, d, f"{what}: not the §R7a ((r + d) mod m)-th minimal port")


# ------------------------------------------------------------------ HyperX family, from hyperx.py's docstring
class HyperX:
    """A HyperX-family network (fbfly, hyperx, 2dfb, hypercube) from its documented construction.

    gen/families/hyperx.py: routers on a grid ``dims``, router ``i = sum_d x_d prod_{e<d} s_e``; in each
    dimension a router links to every router differing in that digit only, with ``mult[d]`` lanes; ``c``
    terminals per router. Port layout: terminal ports ``0 .. c-1``, then dimension by dimension, for
    each other digit value ``m`` in increasing order, ``mult[d]`` ports (one per lane). fbfly (Kim §2.1):
    ``dims = [k]*(n-1)``, one lane, ``c = k`` by default; 2dfb: ``dims = [k]*n``, two lanes; hypercube:
    ``dims = [2]*n``. Terminal ``t`` sits on router ``t // c`` at port ``t % c`` (terminal ports first,
    in terminal order).
    """

    def __init__(self, net):
        p, fam = net.params, net.family
        if fam == "fbfly":
            self.dims, self.mult, self.c = [p["k"]] * (p["n"] - 1), [1] * (p["n"] - 1), p["c"]
        elif fam == "2dfb":
            self.dims, self.mult, self.c = [p["k"]] * p["n"], [2] * p["n"], p["c"]
        elif fam == "hypercube":
            self.dims, self.mult, self.c = [2] * p["n"], [1] * p["n"], p["c"]
        elif fam == "hyperx":
            self.dims, self.mult, self.c = list(p["dims"]), list(p["mult"]), p["c"]
        else:
            raise ValueError(fam)
        self.D = len(self.dims)
        self.R = int(np.prod(self.dims)) if self.dims else 1
        self.T = self.R * self.c
        self.strides = [int(np.prod(self.dims[:d])) for d in range(self.D)]

    def digits(self, r):
        return tuple((r // self.strides[d]) % self.dims[d] for d in range(self.D))

    def router(self, digits):
        return sum(x * s for x, s in zip(digits, self.strides))

    def neighbour(self, r, d, m):
        x = list(self.digits(r))
        x[d] = m
        return self.router(x)

    def port(self, r, d, m, lane=0):
        """Output port of router r toward digit m (!= its own) of dimension d, on ``lane``."""
        own = self.digits(r)[d]
        assert m != own and 0 <= lane < self.mult[d]
        base = self.c + sum((s - 1) * k for s, k in zip(self.dims[:d], self.mult[:d]))
        return base + (m - (m > own)) * self.mult[d] + lane

    def port_info(self, r, p):
        """(dimension, digit, lane) of network port p of router r, or None for a terminal port."""
        if p < self.c:
            return None
        own = self.digits(r)
        q = p - self.c
        for d, (s, k) in enumerate(zip(self.dims, self.mult)):
            if q < (s - 1) * k:
                rank, lane = divmod(q, k)
                return d, rank + (rank >= own[d]), lane
            q -= (s - 1) * k
        raise ValueError(p)

    def hamming(self, a, b):
        return sum(x != y for x, y in zip(self.digits(a), self.digits(b)))

    def dor_port(self, r, target):
        """Kim §3.1 dimension order: lane 0 toward the target's digit in the lowest differing dimension."""
        x, t = self.digits(r), self.digits(target)
        d = next(d for d in range(self.D) if x[d] != t[d])
        return self.port(r, d, t[d])


def check_hyperx_tables(net, hx):
    """compile_hyperx (read by the golden kernels and by the RTL's HyperXRoute) against the layout."""
    t = compile_hyperx(net)
    R, D = hx.R, hx.D
    assert np.array_equal(t.coords, np.array([hx.digits(r) for r in range(R)]).reshape(R, D))
    assert t.dims.tolist() == hx.dims
    assert t.term_router.tolist() == [i // hx.c for i in range(hx.T)]
    assert t.eject_port.tolist() == [i % hx.c for i in range(hx.T)]
    nb = neighbours(net)
    for r in range(R):
        own = hx.digits(r)
        for d in range(D):
            for m in range(t.port_to.shape[2]):
                lanes = t.port_lanes[r, d, m]
                if m == own[d] or m >= hx.dims[d]:
                    assert t.port_to[r, d, m] == -1 and np.all(lanes == -1), (r, d, m)
                    continue
                want = [hx.port(r, d, m, ln) for ln in range(hx.mult[d])]
                assert t.port_to[r, d, m] == want[0], ("port_to", r, d, m)
                assert lanes.tolist() == want + [-1] * (lanes.size - len(want)), ("port_lanes", r, d, m)
                assert all(nb[r, p] == hx.neighbour(r, d, m) for p in want), ("channel", r, d, m)


def check_kim_dor(net, hx, D):
    """``min`` on the HyperX family: Kim's DOR as the one-class table (compile_dor_table), minimal."""
    t = compile_dor_table(net)
    check_on_shortest_paths(net, t, D, "min (Kim DOR)")
    r, d = pairs(net, D)
    exp = np.array([hx.dor_port(a, b) for a, b in zip(r, d)])
    first_bad(t.next_port[r, d] != exp, r, d, "min: not Kim's dimension order (lowest dimension, lane 0)")
    assert np.array_equal(D[r, d], [hx.hamming(a, b) for a, b in zip(r, d)])  # distance = differing digits


# ------------------------------------------------------------------ dor on torus / mesh / hypercube (§R7d)
def check_dor(net, table, D):
    """Router-spec §R7d ``dor`` from the family definitions: router ``i = sum x_d prod_{e<d} k_e``; the
    lowest dimension with ``x_i != t_i``; torus: ``+`` iff ``(t_i - x_i) mod k_i <= k_i/2``, mesh: toward
    ``t_i``, ports ``c + 2i`` (+) / ``c + 2i + 1`` (-) (gen/families/torus.py); hypercube: e-cube, the
    dimension's only link, port ``c + i`` (HyperX layout). Class: torus 0 while the ring's wrap-around
    link lies ahead (``+``: ``t_i < x_i``; ``-``: ``t_i > x_i``), else 1; mesh and hypercube 0.
    Dimension order with the shorter way round is minimal: checked against networkx too."""
    check_on_shortest_paths(net, table, D, "dor")
    fam, c = net.family, net.params["c"]
    dims = [2] * net.params["n"] if fam == "hypercube" else list(net.params["dims"])
    strides = [int(np.prod(dims[:i])) for i in range(len(dims))]
    for r, d in zip(*pairs(net, D)):
        x = [(r // s) % k for s, k in zip(strides, dims)]
        t = [(d // s) % k for s, k in zip(strides, dims)]
        i = next(i for i in range(len(dims)) if x[i] != t[i])
        k = dims[i]
        if fam == "hypercube":
            port, cls = c + i, 0
        else:
            plus = (t[i] - x[i]) % k * 2 <= k if fam == "torus" else t[i] > x[i]
            port = c + 2 * i + (0 if plus else 1)
            cls = (0 if (t[i] < x[i] if plus else t[i] > x[i]) else 1) if fam == "torus" else 0
        assert (table.next_port[r, d], table.cls[r, d]) == (port, cls), (fam, dims, r, d)


# ------------------------------------------------------------------ hdor on ttn / tesh (§R7d)
def check_hdor(net, table, D):
    """The TTN paper's hierarchical dimension order (Rahman et al. 2009 §3.1, Fig. 4; router-spec §R7d),
    written from the family's addressing (Eq. 1: router ``r = sum a_i k^i``, coords most significant
    first, the last two the node in its BM) and its documented outlet placement (``outlets``):

    * same BM as the destination: y first, then x; the shorter way round a TTN's torus BM
      (``(t - x) mod k <= k/2``: ``+``), toward the target in a TESH's mesh BM; BM ports
      ``+x, -x, +y, -y`` = ``c + 0 .. 3``;
    * otherwise stage ``j``, the most significant BM digit that differs; direction ``+`` iff ``q = 0`` or
      ``(d_j - x_j) mod k <= k/2``; the outlet of (level, dimension, direction) nearest in BM hops (ties:
      the lowest lane); at its out-node the higher-level port, elsewhere BM routing toward it.

    Classes (``four``, or ``ranked`` when the table has ``4L - 2``): ``a`` = 0 while the stage's ring
    wrap-around lies ahead (``+``: ``d_j < x_j``, ``-``: ``d_j > x_j``) else 1 on higher-level hops;
    in the destination BM ``2 + b`` (ranked: ``2(2L - 2) + b``), ``b`` the BM ring's dateline of the hop;
    toward an outlet (ranked: ``2j + a``), with ``k <= 4``: at an edge slot 1 on a ``-`` ring, 0 on a
    ``+`` ring with ``a = 1``, else ``3 - b`` in y and 1 in x; at a corner slot 2 toward the last stage's
    ``+`` outlet, else 0; with ``k > 4``: ``a`` at an edge slot, ``j mod 2`` at a corner. Every BM leg is also checked
    to be a shortest path inside the BM (networkx on the level-1 channels); the table's ``dist`` is the
    length of its route."""
    p = net.params
    m, L, q, c = p["m"], p["L"], p["q"], p["c"]
    k = 2 ** m
    wrap = net.family == "ttn"
    R = net.num_routers
    digits = np.array([[(r // k ** i) % k for i in range(2 * L - 1, -1, -1)] for r in range(R)])
    assert np.array_equal(net.coords, digits)
    ranked = table.classes != 4                # auto: four classes when acyclic, else 4L - 2 (ranked)
    roles = outlets(m, L, q, "torus" if wrap else "mesh")
    bm = nx.DiGraph()
    bm.add_edges_from((int(a), int(b)) for a, b, tag in zip(net.src, net.dst, net.tag) if tag == 1)
    bmd = dict(nx.all_pairs_shortest_path_length(bm))

    def ring(x, t):
        """(port offset, dateline class) of one BM ring/line step from x toward t != x."""
        if wrap:
            plus = (t - x) % k * 2 <= k
            return (0 if plus else 1), (0 if (t < x if plus else t > x) else 1)
        return (0 if t > x else 1), 0

    def bm_step(r, ty, tx):
        y, x = digits[r, -2], digits[r, -1]
        if y != ty:
            off, b = ring(y, ty)
            return c + 2 + off, b
        off, b = ring(x, tx)
        return c + off, b

    S = 2 * L - 2
    for r, d in zip(*pairs(net, D)):
        hi = np.flatnonzero(digits[r, :S] != digits[d, :S])
        if hi.size == 0:
            port, b = bm_step(r, digits[d, -2], digits[d, -1])
            cls = 2 * S + b if ranked else 2 + b
            target = d
        else:
            j = int(hi[0])
            level, dim = L - j // 2, "yx"[j % 2]
            xj, dj = digits[r, j], digits[d, j]
            sign = 1 if q == 0 or (dj - xj) % k * 2 <= k else -1
            a = 0 if (dj < xj if sign > 0 else dj > xj) else 1
            here = (int(digits[r, -2]), int(digits[r, -1]))

            def bm_dist(node):
                dy, dx = abs(node[0] - here[0]), abs(node[1] - here[1])
                return (min(dy, k - dy) + min(dx, k - dx)) if wrap else dy + dx

            o = min((o for o in roles if (o.level, o.dim, o.sign) == (level, dim, sign)),
                    key=lambda o: (bm_dist(o.out_node), o.lane))
            if here == o.out_node:
                port, cls, target = c + o.out_port, a, None
            else:
                port, b = bm_step(r, *o.out_node)
                if ranked:
                    cls = 2 * j + a
                elif k > 4:
                    cls = a if o.in_node != o.out_node else j % 2
                elif o.in_node != o.out_node:     # an edge slot: the transit crosses BM links
                    cls = 1 if sign < 0 else 0 if a == 1 else (3 - b if dim == "y" else 1)
                else:                             # a corner slot
                    cls = 2 if (j == S - 1 and sign > 0) else 0
                target = int(r - r % (k * k) + o.out_node[0] * k + o.out_node[1])
        assert table.next_port[r, d] == port, ("hdor port", r, d)
        assert table.cls[r, d] == min(cls, table.classes - 1), ("hdor class", r, d)
        if target is not None:    # a BM hop: one hop closer to its target inside the BM
            nxt = int(neighbours(net)[r, port])
            assert bmd[nxt][target] == bmd[int(r)][target] - 1, ("hdor BM leg not minimal", r, d)
    for r, d in zip(*pairs(net, D)):
        assert len(walk(net, table, int(r), int(d), 4 * R)) - 1 == table.dist[r, d]


# ------------------------------------------------------------------ dest-tag on the butterfly (§R7d)
def check_dest_tag(net, table, D):
    """Destination-tag routing from gen/families/butterfly.py: router ``r = s k^(n-1) + w``; a packet for
    terminal ``t`` leaves stage ``i`` on output port ``t_(n-1-i)``; between routers that digit is digit
    ``n-2-i`` of the destination router's row ``t // k``. The path is the unique one (networkx counts
    one shortest path between every stage-0 and last-stage router) of ``n - 1`` channels."""
    k, n = net.params["k"], net.params["n"]
    W = k ** (n - 1)
    check_on_shortest_paths(net, table, D, "dest-tag")
    for r, d in zip(*pairs(net, D)):
        s, wd = int(r) // W, int(d) % W
        assert d // W == n - 1 and D[r, d] == n - 1 - s
        assert table.next_port[r, d] == (wd // k ** (n - 2 - s)) % k, (r, d)
    g = nx.DiGraph(list(zip(net.src.tolist(), net.dst.tolist())))
    for a in range(W):
        for b in range((n - 1) * W, n * W):
            assert len(list(nx.all_shortest_paths(g, a, b))) == 1


# ------------------------------------------------------------------ the folded Clos's up*/down* (§R7d)
def check_clos(net, table, up, D):
    """Up*/down* on the folded Clos (gen/families/clos.py): ``coords = (level, index)``; non-top routers
    have ``m`` down ports ``0 .. m-1`` and ``m`` up ports ``m .. 2m-1`` (``m = k``, or ``radix/2``),
    top routers only down ports. A leaf is *below* a router when a path of down channels reaches it.
    From router r toward leaf d: a down channel to a router that has d below it (or is d) when d is
    below r, else an up channel; the table is minimal; ``clos_up_ports`` lists the up ports."""
    p = net.params
    m = p["k"] if p["k"] is not None else p["radix"] // 2
    lev = net.coords[:, 0]
    top = lev.max()
    exp_up = [[q for q in range(m, 2 * m) if lev[r] < top] for r in range(net.num_routers)]
    got_up = [[int(x) for x in row if x >= 0] for row in up]
    assert got_up == exp_up
    assert np.array_equal(up, clos_up_ports(net))
    downg = nx.DiGraph()
    downg.add_nodes_from(range(net.num_routers))
    downg.add_edges_from((int(a), int(b)) for a, b in zip(net.src, net.dst) if lev[b] < lev[a])
    below = {r: nx.descendants(downg, r) | {r} for r in range(net.num_routers)}
    nb = neighbours(net)
    for r, d in zip(*pairs(net, D)):
        port = int(table.next_port[r, d])
        x = int(nb[r, port])
        if d in below[r]:
            assert lev[x] < lev[r] and d in below[x], ("should go down", r, d)
        else:
            assert lev[x] > lev[r] and port >= m, ("should go up", r, d)
    for r, d in zip(*pairs(net, D)):          # leaf to leaf: up to the lowest common ancestor and down
        if lev[r] == 0:
            assert D[r, d] == 2 * min(lev[a] for a in below if r in below[a] and d in below[a]), (r, d)


# ------------------------------------------------------------------ the instances
_TMP = Path(tempfile.mkdtemp(prefix="radixnet-independent-refs-"))
atexit.register(shutil.rmtree, _TMP, True)
_PETERSEN = _TMP / "petersen.edges"
# the Petersen graph plus one doubled link (two lanes between routers 0 and 1): a graph no family builds
_PETERSEN.write_text("".join(f"{a} {b}\n" for a, b in nx.petersen_graph().edges()) + "0 1\n")

INSTANCES = {
    "fbfly-3x3": ("fbfly", dict(k=3, n=3)),
    "fbfly-4x2": ("fbfly", dict(k=4, n=2)),
    "hyperx-3x4": ("hyperx", dict(dims=[3, 4], mult=[2, 1], c=2)),
    "2dfb-3x2": ("2dfb", dict(k=3, n=2)),
    "hypercube-4": ("hypercube", dict(n=4)),
    "torus-4x3": ("torus", dict(dims=[4, 3])),
    "torus-2x5": ("torus", dict(dims=[2, 5])),
    "mesh-3x4": ("mesh", dict(dims=[3, 4])),
    "slimfly-5": ("slimfly", dict(q=5)),
    "clex-3x2": ("clex", dict(k=3, levels=2)),
    "dragonfly-2": ("dragonfly", dict(p=2)),
    "ttn-1-2-0": ("ttn", dict(m=1, L=2, q=0)),
    "ttn-2-2-1": ("ttn", dict(m=2, L=2, q=1)),
    "tesh-1-2-1": ("tesh", dict(m=1, L=2, q=1)),
    "tesh-2-2-0": ("tesh", dict(m=2, L=2, q=0)),
    "ttn-2-2-2": ("ttn", dict(m=2, L=2, q=2)),      # two lanes per direction: the nearest-outlet tie rule
    "butterfly-3x3": ("butterfly", dict(k=3, n=3)),
    "butterfly-2x4": ("butterfly", dict(k=2, n=4)),
    "clos-3x3": ("clos", dict(k=3, n=3)),
    "clos-r8-l3": ("clos", dict(radix=8, levels=3)),
    "file-petersen": ("file", dict(path=str(_PETERSEN))),
}


@lru_cache(maxsize=None)
def instance(name):
    fam, kw = INSTANCES[name]
    net = build(fam, **kw)
    return net, nx_distances(net)


def check_routing(net, D, routing):
    """Every table ``routing`` uses on ``net`` (as the simulator compiles it) against its references."""
    plan = resolve(routing, net)
    if plan.table is None:                   # Kim's kernels / 2DFB on the HyperX family (§R7, §R7b)
        hx = HyperX(net)
        check_hyperx_tables(net, hx)
        check_kim_dor(net, hx, D)
        return
    cfg = SimConfig(net, routing=routing, seed=1, speedup=2).validate()
    table = cfg._table
    if plan.table in ("sp", "two-phase", "clos-adaptive"):
        check_on_shortest_paths(net, table, D, f"{routing} ({plan.table})")
        check_sp_rule(net, table, D, routing)
    if plan.table == "two-phase":            # Valiant / UGAL legs s -> b -> d: each leg minimal (§R7c)
        term = np.unique(net.inj_router)
        rng = np.random.default_rng(zlib.crc32(routing.encode()))
        for s, b, d in rng.choice(term, size=(40, 3)):
            leg1 = walk(net, table, int(s), int(b), 4 * net.num_routers)
            leg2 = walk(net, table, int(b), int(d), 4 * net.num_routers)
            assert (len(leg1) - 1, len(leg2) - 1) == (D[s, b], D[b, d])
    elif plan.table == "dor":
        check_dor(net, table, D)
    elif plan.table == "hdor":
        check_hdor(net, table, D)
        if table.classes == 4:               # the other class assignment, ranked (used beyond 256 routers)
            check_hdor(net, compile_hdor(net, assignment="ranked"), D)
    elif plan.table == "dest-tag":
        check_dest_tag(net, table, D)
    elif plan.table == "clos-adaptive":
        check_clos(net, table, cfg._up, D)
    elif plan.table != "sp":
        raise AssertionError(f"no independent reference for table {plan.table!r} ({routing})")


def test_instances_cover_every_family():
    assert {fam for fam, _ in INSTANCES.values()} == set(family_names())


@pytest.mark.parametrize("name", sorted(INSTANCES))
def test_route_tables_against_networkx_and_the_family_rule(name):
    """For each routing the instance takes, the tables it runs on, against networkx shortest paths and
    the family's rule written here (see :func:`check_routing`)."""
    net, D = instance(name)
    tables = set()
    for routing in accepted_routings(net):
        plan = resolve(routing, net)
        key = (plan.table, routing if plan.table in ("dor", "hdor", "dest-tag", "clos-adaptive") else None)
        if key in tables:        # val / ugal / ugal-s / ugal-l / ugal-g share one table per network
            continue
        tables.add(key)
        check_routing(net, D, routing)


# ------------------------------------------------------------------ random small parameters (hypothesis)
FAMILY_PARAMS = {
    "torus": st.fixed_dictionaries({"dims": st.lists(st.integers(2, 6), min_size=1, max_size=3)}),
    "mesh": st.fixed_dictionaries({"dims": st.lists(st.integers(2, 5), min_size=1, max_size=3)}),
    "hypercube": st.fixed_dictionaries({"n": st.integers(1, 5), "c": st.integers(1, 2)}),
    "hyperx": st.integers(1, 3).flatmap(lambda D: st.fixed_dictionaries({
        "dims": st.lists(st.integers(2, 4), min_size=D, max_size=D),
        "mult": st.lists(st.integers(1, 2), min_size=D, max_size=D), "c": st.integers(1, 3)})),
    "fbfly": st.fixed_dictionaries({"k": st.integers(2, 4), "n": st.integers(2, 3)}),
    "2dfb": st.fixed_dictionaries({"k": st.integers(2, 4), "n": st.integers(1, 2)}),
    "butterfly": st.fixed_dictionaries({"k": st.integers(2, 3), "n": st.integers(2, 3)}),
    "clos": st.fixed_dictionaries({"k": st.integers(2, 3), "n": st.integers(2, 3)}),
}


def _random_network_check(data, family):
    kw = data.draw(FAMILY_PARAMS[family], label="params")
    net = build(family, **kw)
    if net.num_routers > 200:
        return
    D = nx_distances(net)
    for routing in accepted_routings(net):
        if resolve(routing, net).table in (None, "sp", "dor", "dest-tag", "clos-adaptive"):
            check_routing(net, D, routing)


@pytest.mark.parametrize("family", sorted(FAMILY_PARAMS))
@FAST
@given(data=st.data())
def test_route_tables_on_random_small_networks(family, data):
    _random_network_check(data, family)


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILY_PARAMS))
@SLOW
@given(data=st.data())
def test_route_tables_on_random_small_networks_sweep(family, data):
    _random_network_check(data, family)


@pytest.mark.slow
@pytest.mark.parametrize("fam, kw", [("ttn", dict(m=1, L=3, q=0)), ("tesh", dict(m=2, L=2, q=2)),
                                     ("slimfly", dict(q=7)), ("dragonfly", dict(p=3)),
                                     ("clos", dict(radix=16, levels=2)), ("butterfly", dict(k=4, n=3))])
def test_route_tables_on_larger_networks(fam, kw):
    net = build(fam, **kw)
    D = nx_distances(net)
    for routing in accepted_routings(net):
        check_routing(net, D, routing)


# =====================================================================================================
# (b) tuser: the encoder of docs/axis-ports.md against TuserLayout and the RTL
# =====================================================================================================
#: (terminals, encoding): every one-hot size, binary sizes around the 8-bit boundary and with high bits
TUSER_CONFIGS = [(t, "onehot") for t in range(1, 9)] + [(t, "binary") for t in (
    1, 2, 5, 8, 9, 64, 255, 256, 257, 1000, 4096, 65536, 2 ** 20 + 3, 2 ** 40, 2 ** 56)]


def test_tuser_ref_doctests():
    assert doctest.testmod(tuser_ref).failed == 0


@pytest.mark.parametrize("T, enc", TUSER_CONFIGS)
def test_tuser_layout_fields_are_the_documented_bit_ranges(T, enc):
    """``as_dict`` and the 128-bit ``StructLayout`` the ports use, against the table of docs/axis-ports.md."""
    tu = tuser_layout(T, enc)
    h = high_bits(T, enc)
    want = {"len": [15, 0], "src": [23, 16], "dst": [31, 24]}
    if h:
        want |= {"src_hi": [32 + h - 1, 32], "dst_hi": [32 + 2 * h - 1, 32 + h]}
    if 32 + 2 * h < 128:
        want["user"] = [127, 32 + 2 * h]
    d = tu.as_dict()
    assert (d["width"], d["encoding"], d["n_terminals"], d["fields"]) == (128, enc, T, want)
    lay = tu.layout()
    assert lay.size == 128
    assert {name: [lay[name].offset + lay[name].width - 1, lay[name].offset] for name in lay.members} == want
    assert tuser_layout(T).encoding == default_encoding(T)


def _exhaustive_ports(T):
    return [(s, d) for s in range(T) for d in range(T)] if T <= 64 else \
        [(s, d) for s in (0, 1, 255, 256, T // 2, T - 1) if s < T for d in (0, 7, 256, T - 2, T - 1) if 0 <= d < T]


@pytest.mark.parametrize("T, enc", TUSER_CONFIGS)
def test_tuser_pack_and_unpack_match_the_independent_encoder(T, enc):
    """Every (src, dst) pair up to 64 terminals (corner ports above), lengths 0, 1, 1500 and 65535 and
    user values at the field's edges: ``pack`` gives the encoder's word, the word read through the
    ports' ``StructLayout`` has the documented raw fields, ``unpack`` inverts it."""
    tu = tuser_layout(T, enc)
    uw = tuser_ref.user_bits_available(T, enc)
    users = sorted({0, 1, (1 << uw) - 1} if uw else {0})
    lay = tu.layout()
    for s, d in _exhaustive_ports(T):
        for length in (0, 1, 1500, 65535):
            for user in users if (s, d) in ((0, 0), (T - 1, T - 1)) else (0,):
                word = encode_tuser(T, enc, length=length, src=s, dst=d, user=user)
                assert tu.pack(length, s, d, user) == word, (s, d, length, user)
                assert tu.unpack(word) == {"len": length, "src": s, "dst": d, "user": user}
                assert decode_tuser(T, enc, word) == {"len": length, "src": s, "dst": d, "user": user}
        raw = {"len": 1500, "src": 1 << s if enc == "onehot" else s & 0xFF,
               "dst": 1 << d if enc == "onehot" else d & 0xFF}
        if tu.hi_bits:
            raw |= {"src_hi": s >> 8, "dst_hi": d >> 8}
        assert lay.const(raw).as_value().value == encode_tuser(T, enc, length=1500, src=s, dst=d)


@pytest.mark.parametrize("T, enc", [(3, "onehot"), (8, "onehot"), (200, "binary"), (1000, "binary"),
                                    (2 ** 33 + 5, "binary")])
@FAST
@given(word=st.integers(0, 2 ** 128 - 1))
def test_tuser_any_word_decodes_alike_or_is_refused_by_both(T, enc, word):
    """Any 128-bit word: ``unpack`` and the independent decoder agree, or both refuse its port fields."""
    tu = tuser_layout(T, enc)
    try:
        want = decode_tuser(T, enc, word)
    except ValueError:
        with pytest.raises(ValueError):
            tu.unpack(word)
        return
    assert tu.unpack(word) == want
    assert tu.pack(want["len"], want["src"], want["dst"], want["user"]) == word


@pytest.mark.parametrize("T, enc", [(1000, "binary"), (2 ** 56, "binary"), (70_000, "binary"), (6, "onehot")])
@FAST
@given(data=st.data())
def test_tuser_random_packets_pack_as_the_encoder(T, enc, data):
    uw = tuser_ref.user_bits_available(T, enc)
    s, d = data.draw(st.integers(0, T - 1)), data.draw(st.integers(0, T - 1))
    length, user = data.draw(st.integers(0, 65535)), data.draw(st.integers(0, (1 << uw) - 1))
    assert tuser_layout(T, enc).pack(length, s, d, user) == encode_tuser(T, enc, length=length, src=s, dst=d,
                                                                          user=user)


def test_tuser_encoder_refuses_what_the_document_excludes():
    for bad in (dict(n_terminals=9, encoding="onehot"), dict(n_terminals=2 ** 56 + 1, encoding="binary"),
                dict(n_terminals=4, encoding="gray")):
        with pytest.raises(ValueError):
            encode_tuser(bad["n_terminals"], bad["encoding"], length=1, src=0, dst=0)
    with pytest.raises(ValueError):
        encode_tuser(8, "onehot", length=1, src=8, dst=0)
    with pytest.raises(ValueError):
        encode_tuser(2 ** 56, "binary", length=1, src=0, dst=0, user=1)       # no user bits left
    with pytest.raises(ValueError):
        decode_tuser(8, "onehot", 0x03 << 16)                                  # two bits: not one-hot


class _Loop(Elaboratable):
    """AxisIngress -> AxisEgress through one flit link; the credit of a sent flit returns the next cycle."""

    def __init__(self, T, enc, W):
        self.ing = AxisIngress(T, 1, 2, W, port_encoding=enc)
        self.egr = AxisEgress(T, 1, W, port_encoding=enc)

    def elaborate(self, platform):
        m = Module()
        m.submodules.ing, m.submodules.egr = self.ing, self.egr
        m.d.comb += [self.egr.ej_flit.eq(self.ing.inj_flit), self.egr.ej_valid.eq(self.ing.inj_valid),
                     self.egr.m_axis_tready.eq(1)]
        m.d.sync += self.ing.inj_credit_vc.eq(self.ing.inj_valid)
        return m


@pytest.mark.parametrize("T, enc", [(8, "onehot"), (5, "onehot"), (64, "binary"), (1000, "binary")])
def test_rtl_ingress_and_egress_speak_the_documented_tuser(T, enc):
    """Single-beat packets whose tuser comes from the independent encoder: the ingress decodes the
    destination the encoder put in (flit ``dest``), the egress puts out the encoder's word, nothing is
    flagged. The RTL's tuser ports use ``TuserLayout.layout``; this holds them to the document."""
    W = 32
    dut = _Loop(T, enc, W)
    rng = random.Random(T)
    pk = [(rng.randrange(T), rng.randrange(T), rng.randint(1, W // 8)) for _ in range(40)]
    pk += [(0, T - 1, 1), (T - 1, 0, W // 8)]
    got = []

    async def bench(ctx):
        ing, egr = dut.ing, dut.egr
        for s, d, n in pk:
            word = encode_tuser(T, enc, length=n, src=s, dst=d)
            ctx.set(ing.s_axis_tuser.as_value(), word)
            ctx.set(ing.s_axis_tdata, rng.getrandbits(W))
            ctx.set(ing.s_axis_tkeep, (1 << n) - 1)
            ctx.set(ing.s_axis_tlast, 1)
            ctx.set(ing.s_axis_tvalid, 1)
            while not ctx.get(ing.s_axis_tready):
                await ctx.tick()
            dest = ctx.get(ing.inj_flit.dest)
            await ctx.tick()
            ctx.set(ing.s_axis_tvalid, 0)
            assert ctx.get(egr.m_axis_tvalid)
            got.append((dest, ctx.get(egr.m_axis_tuser.as_value()), word, d))
            await ctx.tick()
        assert ctx.get(ing.error) == 0 and ctx.get(egr.error) == 0

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert len(got) == len(pk)
    for dest, out_word, word, d in got:
        assert dest == d and out_word == word, (hex(out_word), hex(word))


# =====================================================================================================
# (c) the decision units and the golden _decide against the papers' formulas
# =====================================================================================================
class RouterState:
    """One router's state as a decision sees it, with the quantities of router-spec §R5/§R7 computed
    from the credits: ``q(o) = sum_v (B - credit[o][v])`` (Kim §3.1: "estimate output channel queue
    length using the credit count"); a class ``k`` of port ``o`` is *available* when one of its VCs
    ``[k V/K, (k+1) V/K)`` (§R8a) is idle with a credit, and its VC is the idle one with the most
    credits, ties the lowest (§R5)."""

    def __init__(self, credits, busy, V, B, K):
        self.credits, self.busy, self.V, self.B, self.K = credits, busy, V, B, K

    def q(self, p):
        return sum(self.B - c for c in self.credits[p])

    def vc(self, p, k):
        """The §R5 VC of class k at port p, or None (unavailable)."""
        per = self.V // self.K
        best = None
        for v in range(k * per, (k + 1) * per):
            if not (self.busy[p] >> v) & 1 and self.credits[p][v] >= 1:
                if best is None or self.credits[p][v] > self.credits[p][best]:
                    best = v
        return best

    def avail_bits(self, p):
        return sum(1 << k for k in range(self.K) if self.vc(p, k) is not None)


def ref_min_ad(hx, r, st_, hdr):
    """Kim §3.1 MIN AD: "choosing for the next hop the productive channel with the shortest queue";
    "n' virtual channels ... selected based on the number of hops remaining": class ``n' - H(c, d)``.
    Documented additions (router-spec §R7): ties go to the lowest dimension; of a neighbour's parallel
    lanes the one with an available VC and the shortest queue, ties the lowest lane; an unavailable
    candidate is left out."""
    dr = hdr["dest"] // hx.c
    keep = dict(phase_out=hdr["phase"], decided_out=hdr["decided"], inter_out=hdr["inter"], h1_out=hdr["h1"])
    if dr == r:
        return dict(port=hdr["dest"] % hx.c, eject=1, cls=None, vc=0, **keep)
    x, t = hx.digits(r), hx.digits(dr)
    cls = hx.D - hx.hamming(r, dr)
    cands = [(st_.q(p), j, ln, p) for j in range(hx.D) if x[j] != t[j] for ln in range(hx.mult[j])
             for p in [hx.port(r, j, t[j], ln)] if st_.vc(p, cls) is not None]
    if not cands:
        return None
    p = min(cands)[3]
    return dict(port=p, eject=0, cls=cls, vc=st_.vc(p, cls), **keep)


def ref_phases(hx, r, st_, hdr):
    """Kim §3.1 VAL: "routing minimally from s to b, and then routing minimally from b to d" ("our
    evaluation uses dimension order routing"; "Two VCs, one for each phase"): dimension order toward
    ``b`` in class 0 until ``b``, then toward ``d`` in class 1; lane 0 of every neighbour (§R7)."""
    dr, b = hdr["dest"] // hx.c, hdr["inter"]
    phase = 1 if hdr["phase"] or r == b else 0
    out = dict(phase_out=phase, decided_out=hdr["decided"], inter_out=b, h1_out=hdr["h1"])
    if phase and r == dr:
        return dict(port=hdr["dest"] % hx.c, eject=1, cls=None, vc=0, **out)
    p = hx.dor_port(r, dr if phase else b)
    v = st_.vc(p, phase)
    return None if v is None else dict(port=p, eject=0, cls=phase, vc=v, **out)


def ugal_choice(st_, r, hdr, o_min, h_min, o_nm, h_nm, b, thr):
    """Kim §3.1 UGAL: "chooses between MIN AD and VAL on a packet-by-packet basis to minimize the
    estimated delay ... The product of queue length and hop count is used as an estimate of delay":
    minimal iff ``q(o_min)·H_min <= q(o_nm)·H_nm``. Router-spec §R7 documents two departures: the
    threshold ``θ`` ("Kim §3.1 gives no threshold, but with credit-counted queues near zero at low load
    θ = 0 misroutes about a fifth of uniform traffic") and ties going minimal, so minimal iff
    ``q_min·H_min <= q_nm·H_nm + θ``; and a candidate without an available VC (minimal: class 1,
    non-minimal: class 0) is left out of the comparison."""
    v_min = st_.vc(o_min, 1)
    v_nm = None if o_nm is None else st_.vc(o_nm, 0)
    cmp = None if v_min is None or v_nm is None else (st_.q(o_min) * h_min, st_.q(o_nm) * h_nm + thr)
    take_min = v_min is not None and (cmp is None or cmp[0] <= cmp[1])
    base = dict(decided_out=1, h1_out=hdr["h1"], eject=0, _cmp=cmp)     # _cmp: for the coverage count only
    if take_min:
        return dict(port=o_min, cls=1, vc=v_min, phase_out=1, inter_out=r, **base)
    if v_nm is not None:
        return dict(port=o_nm, cls=0, vc=v_nm, phase_out=0, inter_out=b, **base)
    return None


def ref_ugal(hx, r, st_, hdr, thr):
    """UGAL / UGAL-S at the source router (``decided = 0``, Kim §3.1; the allocator is the only difference
    between the two): the minimal candidate and Valiant's through ``b`` = ``inter`` (drawn at creation),
    both first hops in dimension order (router-spec §R7: "``o_min``/``o_val`` the DOR next hops" -- Kim's
    text says UGAL chooses between *MIN AD* and VAL; the spec's minimal candidate is dimension order),
    ``H_min = H(c, d)``, ``H_nm = H(c, b) + H(b, d)``; ``b`` equal to ``c`` or ``d`` is no alternative
    (§R7). After the decision, Valiant's phases. At the destination router: eject in phase 1."""
    if hdr["decided"]:
        return ref_phases(hx, r, st_, hdr)
    dr, b = hdr["dest"] // hx.c, hdr["inter"]
    if dr == r:
        return dict(port=hdr["dest"] % hx.c, eject=1, cls=None, vc=0, phase_out=1, decided_out=1, inter_out=r,
                    h1_out=hdr["h1"])
    o_nm = None if b in (r, dr) else hx.dor_port(r, b)
    return ugal_choice(st_, r, hdr, hx.dor_port(r, dr), hx.hamming(r, dr), o_nm,
                       hx.hamming(r, b) + hx.hamming(b, dr), b, thr)


def ref_clos_ad(hx, r, st_, hdr, thr):
    """Kim §3.1 CLOS AD: like UGAL, minimal vs non-minimal by queue length x hops, but the non-minimal
    packet goes "as if it were adaptively routing to the middle stage of a Clos network", each
    dimension taken on "the channel with the shortest queue for that dimension (including a 'dummy
    queue' for staying at the current coordinate)"; "the intermediate node is chosen from the closest
    common ancestors", i.e. routers agreeing with ``c`` above the highest dimension ``j_max`` in which
    ``c`` and ``d`` differ. In one dimension (Kim's 32-ary 2-flat) that is: ``b`` = the neighbour with
    the shortest queue other than the minimal hop, staying = the minimal route. Router-spec §R7
    documents the rest: for ``n' > 1`` radixnet misroutes in one dimension only (``b`` = the lane-0
    neighbour over the dimensions ``<= j_max``, other than the minimal next hop, with an available
    class-0 VC and the smallest ``q``, ties the lowest port); non-minimal iff
    ``q(o_min)·H(c,d) > q(o_b)·(1 + H(b,d)) + θ``."""
    if hdr["decided"]:
        return ref_phases(hx, r, st_, hdr)
    dr = hdr["dest"] // hx.c
    if dr == r:
        return dict(port=hdr["dest"] % hx.c, eject=1, cls=None, vc=0, phase_out=1, decided_out=1, inter_out=r,
                    h1_out=hdr["h1"])
    x, t = hx.digits(r), hx.digits(dr)
    jmax = max(j for j in range(hx.D) if x[j] != t[j])
    o_min = hx.dor_port(r, dr)
    nbrs = [(st_.q(p), p, hx.neighbour(r, j, mm)) for j in range(jmax + 1) for mm in range(hx.dims[j])
            if mm != x[j] for p in [hx.port(r, j, mm)] if p != o_min and st_.vc(p, 0) is not None]
    o_b, b = (min(nbrs)[1], min(nbrs)[2]) if nbrs else (None, -1)
    return ugal_choice(st_, r, hdr, o_min, hx.hamming(r, dr), o_b, 1 + (hx.hamming(b, dr) if nbrs else 0), b,
                       thr)


def ref_priority_flag(hx, r, st_, hdr, th):
    """Thamarakuzhi & Chandy, Algorithm 1, transcribed (line numbers in the comments), with the departures
    router-spec §R7b documents:

    * a neighbour's queue is that of its least-loaded lane with an available VC (ties: the lowest lane),
      in the hop-index class ``min(hops, 2n - 1)``; a neighbour with no available lane is never
      "``<= T_h``" (the paper has neither lanes nor VCs);
    * "``port == input port``" (lines 17, 41) is a link back to the router the packet came from;
    * the non-minimal phase's ``s = ary-2 .. 0`` runs for every selected dimension (line 36 sets ``s``
      once before the loop over dimensions; the spec reads it per dimension), the ``s``-th link being
      the ``s``-th neighbour other than the router itself (line 40);
    * where Algorithm 1 leaves the packet with no port (``P_s = 0``: it retries in place), the spec
      forces the direct link of the first differing dimension that is not the way back (§R7b step 4:
      Algorithm 1's retry deadlocks a credit-based network), and a forced link waits while none of its
      lanes has an available VC (line 16's priority-flag case too);
    * with ``h1`` set the non-minimal phase is not entered (Algorithm 1 would enter it when every direct
      link led back, a state no route reaches: the flag is set on a hop into a dimension that still
      differs, whose direct link does not lead back).

    The header leaves with ``h1`` (lines 20, 45), ``decided = 1`` and ``inter = c`` (unused).
    """
    dr = hdr["dest"] // hx.c
    keep = dict(phase_out=hdr["phase"], decided_out=1, inter_out=r)
    if r == dr:                                                   # lines 2-5: the end-terminal's port
        return dict(port=hdr["dest"] % hx.c, eject=1, cls=None, vc=0, h1_out=0, **keep)
    K = 2 * hx.D
    cls = min(hdr["hops"], K - 1)
    came = None
    info = hx.port_info(r, hdr["in_port"])
    if info is not None:
        came = hx.neighbour(r, info[0], info[1])

    def link(j, m):
        """(q, port, vc) of the least-loaded available lane to digit m of dimension j, or None."""
        lanes = [(st_.q(p), ln, p) for ln in range(hx.mult[j]) for p in [hx.port(r, j, m, ln)]
                 if st_.vc(p, cls) is not None]
        if not lanes:
            return None
        q, _, p = min(lanes)
        return q, p, st_.vc(p, cls)

    s_d, d_d = hx.digits(r), hx.digits(dr)
    dimsel = []
    forced = None
    for i in range(hx.D - 1, -1, -1):                            # lines 8-33: i = msb .. 0
        if s_d[i] == d_d[i]:                                      # line 11: goto deci
            continue
        dimsel.append(i)                                          # line 14
        back = hx.neighbour(r, i, d_d[i]) == came                 # line 17: chk
        if back:
            continue                                              # line 18: next dimension
        if forced is None:
            forced = i
        if hdr["h1"] == 1:                                        # lines 16-22: the direct link, h1 cleared
            break
        lk = link(i, d_d[i])
        if lk is not None and lk[0] <= th:                        # line 25
            return dict(port=lk[1], eject=0, cls=cls, vc=lk[2], h1_out=0, _tie=lk[0] == th, **keep)  # 20-21
    if hdr["h1"] == 0:                                            # lines 34-53: non-minimal phase
        for dims in dimsel:                                       # line 37-38
            own = s_d[dims]
            for s in range(hx.dims[dims] - 2, -1, -1):            # lines 36, 39-51: s = ary-2 .. 0
                m = s if s < own else s + 1                       # line 40: the s-th other digit
                if hx.neighbour(r, dims, m) == came:              # line 41: never back
                    continue
                lk = link(dims, m)
                if lk is not None and lk[0] <= th:                # line 44
                    return dict(port=lk[1], eject=0, cls=cls, vc=lk[2], h1_out=1, _tie=lk[0] == th, **keep)
    if forced is None:                                            # §R7b step 4 (see the docstring)
        return None
    lk = link(forced, d_d[forced])
    return None if lk is None else dict(port=lk[1], eject=0, cls=cls, vc=lk[2], h1_out=0, **keep)


# ------------------------------------------------------------------ the configurations
# (family, params, router under test, θ / T_h)
DECIDE_NETS = {
    "fbfly4x2": ("fbfly", dict(k=4, n=2), 2, 4),
    "fbfly3x3": ("fbfly", dict(k=3, n=3), 5, 0),
    "2dfb8x1": ("2dfb", dict(k=8, n=1), 3, 2),
    "2dfb4x2": ("2dfb", dict(k=4, n=2), 6, 3),
    "hyperx3x4": ("hyperx", dict(dims=[3, 4], mult=[2, 1], c=3), 7, 1),
}
DECIDE_UNITS = {   # name -> (RTL class, routing, golden code, reference)
    "min-ad": (MinAdDecide, "min-ad", MIN_AD, lambda hx, r, s, h, thr: ref_min_ad(hx, r, s, h)),
    "val": (UgalDecide, "val", VAL, lambda hx, r, s, h, thr: ref_phases(hx, r, s, h)),
    "ugal": (UgalDecide, "ugal", UGAL, ref_ugal),
    "ugal-s": (UgalDecide, "ugal-s", UGAL, ref_ugal),
    "clos-ad": (ClosAdDecide, "clos-ad", CLOS_AD, ref_clos_ad),
    "2dfb-adaptive": (PriorityFlagDecide, "2dfb-adaptive", PRIO, ref_priority_flag),
}
N_STATES = 400


@lru_cache(maxsize=None)
def decide_net(name):
    fam, kw, r, thr = DECIDE_NETS[name]
    net = build(fam, **kw)
    return net, HyperX(net), r, thr


def classes(unit, hx):
    return {"min-ad": hx.D, "2dfb-adaptive": 2 * hx.D}.get(unit, 2)


def vcs(unit, hx):
    """(V, B): two VCs per class up to two classes, one beyond; few flits so queue lengths tie often."""
    K = classes(unit, hx)
    V = 2 * K if K <= 2 else K
    return V, (3 if V <= 2 else 2)


def decide_states(unit, name, n, seed):
    """Random states of router r: per network port the credits (all full, all empty, uniform, or, in a
    sixth of the states, every port nearly out of credits) and busy VCs; a destination (often on this
    router), an intermediate (often c or d), header bits, hops and the input port."""
    net, hx, r, thr = decide_net(name)
    V, B = vcs(unit, hx)
    rng = random.Random(seed)
    ports = [p for p in range(int(net.radix[r])) if p >= hx.c]
    out = []
    for _ in range(n):
        congested = rng.random() < 0.15
        credits, busy = {}, {}
        for p in ports:
            u = rng.random()
            if congested:
                credits[p] = [int(rng.random() < 0.25) for _ in range(V)]
            elif u < 0.25:
                credits[p] = [B] * V
            elif u < 0.35:
                credits[p] = [0] * V
            else:
                credits[p] = [rng.randrange(B + 1) for _ in range(V)]
            busy[p] = sum(1 << v for v in range(V) if rng.random() < 0.15)
        dest = rng.randrange(r * hx.c, (r + 1) * hx.c) if rng.random() < 0.15 else rng.randrange(hx.T)
        u = rng.random()
        inter = r if u < 0.15 else dest // hx.c if u < 0.3 else rng.randrange(hx.R)
        hdr = dict(dest=dest, inter=inter, phase=rng.randrange(2), decided=int(rng.random() < 0.3),
                   h1=int(rng.random() < 0.3), hops=rng.randrange(8), in_port=rng.randrange(int(net.radix[r])))
        state = RouterState(credits, busy, V, B, classes(unit, hx))
        if unit in ("ugal", "ugal-s", "clos-ad") and rng.random() < 0.4:
            near_tie(rng, hx, r, state, hdr, unit, thr)
        out.append((state, hdr))
    return out


def _set_queue(state, p, q, cls):
    """Give port p the queue length q, keeping one VC of class ``cls`` idle with a credit."""
    V, B = state.V, state.B
    keep = cls * V // state.K
    q = min(q, V * B - 1)
    cr = [B] * V
    for v in [v for v in range(V) if v != keep] + [keep]:
        take = min(q, B - (v == keep))
        cr[v] -= take
        q -= take
    state.credits[p] = cr
    state.busy[p] &= ~(1 << keep)


def near_tie(rng, hx, r, state, hdr, unit, thr):
    """Turn a state into a source decision whose comparison ``q_min·H_min`` vs ``q_nm·H_nm + θ`` is an
    exact tie or off by one (random states rarely hit the boundary a strict-compare bug moves)."""
    dr = hdr["dest"] // hx.c
    if dr == r:
        return
    hdr["decided"] = 0
    o_min, h_min = hx.dor_port(r, dr), hx.hamming(r, dr)
    if unit == "clos-ad":
        x, t = hx.digits(r), hx.digits(dr)
        jmax = max(j for j in range(hx.D) if x[j] != t[j])
        cands = [(hx.port(r, j, m), hx.neighbour(r, j, m)) for j in range(jmax + 1) for m in range(hx.dims[j])
                 if m != x[j] and hx.port(r, j, m) != o_min]
        if not cands:
            return
        o_nm, b = rng.choice(cands)
        h_nm = 1 + hx.hamming(b, dr)
        for p, _ in cands:                     # the other neighbours: heavier, or unavailable
            if p != o_nm:
                _set_queue(state, p, state.V * state.B, 0)
    else:
        if hdr["inter"] in (r, dr):
            hdr["inter"] = rng.choice([x for x in range(hx.R) if x not in (r, dr)])
        b = hdr["inter"]
        o_nm, h_nm = hx.dor_port(r, b), hx.hamming(r, b) + hx.hamming(b, dr)
        if o_nm == o_min:
            return
    q_nm = rng.randrange(3)
    target = q_nm * h_nm + thr + rng.choice((-1, 0, 0, 1))
    _set_queue(state, o_nm, q_nm, 0)
    _set_queue(state, o_min, max(0, round(target / h_min)), 1)


def reference(unit, name, states):
    net, hx, r, thr = decide_net(name)
    ref = DECIDE_UNITS[unit][3]
    return [ref(hx, r, s, h, thr) for s, h in states]


def make_decide_unit(unit, name, fault=None):
    cls_, routing, _, _ = DECIDE_UNITS[unit]
    net, hx, r, thr = decide_net(name)
    V, B = vcs(unit, hx)
    return cls_(net, r, n_vcs=V, depth=B, threshold=thr, fault=fault, routing=routing)


OUTS = ("valid", "port", "eject", "cls", "phase_out", "decided_out", "inter_out", "h1_out")


def rtl_decisions(dut, states):
    """The unit's outputs for each state, its ``q_np``/``avail_np_cls`` driven with the state's §R7
    queue lengths and class availability (one assignment per state, so the simulator settles once)."""
    ports = dut.net_ports
    header = [k for k in ("dest", "phase", "decided", "inter", "h1", "hops", "in_port") if hasattr(dut, k)]
    sigs = (list(dut.q_np) if hasattr(dut, "q_np") else []) + list(dut.avail_np_cls) + \
        [getattr(dut, k) for k in header]
    inputs = Cat(*sigs)
    seen = []

    async def bench(ctx):
        for s, h in states:
            vals = ([s.q(p) for p in ports] if hasattr(dut, "q_np") else []) + \
                [s.avail_bits(p) for p in ports] + [h[k] for k in header]
            value, shift = 0, 0
            for v, sig in zip(vals, sigs):
                value |= v << shift
                shift += len(sig)
            ctx.set(inputs, value)
            seen.append({k: ctx.get(getattr(dut, k)) for k in OUTS})

    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()
    return seen


def rtl_mismatch(got, want):
    if want is None:
        return None if got["valid"] == 0 else f"RTL valid {got}, the reference has no candidate"
    if got["valid"] != 1:
        return f"the reference decides {want}, RTL not valid"
    keys = [k for k in OUTS if k != "valid" and not (k == "cls" and want["eject"])]
    bad = {k: (got[k], want[k]) for k in keys if got[k] != want[k]}
    return f"(rtl, reference) differ: {bad}" if bad else None


@pytest.mark.parametrize("name", sorted(DECIDE_NETS))
@pytest.mark.parametrize("unit", sorted(DECIDE_UNITS))
def test_decision_unit_against_the_paper(unit, name):
    """The RTL unit on ``N_STATES`` random states against the reference formula (port, ejection, class,
    header out); the states reach both outcomes of every comparison, and its exact ties."""
    states = decide_states(unit, name, N_STATES, zlib.crc32(f"{unit}/{name}".encode()))
    want = reference(unit, name, states)
    got = rtl_decisions(make_decide_unit(unit, name), states)
    for (s, h), g, w in zip(states, got, want):
        assert rtl_mismatch(g, w) is None, (rtl_mismatch(g, w), h)
    coverage(unit, name, states, want)


def coverage(unit, name, states, want):
    """The comparisons the formulas make took both branches, and hit exact ties, in these states."""
    routed = [w for w in want if w and not w["eject"]]
    assert sum(w is None for w in want) >= 1 and sum(bool(w and w["eject"]) for w in want) >= 10
    assert len(routed) >= N_STATES // 3
    if unit in ("ugal", "ugal-s", "clos-ad"):
        src = [w for (s, h), w in zip(states, want) if w and not h["decided"] and not w["eject"]]
        assert sum(w["phase_out"] == 1 for w in src) >= 5 and sum(w["phase_out"] == 0 for w in src) >= 5
        cmps = [w["_cmp"] for w in src if w["_cmp"] is not None]
        assert sum(a < b for a, b in cmps) >= 5 and sum(a > b for a, b in cmps) >= 5
        assert sum(a == b for a, b in cmps) >= 2, f"no exact tie of the {unit} comparison in the states"
    if unit == "2dfb-adaptive":
        assert sum(w["h1_out"] == 1 for w in routed) >= 5 and sum(w["h1_out"] == 0 for w in routed) >= 5
        assert sum(w.get("_tie", False) for w in routed) >= 2, "no link taken at exactly q = T_h"


@pytest.mark.parametrize("unit, fault, name", [
    ("ugal", "strict", "fbfly4x2"),
    ("clos-ad", "strict", "fbfly3x3"),
    ("min-ad", "ties_high", "2dfb8x1"),
    ("2dfb-adaptive", "strict", "2dfb4x2"),
])
def test_paper_reference_catches_the_units_wrong_variants(unit, fault, name):
    """The units' deliberate bugs (a strict compare, ties to the highest) disagree with the reference."""
    states = decide_states(unit, name, N_STATES, seed=11)
    want = reference(unit, name, states)
    got = rtl_decisions(make_decide_unit(unit, name, fault), states)
    assert any(rtl_mismatch(g, w) for g, w in zip(got, want)), f"{unit} fault {fault} not caught"


# ------------------------------------------------------------------ the golden _decide, same reference
def golden_known(unit, name, s, h):
    """The arrays ``kernel.decide_reference`` reads, built from the HyperX layout of :class:`HyperX`
    (not from ``compile_hyperx``) and the network's channel list."""
    net, hx, r, thr = decide_net(name)
    V, B = s.V, s.B
    R, P, D = hx.R, net.max_radix, hx.D
    kmax = max(hx.dims)
    lanes = max(hx.mult)
    port_to = np.full((R, D, kmax), -1, np.int64)
    port_lanes = np.full((R, D, kmax, lanes), -1, np.int64)
    for x in range(R):
        for j in range(D):
            for m in range(hx.dims[j]):
                if m != hx.digits(x)[j]:
                    port_to[x, j, m] = hx.port(x, j, m)
                    port_lanes[x, j, m, :hx.mult[j]] = [hx.port(x, j, m, ln) for ln in range(hx.mult[j])]
    out_term = np.full((R, P), -1, np.int64)
    for t in range(hx.T):
        out_term[t // hx.c, t % hx.c] = t
    credit = np.full((R, P, V), B, np.int64)
    busy = np.zeros((R, P, V), np.int64)
    for p, cr in s.credits.items():
        credit[r, p] = cr
        busy[r, p] = [(s.busy[p] >> v) & 1 for v in range(V)]
    pt = net.port_table()
    algo = DECIDE_UNITS[unit][2]
    one = lambda x: np.array([x], np.int64)  # noqa: E731
    return dict(r=r, p=h["in_port"], pid=0, algo=algo, ncls=s.K, V=V, B=B, thr=thr,
                coords=np.array([hx.digits(x) for x in range(R)], np.int64).reshape(R, D), port_to=port_to,
                dims=np.array(hx.dims, np.int64), term_router=np.arange(hx.T, dtype=np.int64) // hx.c,
                eject_port=np.arange(hx.T, dtype=np.int64) % hx.c, out_term=out_term, out_ch=pt["out_channel"],
                in_ch=pt["in_channel"], ch_src=net.src, ch_dst=net.dst, port_lanes=port_lanes, credit=credit,
                ovc_busy=busy, pkt_dst=one(h["dest"]), pkt_phase=one(h["h1"] if algo == PRIO else h["phase"]),
                pkt_decided=one(h["decided"]), pkt_inter=one(h["inter"]), pkt_hops=one(h["hops"]),
                dec=np.zeros(5, np.int64))


def golden_mismatch(unit, ok, dec, want):
    if want is None:
        return None if not ok else f"golden decides {dec.tolist()}, the reference has no candidate"
    if not ok:
        return f"the reference decides {want}, golden has no candidate"
    flag = want["h1_out"] if DECIDE_UNITS[unit][2] == PRIO else want["phase_out"]
    exp = [want["port"], want["vc"], flag, want["decided_out"], want["inter_out"]]
    return None if dec.tolist() == exp else f"golden {dec.tolist()} != reference {exp}"


@pytest.mark.parametrize("name", sorted(DECIDE_NETS))
@pytest.mark.parametrize("unit", sorted(DECIDE_UNITS))
def test_golden_decide_against_the_paper(unit, name):
    """The golden ``_decide`` (``kernel.decide_reference``) on the same random states: port, VC (§R5),
    the phase or priority flag, ``decided`` and ``inter``."""
    states = decide_states(unit, name, N_STATES // 2, zlib.crc32(f"golden/{unit}/{name}".encode()))
    want = reference(unit, name, states)
    for (s, h), w in zip(states, want):
        known = golden_known(unit, name, s, h)
        ok = kernel.decide_reference(known)
        assert golden_mismatch(unit, ok, known["dec"], w) is None, (golden_mismatch(unit, ok, known["dec"], w), h)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(DECIDE_NETS))
@pytest.mark.parametrize("unit", sorted(DECIDE_UNITS))
def test_decision_unit_and_golden_against_the_paper_many_states(unit, name):
    """Ten times the states of the default run, with other seeds, for the RTL unit and the golden kernel."""
    states = decide_states(unit, name, 10 * N_STATES, zlib.crc32(f"slow/{unit}/{name}".encode()))
    want = reference(unit, name, states)
    got = rtl_decisions(make_decide_unit(unit, name), states)
    for (s, h), g, w in zip(states, got, want):
        assert rtl_mismatch(g, w) is None, (rtl_mismatch(g, w), h)
        known = golden_known(unit, name, s, h)
        ok = kernel.decide_reference(known)
        assert golden_mismatch(unit, ok, known["dec"], w) is None, (golden_mismatch(unit, ok, known["dec"], w), h)


def test_references_by_hand():
    """The formulas on hand-made states (fbfly k=4 n=2, router 0; 2dfb k=8 n=1, router 0), so the
    references themselves are checked against arithmetic done here."""
    net = build("fbfly", k=4, n=2)
    hx = HyperX(net)
    assert [hx.port(0, 0, m) for m in (1, 2, 3)] == [4, 5, 6]
    V, B = 2, 8

    def state(q):    # queue q[p] in VC 1 (class 1) first, the rest in VC 0; every VC idle
        return RouterState({p: [B - max(0, x - B), B - min(B, x)] for p, x in q.items()}, {p: 0 for p in q}, V, B, 2)

    hdr = dict(dest=4, inter=2, phase=0, decided=0, h1=0, hops=0, in_port=0)       # to router 1 via router 2
    assert ref_ugal(hx, 0, state({4: 6, 5: 1, 6: 0}), hdr, 4)["port"] == 4        # 6·1 <= 1·2 + 4
    assert ref_ugal(hx, 0, state({4: 7, 5: 1, 6: 0}), hdr, 4)["port"] == 5        # 7 > 6: Valiant
    # CLOS AD: b = the least-loaded other neighbour (router 3, port 6, q 0), 1 + H(b, d) = 2:
    # non-minimal iff 7·1 > 0·2 + 4 (yes); with q_min = 4 a tie, minimal
    w = ref_clos_ad(hx, 0, state({4: 7, 5: 1, 6: 0}), hdr, 4)
    assert (w["port"], w["cls"], w["phase_out"], w["inter_out"]) == (6, 0, 0, 3)
    w = ref_clos_ad(hx, 0, state({4: 4, 5: 1, 6: 0}), hdr, 4)
    assert (w["port"], w["cls"], w["phase_out"], w["inter_out"]) == (4, 1, 1, 0)
    fb = build("2dfb", k=8, n=1)
    hx2 = HyperX(fb)
    assert [hx2.port(0, 0, 3, ln) for ln in (0, 1)] == [12, 13]
    q = {p: 9 for p in range(8, 22)}
    q[20] = 4                                              # router 7 lane 0: the first non-minimal link (s = 6)
    hdr = dict(dest=24, inter=0, phase=0, decided=0, h1=0, hops=0, in_port=0)
    st2 = state(q)                                         # class 0 (hops 0) keeps credits in VC 0
    assert (ref_priority_flag(hx2, 0, st2, hdr, 4)["port"], ref_priority_flag(hx2, 0, st2, hdr, 4)["h1_out"]) \
        == (20, 1)
    w = ref_priority_flag(hx2, 0, st2, dict(hdr, h1=1), 4)
    assert (w["port"], w["h1_out"]) == (12, 0)             # the flag forces the direct link (its lighter lane)
