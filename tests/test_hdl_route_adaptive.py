"""Algorithmic HyperX route computation and the adaptive decision units (hdl/route_hyperx.py,
hdl/route_adaptive.py, docs/route-units.md), in the Amaranth simulator against the golden kernel's own
functions (``hop_count``, ``dor_output``, ``_decide`` / ``_decide_2dfb`` through ``.py_func``) on random router
states: queue lengths and VC availability come from QueueLength / OutputVCSelect on random credits and
busy bits, so the whole §R5/§R7 choice (port, VC, header) is compared. Deliberately wrong variants are
caught by the same comparison; Verilator lint and Yosys synthesis of one radix-7 fbfly instance each."""

import random
import shutil
import zlib
from functools import lru_cache

import numpy as np
import pytest
from amaranth import Cat, Elaboratable, Module, Signal
from amaranth.sim import Simulator

from radixnet.gen import build
from radixnet.gen.routing import CLOS_AD, MIN, MIN_AD, PRIO, UGAL, VAL, compile_hyperx
from radixnet.golden import kernel
from radixnet.hdl.arbiter import ptr_width
from radixnet.hdl.route_adaptive import ClosAdDecide, MinAdDecide, MinDecide, PriorityFlagDecide, UgalDecide
from radixnet.hdl.route_hyperx import HyperXRoute
from radixnet.hdl.rtlgen import flat_verilog
from radixnet.hdl.vc_select import OutputVCSelect, QueueLength
from radixnet.hdl.verilog import WAIVERS, lint, synth

needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")
needs_yosys = pytest.mark.skipif(shutil.which("yosys") is None, reason="yosys not installed (make setup)")

# (family, params, router under test, UGAL theta / 2DFB T_h): two fbfly and two 2dfb routers; the
# routers sit off the origin so own digits are neither 0 nor the top digit where possible
NETS = {
    "fbfly4x2": ("fbfly", dict(k=4, n=2), 2, 4),   # 1 dimension, radix 7
    "fbfly3x3": ("fbfly", dict(k=3, n=3), 5, 0),   # 2 dimensions (router (2, 1)), radix 7
    "2dfb8x1": ("2dfb", dict(k=8, n=1), 3, 2),     # 1 dimension, 2 lanes, radix 22
    "2dfb4x2": ("2dfb", dict(k=4, n=2), 6, 4),     # 2 dimensions (router (2, 1)), 2 lanes, radix 16
    # beyond the four above: mixed radices 3 x 4, two lanes in dimension 1 only, 3 terminals per router
    "hyperx3x4": ("hyperx", dict(dims=[3, 4], mult=[2, 1], c=3), 7, 1),
}
ROUTE_NETS = {**NETS, "hypercube3": ("hypercube", dict(n=3), 5, 0)}   # HyperXRoute only (c = 1)
STATES = 400    # random router states per (unit, network)

UNITS = {  # name -> (class, routing, golden algorithm code)
    "min-ad": (MinAdDecide, "min-ad", MIN_AD),
    "min": (MinDecide, "min", MIN),   # dimension order, the lane by queue (§R7 "Parallel lanes")
    "ugal": (UgalDecide, "ugal", UGAL),
    "val": (UgalDecide, "val", VAL),
    "clos-ad": (ClosAdDecide, "clos-ad", CLOS_AD),
    "2dfb-adaptive": (PriorityFlagDecide, "2dfb-adaptive", PRIO),
}


@lru_cache(maxsize=None)
def network(name):
    fam, kw, r, thr = ROUTE_NETS[name]
    net = build(fam, **kw)
    return net, compile_hyperx(net), net.port_table(), r, thr


def run(dut, bench):
    sim = Simulator(dut)
    sim.add_testbench(bench)
    sim.run()


