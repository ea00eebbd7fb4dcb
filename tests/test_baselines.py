"""Baseline families: butterfly, folded Clos / fat tree, dragonfly, graph file.

Numbers from the papers are compared against values computed by the code:
Kim, Dally, Abts (ISCA 2007) §3.3 (1024-node butterfly of 2 stages of radix-32
routers, 3-stage folded Clos of radix-64 routers) and §4.3 (1K folded Clos:
2048 links; flattened butterfly 31 x 32 = 992 links); Kim, Dally, Scott, Abts
(ISCA 2008) §3.1 (balanced dragonfly a = 2p = 2h, g = ah + 1).
"""

import itertools

import networkx as nx
import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path

from radixnet.gen import ParamError, build, get_family
from radixnet.gen.families.butterfly import butterfly_route_port
from radixnet.gen.families.dragonfly import group_multiplicity
from radixnet.gen.families.graphfile import read_graph, write_edgelist
from radixnet.gen.family import knowledge


def _dist(net):
    return shortest_path(net.adjacency(), unweighted=True, directed=True)


def _size_matches(family, **kw):
    net = build(family, **kw)
    fam = get_family(family)
    assert fam.size(fam.validate(kw)) == (net.num_routers, net.num_channels)
    assert build(family, **kw).digest() == net.digest()          # deterministic
    return net


def _min_bisection_bruteforce(net):
    """Min over terminal-balanced router partitions of channels crossing A -> B."""
    R = net.num_routers
    masks = ((np.arange(2 ** R)[:, None] >> np.arange(R)) & 1).astype(bool)
    tpr = net.terminals_per_router()
    balanced = masks[(masks @ tpr) * 2 == net.num_terminals]
    cut = (balanced[:, net.src] & ~balanced[:, net.dst]).sum(axis=1)
    return int(cut.min())


# ------------------------------------------------------------------ butterfly
def _tag_route(net, k, n):
    """Destination-tag walk for every (source, destination) pair: final (router, port)."""
    N = net.num_terminals
    s, d = np.meshgrid(np.arange(N), np.arange(N), indexing="ij")
    s, d = s.ravel(), d.ravel()
    pt = net.port_table()
    r = net.inj_router[s]
    hops = np.zeros(s.size, np.int64)
    for stage in range(n - 1):
        ch = pt["out_channel"][r, butterfly_route_port(k, n, stage, d)]
        assert np.all(ch >= 0) and np.all(net.tag[ch] == stage)
        r = net.dst[ch]
        hops += 1
    port = butterfly_route_port(k, n, n - 1, d)
    assert np.array_equal(pt["out_terminal"][r, port], d)
    return hops


@pytest.mark.parametrize("k,n", [(32, 2), (2, 3), (3, 4), (4, 3)])
def test_butterfly_destination_tag_reaches_every_terminal(k, n):
    net = _size_matches("butterfly", k=k, n=n)
    assert net.num_routers == n * k ** (n - 1)
    assert net.num_terminals == k ** n
    assert np.all(net.radix == k)
    assert not net.is_direct and not net.is_bidirectional
    hops = _tag_route(net, k, n)
    assert np.all(hops == n - 1)


def test_kim_1k_butterfly_unique_paths():
    """Kim §3.3: 1024 nodes, 2 stages of radix-32 routers; exactly one path per pair."""
    net = build("butterfly", k=32, n=2)
    assert (net.num_routers, net.num_terminals) == (64, 1024)
    A = net.adjacency().toarray()
    # the router graph is a DAG from stage 0 to stage n-1, so every path from an
    # injection router to an ejection router has n-1 channels; count them
    paths = np.linalg.matrix_power(A, 2 - 1)             # A^(n-1)
    counts = paths[np.ix_(net.inj_router, net.ej_router)]
    assert np.all(counts == 1)
    assert np.all(A[32:, :] == 0)                        # no reverse channels


