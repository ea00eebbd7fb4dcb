"""CLEX C(s, l) (Lenzen & Wattenhofer, §II-B Definition 2.3): structure, sizes, paper's formulas."""

from collections import Counter
from itertools import product

import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path

from radixnet.gen import ParamError, build, get_family
from radixnet.gen.families.clex import clex_degree, clex_diameter_bound, clex_size
from radixnet.gen.family import MAX_CHANNELS, MAX_ROUTERS, knowledge

SMALL = [(2, 2), (3, 2), (4, 2), (2, 3), (3, 3), (4, 3), (2, 4), (3, 4), (2, 5), (5, 1)]


def _index(label, k):
    """Router of a 1-based paper label (v_1, ..., v_L)."""
    return sum((d - 1) * k ** m for m, d in enumerate(label))


def _definition_edges(k, L):
    """Definition 2.3 read literally, by its recursion on labels (1-based): (src label, dst label, level)."""
    edges = [((a,), (b,), 1) for a in range(1, k + 1) for b in range(1, k + 1) if a != b]  # K_{n^s}
    for l in range(1, L):
        new = []
        for i in range(1, k + 1):
            new += [(u + (i,), w + (i,), lev) for u, w, lev in edges]       # the copies C(s, l)_i
            for v in product(range(1, k + 1), repeat=l):                    # E_{i,l+1}
                for j in range(1, k + 1):
                    new.append((v + (i,), v[:l - 1] + (j, v[l - 1]), l + 1))
        edges = new
    return edges


@pytest.mark.parametrize("k,L", SMALL)
def test_channels_are_definition_2_3(k, L):
    net = build("clex", k=k, levels=L)
    want = Counter((_index(u, k), _index(w, k), lev) for u, w, lev in _definition_edges(k, L))
    got = Counter(zip(net.src.tolist(), net.dst.tolist(), net.tag.tolist()))
    assert got == want


@pytest.mark.parametrize("k,L", SMALL)
@pytest.mark.parametrize("loops", [True, False])
def test_size_matches_build(k, L, loops):
    net = build("clex", k=k, levels=L, loops=loops)
    assert clex_size(k, L, loops) == (net.num_routers, net.num_channels)
    assert get_family("clex").size(net.params) == (net.num_routers, net.num_channels)


@pytest.mark.parametrize("k,L", [(4, 2), (8, 3), (16, 2), (3, 4)])
def test_degree_is_paper_formula(k, L):
    # §II-B: "degrees increase by exactly n^s on each level. Thus, C(s, 1/s) has
    # uniform degrees of n^s/s - 1" with n^s = k, 1/s = L (self-loops counted).
    net = build("clex", k=k, levels=L)
    out_deg = np.bincount(net.src, minlength=net.num_routers)
    in_deg = np.bincount(net.dst, minlength=net.num_routers)
    assert out_deg.min() == out_deg.max() == in_deg.min() == in_deg.max() == clex_degree(k, L) == k * L - 1
    assert np.all(net.radix == net.params["c"] + k * L - 1)
    # per level: k-1 clique channels, then exactly k per higher level
    per_level = np.bincount(net.tag[net.src == 0], minlength=L + 1)[1:]
    assert per_level.tolist() == [k - 1] + [k] * (L - 1)


@pytest.mark.parametrize("k,L", [(4, 2), (8, 3), (16, 2), (3, 4), (2, 5)])
def test_diameter_within_paper_bound(k, L):
    # §II-B: D(K_{n^s}) = 1, D(C(s, l+1)) <= 2 D(C(s, l)) + 1, so D <= 2^l - 1
    # (extraction: "2^s - 1"; §II-C: "2^(1/s) - 1"). BFS over the directed channels.
    net = build("clex", k=k, levels=L)
    d = shortest_path(net.adjacency(), unweighted=True, directed=True)
    assert np.isfinite(d).all()                                      # strongly connected
    diam = int(d.max())
    assert diam <= clex_diameter_bound(L) == 2 ** L - 1
    # Computed: the diameter is exactly L (level 1, 2, ..., L shifts the target in digit by
    # digit), below the paper's recursive bound for L >= 2.
    assert diam == L