# ------------------------------------------------------------------ HyperXRoute
def spec_route(tables, r, t, b):
    """hop_count / dor_output of the golden kernel plus the productive ports, for destination terminal t, inter b."""
    hops, dor = kernel.hop_count.py_func, kernel.dor_output.py_func
    c, pl = tables.coords, tables.port_lanes
    dr = int(tables.term_router[t])
    prod = {int(p) for j in range(c.shape[1]) if c[r, j] != c[dr, j] for p in pl[r, j, c[dr, j]] if p >= 0}
    eject = dr == r
    return dict(eject=eject, dor_port=int(tables.eject_port[t]) if eject else int(dor(c, tables.port_to, r, dr)),
                prod=prod, diff=[int(c[r, j] != c[dr, j]) for j in range(c.shape[1])], hops_cd=int(hops(c, r, dr)),
                inter_port=int(dor(c, tables.port_to, r, b)), inter_here=b == r, inter_is_dest=b == dr,
                hops_cbd=int(hops(c, r, b) + hops(c, b, dr)))


@pytest.mark.parametrize("name", sorted(ROUTE_NETS))
def test_hyperx_route_matches_golden(name):
    """Every destination terminal (and the out-of-range ids up to 2**dest_bits) against hop_count/dor_output."""
    net, tables, _, r, _ = network(name)
    dut = HyperXRoute(net, r)
    R, T = net.num_routers, net.num_terminals
    rng = random.Random(1)
    queries = [(t, rng.randrange(R)) for t in range(1 << dut.dest_bits)]
    queries += [(rng.randrange(T), b) for b in range(R)] + [(r * dut.conc, r), (0, R - 1)]
    seen = []

    async def bench(ctx):
        for t, b in queries:
            ctx.set(dut.dest, t)
            ctx.set(dut.inter, b)
            seen.append({k: ctx.get(getattr(dut, k)) for k in (
                "dest_ok", "eject", "dor_port", "dor_np", "prod_np", "diff_dim", "hops_cd", "inter_port",
                "inter_np", "inter_here", "inter_is_dest", "hops_cbd")})

    run(dut, bench)
    ports = dut.net_ports
    for (t, b), got in zip(queries, seen):
        assert got["dest_ok"] == (t < T)
        if t >= T:
            continue
        want = spec_route(tables, r, t, b)
        assert got["eject"] == want["eject"] and got["dor_port"] == want["dor_port"], (t, b)
        onehot = {ports[i] for i in range(len(ports)) if (got["dor_np"] >> i) & 1}
        assert onehot == (set() if want["eject"] else {want["dor_port"]})
        assert {ports[i] for i in range(len(ports)) if (got["prod_np"] >> i) & 1} == want["prod"]
        assert [(got["diff_dim"] >> j) & 1 for j in range(dut.n_dims)] == want["diff"]
        assert got["hops_cd"] == want["hops_cd"] and got["hops_cbd"] == want["hops_cbd"]
        assert (got["inter_here"], got["inter_is_dest"]) == (want["inter_here"], want["inter_is_dest"])
        if not want["inter_here"]:
            assert got["inter_port"] == want["inter_port"]
            assert got["inter_np"] == 1 << ports.index(want["inter_port"])
        else:
            assert got["inter_np"] == 0