def test_butterfly_2ary_3fly_path_uniqueness_networkx():
    net = build("butterfly", k=2, n=3)
    g = nx.DiGraph(net.to_networkx())
    for s, d in itertools.product(sorted(set(net.inj_router.tolist())), sorted(set(net.ej_router.tolist()))):
        paths = list(nx.all_simple_paths(g, s, d))
        assert len(paths) == 1 and len(paths[0]) == 3   # n-1 = 2 inter-router channels


def test_butterfly_ports_and_tags():
    k, n = 3, 3
    net = build("butterfly", k=k, n=n)
    K = k ** (n - 1)
    pt = net.port_table()
    stage = net.coords[:, 0]
    # every input port carries exactly one of (injection, channel), same for outputs
    assert np.all((pt["in_channel"] >= 0) != (pt["in_terminal"] >= 0))
    assert np.all((pt["out_channel"] >= 0) != (pt["out_terminal"] >= 0))
    assert np.all((pt["in_terminal"] >= 0) == (stage == 0)[:, None])
    assert np.all((pt["out_terminal"] >= 0) == (stage == n - 1)[:, None])
    assert np.array_equal(net.tag, stage[net.src])
    assert np.array_equal(stage[net.dst], stage[net.src] + 1)
    # same port number for injection input and ejection output of one terminal
    assert np.array_equal(net.inj_port, net.ej_port)
    assert np.array_equal(net.ej_router - net.inj_router, np.full(k ** n, (n - 1) * K))


@pytest.mark.parametrize("k,n", [(4, 2), (2, 4), (3, 3)])
def test_butterfly_flattens_to_flattened_butterfly(k, n):
    """Kim §2.1/Fig. 1: merging each row's routers and dropping row-local channels gives the k-ary n-flat."""
    fly = build("butterfly", k=k, n=n)
    flat = build("fbfly", k=k, n=n)
    row = fly.coords[:, 1]
    R = k ** (n - 1)
    a = np.zeros((R, R), bool)
    keep = row[fly.src] != row[fly.dst]
    a[row[fly.src][keep], row[fly.dst][keep]] = True
    a |= a.T
    assert np.array_equal(a, flat.adjacency().toarray() > 0)


# ----------------------------------------------------------------------- clos
def test_kim_1k_folded_clos_vs_flattened_butterfly():
    """Kim §3.3/§4.3: 3-stage folded Clos of radix-64 routers, 1K nodes: 2048 links vs 31 x 32 = 992."""
    clos = _size_matches("clos", radix=64, levels=2, terminals=1024)
    assert build("clos").same_structure(clos)                  # the family's default
    flat = build("fbfly", k=32, n=2)
    assert clos.num_terminals == flat.num_terminals == 1024
    assert clos.num_routers == 48
    assert clos.num_channels == 2048
    assert flat.num_channels == 31 * 32
    level = clos.coords[:, 0]
    leaves, spines = np.flatnonzero(level == 0), np.flatnonzero(level == 1)
    assert (leaves.size, spines.size) == (32, 16)
    assert np.all(clos.radix == 64)
    assert np.all(clos.terminals_per_router()[leaves] == 32)
    assert np.all(clos.network_degree()[leaves] == 32)
    assert np.all(clos.network_degree()[spines] == 64)
    A = clos.adjacency().toarray()
    assert np.all(A[np.ix_(leaves, spines)] == 2)        # two lanes per leaf-spine pair
    assert clos.is_bidirectional
    D = _dist(clos)[np.ix_(leaves, leaves)]
    assert D.max() == 2
    kn = knowledge(clos)
    index = clos.coords[:, 1]
    side = ((level == 0) & (index < 16)) | ((level == 1) & (index < 8))   # half the pods, half the spines
    pod_cut = int(np.count_nonzero(side[clos.src] & ~side[clos.dst]))
    assert kn.bisection_width == pod_cut == 512 and kn.bisection_exact