def test_level_links_change_the_digits_the_definition_says():
    k, L, c = 4, 4, 2
    net = build("clex", k=k, levels=L, c=c)
    v = net.coords
    assert np.array_equal(v @ (k ** np.arange(L)), np.arange(net.num_routers))
    s, t = v[net.src], v[net.dst]
    for m in range(1, L + 1):
        sel = net.tag == m
        diff = s[sel] != t[sel]
        if m == 1:   # clique: only digit 1 changes, and it does
            assert diff[:, 0].all() and not diff[:, 1:].any()
            x, v1 = t[sel][:, 0], s[sel][:, 0]
            assert np.array_equal(net.src_port[sel] - c, x - (x > v1))
            assert np.array_equal(net.dst_port[sel] - c, v1 - (v1 > x))
            continue
        others = np.ones(L, bool)
        others[[m - 2, m - 1]] = False
        assert not diff[:, others].any()                              # only digits m-1 and m move
        assert np.array_equal(t[sel][:, m - 1], s[sel][:, m - 2])     # new v_m = old v_{m-1}
        base = c + (k - 1) + (m - 2) * k
        assert np.array_equal(net.src_port[sel] - base, t[sel][:, m - 2])  # out port j = new v_{m-1}
        assert np.array_equal(net.dst_port[sel] - base, s[sel][:, m - 1])  # in port = sender's v_m
        # every node reaches all k values of digit m-1 on level m
        per_node = np.bincount(net.src[sel] * k + t[sel][:, m - 2], minlength=net.num_routers * k)
        assert np.all(per_node == 1)
    assert np.array_equal(net.inj_port, np.tile(np.arange(c), net.num_routers))


@pytest.mark.parametrize("k,L", [(3, 4), (4, 3), (2, 5)])
def test_lanes_number_parallel_channels(k, L):
    net = build("clex", k=k, levels=L)
    order = np.lexsort((net.src_port, net.dst, net.src))
    key = (net.src * net.num_routers + net.dst)[order]
    start = np.searchsorted(key, key, side="left")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size) - start
    assert np.array_equal(net.lane, rank)
    assert net.lane.max() >= 1                       # Fig. 1: "redundant links of node (1, 1)"
    # the self-loops, one per level m >= 2 with v_{m-1} = v_m
    loops = net.src == net.dst
    assert loops.sum() == (L - 1) * k ** (L - 1)


def test_without_loops_only_self_loops_vanish():
    k, L = 3, 4
    full, simple = build("clex", k=k, levels=L), build("clex", k=k, levels=L, loops=False)
    assert not np.any(simple.src == simple.dst)
    keep = full.src != full.dst
    for name in ("src", "src_port", "dst", "dst_port", "tag", "lane"):
        assert np.array_equal(getattr(simple, name), getattr(full, name)[keep])
    assert np.array_equal(simple.radix, full.radix)
    same = (simple.coords[:, :-1] == simple.coords[:, 1:]).sum(axis=1)
    assert np.array_equal(simple.network_degree(), k * L - 1 - same)


def test_vertex_classes_are_distance_classes():
    k, L = 3, 3
    net = build("clex", k=k, levels=L, loops=False)
    kn = knowledge(net)
    assert not kn.vertex_transitive
    classes = kn.vertex_classes
    assert sum(w for _, w in classes) == net.num_routers
    d = np.sort(shortest_path(net.adjacency(), unweighted=True, directed=True), axis=1)

    def pattern(row):
        first = {}
        return tuple(first.setdefault(x, len(first)) for x in row)

    pats = [pattern(r) for r in net.coords.tolist()]
    count = Counter(pats)
    for rep, w in classes:
        members = [r for r, p in enumerate(pats) if p == pats[rep]]
        assert len(members) == w == count[pats[rep]]
        assert (d[members] == d[rep]).all()
    # not vertex-transitive: (0,0,0) and (0,1,2) see different distance profiles
    assert not np.array_equal(d[0], d[_index((1, 2, 3), k)])


def test_paper_sizes_without_building():
    fam = get_family("clex")
    for k, L in [(32, 4), (64, 3)]:           # §III-A: C(1/4, 4), n = 32^4; C(1/3, 3), n = 64^3
        p = fam.validate({"n": k ** L, "levels": L})
        assert p["k"] == k
        R, C = fam.size(p)
        assert R == k ** L and C == R * (k * L - 1)
    R, C = fam.size(fam.validate({"k": 64, "levels": 3}))
    assert R <= MAX_ROUTERS and C <= MAX_CHANNELS                    # 64^3 may be built
    R, C = fam.size(fam.validate({"k": 32, "levels": 4}))
    assert R <= MAX_ROUTERS and C > MAX_CHANNELS                     # 32^4: too many channels
    with pytest.raises(ParamError, match="^--k: clex with --k 32 --levels 4 has 1,048,576 routers"):
        build("clex", k=32, levels=4)     # 133,169,152 channels > MAX_CHANNELS


def test_params():
    fam = get_family("clex")
    assert fam.validate({})["k"] == 4 and fam.validate({})["n"] == 16
    with pytest.raises(ParamError, match=r"--n: must be k\^levels.*nearest: 5\^4=625 and 6\^4=1296"):
        fam.validate({"n": 1000, "levels": 4})
    with pytest.raises(ParamError, match="--n: must equal"):
        fam.validate({"n": 81, "k": 4, "levels": 2})
    with pytest.raises(ParamError, match="--k: must be an integer >= 2"):
        fam.validate({"k": 1})
    with pytest.raises(ParamError, match="--levels"):
        fam.validate({"levels": 0})


def test_deterministic():
    assert build("clex", k=3, levels=3).digest() == build("clex", k=3, levels=3).digest()