# ------------------------------------------------------------------ decision units vs the golden _decide
class Harness(Elaboratable):
    """A decision unit fed by a QueueLength per network port and an OutputVCSelect per (port, class),
    as a router would: the credits and busy bits are the inputs, ``vc`` the output VC of the decision
    (the select unit of the chosen port and class; 0 on an ejection port, §R8a)."""

    def __init__(self, unit):
        self.unit = unit
        N, V, B = len(unit.net_ports), unit.n_vcs, unit.depth
        self.credit_np_ovc = [[Signal(range(B + 1), name=f"credit_np{i}_ovc{v}") for v in range(V)]
                              for i in range(N)]
        self.busy_np = [Signal(V, name=f"busy_np{i}") for i in range(N)]
        self.vc = Signal(ptr_width(V))

    def elaborate(self, platform):
        m = Module()
        u = self.unit
        m.submodules.unit = u
        V, B, K = u.n_vcs, u.depth, u.n_classes
        for i, p in enumerate(u.net_ports):
            if hasattr(u, "q_np"):      # val reads no queue
                ql = QueueLength(V, B)
                m.submodules[f"qlen_{i}"] = ql
                m.d.comb += [ql.credit_ovc[v].eq(self.credit_np_ovc[i][v]) for v in range(V)]
                m.d.comb += u.q_np[i].eq(ql.q)
            for k in range(K):
                sel = OutputVCSelect(V, B.bit_length(), n_classes=K)
                m.submodules[f"vcsel_{i}_{k}"] = sel
                m.d.comb += [sel.credit_ovc[v].eq(self.credit_np_ovc[i][v]) for v in range(V)]
                m.d.comb += [sel.busy_ovc.eq(self.busy_np[i]), sel.cls.eq(k), u.avail_np_cls[i][k].eq(sel.valid)]
                with m.If(~u.eject & (u.port == p) & (u.cls == k)):
                    m.d.comb += self.vc.eq(sel.ovc)
        return m


def config(unit_name, net_name):
    """(V, B) of a test instance: two VCs per class up to 2 classes, one per class beyond; few flits so
    that queue lengths tie often."""
    D = network(net_name)[0].coords.shape[1]
    K = {"min-ad": D, "2dfb-adaptive": 2 * D, "min": 1}.get(unit_name, 2)
    V = 2 * K if K <= 2 else K
    return V, (3 if V <= 2 else 2)


def make_unit(unit_name, net_name, fault=None):
    cls_, routing, _ = UNITS[unit_name]
    net, _, _, r, thr = network(net_name)
    V, B = config(unit_name, net_name)
    return cls_(net, r, n_vcs=V, depth=B, threshold=thr, fault=fault, routing=routing)


def random_states(unit_name, net_name, n, seed):
    """Random router states: per network port a credit pattern (all full: q = 0; all empty:
    unavailable; or uniform; in a sixth of the states every port nearly empty), busy bits,
    destination (often at this router), intermediate (often c or d), header bits, hop count and
    input port."""
    net, _, _, r, _ = network(net_name)
    V, B = config(unit_name, net_name)
    rng = random.Random(seed)
    P, R, T = int(net.radix[r]), net.num_routers, net.num_terminals
    c = net.num_terminals // R
    n_net = len(network_ports(net_name))
    out = []
    for _ in range(n):
        credits, busy = [], []
        congested = rng.random() < 0.15     # every port nearly out of credits
        for _ in range(n_net):
            mode = rng.random()
            if congested:
                cr = [int(rng.random() < 0.2) for _ in range(V)]
            elif mode < 0.3:
                cr = [B] * V
            elif mode < 0.4:
                cr = [0] * V
            else:
                cr = [rng.randrange(B + 1) for _ in range(V)]
            credits.append(cr)
            busy.append(sum(1 << v for v in range(V) if rng.random() < 0.15))
        t = rng.randrange(r * c, (r + 1) * c) if rng.random() < 0.15 else rng.randrange(T)
        dr = t // c
        u = rng.random()
        b = r if u < 0.15 else dr if u < 0.3 else rng.randrange(R)
        out.append(dict(credits=credits, busy=busy, dest=t, inter=b, phase=rng.randrange(2),
                        decided=int(rng.random() < 0.3), h1=int(rng.random() < 0.3), hops=rng.randrange(8),
                        in_port=rng.randrange(P)))
    return out


@lru_cache(maxsize=None)
def network_ports(net_name):
    net, _, _, r, _ = network(net_name)
    unit = HyperXRoute(net, r)
    unit._MustUse__silence = True
    return unit.net_ports


