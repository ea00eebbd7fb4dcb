"""AXI4-Stream terminal ports (docs/axis-ports.md): AxisIngress -> behavioural router port -> AxisEgress.

The router port model (written here from docs/router-spec.md §R2/§R3) holds V input VC buffers of
B flits: a flit sent on the injection link in cycle t is written at the end of t, can be ejected
from t + 1, and its credit goes back in the ejection cycle (usable by the ingress from the next
cycle). It ejects one packet at a time (see docs/axis-ports.md, "Interleaving"). Then the ports
next to a real Router, parameter validation, Verilator lint and Yosys synthesis."""

import random
import shutil
from collections import deque

import pytest
from amaranth import Module
from amaranth.sim import Simulator

from radixnet.hdl.arbiter import ptr_width
from radixnet.hdl.axis import (
    AxisEgress,
    AxisIngress,
    axis_flit_layout,
    connect_router_port,
    payload_layout,
    tuser_layout,
)
from radixnet.hdl.rtlgen import flat_verilog
from radixnet.hdl.verilog import WAIVERS, lint, synth

needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")
needs_yosys = pytest.mark.skipif(shutil.which("yosys") is None, reason="yosys not installed (make setup)")


# ------------------------------------------------------------------ helpers
def pack(lay, fields):
    """Integer of a StructLayout from a dict of (possibly nested-int) field values."""
    return sum((v & ((1 << lay[k].width) - 1)) << lay[k].offset for k, v in fields.items())


def unpack(lay, bits):
    return {k: (bits >> lay[k].offset) & ((1 << lay[k].width) - 1) for k in lay.members}


