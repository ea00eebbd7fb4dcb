"""Slim Fly (MMS graphs): construction checked against Besta & Hoefler (slides steps 1-7, SC14)."""

import math

import networkx as nx
import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path

from radixnet.gen import build
from radixnet.gen.families.slimfly import allowed_q, slimfly_tables
from radixnet.gen.family import get_family, knowledge
from radixnet.gen.params import ParamError

QS = [3, 4, 7, 8, 9, 11, 13, 16, 17, 19]   # primes and prime powers, all three deltas


def _dist(net):
    return shortest_path(net.adjacency(), unweighted=True, directed=True)


def _delta(q):
    return {1: 1, 0: 0, 3: -1}[q % 4]


# ----------------------------------------------------------------------------- q = 5
def test_q5_is_hoffman_singleton():
    net = build("slimfly", q=5)
    A = net.adjacency().toarray()
    R = net.num_routers
    assert R == 50
    assert np.all(A.sum(1) == 7)
    assert np.array_equal(A, A.T) and A.max() == 1 and np.all(np.diag(A) == 0)
    # strongly regular (50, 7, 0, 1): A^2 = 7 I + 0 A + 1 (J - I - A); unique graph = Hoffman-Singleton
    assert np.array_equal(A @ A, 7 * np.eye(R, dtype=int) + (np.ones((R, R), int) - np.eye(R, dtype=int) - A))
    g = nx.Graph(net.to_networkx())
    assert nx.girth(g) == 5
    assert _dist(net).max() == 2
    # Moore bound for degree 7, diameter 2: 1 + 7 + 7*6 = 50 -> ratio exactly 1
    k = knowledge(net)
    deg = int(net.network_degree().max())
    assert k.extra["moore_bound"] == 1 + deg + deg * (deg - 1) == 50
    assert net.num_routers / k.extra["moore_bound"] == 1.0 == k.extra["moore_ratio"]


def test_q5_generator_sets_match_slides():
    # slides steps 4-5: xi = 2, X = {1, 4}, X' = {2, 3}
    t = slimfly_tables(5)
    assert t["xi"] == 2 and t["X"].tolist() == [1, 4] and t["Xp"].tolist() == [2, 3]


# ----------------------------------------------------------------------------- all deltas
@pytest.mark.parametrize("q", QS)
def test_size_degree_diameter(q):
    net = build("slimfly", q=q)
    d = _delta(q)
    kp = (3 * q - d) // 2
    assert net.params["delta"] == d
    assert net.num_routers == 2 * q * q
    assert np.all(net.network_degree() == kp)
    A = net.adjacency()
    assert A.max() == 1 and A.diagonal().sum() == 0 and (A != A.T).nnz == 0
    assert net.is_bidirectional
    D = _dist(net)
    assert D.max() == 2
    assert (net.num_routers, net.num_channels) == get_family("slimfly").size(net.params)
    # balanced concentration p = ceil(k'/2), radix = p + k'
    p = math.ceil(kp / 2)
    assert net.params["p"] == p and np.all(net.terminals_per_router() == p)
    assert np.all(net.radix == p + kp)


@pytest.mark.parametrize("q", QS + [25, 27])
def test_generator_sets_symmetric_and_sized(q):
    t = slimfly_tables(q)
    h = (q - t["delta"]) // 2
    for S in (t["X"], t["Xp"]):
        assert S.size == h and 0 not in S.tolist()
        assert sorted(t["neg"][S].tolist()) == S.tolist()
    # delta = 1: X = nonzero squares, X' = non-squares (independent characterisation)
    if t["delta"] == 1:
        sq = set(t["mul"][np.arange(1, q), np.arange(1, q)].tolist())
        assert set(t["X"].tolist()) == sq and set(t["Xp"].tolist()) == set(range(1, q)) - sq


@pytest.mark.parametrize("q", [4, 8, 9, 16, 25, 27])
def test_real_field_arithmetic_for_prime_powers(q):
    import galois
    GF = galois.GF(q)
    t = slimfly_tables(q)
    assert t["xi"] == int(GF.primitive_element)
    net = build("slimfly", q=q, p=1)
    c = net.coords
    inter = net.tag == 2
    s, d = net.src[inter], net.dst[inter]
    s0 = c[s, 0] == 0
    a, b = np.where(s0, s, d), np.where(s0, d, s)       # a in subgraph 0, b in subgraph 1
    x, y, m, cc = (GF(v) for v in (c[a, 1], c[a, 2], c[b, 1], c[b, 2]))
    assert np.all(y == m * x + cc)                       # step 7 in GF(q)
    for tag, S in ((0, t["X"]), (1, t["Xp"])):
        sel = net.tag == tag
        assert np.all(c[net.src[sel], 0] == tag) and np.all(c[net.dst[sel], 0] == tag)
        assert np.all(c[net.src[sel], 1] == c[net.dst[sel], 1])
        diff = GF(c[net.dst[sel], 2]) - GF(c[net.src[sel], 2])   # step 6 in GF(q)
        assert set(np.asarray(diff).tolist()) <= set(S.tolist())


