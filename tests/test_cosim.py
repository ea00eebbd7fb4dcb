"""Co-simulation (docs/cosim.md): the generated RTL against the golden model, packet for packet, cycle for cycle.

Each test runs the golden model, replays its packets into the Verilator build of
the switch top (AXI4-Stream terminal ports; one test uses the bare network top
with flit-level terminals) through cocotb, and asserts that every packet is
injected, leaves at the right terminal with its bytes and tuser, and is ejected
on the golden model's cycles.
Verilator builds are cached in ``build/cosim`` (one per distinct design), so
the traffic variations below reuse a handful of builds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from radixnet.gen import build

# tests/test_cosim_iq.py imports these names from this module too
from helpers.cosim import (  # noqa: F401
    ADAPTIVE_POOL,
    CACHE,
    RANDOM_NA,
    ROOT,
    SEQUENTIAL_CASES,
    TINY,
    TTN_NA,
    assert_eject_hops_caught,
    assert_match,
    assert_router_match,
    cosim_patterns,
    run,
    run_router,
)

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")


def test_tiny_network_matches_below_saturation():
    v = run(*TINY, load=0.4, cycles=300, vcs=1, vc_depth=2, seed=1)
    assert_match(v)
    assert v["packets"] > 200


def test_multiflit_packets_above_saturation_exercise_backpressure():
    """Wormhole packets of 3 flits past saturation: full injection buffers (stalls) and deep source queues."""
    v = run(*TINY, load=0.95, cycles=300, vcs=2, vc_depth=3, packet_length=3, seed=2)
    assert_match(v)
    assert v["stall_cycles"] > 100           # injection VCs out of credits: buffers full, backpressure
    assert v["max_source_queue"] > 10        # offered more than the network accepts


# slow (115 s, a build of its own): the one-flit VC buffers' credit loop is co-simulated by default under iq and
# hiradix (their test_smallest_buffers), and the default runs below reach backpressure and contention
@pytest.mark.slow
@pytest.mark.parametrize("traffic", ["worst-case", "complement", "randperm"])
def test_patterns(traffic):
    """The adversarial pattern and two permutations on a 4-router, radix-7 flattened butterfly. One-flit VC
    buffers (``B = 1``): a VC's credit loop is two cycles (§R8a), so a busy link runs its VCs out of credits
    and a one-hop route backs up to the source (with ``B >= 2`` it never did)."""
    v = run("fbfly", {"k": 4, "n": 2}, traffic=traffic, load=0.6, cycles=250, vcs=2, vc_depth=1, seed=3)
    assert_match(v)


# slow (45 s, its own build): dimension order is a one-class route table, as are the table routings
# (sp, dor, dest-tag) of the default runs
@pytest.mark.slow
def test_min_dimension_order_two_dimensions():
    """Kim's `min` (dimension order, §R7) on a 2-dimension flattened butterfly, worst-case traffic, wormhole."""
    v = run("fbfly", {"k": 2, "n": 3}, routing="min", traffic="worst-case", load=0.8, cycles=250, vcs=2,
            vc_depth=2, packet_length=2, seed=5)
    assert_match(v)
    assert v["stall_cycles"] > 0


# slow (110 s, a build per routing): by default the greedy adaptive routings run decided in logic at router level
# (test_router_level_adaptive_routings: ugal; iq and hiradix: ugal) and whole-network under iq with speedup 2
# (tests/test_cosim_speedup.py::test_greedy_va_second_vc: min-ad)
@pytest.mark.slow
@pytest.mark.parametrize("routing, kw", [
    ("min-ad", dict(traffic="uniform", load=0.6, vc_depth=3)),
    ("ugal", dict(traffic="complement", load=0.9, vc_depth=2, ugal_threshold=0)),
    ("val", dict(traffic="uniform", load=0.4, vc_depth=3, packet_length=2)),
])
def test_greedy_adaptive_routings(routing, kw):
    """Kim's greedy adaptive routings (§R7), decided in logic (hdl/route_adaptive.py), on a 2-dimension
    flattened butterfly; the head flits carry the golden model's intermediate router (flit terminals)."""
    v = run("fbfly", {"k": 2, "n": 3}, routing=routing, cycles=200, vcs=2, seed=8, terminals="flit", **kw)
    assert_match(v)
    if routing == "ugal":   # the run must exercise both of UGAL's choices
        from radixnet.cosim.golden_trace import golden_packets
        pk = golden_packets(build("fbfly", k=2, n=3), routing="ugal", cycles=200, vcs=2, seed=8, **kw)
        assert 0.2 < sum(not p["min"] for p in pk) / len(pk) < 0.8