def golden_decisions(unit_name, net_name, states):
    """The golden decision of each state: None (no candidate) or a dict of the expected outputs."""
    _, _, algo = UNITS[unit_name]
    net, tables, pt, r, thr = network(net_name)
    V, B = config(unit_name, net_name)
    D = tables.coords.shape[1]
    K = {MIN_AD: D, PRIO: 2 * D, MIN: 1}.get(algo, 2)
    R, P = net.num_routers, net.max_radix
    ports = network_ports(net_name)
    out = []
    for s in states:
        credit = np.full((R, P, V), B, np.int64)
        busy = np.zeros((R, P, V), np.int64)
        for i, p in enumerate(ports):
            credit[r, p] = s["credits"][i]
            busy[r, p] = [(s["busy"][i] >> v) & 1 for v in range(V)]
        pkt = lambda x: np.array([x], np.int64)  # noqa: E731
        dec = np.zeros(5, np.int64)
        known = dict(r=r, pid=0, algo=algo, ncls=K, V=V, B=B, thr=thr, coords=tables.coords,
                     port_to=tables.port_to, dims=tables.dims, term_router=tables.term_router,
                     eject_port=tables.eject_port, out_term=pt["out_terminal"], out_ch=pt["out_channel"],
                     ch_dst=net.dst, credit=credit, ovc_busy=busy, pkt_dst=pkt(s["dest"]),
                     pkt_phase=pkt(s["h1"] if algo == PRIO else s["phase"]), pkt_decided=pkt(s["decided"]),
                     pkt_inter=pkt(s["inter"]), dec=dec, pkt_hops=pkt(s["hops"]), p=s["in_port"],
                     in_ch=pt["in_channel"], ch_src=net.src, port_lanes=tables.port_lanes)
        if not kernel.decide_reference(known):
            out.append(None)
            continue
        eject = bool(pt["out_terminal"][r, dec[0]] >= 0)
        want = dict(port=int(dec[0]), eject=int(eject), vc=int(dec[1]), decided_out=int(dec[3]),
                    inter_out=int(dec[4]))
        if algo == PRIO:     # the golden kernel keeps the priority flag in the phase field
            want.update(h1_out=int(dec[2]), phase_out=s["phase"])
        else:
            want.update(phase_out=int(dec[2]), h1_out=s["h1"])
        if not eject:
            want["cls"] = int(dec[1]) // (V // K)
        out.append(want)
    return out


def simulate(unit, states, *, stop_at_first=None):
    """Outputs of the unit (in its Harness) for each state; with ``stop_at_first`` = expected list, stops
    at the first state whose outputs differ from it (fault tests)."""
    h = Harness(unit)
    names = ["valid", "port", "eject", "cls", "phase_out", "decided_out", "inter_out", "h1_out"]
    seen = []

    async def bench(ctx):
        header = [k for k in ("dest", "phase", "decided", "inter", "h1", "hops", "in_port") if hasattr(unit, k)]
        inputs = Cat(*[x for row in h.credit_np_ovc for x in row], *h.busy_np, *[getattr(unit, k) for k in header])
        for n, s in enumerate(states):
            value, shift = 0, 0     # one assignment per state: the simulator settles once
            fields = [(x, len(sig)) for cr, row in zip(s["credits"], h.credit_np_ovc) for x, sig in zip(cr, row)]
            fields += [(b, len(sig)) for b, sig in zip(s["busy"], h.busy_np)]
            fields += [(s[k], len(getattr(unit, k))) for k in header]
            for x, w in fields:
                value |= x << shift
                shift += w
            ctx.set(inputs, value)
            got = {k: ctx.get(getattr(unit, k)) for k in names}
            got["vc"] = ctx.get(h.vc)
            seen.append(got)
            if stop_at_first is not None and mismatch(got, stop_at_first[n]):
                return

    run(h, bench)
    return seen


