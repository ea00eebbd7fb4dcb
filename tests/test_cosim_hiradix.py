"""Co-simulation under the ``hiradix`` router model (router-spec §R11): RI | GO | ST | link in the RTL;
``hiradix-local`` (§R11.6: the output arbitration in two levels), ``hiradix-staged`` (§R11.7),
``hiradix-decoupled`` (§R11.8), ``hiradix-twohead`` (§R11.9: a VC's second single-flit head in flight) and
``hiradix-relay`` (§R11.10: a register on each crossing of the request loop) and ``hiradix-relay1`` (§R11.11: those
registers with one head of a VC in flight).

The comparisons of ``tests/test_cosim.py`` -- every packet at the golden model's terminal and cycle, every hop
(router, port, output VC, ST cycle, link cycle, header) at network level, every flit and credit at router
level -- with golden model and RTL both built as the split-allocation router: table, greedy adaptive and
speedup 1 and 2, multi-flit packets past saturation, the smallest buffers, UGAL-S with the sequential RI, and
planted faults. The RTL refuses the other sequential routings under ``hiradix`` (one line), which the golden
model runs.

By default: the switch top at speedup 2, one-flit buffers at speedup 1, UGAL-S, router level with ``ugal``, the
planted ``eject_hops`` and the refusals; speedup 1 on the switch top, two-flit buffers, MIN AD at speedup 2, the
Slim Fly and ``min-ad`` routers, the planted GO and sequential-RI faults and the command line are in
``make test-slow``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from helpers.cosim import (
    CACHE,
    ROOT,
    SEQUENTIAL_CASES,
    TINY,
    assert_eject_hops_caught,
    assert_match,
    assert_router_match,
    run,
    run_router,
)

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")

HR = {"router_model": "hiradix"}


# speedup 1 is slow (41 s, its own build): test_smallest_buffers runs the network at speedup 1 by default
@pytest.mark.parametrize("speedup", [pytest.param(1, marks=pytest.mark.slow), 2])
def test_tiny_network_multiflit_past_saturation(speedup):
    """AXI4-Stream switch top, 3-flit packets past saturation: a head binds its VC at ST, its first body is
    requested two cycles after it (§R11.5), bound VCs stream with RI's ``u(v)`` rule (§R11.2)."""
    v = run(*TINY, load=0.9, cycles=200, vcs=2, vc_depth=3, packet_length=3, seed=4, speedup=speedup, **HR)
    assert_match(v)
    assert v["stall_cycles"] > 50


