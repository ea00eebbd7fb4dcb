"""The per-hop comparison, the backpressure counters and the coverage bins of radixnet.cosim.hops (docs/cosim.md).

No simulator: the tracker is fed the port observations of small hand-made runs whose counters, bins and paths
are worked out in the comments, and the observe ports of the RTL tops are checked to exist only on request.
"""

from __future__ import annotations

import doctest

import pytest

from radixnet.cosim import hops
from radixnet.cosim.hops import HopTracker, compare_path, expected_paths, idle_counters, missed_bins

# the tops below are built to read their signatures, never elaborated
pytestmark = pytest.mark.filterwarnings("ignore:.*created but never used")

FIELDS = {"head": [0, 1], "tail": [1, 1], "vc": [2, 1], "hops": [3, 8], "phase": [11, 1], "decided": [12, 1],
          "inter": [13, 1], "h1": [14, 1], "data": [15, 8]}


def flit(pid, hops=0, vc=0):
    """A single-flit packet ``pid`` (head and tail) on VC ``vc`` with ``hops`` in its header."""
    return 1 | 2 | vc << 2 | hops << 3 | pid << 15


def two_routers(B=1, V=1):
    """Two routers (fbfly k = 2, n = 2): ports 0, 1 terminals, port 2 the link to the other router."""
    return {"radix": [3, 3], "V": V, "B": B, "E": 0, "K": 1, "S": 1, "credit_delay": 0, "iq": False,
            "link": [[None, None, [1, 2]], [None, None, [0, 2]]], "eject": [[0, 1, None], [2, 3, None]],
            "inj": [[0, 0], [0, 1], [1, 0], [1, 1]], "ej_router": [0, 0, 1, 1], "routing": None}


def tracker(topo):
    return HopTracker(topo, FIELDS, lambda x: ((x >> 15) & 255, 0))


def test_module_examples():
    assert doctest.testmod(hops, optionflags=doctest.ELLIPSIS).failed == 0


def test_backpressure_counters_of_a_hand_made_run():
    """B = 1: packet 1 goes 0 -> 1 and waits there two cycles, packet 2 queues behind it at router 0.

    r0.p0 full at the start of 1 (packet 1 in 0, out 1) and 2, 3, 4 (packet 2 in 1, out 4); r1.p2 full at 2, 3
    (in 1, out 3) and 5 (in 4, out 5): full-buffer cycles {1, 2, 3, 4, 5}. Output r0.o2's one credit: taken at
    1, back at 3 (usable 4), taken at 4, back at 5: no credit at the start of 2, 3 and 5.
    """
    tr = tracker(two_routers())
    tr.inject(0, 0, flit(1))
    tr.credits(1, 0, 0, 1)
    tr.send(1, 0, 2, flit(1, 1))
    tr.inject(1, 0, flit(2))
    tr.credits(3, 1, 2, 1)
    tr.send(3, 1, 1, flit(1, 1))
    tr.credits(4, 0, 0, 1)
    tr.send(4, 0, 2, flit(2, 1))
    tr.credits(5, 1, 2, 1)
    tr.send(5, 1, 0, flit(2, 1))
    assert tr.counters(8) == {"full_buffer_cycles": 5, "credit_zero_cycles": 3}
    assert [r[:5] for r in tr.path(2)] == [[0, 2, 0, 4, 4], [1, 0, 0, 5, 5]]
    assert not tr.errors
    cov = tr.coverage({1: (0, 3, 0), 2: (0, 2, 0)})
    # every output was fed by one input port only: no output could arbitrate, so none is a bin
    assert cov["contention"] == {"hit": 0, "total": 0, "missed": [], "single_input": 3}
    assert cov["input_vc"] == {"hit": 2, "total": 2, "missed": []}
    assert "n/a" in cov["adaptive"] and "n/a" in cov["sequential"]


def test_a_credit_with_no_flit_is_reported():
    tr = tracker(two_routers())
    tr.credits(3, 0, 1, 1)
    assert tr.errors and "no flit there" in tr.errors[0]


@pytest.mark.parametrize("late, hit", [(False, True), (True, False)])
def test_contention_needs_two_ready_inputs(late, hit):
    """Router 0 (router level): flits on inputs 0 and 1 for ejection port 2. Both there before cycle 1, one
    granted at 1: its arbiter chose between two. The second arriving only in 1 (usable from 2): no choice."""
    topo = {"radix": [3], "V": 1, "B": 2, "E": 0, "K": 1, "S": 1, "credit_delay": 0, "iq": False,
            "link": [[None] * 3], "eject": [[None, None, 0]], "inj": [[0, 0], [0, 1]], "routing": None,
            "net_out": [[False] * 3], "credited": [[False] * 3]}
    tr = tracker(topo)
    tr.arrive(0, 0, 0, flit(1))
    tr.arrive(1 if late else 0, 0, 1, flit(2))
    tr.credits(1, 0, 0, 1)
    tr.send(1, 0, 2, flit(1))
    tr.credits(2, 0, 1, 1)
    tr.send(2, 0, 2, flit(2))
    cov = tr.coverage()
    assert cov["contention"]["missed"] == ([] if hit else ["r0.o2"])
    assert "n/a" in cov["vc_class"]   # no network output: no hop takes a VC class


