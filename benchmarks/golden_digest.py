"""Golden-model digests: prove a kernel change leaves every result the same to the bit.

The digests of the tree are pinned in ``tests/data/golden_digests.json``, and the default test run checks
them (``tests/test_native.py``). Before and after a change to ``golden/`` that must not change behaviour::

    .venv/bin/python benchmarks/golden_digest.py --compare tests/data/golden_digests.json

and after a change that does (the spec changed first), pin the new digests and commit the file::

    .venv/bin/python benchmarks/golden_digest.py --save tests/data/golden_digests.json

It runs 143 short simulations (every HyperX routing under the single-cycle, iq and hiradix models, single-
and multi-flit packets, speedup 1 and 2, terminals with egress FIFOs and stalling sinks, uniform and
worst-case traffic, the 2DFB priority routing, table routings on a torus, a Clos, a dragonfly and, under
``hiradix``, a Slim Fly, the subswitch model's table routings, UGAL-S under the decision line, traces on, the 32-ary reference
configuration) and hashes each one's ejection records, flits ejected per cycle, channel counts and hop
traces; then twelve ``run_load`` results (warm-up, measurement, drain, the saturation verdict; their
floating-point figures to 12 significant digits, so that a reduction's last bit, which numpy's SIMD paths may
order differently on another CPU, does not count). ``--compare`` prints every configuration whose digest
differs and exits 1.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

import numpy as np

from radixnet.gen import build
from radixnet.golden.sim import SimConfig, Simulator


def cases():
    """(family, its parameters, SimConfig keywords, load, trace) of each stepped simulation."""
    for rt in ("min", "min-ad", "val", "ugal", "ugal-s", "clos-ad"):
        for model in ("single-cycle", "iq"):
            for L, E, S in ((1, 0, 1), (4, 0, 2), (3, 2, 1)):
                for tr, load in (("uniform", 0.4), ("worst-case", 0.9)):
                    yield ("fbfly", {"k": 4, "n": 2}, dict(routing=rt, router_model=model, packet_length=L,
                           egress_depth=E, sink_stall=0.3 if E else 0.0, speedup=S, traffic=tr), load, False)
    yield "fbfly", {"k": 3, "n": 3}, dict(routing="ugal-s"), 0.5, True
    yield "fbfly", {"k": 3, "n": 3}, dict(routing="min-ad", packet_length=2, router_model="iq"), 0.5, True
    yield "2dfb", {"k": 8, "n": 1}, dict(routing="2dfb-adaptive"), 0.6, True
    yield "2dfb", {"k": 3, "n": 2}, dict(routing="2dfb-adaptive", router_model="iq", packet_length=2), 0.9, False
    yield "torus", {}, dict(routing="dor"), 0.3, True
    yield "clos", {}, dict(routing="clos-adaptive"), 0.5, False
    yield "dragonfly", {"p": 2}, dict(routing="sp"), 0.5, True
    ref = dict(routing="min", vcs=2, vc_depth=16, speedup=2)
    yield "fbfly", {"k": 32, "n": 2}, ref, 0.3, False
    yield "fbfly", {"k": 32, "n": 2}, {**ref, "traffic": "worst-case"}, 0.8, False
    # the hiradix model (router-spec §R11): every HyperX routing as above, and the other families' routings
    for rt in ("min", "min-ad", "val", "ugal", "ugal-s", "clos-ad"):
        for L, E, S in ((1, 0, 1), (4, 0, 2), (3, 2, 1)):
            for tr, load in (("uniform", 0.4), ("worst-case", 0.9)):
                yield ("fbfly", {"k": 4, "n": 2}, dict(routing=rt, router_model="hiradix", packet_length=L,
                       egress_depth=E, sink_stall=0.3 if E else 0.0, speedup=S, traffic=tr), load, False)
    yield "fbfly", {"k": 3, "n": 3}, dict(routing="ugal-s", router_model="hiradix", packet_length=2), 0.5, True
    yield "fbfly", {"k": 3, "n": 3}, dict(routing="min-ad", router_model="hiradix"), 0.5, True
    yield "2dfb", {"k": 8, "n": 1}, dict(routing="2dfb-adaptive", router_model="hiradix"), 0.6, True
    yield "2dfb", {"k": 3, "n": 2}, dict(routing="2dfb-adaptive", router_model="hiradix", packet_length=2), 0.9, False
    yield "torus", {}, dict(routing="dor", router_model="hiradix", link_latency=2), 0.3, True
    yield "clos", {}, dict(routing="clos-adaptive", router_model="hiradix"), 0.5, False
    yield "slimfly", {"q": 5}, dict(routing="ugal-l", router_model="hiradix", packet_length=3), 0.7, True
    yield "slimfly", {"q": 5}, dict(routing="ugal-s", router_model="hiradix"), 0.9, False
    # the subswitch model (router-spec §R12): table routings, sub-switches of 2, 3 and 4 ports
    for L, E, G in ((1, 0, 4), (3, 2, 2), (4, 0, 3)):
        yield ("fbfly", {"k": 4, "n": 2}, dict(routing="sp", router_model="subswitch", speedup=1, packet_length=L,
               egress_depth=E, sink_stall=0.3 if E else 0.0, group=G), 0.6, L == 3)
    yield "torus", {}, dict(routing="dor", router_model="subswitch", speedup=1, packet_length=2), 0.4, True
    yield "slimfly", {"q": 5}, dict(routing="sp", router_model="subswitch", speedup=1, group=4), 0.5, False
    yield "fbfly", {"k": 3, "n": 3}, dict(routing="sp", router_model="subswitch", speedup=1, vcs=4), 0.9, False
    # hiradix-local (router-spec §R11.6): local output arbiters in groups of 2, 3 and 4 inputs
    for rt, L, S, G in (("min", 1, 2, 4), ("min-ad", 3, 1, 3), ("ugal-s", 2, 2, 2), ("val", 1, 1, 4)):
        yield ("fbfly", {"k": 4, "n": 2}, dict(routing=rt, router_model="hiradix-local", packet_length=L, speedup=S,
               group=G), 0.8, L == 3)
    yield "slimfly", {"q": 5}, dict(routing="ugal-l", router_model="hiradix-local", packet_length=2), 0.7, False
    # hiradix-staged (router-spec §R11.7): LO and the crossbar in cycles of their own, u(v) up to 3
    for rt, L, S, G in (("min", 1, 2, 4), ("min-ad", 3, 1, 3), ("ugal-s", 2, 2, 2), ("val", 6, 1, 4)):
        yield ("fbfly", {"k": 4, "n": 2}, dict(routing=rt, router_model="hiradix-staged", packet_length=L, speedup=S,
               group=G), 0.8, L == 3)
    yield "slimfly", {"q": 5}, dict(routing="ugal-l", router_model="hiradix-staged", packet_length=2), 0.7, False
    # hiradix-decoupled (router-spec §R11.8): u(v) counts a request LO dropped until a cycle after LO's verdict
    for rt, L, S, G in (("min", 3, 2, 2), ("ugal-s", 2, 2, 2)):
        yield ("fbfly", {"k": 4, "n": 2}, dict(routing=rt, router_model="hiradix-decoupled", packet_length=L,
               speedup=S, group=G), 0.8, L == 3)
    # hiradix-relay (router-spec §R11.10): second heads through the relays, and a bound VC with up to five requests
    for rt, L, S, G in (("min", 1, 2, 2), ("val", 6, 1, 4)):
        yield ("fbfly", {"k": 4, "n": 2}, dict(routing=rt, router_model="hiradix-relay", packet_length=L,
               speedup=S, group=G), 0.8, L == 6)
    # UGAL-S decided in the decision line, its chain beside GO (router-spec §R11.2a)
    yield ("fbfly", {"k": 4, "n": 2}, dict(routing="ugal-s", router_model="hiradix", seq_wavefront=2, speedup=1,
           packet_length=3), 0.5, True)
    yield ("fbfly", {"k": 3, "n": 3}, dict(routing="ugal-s", router_model="hiradix", seq_wavefront=1, speedup=2),
           0.7, False)


LOAD_CASES = [("fbfly", {"k": 4, "n": 2}, dict(routing="ugal-s")),
              ("fbfly", {"k": 4, "n": 2}, dict(routing="min", traffic="worst-case")),
              ("fbfly", {"k": 8, "n": 2}, dict(routing="min-ad", router_model="iq", packet_length=3)),
              ("fbfly", {"k": 8, "n": 2}, dict(routing="ugal-s", router_model="hiradix", packet_length=2))]


#: the speedup of a case that names none (the digests were pinned at 2; a case may set its own)
CASE_SPEEDUP = 2
#: the offered loads of each run_load case
RUN_LOADS = (0.2, 0.6, 0.95)


def n_digests() -> int:
    """How many digests :func:`digests` gives: one per case, one per run_load case and load."""
    return len(list(cases())) + len(RUN_LOADS) * len(LOAD_CASES)


def digests() -> dict[str, str]:
    out = {}
    for fam, fk, kw, load, trace in cases():
        sim = Simulator(SimConfig(build(fam, **fk), seed=3, window=200, **{"speedup": CASE_SPEEDUP, **kw}), trace=trace)
        h = hashlib.sha256()
        recs = []
        if trace:
            sim.on_ejected = lambda rec: recs.append({k: np.asarray(v).copy() for k, v in rec.items()})
        for _ in range(3):
            r = sim.step(200, load)
            if r["ejected"] is not None:
                for k in sorted(r["ejected"]):
                    h.update(k.encode())
                    h.update(np.ascontiguousarray(r["ejected"][k]).tobytes())
            h.update(np.asarray(r["ej_flits"], np.int64).tobytes())
        for rec in recs:
            for k in sorted(rec):
                h.update(k.encode())
                h.update(np.ascontiguousarray(rec[k]).astype(np.int64).tobytes())
        h.update(np.asarray(sim.ch_flits, np.int64).tobytes())
        out[f"{fam} {fk} {kw} {load}"] = h.hexdigest()[:16]
    for fam, fk, kw in LOAD_CASES:
        for load in RUN_LOADS:
            sim = Simulator(SimConfig(build(fam, **fk), seed=5, window=300, measure=1500, max_warmup=4,
                                      **{"speedup": CASE_SPEEDUP, **kw}))
            r = sim.run_load(load)
            r.pop("wall_seconds", None)
            out[f"run_load {fam} {fk} {kw} {load}"] = hashlib.sha256(json.dumps(canonical(r), sort_keys=True)
                                                                     .encode()).hexdigest()[:16]
    return out


def canonical(x):
    """``x`` with every float to 12 significant digits (recursively through dicts and lists).

    >>> canonical({"a": [0.1 + 0.2, 3], "b": 2.0})
    {'a': [0.3, 3], 'b': 2.0}
    """
    if isinstance(x, float):
        return float(f"{x:.12g}")
    if isinstance(x, dict):
        return {k: canonical(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [canonical(v) for v in x]
    return x


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--save", metavar="FILE", help="write the digests to FILE")
    g.add_argument("--compare", metavar="FILE", help="compare with the digests in FILE (exit 1 on a difference)")
    args = ap.parse_args()
    now = digests()
    if args.save:
        with open(args.save, "w") as fh:
            json.dump(now, fh, indent=0, sort_keys=True)
        print(f"{len(now)} digests written to {args.save}")
        return 0
    with open(args.compare) as fh:
        before = json.load(fh)
    diff = [k for k in sorted(set(now) | set(before)) if now.get(k) != before.get(k)]
    for k in diff:
        print(f"differs: {k}")
    print(f"{len(now) - len(diff)} of {len(now)} digests identical")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
