"""What the co-simulation tests share (tests/test_cosim*.py): running a design, the verdict checks, the cases.

The designs here are built once in ``build/cosim`` and reused by every test module that names them.
"""

from __future__ import annotations

from pathlib import Path

from radixnet.gen import build

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / "build" / "cosim"


def run(family, params, **kw):
    from radixnet.cosim.run import cosim_network
    return cosim_network(build(family, **params), build_root=CACHE, **kw)


def assert_exercised(v, na=None, idle_ok=None):
    """The run drove the network into backpressure (stalls, full buffers, output VCs out of credits: the
    vacuity rule of radixnet.cosim.hops) and reached every coverage bin, except the bin families ``na``
    names and the counters ``idle_ok`` names (name -> why the configuration cannot reach it)."""
    na, idle_ok = dict(na or {}), dict(idle_ok or {})
    assert all(na.values()) and all(idle_ok.values()), "say why"
    idle = [k for k in v["idle"] if k not in idle_ok]
    assert not idle, f"vacuous run: {idle} zero"
    missed = [b for b in v["missed_bins"] if b.split(":")[0] not in na]
    assert not missed, f"coverage bins missed: {missed}"
    assert set(na) <= set(v["coverage"]), na


def assert_eject_hops_caught(v, min_packets):
    """The planted ``eject_hops`` (a hop counted on ejection too, against §R8a) under any router model: more than
    ``min_packets`` packets, every endpoint as the golden model says, every packet's last hop (and nothing else)
    differing, in its header's hops."""
    assert v["packets"] > min_packets and not v["idle"]
    assert v["endpoint_mismatches"] == 0 and v["hop_mismatches"] == v["mismatches"] == v["packets"]
    m = v["first"][0]
    assert m["first_hop"] == len(m["golden_path"]) - 1 and "header hops" in m["hop_problem"]
    return m


def assert_match(v, na=None, idle_ok=None):
    """Every packet and every hop of it as the golden model says, and the run exercised (:func:`assert_exercised`)."""
    from radixnet.cosim.run import describe_mismatch
    assert v["packets"] > 0
    first = describe_mismatch(v["first"][0]) if v["first"] else ""
    assert v["mismatches"] == 0 and v["stray_flits"] == 0 and v["error"] == 0, first
    assert v["hop_mismatches"] == 0 and not v["observe_errors"], first or v["observe_errors"][:1]
    assert v["rtl_checks_failed"] == 0, v["rtl_checks"]     # the design's own Asserts held
    assert v["hops_compared"] >= v["packets"]
    assert_exercised(v, na, idle_ok)


#: why a random draw need not reach a bin family (the fixed configurations reach them all)
RANDOM_NA = {family: "a random draw of 120 cycles is for breadth; the fixed configurations reach this bin "
                     "family" for family in ("input_vc", "contention", "vc_class", "adaptive", "sequential")}


TINY = ("fbfly", {"k": 2, "n": 2})          # 2 routers of radix 3, 4 terminals: builds in ~25 s


SEQUENTIAL_CASES = [
    ("fbfly", {"k": 2, "n": 3}, "ugal-s",
     dict(traffic="complement", load=0.9, vcs=4, vc_depth=2, packet_length=3, ugal_threshold=0)),
    # four VCs: with two, the iq model's VA rarely grants two heads of one router in a cycle, and a decision on
    # the state an earlier grant left (the sequential bin, radixnet.cosim.hops) never happened
    ("fbfly", {"k": 2, "n": 3}, "clos-ad", dict(traffic="complement", load=0.9, vcs=4, vc_depth=2, packet_length=2)),
    ("2dfb", {"k": 3, "n": 1}, "2dfb-adaptive",
     dict(traffic="2dfb-adversarial", load=0.9, vcs=2, vc_depth=2, threshold=1)),
]


# designs the tests above build (flit terminals), so the random configurations below reuse their builds
ADAPTIVE_POOL = [
    ("fbfly", {"k": 2, "n": 3}, dict(routing="min-ad", vcs=2, vc_depth=3)),
    ("fbfly", {"k": 2, "n": 3}, dict(routing="ugal", vcs=2, vc_depth=2, ugal_threshold=0)),
    ("fbfly", {"k": 2, "n": 3}, dict(routing="val", vcs=2, vc_depth=3)),
    *[(f, p, dict(routing=r, **{k: v for k, v in kw.items() if k in ("vcs", "vc_depth", "ugal_threshold",
                                                                     "threshold")}))
      for f, p, r, kw in SEQUENTIAL_CASES],
]


def cosim_patterns(family, params):
    """Traffic patterns for a random configuration of a design: uniform, and complement where the terminal count
    is a power of two. No random permutation: one the network carries without contention never backs up, and
    every co-simulation must exercise backpressure (the vacuity rule); ``test_patterns`` covers permutations."""
    T = build(family, **params).num_terminals
    return ["uniform"] + (["complement"] if T & (T - 1) == 0 else [])


def run_router(family, params, **kw):
    from radixnet.cosim.router_level import cosim_router
    return cosim_router(build(family, **params), build_root=CACHE, **kw)


def assert_router_match(v, na=None, idle_ok=None):
    """Every flit the router sent and every credit it returned as the golden model says, and the run exercised
    the router (:func:`assert_exercised`: its terminals stalled, its buffers filled, its outputs ran out of
    credits, and its bins)."""
    assert v["packets"] > 100
    assert v["mismatches"] == 0 and v["credit_mismatches"] == 0 and v["error"] == 0, v["first"][:1]
    assert v["rtl_checks_failed"] == 0, v["rtl_checks"]
    assert_exercised(v, na, idle_ok)


#: hdor on the 256-router TTN saturates near a tenth of capacity: at the busiest router the ejection port and one
#: BM output were each fed by two inputs over the run, never by two at once (the other outputs did arbitrate)
TTN_NA = {"contention": "hdor saturates the TTN near load 0.1; two of the busiest router's outputs never had two "
                        "inputs ready at once in 400 cycles"}
