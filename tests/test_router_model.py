"""Router models (docs/router-spec.md §R10): the golden model's pipeline against the spec's timeline, every
routing of every family under each model and speedup, and the CLI option."""

import json

import numpy as np
import pytest

from radixnet.cli import main
from radixnet.gen import ParamError, build
from radixnet.gen.router_model import ROUTER_MODELS, get_router_model, zero_load_latency
from radixnet.golden.sim import SimConfig, Simulator

from helpers.golden import lone_packets
from helpers.routing import drain, family_net, routing_pairs  # one small instance per family

# the models that run every routing at any speedup (subswitch, table routings at speedup 1: tests/test_golden_subswitch.py)
MODELS = [m for m, x in ROUTER_MODELS.items() if x.allocation != "subswitch"]


def test_the_presets_name_their_stages_in_booksim_terms():
    iq, sc = get_router_model("iq"), get_router_model("single-cycle")
    assert (iq.routing_delay, iq.vc_alloc_delay, iq.sw_alloc_delay, iq.st_final_delay) == (0, 1, 1, 1)
    assert iq.credit_latency(1) == 2 and sc.credit_latency(1) == 1
    assert iq.hop_cycles(1) == 4 and sc.hop_cycles(1) == 1
    assert iq.pipelined and not sc.pipelined
    hr = get_router_model("hiradix")   # §R11: RI | GO | ST, combined VA/SA split over two registered stages
    assert (hr.routing_delay, hr.vc_alloc_delay, hr.sw_alloc_delay, hr.st_final_delay) == (0, 1, 1, 1)
    assert hr.split and not hr.pipelined and not iq.split and hr.hop_cycles(1) == 4 and hr.credit_latency(1) == 2
    with pytest.raises(ParamError, match="--router-model: one of single-cycle, iq"):
        get_router_model("deep")


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("length", [1, 3])
@pytest.mark.parametrize("topo,kw,routing", [("fbfly", dict(k=4, n=3), "min"), ("torus", dict(dims=[4, 3]), "dor"),
                                             ("slimfly", dict(q=5), "sp"), ("fbfly", dict(k=3, n=2), "ugal-s")])
def test_zero_load_latency_is_the_spec_timeline(model, length, topo, kw, routing):
    """§R10.1: a packet alone in the network is ejected Tl + (H + 1) * hop_cycles + L - 1 cycles after its
    creation, H its inter-router hops, under both router models and for one- and three-flit packets."""
    net = build(topo, **kw)
    sim = Simulator(SimConfig(net, routing=routing, traffic="uniform", seed=3, packet_length=length,
                              router_model=model, speedup=2))
    rng = np.random.default_rng(7)
    pairs = [(int(rng.integers(net.num_terminals)), int(rng.integers(net.num_terminals))) for _ in range(40)]
    got = lone_packets(sim, pairs)
    m = get_router_model(model)
    assert len({h for _, h in got}) >= 2  # several hop counts are exercised
    for lat, hops in got:
        assert lat == zero_load_latency(m, hops, length, 1), (lat, hops)


def test_iq_zero_load_example_of_the_spec():
    """§R10.1's numbers: one hop costs 4 cycles under iq, a one-hop packet is ejected at cycle 9."""
    net = build("fbfly", k=4, n=2)
    sim = Simulator(SimConfig(net, routing="min", router_model="iq", seed=1, speedup=2))
    t = net.num_terminals
    c = net.params["c"]
    (lat0, h0), (lat1, h1) = lone_packets(sim, [(0, 1), (0, t - 1)])
    assert (h0, lat0) == (0, 5) and (h1, lat1) == (1, 9) and c < t


@pytest.mark.parametrize("speedup", [1, 2])
@pytest.mark.parametrize("family,routing", routing_pairs(True))
def test_every_accepted_pair_delivers_everything_under_iq(family, routing, speedup):
    """Every routing of every family runs under the iq model at speedup 1 and 2: all packets delivered,
    no watchdog (§R8), and no faster than the spec's timeline allows."""
    net = family_net(family)
    cfg = SimConfig(net, routing=routing, traffic="uniform", seed=4, vc_depth=6, speedup=speedup,
                    router_model="iq")
    sim = Simulator(cfg)
    recs = [r for r in drain(sim, 0.2, 200) if r is not None]
    assert sim.collected == sim.next_seq > 20
    lat = np.concatenate([r["ejected"] - r["created"] for r in recs])
    hops = np.concatenate([r["hops"] for r in recs])
    floor = zero_load_latency(get_router_model("iq"), hops, cfg.packet_length, 1)
    assert np.all(lat >= floor)


@pytest.mark.parametrize("speedup", [1, 2])
@pytest.mark.parametrize("family,routing", routing_pairs(True))
def test_every_accepted_pair_delivers_everything_under_hiradix(family, routing, speedup):
    """Every routing of every family runs under the hiradix model (§R11) at speedup 1 and 2, single- and
    two-flit packets: all packets delivered, no watchdog (§R8), none faster than the spec's timeline."""
    net = family_net(family)
    model = get_router_model("hiradix")
    for length in (1, 2):
        cfg = SimConfig(net, routing=routing, traffic="uniform", seed=4, vc_depth=6, speedup=speedup,
                        packet_length=length, router_model="hiradix")
        sim = Simulator(cfg)
        recs = [r for r in drain(sim, 0.2, 200) if r is not None]
        assert sim.collected == sim.next_seq > 10
        lat = np.concatenate([r["ejected"] - r["created"] for r in recs])
        hops = np.concatenate([r["hops"] for r in recs])
        assert np.all(lat >= zero_load_latency(model, hops, length, 1))
        assert sim.rq_n.sum() == 0 and sim.gr_n.sum() == 0


