"""The ``hiradix`` router model in the golden simulator (docs/router-spec.md §R11): RI | GO | ST | link.

The zero-load timeline of §R11.5 against ``zero_load_latency``; conservation of flits and credits and no
deadlock at high load for table, greedy adaptive and sequential routings; the throughput two VCs buy
(§R11.5: one VC sends a single-flit packet every other cycle); and short scenarios worked by hand from
§R11.2-§R11.4 checked against the trace (§R9: a hop at its ST cycle, ``sent`` when it takes the link)."""

import io
import json

import numpy as np
import pytest

from radixnet.cli import main
from radixnet.gen import build
from radixnet.gen.router_model import get_router_model, zero_load_latency
from radixnet.golden.sim import SimConfig, Simulator, TraceWriter

from helpers.golden import lone_packets

HR = get_router_model("hiradix")


def test_the_preset_is_split_and_not_pipelined():
    assert HR.split and not HR.pipelined
    assert (HR.routing_delay, HR.vc_alloc_delay, HR.sw_alloc_delay, HR.st_final_delay, HR.credit_delay) == \
        (0, 1, 1, 1, 1)
    # §R11.5: L = 1 as iq; L > 1 two cycles more (the first body waits for its head's IN)
    assert zero_load_latency(HR, 1, 1, 1) == zero_load_latency(get_router_model("iq"), 1, 1, 1) == 9
    assert zero_load_latency(HR, 1, 3, 1) == zero_load_latency(get_router_model("iq"), 1, 3, 1) + 2 == 13


@pytest.mark.parametrize("model", ["hiradix", "hiradix-staged", "hiradix-decoupled", "hiradix-twohead",
                                   "hiradix-relay", "hiradix-relay1"])
@pytest.mark.parametrize("speedup", [1, 2])
@pytest.mark.parametrize("length", [1, 3])
@pytest.mark.parametrize("topo,kw,routing,tl", [("fbfly", dict(k=4, n=3), "min", 1),
                                                ("fbfly", dict(k=4, n=3), "ugal", 1),
                                                ("fbfly", dict(k=3, n=3), "clos-ad", 1),
                                                ("slimfly", dict(q=5), "sp", 1),
                                                ("fbfly", dict(k=4, n=2), "min-ad", 2)])
def test_zero_load_latency_is_the_spec_timeline(model, speedup, length, topo, kw, routing, tl):
    """§R11.5: a lone packet is ejected Tl + (H + 1) * (3 + Tl) + L - 1 (+2 for L > 1) cycles after its
    creation, for several hop counts, at speedup 1 and 2; ``hiradix-staged`` (§R11.7): Tl + (H + 1) * (5 + Tl)
    + L - 1 (+3 for L > 1)."""
    net = build(topo, **kw)
    sim = Simulator(SimConfig(net, routing=routing, seed=3, packet_length=length, speedup=speedup,
                              link_latency=tl, router_model=model))
    rng = np.random.default_rng(11)
    pairs = [(int(rng.integers(net.num_terminals)), int(rng.integers(net.num_terminals))) for _ in range(30)]
    got = lone_packets(sim, pairs)
    assert len({h for _, h in got}) >= 2   # several hop counts
    for lat, hops in got:
        assert lat == zero_load_latency(get_router_model(model), hops, length, tl), (lat, hops)


def test_the_staged_preset_is_six_cycles_per_hop():
    st = get_router_model("hiradix-staged")
    assert st.split and st.local_output and st.staged and st.grouped
    assert (st.routing_delay, st.vc_alloc_delay, st.sw_alloc_delay, st.st_final_delay, st.credit_delay) == \
        (0, 2, 1, 2, 1)
    assert st.hop_cycles(1) == 6
    assert zero_load_latency(st, 1, 1, 1) == 1 + 2 * 6
    assert zero_load_latency(st, 1, 3, 1) == 1 + 2 * 6 + 3 + 2


def test_the_decoupled_preset_is_the_staged_timeline():
    """§R11.8: ``hiradix-staged``'s stages and delays; only u(v)'s rule differs."""
    st, dc = get_router_model("hiradix-staged"), get_router_model("hiradix-decoupled")
    assert dc.decoupled and not st.decoupled
    assert dc.staged and dc.local_output and dc.split and dc.grouped
    assert dc.as_dict() | {"router_model": "hiradix-staged"} == st.as_dict()


def test_the_twohead_preset_is_the_decoupled_timeline():
    """§R11.9: ``hiradix-decoupled``'s stages and delays with two heads of a VC in flight."""
    dc, th = get_router_model("hiradix-decoupled"), get_router_model("hiradix-twohead")
    assert th.decoupled and th.heads == 2 and dc.heads == 1
    assert th.as_dict() | {"router_model": "hiradix-decoupled"} == dc.as_dict()


def test_the_relay_preset_is_eight_cycles_per_hop():
    """§R11.10: ``hiradix-twohead`` with two more cycles between RI and GO (RL1, RL2): eight cycles per hop, and the
    first body of a packet requested at its head's IN, six cycles after the head."""
    th, rl = get_router_model("hiradix-twohead"), get_router_model("hiradix-relay")
    assert rl.relay and rl.heads == 2 and rl.decoupled and not th.relay
    assert rl.as_dict() | {"router_model": "hiradix-twohead", "vc_alloc_delay": 2} == th.as_dict()
    assert rl.hop_cycles(1) == 8
    assert zero_load_latency(rl, 1, 1, 1) == 1 + 2 * 8
    assert zero_load_latency(rl, 1, 3, 1) == 1 + 2 * 8 + 3 + 4


def test_the_relay1_preset_is_the_relay_timeline_with_one_head():
    """§R11.11: ``hiradix-relay``'s stages and delays under ``hiradix-decoupled``'s one head."""
    rl, r1 = get_router_model("hiradix-relay"), get_router_model("hiradix-relay1")
    assert r1.relay and r1.heads == 1 and r1.decoupled
    assert r1.as_dict() | {"router_model": "hiradix-relay"} == rl.as_dict()