def make_packets(rng, n, T, dw, *, max_beats=4, user_bits=0):
    """n random packets: (length bytes, src, dst, user, [tdata per beat])."""
    bpb = dw // 8
    out = []
    for _ in range(n):
        length = rng.randint(1, max_beats * bpb)
        beats = -(-length // bpb)
        out.append((length, rng.randrange(T), rng.randrange(T), rng.getrandbits(user_bits) if user_bits else 0,
                    [rng.getrandbits(dw) for _ in range(beats)]))
    return out


def keep_of(remaining, bpb):
    return (1 << min(max(remaining, 0), bpb)) - 1


def axi_beats(tu, pkt, dw, rng):
    """The AXI beats of one packet: (tdata, tkeep, tlast, tuser); tuser is garbage after the first beat."""
    length, src, dst, user, words = pkt
    bpb = dw // 8
    out = []
    for k, word in enumerate(words):
        tuser = tu.pack(length, src, dst, user) if k == 0 else rng.getrandbits(128)
        out.append((word, keep_of(length - k * bpb, bpb), int(k == len(words) - 1), tuser))
    return out


def first_drain(bufs, hold, rr):
    """Ejection choice of the port model: the held VC, else round robin from rr over VCs with a flit."""
    if hold is not None:
        return hold if bufs[hold] else None
    V = len(bufs)
    for j in range(V):
        v = (rr + j) % V
        if bufs[v]:
            return v
    return None


def loopback(T, V, B, dw, packets, *, encoding=None, user_bits=0, drain=1.0, gap=0.0, seed=0,
             max_cycles=5000):
    """Ingress -> router port model -> egress. ``drain``: probability that the port ejects a flit in a
    cycle, or a callable ``(t, bufs) -> VC or None``. ``gap``: probability that the source idles.

    Returns a dict of logs: accepted beats, injected flits, ejected flits, m_axis beats (with cycles),
    the stalled cycles (tvalid & ~tready), the tready trace and the error flags."""
    ing = AxisIngress(T, V, B, dw, port_encoding=encoding, user_bits=user_bits)
    egr = AxisEgress(T, V, dw, port_encoding=encoding, user_bits=user_bits)
    m = Module()
    m.submodules.ing, m.submodules.egr = ing, egr
    lay, tu, rlay = ing.flit_layout, ing.tuser, egr.route_layout
    rng = random.Random(seed)
    beats = [(i, b) for i, p in enumerate(packets) for b in axi_beats(tu, p, dw, rng)]
    log = {"accepted": [], "inj": [], "ej": [], "out": [], "stalls": 0, "tready": [], "error": None,
           "routes": {}}

    async def bench(ctx):
        bufs = [deque() for _ in range(V)]
        hold, rr, bi, offering = None, 0, 0, False
        for t in range(max_cycles):
            if bi == len(beats) and not any(bufs) and not ctx.get(egr.m_axis_tvalid):
                break
            tready0 = ctx.get(ing.s_axis_tready)
            # -- the router port: eject from the start-of-cycle buffers, credit in the same cycle
            v = drain(t, bufs) if callable(drain) else (first_drain(bufs, hold, rr) if rng.random() < drain
                                                        else None)
            if v is not None and hold is not None:
                assert v == hold, "the port model ejects one packet at a time"
            ej = None
            if v is not None:
                pkt, ej = bufs[v].popleft()
                ej = dict(ej)
                if ej["head"]:
                    route = {"hops": rng.randrange(6), "inter": rng.randrange(1 << rlay["inter"].width),
                             "phase": rng.randrange(2), "decided": rng.randrange(2), "h1": rng.randrange(2)}
                    ej.update(route)
                    log["routes"][len([e for e in log["ej"] if e[1]["head"]])] = route
                ej["vc"] = 0                                   # §R8a: VC 0 on an ejection link
                hold = None if ej["tail"] else v
                rr = (v + 1) % V if ej["tail"] else rr
                log["ej"].append((t, ej, pkt))
            ctx.set(egr.ej_valid, int(ej is not None))
            ctx.set(egr.ej_flit.as_value(), pack(lay, ej) if ej else 0)
            ctx.set(ing.inj_credit_vc, 1 << v if v is not None else 0)
            ctx.set(egr.m_axis_tready, 1)
            # -- the source: AXI keeps tvalid up until the beat is taken
            if not offering and bi < len(beats):
                offering = rng.random() >= gap
            if offering:
                _, (tdata, tkeep, tlast, tuser) = beats[bi]
                ctx.set(ing.s_axis_tdata, tdata)
                ctx.set(ing.s_axis_tkeep, tkeep)
                ctx.set(ing.s_axis_tlast, tlast)
                ctx.set(ing.s_axis_tuser.as_value(), tuser)
            ctx.set(ing.s_axis_tvalid, int(offering))
            tready = ctx.get(ing.s_axis_tready)
            assert tready == tready0, f"cycle {t}: s_axis_tready changed with same-cycle inputs (not Moore)"
            log["tready"].append(tready)
            inj_valid = ctx.get(ing.inj_valid)
            if offering and tready:
                assert inj_valid, f"cycle {t}: accepted beat not sent as a flit in its cycle"
                f = unpack(lay, ctx.get(ing.inj_flit.as_value()))
                log["accepted"].append((t, beats[bi][0]))
                log["inj"].append((t, f))
                assert len(bufs[f["vc"]]) < B, f"cycle {t}: flit sent to VC {f['vc']} without a credit"
                bufs[f["vc"]].append((beats[bi][0], f))         # written at the end of t
                bi += 1
                offering = False
            else:
                assert not inj_valid, f"cycle {t}: flit without an accepted beat"
                log["stalls"] += int(offering)
            if ctx.get(egr.m_axis_tvalid):
                log["out"].append((t, ctx.get(egr.m_axis_tdata), ctx.get(egr.m_axis_tkeep),
                                   ctx.get(egr.m_axis_tlast), ctx.get(egr.m_axis_tuser.as_value()),
                                   unpack(rlay, ctx.get(egr.m_route.as_value()))))
            await ctx.tick()
        else:
            raise AssertionError("loopback did not finish")
        log["error"] = (ctx.get(ing.error), ctx.get(egr.error), ctx.get(egr.overflow))

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    log["ingress"], log["egress"] = ing, egr
    return log


def check_loopback(log, packets, T, V, dw, *, user_bits=0):
    """Bytes, tkeep, tlast, tuser identical; VC i mod V; flit in the accept cycle; beat one cycle later."""
    ing, tu = log["ingress"], log["ingress"].tuser
    bpb = dw // 8
    assert log["error"] == (0, 0, 0)
    # ingress: one flit per accepted beat in the same cycle; header in the head flit only (§R4)
    assert [t for t, _ in log["accepted"]] == [t for t, _ in log["inj"]]
    k = 0
    for i, (length, src, dst, user, words) in enumerate(packets):
        for j, word in enumerate(words):
            f = log["inj"][k][1]
            k += 1
            pl = unpack(ing.payload, f["data"])
            assert (f["head"], f["tail"], f["vc"]) == (int(j == 0), int(j == len(words) - 1), i % V)
            assert pl["tdata"] == word
            assert (f["hops"], f["phase"], f["inter"], f["decided"], f["h1"]) == (0, 0, 0, 0, 0)
            if j == 0:
                assert (f["dest"], pl["len"], pl["src"], pl.get("user", 0)) == (dst, length, src, user)
            else:
                assert (f["dest"], pl["len"], pl["src"]) == (0, 0, 0)
    assert k == len(log["inj"])
    # egress: the flit ejected in t is the beat of t + 1 (the sink never stalls, depth 1)
    assert [e[0] + 1 for e in log["ej"]] == [o[0] for o in log["out"]]
    order = [pkt for _, f, pkt in log["ej"] if f["head"]]        # packets leave in ejection order
    assert sorted(order) == list(range(len(packets)))
    beats = iter(log["out"])
    heads = 0
    for i in order:
        length, src, dst, user, words = packets[i]
        for j, word in enumerate(words):
            _, tdata, tkeep, tlast, tuser, route = next(beats)
            assert (tdata, tkeep, tlast) == (word, keep_of(length - j * bpb, bpb), int(j == len(words) - 1))
            if j == 0:
                assert tuser == tu.pack(length, src, dst, user)
                assert route == log["routes"][heads]
                heads += 1
            else:
                assert tuser == 0 and not any(route.values())
    assert next(beats, None) is None


# ------------------------------------------------------------------ tuser layout
def test_tuser_layout_onehot_netfpga():
    tu = tuser_layout(8)
    assert tu.encoding == "onehot" and tu.fields == {"len": (0, 16), "src": (16, 8), "dst": (24, 8),
                                                     "user": (32, 96)}
    assert tu.pack(0x5ee, src=0, dst=7) == 0x8001_05EE        # NetFPGA: bit i of [23:16] / [31:24]
    for s in range(8):
        for d in range(8):
            assert tu.unpack(tu.pack(60, s, d, user=s * d)) == {"len": 60, "src": s, "dst": d, "user": s * d}
    assert tuser_layout(5, "binary").pack(3, 4, 2) == 0x0204_0003
    with pytest.raises(ValueError, match="not one-hot"):
        tu.unpack(0x0301_0001)                                  # dst 0x03: two ports
    with pytest.raises(ValueError, match="not one-hot"):
        tuser_layout(4).unpack(0x1001_0001)                     # dst bit 4 with T = 4


def test_tuser_layout_binary_widens_ports():
    assert tuser_layout(9).encoding == "binary" and tuser_layout(256).hi_bits == 0
    tu = tuser_layout(1000)                                     # 10-bit ports: 2 high bits each
    assert tu.hi_bits == 2 and tu.user_width == 92
    assert tu.as_dict() == {"width": 128, "encoding": "binary", "n_terminals": 1000,
                            "fields": {"len": [15, 0], "src": [23, 16], "dst": [31, 24], "src_hi": [33, 32],
                                       "dst_hi": [35, 34], "user": [127, 36]}}
    word = tu.pack(1500, src=999, dst=513, user=5)
    assert word == 1500 | (999 & 255) << 16 | (513 & 255) << 24 | 3 << 32 | 2 << 34 | 5 << 36
    assert tu.unpack(word) == {"len": 1500, "src": 999, "dst": 513, "user": 5}
    with pytest.raises(ValueError, match=">= n_terminals"):
        tu.unpack((1000 & 255) << 24 | (1000 >> 8) << 34 | 1 << 16)    # dst 1000
    assert tuser_layout(2 ** 56).user_width == 0 and "user" not in tuser_layout(2 ** 56).fields
    assert tuser_layout(64).layout().size == 128


# ------------------------------------------------------------------ loopback
@pytest.mark.parametrize("T, V, B, dw, encoding, user_bits, drain, seed", [
    (8, 2, 4, 64, "onehot", 0, 0.35, 1),        # NetFPGA one-hot, T = 8
    (64, 2, 2, 32, None, 0, 0.5, 2),            # binary, T = 64
    (5, 3, 3, 16, "binary", 9, 0.3, 3),         # binary below 8 terminals, V = 3, user bits travel
    (1000, 1, 1, 8, None, 0, 0.6, 4),           # src_hi/dst_hi, V = 1, B = 1 (credit round trip 2)
])
def test_loopback_round_trip(T, V, B, dw, encoding, user_bits, drain, seed):
    rng = random.Random(seed)
    packets = make_packets(rng, 30, T, dw, user_bits=user_bits)
    log = loopback(T, V, B, dw, packets, encoding=encoding, user_bits=user_bits, drain=drain, gap=0.2, seed=seed)
    check_loopback(log, packets, T, V, dw, user_bits=user_bits)
    assert log["stalls"] > 0                                   # the slow drain ran the credits out


def test_zero_load_timing():
    """§R3: head flit sent in the accept cycle, ejected one cycle later, on m_axis one more cycle later."""
    packets = [(20, 1, 6, 0, [11, 22, 33])]                     # 20 bytes, 8-byte beats: 3 beats
    log = loopback(8, 2, 4, 64, packets)
    check_loopback(log, packets, 8, 2, 64)
    assert [t for t, _ in log["inj"]] == [0, 1, 2]
    assert [e[0] for e in log["ej"]] == [1, 2, 3]
    assert [o[0] for o in log["out"]] == [2, 3, 4]
    assert [o[2] for o in log["out"]] == [0xFF, 0xFF, 0x0F]
    assert log["stalls"] == 0


def test_tready_follows_credits_exactly():
    """V = 2, B = 2, one-beat packets: 4 flits fill both VCs, tready falls; a credit returned in
    cycle c (VC of the waiting packet) raises tready in c + 1, not in c."""
    V, B = 2, 2
    packets = [(8, 0, 1, 0, [i]) for i in range(8)]

    def drain(t, bufs):
        if t in (6, 9):                                         # VC 0 (packet 4, then packet 6)
            return 0
        if t == 8:
            return 1
        return 0 if t >= 12 and bufs[0] else (1 if t >= 12 and bufs[1] else None)

    log = loopback(8, V, B, 64, packets, drain=drain)
    check_loopback(log, packets, 8, V, 64)
    tr = log["tready"]
    assert tr[:4] == [1, 1, 1, 1] and tr[4:7] == [0, 0, 0]       # packets 0-3 in cycles 0-3, VC 0 full
    assert tr[7] == 1                                           # credit of VC 0 in cycle 6 -> usable in 7
    assert [t for t, _ in log["accepted"]][:6] == [0, 1, 2, 3, 7, 9]   # packet 5 (VC 1): credit in 8 -> 9
    assert log["stalls"] >= 4


def test_ingress_never_overruns_under_random_drain():
    rng = random.Random(7)
    packets = make_packets(rng, 40, 16, 64)
    log = loopback(16, 2, 4, 64, packets, drain=0.25, gap=0.0, seed=7)   # the model asserts B per VC
    check_loopback(log, packets, 16, 2, 64)
    assert log["stalls"] > 20
    assert 0 in log["tready"] and log["tready"][-1] == 1


# ------------------------------------------------------------------ ingress: malformed input
def drive_ingress(ing, beats, *, credits=True):
    """Offer beats (tdata, tkeep, tlast, tuser) back to back, each flit's credit back the next cycle; returns
    the flits sent (dicts), the error flag after each beat and s_axis_tready at the end."""
    lay = ing.flit_layout
    out, errs, end = [], [], []

    async def bench(ctx):
        owed = 0
        for tdata, tkeep, tlast, tuser in beats:
            ctx.set(ing.inj_credit_vc, owed)                   # the router pops the flit of the last cycle
            ctx.set(ing.s_axis_tdata, tdata)
            ctx.set(ing.s_axis_tkeep, tkeep)
            ctx.set(ing.s_axis_tlast, tlast)
            ctx.set(ing.s_axis_tuser.as_value(), tuser)
            ctx.set(ing.s_axis_tvalid, 1)
            assert ctx.get(ing.s_axis_tready)
            valid = ctx.get(ing.inj_valid)
            f = unpack(lay, ctx.get(ing.inj_flit.as_value())) if valid else None
            out.append(f)
            owed = (1 << f["vc"]) if (f and credits) else 0
            await ctx.tick()
            errs.append(ctx.get(ing.error))
        ctx.set(ing.inj_credit_vc, 0)
        end.append(ctx.get(ing.s_axis_tready))

    sim = Simulator(ing)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return out, errs, end[0]


GOOD = tuser_layout(4).pack(12, 1, 2)                           # 12 bytes, 8-byte beats: 2 beats


@pytest.mark.parametrize("name, beats, flits, err_at", [
    ("good", [(1, 0xFF, 0, GOOD), (2, 0x0F, 1, 0)], [(1, 0), (0, 1)], None),
    ("tlast early", [(1, 0xFF, 1, GOOD)], [(1, 1)], 0),
    ("tlast late", [(1, 0xFF, 0, GOOD), (2, 0x0F, 0, 0), (3, 0x00, 1, 0)], [(1, 0), (0, 0), (0, 1)], 1),
    ("tkeep", [(1, 0xFF, 0, GOOD), (2, 0xFF, 1, 0)], [(1, 0), (0, 1)], 1),
    ("tkeep hole", [(1, 0xFD, 0, GOOD), (2, 0x0F, 1, 0)], [(1, 0), (0, 1)], 0),
    ("len 0", [(1, 0x00, 1, tuser_layout(4).pack(0, 1, 2))], [(1, 1)], 0),
    ("user bits", [(1, 0xFF, 0, GOOD | 1 << 40), (2, 0x0F, 1, 0)], [(1, 0), (0, 1)], 0),
    ("dst two ports", [(1, 0xFF, 0, GOOD | 1 << 27), (2, 0x0F, 1, 0)], [None, None], 0),
    ("dst beyond T", [(1, 0xFF, 0, (GOOD & ~(0xFF << 24)) | 1 << 28), (2, 0x0F, 1, 0)], [None, None], 0),
    ("src zero", [(1, 0xFF, 1, GOOD & ~(0xFF << 16))], [None], 0),
])
def test_ingress_flags_malformed_packets(name, beats, flits, err_at):
    ing = AxisIngress(4, 2, 4, 64, port_encoding="onehot")
    good_after = [(9, 0xFF, 1, tuser_layout(4).pack(8, 3, 0))]      # the next packet: i mod V unaffected
    out, errs, _ = drive_ingress(ing, beats + good_after)
    assert [(f["head"], f["tail"]) if f else None for f in out[:-1]] == flits
    assert errs[:-1] == [0 if err_at is None or k < err_at else 1 for k in range(len(beats))]
    assert errs[-1] == int(err_at is not None)
    forwarded = any(flits)
    last = out[-1]
    assert (last["head"], last["tail"], last["dest"], last["vc"]) == (1, 1, 0, 1 if forwarded else 0)


def test_ingress_binary_port_range_and_user_bits():
    ing = AxisIngress(100, 1, 2, 8, user_bits=3)                # binary, 7-bit ports in 8-bit fields
    tu = ing.tuser
    ok = tu.pack(1, 99, 42, user=5)
    bad = (ok & ~(0xFF << 24)) | 100 << 24                      # dst = 100 >= T
    out, errs, _ = drive_ingress(ing, [(0xAB, 1, 1, ok), (0xCD, 1, 1, bad), (0xEF, 1, 1, ok | 1 << 35)])
    pl = unpack(ing.payload, out[0]["data"])
    assert (out[0]["dest"], pl["src"], pl["user"], pl["tdata"]) == (42, 99, 5, 0xAB)
    assert out[1] is None and errs == [0, 1, 1]
    assert unpack(ing.payload, out[2]["data"])["user"] == 5     # bit 35 = user bit 3: not carried, flagged


def test_ingress_discarded_packet_takes_no_credit():
    """A packet with a bad port waits for a credit like any (tready is Moore), but only its beats are
    taken: no flit, no credit used, and the later beats need none (V = 1, B = 2, no credit returned)."""
    ing = AxisIngress(4, 1, 2, 64, port_encoding="onehot")
    one = tuser_layout(4).pack(8, 1, 2)
    bad = tuser_layout(4).pack(24, 1, 2) | 1 << 27
    beats = [(1, 0xFF, 1, one), (2, 0xFF, 0, bad), (3, 0xFF, 0, 0), (4, 0xFF, 1, 0), (5, 0xFF, 1, one)]
    out, errs, tready = drive_ingress(ing, beats, credits=False)
    assert [f is not None for f in out] == [True, False, False, False, True]
    assert errs == [0, 1, 1, 1, 1] and tready == 0               # two flits took both credits


# ------------------------------------------------------------------ egress: overflow and framing
def drive_egress(egr, flits, readys):
    """Present flits (dict or None) per cycle with m_axis_tready per cycle; returns per cycle
    (tvalid, tdata, tlast, tuser) and the final (overflow, error)."""
    lay = egr.flit_layout
    seen = []

    async def bench(ctx):
        for f, r in zip(flits, readys):
            ctx.set(egr.ej_valid, int(f is not None))
            ctx.set(egr.ej_flit.as_value(), pack(lay, f) if f else 0)
            ctx.set(egr.m_axis_tready, r)
            seen.append((ctx.get(egr.m_axis_tvalid), ctx.get(egr.m_axis_tdata), ctx.get(egr.m_axis_tlast),
                         ctx.get(egr.m_axis_tuser.as_value()), ctx.get(egr.overflow), ctx.get(egr.error)))
            await ctx.tick()
        seen.append((ctx.get(egr.m_axis_tvalid), ctx.get(egr.m_axis_tdata), ctx.get(egr.m_axis_tlast),
                     ctx.get(egr.m_axis_tuser.as_value()), ctx.get(egr.overflow), ctx.get(egr.error)))

    sim = Simulator(egr)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen


def eflit(egr, word, *, head, tail, length=0, src=0, dest=0, vc=0):
    d = {"tdata": word, "len": length if head else 0, "src": src if head else 0}
    return {"head": head, "tail": tail, "vc": vc, "dest": dest if head else 0, "data": pack(egr.payload, d)}


def packet_flits(egr, words, length, src=1, dest=2):
    return [eflit(egr, w, head=int(k == 0), tail=int(k == len(words) - 1), length=length, src=src, dest=dest)
            for k, w in enumerate(words)]


def test_egress_overflow_is_flagged_and_held_beat_stays():
    egr = AxisEgress(4, 2, 64)                                  # depth 1: spec-exact
    fl = packet_flits(egr, [0xA, 0xB, 0xC], 24)
    seen = drive_egress(egr, fl + [None, None], [0, 0, 0, 1, 1])
    assert [s[0] for s in seen] == [0, 1, 1, 1, 0, 0]
    assert [s[1] for s in seen[1:4]] == [0xA, 0xA, 0xA]          # AXI: stable until taken
    assert seen[1][3] == egr.tuser.pack(24, 1, 2)
    assert [(s[4], s[5]) for s in seen] == [(0, 0), (0, 0), (1, 1), (1, 1), (1, 1), (1, 1)]


def test_egress_fifo_depth_absorbs_a_stall():
    egr = AxisEgress(4, 2, 64, depth=3)
    fl = packet_flits(egr, [0xA, 0xB, 0xC], 24) + packet_flits(egr, [0xD], 5, src=3, dest=0)
    seen = drive_egress(egr, fl + [None] * 4, [0, 0, 0, 0, 1, 1, 1, 1])
    assert seen[1][:3] == (1, 0xA, 0)                           # still t + 1 into an empty FIFO
    assert [s[1] for s in seen[1:4]] == [0xA, 0xA, 0xA]
    # cycle 3: full (A, B, C) with no pop -> D lost; then A, B, C leave in cycles 4, 5, 6
    assert [(s[1], s[2]) for s in seen[4:7]] == [(0xA, 0), (0xB, 0), (0xC, 1)]
    assert seen[7][0] == 0 and seen[3][4] == 0 and seen[4][4:] == (1, 1) and seen[-1][4:] == (1, 1)
    egr = AxisEgress(4, 2, 64, depth=3)
    fl = packet_flits(egr, [0xA, 0xB, 0xC], 24) + packet_flits(egr, [0xD], 5, src=3, dest=0)
    seen = drive_egress(egr, fl + [None] * 4, [0, 0, 1, 1, 1, 1, 1, 1])   # a pop in cycle 3 makes room
    assert [(s[1], s[2], s[3]) for s in seen if s[0]] == [(0xA, 0, egr.tuser.pack(24, 1, 2))] * 2 + [
        (0xB, 0, 0), (0xC, 1, 0), (0xD, 1, egr.tuser.pack(5, 3, 0))]
    assert seen[-1][4:] == (0, 0)


@pytest.mark.parametrize("name, make", [
    ("interleaved heads", lambda e: packet_flits(e, [1, 2], 16)[:1] + packet_flits(e, [3, 4], 16)),
    ("body without head", lambda e: [eflit(e, 1, head=0, tail=1)]),
    ("tail early", lambda e: [eflit(e, 1, head=1, tail=1, length=9, src=1, dest=2)]),
    ("vc not 0", lambda e: [eflit(e, 1, head=1, tail=1, length=8, src=1, dest=2, vc=1)]),
    ("len 0", lambda e: [eflit(e, 1, head=1, tail=1, length=0, src=1, dest=2)]),
    ("dest beyond T", lambda e: [eflit(e, 1, head=1, tail=1, length=8, src=1, dest=5)]),
])
def test_egress_flags_malformed_flits(name, make):
    egr = AxisEgress(5, 2, 64)                                  # T = 5: dest 5..7 do not exist
    fl = make(egr)
    seen = drive_egress(egr, fl, [1] * len(fl))
    assert seen[-1][4:] == (0, 1)                               # error, not overflow; beats still delivered
    assert sum(s[0] for s in seen) == len(fl)
    ok = drive_egress(AxisEgress(5, 2, 64), packet_flits(egr, [1, 2], 16), [1, 1])
    assert ok[-1][4:] == (0, 0)


# ------------------------------------------------------------------ next to a real router
def router_harness(n_sources, packets_of, cycles):
    """Router 0 of fbfly k=4 n=2 (T = 16, terminals 0-3 local) with an AxisIngress on terminal ports
    0..n_sources-1 and an AxisEgress on every ejection port; returns per terminal the beats seen."""
    from radixnet.gen import build
    from radixnet.hdl.router import Router

    net = build("fbfly", k=4, n=2)
    T, V, B, dw = net.num_terminals, 2, 4, 32
    router = Router(net, 0, V, B, data_width=payload_layout(dw, T).size, check=False)
    m = Module()
    m.submodules.router = router
    ings, egrs = {}, {}
    for p in range(n_sources):
        ings[p] = m.submodules[f"ing_{p}"] = AxisIngress(T, V, B, dw, flit_layout=router.flit_layout)
        connect_router_port(m, router, p, ingress=ings[p])
    for p in router.eject_ports:
        egrs[p] = m.submodules[f"egr_{p}"] = AxisEgress(T, V, dw, flit_layout=router.flit_layout)
        connect_router_port(m, router, p, egress=egrs[p])
    rng = random.Random(5)
    queues = {p: deque(b for pk in packets_of(p) for b in axi_beats(ings[p].tuser, pk, dw, rng)) for p in ings}
    seen = {p: [] for p in egrs}
    accepts = {p: [] for p in ings}

    async def bench(ctx):
        for p in egrs:
            ctx.set(egrs[p].m_axis_tready, 1)
        for t in range(cycles):
            for p, q in queues.items():
                if q:
                    tdata, tkeep, tlast, tuser = q[0]
                    for port, v in (("tdata", tdata), ("tkeep", tkeep), ("tlast", tlast)):
                        ctx.set(getattr(ings[p], f"s_axis_{port}"), v)
                    ctx.set(ings[p].s_axis_tuser.as_value(), tuser)
                ctx.set(ings[p].s_axis_tvalid, int(bool(q)))
            for p, q in queues.items():
                if q and ctx.get(ings[p].s_axis_tready):
                    accepts[p].append(t)
                    q.popleft()
            for p, e in egrs.items():
                if ctx.get(e.m_axis_tvalid):
                    seen[p].append((t, ctx.get(e.m_axis_tdata), ctx.get(e.m_axis_tkeep), ctx.get(e.m_axis_tlast),
                                    ctx.get(e.m_axis_tuser.as_value()), ctx.get(e.m_route.hops)))
            await ctx.tick()
        seen["errors"] = ([ctx.get(i.error) for i in ings.values()], [ctx.get(e.error) for e in egrs.values()],
                          ctx.get(router.error))

    sim = Simulator(m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen, accepts, ings[0].tuser


def test_with_router_one_source():
    """Terminal 0 to the local terminals 0-3 of router 0: the head leaves in its accept cycle t, the router
    grants it in t + 1 (ejection) and its beat is on m_axis in t + 2 (§R3 zero load, no inter-router hop)."""
    rng = random.Random(11)
    packets = [(rng.randint(1, 16), 0, d, 0, [rng.getrandbits(32) for _ in range(4)]) for d in (2, 0, 3, 2, 1, 2)]
    packets = [(n, s, d, u, w[:-(-n // 4)]) for n, s, d, u, w in packets]
    seen, accepts, tu = router_harness(1, lambda p: packets, 40)
    assert seen.pop("errors") == ([0], [0, 0, 0, 0], 0)
    assert accepts[0] == list(range(sum(len(p[4]) for p in packets)))    # never stalled: B = 4, no contention
    for dst in range(4):
        got = iter(seen[dst])
        for length, src, d, _, words in packets:
            if d != dst:
                continue
            for j, w in enumerate(words):
                t, tdata, tkeep, tlast, tuser, hops = next(got)
                assert (tdata, tkeep, tlast) == (w, keep_of(length - 4 * j, 4), int(j == len(words) - 1))
                assert tuser == (tu.pack(length, src, d) if j == 0 else 0) and hops == 0
        assert next(got, None) is None
    first_beat = {}
    t0 = 0
    for length, src, d, _, words in packets:
        first_beat.setdefault(d, []).append(t0 + 2)             # accepted at t0, on m_axis at t0 + 2
        t0 += len(words)
    for d, cycles in first_beat.items():
        heads = [t for t, *_, tuser, _ in seen[d] if tuser]
        assert heads == cycles


def test_with_router_two_sources_arrive_whole():
    """Two terminals send 4-beat packets to terminal 2 at once: the ejection port's implicit VC is held
    head to tail (§R5), so one packet's beats come out before the other's and the egress sees no error."""
    words = [1, 2, 3, 4]
    seen, _, _ = router_harness(2, lambda p: [(16, p, 2, 0, [w + 16 * p for w in words])], 16)
    ing_err, egr_err, router_err = seen.pop("errors")
    assert ing_err == [0, 0] and router_err == 0
    beats = [b[1] for b in seen[2]]
    assert sorted([beats[:4], beats[4:]]) == [[1, 2, 3, 4], [17, 18, 19, 20]]
    assert egr_err == [0, 0, 0, 0]


# ------------------------------------------------------------------ parameters
@pytest.mark.parametrize("make, message", [
    (lambda: AxisIngress(0, 2, 4),
     r"AxisIngress: n_terminals \(ports src/dst can name\) must be an int with n_terminals >= 1, got 0"),
    (lambda: AxisIngress(4, 0, 4), r"n_vcs \(virtual channels of the router's terminal port\).*got 0"),
    (lambda: AxisIngress(4, 2, 0),
     r"vc_depth \(flits per router input VC buffer\) must be an int with vc_depth >= 1, got 0"),
    (lambda: AxisIngress(4, 2, 4, 60),
     r"AxisIngress: data_width \(tdata bits\) must be a positive multiple of 8, got 60"),
    (lambda: AxisIngress(4, 2, 4, 0), r"data_width .*got 0"),
    (lambda: AxisIngress(9, 2, 4, port_encoding="onehot"), r"needs n_terminals <= 8, got 9; use 'binary'"),
    (lambda: AxisIngress(4, 2, 4, port_encoding="gray"),
     r"port_encoding must be None, 'onehot' or 'binary', got 'gray'"),
    (lambda: AxisIngress(4, 2, 4, user_bits=97), r"user_bits .* must be an int with 0 <= user_bits <= 96, got 97"),
    (lambda: AxisIngress(4, 2, 4, check=1), r"check \(emit the credit assertions\) must be a bool"),
    (lambda: AxisIngress(4, 2, 4, flit_layout=axis_flit_layout(4, 2, 32)),
     r"field 'data' must be 82 bits .*got 50"),
    (lambda: AxisIngress(4, 2, 4, flit_layout=axis_flit_layout(8, 2, 64)), r"field 'dest' must be 2 bits"),
    (lambda: AxisIngress(4, 2, 4, flit_layout=axis_flit_layout(4, 4, 64)), r"field 'vc' must be 1 bits"),
    (lambda: AxisIngress(4, 2, 4, flit_layout=32), r"flit_layout \(the router's flit\) must be a StructLayout"),
    (lambda: AxisEgress(4, 2, 64, depth=0),
     r"AxisEgress: depth \(beats buffered toward m_axis\) must be an int with depth >= 1, got 0"),
    (lambda: AxisEgress(2 ** 57, 2, 64), r"n_terminals <= 2\*\*56\), got"),
    (lambda: AxisEgress(300, 2, 64, user_bits=95), r"0 <= user_bits <= 94, got 95"),
    (lambda: tuser_layout(0), r"tuser_layout: n_terminals .* got 0"),
    (lambda: tuser_layout(4).pack(10, 4, 0), r"src must be an int with 0 <= src < 4, got 4"),
    (lambda: tuser_layout(4).pack(1 << 16, 0, 0), r"length must be an int with 0 <= length < 65536"),
    (lambda: payload_layout(12, 4), r"payload_layout: data_width"),
    (lambda: connect_router_port(None, object(), 0), r"router must be a radixnet.hdl.router.Router"),
])
def test_parameters_are_validated(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_connect_router_port_checks_the_port():
    from radixnet.gen import build
    from radixnet.hdl.router import Router

    net = build("fbfly", k=4, n=2)
    router = Router(net, 0, 2, 4, data_width=payload_layout(64, 16).size)
    ing = AxisIngress(16, 2, 4, 64, flit_layout=router.flit_layout)
    egr = AxisEgress(16, 2, 64, flit_layout=router.flit_layout)
    other_egr = AxisEgress(16, 2, 64)                           # inter_bits 1, the router's 2
    shallow = AxisIngress(16, 2, 2, 64, flit_layout=router.flit_layout)
    m = Module()
    with pytest.raises(ValueError, match="port 5 is a network input"):
        connect_router_port(m, router, 5, ingress=ing)
    with pytest.raises(ValueError, match=r"port 4 is not an ejection port .*\[0, 1, 2, 3\]"):
        connect_router_port(m, router, 4, egress=egr)
    with pytest.raises(ValueError, match="flit_layout must be the router's"):
        connect_router_port(m, router, 0, egress=other_egr)
    with pytest.raises(ValueError, match=r"ingress n_vcs/vc_depth \(2, 2\) must be the router's \(2, 4\)"):
        connect_router_port(m, router, 0, ingress=shallow)
    for unit in (ing, egr, other_egr, shallow, router, m):
        unit._MustUse__silence = True


# ------------------------------------------------------------------ tool flow
def ingress_ffs(T, V, B):
    """Credit counters (count + error each), the VC pointer, in_pkt, dropping, 16-bit rem, error."""
    return V * ((B).bit_length() + 1) + ptr_width(V) + 2 + 16 + 1


def egress_ffs(T, dw, inter_bits):
    """The beat register (tdata, tkeep, tlast, first, len, src, dst, route), level, open, rem, 2 flags."""
    beat = dw + dw // 8 + 2 + 16 + 2 * ptr_width(T) + 8 + inter_bits + 3
    return beat + 1 + 1 + 16 + 2


LINT_UNITS = {
    "axis_in_t16": lambda: AxisIngress(16, 2, 4, 64),
    "axis_out_t16": lambda: AxisEgress(16, 2, 64),
    "axis_in_t8oh": lambda: AxisIngress(8, 3, 2, 32, user_bits=4),
    "axis_out_t8oh_fifo": lambda: AxisEgress(8, 3, 32, depth=4, user_bits=4),
    "axis_in_t1000": lambda: AxisIngress(1000, 1, 1, 8),
    "axis_out_t1000": lambda: AxisEgress(1000, 1, 8, depth=2),
}


@needs_verilator
@pytest.mark.parametrize("top", sorted(LINT_UNITS))
def test_verilog_lints_clean(top):
    text = flat_verilog(LINT_UNITS[top](), top)
    waived = lint(text, top)
    assert {w.split(":")[0].removeprefix("%Warning-") for w in waived} <= set(WAIVERS)
    for name in ("tdata", "tkeep", "tlast", "tvalid", "tready", "tuser"):
        assert f"_axis_{name}" in text.split(");")[0]           # NetFPGA port names, flat


@needs_yosys
def test_yosys_synthesizes_small_instance():
    """data_width 64, V = 2, B = 4, T = 16 (binary ports)."""
    for top, unit, ffs in (("axis_in", AxisIngress(16, 2, 4, 64), ingress_ffs(16, 2, 4)),
                           ("axis_out", AxisEgress(16, 2, 64), egress_ffs(16, 64, 1))):
        stats = synth(flat_verilog(unit, top), top)
        assert stats.latches == 0 and stats.flip_flops == ffs
        assert stats.cells > ffs
