"""Co-simulation with speedup 2 (router-spec §R1, §R2, §R6, §R8b): two grants per input and per output.

With ``S = 2`` an input may send two flits a cycle (from two VCs) and an output
accept two; the link still carries one, so the rest wait in the output's §R2
queue (``hdl/output_queue.py``). Every run below compares every packet (network
level) or every flit and credit (router level) with the golden model built the
same way, under both router models. Each configuration is chosen so that the
golden run itself grants some output twice in a cycle and queues flits
(checked, so a run that stopped exercising speedup 2 would fail, not pass
vacuously).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from radixnet.gen import build

from helpers.cosim import (
    ADAPTIVE_POOL,
    CACHE,
    RANDOM_NA,
    ROOT,
    SEQUENTIAL_CASES,
    TINY,
    assert_match,
    assert_router_match,
    cosim_patterns,
    run,
    run_router,
)

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")

MODELS = ["single-cycle", "iq"]


def exercised(family, params, *, router_model, **kw):
    """(outputs granted twice in one cycle, heads that waited in an output queue) in the golden run."""
    from radixnet.cosim.golden_trace import golden_packets
    from radixnet.gen.router_model import get_router_model

    kw = {k: v for k, v in kw.items() if k not in ("terminals", "fault")}
    pk = golden_packets(build(family, **params), router_model=router_model, **kw)
    d = get_router_model(router_model).traversal_delay()
    twice = sum(1 for n in Counter((h[0], h[1], h[3]) for p in pk for h in p["hops"]).values() if n > 1)
    queued = sum(1 for p in pk for h, s in zip(p["hops"], p["sent"]) if s > h[3] + d)
    return twice, queued


# slow (87 s, its own build on a fresh machine): docs/rtl.md's iq speedup-2 command as typed; by default
# test_greedy_va_second_vc co-simulates a network under iq with speedup 2, tests/test_cosim_iq.py's
# test_cli_iq_speedup_1 the cosim command under iq
@pytest.mark.slow
def test_cli_done_when_iq_speedup_2():
    """The command docs/rtl.md shows for the iq router at speedup 2:
    ``radixnet cosim --topo fbfly --k 4 --n 2 --router-model iq --speedup 2 --load 0.6``."""
    r = subprocess.run([sys.executable, "-m", "radixnet", "cosim", "--topo", "fbfly", "--k", "4", "--n", "2",
                        "--router-model", "iq", "--speedup", "2", "--load", "0.6", "--build-dir", str(CACHE)],
                       capture_output=True, text=True, cwd=ROOT, timeout=1200)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    m = re.search(r"MATCH: (\d+) of \1 packets", r.stdout)
    assert m and int(m[1]) > 1500 and "S=2, router model iq" in r.stdout   # 16 terminals x 0.6 x 200 cycles
    from radixnet.cosim_cli import DEFAULT_VC_DEPTH
    assert "every hop compared" in r.stdout and "missed bins" not in r.stdout
    twice, queued = exercised("fbfly", {"k": 4, "n": 2}, router_model="iq", load=0.6, cycles=200, speedup=2,
                              vc_depth=DEFAULT_VC_DEPTH)
    assert twice > 100 and queued > 100


# slow (105 s, its own build): test_cosim_iq.py::test_sequential_va covers the sequential VA under iq by default
@pytest.mark.slow
def test_sequential_multiflit_iq():
    """UGAL-S, 3-flit packets, 4 VCs: the sequential VA gives an input two grants, the second on the state
    the first left (a VC it holds, ``q + 1``), among the VCs after the first in round-robin order."""
    family, params, routing, kw = SEQUENTIAL_CASES[0]
    kw = dict(kw, routing=routing, cycles=150, seed=9, speedup=2, router_model="iq")
    assert_match(run(family, params, terminals="flit", **kw))
    assert min(exercised(family, params, **kw)) > 0


def test_greedy_va_second_vc():
    """MIN AD with 2-flit packets under ``iq``: an output's second VA grant in a cycle takes the next-best
    idle VC of its class when the first grant's head holds the best one (§R10.1)."""
    kw = dict(routing="min-ad", vcs=2, vc_depth=3, packet_length=2, load=0.9, cycles=150, seed=3, speedup=2,
              router_model="iq")
    assert_match(run("fbfly", {"k": 2, "n": 3}, terminals="flit", **kw))
    assert min(exercised("fbfly", {"k": 2, "n": 3}, **kw)) > 0