def test_compare_path_names_the_first_differing_hop():
    gold = [[0, 2, 1, 5, 5, 1, 0, 0, 0, 0], [1, 0, 0, 6, 6, 1, 0, 0, 0, 0]]
    assert compare_path([list(r) for r in gold], gold) is None
    other_vc = [[0, 2, 0, 5, 5, 1, 0, 0, 0, 0], gold[1]]
    j, cyc, what = compare_path(other_vc, gold)
    assert (j, cyc) == (0, 5) and "out vc differs" in what and "r0.p2 vc0 @5" in what
    extra = gold + [[1, 2, 0, 7, 7, 2, 0, 0, 0, 0]]
    assert compare_path(extra, gold)[:2] == (2, 7) and "extra hop" in compare_path(extra, gold)[2]
    assert "never made it" in compare_path(gold[:1], gold)[2]
    late = [gold[0], [1, 0, 0, 7, 7, 1, 0, 0, 0, 0]]
    assert compare_path(late, gold)[:2] == (1, 6)
    hdr = [gold[0], [1, 0, 0, 6, 6, 2, 0, 0, 0, 0]]
    assert compare_path(hdr, gold)[2] == "hop 1 at router 1: header hops 2, golden 1"


def test_expected_paths_map_the_golden_header_onto_the_flit():
    pk = [{"id": 4, "hops": [[0, 3, 1, 2], [2, 0, 0, 3]], "headers": [[1, 1, 1], [0, 1, 2]], "sent": [2, 3]}]
    rows = expected_paths(pk, routing="2dfb-adaptive", axis=False)[4]
    # hops grows on the network hop only (§R8a); the 2DFB's flag h1 rides in the golden phase (§R7b)
    assert rows == [[0, 3, 1, 2, 2, 1, 0, 1, 1, 1], [2, 0, 0, 3, 3, 1, 0, 1, 2, 0]]
    # AXI ingress: a zero header, which a table routing never rewrites
    assert [r[8] for r in expected_paths(pk, routing=None, axis=True)[4]] == [0, 0]
    assert [r[8] for r in expected_paths(pk, routing="clos-ad", axis=True)[4]] == [1, 2]


def test_idle_counters_and_missed_bins():
    assert idle_counters({"stall_cycles": 3, "full_buffer_cycles": 0, "credit_zero_cycles": 0}) == \
        ["full_buffer_cycles", "credit_zero_cycles"]
    assert idle_counters({"stall_cycles": 1, "full_buffer_cycles": 2, "credit_zero_cycles": 3}) == []
    assert missed_bins({"a": {"missed": ["x", "y"]}, "b": {"n/a": "none"}}) == ["a: x", "a: y"]


def test_observe_ports_only_on_request():
    """The default router, network and switch tops have no observation ports (their Verilog is unchanged);
    ``observe=True`` adds them."""
    from radixnet.gen import build
    from radixnet.hdl.network import NetworkTop
    from radixnet.hdl.router import Router
    from radixnet.hdl.switch import AxisSwitchTop

    net = build("fbfly", k=2, n=2)
    for default, observed in ((Router(net, 0, 2, 3, 16), Router(net, 0, 2, 3, 16, observe=True)),
                              (NetworkTop(net, 2, 3, 16), NetworkTop(net, 2, 3, 16, observe=True)),
                              (AxisSwitchTop(net, 2, 3, 32), AxisSwitchTop(net, 2, 3, 32, observe=True))):
        assert not [n for n in default.signature.members if n.startswith("obs_")]
        assert [n for n in observed.signature.members if n.startswith("obs_")]
    top = NetworkTop(net, 2, 3, 16, observe=True, speedup=2)
    assert top.obs_offsets == [0, 3] and top.obs_widths["S"] == 2
    with pytest.raises(ValueError, match="observe .* must be a bool"):
        Router(net, 0, 2, 3, 16, observe=1)


def test_eject_hops_fault_is_a_router_fault_of_any_routing():
    from radixnet.gen import build
    from radixnet.hdl.router import Router

    net = build("fbfly", k=2, n=3)
    Router(net, 0, 4, 2, 16, routing="ugal-s", fault="eject_hops")
    Router(net, 0, 2, 2, 16, fault="eject_hops")
    with pytest.raises(ValueError, match="greedy allocator"):
        Router(net, 0, 4, 2, 16, routing="ugal-s", fault="out_arb_fixed")