def mismatch(got, want):
    """None if the RTL outputs ``got`` agree with the golden decision ``want``, else a description."""
    if want is None:
        return None if got["valid"] == 0 else "RTL valid, golden has no candidate"
    if got["valid"] != 1:
        return "golden decides, RTL not valid"
    bad = {k: (got[k], v) for k, v in want.items() if got[k] != v}
    return f"(rtl, golden) differ: {bad}" if bad else None


@pytest.mark.parametrize("net_name", sorted(NETS))
@pytest.mark.parametrize("unit_name", sorted(UNITS))
def test_decision_matches_golden(unit_name, net_name):
    """STATES random states: identical validity, port, ejection, VC (via OutputVCSelect), class and
    header (phase, decided, inter, h1) as the golden _decide / _decide_2dfb."""
    states = random_states(unit_name, net_name, STATES, seed=zlib.crc32(f"{unit_name}/{net_name}".encode()))
    want = golden_decisions(unit_name, net_name, states)
    got = simulate(make_unit(unit_name, net_name), states)
    for s, g, w in zip(states, got, want):
        assert mismatch(g, w) is None, (mismatch(g, w), s)
    # the states exercise the interesting outcomes
    kinds = [None if w is None else "eject" if w["eject"] else "route" for w in want]
    assert kinds.count("eject") >= 10 and kinds.count("route") >= STATES // 3
    if unit_name in ("ugal", "clos-ad"):
        src = [w for s, w in zip(states, want) if w and not s["decided"] and not w["eject"]]
        assert sum(w["phase_out"] == 1 for w in src) >= 5 and sum(w["phase_out"] == 0 for w in src) >= 5
    if unit_name == "2dfb-adaptive":
        routed = [w for w in want if w and not w["eject"]]
        assert sum(w["h1_out"] == 1 for w in routed) >= 5 and sum(w["h1_out"] == 0 for w in routed) >= 5
    assert kinds.count(None) >= 1


@pytest.mark.parametrize("unit_name, fault, net_name", [
    ("ugal", "strict", "fbfly3x3"),            # '<' for '<=' in q(o_min)·H(c,d) <= q(o_val)·(...) + theta
    ("ugal", "strict", "fbfly4x2"),            # the same with theta = 4: ties at q_min = 2 q_val + 4
    ("clos-ad", "strict", "fbfly3x3"),         # non-minimal on '>=' instead of '>'
    ("min-ad", "ties_high", "fbfly3x3"),       # ties to the highest dimension
    ("min-ad", "ties_high", "2dfb8x1"),        # ... and the highest lane
    ("min", "ties_high", "2dfb8x1"),           # min's lane: ties to the highest
    ("min", "ties_high", "2dfb4x2"),
    ("2dfb-adaptive", "strict", "2dfb4x2"),    # q < T_h instead of q <= T_h
])
def test_wrong_variant_is_caught(unit_name, fault, net_name):
    states = random_states(unit_name, net_name, 400, seed=7)
    want = golden_decisions(unit_name, net_name, states)
    got = simulate(make_unit(unit_name, net_name, fault), states, stop_at_first=want)
    assert any(mismatch(g, w) for g, w in zip(got, want)), f"{unit_name} fault {fault} not caught"


# ------------------------------------------------------------------ hand cases
def decide_once(unit, *, q=None, avail=None, **header):
    """One combinational evaluation with q_np / avail_np_cls given directly."""
    N, K = len(unit.net_ports), unit.n_classes
    q = q or [0] * N
    avail = avail or [(1 << K) - 1] * N
    got = {}

    async def bench(ctx):
        for i in range(N):
            ctx.set(unit.q_np[i], q[i])
            ctx.set(unit.avail_np_cls[i], avail[i])
        for k, v in header.items():
            ctx.set(getattr(unit, k), v)
        for k in ("valid", "port", "eject", "cls", "phase_out", "decided_out", "inter_out", "h1_out"):
            got[k] = ctx.get(getattr(unit, k))

    run(unit, bench)
    return got


