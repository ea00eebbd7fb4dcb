"""cocotb testbench: the switch top's AXI4-Stream ports against cocotbext-axi's bus functional models.

Runs inside the simulator for ``tests/test_cosim_axis_bfm.py`` (through
:func:`radixnet.cosim.run.replay`); the job comes as JSON in
``$RADIXNET_COSIM_JOB``. Where :mod:`radixnet.cosim.tb_axis` replays the golden
model cycle for cycle, this one checks the protocol with independent, standard
models: per terminal ``t`` an ``AxiStreamSource`` on ``s_axis_<t>_*``, an
``AxiStreamSink`` on ``m_axis_<t>_*``, both with random pause generators, and an
``AxiStreamMonitor`` on every port.

The switch top must be built with ``egress_depth >= 1``: with ``E = 0`` the
sinks must hold ``tready`` high (router-spec §R3); with ``E >= 1`` they may stall
at will (§R3a).

Checked (the verdict lists every violation):

* every packet delivered exactly once, at its destination, bytes intact, and in
  order per (source, destination) flow when ``V = 1`` (§R3: a terminal's packets
  enter one VC in order; the table route is fixed, §R7a; a VC is a FIFO held
  from head to tail, §R5: nothing can overtake);
* egress framing (docs/axis-ports.md "Egress timing"): ``tkeep`` all ones but on
  the last beat, there the low ``len - (beats-1)*W/8`` bytes; ``tuser`` on the
  first beat is the ingress's word (:func:`radixnet.cosim.tuser_ref.encode_tuser`),
  0 on the others (the sources drive garbage there, which the ingress ignores);
* AXI4-Stream handshake rules on all ``2T`` ports (:class:`StabilityChecker`):
  once ``tvalid`` is high it stays high, and ``tdata``/``tkeep``/``tlast``/``tuser``
  stay stable, until ``tready``; beats handshaken in equal beats out, the sum of
  the packets' beats;
* each monitor's frames equal what its source sent or its sink received;
* the DUT's sticky ``error`` stays 0, and the pauses took effect: stalled beats on
  ``m_axis`` and mid-packet bubbles on ``s_axis``.

``job["faults"]`` plants violations for the checker to catch: ``source_glitch``
flips ``tdata`` bit 0 of ``s_axis_0`` on the wires while a beat is stalled;
``egress_glitch`` flips it in the checker's first sample of a stalled
``m_axis`` beat (a DUT output cannot be driven).
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from collections import deque
from pathlib import Path

import cocotb
from cocotb.triggers import ReadOnly, RisingEdge

__all__ = ["StabilityChecker", "PAYLOAD", "beats_of", "check_frame", "pauses"]

#: the signals that must stay stable while a beat waits (AXI4-Stream: tvalid high, tready low)
PAYLOAD = ("tdata", "tkeep", "tlast", "tuser")


class StabilityChecker:
    """AXI4-Stream handshake rules on one port, from one sample per clock cycle (its settled values).

    A beat is offered while ``tvalid`` is high and taken in a cycle with ``tready`` high too. After a sample
    with ``tvalid`` high and ``tready`` low the next must have ``tvalid`` high and the same :data:`PAYLOAD`.

    Parameters
    ----------
    name : str
        The port, for messages.

    Attributes
    ----------
    violations : list of str
        One line per broken rule, with the cycle.
    beats, stalls, gaps : int
        Beats taken; cycles a beat waited (``tvalid`` high, ``tready`` low); cycles with ``tvalid`` low
        inside a packet (after a beat without ``tlast`` was taken, before the packet's last).

    Examples
    --------
    >>> c = StabilityChecker("m_axis_0")
    >>> for valid, ready, data in [(1, 0, 5), (1, 0, 5), (1, 1, 5), (1, 0, 6), (1, 1, 7)]:
    ...     c.step(valid, ready, {"tdata": data, "tkeep": 15, "tlast": 1, "tuser": 0})
    >>> c.beats, c.stalls, c.violations
    (2, 3, ['m_axis_0 cycle 4: tdata changed 0x6 -> 0x7 while tvalid high and tready low'])
    """

    def __init__(self, name: str):
        self.name = name
        self.prev = None
        self.cycle = 0
        self.open = False
        self.violations: list[str] = []
        self.beats = self.stalls = self.gaps = 0

    def step(self, valid: int, ready: int, payload: dict) -> None:
        """Take the sample of one rising edge: ``tvalid``, ``tready`` and the :data:`PAYLOAD` values."""
        p = self.prev
        if p is not None and p[0] and not p[1]:
            if not valid:
                self.violations.append(f"{self.name} cycle {self.cycle}: tvalid fell before tready")
            else:
                for f in PAYLOAD:
                    if payload[f] != p[2][f]:
                        self.violations.append(f"{self.name} cycle {self.cycle}: {f} changed {p[2][f]:#x} -> "
                                               f"{payload[f]:#x} while tvalid high and tready low")
        if valid and ready:
            self.beats += 1
            self.open = not payload["tlast"]
        elif valid:
            self.stalls += 1
        elif self.open:
            self.gaps += 1
        self.prev = (valid, ready, dict(payload))
        self.cycle += 1


def pauses(rng: random.Random, p: float):
    """A pause generator for cocotbext-axi's ``set_pause_generator``: paused with probability ``p`` per cycle,
    in runs (a pause or a run of ready cycles lasts 1-4 cycles).

    >>> g = pauses(random.Random(1), 0.4)
    >>> 0.3 < sum(next(g) for _ in range(4000)) / 4000 < 0.5
    True
    """
    while True:
        paused = rng.random() < p
        for _ in range(rng.randint(1, 4)):
            yield paused


def beats_of(frame, nb: int) -> list[tuple[bytes, int, int]]:
    """An uncompacted cocotbext-axi frame as ``(bytes of the beat, tkeep, tuser)`` per beat of ``nb`` byte lanes."""
    out = []
    for i in range(0, len(frame.tdata), nb):
        keep = sum((k & 1) << j for j, k in enumerate(frame.tkeep[i:i + nb]))
        tuser = frame.tuser[i] if isinstance(frame.tuser, list) else frame.tuser
        out.append((bytes(frame.tdata[i:i + nb]), keep, int(tuser or 0)))
    return out


def check_frame(beats: list, data: bytes, tuser: int, nb: int) -> list[str]:
    """What is wrong with the egress beats ``beats`` (:func:`beats_of`) of a packet of bytes ``data`` whose first
    beat must carry ``tuser`` (docs/axis-ports.md, "Egress timing"); empty when nothing is.

    >>> check_frame([(b"abcd", 0xF, 7), (b"e\\0\\0\\0", 0x1, 0)], b"abcde", 7, 4)
    []
    >>> check_frame([(b"abcd", 0xF, 7), (b"e\\0\\0\\0", 0x3, 1)], b"abcde", 7, 4)
    ['beat 1: tkeep 0x3, want 0x1', 'beat 1: tuser 0x1, want 0x0']
    """
    n = -(-len(data) // nb)
    if len(beats) != n:
        return [f"{len(beats)} beats, want {n}"]
    bad = []
    got = b""
    for i, (b, keep, tu) in enumerate(beats):
        k = nb if i < n - 1 else len(data) - (n - 1) * nb
        if keep != (1 << k) - 1:
            bad.append(f"beat {i}: tkeep {keep:#x}, want {(1 << k) - 1:#x}")
        if tu != (tuser if i == 0 else 0):
            bad.append(f"beat {i}: tuser {tu:#x}, want {tuser if i == 0 else 0:#x}")
        got += b[:k]
    if got != data:
        bad.append(f"bytes differ: {got.hex()} != {data.hex()}")
    return bad


def _sample(bus) -> tuple[int, int, dict]:
    return (int(bus.tvalid.value), int(bus.tready.value), {f: int(getattr(bus, f).value) for f in PAYLOAD})


@cocotb.test()
async def axis_bfm(dut):
    """Random traffic through cocotbext-axi sources and sinks with pauses; check delivery and the protocol."""
    from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamMonitor, AxiStreamSink, AxiStreamSource

    from radixnet.cosim.tuser_ref import decode_tuser, encode_tuser
    from radixnet.cosim.verdict import start

    job = json.loads(Path(os.environ["RADIXNET_COSIM_JOB"]).read_text())
    T, nb, V, enc = job["T"], job["W"] // 8, job["V"], job["encoding"]
    faults = set(job.get("faults", []))
    rng = random.Random(job["seed"])
    logging.getLogger(f"cocotb.{dut._name}").setLevel(logging.WARNING)   # the BFMs log every frame at INFO

    s_bus = [AxiStreamBus.from_prefix(dut, f"s_axis_{t}") for t in range(T)]
    m_bus = [AxiStreamBus.from_prefix(dut, f"m_axis_{t}") for t in range(T)]
    src = [AxiStreamSource(b, dut.clk, dut.rst) for b in s_bus]
    snk = [AxiStreamSink(b, dut.clk, dut.rst) for b in m_bus]
    mon_s = [AxiStreamMonitor(b, dut.clk, dut.rst) for b in s_bus]
    mon_m = [AxiStreamMonitor(b, dut.clk, dut.rst) for b in m_bus]
    for t in range(T):
        src[t].set_pause_generator(pauses(random.Random(rng.random()), job["pause"]))
        snk[t].set_pause_generator(pauses(random.Random(rng.random()), job["pause"]))
    await start(dut, {})

    # the traffic: random sources, destinations and byte lengths; per flow, the packets in sending order
    flows: dict[tuple[int, int], deque] = {}
    sent = [[] for _ in range(T)]            # per source: (data, tuser word) as queued
    beats_expected = 0
    for _ in range(job["n_packets"]):
        s, d = rng.randrange(T), rng.randrange(T)
        data = rng.randbytes(rng.randint(1, job["max_len"]))
        word = encode_tuser(T, enc, length=len(data), src=s, dst=d)
        n = -(-len(data) // nb)
        garbage = [rng.getrandbits(128) for _ in range(n)]   # later beats' tuser: the ingress ignores it
        tuser = [word if j < nb else garbage[j // nb] for j in range(len(data))]
        src[s].send_nowait(AxiStreamFrame(data, tuser=tuser))
        flows.setdefault((s, d), deque()).append((data, word))
        sent[s].append((data, word))
        beats_expected += n

    chk_s = [StabilityChecker(f"s_axis_{t}") for t in range(T)]
    chk_m = [StabilityChecker(f"m_axis_{t}") for t in range(T)]
    problems: list[str] = []
    got = [[] for _ in range(T)]             # per sink: beats of each frame, in arrival order
    delivered, t0, cycle = 0, time.perf_counter(), 0
    idle_after, glitched, glitch_now = None, set(), None
    while cycle < job["max_cycles"]:
        if glitch_now is not None:           # after the edge, as a source drives: a stalled beat changes
            s_bus[0].tdata.value = glitch_now ^ 1
            glitch_now = None
        await ReadOnly()                     # the cycle's settled values: what the DUT's flops take at the edge
        for t in range(T):
            v, r, pl = _sample(s_bus[t])
            chk_s[t].step(v, r, pl)
            if "source_glitch" in faults and t == 0 and v and not r and "s" not in glitched:
                glitch_now = pl["tdata"]
                glitched.add("s")
            v, r, pl = _sample(m_bus[t])
            p = chk_m[t].prev
            if "egress_glitch" in faults and "m" not in glitched and p and p[0] and not p[1]:
                pl["tdata"] ^= 1             # the DUT's output cannot be driven: the sample changes
                glitched.add("m")
            chk_m[t].step(v, r, pl)
            while not snk[t].empty():
                got[t].append(beats_of(snk[t].recv_nowait(compact=False), nb))
                delivered += 1
        if delivered >= job["n_packets"] and all(x.idle() for x in src):
            idle_after = cycle if idle_after is None else idle_after
            if cycle - idle_after >= job["drain"]:        # a few more cycles: a duplicate would show
                break
        await RisingEdge(dut.clk)
        cycle += 1
    wall = time.perf_counter() - t0

    # delivery: per sink, each frame is the oldest outstanding packet of the flow its tuser names (V = 1, §R3);
    # with V > 1 packets of a flow may pass each other on different VCs: any outstanding one of the flow
    for d in range(T):
        for i, beats in enumerate(got[d]):
            try:
                s = decode_tuser(T, enc, beats[0][2])["src"]
            except ValueError as e:
                problems.append(f"m_axis_{d} frame {i}: tuser {beats[0][2]:#x}: {e}")
                continue
            q = flows.get((s, d))
            if not q:
                problems.append(f"m_axis_{d} frame {i}: no packet from {s} to {d} outstanding (duplicated or "
                                f"misrouted)")
                continue
            j = 0 if V == 1 else next((j for j, (x, w) in enumerate(q) if not check_frame(beats, x, w, nb)), 0)
            bad = check_frame(beats, *q[j], nb)
            if bad:
                problems.append(f"m_axis_{d} frame {i} (from {s}): " + "; ".join(bad))
            del q[j]
    for (s, d), q in flows.items():
        if q:
            problems.append(f"{len(q)} packets from {s} to {d} never delivered")
    # the monitors saw what the sources sent and the sinks took
    for t in range(T):
        seen = [beats_of(f, nb) for f in _drain(mon_s[t])]
        if [(b"".join(b[:bin(k).count("1")] for b, k, _ in f), f[0][2]) for f in seen] != sent[t]:
            problems.append(f"monitor on s_axis_{t}: its {len(seen)} frames differ from the {len(sent[t])} sent")
        seen = [beats_of(f, nb) for f in _drain(mon_m[t])]
        if seen != got[t]:
            problems.append(f"monitor on m_axis_{t}: its {len(seen)} frames differ from the sink's {len(got[t])}")
    beats_in, beats_out = sum(c.beats for c in chk_s), sum(c.beats for c in chk_m)
    if not beats_in == beats_out == beats_expected:
        problems.append(f"beats: {beats_in} in, {beats_out} out, {beats_expected} sent")
    violations = [v for c in chk_s + chk_m for v in c.violations]
    error = int(dut.error.value)
    verdict = {"packets": job["n_packets"], "delivered": delivered, "cycles": cycle, "wall_s": wall,
               "problems": problems[:20], "n_problems": len(problems), "violations": violations[:20],
               "n_violations": len(violations), "beats_expected": beats_expected, "beats_in": beats_in,
               "beats_out": beats_out, "s_stalls": sum(c.stalls for c in chk_s),
               "s_gaps": sum(c.gaps for c in chk_s), "m_stalls": sum(c.stalls for c in chk_m),
               "m_gaps": sum(c.gaps for c in chk_m), "error": error, "glitched": sorted(glitched),
               "violating_ports": sorted({v.split()[0] for v in violations})}
    Path(job["result"]).write_text(json.dumps(verdict))
    assert not problems and not violations and not error, (problems[:3], violations[:3], error)


def _drain(monitor) -> list:
    out = []
    while not monitor.empty():
        out.append(monitor.recv_nowait(compact=False))
    return out
