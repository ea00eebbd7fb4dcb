"""cocotb testbench: the golden model's packets through the AXI4-Stream ports of a switch top.

Runs inside the simulator for :func:`radixnet.cosim.run.cosim_network` with
``terminals="axis"`` (the :class:`radixnet.hdl.switch.AxisSwitchTop`); the job
comes as JSON in ``$RADIXNET_COSIM_JOB``.

Per terminal the testbench is an AXI4-Stream master holding an unbounded
source queue (§R3): a packet joins it at its golden ``created`` cycle, and the
oldest packet's beats are offered (``tvalid``) one per cycle, each taken when
``tready`` is high (the ingress raises it only when the packet's VC, ``i mod
V``, has a credit). Each packet has a length in bytes from the job (its last
beat partial, ``tkeep`` accordingly) and pseudo-random payload bytes whose
first four bytes are its id. The sinks hold ``m_axis_tready`` high (ideal
sinks, §R3), or with an egress depth ``E >= 1`` and a stall probability drive
it from the golden kernel's ``sink_ready(seed, terminal, cycle)`` (§R3a), and
collect every beat taken.

Checked per packet against the golden trace (§R9): the cycle its first beat
was taken (the head flit's injection), the terminal it leaves at, the cycle of
its last beat on ``m_axis`` (its ejection), its bytes, ``tkeep`` and ``tuser``
(length, source and destination ports) on the first beat -- and **every hop**:
the switch top's ``obs_*`` ports (``observe=True``) show the flits the
ingresses inject, every router's links, credits and decision grants, from which
:class:`radixnet.cosim.hops.HopTracker` rebuilds each packet's path as the RTL
took it (router, output port, output VC, grant cycle, link cycle, header),
compared hop by hop with the golden path, and each egress's ``m_route`` (the
header the head flit was ejected with) on the first beat. The verdict names
the first hop that differs, and carries the backpressure counters and the
coverage bins (:mod:`radixnet.cosim.hops`).
"""

from __future__ import annotations

import json
import os
import random
import time
from collections import deque
from pathlib import Path

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

from radixnet.cosim.hops import HEADER_FIELDS, HopTracker, ObsPorts, compare_path, missed_bins
from radixnet.cosim.progress import CycleReporter
from radixnet.cosim.verdict import finish, judge, start
from radixnet.golden.kernel import sink_ready


def packet_bytes(pid: int, length: int) -> bytes:
    """The payload of packet ``pid``: its id in the first four bytes (little endian), then pseudo-random bytes."""
    body = random.Random(pid).randbytes(max(0, length - 4))
    return (pid.to_bytes(4, "little") + body)[:length]


