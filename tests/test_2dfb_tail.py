"""The adaptive 2DFB's latency tail on adversarial traffic (docs/studies.md, "The adaptive 2DFB's latency
tail"): one terminal starves, and which one follows from the spec (router-spec §R6's sequential allocator,
§R7b's non-minimal search order), not from a fault in the kernel."""

import numpy as np
import pytest

from radixnet.gen import build
from radixnet.golden.sim import SimConfig, Simulator


@pytest.fixture(scope="module")
def adversarial_06():
    """The 8-ary 1-dim 2DFB (N = 64), ``2dfb-adaptive`` on ``2dfb-adversarial`` at 0.6, seed 1 (the study's
    point): the run's result and, for its labelled packets, source, creation, injection, ejection and the
    first hop's router and grant cycle."""
    net = build("2dfb", k=8, n=1)
    sim = Simulator(SimConfig(net, routing="2dfb-adaptive", traffic="2dfb-adversarial", seed=1, speedup=2), trace=True)
    parts = []

    def keep(rec):
        parts.append(np.stack([rec["src"], rec["created"], rec["injected"], rec["ejected"],
                               rec["hop"][:, 0, 0], rec["hop"][:, 0, 3]], axis=1).astype(np.int64))

    sim.on_ejected = keep
    res = sim.run_load(0.6)
    a = np.concatenate(parts)
    t0 = res["warmup_cycles"]
    a = a[(a[:, 1] >= t0) & (a[:, 1] < t0 + res["measure_cycles"])]
    return net, res, dict(zip(("src", "created", "injected", "ejected", "router", "grant"), a.T))


def test_the_tail_is_one_starving_terminal(adversarial_06):
    """p99 and max far above the mean, and every slow packet is terminal 63's (router 7, terminal port 7):
    it waits in its source queue behind router 7's full input buffer; every other terminal's packets wait
    no more than a few cycles there."""
    net, res, p = adversarial_06
    lat = p["ejected"] - p["created"]
    assert len(lat) == res["labelled_packets"]
    assert np.percentile(lat, 99) > 10 * lat.mean() and lat.max() > 40 * lat.mean()
    slow = lat > 100
    assert slow.sum() > 500 and set(p["src"][slow].tolist()) == {63}
    assert net.inj_router[63] == 7 and net.inj_port[63] == 7
    queued = p["injected"] - p["created"]
    t63 = p["src"] == 63
    assert queued[t63].mean() > 100 and queued[~t63].max() <= 20


def test_terminal_63_wins_router_7_only_when_the_allocator_serves_it_early(adversarial_06):
    """§R6: the sequential allocator serves router 7's 22 inputs from ``start = t mod 22`` on (the pointer
    advances every cycle). Input 7 comes right after inputs 0..6 in every cycle but ``start = 7``; behind all
    14 network inputs when ``start = 8``. Terminal 63's first-hop grants cluster where it is served early."""
    net, res, p = adversarial_06
    P = int(net.radix[7])
    assert P == 22
    g = p["grant"][p["src"] == 63] % P
    counts = np.bincount(g, minlength=P)
    early = counts[5:8].sum()        # start 5, 6, 7: at most two inputs ahead of input 7
    late = counts[8:15].sum()        # start 8..14: at least 14 inputs ahead (the network inputs from start on, 0..6)
    assert early > 3 * late, counts.tolist()
    assert counts[8] <= counts[7] / 10, counts.tolist()