def credit_balance(sim):
    """Per network channel and VC: upstream credits + flits in the downstream buffer + flits on the link +
    credits on the way back + flits granted into the upstream output queue. Each must equal B."""
    net = sim.cfg.net
    out = np.zeros((net.num_channels, sim.V), np.int64)
    for c in range(net.num_channels):
        r, o = net.src[c], net.src_port[c]
        out[c] += sim.credit[r, o]
        out[c] += sim.bcnt[net.dst[c], net.dst_port[c]]
        out[c] += sim.cpipe[c].sum(0)
        for k in range(sim.Tl):
            if sim.pipe_flit[c, k] >= 0:
                out[c, sim.pipe_vc[c, k]] += 1
        for i in range(sim.oq_cnt[r, o]):
            out[c, sim.oqv[r, o, (sim.oq_head[r, o] + i) % sim.oq_cap]] += 1
    return out


CASES = [("fbfly", dict(k=4, n=2), "min", {}),                      # table-like deterministic (DOR)
         ("fbfly", dict(k=4, n=2), "min-ad", {"packet_length": 4}),  # greedy adaptive, wormhole
         ("fbfly", dict(k=4, n=2), "ugal", {"speedup": 1}),
         ("fbfly", dict(k=4, n=2), "val", {"packet_length": 3, "egress_depth": 2, "sink_stall": 0.3}),
         ("fbfly", dict(k=4, n=2), "ugal-s", {}),                   # sequential
         ("fbfly", dict(k=4, n=2), "clos-ad", {"packet_length": 3, "speedup": 1}),
         ("slimfly", dict(q=5), "sp", {"packet_length": 2}),         # table routing
         ("slimfly", dict(q=5), "ugal-l", {}),                       # greedy adaptive on tables
         ("slimfly", dict(q=5), "ugal-s", {"packet_length": 3}),     # sequential on tables
         ("slimfly", dict(q=5), "val", {"speedup": 1, "egress_depth": 1, "sink_stall": 0.2}),
         ("fbfly", dict(k=4, n=2), "ugal-s", {"seq_wavefront": 2, "packet_length": 3}),   # decision lines
         ("fbfly", dict(k=3, n=3), "ugal-s", {"seq_wavefront": 1, "speedup": 1})]


#: ``hiradix-local`` (§R11.6) on every case, in groups of 4 (the 4-ary 2-flat's 10 ports: groups of 4, 4 and 2) or
#: 3 (the decision line's: LO and GO take its chain's capacity rule)
LOCAL_CASES = [(t, kw, rt, {**extra, "router_model": "hiradix-local", "group": 3 if i % 2 else 4})
               for i, (t, kw, rt, extra) in enumerate(CASES)]


#: ``hiradix-staged`` (§R11.7) on the same cases as ``hiradix-local``
STAGED_CASES = [(t, kw, rt, {**extra, "router_model": "hiradix-staged"}) for t, kw, rt, extra in LOCAL_CASES]


#: ``hiradix-decoupled`` (§R11.8) on the same cases
DECOUPLED_CASES = [(t, kw, rt, {**extra, "router_model": "hiradix-decoupled"}) for t, kw, rt, extra in LOCAL_CASES]

#: ``hiradix-twohead`` (§R11.9) on the cases with single-flit packets (with longer ones it is ``hiradix-decoupled``)
TWOHEAD_CASES = [(t, kw, rt, {**extra, "router_model": "hiradix-twohead"}) for t, kw, rt, extra in LOCAL_CASES
                 if "packet_length" not in extra]

#: ``hiradix-relay`` (§R11.10) on every case: with longer packets a bound VC has up to five undecided requests
RELAY_CASES = [(t, kw, rt, {**extra, "router_model": "hiradix-relay"}) for t, kw, rt, extra in LOCAL_CASES]

#: ``hiradix-relay1`` (§R11.11) on the cases with single-flit packets (with longer ones it is ``hiradix-relay``)
RELAY1_CASES = [(t, kw, rt, {**extra, "router_model": "hiradix-relay1"}) for t, kw, rt, extra in LOCAL_CASES
                if "packet_length" not in extra]


@pytest.mark.parametrize("topo,kw,routing,extra", CASES + LOCAL_CASES + STAGED_CASES + DECOUPLED_CASES + TWOHEAD_CASES
                         + RELAY_CASES + RELAY1_CASES,
                         ids=[f"{c[0]}-{c[2]}-{i}" for i, c in enumerate(CASES)]
                         + [f"local-{c[0]}-{c[2]}-{i}" for i, c in enumerate(LOCAL_CASES)]
                         + [f"staged-{c[0]}-{c[2]}-{i}" for i, c in enumerate(STAGED_CASES)]
                         + [f"decoupled-{c[0]}-{c[2]}-{i}" for i, c in enumerate(DECOUPLED_CASES)]
                         + [f"twohead-{c[0]}-{c[2]}-{i}" for i, c in enumerate(TWOHEAD_CASES)]
                         + [f"relay-{c[0]}-{c[2]}-{i}" for i, c in enumerate(RELAY_CASES)]
                         + [f"relay1-{c[0]}-{c[2]}-{i}" for i, c in enumerate(RELAY1_CASES)])
