"""cocotb testbench: one router, every port driven from the golden trace (:mod:`radixnet.cosim.router_level`).

Each cycle it drives the flits arriving on the router's inputs and the credits
arriving on its outputs, records the flits the router sends and the credits it
returns, and at the end compares both, cycle by cycle, with the golden model's:
every hop this router makes (output port, VC, cycle and header) and every credit.

The same observations feed a :class:`radixnet.cosim.hops.HopTracker` (the router
is built with ``observe=True``, which adds its decision grants), for the
backpressure counters (``full_buffer_cycles`` at its inputs,
``credit_zero_cycles`` at its outputs) and the coverage bins ``input_vc``,
``contention`` and ``vc_class``.
"""

from __future__ import annotations

import json
import os
import time
from collections import defaultdict
from pathlib import Path

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from radixnet.cosim.hops import HopTracker, missed_bins
from radixnet.cosim.progress import CycleReporter
from radixnet.cosim.verdict import start


@cocotb.test()
async def replay_router(dut):
    """Drive the golden stimulus, compare the router's flits and credits with the golden ones."""
    job = json.loads(Path(os.environ["RADIXNET_COSIM_JOB"]).read_text())
    P, V = job["P"], job["V"]
    off, width = job["fields"]["data"]
    dmask = (1 << width) - 1
    arr = defaultdict(list)
    for c, p, f, _ in job["arrivals"]:
        arr[c].append((p, f))
    cin = defaultdict(list)
    for c, o, v in job["credits_in"]:
        cin[c].append((o, v))
    exp_out = {(c, o, f) for c, o, f, _ in job["expected_out"]}
    pid_of = {(job["expected_out"][i][0], job["expected_out"][i][1]): job["expected_out"][i][3]
              for i in range(len(job["expected_out"]))}
    last = max([e[0] for e in job["expected_out"]] + [e[0] for e in job["credits_in"]] + [0]) + 10

    in_flit = [getattr(dut, f"in_flit_ip__{p}") for p in range(P)]
    cr_in = [getattr(dut, f"credit_in_op_ovc__{p}") for p in range(P)]
    cr_out = [getattr(dut, f"credit_out_ip_ivc__{p}") for p in range(P)]
    # router-spec §R11.9: which credits are for the flit behind the front (absent: none)
    cr1_out = [getattr(dut, f"obs_credit1_ip_ivc__{p}") for p in range(P)] if job["topo"].get("heads", 1) > 1 else []
    out_flit = [getattr(dut, f"out_flit_op__{p}") for p in range(P)]
    await start(dut, {dut.in_valid_ip: 0, **{h: 0 for h in in_flit + cr_in}})
    S = job["topo"]["S"]
    dec_ivc = [getattr(dut, f"obs_dec_ivc_ip_lane__{i}") for i in range(P * S)]
    dec_op = [getattr(dut, f"obs_dec_op_ip_lane__{i}") for i in range(P * S)]
    tr = HopTracker(job["topo"], job["fields"], lambda x: ((x >> off) & dmask, 0))

    got_out, got_credit = [], []
    driven_cr = set()
    t_wall = time.perf_counter()
    tick = CycleReporter(job.get("progress"), last + 1)   # the parent's progress bar: cycles
    for t in range(last + 1):
        tick(t, t)
        valid = 0
        for p, f in arr.get(t, ()):
            in_flit[p].value = f
            valid |= 1 << p
            tr.arrive(t, 0, p, f)
        dut.in_valid_ip.value = valid
        bits = defaultdict(int)
        for o, v in cin.get(t, ()):
            bits[o] |= 1 << v
            tr.credit_return(t, 0, o, v)
        for o in driven_cr | set(bits):
            cr_in[o].value = bits.get(o, 0)
        driven_cr = set(bits)
        await ReadOnly()
        for p in range(P):
            c = int(cr_out[p].value)
            if c:
                tr.credits(t, 0, p, c, int(cr1_out[p].value) if cr1_out else 0)
            for v in range(V):
                if (c >> v) & 1:
                    got_credit.append((t, p, v))
        d = int(dut.obs_dec_gnt_ip_lane.value)
        if d:
            lanes = []
            while d:
                i = (d & -d).bit_length() - 1
                d &= d - 1
                lanes.append((i // S, i % S, int(dec_ivc[i].value), int(dec_op[i].value)))
            tr.decide(t, 0, lanes)
        ov = int(dut.out_valid_op.value)
        while ov:
            o = (ov & -ov).bit_length() - 1
            ov &= ov - 1
            x = int(out_flit[o].value)
            got_out.append((t, o, x))
            tr.send(t, 0, o, x)
        await RisingEdge(dut.clk)
    wall = time.perf_counter() - t_wall
    tick(last + 1, last + 1, force=True)

    got_set = set(got_out)
    mism = []
    for c, o, f, pid in job["expected_out"]:
        if (c, o, f) not in got_set:
            other = [g for g in got_out if ((g[2] >> off) & dmask) == ((f >> off) & dmask)]
            mism.append({"id": pid, "diverged_by": min([c] + [g[0] for g in other]),
                         "problems": [f"golden: sent on port {o} in cycle {c} as {f:#x}; RTL: "
                                      + (", ".join(f"port {g[1]} cycle {g[0]} as {g[2]:#x}" for g in other)
                                         or "never sent")]})
    extra = [g for g in got_out if g not in exp_out]
    for g in extra:
        if not any(m["id"] == pid_of.get((g[0], g[1])) for m in mism):
            mism.append({"id": pid_of.get((g[0], g[1]), -1), "diverged_by": g[0],
                         "problems": [f"RTL sent {g[2]:#x} on port {g[1]} in cycle {g[0]}, not in the golden trace"]})
    want_cr = sorted(tuple(x) for x in job["expected_credits"])
    cr_bad = sum((a != b) for a, b in zip(want_cr, sorted(got_credit))) + abs(len(want_cr) - len(got_credit))
    mism = [m for m in mism if m["id"] >= 0] + [m for m in mism if m["id"] < 0]
    mism.sort(key=lambda m: (m["diverged_by"], m["id"]))
    coverage = tr.coverage({p[0]: (p[1], p[2], p[3]) for p in job["topo"].get("pk", [])})
    verdict = {"packets": len(job["expected_out"]), "mismatches": len(mism), "first": mism[:20],
               "credit_mismatches": cr_bad, "cycles": last + 1, "wall_s": wall,
               "cycles_per_s": (last + 1) / wall if wall > 0 else 0.0, "error": int(dut.error.value),
               "stray_flits": 0, "hops_compared": len(job["expected_out"]), **tr.counters(last + 1),
               "coverage": coverage, "missed_bins": missed_bins(coverage)}
    with open(job["result"], "w") as fh:
        json.dump(verdict, fh)
    assert not mism and not cr_bad and not verdict["error"], \
        f"{len(mism)} of {len(job['expected_out'])} router traversals differ; first: {mism[:1]}"