def test_primitive_root_matches_galois_for_primes():
    import galois
    for q in (7, 19, 23):
        assert slimfly_tables(q)["xi"] == int(galois.GF(q).primitive_element)


@pytest.mark.parametrize("q", [5, 7, 8, 9])
def test_port_layout_contract(q):
    net = build("slimfly", q=q, p=2)
    t = slimfly_tables(q)
    add, mul, neg = t["add"], t["mul"], t["neg"]
    h, p, qq = t["X"].size, 2, q * q
    s, x, y = net.coords[net.src].T
    port = net.src_port - p
    assert np.all(port >= 0)
    intra = port < h
    S = np.where(s == 0, t["X"][np.minimum(port, h - 1)], t["Xp"][np.minimum(port, h - 1)])
    exp_intra = s * qq + x * q + add[y, S]
    j = port - h
    exp_inter = np.where(s == 0, qq + j * q + add[y, neg[mul[j.clip(0), x]]],      # (0,x,y) -> (1, m=j, y - m x)
                         j * q + add[mul[x, j.clip(0)], y])                        # (1,m,c) -> (0, x=j, m x + c)
    assert np.array_equal(net.dst, np.where(intra, exp_intra, exp_inter))
    assert np.array_equal(net.tag, np.where(intra, s, 2))
    # the input and output with the same port number face the same neighbour
    rev = net.channel_reverse()
    assert np.array_equal(net.src_port[rev], net.dst_port)
    # terminal t on router t // p, port t % p
    T = np.arange(net.num_terminals)
    assert np.array_equal(net.inj_router, T // p) and np.array_equal(net.inj_port, T % p) and net.is_direct


# ----------------------------------------------------------------------------- knowledge
@pytest.mark.parametrize("q", [5, 7, 8, 9])
def test_vertex_classes_are_unions_of_orbits(q):
    net = build("slimfly", q=q, p=0)
    t = slimfly_tables(q)
    add, mul, neg = t["add"], t["mul"], t["neg"]
    qq = q * q
    edges = set(zip(net.src.tolist(), net.dst.tolist()))
    sb, x, y = net.coords.T
    for u, v, w in [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 2 % q, 3 % q)]:
        # (0,x,y) -> (0, x+u, y+v x+w); (1,m,c) -> (1, m+v, c + w - (m+v) u)
        x0, y0 = add[x, u], add[add[y, mul[v, x]], w]
        mv = add[x, v]
        c1 = add[add[y, w], neg[mul[mv, u]]]
        img = np.where(sb == 0, x0 * q + y0, qq + mv * q + c1)
        assert np.unique(img).size == net.num_routers
        assert {(int(img[a]), int(img[b])) for a, b in edges} == edges
    k = knowledge(net)
    assert k.vertex_classes == [(0, qq), (qq, qq)] and not k.vertex_transitive
    D = _dist(net)
    full = np.bincount(D.astype(int).ravel())
    from_reps = sum(w * np.bincount(D[r].astype(int), minlength=full.size) for r, w in k.vertex_classes)
    assert np.array_equal(full, from_reps)


# ----------------------------------------------------------------------------- params
def test_q19_endpoints():
    net = build("slimfly", q=19)
    assert net.params["p"] == math.ceil(29 / 2) == 15
    assert net.num_routers == 722 and net.num_terminals == 10830
    assert build("slimfly", q=19, p=15).same_structure(net)
    assert build("slimfly", q=19, p=3).num_terminals == 722 * 3


def test_deterministic():
    a, b = build("slimfly", q=9), build("slimfly", q=9)
    assert a.same_structure(b) and np.array_equal(a.coords, b.coords)


@pytest.mark.parametrize("q", [6, 10, 2, 12, 1, 0, 14, 18])
def test_bad_q_refused(q):
    with pytest.raises(ParamError) as e:
        build("slimfly", q=q)
    msg = str(e.value)
    assert msg.startswith("--q:") and "3, 4, 5, 7, 8, 9" in msg and "\n" not in msg


def test_allowed_q():
    assert allowed_q(32) == [3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, 23, 25, 27, 29, 31, 32]


def test_delta_must_match_q():
    assert build("slimfly", q=7, delta=-1).params["delta"] == -1
    assert build("slimfly", q=8, delta="0").params["delta"] == 0
    with pytest.raises(ParamError, match=r"^--delta: .*delta = 1"):
        build("slimfly", q=5, delta=-1)
    with pytest.raises(ParamError, match=r"^--delta:"):
        build("slimfly", q=5, delta=2)