def test_high_load_conserves_flits_and_credits_and_drains(topo, kw, routing, extra):
    """At 0.95 offered load (saturated) no flit or credit is lost or made: every channel's credits balance
    every cycle checked; then the network drains (no deadlock, §R8's watchdog would stop it), every packet
    arrives exactly once, every credit comes home and the request and grant registers are empty."""
    net = build(topo, **kw)
    sim = Simulator(SimConfig(net, routing=routing, seed=9, watchdog=2000,
                              **{"speedup": 2, "router_model": "hiradix", **extra}))
    seen = []
    sim.on_ejected = lambda rec: seen.append(rec["seq"].copy())
    for _ in range(6):
        sim.step(97, 0.95)
        assert (credit_balance(sim) == sim.B).all()
        assert sim.rq_n.max() > 0 or sim.gr_n.max() > 0   # the registers are in use
    for _ in range(200):
        if sim.collected == sim.next_seq:
            break
        sim.step(50)
        assert (credit_balance(sim) == sim.B).all()
    sim.step(8)   # the last hop's credit may still be on its way home when the last packet is ejected
    ids = np.concatenate(seen)
    assert sim.collected == sim.next_seq > 500
    assert np.array_equal(np.sort(ids), np.arange(sim.next_seq))
    assert sim.bcnt.sum() == 0 and sim.oq_cnt.sum() == 0 and sim.ovc_busy.sum() == 0 and sim.in_active.sum() == 0
    assert sim.rq_n.sum() == 0 and sim.gr_n.sum() == 0 and sim.rqc_n.sum() == 0 and sim.qadd.sum() == 0
    assert sim.rqr_n.sum() == 0 and sim.rqcr_n.sum() == 0
    assert (sim.wfl < 0).all() and sim.wfb_n.sum() == 0 and (sim.wfb < 0).all()   # decision lines empty
    full = np.where((sim.out_ch >= 0)[:, :, None], sim.B, 0) * np.ones((1, 1, sim.V), np.int64)
    E = int(sim.cfg.egress_depth)
    if E:
        full[net.ej_router, net.ej_port, 0] = E
    assert np.array_equal(sim.credit, full)


def test_three_vcs_keep_an_input_busy():
    """§R11.5: single-flit packets of one VC go one per three cycles (RI learns GO's verdict on a head two
    cycles after GO made it), so three VCs are needed to keep an input busy. Uniform single-flit traffic on the
    4-ary 2-flat (S = 2): with V = 3 the router carries 0.8 unsaturated; with V = 2 it saturates near 0.53,
    with V = 1 (a packet every third cycle per input at most, and head-of-line blocking) near 0.3."""
    net = build("fbfly", k=4, n=2)

    def run(V, load):
        return Simulator(SimConfig(net, routing="min", vcs=V, vc_depth=48 // V, seed=2, router_model="hiradix",
                                   measure=1500, speedup=2)).run_load(load)
    three = run(3, 0.8)
    assert not three["saturated"] and abs(three["accepted_throughput"] - 0.8) < 0.02, three
    two = run(2, 0.8)
    assert two["saturated"] and 0.48 < two["accepted_throughput"] < 0.58, two
    one = run(1, 0.65)
    assert one["saturated"] and 0.26 < one["accepted_throughput"] < 0.34, one


def traced(net, batch, **kw):
    """Run the explicit packets ``batch`` ([(cycle, src, dst)]) under hiradix; their trace records by id."""
    sim = Simulator(SimConfig(net, **{"routing": "min", "router_model": "hiradix", "speedup": 2, **kw}), trace=True)
    buf = io.StringIO()
    sim.on_ejected = TraceWriter(buf)
    cyc, src, dst = (np.array(x) for x in zip(*batch))
    sim.step(1, batch_cycles=cyc, batch_src=src, batch_dst=dst)
    sim.step(80)
    recs = {r["id"]: r for r in map(json.loads, buf.getvalue().splitlines())}
    assert len(recs) == len(batch)
    return recs


def test_two_heads_meet_at_one_output_the_loser_asks_again():
    """Terminals 0 and 1 (router 0's input ports 0 and 1) each send a packet to terminal 2 in cycle 0.
    Both heads are usable at 1 and RI registers both requests; GO at 2 ranks input 0 first (``ptr_out`` 0)
    and with S = 1 grants it alone; the loser's request is dropped, RI at 2 and 3 cannot ask again (u(v) = 1:
    its request is being decided, then its verdict is not yet in the view), RI at 4 does, GO at 5 grants it:
    ST (the hop's cycle) at 3 and 6, the link at 4 and 7, ejected at 5 and 8. With S = 2 GO grants both at
    2, both traverse at 3 and leave the output queue one per cycle in grant order (sent 4 and 5)."""
    net = build("fbfly", k=4, n=2)
    assert net.inj_router[0] == net.inj_router[1] == net.ej_router[2] == 0
    ej = int(net.ej_port[2])
    for S, hop_b, sent_b, ej_b in ((1, 6, 7, 8), (2, 3, 5, 6)):
        recs = traced(net, [(0, 0, 2), (0, 1, 2)], speedup=S)
        a, b = recs[0], recs[1]
        assert (a["src"], b["src"]) == (0, 1)
        assert a["hops"] == [[0, ej, 0, 3]] and a["sent"] == [4] and a["ejected"] == 5, (S, a)
        assert b["hops"] == [[0, ej, 0, hop_b]] and b["sent"] == [sent_b] and b["ejected"] == ej_b, (S, b)


def test_wormhole_holds_the_ejection_port_until_its_tail():
    """Three-flit packets from terminals 0 and 1 to terminal 2, S = 1: A's head wins GO at 2, holds the port
    at its ST (3) and binds its input VC at its IN (4); its body is requested at 4 (after the bind, §R11.5),
    its tail at 5 while the body's request is decided (u(v) = 1: the bound VC asks for the next flit): ST 6
    and 7, ejected 9 (= zero-load 1 + 4 + 3 + 1). B may ask again at 4 but the port is held until A's tail's
    ST at 7; RI reads the release in its copy of the output side one cycle later (§R11.1): RI at 8, GO 9,
    ST 10 (its hop), binding at 11, body ST 13, tail ST 14, on the link at 15, ejected 16."""
    net = build("fbfly", k=4, n=2)
    recs = traced(net, [(0, 0, 2), (0, 1, 2)], speedup=1, packet_length=3)
    a, b = recs[0], recs[1]
    assert [h[3] for h in a["hops"]] == [3] and a["sent"] == [4] and a["ejected"] == 9, a
    assert [h[3] for h in b["hops"]] == [10] and b["sent"] == [11] and b["ejected"] == 16, b