def test_ugal_by_hand():
    """fbfly k=4 n=2, router 0 -> router 1 (port 4), intermediate 2 (port 5): H = 1, H(c,b)+H(b,d) = 2."""
    net = build("fbfly", k=4, n=2)
    u = UgalDecide(net, 0, n_vcs=2, depth=8, threshold=4)
    assert u.net_ports == (4, 5, 6)
    dest, b = 4, 2                        # terminal 4 is on router 1
    tie = decide_once(u, q=[6, 1, 0], dest=dest, inter=b)        # 6·1 <= 1·2 + 4: minimal
    assert (tie["port"], tie["cls"], tie["phase_out"], tie["decided_out"], tie["inter_out"]) == (4, 1, 1, 1, 0)
    over = decide_once(u, q=[7, 1, 0], dest=dest, inter=b)       # 7 > 6: Valiant through router 2
    assert (over["port"], over["cls"], over["phase_out"], over["inter_out"]) == (5, 0, 0, 2)
    only_val = decide_once(u, q=[0, 9, 0], avail=[0b01, 0b11, 0b11], dest=dest, inter=b)  # min class 1 taken
    assert (only_val["valid"], only_val["port"], only_val["phase_out"]) == (1, 5, 0)
    none = decide_once(u, avail=[0b01, 0b10, 0b11], dest=dest, inter=b)
    assert none["valid"] == 0
    at_b = decide_once(u, dest=0, inter=0, decided=1, phase=0)   # at b with phase 0: phase 1, eject here
    assert (at_b["eject"], at_b["port"], at_b["phase_out"], at_b["valid"]) == (1, 0, 1, 1)


def test_priority_flag_by_hand():
    """2dfb k=8 n=1, router 0 -> router 3 (lanes 12, 13); T_h = 4; h1 honoured, way back never taken,
    the direct link when no queue is under the threshold."""
    net = build("2dfb", k=8, n=1)
    u = PriorityFlagDecide(net, 0, n_vcs=2, depth=8, threshold=4)
    ports = u.net_ports
    q = {p: 9 for p in ports}
    dest = 3 * 8

    def run_q(**kw):
        return decide_once(u, q=[q[p] for p in ports], dest=dest, **kw)

    q[13] = 4
    direct = run_q(h1=0)                       # lane 1 at T_h: direct
    assert (direct["port"], direct["h1_out"]) == (13, 0)
    q[13] = 5
    q[20] = 4                                  # neighbour 7 (s = 6, the first non-minimal link), lane 0
    detour = run_q(h1=0)
    assert (detour["port"], detour["h1_out"]) == (20, 1)
    honoured = run_q(h1=1)                     # flag set: the direct link despite q > T_h (its lighter lane)
    assert (honoured["port"], honoured["h1_out"]) == (13, 0)
    back = run_q(h1=0, in_port=21)             # came from router 7 (input port 21): not back there; no
    assert (back["port"], back["h1_out"]) == (13, 0)   # other link under T_h: the direct one (§R7b step 4)
    no_direct = [0 if p in (12, 13) else 3 for p in ports]
    for h1 in (0, 1):                          # the forced direct link with no lane available: wait
        assert run_q(h1=h1, in_port=21, avail=no_direct)["valid"] == 0
    q[8] = 0                                   # neighbour 1 (s = 0) is the last non-minimal choice
    assert run_q(h1=0, in_port=20)["port"] == 8
    assert run_q(h1=0, hops=7)["cls"] == 1     # class = min(hops, 2D - 1)


# ------------------------------------------------------------------ parameters
FB = build("fbfly", k=4, n=2)