@pytest.mark.parametrize("routing", ["min", "ugal-s"])
def test_iq_carries_high_load_like_the_single_cycle_router(routing):
    """Pipelining adds latency, not a throughput wall: on an 8-ary 2-flat (Kim's 2 VCs x 16, S = 2) the iq
    router accepts 0.8 of uniform load unsaturated, and its latency exceeds the single-cycle router's by
    about the extra pipeline cycles (3 per router traversal)."""
    net = build("fbfly", k=8, n=2)
    res = {m: Simulator(SimConfig(net, routing=routing, traffic="uniform", seed=2, vcs=4 if routing != "min" else 2,
                                  vc_depth=16 if routing == "min" else 8, router_model=m, speedup=2)).run_load(0.8)
           for m in ("single-cycle", "iq")}
    for m, r in res.items():
        assert not r["saturated"] and abs(r["accepted_throughput"] - 0.8) < 0.02, (m, r)
    extra = res["iq"]["avg_latency"] - res["single-cycle"]["avg_latency"]
    zl = res["iq"]["zero_load_latency"] - res["single-cycle"]["zero_load_latency"]
    assert zl > 3 and 0.7 * zl < extra < 2.5 * zl, (extra, zl)


def test_hiradix_needs_two_vcs_per_class_in_flight_for_high_load():
    """§R11.5: under hiradix a VC sends single-flit packets one per three cycles, so on the 8-ary 2-flat with
    Kim's 32 flits per port as 2 VCs x 16 it saturates near 0.52 of uniform load (iq: above 0.8), and as 4 VCs
    x 8 it carries 0.8 unsaturated."""
    net = build("fbfly", k=8, n=2)
    res = {V: Simulator(SimConfig(net, routing="min", traffic="uniform", seed=2, vcs=V, vc_depth=32 // V,
                                  router_model="hiradix", speedup=2)).run_load(0.8) for V in (2, 4)}
    assert res[2]["saturated"] and 0.47 < res[2]["accepted_throughput"] < 0.58, res[2]
    assert not res[4]["saturated"] and abs(res[4]["accepted_throughput"] - 0.8) < 0.02, res[4]


def test_sequential_va_counts_earlier_grants_in_the_queue_length():
    """§R10.1: the sequential VA decides on the state earlier VA grants of the cycle left; with UGAL-S on
    the worst-case pattern that spreads packets over both paths where greedy UGAL herds them: UGAL-S
    misroutes a share that differs from UGAL's, and its latency is no worse."""
    net = build("fbfly", k=8, n=2)
    out = {}
    for r in ("ugal", "ugal-s"):
        out[r] = Simulator(SimConfig(net, routing=r, traffic="worst-case", seed=5, router_model="iq",
                                     ugal_threshold=0, speedup=2)).run_load(0.3)
    assert not out["ugal-s"]["saturated"]
    assert out["ugal-s"]["minimal_fraction"] != out["ugal"]["minimal_fraction"]
    assert out["ugal"]["saturated"] or out["ugal-s"]["avg_latency"] <= out["ugal"]["avg_latency"] * 1.05


def test_cli_sim_reports_the_model_and_its_zero_load_latency(capsys):
    assert main(["sim", "--topo", "fbfly", "--k", "4", "--n", "2", "--load", "0.1", "--router-model", "iq",
                 "--vcs", "2", "--vc-depth", "16", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["router_model"] == "iq"
    want = zero_load_latency(get_router_model("iq"), rep["avg_hops"], 1, 1)
    assert abs(rep["zero_load_latency"] - want) < 1e-3
    assert want <= rep["avg_latency"] < want + 1.0  # light load: nearly no queueing
    assert main(["sim", "--load", "0.1", "--router-model", "deep"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--router-model: one of single-cycle, iq" in err


def test_sweep_keeps_router_models_apart(tmp_path, capsys):
    """A sweep directory holds one configuration: an iq run into a single-cycle directory is refused in one
    line naming the model (exit 2); into its own directory it runs, records the model in each point's
    fingerprint, and its latencies lie above the single-cycle ones."""
    def args(out):
        return ["sweep", "--topo", "fbfly", "--k", "3", "--n", "2", "--loads", "0.1,0.2", "--jobs", "1",
                "--out", str(out), "--quiet", "--no-plot"]
    assert main(args(tmp_path / "sc")) == 0
    capsys.readouterr()
    assert main(args(tmp_path / "sc") + ["--router-model", "iq"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "router_model" in err and "iq" in err
    assert main(args(tmp_path / "iq") + ["--router-model", "iq"]) == 0
    read = lambda d: [json.loads(x) for x in (tmp_path / d / "points.jsonl").read_text().splitlines()]  # noqa
    sc, iq = read("sc"), read("iq")
    assert all("router_model" not in r["fingerprint"] for r in sc)
    assert all(r["fingerprint"]["router_model"] == "iq" for r in iq)
    assert min(r["result"]["avg_latency"] for r in iq) > max(r["result"]["avg_latency"] for r in sc)


def test_cosim_refuses_an_unknown_model(capsys):
    """A model neither side builds is refused in one line before any work (tests/test_cosim_iq.py runs iq)."""
    assert main(["cosim", "--router-model", "deep"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--router-model" in err and "single-cycle, iq" in err
