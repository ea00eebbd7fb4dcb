"""Routing per topology family (docs/simulation.md): dor, hdor, dest-tag, clos-adaptive, the Slim Fly worst case, and
every (family, routing) pair the CLI offers (docs/router-spec.md §R7d)."""

import io
import json

import numpy as np
import pytest

from radixnet.cli import main
from radixnet.gen import ParamError, build, family_names
from radixnet.gen.families.butterfly import butterfly_route_port, compile_dest_tag
from radixnet.gen.families.clos import check_clos_adaptive, clos_adaptive_dependencies, compile_clos_adaptive
from radixnet.gen.families.torus import compile_dor
from radixnet.gen.families.ttn import compile_hdor, outlets
from radixnet.gen.routing import (
    ROUTINGS,
    DeadlockError,
    accepted_routings,
    channel_dependencies,
    check_deadlock_free,
    compile_dor_table,
    compile_table,
    resolve,
)
from radixnet.golden.sim import SimConfig, Simulator, TraceWriter
from radixnet.golden.traffic import make_pattern

# tests/test_router_model.py imports drain, family_net and routing_pairs from this module too
from helpers.routing import SMALL, drain, family_net, routing_pairs  # noqa: F401
from helpers.ttn import TABLE1, paper_dor_hops  # the routed distances of Fig. 4, computed independently


def traced(cfg, load, cycles):
    sim = Simulator(cfg, trace=True)
    buf = io.StringIO()
    sim.on_ejected = TraceWriter(buf)
    sim.step(cycles, load)
    for _ in range(100):
        sim.step(100)
        if sim.collected == sim.next_seq:
            break
    return sim, [json.loads(x) for x in buf.getvalue().splitlines()]


def walk(net, table, a, b):
    """Channels of the table route from router a to router b."""
    out = net.port_table()["out_channel"]
    chans = []
    while a != b:
        c = int(out[a, table.next_port[a, b]])
        chans.append(c)
        a = int(net.dst[c])
        assert len(chans) <= 4 * net.num_routers
    return chans


# =========================================================== 1. dimension order with datelines
@pytest.mark.parametrize("fam,dims", [("torus", [5, 4]), ("torus", [4, 3, 2]), ("torus", [6]), ("mesh", [4, 3]),
                                      ("mesh", [3, 2, 3])])
def test_dor_is_dimension_order_minimal_with_the_dateline_rule(fam, dims):
    net = build(fam, dims=dims)
    t = compile_dor(net)
    co, k = net.coords, np.array(dims)
    wrap = fam == "torus"
    assert t.classes == (2 if wrap else 1)
    R = net.num_routers
    for a in range(R):
        for b in range(R):
            if a == b:
                continue
            ch = walk(net, t, a, b)
            dimseq = net.tag[ch]
            assert np.all(np.diff(dimseq) >= 0)            # lowest differing dimension first, never back
            off = np.abs(co[a] - co[b])
            assert len(ch) == (np.minimum(off, k - off).sum() if wrap else off.sum())  # minimal
            # class of each hop: 0 while a wrap-around link of the dimension is still ahead on the route
            x = a
            for i, c in enumerate(ch):
                d = net.tag[c]
                ahead = any(is_wrap(net, e, k) for e in ch[i:] if net.tag[e] == d)
                assert t.cls[x, b] == (0 if (wrap and ahead) else (1 if wrap else 0))
                x = net.dst[c]
    if dims == [6] and wrap:   # an offset of exactly k/2 goes +: 4 -> 5 -> 0 -> 1, class 0 up to the wrap
        assert [int(net.dst[c]) for c in walk(net, t, 4, 1)] == [5, 0, 1]
        assert [int(t.cls[x, 1]) for x in (4, 5, 0)] == [0, 0, 1]


def is_wrap(net, c, k):
    """Channel c joins coordinates k-1 and 0 of its dimension (a size-2 ring: the lane-1 channel)."""
    d = net.tag[c]
    if k[d] == 2:
        return net.lane[c] == 1
    return abs(int(net.coords[net.src[c], d]) - int(net.coords[net.dst[c], d])) == k[d] - 1


@pytest.mark.parametrize("fam,kw", [("torus", dict(dims=[5, 4])), ("torus", dict(dims=[4, 4, 3])),
                                    ("torus", dict(dims=[2, 3])), ("mesh", dict(dims=[5, 4])),
                                    ("hypercube", dict(n=5))])
