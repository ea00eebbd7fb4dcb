"""The ``subswitch`` model in the golden model (router-spec §R12): its timeline, every table routing of every
family, the groupings, what it refuses, and a load it carries."""

import numpy as np
import pytest

from radixnet.cli import main
from radixnet.gen import ParamError, build
from radixnet.gen.router_model import get_router_model, zero_load_latency
from radixnet.golden.sim import SimConfig, Simulator

from helpers.golden import lone_packets
from helpers.routing import drain, family_net, routing_pairs

SS = get_router_model("subswitch")
TABLE_ROUTINGS = ("sp", "dor", "hdor", "dest-tag")


def test_the_preset():
    """Six cycles per hop (RI, row, SA, column, GO, link), the credit usable two cycles after RI frees the slot."""
    assert SS.hop_cycles(1) == 6 and SS.credit_latency(1) == 2 and not SS.split and not SS.pipelined


@pytest.mark.parametrize("group", [1, 2, 4])
@pytest.mark.parametrize("length", [1, 3])
@pytest.mark.parametrize("topo,kw,routing", [("fbfly", dict(k=4, n=3), "sp"), ("torus", dict(dims=[4, 3]), "dor"),
                                             ("slimfly", dict(q=5), "sp")])
def test_zero_load_latency_is_the_spec_timeline(group, length, topo, kw, routing):
    """§R12: a packet alone is ejected ``Tl + (H + 1) * 6 + L - 1`` cycles after its creation, whatever the
    grouping (no stage waits for another place's state)."""
    net = build(topo, **kw)
    sim = Simulator(SimConfig(net, routing=routing, traffic="uniform", seed=3, packet_length=length, speedup=1,
                              router_model="subswitch", group=group))
    rng = np.random.default_rng(7)
    pairs = [(int(rng.integers(net.num_terminals)), int(rng.integers(net.num_terminals))) for _ in range(40)]
    got = lone_packets(sim, pairs)
    assert len({h for _, h in got}) >= 2
    for lat, hops in got:
        assert lat == zero_load_latency(SS, hops, length, 1), (lat, hops)


@pytest.mark.parametrize("family,routing", [(f, r) for f, r in routing_pairs(True) if r in TABLE_ROUTINGS])
def test_every_table_routing_delivers_everything(family, routing):
    """Every table routing of every family under ``subswitch``, one- and two-flit packets, groups of 2 and 3:
    all packets delivered, no watchdog (§R8: the dependency graph is the flat router's), none faster than the
    timeline, and the row and column buffers empty at the end."""
    net = family_net(family)
    for length, group in ((1, 2), (2, 3)):
        cfg = SimConfig(net, routing=routing, traffic="uniform", seed=4, vc_depth=6, speedup=1, packet_length=length,
                        router_model="subswitch", group=group)
        sim = Simulator(cfg)
        recs = [r for r in drain(sim, 0.3, 200) if r is not None]
        assert sim.collected == sim.next_seq > 10
        lat = np.concatenate([r["ejected"] - r["created"] for r in recs])
        hops = np.concatenate([r["hops"] for r in recs])
        assert np.all(lat >= zero_load_latency(SS, hops, length, 1))
        assert sim.sw_n.sum() == 0 and sim.sw_rbn.sum() == 0 and sim.sw_cbn.sum() == 0
        assert (sim.sw_rbc == 4).all() and (sim.sw_cbc == 4).all() and sim.sw_lock.sum() == 0


def test_a_vc_streams_at_full_rate_under_load():
    """Four-flit credit loops and ``B = Bs = 4`` (§R12): on the 8-ary 2-flat with 4 VCs of 8 flits, uniform load
    0.7 is carried unsaturated."""
    net = build("fbfly", k=8, n=2)
    r = Simulator(SimConfig(net, routing="sp", traffic="uniform", seed=2, vcs=4, vc_depth=8, speedup=1,
                            router_model="subswitch")).run_load(0.7)
    assert not r["saturated"] and abs(r["accepted_throughput"] - 0.7) < 0.02, r


@pytest.mark.parametrize("argv, needle", [
    (["--routing", "min-ad"], "route-table routings only"),
    (["--routing", "sp", "--speedup", "2"], "must be 1 under --router-model subswitch"),
    (["--routing", "sp", "--speedup", "1", "--group", "0"], "--group"),
])
def test_refusals_are_one_line(capsys, argv, needle):
    assert main(["sim", "--topo", "fbfly", "--k", "4", "--n", "2", "--load", "0.1", "--router-model", "subswitch",
                 *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_config_refuses_before_work():
    with pytest.raises(ParamError, match="route-table"):
        SimConfig(build("fbfly", k=3, n=2), routing="ugal", router_model="subswitch", speedup=1).validate()