@pytest.mark.slow
def test_min_ad_on_parallel_lanes():
    """min-ad on the 2-dilated flattened butterfly (two lanes per neighbour, §R7 lane choice)."""
    v = run("2dfb", {"k": 4, "n": 1}, routing="min-ad", traffic="2dfb-adversarial", load=0.7, cycles=200, vcs=2,
            vc_depth=3, terminals="flit")
    assert_match(v, idle_ok={"credit_zero_cycles": "min-ad spreads the adversarial load over both lanes and the "
                                                   "next element ejects it at once: no downstream buffer fills"})


# slow (230 s, a build per routing): by default the sequential allocator runs whole-network with ugal-s in
# tests/test_egress.py (stalling sinks) and tests/test_cosim_corners.py (iq, speedup 2), and one router at a time
# below (test_router_level_adaptive_routings: clos-ad, 2dfb-adaptive)
@pytest.mark.slow
@pytest.mark.parametrize("family, params, routing, kw", SEQUENTIAL_CASES)
def test_sequential_allocator_routings(family, params, routing, kw):
    """UGAL-S and CLOS AD (Kim §3.1) and the 2DFB priority-flag algorithm (Thamarakuzhi & Chandy,
    Algorithm 1) with the sequential allocator (§R6) in the router: each input decides on the state the
    inputs served before it left. Past saturation, wormhole packets; the runs take non-minimal routes."""
    from radixnet.cosim.golden_trace import golden_packets
    v = run(family, params, routing=routing, cycles=150, seed=9, terminals="flit", **kw)
    assert_match(v)
    assert v["stall_cycles"] > 100
    net = build(family, **params)
    pk = golden_packets(net, routing=routing, cycles=150, seed=9, **kw)

    def minimal(p):     # HyperX family: the minimal route crosses each differing dimension once
        a, b = net.coords[net.inj_router[p["src"]]], net.coords[net.ej_router[p["dst"]]]
        return len(p["hops"]) - 1 == int((a != b).sum()) if routing == "2dfb-adaptive" else p["min"]
    assert 0.1 < sum(not minimal(p) for p in pk) / len(pk) < 0.9


# slow (48 s, and the builds of the adaptive designs above, all slow): breadth over the fixed configurations
@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.integers(0, len(ADAPTIVE_POOL) - 1), load=st.floats(0.8, 1.0), length=st.integers(1, 3),
       seed=st.integers(0, 2**16), pick=st.integers(0, 2))
@example(case=0, load=1.0, length=1, seed=0, pick=1)   # complement with no output VC out of credits (CI draw)
def test_random_adaptive_configurations(case, load, length, seed, pick):
    """Seeded random configurations of the adaptive routers: routing, allocator, V and B from the designs
    above, with random traffic pattern, packet length and seed, and a load near saturation."""
    family, params, kw = ADAPTIVE_POOL[case]
    patterns = cosim_patterns(family, params)
    traffic = patterns[pick % len(patterns)]
    v = run(family, params, load=load, cycles=120, packet_length=length, seed=seed, traffic=traffic,
            terminals="flit", **kw)
    # complement under an adaptive routing may keep every output VC in credit for 120 cycles (drawn in CI:
    # fbfly k=2 n=3, min-ad, V=2 B=3, L=1, load 1.0: 884 source stalls, 229 full-buffer cycles, no output VC
    # out of credits); the stalls and full buffers are still required, and the fixed configurations above
    # reach credit starvation
    idle = {"credit_zero_cycles": "complement under adaptive routing can leave every output VC in credit"} \
        if traffic == "complement" else None
    assert_match(v, na=RANDOM_NA, idle_ok=idle)


# slow (85 s, its own Verilator build): the default suite catches planted faults with cheaper designs, and
# make mutate kills the sequential allocator's stale-state mutants (seq_stale_credits, seq_stale_holds)
@pytest.mark.slow
def test_sequential_allocator_fault_is_caught():
    """The planted bug ``seq_stale_state``: every input decides on the start-of-cycle state (the greedy
    allocator's view) instead of the state the earlier grants left (§R6 sequential)."""
    family, params, routing, kw = SEQUENTIAL_CASES[1]
    v = run(family, params, routing=routing, cycles=150, seed=9, terminals="flit", fault="seq_stale_state", **kw)
    assert v["mismatches"] > 0