def test_dor_channel_dependency_graph_is_acyclic(fam, kw):
    net = build(fam, **kw)
    t = compile_dor(net)
    assert check_deadlock_free(net, t) > 0
    u, v, _ = channel_dependencies(net, t)
    cu, cv = u // t.classes, v // t.classes
    # dependencies stay in a dimension or move to a higher one (dimension order)
    assert np.all(net.tag[cu] <= net.tag[cv])
    if fam == "torus":
        # within a dimension they never leave class 1 for class 0 (the dateline only goes up)
        same = net.tag[cu] == net.tag[cv]
        assert np.all((u % 2)[same] <= (v % 2)[same])
        if max(kw["dims"]) >= 4:                            # rings with two-hop routes: some do cross it
            assert np.any((u % 2 == 0) & (v % 2 == 1) & same)
    if fam == "hypercube":                    # e-cube: the routes of Kim's DOR kernel (lowest dimension first)
        assert np.array_equal(t.next_port, compile_dor_table(net).next_port)
        assert np.array_equal(t.dist, compile_table(net).dist)


def test_torus_dor_with_one_class_is_refused_naming_a_cycle(capsys):
    net = build("torus", dims=[5, 4])
    with pytest.raises(DeadlockError, match=r"^dor with 1 VC class on torus has a cyclic channel-dependency graph: "
                                            r"\d+->\d+ \(class 0\)( -> \d+->\d+ \(class 0\))+ -> back to the start$"):
        check_deadlock_free(net, compile_dor(net, classes=1))
    assert main(["sim", "--topo", "torus", "--dims", "5,4", "--routing", "dor", "--vc-classes", "1",
                 "--load", "0.1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cyclic channel-dependency graph" in err
    # a mesh has no ring: one class is enough, and is what dor uses
    mesh = build("mesh", dims=[5, 4])
    assert check_deadlock_free(mesh, compile_dor(mesh, classes=1)) > 0


def test_min_on_a_torus_is_dor_and_delivers_along_dimension_order():
    net = build("torus", dims=[4, 4])
    assert resolve("min", net).table == "dor" and resolve("min", build("mesh", dims=[3, 3])).table == "dor"
    assert resolve("min", build("hypercube", n=3)).table is None      # Kim's DOR kernel (e-cube)
    table = compile_dor(net)
    sim, recs = traced(SimConfig(net, routing="min", seed=2, speedup=2), 0.3, 300)
    assert sim.V == 4 and sim.cfg._ncls == 2 and len(recs) > 500
    for rec in recs:
        a, b = net.inj_router[rec["src"]], net.ej_router[rec["dst"]]
        hops = rec["hops"][:-1]
        assert [h[1] for h in hops] == [int(table.next_port[x[0], b]) for x in hops]
        assert len(hops) == table.dist[a, b]
        # VC class of every hop is the table's (two VCs per class: VC // 2)
        assert [h[2] // 2 for h in hops] == [int(table.cls[x[0], b]) for x in hops]


# =========================================================== 2. TTN / TESH hierarchical DOR
@pytest.mark.parametrize("key", [("ttn", 2, 2, 0), ("ttn", 2, 2, 1), ("tesh", 2, 2, 0), ("tesh", 2, 2, 1)])
def test_hdor_hops_are_the_papers_routed_distances(key):
    """Fig. 4's routes: hop counts equal the independently computed routed distances of test_ttn, whose
    diameter and N^2-average are Table 1's."""
    f, m, L, q = key
    net = build(f, m=m, L=L, q=q)
    t = compile_hdor(net)
    k2 = (2 ** m) ** 2
    assert np.array_equal(t.dist[:k2], paper_dor_hops(f, m, L, q))
    _, diameter, avg, *_ = TABLE1[key]
    assert int(t.dist.max()) == diameter
    if q == 0:   # docs/ttn-metrics.md: the q = 0 averages match Table 1 exactly (q = 1 differs by the placement)
        assert round(float(t.dist.mean()), 2) == avg


def test_hdor_routes_go_top_down_y_then_x_through_the_outlets():
    m, L, q, k = 2, 2, 1, 4
    net = build("ttn", m=m, L=L, q=q)
    t = compile_hdor(net)
    outs = {(o.out_node, o.level, o.dim, o.sign) for o in outlets(m, L, q)}
    rng = np.random.default_rng(0)
    co = net.coords
    for a, b in rng.integers(0, net.num_routers, size=(300, 2)):
        if a == b:
            continue
        ch = walk(net, t, a, b)
        hl = [c for c in ch if net.tag[c] >= 2]
        stages = []
        for c in hl:
            s, d = net.src[c], net.dst[c]
            diffcol = int(np.argmax(co[s, :2] != co[d, :2]))       # 0: y2, 1: x2
            stages.append(diffcol)
            node = (int(co[s, 2]), int(co[s, 3]))
            sign = 1 if (co[d, diffcol] - co[s, diffcol]) % k == 1 else -1
            assert (node, 2, "yx"[diffcol], sign) in outs        # leaves its BM at that role's outlet
        assert stages == sorted(stages)                            # y before x
        # the BM part after the last higher-level hop stays in the destination BM
        last = max((i for i, c in enumerate(ch) if net.tag[c] >= 2), default=-1)
        assert all(net.tag[c] == 1 and net.dst[c] // 16 == b // 16 for c in ch[last + 1:])
        if hl:  # before the first higher-level hop the packet stays in its source BM
            first = ch.index(hl[0])
            assert all(net.dst[c] // 16 == a // 16 for c in ch[:first])


def test_hdor_vc_assignment_four_classes_and_theorem1_read_literally_is_cyclic():
    net = build("ttn", m=2, L=2, q=0)
    four = compile_hdor(net)
    assert four.classes == 4 and set(np.unique(four.cls)) == {-1, 0, 1, 2, 3}
    assert check_deadlock_free(net, four) > 0
    assert check_deadlock_free(net, compile_hdor(net, assignment="ranked")) > 0
    # Theorem 1 read literally (BM links VC 0/1 in every phase, higher levels VC 2/3): cyclic
    with pytest.raises(DeadlockError, match="hdor with 4 VC classes on ttn has a cyclic channel-dependency graph"):
        check_deadlock_free(net, compile_hdor(net, assignment="literal"))
    # fewer classes than hdor needs are refused by the CLI with the cycle named
    with pytest.raises(DeadlockError, match="hdor with 2 VC classes"):
        SimConfig(net, routing="hdor", vc_classes=2, speedup=2).validate()
    with pytest.raises(ParamError, match="--routing"):
        compile_hdor(net, assignment="nonsense")


@pytest.mark.parametrize("family", ["ttn", "tesh"])
@pytest.mark.parametrize("m,L,q", [(1, 2, 0), (1, 2, 1), (1, 3, 0), (2, 2, 0), (2, 2, 1), (2, 2, 2)])
def test_hdor_takes_four_classes_on_every_small_ttn_and_tesh(family, m, L, q):
    """Every TTN/TESH of at most 256 routers: the four-class assignment (Theorem 1's count) is acyclic."""
    net = build(family, m=m, L=L, q=q)
    t = compile_hdor(net)
    assert t.classes == 4 and check_deadlock_free(net, t) > 0
    assert np.array_equal(t.cls, compile_hdor(net, assignment="four").cls)


TTN_PATTERNS = ["uniform", "hotspot", "matrix-transpose", "bit-reversal", "complement", "bit-flip", "shuffle"]


@pytest.mark.parametrize("traffic", TTN_PATTERNS)
def test_ttn_delivers_the_papers_seven_patterns_with_hdor(traffic):
    """§5: wormhole, 16-flit packets, 4 VCs, dimension-order routing; the seven patterns of §5.3. A moderate
    load (0.015 flits/node/cycle: the 256-node TTN(2,2,0) saturates near 0.02 under uniform and complement
    traffic, its busiest channels then 60-75% utilised) for 1500 cycles, then drain: every packet arrives,
    each along its table route."""
    net = build("ttn", m=2, L=2, q=0)
    cfg = SimConfig(net, routing="hdor", traffic=traffic, packet_length=16, seed=3, traffic_opts={}, speedup=2).validate()
    assert cfg.vcs == 4 and cfg._table.classes == 4            # Theorem 1: 4 VCs
    assert check_deadlock_free(net, cfg._table) > 0
    sim = Simulator(cfg)
    recs = drain(sim, 0.015, 1500)
    assert sim.collected == sim.next_seq > 250
    assert sim.bcnt.sum() == 0 and sim.oq_cnt.sum() == 0
    src = np.concatenate([r["src"] for r in recs])
    dst = np.concatenate([r["dst"] for r in recs])
    hops = np.concatenate([r["hops"] for r in recs])
    assert np.array_equal(hops, cfg._table.dist[net.inj_router[src], net.ej_router[dst]])
    assert sim.ch_flits.max() > 16 * 20                        # the network carried real traffic
    # wormhole: 16 flits per packet, latency at least hops + 16 (serialisation)
    lat = np.concatenate([r["ejected"] - r["created"] for r in recs])
    assert np.all(lat >= hops + 16)


def test_tesh_and_ttn_q1_deliver_under_overload_with_hdor():
    """Far beyond saturation (10x) the hdor VCs still drain every packet (no deadlock)."""
    for f, q in (("ttn", 0), ("tesh", 0), ("ttn", 1)):
        net = build(f, m=2, L=2, q=q)
        sim = Simulator(SimConfig(net, routing="hdor", traffic="uniform", packet_length=16, seed=1, speedup=2))
        drain(sim, 0.2, 600, limit=600)
        assert sim.collected == sim.next_seq > 1000


@pytest.mark.slow
def test_hdor_on_the_papers_4096_node_networks():
    """TTN(2,3,0) (Fig. 7(a)) and TTN(2,3,1) (Figs. 7(b)-13) both take the four-class assignment (Theorem 1's
    count); Theorem 1 read literally is cyclic there."""
    a = build("ttn", m=2, L=3, q=0)
    ta = compile_hdor(a)
    assert ta.classes == 4 and check_deadlock_free(a, ta) > 0
    b = build("ttn", m=2, L=3, q=1)
    with pytest.raises(DeadlockError):
        check_deadlock_free(b, compile_hdor(b, assignment="literal"))
    tb = compile_hdor(b)
    assert tb.classes == 4 and check_deadlock_free(b, tb) > 0
    sim = Simulator(SimConfig(b, routing="hdor", traffic="uniform", packet_length=16, seed=1, window=100, speedup=2))
    drain(sim, 0.01, 400)
    assert sim.collected == sim.next_seq > 800     # 4,096 nodes x 0.01 / 16 flits x 400 cycles: about 1,000


def test_cli_ttn_hdor_wormhole(capsys):
    assert main(["sim", "--topo", "ttn", "--routing", "hdor", "--packet-length", "16", "--traffic", "complement",
                 "--load", "0.01", "--measure", "400", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["vcs"] == 4 and rep["routing"] == "hdor" and not rep["saturated"]


# =========================================================== 3. butterfly destination-tag
@pytest.mark.parametrize("k,n", [(4, 3), (2, 4), (3, 2)])
def test_dest_tag_takes_the_unique_path(k, n):
    net = build("butterfly", k=k, n=n)
    t = compile_dest_tag(net)
    sp = compile_table(net)
    assert t.classes == 1 and check_deadlock_free(net, t) >= 0
    src_r, dst_r = np.unique(net.inj_router), np.unique(net.ej_router)
    # the unique path: the shortest-path table has no other choice
    assert np.array_equal(t.next_port[np.ix_(src_r, dst_r)], sp.next_port[np.ix_(src_r, dst_r)])
    assert np.all(t.dist[np.ix_(src_r, dst_r)] == n - 1)
    # every hop of the trace leaves stage i on port digit n-1-i of the destination
    _, recs = traced(SimConfig(net, routing="dest-tag", seed=1, speedup=2), 0.3, 200)
    assert len(recs) > 100
    for rec in recs:
        assert [h[1] for h in rec["hops"]] == [int(butterfly_route_port(k, n, i, rec["dst"])) for i in range(n)]


def test_dest_tag_is_refused_off_the_butterfly():
    with pytest.raises(ParamError, match="--routing: dest-tag needs --topo butterfly"):
        SimConfig(build("clos", k=4, n=2), routing="dest-tag", speedup=2).validate()


# =========================================================== 4. adaptive folded Clos
@pytest.fixture(scope="module")
def clos64():
    """The 8-ary 2-level folded Clos: 64 terminals, 8 leaves and 8 spines (radix 16)."""
    return build("clos", k=8, n=2)


def test_clos_adaptive_dependency_graph_covers_every_up_choice_and_is_acyclic(clos64):
    table, up = compile_clos_adaptive(clos64)
    assert table.classes == 1 and (up >= 0).sum(axis=1).tolist() == [8] * 8 + [0] * 8
    u, v, _ = clos_adaptive_dependencies(clos64, table, up)
    # every up channel (any of the 8 spines) leads to the 7 down channels toward the other leaves
    assert u.size == 64 * 7
    assert check_clos_adaptive(clos64, table, up) == u.size


def run(net, routing, traffic, load, **kw):
    return Simulator(SimConfig(net, routing=routing, traffic=traffic, seed=1, **{"speedup": 2, **kw})).run_load(load)


@pytest.mark.parametrize("traffic,opts", [("shift", {"shift": 8}), ("2dfb-random", {})])
def test_clos_adaptive_beats_table_routing_on_permutations(clos64, traffic, opts):
    """Adversarial (every terminal of leaf i to leaf i+1, the 2DFB paper's S_i -> S_(i+1)) and a random
    permutation, at 0.6 flits/terminal/cycle, both with 2 VCs per port."""
    ad = run(clos64, "clos-adaptive", traffic, 0.6, vcs=2, traffic_opts=opts)
    sp = run(clos64, "sp", traffic, 0.6, vcs=2, traffic_opts=opts)
    assert not ad["saturated"] and ad["accepted_throughput"] > 0.59
    assert ad["accepted_throughput"] >= sp["accepted_throughput"]
    if traffic == "shift":   # sp keeps a leaf pair on one up port: 8 terminals share one channel
        assert sp["saturated"] and sp["accepted_throughput"] < 0.13


def test_clos_adaptive_spreads_the_up_phase_and_goes_down_deterministically(clos64):
    cfg = SimConfig(clos64, routing="clos-adaptive", traffic="shift", traffic_opts={"shift": 8}, seed=2, speedup=2)
    _, recs = traced(cfg, 0.5, 300)
    table = cfg._table
    ups = set()
    for rec in recs:
        (leaf, up_port, *_), (spine, down_port, *_), _ = rec["hops"]
        ups.add(up_port)
        assert down_port == table.next_port[spine, clos64.ej_router[rec["dst"]]]
    assert len(ups) == 8                                   # all eight spines used by one leaf pair's traffic


def test_clos_adaptive_vs_2dfb_adaptive_at_n64(clos64, capsys):
    """Thamarakuzhi & Chandy §IV-A: the 8-ary 1-dim 2DFB with its adaptive algorithm "provides the same
    throughput" as the folded Clos with Adaptive Clos. Both carry 0.9 of capacity on the adversarial pattern
    and on a random permutation (the same terminal permutations on both networks). The paper's latency claim
    (2DFB lower "for all the traffic patterns") is reported, and holds for the random permutation."""
    fb = build("2dfb", k=8, n=1)
    rows = {}
    for name, cl_t, cl_o, fb_t in (("adversarial", "shift", {"shift": 8}, "2dfb-adversarial"),
                                   ("random", "2dfb-random", {}, "2dfb-random")):
        # the same permutation on both: terminal t = router*8 + slot on the 2DFB and leaf*8 + slot on the Clos
        assert np.array_equal(make_pattern(cl_t, clos64, seed=1, **cl_o).table,
                              make_pattern(fb_t, fb, seed=1).table)
        for load in (0.3, 0.9):
            c = run(clos64, "clos-adaptive", cl_t, load, traffic_opts=cl_o)
            f = run(fb, "2dfb-adaptive", fb_t, load)
            rows[(name, load)] = (c["accepted_throughput"], c["avg_latency"], f["accepted_throughput"],
                                  f["avg_latency"])
            assert not c["saturated"] and not f["saturated"]
            assert abs(c["accepted_throughput"] - f["accepted_throughput"]) < 0.02
    with capsys.disabled():
        print("\nN = 64: pattern load | clos-adaptive thr lat | 2dfb-adaptive thr lat")
        for (name, load), (ct, cl, ft, fl) in rows.items():
            print(f"  {name:11s} {load:.1f} | {ct:.3f} {cl:6.2f} | {ft:.3f} {fl:6.2f}")
    assert rows[("random", 0.3)][3] < rows[("random", 0.3)][1]   # 1 hop (2DFB) vs 2 hops (Clos)


# =========================================================== 5. Slim Fly worst case
def test_sf_worst_case_puts_2p_minimal_routes_on_channels():
    net = build("slimfly", q=5)
    p = make_pattern("sf-worst-case", net, seed=0)
    T, R = net.num_terminals, net.num_routers
    conc = T // R
    assert np.array_equal(np.sort(p.table), np.arange(T)) and not p.self_traffic
    table = compile_table(net)
    load = np.zeros(net.num_channels)
    for s, d in enumerate(p.table):
        for c in walk(net, table, net.inj_router[s], net.ej_router[d]):
            load[c] += 1
    assert load.max() == 2 * conc
    assert (load == 2 * conc).sum() >= 2 * (R // 4 - 1)      # two centre channels per path of four routers


def test_min_saturates_well_below_ugal_l_on_the_slim_fly_worst_case():
    net = build("slimfly", q=5)
    conc = net.num_terminals // net.num_routers
    bound = 1 / (2 * conc)                                    # 2p flows share a channel under minimal routing
    m = run(net, "min", "sf-worst-case", 2.4 * bound, measure=1000)
    u = run(net, "ugal-l", "sf-worst-case", 2.4 * bound, measure=1000)
    assert m["saturated"] and m["accepted_throughput"] < 1.1 * bound
    assert not u["saturated"] and u["accepted_throughput"] > 2.3 * bound


# =========================================================== 6. every (family, routing) pair
def _cli(family):
    args = ["--topo", family]
    for k, v in SMALL[family].items():
        args += ["--" + k.replace("_", "-"), ",".join(map(str, v)) if isinstance(v, list) else str(v)]
    return args


def test_every_family_has_a_small_instance_and_accepted_routings_match_resolve():
    assert set(SMALL) == set(family_names())
    for fam in family_names():
        net = family_net(fam)
        for r in ROUTINGS:
            try:
                resolve(r, net)
                took = True
            except ParamError:
                took = False
            assert took == (r in accepted_routings(net)), (fam, r)


@pytest.mark.parametrize("family,routing", routing_pairs(True))
def test_every_accepted_pair_is_deadlock_free_and_delivers_everything(family, routing):
    net = family_net(family)
    cfg = SimConfig(net, routing=routing, traffic="uniform", seed=4, vc_depth=4, speedup=2).validate()  # checks the CDG
    kind = resolve(routing, net).table
    if kind == "clos-adaptive":
        assert check_clos_adaptive(net, cfg._table, cfg._up) > 0
    elif kind is None:                        # Kim's routings: DOR inside each class (router-spec §R7a)
        assert check_deadlock_free(net, compile_dor_table(net)) >= 0
    else:
        assert check_deadlock_free(net, cfg._table) >= 0
    sim = Simulator(cfg)
    recs = drain(sim, 0.2, 200)
    assert sim.collected == sim.next_seq > 20
    assert sum(r["seq"].size for r in recs) == sim.next_seq


@pytest.mark.parametrize("family,routing", routing_pairs(False))
def test_every_refused_pair_is_one_line_and_exit_2(family, routing, capsys):
    assert main(["sim", *_cli(family), "--routing", routing, "--load", "0.1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("radixnet: error: --routing:"), err
    assert "Traceback" not in err


def test_single_router_network_takes_every_routing():
    """A k-ary 1-flat is one router, a k-port switch with no channels: every routing it accepts builds its
    tables (there is nothing to route) and delivers the offered load."""
    net = build("fbfly", k=8, n=1)
    assert net.num_routers == 1 and net.num_channels == 0
    names = accepted_routings(net)
    assert {"min", "min-ad", "ugal-s", "clos-ad", "sp", "ugal-l"} <= set(names)
    for name in names:
        r = Simulator(SimConfig(net, routing=name, traffic="uniform", seed=1, speedup=2)).run_load(0.5)
        assert not r["saturated"] and abs(r["accepted_throughput"] - 0.5) < 0.03, name


def test_a_family_compiles_its_own_route_tables():
    """The table routings a family's module compiles (``Family.tables``) are the ones whose ``ROUTINGS`` entry
    names that family, and the shared dispatch (``table_compiler``) finds them there."""
    from radixnet.gen import get_family
    from radixnet.gen.routing import table_compiler

    own = {(f, r) for f in family_names() for r in get_family(f).tables}
    named = {(f, r) for r in ("dor", "hdor", "dest-tag") for f in ROUTINGS[r].families}
    assert own == named
    for f, r in sorted(own):
        fn = table_compiler(r, build(f))
        assert fn is get_family(f).tables[r] and fn.__module__.startswith("radixnet.gen.families.")