def test_kary_ntree_4_3():
    k, n = 4, 3
    net = _size_matches("clos", k=k, n=n)
    assert net.num_routers == n * k ** (n - 1)
    assert net.num_terminals == k ** n
    assert np.all(net.radix == 2 * k)
    level, row = net.coords[:, 0], net.coords[:, 1]
    deg = net.network_degree() + net.terminals_per_router()
    assert np.all(deg[level < n - 1] == 2 * k) and np.all(deg[level == n - 1] == k)
    # Petrini & Vanneschi: <w, l> ~ <w', l+1> iff the rows agree except in digit l
    digits = (row[:, None] // k ** np.arange(n - 1)) % k
    for c in range(net.num_channels):
        s, d = net.src[c], net.dst[c]
        lo = min(level[s], level[d])
        assert abs(level[s] - level[d]) == 1 and net.tag[c] == lo
        diff = np.flatnonzero(digits[s] != digits[d])
        assert set(diff.tolist()) <= {lo}
    # terminal-to-terminal diameter 2n = 2(n-1) inter-router channels + 2 terminal links
    leaves = np.flatnonzero(level == 0)
    assert _dist(net)[np.ix_(leaves, leaves)].max() + 2 == 2 * n


def test_folded_clos_max_default_and_ports():
    net = _size_matches("clos", radix=8, levels=3)
    m = 4
    assert net.params["terminals"] == net.num_terminals == 2 * m ** 3
    assert net.num_routers == 2 * (2 * m ** 2) + m ** 2
    assert np.all(net.network_degree() + net.terminals_per_router() == 8)   # every port used
    assert net.is_bidirectional
    pt = net.port_table()
    up = net.coords[net.src, 0] < net.coords[net.dst, 0]
    # up channels leave on ports m..2m-1, down channels arrive there
    assert np.all(net.src_port[up] >= m) and np.all(net.dst_port[~up] >= m)
    assert np.all(net.dst_port[up][net.coords[net.dst[up], 0] < 2] < m)
    leaves = np.flatnonzero(net.coords[:, 0] == 0)
    assert _dist(net)[np.ix_(leaves, leaves)].max() == 4
    assert np.all(pt["in_terminal"][leaves, :m] >= 0)


@pytest.mark.parametrize("kw", [dict(radix=4, levels=2), dict(k=2, n=3), dict(radix=8, levels=2, terminals=16)])
def test_clos_bisection_exact_small(kw):
    net = build("clos", **kw)
    kn = knowledge(net)
    assert kn.bisection_exact
    assert _min_bisection_bruteforce(net) == kn.bisection_width == net.num_terminals // 2


@pytest.mark.parametrize("kw,name", [
    (dict(radix=64, levels=2, terminals=1000), "terminals"),
    (dict(radix=64, levels=2, terminals=96 * 32), "terminals"),
    (dict(radix=63, levels=2), "radix"),
    (dict(k=4, n=3, radix=8), "k"),
    (dict(k=4, n=3, terminals=60), "terminals"),
    (dict(k=4), "n"),
    (dict(radix=64), "levels"),
])
def test_clos_refusals(kw, name):
    with pytest.raises(ParamError) as e:
        build("clos", **kw)
    assert str(e.value).startswith(f"--{name}:")


def test_clos_n_below_max_three_levels():
    # L = 3, radix 8: pods of 16 terminals; 4 pods -> N = 64
    net = _size_matches("clos", radix=8, levels=3, terminals=64)
    assert net.num_terminals == 64
    top = net.coords[:, 0] == 2
    assert np.all(net.network_degree()[top] == 8)
    assert knowledge(net).bisection_width == 32


# ------------------------------------------------------------------ dragonfly
def _group_links(net):
    grp = net.coords[:, 0]
    g = int(grp.max()) + 1
    glob = net.tag == 1
    M = np.zeros((g, g), np.int64)
    np.add.at(M, (grp[net.src[glob]], grp[net.dst[glob]]), 1)
    return M


def test_dragonfly_balanced_p2():
    net = _size_matches("dragonfly", p=2)
    p = net.params
    assert (p["a"], p["h"], p["g"]) == (4, 2, 9)          # a = 2p = 2h, g = ah + 1
    assert net.num_routers == p["a"] * p["g"] == 36
    assert net.num_terminals == p["p"] * p["a"] * p["g"] == 72
    assert np.all(net.radix == p["p"] + p["a"] - 1 + p["h"])
    M = _group_links(net)
    assert np.array_equal(M, 1 - np.eye(9, dtype=np.int64))   # one global link per group pair
    grp = net.coords[:, 0]
    loc = net.tag == 0
    assert np.all(grp[net.src[loc]] == grp[net.dst[loc]]) and np.all(grp[net.src[~loc]] != grp[net.dst[~loc]])
    A = net.adjacency().toarray()
    for G in range(9):                                   # complete graph per group
        blk = A[G * 4:(G + 1) * 4, G * 4:(G + 1) * 4]
        assert np.array_equal(blk, 1 - np.eye(4, dtype=np.int64))
    assert _dist(net).max() == 3
    assert net.is_bidirectional


def test_dragonfly_absolute_arrangement():
    net = build("dragonfly", p=2)
    a, h, P = 4, 2, 2
    glob = net.tag == 1
    G, i = net.coords[net.src[glob], 0], net.coords[net.src[glob], 1]
    j = i * h + (net.src_port[glob] - P - (a - 1))
    H = net.coords[net.dst[glob], 0]
    assert np.array_equal(H, np.where(j < G, j, j + 1))


@pytest.mark.parametrize("g", [2, 4, 5, 6, 7, 8])
def test_dragonfly_fewer_groups_spread_evenly(g):
    net = _size_matches("dragonfly", p=2, g=g)
    M = _group_links(net)
    off = M[~np.eye(g, dtype=bool)]
    assert off.max() - off.min() <= 1
    assert np.all(M.sum(axis=1) == 8) and np.array_equal(M, M.T)
    assert np.array_equal(M, group_multiplicity(g, 8))
    assert np.all(net.network_degree() == 3 + 2)          # every local and global port used
    assert net.is_bidirectional                           # lanes of parallel links match both ways
    assert _dist(net).max() <= 3


@pytest.mark.parametrize("kw", [dict(p=2, g=10), dict(p=1, a=3, h=1, g=3), dict(p=2, g=1)])
def test_dragonfly_refusals(kw):
    with pytest.raises(ParamError) as e:
        build("dragonfly", **kw)
    assert str(e.value).startswith("--g:")


def test_dragonfly_bisection_bound():
    net = build("dragonfly", p=1, a=2, h=1, g=3)           # 6 routers: brute force
    kn = knowledge(net)
    assert not kn.bisection_exact
    assert kn.bisection_width >= _min_bisection_bruteforce(net)
    big = build("dragonfly", p=2, g=8)
    side = big.coords[:, 0] < 4
    assert knowledge(big).bisection_width == int(np.count_nonzero(side[big.src] & ~side[big.dst]))


# ----------------------------------------------------------------------- file
def test_file_roundtrip_fbfly(tmp_path):
    flat = build("fbfly", k=4, n=3)
    f = tmp_path / "flat.txt"
    write_edgelist(flat, str(f))
    net = _size_matches("file", path=str(f), c=4)
    assert net.num_terminals == flat.num_terminals
    assert (net.adjacency() != flat.adjacency()).nnz == 0
    assert np.array_equal(net.coords[:, 0], np.arange(flat.num_routers))
    assert np.array_equal(net.network_degree(), flat.network_degree())
    assert net.is_bidirectional and np.all(net.tag == -1)


def test_file_edgelist_labels_lanes_and_extra_columns(tmp_path):
    g = nx.MultiGraph()
    g.add_edges_from([(30, 10), (10, 20), (20, 30), (10, 30), (40, 30)])
    f = tmp_path / "g.edges"
    nx.write_edgelist(g, str(f))                         # writes "u v {}"
    net = build("file", path=str(f), c=2)
    assert net.coords[:, 0].tolist() == [10, 20, 30, 40]
    A = net.adjacency().toarray()
    assert A[0, 2] == A[2, 0] == 2                        # repeated edge -> two lanes
    assert sorted(net.lane[(net.src == 0) & (net.dst == 2)].tolist()) == [0, 1]
    assert A[3].sum() == 1 and net.num_channels == 10
    # ports ordered by neighbour index: router 2 (label 30) faces 0, 0, 1, 3
    out = net.src == 2
    assert net.dst[out][np.argsort(net.src_port[out])].tolist() == [0, 0, 1, 3]
    assert np.all(net.src_port >= 2)                      # after the two terminal ports


def test_file_graphml(tmp_path):
    g = nx.petersen_graph()
    f = tmp_path / "petersen.graphml"
    nx.write_graphml(g, str(f))
    net = build("file", path=str(f))
    ref = nx.to_numpy_array(g, nodelist=sorted(g.nodes))
    assert np.array_equal(net.adjacency().toarray(), ref)
    h = nx.relabel_nodes(nx.cycle_graph(4), {0: "d", 1: "b", 2: "a", 3: "c"})
    f2 = tmp_path / "named.GraphML"
    nx.write_graphml(h, str(f2))
    net2 = build("file", path=str(f2))
    assert net2.coords is None
    assert read_graph(str(f2)).labels.tolist() == ["a", "b", "c", "d"]
    # d-b, b-a, a-c, c-d  ->  3-1, 1-0, 0-2, 2-3
    assert sorted(map(tuple, np.stack([net2.src, net2.dst], 1)[net2.src < net2.dst].tolist())) == \
        [(0, 1), (0, 2), (1, 3), (2, 3)]


@pytest.mark.parametrize("content,fmt,needle", [
    (None, "auto", "cannot read"),
    ("0 1\n1 2\n7\n", "auto", "line 3"),
    ("# nothing\n\n", "auto", "empty"),
    ("0 1\n2 3\n", "auto", "disconnected"),
    ("0 1\n1 1\n", "auto", "line 2: self-loop"),
    ("<graphml><oops>", "graphml", "GraphML"),
])
def test_file_errors(tmp_path, content, fmt, needle):
    f = tmp_path / "bad.txt"
    if content is not None:
        f.write_text(content)
    with pytest.raises(ParamError) as e:
        build("file", path=str(f), format=fmt)
    assert str(e.value).startswith("--path:") and needle in str(e.value)


def test_file_directed_graphml_edges_are_channels(tmp_path):
    f = tmp_path / "d.graphml"
    nx.write_graphml(nx.DiGraph([(0, 1), (1, 0), (1, 2)]), str(f))  # a link 0-1 and a channel 1 -> 2
    net = build("file", path=str(f))
    assert sorted(zip(net.src.tolist(), net.dst.tolist())) == [(0, 1), (1, 0), (1, 2)]
    rev = net.channel_reverse()
    assert rev[(net.src == 1) & (net.dst == 2)].tolist() == [-1] and not net.is_bidirectional
    out = (net.src == 1) & (net.dst == 0)
    assert net.src_port[out] == net.dst_port[rev[out]]  # the link's two channels face each other


def test_file_write_refuses_unidirectional(tmp_path):
    with pytest.raises(ValueError):
        write_edgelist(build("butterfly", k=2, n=2), str(tmp_path / "x.txt"))


def test_file_reparse_after_change(tmp_path):
    f = tmp_path / "g.txt"
    f.write_text("0 1\n")
    assert build("file", path=str(f)).num_routers == 2
    f.write_text("0 1\n1 2\n2 0\n")
    assert build("file", path=str(f)).num_routers == 3
    assert build("file", path=str(f)).num_channels == 6
