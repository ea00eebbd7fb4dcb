"""Helpers of the golden-model tests: single packets through an empty network."""

import numpy as np


def lone_packets(sim, pairs):
    """Send each (src, dst) as the only packet in the network; return (latency, hops) per packet."""
    out = []
    for s, d in pairs:
        recs = []
        sim.on_ejected = recs.append
        sim.step(1, batch_cycles=np.array([sim.t]), batch_src=np.array([s]), batch_dst=np.array([d]))
        for _ in range(50):
            if sim.collected == sim.next_seq:
                break
            sim.step(20)
        (rec,) = [r for r in recs if r is not None]
        out.append((int(rec["ejected"][0] - rec["created"][0]), int(rec["hops"][0])))
    return out
