"""cocotb testbench: replay the golden model's packets into a network top and compare every packet.

Runs inside the simulator (Verilator or Icarus, via :mod:`radixnet.cosim.run`);
the job comes as JSON in ``$RADIXNET_COSIM_JOB`` (see :func:`radixnet.cosim.run.write_job`)
and the verdict goes to the JSON file the job names.

Per terminal the testbench is the §R3 source: an unbounded source queue that
takes packets at their golden ``created`` cycle, sends one flit per cycle,
the oldest packet first, into VC ``i mod V`` (packet ``i`` of the terminal)
when that VC has a credit, and counts the credits the router returns (usable
from the next cycle). The flit's ``data`` carries ``(packet id · L + flit
index) mod 2^W``, so every flit that leaves is identified. On the ejection
ports it records every flit; a packet is ejected the cycle after its tail
flit (§R3). With an egress depth ``E >= 1`` (§R3a) each terminal is an
``E``-flit egress FIFO and a sink: in cycle ``u`` the sink takes the oldest
flit that arrived before ``u`` when ``sink_ready(seed, terminal, u)`` (the
golden kernel's own function) says so, drives the ejection port's credit
(``ej_credit_t``) in that cycle, and a packet is ejected in the cycle its tail
is taken.

Checked per packet, against the golden trace (§R9): the cycle its head flit
was injected, the terminal it leaves at, the cycle it is ejected, and its
flits (in order, head and tail flags, payload) -- and **every hop**: the top's
``obs_*`` ports (``observe=True``) show every router's links, credits and
decision grants, from which :class:`radixnet.cosim.hops.HopTracker` rebuilds
each packet's path as the RTL took it (router, output port, output VC, grant
cycle, link cycle, and the header it left with: ``hops``, ``phase``,
``decided``, ``inter``, ``h1``), compared hop by hop with the golden path; the
verdict names the first hop that differs. Body flits must follow their head.

Counters (cycles a source queue waited for a credit, i.e. a full injection
buffer; the deepest source queue; cycles with a full input VC buffer; cycles
with an output VC out of credits) and the coverage bins
(:meth:`radixnet.cosim.hops.HopTracker.coverage`) go into the verdict, so a
run that never exercised backpressure or missed a bin says so.

Cycle 0 is the first cycle after reset: the inputs driven after the rising
edge that ends reset are sampled at the end of cycle 0.
"""

from __future__ import annotations

import json
import os
import time
from collections import deque
from pathlib import Path

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from radixnet.cosim.hops import HopTracker, ObsPorts, compare_path, missed_bins
from radixnet.cosim.progress import CycleReporter
from radixnet.cosim.verdict import finish, judge, start
from radixnet.golden.kernel import sink_ready


def _pack(fields: dict, **values) -> int:
    x = 0
    for name, v in values.items():
        off, w = fields[name]
        x |= (int(v) & ((1 << w) - 1)) << off
    return x


def _get(fields: dict, x: int, name: str) -> int:
    off, w = fields[name]
    return (x >> off) & ((1 << w) - 1)