def test_unsupported_routing_is_refused():
    from radixnet.cosim.run import cosim_network
    with pytest.raises(ValueError, match="--routing"):
        cosim_network(build(*TINY[:1], **TINY[1]), routing="ugal-l", build_root=CACHE)
    with pytest.raises(ValueError, match="--terminals"):
        cosim_network(build(*TINY[:1], **TINY[1]), routing="val", build_root=CACHE)


# slow (about 28 s, a build of its own): sp, the routing of the Slim Fly's table, runs at router level by default on the
# 2-router fbfly (test_router_level_fault_is_caught, test_cli_router_level) and larger routers at router level with
# the adaptive routings below (the 2DFB's radix 10); tests/test_hdl_router.py holds a Slim Fly router with both of
# its VC classes to the model cycle by cycle
@pytest.mark.slow
def test_router_level_slimfly_q5():
    """One Slim Fly q = 5 router (radix 11), every port driven from the whole network's golden run."""
    v = run_router("slimfly", {"q": 5}, load=0.6, cycles=300, vcs=2, vc_depth=4, seed=6)
    assert_router_match(v)


TABLE_CLASS_CASES = [
    ("torus", {"dims": [4, 4]}, "dor", dict(load=0.8, cycles=300, vc_depth=2), None),   # dateline classes (§R7d)
    # hierarchical DOR, 4 classes; slow (about 30 s, a build of its own): the torus above reads its VC class from the
    # route table by default (and reaches every bin, which the TTN's cannot)
    pytest.param("ttn", {}, "hdor", dict(load=0.1, cycles=400, vc_depth=2), TTN_NA, marks=pytest.mark.slow),
    # indirect network: a first-stage router, where terminals inject and every output takes credits
    ("butterfly", {}, "dest-tag", dict(load=0.8, cycles=300, vc_depth=2, router=0), None),
]


@pytest.mark.parametrize("family, params, routing, kw, na", TABLE_CLASS_CASES)
def test_router_level_table_class_routings(family, params, routing, kw, na):
    """Routings whose VC class comes from the route table (dateline, hierarchical), and destination tag."""
    v = run_router(family, params, routing=routing, seed=7, **kw)
    assert_router_match(v, na=na)


@pytest.mark.parametrize("family, params, routing, kw", [
    ("fbfly", {"k": 2, "n": 3}, "ugal", dict(traffic="complement", vcs=2, vc_depth=2, ugal_threshold=0)),
    ("fbfly", {"k": 2, "n": 3}, "clos-ad", dict(traffic="complement", vcs=2, vc_depth=2)),
    ("2dfb", {"k": 4, "n": 1}, "2dfb-adaptive", dict(traffic="2dfb-adversarial", vcs=2, vc_depth=2, threshold=1)),
])
def test_router_level_adaptive_routings(family, params, routing, kw):
    """Adaptive routings that rewrite the header at their decisions, one router at a time: each flit arrives
    with the header the golden model's upstream router gave it (§R9 ``headers``)."""
    v = run_router(family, params, routing=routing, load=0.9, cycles=200, **kw)
    assert_router_match(v)


@pytest.mark.slow
def test_router_level_2dfb_64_port_switch():
    """A switching element of the 8-ary 1-dim 2DFB (the 64-port switch; radix 22: 8 terminals, 7
    neighbours x 2 lanes) with the priority-flag algorithm and the sequential allocator. ``T_h = 1`` (the
    command docs/cosim.md shows): with ``T_h = 2`` every queue stayed under the threshold, no packet left the direct
    link, and no output ran out of credits."""
    v = run_router("2dfb", {"k": 8, "n": 1}, routing="2dfb-adaptive", traffic="2dfb-adversarial", load=0.9,
                   cycles=200, vc_depth=2, threshold=1)
    assert_router_match(v)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["single-cycle", "iq"])
@pytest.mark.parametrize("params", [{"k": 64, "n": 1}, {"k": 32, "n": 2}], ids=["radix64", "kim-radix63"])
def test_router_level_high_radix(params, model):
    """High radix (docs/cosim.md "High radix"): the 64-ary 1-flat's router and Kim's radix-63 router of the 32-ary 2-flat
    (32 terminals, 31 neighbours), V = 2, under both router models; each is under 10 MB of Verilog."""
    v = run_router("fbfly", params, load=0.6, cycles=200, vcs=2, vc_depth=4, seed=3, router_model=model)
    one = {"credit_zero_cycles": "the 64-ary 1-flat is one router whose outputs all eject to ideal sinks"}
    assert_router_match(v, idle_ok=one if params["n"] == 1 else None)
    assert v["verilog_bytes"] < 10_000_000