# B = 2 is slow (29 s, its own build): B = 1 fills the same V * B ejection queue and streams once per credit loop
@pytest.mark.parametrize("vc_depth", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_smallest_buffers(vc_depth):
    """``V * B <= 2``: GO counts the ejection queue with the flits ST adds this cycle (§R11.3), so a full one
    stops grants; a one-flit buffer streams once per credit loop (§R11.5)."""
    v = run(*TINY, load=0.9, cycles=300, vcs=1, vc_depth=vc_depth, terminals="flit", **HR)
    assert_match(v)
    assert v["stall_cycles"] > 500


# slow (116 s, its own build): tests/test_hdl_hiradix.py checks GO's second grant at speedup 2 by default
# (test_speedup2, test_random_traffic_invariants with ugal at S = 2), and test_router_level below co-simulates a
# greedy adaptive routing under hiradix
@pytest.mark.slow
def test_greedy_adaptive_speedup_2():
    """MIN AD, 2-flit packets, two grants per output: GO gives a second head the next-best idle VC of its
    class when the first holds the best (§R11.3)."""
    v = run("fbfly", {"k": 2, "n": 3}, routing="min-ad", vcs=2, vc_depth=3, packet_length=2, load=0.9, cycles=150,
            seed=3, speedup=2, **HR)
    assert_match(v)


def test_sequential_ri_ugal_s():
    """UGAL-S with §R11.2's sequential RI (hdl/seq_alloc.py's unit in the RTL): the selected lanes served from
    ``ptr_seq``, each head re-deciding with one more flit in ``q`` per earlier request to an output it compares,
    an output taking at most ``S`` requests; past saturation, three-flit packets. Uniform traffic and θ = 2, so
    that both the hop weights and the bias move decisions (under complement traffic on the 3-cube every
    ``H(c,b) + H(b,d)`` equals ``H(c,d)``)."""
    family, params, routing, kw = SEQUENTIAL_CASES[0]
    v = run(family, params, routing=routing, cycles=150, seed=9, terminals="flit",
            **{**kw, "ugal_threshold": 2, "traffic": "uniform"}, **HR)
    assert_match(v)
    assert v["stall_cycles"] > 100


def test_decision_line_ugal_s():
    """UGAL-S decided in the decision lines (router-spec §R11.2a, ``--seq-wavefront 1``): two terminals per router,
    so that heads of one batch share the allocator; every injection flit ``Lw = 7`` cycles longer on its way in,
    RI taking each head's preference when it is available, its chain a prefix-sum arbiter."""
    v = run("fbfly", {"k": 2, "n": 3, "c": 2}, routing="ugal-s", traffic="uniform", load=0.9, cycles=200, vcs=4,
            vc_depth=2, packet_length=3, ugal_threshold=0, seq_wavefront=1, terminals="flit", **HR)
    assert_match(v)


# slow (about 80 s each, a build each): test_decision_line_ugal_s above runs the line at speedup 1 by default
@pytest.mark.slow
def test_decision_line_speedup_2_g2():
    """The decision line at speedup 2 (RI's chain counting two requests per output) with two decisions per
    wavefront stage (``Lw = 6``)."""
    v = run("fbfly", {"k": 2, "n": 3, "c": 2}, routing="ugal-s", traffic="uniform", load=0.9, cycles=200, vcs=4,
            vc_depth=2, packet_length=3, ugal_threshold=1, seq_wavefront=2, speedup=2, seed=3, terminals="flit",
            **HR)
    assert_match(v)


@pytest.mark.slow
def test_decision_line_router_level():
    """One router with decision lines, every port driven from the network's golden run (its terminals' flits
    enter the lines at the golden model's injection cycles)."""
    assert_router_match(run_router("fbfly", {"k": 2, "n": 3, "c": 2}, routing="ugal-s", traffic="uniform",
                                   load=0.9, cycles=300, vcs=4, vc_depth=2, seq_wavefront=1, **HR))


# slow (51 s, its own build): tests/test_hdl_hiradix.py builds the fault-free chain both ways by default
@pytest.mark.slow
def test_sequential_ri_fault_is_caught():
    """``seq_stale_state`` in hiradix's sequential RI: each head keeps the choice it made on RI's copy alone."""
    family, params, routing, kw = SEQUENTIAL_CASES[0]
    v = run(family, params, routing=routing, cycles=150, seed=9, terminals="flit", fault="seq_stale_state",
            **kw, **HR)
    assert v["mismatches"] > 0


@pytest.mark.parametrize("family, params, routing, kw", SEQUENTIAL_CASES[1:])
def test_other_sequential_routings_refused(family, params, routing, kw):
    """The golden model runs §R11.2's sequential RI for every sequential routing; the RTL builds it for
    ``ugal-s`` (the least-cost choice of hdl/seq_alloc.py) and refuses the others in one line, before any work."""
    from radixnet.cosim.run import check_network
    from radixnet.gen import build

    with pytest.raises(ValueError, match="hiradix") as e:
        check_network(build(family, **params), routing=routing, router_model="hiradix", terminals="flit",
                      **{k: v for k, v in kw.items() if k in ("vcs", "vc_depth", "packet_length")})
    assert "\n" not in str(e.value)


# by default ugal; the Slim Fly router at speedup 2 (93 s) and min-ad (38 s) are slow, a build each
@pytest.mark.parametrize("family, params, routing, kw", [
    pytest.param("slimfly", {"q": 5}, "sp", dict(load=0.6, cycles=300, vcs=2, vc_depth=4, seed=6, speedup=2),
                 marks=pytest.mark.slow),
    pytest.param("fbfly", {"k": 4, "n": 2}, "min-ad", dict(load=0.6, cycles=200, vcs=2, vc_depth=4),
                 marks=pytest.mark.slow),
    ("fbfly", {"k": 2, "n": 3}, "ugal", dict(traffic="complement", load=0.9, cycles=200, vcs=2, vc_depth=2,
                                             ugal_threshold=0)),
])
def test_router_level(family, params, routing, kw):
    """One router, every port driven from the whole network's golden run: flits on the link two cycles after
    GO's grant (ST, then the output register), credits one cycle after ST (§R11)."""
    assert_router_match(run_router(family, params, routing=routing, **kw, **HR))


def test_hop_comparison_catches_eject_hops():
    """``eject_hops`` under ``hiradix`` with a route table: ST writes a head's hops from its buffer entry
    (router-spec §R11.4), and the planted fault counts a hop on ejection too (against §R8a). Every endpoint
    matches; every packet's last hop leaves with ``hops`` one too many, and the per-hop comparison names it."""
    v = run(*TINY, load=0.9, cycles=150, vcs=2, vc_depth=3, packet_length=3, seed=4, terminals="flit",
            fault="eject_hops", **HR)
    assert_eject_hops_caught(v, 50)


# slow (about 20 s, its own build): tests/test_cosim.py catches the frozen output-arbiter pointer at router level by
# default (single-cycle, the same 2-router fbfly), and tests/test_formal.py's test_frozen_output_arbiter_fails
# shows GO's frozen arbiter breaking §R11.3
@pytest.mark.slow
def test_router_level_fault_is_caught():
    """A frozen GO pointer (fixed priority at every output) shows up at router level."""
    v = run_router(*TINY, load=0.6, cycles=200, vcs=1, vc_depth=2, fault="out_arb_fixed", **HR)
    assert v["mismatches"] > 0


# slow (45 s, its own build): tests/test_cosim_iq.py::test_cli_iq_speedup_1 runs the command with --router-model
@pytest.mark.slow
def test_cli_hiradix():
    """``radixnet cosim --router-model hiradix`` runs the split-allocation RTL and says so."""
    r = subprocess.run([sys.executable, "-m", "radixnet", "cosim", "--topo", "fbfly", "--k", "2", "--n", "2",
                        "--vcs", "1", "--vc-depth", "2", "--load", "0.6", "--cycles", "150", "--router-model",
                        "hiradix", "--build-dir", str(CACHE)], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "MATCH" in r.stdout and "router model hiradix" in r.stdout


# slow (one fbfly k=4 n=2 build per command): the commands as typed; the default set above covers the
# same configurations on smaller networks
@pytest.mark.slow
@pytest.mark.parametrize("extra", [[], ["--routing", "ugal", "--packet-length", "3"],
                                   ["--routing", "ugal-s", "--packet-length", "3"]])
def test_cli_fbfly_4_2_speedup_2(extra):
    r = subprocess.run([sys.executable, "-m", "radixnet", "cosim", "--topo", "fbfly", "--k", "4", "--n", "2",
                        "--router-model", "hiradix", "--speedup", "2", "--load", "0.6", *extra,
                        "--build-dir", str(CACHE)], capture_output=True, text=True, cwd=ROOT, timeout=3600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "MATCH" in r.stdout


# ---- hiradix-local (§R11.6): a local output arbiter per group of inputs, GO over the groups' winners; and
# hiradix-staged (§R11.7): that arbiter in a cycle of its own, switch traversal in two halves
LOCAL = {"router_model": "hiradix-local"}
STAGED = {"router_model": "hiradix-staged"}
TWO_LEVEL = ["hiradix-local", "hiradix-staged", "hiradix-decoupled"]


def test_local_tiny_network_multiflit_past_saturation():
    """The switch top in groups of two inputs (radix 3: groups {0, 1} and {2}), speedup 2, 3-flit packets past
    saturation: LO keeps a group's first two lanes per output, a dropped lane's VC asks again in the next
    cycle, GO ranks groups from its pointer and slots within a group."""
    v = run(*TINY, load=0.9, cycles=200, vcs=2, vc_depth=3, packet_length=3, seed=4, speedup=2, group=2, **LOCAL)
    assert_match(v)
    assert v["stall_cycles"] > 50


def test_staged_tiny_network_multiflit_past_saturation():
    """The switch top in groups of two inputs, speedup 2, 3-flit packets past saturation, 4 flits per VC: LO
    decides RI's request register a cycle later, u(v) counts LO's kept requests of two and three cycles ago (a
    bound VC streams with three undecided requests), ST1 reads the flits into lane registers and ST2 crosses."""
    v = run(*TINY, load=0.9, cycles=200, vcs=2, vc_depth=4, packet_length=3, seed=4, speedup=2, group=2, **STAGED)
    assert_match(v)
    assert v["stall_cycles"] > 50


def test_decoupled_tiny_network_multiflit_past_saturation():
    """``hiradix-decoupled`` (§R11.8) on the staged run's switch top: u(v) counts every request of two cycles ago,
    kept or dropped by LO, and of three cycles ago those LO kept (its verdict registered beside the group)."""
    v = run(*TINY, load=0.9, cycles=200, vcs=2, vc_depth=4, packet_length=3, seed=4, speedup=2, group=2,
            router_model="hiradix-decoupled")
    assert_match(v)
    assert v["stall_cycles"] > 50


# ---- hiradix-twohead (§R11.9): a VC's second single-flit head in flight
TWOHEAD = {"router_model": "hiradix-twohead"}


def test_twohead_tiny_network_single_flit_past_saturation():
    """The switch top in groups of two inputs, speedup 2, single-flit packets past saturation, 4 flits per VC: a
    VC asks for its second head beside its first, the second leaves from behind the front when the front's request
    was dropped or refused (the ``second_head`` bin counts them), and the input unit gives up its second flit."""
    v = run(*TINY, load=0.9, cycles=300, vcs=2, vc_depth=4, seed=4, speedup=2, group=2, **TWOHEAD)
    assert_match(v)
    assert v["stall_cycles"] > 50 and v["coverage"]["second_head"]["passed"] > 20


# slow (about 60 s each, its own build): speedup 1 with the greedy adaptive routing, and UGAL-S's sequential RI
# choosing among the second heads' candidates
@pytest.mark.slow
@pytest.mark.parametrize("routing,kw", [("min-ad", {"speedup": 1, "vcs": 2, "vc_depth": 4}),
                                        ("ugal-s", {"speedup": 2, "vcs": 4, "vc_depth": 2, "ugal_threshold": 0})])
def test_twohead_adaptive_and_sequential(routing, kw):
    v = run("fbfly", {"k": 2, "n": 3}, routing=routing, traffic="uniform", load=0.9, cycles=250, seed=3,
            terminals="flit", group=2, **kw, **TWOHEAD)
    assert_match(v)
    assert v["coverage"]["second_head"]["passed"] > 10


# ---- hiradix-relay (§R11.10): a register on each crossing of the request loop
RELAY = {"router_model": "hiradix-relay"}


def test_relay_tiny_network_single_flit_past_saturation():
    """``hiradix-twohead``'s run under ``hiradix-relay``: LO reads the request relay, GO the candidate relay, u(v)
    counts the requests of up to five cycles before (of four and five those LO kept), and second heads still ask
    beside their first."""
    v = run(*TINY, load=0.9, cycles=300, vcs=2, vc_depth=4, seed=4, speedup=2, group=2, **RELAY)
    assert_match(v)
    assert v["stall_cycles"] > 50 and v["coverage"]["second_head"]["passed"] > 20


def test_relay_tiny_network_streaming_bodies():
    """Speedup 1 (one VC class: GO's grants applied at ST's edge), 5-flit packets, 17 flits per VC (§R11.10's
    streaming bound): a bound VC asks with up to five undecided requests and six credits in RI's copy, and GO
    counts a granted body's flit as e1·took1 + .. + e5·took5."""
    v = run(*TINY, load=0.9, cycles=300, vcs=2, vc_depth=17, packet_length=5, seed=6, speedup=1, group=2, **RELAY)
    assert_match(v)
    assert v["stall_cycles"] > 50


def test_relay1_tiny_network_single_flit_past_saturation():
    """The run of :func:`test_relay_tiny_network_single_flit_past_saturation` under ``hiradix-relay1`` (§R11.11): the
    relays and u(v) up to five without the second head, so a VC's next head waits for its last one's IN."""
    v = run(*TINY, load=0.9, cycles=300, vcs=2, vc_depth=4, seed=4, speedup=2, group=2,
            router_model="hiradix-relay1")
    assert_match(v)
    assert v["stall_cycles"] > 50 and "second_head" not in v["coverage"]   # one head: no such bin


# speedup 2 is slow (its own build)
@pytest.mark.parametrize("speedup", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_staged_smallest_buffers(speedup):
    """``V = B = 1``: GO counts the ejection queue with the flits in ST1 and ST2 (§R11.7), so a flit anywhere on
    its way to the queue stops grants; at speedup 1 one VC class applies GO's grants at ST's edge (§R11.3), with
    the credit counters' ``>= 5`` bits."""
    v = run(*TINY, load=0.9, cycles=300, vcs=1, vc_depth=1, terminals="flit", group=2, speedup=speedup, **STAGED)
    assert_match(v)
    assert v["stall_cycles"] > 500


# hiradix-local is slow (about 60 s, its own build): the staged and relay runs kill the two-level line's mutants by
# default
@pytest.mark.parametrize("model", [pytest.param("hiradix-local", marks=pytest.mark.slow), "hiradix-staged",
                                   "hiradix-relay"])
def test_two_level_decision_line_ugal_s(model):
    """UGAL-S decided in the decision lines under the two-level models (router-spec §R11.6): groups of two inputs
    (radix 5: {0, 1}, {2, 3}, {4}); LO keeps a group's first lane per output in the service order of the RI that
    made it, GO admits the first candidate in that order and grants it if the view allows it."""
    v = run("fbfly", {"k": 2, "n": 3, "c": 2}, routing="ugal-s", traffic="uniform", load=0.9, cycles=200, vcs=4,
            vc_depth=2, packet_length=3, ugal_threshold=0, seq_wavefront=1, terminals="flit", group=2,
            router_model=model)
    assert_match(v)
    assert v["stall_cycles"] > 1000


# slow (about 40 s each, its own build): the switch tops above kill every LO and staged mutant by default
@pytest.mark.slow
@pytest.mark.parametrize("model", TWO_LEVEL + ["hiradix-twohead", "hiradix-relay", "hiradix-relay1"])
def test_local_router_level(model):
    """One router of the 2-ary 3-flat (5 ports: groups {0, 1}, {2, 3}, {4}) at speedup 1 under ``ugal``, every
    port driven from the network's golden run."""
    assert_router_match(run_router("fbfly", {"k": 2, "n": 3}, routing="ugal", traffic="complement", load=0.9,
                                   cycles=200, vcs=2, vc_depth=2, ugal_threshold=0, group=2, router_model=model))


# slow (about 40 s each, its own build): tests/test_hdl_hiradix.py's test_input_buffer_structures_same_router shows
# the same routers equal to the two-register ones, flit for flit, by default
@pytest.mark.slow
@pytest.mark.parametrize("model, routing, fronts, ram", [("hiradix-relay", "ugal", 3, "lut"),
                                                        ("hiradix-decoupled", "ugal-s", 3, "lut"),
                                                        ("hiradix-twohead", "ugal", 2, "block")])
def test_input_buffer_structures_router_level(model, routing, fronts, ram):
    """``buffer_fronts = 3``, ``buffer_ram = "block"`` (router-spec §R11.1a): the third flit of every VC in a
    register, or the flits behind the front registers in a RAM read a cycle ahead (``B = 6``); the golden model
    ignores both and the router matches it."""
    assert_router_match(run_router("fbfly", {"k": 2, "n": 3}, routing=routing, traffic="complement", load=0.9,
                                   cycles=200, vcs=2, vc_depth=6, ugal_threshold=0, buffer_fronts=fronts,
                                   buffer_ram=ram, router_model=model))


# slow but for hiradix-decoupled, whose u(v) counts the request register's lanes that the chain registered
@pytest.mark.parametrize("model", [pytest.param(m, marks=pytest.mark.slow) for m in TWO_LEVEL[:2] + ["hiradix-relay"]]
                         + TWO_LEVEL[2:])
def test_local_sequential_ri_ugal_s(model):
    """UGAL-S: the sequential chain registers at most S requests per output, LO (in RI's cycle, or the next) keeps
    them all and gives them their slots (groups of three)."""
    family, params, routing, kw = SEQUENTIAL_CASES[0]
    v = run(family, params, routing=routing, cycles=150, seed=9, terminals="flit",
            **{**kw, "ugal_threshold": 2, "traffic": "uniform"}, group=3, router_model=model)
    assert_match(v)


# slow (one fbfly k=4 n=2 or Slim Fly build per command): the commands of docs/router-spec.md §R11.6's, §R11.7's
# and §R11.8's checks
@pytest.mark.slow
@pytest.mark.parametrize("model", TWO_LEVEL + ["hiradix-twohead", "hiradix-relay", "hiradix-relay1"])
@pytest.mark.parametrize("extra", [["--topo", "fbfly", "--k", "4", "--n", "2"],
                                   ["--topo", "fbfly", "--k", "4", "--n", "2", "--routing", "ugal-s",
                                    "--packet-length", "3"],
                                   ["--topo", "slimfly", "--q", "5", "--router", "0", "--load", "0.5"]])
def test_cli_local(model, extra):
    r = subprocess.run([sys.executable, "-m", "radixnet", "cosim", "--router-model", model, "--speedup",
                        "2", "--load", "0.6", *extra, "--build-dir", str(CACHE)], capture_output=True, text=True,
                       cwd=ROOT, timeout=3600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert "MATCH" in r.stdout and f"router model {model}" in r.stdout
