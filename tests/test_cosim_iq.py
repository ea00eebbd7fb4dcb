"""Co-simulation under the ``iq`` router model (router-spec §R10): VA | SA | ST | link in the RTL.

The same comparisons as ``tests/test_cosim.py`` -- every packet at the golden
model's terminal and cycle (network level), every flit and credit at the golden
model's port and cycle (router level) -- with golden model and RTL both built
as the pipelined input-queued router: table, greedy adaptive and
sequential-allocator routings, multi-flit packets past saturation, the
smallest buffers (an ejection queue that fills), and the planted faults.

By default: the switch top past saturation, one-flit buffers, router level with ``ugal`` (greedy VA) and
``clos-ad`` (sequential VA), the planted sequential-state fault, and the command line;
``tests/test_cosim_corners.py`` and ``tests/test_cosim_speedup.py`` run the sequential and the greedy VA
whole-network at speedup 2. The other routings, families and buffer depths, and the planted arbiter fault and
``eject_hops``, are in ``make test-slow``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from radixnet.gen import build  # noqa: E402

from helpers.cosim import (
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

IQ = {"router_model": "iq"}


def test_tiny_network_multiflit_past_saturation():
    """AXI4-Stream switch top, 3-flit packets past saturation: wormhole VC holds from VA to the tail's SA."""
    v = run(*TINY, load=0.9, cycles=200, vcs=2, vc_depth=3, packet_length=3, seed=4, **IQ)
    assert_match(v)
    assert v["stall_cycles"] > 50


# B = 2 is slow (16 s, its own build): B = 1 fills the same V * B ejection queue and streams every fourth cycle
@pytest.mark.parametrize("vc_depth", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_smallest_buffers(vc_depth):
    """``V * B <= 2``: the ejection queue (§R2, depth ``V * B``) holds the flits in the ST and output
    registers, so it fills and stops SA; a one-flit buffer streams every fourth cycle (§R10.3)."""
    v = run(*TINY, load=0.9, cycles=300, vcs=1, vc_depth=vc_depth, terminals="flit", **IQ)
    assert_match(v)
    assert v["stall_cycles"] > 500


# slow (240 s, a build per routing): by default the sequential VA runs whole-network in
# tests/test_cosim_corners.py (ugal-s, speedup 2) and one router at a time in test_router_level (clos-ad) below
@pytest.mark.slow
@pytest.mark.parametrize("family, params, routing, kw", SEQUENTIAL_CASES)
def test_sequential_va(family, params, routing, kw):
    """UGAL-S, CLOS AD and the 2DFB's priority flag with the sequential allocator in VA (§R10.1): each
    input decides on the VCs the earlier VA grants took and their outputs' ``q + 1``."""
    v = run(family, params, routing=routing, cycles=150, seed=9, terminals="flit", **kw, **IQ)
    assert_match(v)
    assert v["stall_cycles"] > 100


# slow (93 s): test_cosim.py runs the single-cycle twin by default; test_sequential_va and test_router_level
# keep every adaptive routing co-simulated under iq in the default suite
@pytest.mark.slow
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.integers(0, len(ADAPTIVE_POOL) - 1), load=st.floats(0.8, 1.0), length=st.integers(1, 3),
       seed=st.integers(0, 2**16), pick=st.integers(0, 2))
def test_random_adaptive_configurations(case, load, length, seed, pick):
    """Seeded random configurations of the adaptive routers (greedy and sequential VA) under ``iq``, near
    saturation."""
    family, params, kw = ADAPTIVE_POOL[case]
    patterns = cosim_patterns(family, params)
    v = run(family, params, load=load, cycles=120, packet_length=length, seed=seed,
            traffic=patterns[pick % len(patterns)], terminals="flit", **kw, **IQ)
    assert_match(v, na=RANDOM_NA)


# slow (63 s, its own build): as test_cosim.py's single-cycle twin; make mutate covers the iq VA too
@pytest.mark.slow
def test_sequential_fault_is_caught():
    """``seq_stale_state`` in the sequential VA: decisions on the start-of-cycle state (UGAL-S; with CLOS AD
    this particular run happens to take the same decisions, the router-level run below catches it there)."""
    family, params, routing, kw = SEQUENTIAL_CASES[0]
    v = run(family, params, routing=routing, cycles=150, seed=9, terminals="flit", fault="seq_stale_state",
            **kw, **IQ)
    assert v["mismatches"] > 0


# slow (16 s, its own build): tests/test_cosim.py shows the per-hop catch by default (single-cycle, flit terminals)
@pytest.mark.slow
def test_hop_comparison_catches_what_the_endpoints_miss():
    """``eject_hops`` under ``iq``: the hop counted on ejection is committed in VA and leaves with the SA grant;
    every endpoint matches, every packet's last hop does not (``tests/test_cosim.py`` has the same at
    ``single-cycle``)."""
    v = run(*TINY, load=0.9, cycles=150, vcs=2, vc_depth=3, packet_length=3, seed=4, terminals="flit",
            fault="eject_hops", **IQ)
    assert_eject_hops_caught(v, 100)