def test_router_level_fault_is_caught():
    """The frozen output-arbiter pointer shows up at router level too (the busiest fbfly router)."""
    v = run_router(*TINY, load=0.6, cycles=200, vcs=1, vc_depth=2, fault="out_arb_fixed")
    assert v["mismatches"] > 0
    # the golden stimulus, timed for the golden router's credits, overruns the faulty router's buffers: its
    # own checks fail, are reported, and the run goes on to its verdict
    assert v["rtl_checks_failed"] > 0 and "InputUnit overflow" in v["rtl_checks"][0]
    ok = run_router(*TINY, load=0.6, cycles=200, vcs=1, vc_depth=2)
    assert_router_match(ok)


def test_router_level_refuses_multiflit():
    from radixnet.cosim.router_level import cosim_router
    with pytest.raises(ValueError, match="--packet-length"):
        cosim_router(build(*TINY[:1], **TINY[1]), packet_length=2, build_root=CACHE)


def test_flit_level_network_top():
    """The bare network top (flit-level terminals), multi-flit packets at saturation."""
    v = run(*TINY, load=0.9, cycles=200, vcs=2, vc_depth=3, packet_length=3, seed=4, terminals="flit")
    assert_match(v)
    assert v["stall_cycles"] > 50


def test_min_on_parallel_lanes_is_decided_in_logic():
    """``min``, every tool's default routing, on the 2DFB's parallel lanes (router-spec §R7): the router decides
    it in logic (the dimension-order neighbour's lighter lane, no route table), the network matches the golden
    model hop for hop, and both lanes of some neighbour carry packets."""
    from radixnet.cosim.golden_trace import golden_packets
    from radixnet.gen.routing import DEFAULT_ROUTING, compile_hyperx
    from radixnet.hdl.router import decided_in_logic

    params = {"k": 4, "n": 1}
    v = run("2dfb", params, load=0.8, cycles=150, vcs=2, vc_depth=2, seed=3)
    assert_match(v)
    net = build("2dfb", **params)
    assert decided_in_logic(DEFAULT_ROUTING, net) and not decided_in_logic(DEFAULT_ROUTING, build(*TINY[:1], **TINY[1]))
    lanes = compile_hyperx(net).port_lanes
    lane_of = {(r, int(o)): ln for r in range(net.num_routers) for ln in range(lanes.shape[3])
               for o in lanes[r, ..., ln].ravel() if o >= 0}
    used = {lane_of[(h[0], h[1])] for p in golden_packets(net, load=0.8, cycles=150, vcs=2, vc_depth=2, seed=3)
            for h in p["hops"] if (h[0], h[1]) in lane_of}
    assert used == {0, 1}


def test_batch_mode():
    v = run(*TINY, batch=20, vcs=2, vc_depth=3, packet_length=2)
    assert_match(v)
    assert v["packets"] == 4 * 20


# slow (37 s, its own build): tests/test_egress.py co-simulates AXI sinks dropping tready at random by default
@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(load=st.floats(0.7, 1.0), length=st.integers(1, 4), seed=st.integers(0, 2**16),
       traffic=st.sampled_from(["uniform", "complement", "randperm"]), stall=st.floats(0.5, 0.7))
def test_random_traffic(load, length, seed, traffic, stall):
    """Seeded random traffic, packet lengths and loads on one build (V = 2, B = 3, 2-beat egress FIFOs), the
    AXI sinks dropping ``tready`` at random (§R3a): a sink takes at most ``1 - stall < load`` flits a cycle, so
    even a permutation that the network carries without contention backs up into it."""
    v = run(*TINY, load=load, cycles=120, vcs=2, vc_depth=3, packet_length=length, seed=seed, traffic=traffic,
            egress_depth=2, sink_stall=stall)
    assert_match(v, na=RANDOM_NA)


def test_injected_fault_is_caught():
    """Output arbiters with frozen pointers (fixed priority instead of §R6 round robin) must not pass."""
    from radixnet.cosim.run import describe_mismatch
    v = run(*TINY, load=0.5, cycles=150, vcs=1, vc_depth=2, fault="out_arb_fixed")
    assert v["mismatches"] > 0
    text = describe_mismatch(v["first"][0])
    assert "golden path" in text and "diverged by cycle" in text