@cocotb.test()
async def replay(dut):
    """Drive the golden packets, record the RTL's deliveries, compare, write the verdict."""
    job = json.loads(Path(os.environ["RADIXNET_COSIM_JOB"]).read_text())
    T, V, B, L = job["T"], job["V"], job["B"], job["L"]
    fields = {k: tuple(v) for k, v in job["fields"].items()}
    wmask = (1 << fields["data"][1]) - 1
    pk = job["packets"]                      # [id, src, dst, created, injected, ejected, inter], by id
    creation = sorted(pk, key=lambda p: (p[3], p[0]))
    data_to_flit = {}                         # data value -> (id, flit index)
    for p in pk:
        for i in range(L):
            data_to_flit[(p[0] * L + i) & wmask] = (p[0], i)
    if len(data_to_flit) != len(pk) * L:
        raise ValueError("cosim: data_width too small to identify every flit of this trace")
    last_cycle = max([p[5] for p in pk], default=0) + job.get("slack", 50)

    topo = job["topo"]
    dfield = fields["data"]
    tr = HopTracker(topo, fields, lambda x: data_to_flit.get((x >> dfield[0]) & wmask))
    obs = ObsPorts(dut, topo, job["obs_widths"])
    ej_port = {term: (r, o) for r, row in enumerate(topo["eject"]) for o, term in enumerate(row) if term is not None}

    inj_flit = [getattr(dut, f"inj_flit_t__{t}") for t in range(T)]
    inj_credit = [getattr(dut, f"inj_credit_t_ivc__{t}") for t in range(T)]
    ej_flit = [getattr(dut, f"ej_flit_t__{t}") for t in range(T)]

    E = job.get("E", 0)
    sseed, sthr = job.get("sseed", 0), job.get("sthr", 0)
    ready = sink_ready.py_func
    await start(dut, {dut.inj_valid_t: 0, **{h: 0 for h in inj_flit}, **({dut.ej_credit_t: 0} if E else {})})
    efifo = [deque() for _ in range(T)]       # E >= 1: per terminal, (pid, flit index) in arrival order
    taken = {}                                # E >= 1: id -> cycle its tail was taken (ejected, §R3a)
    overflow = sink_stalls = 0

    sq = [deque() for _ in range(T)]          # per terminal: [packet, vc] in creation order
    sent = [0] * T                            # packets of each terminal created so far
    flit_i = [0] * T                          # next flit index of the head packet
    credit = [[B] * V for _ in range(T)]
    injected, arrived = {}, {}                # id -> cycle; id -> [(cycle, terminal, flit index, head, tail)]
    stalls = max_sq = 0
    ci = 0
    done = 0
    t = 0
    t_wall = time.perf_counter()
    tick = CycleReporter(job.get("progress"), len(pk))   # the parent's progress bar: packets delivered
    # after the last delivery, the cycles until its slot's credit shows (a hop's credit follows its grant by
    # ``credit_delay`` cycles, the flit's link by one cycle fewer): the credits are part of the hop record
    linger = max(0, int(topo.get("credit_delay", 0)) - 1)
    stop_at = None
    while t <= last_cycle:
        if done == len(pk):
            stop_at = t - 1 + linger if stop_at is None else stop_at
            if t > stop_at:
                break
        tick(t, done)
        while ci < len(creation) and creation[ci][3] == t:
            p = creation[ci]
            sq[p[1]].append((p, sent[p[1]] % V))
            sent[p[1]] += 1
            ci += 1
        valid = 0
        for s in range(T):
            if not sq[s]:
                continue
            max_sq = max(max_sq, len(sq[s]))
            p, vc = sq[s][0]
            if credit[s][vc] == 0:
                stalls += 1
                continue
            i = flit_i[s]
            x = _pack(fields, head=i == 0, tail=i == L - 1, vc=vc, dest=p[2],
                      inter=p[6] if i == 0 and len(p) > 6 else 0, data=(p[0] * L + i) & wmask)
            inj_flit[s].value = x
            tr.inject(t, s, x)
            valid |= 1 << s
            credit[s][vc] -= 1
            if i == 0:
                injected[p[0]] = t
            flit_i[s] = i + 1
            if flit_i[s] == L:
                flit_i[s] = 0
                sq[s].popleft()
        dut.inj_valid_t.value = valid
        if E:   # the sinks (§R3a): each takes its FIFO's oldest flit unless the hash stalls it
            cred = 0
            for s in range(T):
                if not efifo[s]:
                    continue
                if not ready(sseed, s, t, sthr):
                    sink_stalls += 1
                    continue
                pid, i = efifo[s].popleft()
                cred |= 1 << s
                tr.credit_return(t, *ej_port[s])
                if pid >= 0 and i == L - 1:
                    taken[pid] = t
                    done += 1
            dut.ej_credit_t.value = cred
        await ReadOnly()
        obs.sample(t, tr)
        for s in range(T):
            c = int(inj_credit[s].value)
            if c:
                for v in range(V):
                    if (c >> v) & 1:
                        credit[s][v] += 1
        ev = int(dut.ej_valid_t.value)
        while ev:
            e = (ev & -ev).bit_length() - 1
            ev &= ev - 1
            x = int(ej_flit[e].value)
            key = data_to_flit.get(_get(fields, x, "data"))
            pid, i = key if key is not None else (-1, -1)
            arrived.setdefault(pid, []).append((t, e, i, _get(fields, x, "head"), _get(fields, x, "tail")))
            if E:
                efifo[e].append((pid, i))
                overflow += len(efifo[e]) > E
            elif pid >= 0 and i == L - 1:
                done += 1
        await RisingEdge(dut.clk)
        t += 1
    wall = time.perf_counter() - t_wall
    tick(t, done, force=True)

    mism = []
    paths = job["paths"]
    hops_compared = 0
    for n, p in enumerate(pk):
        pid, src, dst, created, g_inj, g_ej = p[:6]
        got = arrived.get(pid, [])
        tail = [a for a in got if a[2] == L - 1]
        problems = []
        if len(got) != L:
            problems.append(f"{len(got)} of {L} flits left the RTL")
        else:
            if any(a[1] != dst for a in got):
                problems.append(f"left at terminal(s) {sorted({a[1] for a in got})}, golden {dst}")
            if [a[2] for a in got] != list(range(L)) or got[0][3] != 1 or got[-1][4] != 1 \
                    or any(a[3] for a in got[1:]) or any(a[4] for a in got[:-1]):
                problems.append(f"flits out of order or head/tail flags wrong: {got}")
        rtl_ej = taken.get(pid) if E else tail[0][0] + 1 if tail else None
        hop = compare_path(tr.path(pid), paths[n])
        hops_compared += len(paths[n])
        if hop is None:
            body = tr.body_problems(pid, L)
            hop = (-1, created, body[0]) if body else None
        bad = judge(pid, src, dst, created, g_inj, g_ej, rtl_injected=injected.get(pid),
                    rtl_ejected=rtl_ej, problems=problems, hop=hop)
        if bad:
            mism.append(bad)
    stray = len(arrived.get(-1, []))
    coverage = tr.coverage({p[0]: (p[1], p[2], p[6] if len(p) > 6 else 0) for p in pk})
    verdict = finish(job, mism, stray_flits=stray, cycles=t, wall_s=wall,
                     cycles_per_s=t / wall if wall > 0 else 0.0, stall_cycles=stalls, max_source_queue=max_sq,
                     sink_stall_cycles=sink_stalls, egress_overflows=overflow, error=int(dut.error.value),
                     hops_compared=hops_compared, observe_errors=tr.errors[:20], **tr.counters(t),
                     coverage=coverage, missed_bins=missed_bins(coverage))
    assert not mism and not stray and not overflow and not verdict["error"] and not tr.errors, \
        f"{len(mism)} of {len(pk)} packets differ from the golden model; first: {mism[:1]}; {tr.errors[:1]}"