# by default ugal (the greedy VA) and clos-ad (the sequential VA); the table routings and the other families are
# slow (12 to 38 s each, a build each): tests/test_cosim.py runs torus dor, butterfly dest-tag and 2dfb-adaptive at
# router level under single-cycle by default (its Slim Fly and TTN routers under make test-slow)
SLOW = pytest.mark.slow


@pytest.mark.parametrize("family, params, routing, kw", [
    pytest.param("slimfly", {"q": 5}, "sp", dict(load=0.6, cycles=300, vcs=2, vc_depth=4, seed=6), marks=SLOW),
    pytest.param("torus", {"dims": [4, 4]}, "dor", dict(load=0.8, cycles=300, vc_depth=2, seed=7), marks=SLOW),
    pytest.param("ttn", {}, "hdor", dict(load=0.1, cycles=400, vc_depth=2, seed=7), marks=SLOW),
    # a first-stage router, whose terminals inject (the busiest router can be a last-stage one: no credits out)
    pytest.param("butterfly", {}, "dest-tag", dict(load=0.5, cycles=300, vc_depth=4, seed=7, router=0), marks=SLOW),
    pytest.param("fbfly", {"k": 4, "n": 2}, "min-ad", dict(load=0.6, cycles=200, vcs=2, vc_depth=4), marks=SLOW),
    ("fbfly", {"k": 2, "n": 3}, "ugal", dict(traffic="complement", load=0.9, cycles=200, vcs=2, vc_depth=2,
                                             ugal_threshold=0)),
    ("fbfly", {"k": 2, "n": 3}, "clos-ad", dict(traffic="complement", load=0.9, cycles=200, vcs=2, vc_depth=2)),
    pytest.param("2dfb", {"k": 4, "n": 1}, "2dfb-adaptive", dict(traffic="2dfb-adversarial", load=0.9, cycles=200,
                                                                 vcs=2, vc_depth=2, threshold=1), marks=SLOW),
])
def test_router_level(family, params, routing, kw):
    """One router, every port driven from the whole network's golden run: flits leave ``sw_alloc_delay +
    st_final_delay`` cycles after their SA grant and credits ``credit_delay`` cycles after it (§R10)."""
    assert_router_match(run_router(family, params, routing=routing, **kw, **IQ), na=TTN_NA if family == "ttn" else None)


def test_router_level_faults_are_caught():
    """CLOS AD's stale sequential VA shows up at router level (the frozen arbiters: the next test)."""
    v = run_router("fbfly", {"k": 2, "n": 3}, routing="clos-ad", traffic="complement", load=0.9, cycles=200,
                   vcs=2, vc_depth=2, fault="seq_stale_state", **IQ)
    assert v["mismatches"] > 0


# slow (two builds of their own): tests/test_cosim.py::test_router_level_fault_is_caught catches the frozen
# output-arbiter pointer at router level by default (single-cycle, the same router, with the fault-free run beside
# it), and test_router_level above holds the fault-free iq router to the golden model
@pytest.mark.slow
def test_router_level_arbiter_faults_are_caught():
    """Frozen output-arbiter pointers (VA and SA) show up at router level; the same router without them matches."""
    v = run_router(*TINY, load=0.6, cycles=200, vcs=1, vc_depth=2, fault="out_arb_fixed", **IQ)
    assert v["mismatches"] > 0
    assert_router_match(run_router(*TINY, load=0.6, cycles=200, vcs=1, vc_depth=2, **IQ))


def test_cli_iq_speedup_1():
    """``radixnet cosim --router-model iq`` runs the pipelined RTL and says so."""
    r = subprocess.run([sys.executable, "-m", "radixnet", "cosim", "--topo", "fbfly", "--k", "2", "--n", "2",
                        "--vcs", "1", "--vc-depth", "2", "--load", "0.6", "--cycles", "150", "--router-model", "iq",
                        "--build-dir", str(CACHE)], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "MATCH" in r.stdout and "router model iq" in r.stdout


def test_pipeline_registers_are_in_the_verilog():
    """The iq router has its named stage registers; the single-cycle router has none of them."""
    from radixnet.hdl.router import Router
    from radixnet.hdl.rtlgen import flat_verilog

    net = build(*TINY[:1], **TINY[1])
    iq = flat_verilog(Router(net, 0, 2, 4, 16, router_model="iq"), "rt")
    sc = flat_verilog(Router(net, 0, 2, 4, 16), "rt")
    for name in ("st_valid_ip", "st_flit_ip_0", "commit_ip_0_ivc_1", "va_granted_ip", "sa_granted_ip"):
        assert name in iq and name not in sc, name
    with pytest.raises(ValueError, match="router_model .* must be one of single-cycle, iq, hiradix, hiradix-local, "
                                         "hiradix-staged, hiradix-decoupled, hiradix-twohead, hiradix-relay, "
                                         "hiradix-relay1, "
                                         "subswitch, got 'deep'"):
        Router(net, 0, 2, 4, 16, router_model="deep")