# the AXI4-Stream terminals are slow (20 s, their own build): the flit-level run shows the same per-hop catch
@pytest.mark.parametrize("terminals", ["flit", pytest.param("axis", marks=pytest.mark.slow)])
def test_hop_comparison_catches_what_the_endpoints_miss(terminals):
    """The planted ``eject_hops``: routers that count a hop on ejection too (against §R8a). Every packet still
    enters, leaves at its terminal and is ejected on the golden cycles with its bytes -- the endpoint comparison
    passes -- but every packet's last hop leaves with ``hops`` one too many, and the per-hop comparison names
    that hop (with AXI4-Stream terminals the egress's ``m_route`` carries it too)."""
    from radixnet.cosim.run import describe_mismatch
    v = run(*TINY, load=0.9, cycles=150, vcs=2, vc_depth=3, packet_length=3, seed=4, terminals=terminals,
            fault="eject_hops")
    assert v["stray_flits"] == 0 and v["error"] == 0
    m = assert_eject_hops_caught(v, 100)
    assert "first differing hop" in describe_mismatch(m)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "radixnet", "cosim", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=900)


def test_cli_match_and_json():
    r = _cli("--topo", "fbfly", "--k", "2", "--n", "2", "--vcs", "1", "--vc-depth", "2", "--load", "0.4",
             "--cycles", "100", "--build-dir", str(CACHE), "--json")
    assert r.returncode == 0, r.stderr[-2000:]
    verdict = json.loads(r.stdout.strip().splitlines()[-1])
    assert verdict["mismatches"] == 0 and verdict["packets"] > 50


def test_cli_vacuous_run_is_refused():
    """A run that never exercised backpressure (a trickle of packets through deep buffers) exits 3 with one
    line naming the zero counters; ``--allow-idle`` accepts it."""
    args = ["--topo", "fbfly", "--k", "2", "--n", "2", "--vcs", "1", "--vc-depth", "2", "--load", "0.05",
            "--cycles", "60", "--build-dir", str(CACHE)]
    r = _cli(*args)
    assert r.returncode == 3, r.stdout[-2000:] + r.stderr[-2000:]
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and "vacuous run" in err[0] and "stall_cycles = 0" in err[0] and "--allow-idle" in err[0]
    assert "MATCH" in r.stdout and "backpressure: source-queue stalls 0" in r.stdout
    r = _cli(*args, "--allow-idle")
    assert r.returncode == 0 and not r.stderr.strip()


def test_cli_fault_exit_status_1():
    r = _cli("--topo", "fbfly", "--k", "2", "--n", "2", "--vcs", "1", "--vc-depth", "2", "--load", "0.5",
             "--cycles", "150", "--build-dir", str(CACHE), "--fault", "out_arb_fixed")
    assert r.returncode == 1
    assert "MISMATCH" in r.stdout and "golden path" in r.stdout


@pytest.mark.parametrize("args, needle", [
    (["--sim", "ghdl"], "--sim"),
    (["--speedup", "3"], "--speedup"),
    (["--fault", "nope"], "--fault"),
    (["--terminals", "pcie"], "--terminals"),
    (["--data-width", "20"], "--data-width"),
    (["--router", "7"], "--router"),
    (["--load", "1.5"], "--load"),
    (["--topo", "nope"], "--topo"),
    (["--router-model", "iq", "--routing", "ugal-s", "--seq-wavefront", "1"], "--seq-wavefront"),
    (["--router-model", "hiradix", "--routing", "ugal-s", "--seq-wavefront", "-1"], "--seq-wavefront"),
])
def test_cli_bad_input(args, needle):
    r = _cli("--topo", "fbfly", "--k", "2", "--n", "2", *args)
    assert r.returncode == 2
    assert needle in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_cli_router_level():
    r = _cli("--topo", "fbfly", "--k", "2", "--n", "2", "--vcs", "1", "--vc-depth", "2", "--load", "0.6",
             "--cycles", "200", "--build-dir", str(CACHE), "--router", "-1")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "MATCH" in r.stdout and "traversals of router" in r.stdout


@pytest.mark.slow
def test_torus_network_dateline_dor():
    """A 4 x 4 torus (16 routers), dimension order with dateline classes, whole network with AXI4-Stream
    ports, 2-flit packets."""
    v = run("torus", {"dims": [4, 4]}, routing="dor", load=0.7, cycles=300, vc_depth=2, packet_length=2)
    assert_match(v)


@pytest.mark.slow
def test_radix_32_switch():
    """A 32-port switch (the 32-ary 1-flat: one router of radix 32) behind AXI4-Stream ports, uniform
    traffic past saturation. The Verilator build takes about 12 minutes here."""
    v = run("fbfly", {"k": 32, "n": 1}, load=0.7, cycles=150, vcs=2, vc_depth=2, seed=11)
    assert_match(v, idle_ok={"credit_zero_cycles": "one router: every output ejects to an ideal sink"})
    assert v["packets"] > 3000 and v["stall_cycles"] > 500