@cocotb.test()
async def replay_axis(dut):
    """Drive the golden packets as AXI4-Stream beats, collect the beats that leave, compare, write the verdict."""
    job = json.loads(Path(os.environ["RADIXNET_COSIM_JOB"]).read_text())
    T, nb = job["T"], job["W"] // 8
    pk = job["packets"]          # [id, src, dst, created, injected, ejected, length, tuser]
    # the tuser driven and expected: encoded from docs/axis-ports.md (cosim/tuser_ref.py), not by the
    # TuserLayout.pack that made the job's and the RTL's layout (docs/axis-ports.md, tuser)
    from radixnet.cosim.tuser_ref import encode_tuser
    want_tuser = {p[0]: encode_tuser(T, job["tuser"]["encoding"], length=p[6], src=p[1], dst=p[2]) for p in pk}
    creation = sorted(pk, key=lambda p: (p[3], p[0]))
    last_cycle = max([p[5] for p in pk], default=0) + job.get("slack", 50)
    full = (1 << nb) - 1

    s = [{f: getattr(dut, f"s_axis_{t}_{f}") for f in ("tdata", "tkeep", "tlast", "tvalid", "tuser", "tready")}
         for t in range(T)]
    mo = [{f: getattr(dut, f"m_axis_{t}_{f}") for f in ("tdata", "tkeep", "tlast", "tvalid", "tuser", "tready")}
          for t in range(T)]
    await start(dut, {**{s[t][f]: 0 for t in range(T) for f in ("tdata", "tkeep", "tlast", "tvalid", "tuser")},
                      **{mo[t]["tready"]: 1 for t in range(T)}})
    topo, fields = job["topo"], {k: tuple(v) for k, v in job["fields"].items()}
    hoff, doff = fields["head"][0], fields["data"][0]
    # a head flit's payload starts with the beat's tdata, whose first four bytes are the packet id
    tr = HopTracker(topo, fields, lambda x: ((x >> doff) & 0xFFFFFFFF, 0) if (x >> hoff) & 1 else None)
    obs = ObsPorts(dut, topo, job["obs_widths"])
    F, fmask = obs.F, obs.fmask
    ej_port = {term: (r, o) for r, row in enumerate(topo["eject"]) for o, term in enumerate(row) if term is not None}
    rlay = {k: tuple(v) for k, v in job["route"].items()}
    rw = sum(w for _, w in rlay.values())
    routes = {}                           # id -> the egress's m_route with the first beat

    sq = [deque() for _ in range(T)]    # per terminal: [packet, its beats] in creation order
    beat_i = [0] * T
    offered = [None] * T                  # per terminal: (packet id, beat) its ports offer, None when idle
    injected, out = {}, {}                # id -> cycle; id -> dict(terminal, bytes, keep_ok, tuser, ejected)
    open_pkt = [None] * T                 # terminal -> (id, bytearray, tuser, beats, keep problems)
    stray = stalls = max_sq = sink_stalls = 0
    sseed, sthr = job.get("sseed", 0), job.get("sthr", 0)
    ready = sink_ready.py_func
    ci = done = t = 0
    t_wall = time.perf_counter()
    tick = CycleReporter(job.get("progress"), len(pk))   # the parent's progress bar: packets delivered
    while t <= last_cycle and done < len(pk):
        tick(t, done)
        while ci < len(creation) and creation[ci][3] == t:
            p = creation[ci]
            data = packet_bytes(p[0], p[6])
            beats = [data[i:i + nb] for i in range(0, len(data), nb)]
            sq[p[1]].append((p, beats))
            ci += 1
        for k in range(T):
            if not sq[k]:
                if offered[k]:
                    s[k]["tvalid"].value = 0
                    offered[k] = None
                continue
            max_sq = max(max_sq, len(sq[k]))
            p, beats = sq[k][0]
            i = beat_i[k]
            if offered[k] == (p[0], i):   # the beat offered last cycle, still waiting: the ports hold it
                continue
            b = beats[i]
            s[k]["tdata"].value = int.from_bytes(b, "little")
            s[k]["tkeep"].value = full if len(b) == nb else (1 << len(b)) - 1
            s[k]["tlast"].value = int(i == len(beats) - 1)
            s[k]["tuser"].value = want_tuser[p[0]] if i == 0 else 0
            s[k]["tvalid"].value = 1
            offered[k] = (p[0], i)
        rdy = [1] * T
        if sthr:   # the sinks stall as the golden model's do (§R3a)
            for k in range(T):
                rdy[k] = int(ready(sseed, k, t, sthr))
                mo[k]["tready"].value = rdy[k]
        await ReadOnly()
        obs.sample(t, tr)
        iv = int(dut.obs_inj_valid_t.value)
        if iv:
            xi = int(dut.obs_inj_flit_t.value)
            while iv:
                k = (iv & -iv).bit_length() - 1
                iv &= iv - 1
                tr.inject(t, k, (xi >> (k * F)) & fmask)
        for k in range(T):
            if offered[k]:
                if int(s[k]["tready"].value):
                    p, beats = sq[k][0]
                    if beat_i[k] == 0:
                        injected[p[0]] = t
                    beat_i[k] += 1
                    if beat_i[k] == len(beats):
                        beat_i[k] = 0
                        sq[k].popleft()
                else:
                    stalls += 1
            if not int(mo[k]["tvalid"].value):
                continue
            if not rdy[k]:
                sink_stalls += 1
            else:
                if job.get("E"):   # the egress FIFO's freed slot is the ejection port's credit (§R3a)
                    tr.credit_return(t, *ej_port[k])
                data = int(mo[k]["tdata"].value).to_bytes(nb, "little")
                keep = int(mo[k]["tkeep"].value)
                nbytes = bin(keep).count("1")
                if open_pkt[k] is None:
                    open_pkt[k] = [bytearray(), int(mo[k]["tuser"].value), [], keep,
                                   (int(dut.obs_m_route_t.value) >> (k * rw)) & ((1 << rw) - 1)]
                rec = open_pkt[k]
                if keep != (1 << nbytes) - 1:
                    rec[2].append(f"non-contiguous tkeep {keep:#x}")
                elif not int(mo[k]["tlast"].value) and keep != full:
                    rec[2].append(f"partial tkeep {keep:#x} before the last beat")
                rec[0] += data[:nbytes]
                if int(mo[k]["tlast"].value):
                    open_pkt[k] = None
                    pid = int.from_bytes(bytes(rec[0][:4]), "little") if len(rec[0]) >= 4 else -1
                    if pid in out or pid not in injected:
                        stray += 1
                    else:
                        out[pid] = {"terminal": k, "bytes": bytes(rec[0]), "tuser": rec[1], "problems": rec[2],
                                    "ejected": t}
                        routes[pid] = {f: (rec[4] >> off) & ((1 << w) - 1) for f, (off, w) in rlay.items()}
                        done += 1
        await RisingEdge(dut.clk)
        t += 1
    wall = time.perf_counter() - t_wall
    tick(t, done, force=True)

    mism = []
    paths = job["paths"]
    hops_compared = 0
    for n, p in enumerate(pk):
        pid, src, dst, created, g_inj, g_ej, length, tuser = p
        got = out.get(pid)
        problems = []
        if got is None:
            problems.append("never left the RTL")
        else:
            problems += got["problems"]
            if got["terminal"] != dst:
                problems.append(f"left at terminal {got['terminal']}, golden {dst}")
            if got["bytes"] != packet_bytes(pid, length):
                problems.append(f"payload differs ({len(got['bytes'])} bytes, sent {length})")
            if got["tuser"] != want_tuser[pid]:
                problems.append(f"tuser {got['tuser']:#x}, sent {want_tuser[pid]:#x} (docs/axis-ports.md)")
        if int(tuser) != want_tuser[pid]:
            problems.append(f"the job's tuser {int(tuser):#x} (TuserLayout.pack) is not docs/axis-ports.md's "
                            f"{want_tuser[pid]:#x}")
        hop = compare_path(tr.path(pid), paths[n])
        hops_compared += len(paths[n])
        if hop is None and pid in routes and paths[n]:   # the egress's m_route: the ejection hop's header
            want = dict(zip(HEADER_FIELDS, paths[n][-1][5:]))
            bad_f = [f for f in rlay if routes[pid][f] != want[f]]
            if bad_f:
                hop = (len(paths[n]) - 1, g_ej, f"m_route at terminal {dst}: "
                       + ", ".join(f"{f} {routes[pid][f]}, golden {want[f]}" for f in bad_f))
        if hop is None:
            body = tr.body_problems(pid, job["L"])
            hop = (-1, created, body[0]) if body else None
        bad = judge(pid, src, dst, created, g_inj, g_ej, rtl_injected=injected.get(pid),
                    rtl_ejected=got["ejected"] if got else None, problems=problems, hop=hop)
        if bad:
            mism.append(bad)
    coverage = tr.coverage({p[0]: (p[1], p[2], 0) for p in pk})
    verdict = finish(job, mism, stray_flits=stray, cycles=t, wall_s=wall,
                     cycles_per_s=t / wall if wall > 0 else 0.0, stall_cycles=stalls, max_source_queue=max_sq,
                     sink_stall_cycles=sink_stalls, error=int(dut.error.value), hops_compared=hops_compared,
                     observe_errors=tr.errors[:20], **tr.counters(t), coverage=coverage,
                     missed_bins=missed_bins(coverage))
    assert not mism and not stray and not verdict["error"] and not tr.errors, \
        f"{len(mism)} of {len(pk)} packets differ from the golden model; first: {mism[:1]}; {tr.errors[:1]}"