def test_one_vc_sends_single_flit_packets_every_third_cycle():
    """§R11.5: four single-flit packets of terminal 0 on VC 0 (V = 1), all to terminal 5 on the next router:
    injected in 0..3, RI takes each head only once its view holds GO's verdict on the one before (two cycles
    after GO), so ST runs at 3, 6, 9, 12."""
    net = build("fbfly", k=4, n=2)
    recs = traced(net, [(0, 0, 5)] * 4, speedup=2, vcs=1, vc_depth=8)
    assert [recs[i]["hops"][0][3] for i in range(4)] == [3, 6, 9, 12]
    assert [recs[i]["ejected"] for i in range(4)] == [9, 12, 15, 18]



@pytest.mark.parametrize("speedup", [1, 2])
def test_three_vcs_send_single_flit_packets_every_cycle(speedup):
    """The same four packets with V = 3: they take VCs 0, 1, 2, 0 at injection (packet i on VC i mod V, §R3),
    and while one VC's head awaits its verdict RI requests the others': ST at 3, 4, 5, 6. Each head is given
    the idle output VC with the most credits at GO (ties: the lowest), so they spread over the VCs downstream
    too: ST at 7..10 there, ejected at 9..12. With V = 2 the third packet's VC still awaits the verdict on
    the first at 5: ST at 3, 4, 6, 7."""
    net = build("fbfly", k=4, n=2)
    recs = traced(net, [(0, 0, 5)] * 4, speedup=speedup, vcs=3, vc_depth=8)
    assert [recs[i]["hops"][0][3] for i in range(4)] == [3, 4, 5, 6]
    assert [recs[i]["hops"][0][2] for i in range(4)] == [0, 1, 2, 0]
    assert [recs[i]["hops"][1][3] for i in range(4)] == [7, 8, 9, 10]
    assert [recs[i]["ejected"] for i in range(4)] == [9, 10, 11, 12]
    recs = traced(net, [(0, 0, 5)] * 4, speedup=speedup, vcs=2, vc_depth=8)
    assert [recs[i]["hops"][0][3] for i in range(4)] == [3, 4, 6, 7]
    assert [recs[i]["ejected"] for i in range(4)] == [9, 10, 12, 13]