@pytest.mark.parametrize("make, match", [
    (lambda: HyperXRoute(build("slimfly", q=5), 0), r"HyperXRoute: net \(the topology\) must be a HyperX-family"),
    (lambda: HyperXRoute(None, 0), r"net \(the topology\) must be a radixnet.gen.Network"),
    (lambda: HyperXRoute(FB, 4), r"router_id \(this router\) must be an int with 0 <= router_id < 4, got 4"),
    (lambda: HyperXRoute(FB, 0, intermediate=1), r"intermediate .* must be a bool"),
    (lambda: HyperXRoute(FB, 0, dest_bits=3), r"dest_bits .* dest_bits >= 4, got 3"),
    (lambda: HyperXRoute(build("fbfly", k=4, n=1), 0), r"at least one dimension"),
    (lambda: MinAdDecide(FB, 0, 0, 4), r"MinAdDecide: n_vcs \(virtual channels\) must be an int"),
    (lambda: UgalDecide(FB, 0, 2, 0), r"UgalDecide: depth \(flits per downstream VC buffer\)"),
    (lambda: UgalDecide(FB, 0, 3, 4), r"multiple of the routing's 2 VC classes .* got 3"),
    (lambda: UgalDecide(FB, 0, 2, 4, threshold=-1), r"threshold \(UGAL bias theta in flit-hops\)"),
    (lambda: UgalDecide(FB, 0, 2, 4, routing="min"), r"routing .* must be one of ugal, ugal-s, val, got 'min'"),
    (lambda: ClosAdDecide(FB, 0, 2, 4, fault="x"), r"fault .* must be one of None, 'strict', got 'x'"),
    (lambda: PriorityFlagDecide(FB, 0, 2, 4, threshold=1.5), r"threshold \(T_h, output queue threshold"),
])
def test_parameters_are_validated(make, match):
    with pytest.raises(ValueError, match=match):
        make()


# ------------------------------------------------------------------ tool flow (radix-7 fbfly router)
def r7():
    return build("fbfly", k=3, n=3)     # 9 routers, 2 dimensions, radix 7, division by 3 in the digits


LINT_UNITS = {
    "hyperx_route": lambda: HyperXRoute(r7(), 5),
    "hyperx_route_2dfb": lambda: HyperXRoute(build("2dfb", k=4, n=2), 6, intermediate=False),
    "min_ad": lambda: MinAdDecide(r7(), 5, 4, 8),
    "ugal": lambda: UgalDecide(r7(), 5, 4, 8),
    "val": lambda: UgalDecide(r7(), 5, 4, 8, routing="val"),
    "clos_ad": lambda: ClosAdDecide(r7(), 5, 4, 8),
    "prio": lambda: PriorityFlagDecide(r7(), 5, 4, 8),
    "prio_2dfb": lambda: PriorityFlagDecide(build("2dfb", k=8, n=1), 3, 2, 8),
}


@needs_verilator
@pytest.mark.parametrize("top", sorted(LINT_UNITS))
def test_verilog_lints_clean(top):
    text = flat_verilog(LINT_UNITS[top](), top)      # the HyperXRoute submodule inlined: one module
    assert text.count("endmodule") == 1
    waived = lint(text, top)
    assert {w.split(":")[0].removeprefix("%Warning-") for w in waived} <= set(WAIVERS)


@needs_yosys
@pytest.mark.parametrize("top, max_cells", [
    # measured (docs/route-units.md): 160, 231, 468, 162, 512, 226 cells
    ("hyperx_route", 250), ("min_ad", 350), ("ugal", 700), ("val", 250), ("clos_ad", 800), ("prio", 350),
])
def test_yosys_synthesizes(top, max_cells):
    """One instance of each unit on a radix-7 fbfly router (V = 4, B = 8): combinational, no latches;
    the cell counts are those of docs/route-units.md (a bound here, so a blow-up fails)."""
    stats = synth(flat_verilog(LINT_UNITS[top](), top), top)
    assert stats.latches == 0 and stats.flip_flops == 0
    assert 0 < stats.cells <= max_cells, stats.cells