def test_single_cycle_bypass_and_full_ejection_queue():
    """``single-cycle``: a grant into an empty output queue leaves in its grant cycle (bypass); with
    ``V * B = 2`` the ejection queue fills and the allocator skips it (§R6 step 3)."""
    kw = dict(load=0.9, cycles=200, vcs=1, vc_depth=2, seed=2, speedup=2, router_model="single-cycle")
    v = run(*TINY, terminals="flit", **kw)
    assert_match(v)
    assert v["stall_cycles"] > 100
    assert min(exercised(*TINY, **kw)) > 0


# slow (42 s per model, a build each): the default speedup-2 runs above cover both models whole-network, and
# test_cosim.py runs routers of table routings at router level by default (its Slim Fly router under make test-slow)
@pytest.mark.slow
@pytest.mark.parametrize("router_model", MODELS)
def test_router_level_slimfly(router_model):
    """One Slim Fly q = 5 router (radix 11): flits leave in the golden trace's ``sent`` cycles, which with
    speedup 2 are later than the grant when older flits queue ahead (§R9)."""
    kw = dict(load=0.6, cycles=300, vcs=2, vc_depth=2, seed=6, speedup=2, router_model=router_model)
    assert_router_match(run_router("slimfly", {"q": 5}, **kw))
    assert min(exercised("slimfly", {"q": 5}, **kw)) > 0


# slow (13 s, its own build): tests/test_cosim.py catches the same planted fault at router level by default
@pytest.mark.slow
def test_router_level_fault_is_caught():
    """A frozen output-arbiter pointer is caught with two grants per output too."""
    kw = dict(load=0.8, cycles=200, vcs=2, vc_depth=2, speedup=2, router_model="iq")
    assert run_router(*TINY, fault="out_arb_fixed", **kw)["mismatches"] > 0


# ---------------------------------------------------------------------------------------------- slow set
@pytest.mark.slow
@pytest.mark.parametrize("router_model", MODELS)
@pytest.mark.parametrize("family, params, routing, kw", SEQUENTIAL_CASES)
def test_sequential_cases(family, params, routing, kw, router_model):
    """UGAL-S, CLOS AD and the 2DFB's priority flag with two grants per input and output, both models."""
    idle_ok = {"stall_cycles": "with speedup 2 the 3-ary 2DFB carries the adversarial load at 0.9: no source "
                               "waits"} if family == "2dfb" else None
    assert_match(run(family, params, routing=routing, cycles=150, seed=9, terminals="flit", speedup=2,
                     router_model=router_model, **kw), idle_ok=idle_ok)


@pytest.mark.slow
@pytest.mark.parametrize("router_model", MODELS)
def test_axis_switch_multiflit(router_model):
    """The AXI4-Stream switch top, 3-flit packets past saturation, speedup 2."""
    assert_match(run("fbfly", {"k": 4, "n": 2}, load=0.9, cycles=200, vcs=2, vc_depth=4, packet_length=3, seed=4,
                     speedup=2, router_model=router_model))


@pytest.mark.slow
@pytest.mark.parametrize("router_model", MODELS)
def test_sequential_fault_is_caught(router_model):
    family, params, routing, kw = SEQUENTIAL_CASES[0]
    v = run(family, params, routing=routing, cycles=150, seed=9, terminals="flit", fault="seq_stale_state",
            speedup=2, router_model=router_model, **kw)
    assert v["mismatches"] > 0


@pytest.mark.slow
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.integers(0, len(ADAPTIVE_POOL) - 1), load=st.floats(0.8, 1.0), length=st.integers(1, 3),
       seed=st.integers(0, 2**16), pick=st.integers(0, 2), model=st.sampled_from(MODELS))
def test_random_adaptive_configurations(case, load, length, seed, pick, model):
    """Seeded random configurations of the adaptive routers (greedy and sequential) with speedup 2."""
    family, params, kw = ADAPTIVE_POOL[case]
    patterns = cosim_patterns(family, params)
    v = run(family, params, load=load, cycles=120, packet_length=length, seed=seed,
            traffic=patterns[pick % len(patterns)], terminals="flit", speedup=2, router_model=model, **kw)
    assert_match(v, na=RANDOM_NA)


def test_speedup_is_validated():
    """The RTL builds ``S`` of 1 and 2 (§R1): anything else is one line naming the parameter, exit code 2."""
    from radixnet.hdl.router import Router

    net = build(*TINY[:1], **TINY[1])
    with pytest.raises(ValueError, match=r"speedup .* must be one of 1, 2, got 3"):
        Router(net, 0, 1, 2, 16, speedup=3)
    r = subprocess.run([sys.executable, "-m", "radixnet", "cosim", "--topo", "fbfly", "--k", "2", "--n", "2",
                        "--speedup", "3"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2 and "--speedup" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