def test_cli_runs_hiradix(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["sim", "--help"])
    assert exc.value.code == 0 and "hiradix:" in capsys.readouterr().out
    assert main(["sim", "--topo", "fbfly", "--k", "4", "--n", "2", "--load", "0.1", "--router-model", "hiradix",
                 "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["router_model"] == "hiradix"
    want = zero_load_latency(HR, rep["avg_hops"], 1, 1)
    assert abs(rep["zero_load_latency"] - want) < 1e-3
    assert want <= rep["avg_latency"] < want + 1.0


# ------------------------------------------------------------------ the decision line (§R11.2a)
def line_length(net, r, g):
    """§R11.2a: ``Lw = 5 + ceil(n_inj / g)``, ``n_inj`` the injection ports of router ``r``."""
    n_inj = int((np.asarray(net.port_table()["in_terminal"])[r] >= 0).sum())
    return 5 + -(-n_inj // g)


@pytest.mark.parametrize("g", [1, 3])
@pytest.mark.parametrize("length", [1, 3])
def test_decision_line_adds_its_length_at_zero_load(g, length):
    """A lone packet takes ``Lw`` cycles more than under §R11.2 (every flit crosses its injection port's line),
    whatever its hop count."""
    net = build("fbfly", k=4, n=2)
    rng = np.random.default_rng(5)
    pairs = [(int(rng.integers(net.num_terminals)), int(rng.integers(net.num_terminals))) for _ in range(12)]
    got = {}
    for wf in (0, g):
        sim = Simulator(SimConfig(net, routing="ugal-s", seed=3, packet_length=length, speedup=1,
                                  router_model="hiradix", seq_wavefront=wf))
        got[wf] = lone_packets(sim, pairs)
    assert len({h for _, h in got[0]}) >= 2
    lw = line_length(net, 0, g)
    assert [(lat + lw, h) for lat, h in got[0]] == got[g]


def test_decision_line_batch_is_the_allocator_function():
    """The heads a line batch decides get the preferences hdl/seq_alloc.py's function gives: positions the
    injection ports from ``wf_ptr``, candidates (o_min, H(c, d), 0) and (o_nm, H(c, b) + H(b, d), θ) (none
    when b is either router), ``q0`` the queue lengths of RI's copy, ``S = 3``; random states, run on the
    kernel's Python."""
    from radixnet.golden import kernel
    from radixnet.golden.native import as_python
    from radixnet.hdl.seq_alloc import seq_alloc_model

    net = build("fbfly", k=4, n=3)
    sim = Simulator(SimConfig(net, routing="ugal-s", seed=1, router_model="hiradix", seq_wavefront=1, vcs=4,
                              vc_depth=4, ugal_threshold=2, speedup=2))
    rs, tp, pk, prm, sc = sim.rs, sim.tp, sim.pk, sim.prm, sim.sc
    coords, port_to = tp.coords, tp.port_to
    rng = np.random.default_rng(2)
    r = 7
    inj = [p for p in range(int(tp.radix[r])) if tp.in_term[r, p] >= 0]
    routers = list(range(net.num_routers))
    checked = differs = 0
    for case in range(60):
        rs.ri_credit[r] = rng.integers(0, prm.B + 1, rs.ri_credit[r].shape)
        start = int(rng.integers(len(inj)))
        rs.wf_ptr[r] = start
        heads = {}
        for k, p in enumerate(inj):
            if rng.random() < 0.8:
                pid = k
                dr = int(rng.choice([x for x in routers if x != r] if case % 5 else routers))
                pk.dst[pid] = int(np.flatnonzero(tp.term_router == dr)[0])
                pk.inter[pid] = int(rng.choice(routers))
                pk.phase[pid], pk.decided[pid] = 0, 0
                rs.wfb[r, p] = pid
                heads[p] = pid
        rs.wfb_n[r] = len(heads)
        with as_python():
            q0 = [int(kernel.queue_length(rs.ri_credit, tp.out_term, r, o, prm.B)) for o in range(int(tp.radix[r]))]
        cands = []
        for p in inj:
            if p not in heads:
                cands.append([])
                continue
            pid = heads[p]
            dr = int(tp.term_router[pk.dst[pid]])
            b = int(pk.inter[pid])
            if dr == r:
                cands.append([])
                continue
            with as_python():
                mn = (int(kernel.dor_output(coords, port_to, r, dr)), int(kernel.hop_count(coords, r, dr)), 0)
                nm = None if b in (r, dr) else (int(kernel.dor_output(coords, port_to, r, b)),
                                                int(kernel.hop_count(coords, r, b) + kernel.hop_count(coords, b, dr)),
                                                prm.thr)
            cands.append([mn, nm])
        want = seq_alloc_model(q0, cands, start=start, s=kernel.LINE_S)
        with as_python():
            kernel._hr_decide_line(r, prm, tp, rs, pk, sc)
        for i, p in enumerate(inj):
            if p not in heads:
                continue
            pid = heads[p]
            if not want.req[i]:   # ejected at this router: no decision
                assert pk.phase[pid] == 0 and pk.decided[pid] == 0
                continue
            assert pk.phase[pid] == (kernel.PREFER_MIN if want.choice[i] == 0 else kernel.PREFER_NM), (case, p)
            assert pk.decided[pid] == 0
            checked += 1
            differs += want.choice[i] != seq_alloc_model(q0, [cands[i]], s=kernel.LINE_S).choice[0]
        assert rs.wf_ptr[r] == (start + 1) % len(inj) and rs.wfb_n[r] == 0 and (rs.wfb[r] < 0).all()
        assert rs.qadd[r].sum() == 0
    assert checked > 150 and differs > 0   # some heads chose otherwise than they would have alone


def test_decision_line_throughput():
    """On the 4-ary 2-flat (4 VCs, single-flit packets, speedup 1) RI's own chain accepts 0.5; with the line the
    chain runs beside GO and a drop blocks its VC for a cycle (router-spec §R11.2a): 0.48 is still carried
    (not 0.5), and each packet pays the line's cycles."""
    net = build("fbfly", k=4, n=2)
    res = {}
    for wf, load in ((0, 0.5), (2, 0.48), (2, 0.5)):
        cfg = SimConfig(net, routing="ugal-s", router_model="hiradix", speedup=1, vcs=4, seed=3, measure=1000,
                        seq_wavefront=wf)
        res[wf, load] = Simulator(cfg).run_load(load)
    for key in ((0, 0.5), (2, 0.48)):
        assert not res[key]["saturated"] and res[key]["accepted_throughput"] > key[1] - 0.01, key
    assert res[2, 0.5]["saturated"]
    assert res[2, 0.48]["avg_latency"] > res[0, 0.5]["avg_latency"] + line_length(net, 0, 2) - 1


@pytest.mark.parametrize("model", ["hiradix", "hiradix-local", "hiradix-staged", "hiradix-decoupled"])
def test_cli_runs_the_decision_line(capsys, model):
    """``radixnet sim --seq-wavefront g``: the report names it, and its zero-load latency counts the line (the
    two-level models take its capacity rule at LO and GO, §R11.6, and add no cycle)."""
    assert main(["sim", "--topo", "fbfly", "--k", "4", "--n", "3", "--load", "0.05", "--router-model", model,
                 "--routing", "ugal-s", "--speedup", "1", "--seq-wavefront", "2", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["seq_wavefront"] == 2
    want = zero_load_latency(get_router_model(model), rep["avg_hops"], 1, 1) \
        + line_length(build("fbfly", k=4, n=3), 0, 2)
    assert abs(rep["zero_load_latency"] - want) < 1e-3
    assert want <= rep["avg_latency"] < want + 1.0


@pytest.mark.parametrize("kw, message", [
    (dict(router_model="iq", routing="ugal-s"), "needs --router-model hiradix, hiradix-local, hiradix-staged, "
                                                "hiradix-decoupled, hiradix-twohead, hiradix-relay or "
                                                "hiradix-relay1 and "
                                                "--routing ugal-s"),
    (dict(router_model="hiradix-staged", routing="ugal"), "needs --router-model hiradix, .* and --routing ugal-s"),
    (dict(router_model="hiradix", routing="ugal-s", topo="slimfly"), "on a HyperX family"),
    (dict(router_model="hiradix", routing="ugal-s", seq_wavefront=-1), "seq-wavefront"),
])
def test_decision_line_refuses_other_settings(kw, message):
    from radixnet.gen import ParamError
    kw = {"seq_wavefront": 2, **kw}
    net = build("slimfly", q=5) if kw.pop("topo", None) else build("fbfly", k=4, n=2)
    with pytest.raises(ParamError, match=message) as err:
        SimConfig(net, **{"speedup": 2, **kw}).validate()
    assert "\n" not in str(err.value)


# ---- hiradix-local (§R11.6): the output arbitration in two levels

def trace_lines(net, routing, **kw):
    """The §R9 trace of a 400-cycle run at 0.9 offered load, as lines."""
    sim = Simulator(SimConfig(net, routing=routing, seed=4, **kw), trace=True)
    buf = io.StringIO()
    sim.on_ejected = TraceWriter(buf)
    sim.step(400, 0.9)
    sim.step(300)
    return buf.getvalue().splitlines()


@pytest.mark.parametrize("routing,kw", [("min", {"speedup": 1}), ("min-ad", {"packet_length": 3}),
                                        ("ugal-s", {"speedup": 2}), ("val", {"speedup": 2, "vcs": 4})])
def test_local_groups_of_one_input_are_hiradix(routing, kw):
    """§R11.6: with G = 1 every input is its own group, LO keeps each input's lanes and GO ranks inputs from
    ``ptr_out``: the trace is ``hiradix``'s, packet for packet and cycle for cycle; with G = 4 it is not."""
    net = build("fbfly", k=4, n=2)
    flat = trace_lines(net, routing, router_model="hiradix", **kw)
    assert len(flat) > 500
    assert trace_lines(net, routing, router_model="hiradix-local", group=1, **kw) == flat
    assert trace_lines(net, routing, router_model="hiradix-local", group=4, **kw) != flat


def test_local_arbiter_drops_a_group_loser_which_asks_again_at_once():
    """Terminals 0, 1 and 2 (router 0's input ports 0, 1, 2) each send a single-flit packet to terminal 5
    (router 1) in cycle 0, S = 1. Flat ``hiradix``: RI at 1 registers all three, GO at 2 grants input 0; the
    two losers' requests count in u(v) through RI at 3, ask at 4, GO at 5 grants input 1 (``ptr_out`` 1), input
    2 asks again at 7: ST at 3, 6, 9. ``hiradix-local`` with G = 2 (groups {0, 1} and {2, 3}): LO at the end of
    RI 1 keeps input 0 of group 0 (``ptr_loc`` 0) and input 2 of group 1, and drops input 1, whose VC is no
    request and asks again at RI 2; GO at 2 grants group 0 (``ptr_out`` 0, then 1) and refuses input 2; GO at 3
    grants input 1 (the only request); input 2 asks again at 4 (its refused request counted through RI 3), GO
    at 5: ST at 3, 4, 6."""
    net = build("fbfly", k=4, n=2)
    assert [int(net.inj_port[t]) for t in range(3)] == [0, 1, 2] and net.ej_router[5] == 1
    batch = [(0, 0, 5), (0, 1, 5), (0, 2, 5)]
    flat = traced(net, batch, speedup=1)
    assert [flat[i]["hops"][0][3] for i in range(3)] == [3, 6, 9]
    local = traced(net, batch, speedup=1, router_model="hiradix-local", group=2)
    assert [local[i]["hops"][0][3] for i in range(3)] == [3, 4, 6]
    assert [local[i]["ejected"] - local[i]["hops"][0][3] for i in range(3)] == [6, 6, 6]



def test_staged_local_arbiter_and_switch_traversal_take_a_cycle_each():
    """§R11.7, the scenario above under ``hiradix-staged`` (G = 2, S = 1). RI at 1 registers all three lanes; LO at
    2 keeps input 0 (group 0, ``ptr_loc`` 0, then 1) and input 2 (group 1) and drops input 1; RI at 2 asks for none
    of them (each has a request of RI 1, whose fate RI cannot know yet). GO at 3 grants group 0 (``ptr_out`` 0,
    then 1): input 0's ST1 at 4, its flit on the link at 6 (ST2 at 5). Input 1's dropped request no longer counts
    at RI 3, which asks again: LO 4, GO 5 (group 1 has no candidate), ST1 6. Input 2's refused request counts
    through RI 4 (its verdict is in the view from 5): RI 5, LO 6, GO 7, ST1 8. Each hop to the ejection at
    router 1 takes nine cycles from ST1 (ST2, link, then RI, LO, GO, ST1, ST2, link)."""
    net = build("fbfly", k=4, n=2)
    recs = traced(net, [(0, 0, 5), (0, 1, 5), (0, 2, 5)], speedup=1, router_model="hiradix-staged", group=2)
    assert [recs[i]["hops"][0][3] for i in range(3)] == [4, 6, 8]
    assert [recs[i]["sent"][0] - recs[i]["hops"][0][3] for i in range(3)] == [2, 2, 2]
    assert [recs[i]["ejected"] - recs[i]["hops"][0][3] for i in range(3)] == [9, 9, 9]


def test_decoupled_dropped_request_counts_one_cycle_longer():
    """§R11.8, the scenario above under ``hiradix-decoupled``: input 1's request of RI 1, which LO drops at 2, is
    counted in u(v) through RI 3 (RI cannot know LO's verdict of the cycle before), so it asks again at RI 4: LO
    5, GO 6 (the only candidate), ST1 7. Inputs 0 and 2 go as under ``hiradix-staged`` (ST1 at 4 and 8)."""
    net = build("fbfly", k=4, n=2)
    batch = [(0, 0, 5), (0, 1, 5), (0, 2, 5)]
    recs = traced(net, batch, speedup=1, router_model="hiradix-decoupled", group=2)
    assert [recs[i]["hops"][0][3] for i in range(3)] == [4, 7, 8]
    assert [recs[i]["ejected"] - recs[i]["hops"][0][3] for i in range(3)] == [9, 9, 9]


def test_decoupled_head_sees_a_released_vc_a_cycle_later():
    """§R11.8: a head reads the output side of the view of two cycles before. Terminals 0 and 1 each send a 3-flit
    packet to terminal 5 in cycle 0, one VC, S = 1, G = 2. Packet 0 crosses first (head at ST1 4, IN 5; its bodies
    asked at RI 5 and 6, ST1 8 and 9); its tail releases the output VC at ST1 9. Under ``hiradix-staged`` packet 1's
    head finds it idle in RI's copy at 10: LO 11, GO 12, ST1 13. Under ``hiradix-decoupled`` it sees the release
    a cycle later, at RI 11: ST1 14, and everything after is a cycle later."""
    net = build("fbfly", k=4, n=2)
    batch = [(0, 0, 5), (0, 1, 5)]
    kw = {"speedup": 1, "group": 2, "vcs": 1, "packet_length": 3}
    staged = traced(net, batch, router_model="hiradix-staged", **kw)
    dec = traced(net, batch, router_model="hiradix-decoupled", **kw)
    assert [[h[3] for h in staged[i]["hops"]] for i in range(2)] == [[4, 10], [13, 19]]
    assert [[h[3] for h in dec[i]["hops"]] for i in range(2)] == [[4, 10], [14, 20]]
    assert [dec[i]["ejected"] - staged[i]["ejected"] for i in range(2)] == [0, 1]


def test_twohead_second_head_asks_beside_the_first():
    """§R11.9: terminal 0 sends two single-flit packets in cycle 0 on its one VC (S = 1, G = 2); the first is
    usable at 1, the second at 2. Under ``hiradix-decoupled`` the second asks when the first's verdict is in the
    view (RI 5, ST1 8); under ``hiradix-twohead`` it asks at RI 2, beside the first's undecided request (LO 3,
    GO 4, ST1 5), when the two are for different destinations (terminals 5 and 9, or 5 and 6 at one router), and
    at RI 5 as before when they are for the same one."""
    net = build("fbfly", k=4, n=2)
    kw = {"speedup": 1, "group": 2, "vcs": 1}
    for dst2 in (9, 6):
        batch = [(0, 0, 5), (0, 0, dst2)]
        dec = traced(net, batch, router_model="hiradix-decoupled", **kw)
        two = traced(net, batch, router_model="hiradix-twohead", **kw)
        assert [[h[3] for h in dec[i]["hops"]] for i in range(2)] == [[4, 10], [8, 14]]
        assert [[h[3] for h in two[i]["hops"]] for i in range(2)] == [[4, 10], [5, 11]]
    same = traced(net, [(0, 0, 5), (0, 0, 5)], router_model="hiradix-twohead", **kw)
    assert [[h[3] for h in same[i]["hops"]] for i in range(2)] == [[4, 10], [8, 14]]


def test_twohead_second_passes_a_dropped_front():
    """§R11.9: terminal 0 (input 0) sends X to terminal 5 and terminal 1 (input 1, the same group of two) sends A
    to 5, then B to 9, in cycle 0, one VC each, S = 1. LO at 2 keeps X (``ptr_loc`` 0) and drops A. Input 1 asks
    for B at RI 2 (u(v) = 1, the undecided request names the front A): LO 3, GO 4, ST1 5, so B leaves before A.
    A's dropped request counts through RI 3; at RI 4 and 5 the undecided request is B's, which names the flit
    behind the front, so A waits for B's IN at 6: RI 6, ST1 9. Under ``hiradix-decoupled`` A asks again at RI 4
    (ST1 7) and B after A's IN (ST1 11)."""
    net = build("fbfly", k=4, n=2)
    batch = [(0, 0, 5), (0, 1, 5), (0, 1, 9)]
    kw = {"speedup": 1, "group": 2, "vcs": 1}
    dec = traced(net, batch, router_model="hiradix-decoupled", **kw)
    two = traced(net, batch, router_model="hiradix-twohead", **kw)
    assert [dec[i]["hops"][0][3] for i in range(3)] == [4, 7, 11]
    assert [two[i]["hops"][0][3] for i in range(3)] == [4, 9, 5]


@pytest.mark.parametrize("routing,kw", [("min-ad", {"packet_length": 3}), ("ugal-s", {"packet_length": 2})])
def test_twohead_with_longer_packets_is_decoupled(routing, kw):
    """§R11.9: with packets longer than a flit the flit behind a head is its body, so the rule never applies and
    ``hiradix-twohead``'s trace is ``hiradix-decoupled``'s."""
    net = build("fbfly", k=4, n=2)
    dec = trace_lines(net, routing, router_model="hiradix-decoupled", speedup=2, **kw)
    assert len(dec) > 300
    assert trace_lines(net, routing, router_model="hiradix-twohead", speedup=2, **kw) == dec


def test_twohead_carries_more_single_flit_traffic():
    """§R11.9: two heads of a VC in flight. The 8-ary 2-flat, uniform single-flit traffic, ``min``, S = 2, two VCs
    of 16 flits: ``hiradix-decoupled`` saturates below 0.5 (one head per VC per four-cycle loop),
    ``hiradix-twohead`` carries at least 0.15 more."""
    net = build("fbfly", k=8, n=2)

    def run(model):
        return Simulator(SimConfig(net, routing="min", vcs=2, vc_depth=16, seed=2, router_model=model,
                                   measure=1500, speedup=2)).run_load(0.85)
    dec, two = run("hiradix-decoupled"), run("hiradix-twohead")
    assert dec["saturated"] and dec["accepted_throughput"] < 0.5, dec
    assert two["accepted_throughput"] > dec["accepted_throughput"] + 0.15, (dec, two)


@pytest.mark.parametrize("model,kw", [("hiradix-twohead", dict(k=4, n=2)), ("hiradix-twohead", dict(k=3, n=3)),
                                      ("hiradix-relay", dict(k=4, n=2))])
def test_twohead_keeps_each_flow_in_order(model, kw):
    """§R11.9: the second head passes a refused front only for another destination, so with one VC and a
    deterministic routing (``min``: dimension order) the packets of each source and destination arrive in the
    order they were made, at a load past saturation (``hiradix-relay``, §R11.10, too)."""
    net = build("fbfly", **kw)
    sim = Simulator(SimConfig(net, routing="min", seed=5, speedup=1, router_model=model, group=2,
                              vcs=1, vc_depth=8))
    last, n = {}, 0

    def check(rec):
        nonlocal n
        for seq, src, dst in zip(rec["seq"], rec["src"], rec["dst"]):
            key = (int(src), int(dst))
            assert last.get(key, -1) < seq, (key, last.get(key), seq)
            last[key] = int(seq)
            n += 1
    sim.on_ejected = check
    sim.step(1500, 0.9)
    sim.step(1500)
    assert n > 2000


@pytest.mark.parametrize("model,enough", [("hiradix", 10), ("hiradix-staged", 13), ("hiradix-decoupled", 13),
                                          ("hiradix-relay", 17), ("hiradix-relay1", 17)])
def test_the_credit_loop_that_lets_one_vc_stream(model, enough):
    """§R11.5, §R11.7: a bound VC asks with u(v) + 1 credits in RI's copy, which sees a credit one cycle after GO
    could; with ``enough`` flits per VC a lone 40-flit packet streams (zero-load latency), with one fewer it
    stalls on credits."""
    net = build("fbfly", k=4, n=2)
    m = get_router_model(model)

    def latency(B):
        sim = Simulator(SimConfig(net, routing="min", seed=3, packet_length=40, vc_depth=B, router_model=m))
        (lat, hops), = lone_packets(sim, [(0, 13)])
        return lat, zero_load_latency(m, hops, 40, 1)

    lat, zl = latency(enough)
    assert lat == zl
    lat, zl = latency(enough - 1)
    assert lat > zl


def test_relay_second_head_asks_beside_the_first():
    """§R11.10, the scenario of §R11.9's test under ``hiradix-relay``: the first head asks at RI 1 (RL1 2, LO 3, RL2
    4, GO 5, ST1 6), the second at RI 2 (ST1 7) for another destination; for the same one it waits for the first's
    verdict in the view, its IN at 7 (RI 7, ST1 12). Each hop eight cycles: the next router's ST1 eight later."""
    net = build("fbfly", k=4, n=2)
    kw = {"speedup": 1, "group": 2, "vcs": 1}
    two = traced(net, [(0, 0, 5), (0, 0, 9)], router_model="hiradix-relay", **kw)
    assert [[h[3] for h in two[i]["hops"]] for i in range(2)] == [[6, 14], [7, 15]]
    same = traced(net, [(0, 0, 5), (0, 0, 5)], router_model="hiradix-relay", **kw)
    assert [[h[3] for h in same[i]["hops"]] for i in range(2)] == [[6, 14], [12, 20]]


def test_relay_dropped_and_refused_requests():
    """§R11.10, §R11.7's scenario under ``hiradix-relay`` (G = 2, S = 1): RI 1 registers all three lanes, LO at 3
    keeps inputs 0 and 2 and drops input 1, GO at 5 grants input 0 (ST1 6) and refuses input 2. Input 1's dropped
    request counts through RI 4 (requests of t - 1 .. t - 3 whatever LO decided), so it asks again at RI 5 (ST1
    10); input 2's refused one counts through RI 6 (kept, t - 5), so it asks at RI 7 (ST1 12)."""
    net = build("fbfly", k=4, n=2)
    recs = traced(net, [(0, 0, 5), (0, 1, 5), (0, 2, 5)], speedup=1, router_model="hiradix-relay", group=2)
    assert [recs[i]["hops"][0][3] for i in range(3)] == [6, 10, 12]
    assert [recs[i]["ejected"] - recs[i]["hops"][0][3] for i in range(3)] == [11, 11, 11]


def test_relay_carries_what_decoupled_carries():
    """§R11.10: two cycles more in the request loop, and two heads of a VC in flight: a busy VC asks twice in seven
    cycles, where ``hiradix-decoupled`` asks once in four. The 8-ary 2-flat of
    :func:`test_twohead_carries_more_single_flit_traffic`: ``hiradix-relay`` carries more than
    ``hiradix-decoupled`` and less than ``hiradix-twohead``."""
    net = build("fbfly", k=8, n=2)

    def run(model):
        return Simulator(SimConfig(net, routing="min", vcs=2, vc_depth=16, seed=2, router_model=model,
                                   measure=1500, speedup=2)).run_load(0.85)["accepted_throughput"]
    dec, rel, two = run("hiradix-decoupled"), run("hiradix-relay"), run("hiradix-twohead")
    assert dec + 0.03 < rel < two - 0.05, (dec, rel, two)



def test_relay1_one_head_in_flight():
    """§R11.11: the scenario of :func:`test_relay_second_head_asks_beside_the_first` with one head of a VC in
    flight: the second head, for another destination too, waits for the first's verdict in the view, its IN at 7
    (RI 7, ST1 12), as the same destination waits under ``hiradix-relay``."""
    net = build("fbfly", k=4, n=2)
    kw = {"speedup": 1, "group": 2, "vcs": 1}
    for dst in (9, 5):
        recs = traced(net, [(0, 0, 5), (0, 0, dst)], router_model="hiradix-relay1", **kw)
        assert [[h[3] for h in recs[i]["hops"]] for i in range(2)] == [[6, 14], [12, 20]], dst


def test_relay1_is_the_relay_with_longer_packets():
    """§R11.11: with packets longer than a flit no second head asks, so ``hiradix-relay1`` runs ``hiradix-relay``'s
    run cycle for cycle; with single-flit packets it carries less (a busy VC asks once in six cycles, where
    ``hiradix-relay`` asks twice in seven)."""
    net = build("fbfly", k=4, n=2)

    def run(model, L):
        sim = Simulator(SimConfig(net, routing="ugal", vcs=2, vc_depth=17, seed=4, router_model=model, speedup=2,
                                  packet_length=L))
        seen = []
        sim.on_ejected = lambda rec: seen.append((rec["seq"].copy(), rec["ejected"].copy()))
        sim.step(600, 0.5)
        return np.concatenate([s for s, _ in seen]), np.concatenate([e for _, e in seen])
    for a, b in zip(run("hiradix-relay", 3), run("hiradix-relay1", 3)):
        assert len(a) > 300 and np.array_equal(a, b)
    assert len(run("hiradix-relay1", 1)[0]) < len(run("hiradix-relay", 1)[0])
