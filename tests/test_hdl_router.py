"""Router top (docs/rtl-checks.md "Router top"): ``sp`` table routing, greedy allocator, S = 1.

The Router runs in the Amaranth simulator against a small Python model of docs/router-spec.md
§R2/§R5/§R6 (written here, cycle by cycle, from the same start-of-cycle state rule as the golden
kernel's greedy path), on hand-written scenarios (timing, round robin, credits) and on random
traffic; then Verilator lint and Yosys synthesis of one router, and ``rtlgen``/``make rtl``."""

import json
import random
import shutil
import subprocess
import sys
from collections import deque
from pathlib import Path

import pytest
from amaranth.sim import Simulator

from radixnet.gen import build
from radixnet.gen.routing import compile_table
from radixnet.hdl.flit import flit_widths
from radixnet.hdl.router import Router
from radixnet.hdl.rtlgen import flat_verilog, generate, main as rtlgen_main
from radixnet.hdl.verilog import lint, synth

from helpers.flits import pack, unpack

ROOT = Path(__file__).resolve().parents[1]
needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")
needs_yosys = pytest.mark.skipif(shutil.which("yosys") is None, reason="yosys not installed (make setup)")


@pytest.fixture(scope="module")
def fbfly():
    return build("fbfly", k=4, n=2)




class RouterModel:
    """§R2/§R5/§R6 greedy, S = 1, Tl = 1, for one router with table routing (the golden rules, restated)."""

    def __init__(self, router: Router):
        self.r, self.P, self.V, self.B = router, router.n_ports, router.n_vcs, router.vc_depth
        self.K, self.table, self.rid = router.n_classes, router.table, router.router_id
        self.eject = set(router.eject_ports)
        P, V = self.P, self.V
        self.buf = [[deque() for _ in range(V)] for _ in range(P)]
        self.credit = [[self.B] * V for _ in range(P)]
        self.busy = [[0] * V for _ in range(P)]
        self.active = [[None] * V for _ in range(P)]   # (o, ov) held by a packet
        self.ptr_in, self.ptr_out = [0] * P, [0] * P

    def route(self, f):
        t = self.table
        dr = int(t.term_router[f["dest"]])
        if dr == self.rid:                        # the implicit VC, unless a packet holds it (§R5)
            o = int(t.eject_port[f["dest"]])
            return None if self.busy[o][0] else (o, 0)
        o = int(t.next_port[self.rid][dr])
        vpc = self.V // self.K
        c0 = min(f["hops"], self.K - 1) * vpc
        best, bc = None, 0
        for v in range(c0, c0 + vpc):            # §R5: idle, >= 1 credit, most credits, lowest index
            if not self.busy[o][v] and self.credit[o][v] > bc:
                best, bc = v, self.credit[o][v]
        return (o, best) if best is not None else None

    def step(self, arrivals, credits_in):
        """One cycle: ``arrivals`` {p: flit dict}, ``credits_in`` [(o, v)]. Returns ({o: flit}, {(p, v)})."""
        P, V = self.P, self.V
        reqs = {}
        for p in range(P):                            # 1. requests on the start-of-cycle state
            for v in range(V):
                if not self.buf[p][v]:
                    continue
                f = self.buf[p][v][0]
                if self.active[p][v] is not None:
                    o, ov = self.active[p][v]
                    if o in self.eject or self.credit[o][ov] > 0:
                        reqs[p, v] = (o, ov)
                else:
                    rt = self.route(f)
                    if rt is not None:
                        reqs[p, v] = rt
        picks = {}
        for p in range(P):                            # 2. input arbitration from ptr_in
            for j in range(V):
                v = (self.ptr_in[p] + j) % V
                if (p, v) in reqs:
                    picks[p] = v
                    break
        outs, pops = {}, set()
        for o in range(P):                            # 3. output arbitration from ptr_out
            for j in range(P):
                p = (self.ptr_out[o] + j) % P
                if p in picks and reqs[p, picks[p]][0] == o:
                    v = picks[p]
                    ov = reqs[p, v][1]
                    f = dict(self.buf[p][v].popleft())
                    pops.add((p, v))
                    self.ptr_out[o] = (p + 1) % P      # 4. pointers move on grants
                    self.ptr_in[p] = (v + 1) % V
                    if f["head"] and self.active[p][v] is None and o not in self.eject:
                        f["hops"] = min(f["hops"] + 1, 255)
                    f["vc"] = ov
                    if o not in self.eject:
                        self.credit[o][ov] -= 1
                    if f["head"] and not f["tail"]:
                        self.active[p][v] = (o, ov)
                        self.busy[o][ov] = 1
                    elif f["tail"] and not f["head"]:
                        self.active[p][v] = None
                        self.busy[o][ov] = 0
                    outs[o] = f
                    break
        for p, f in arrivals.items():                 # arrivals / credits at the end of the cycle
            self.buf[p][f["vc"]].append(dict(f))
            assert len(self.buf[p][f["vc"]]) <= self.B
        for o, v in credits_in:
            self.credit[o][v] += 1
            assert self.credit[o][v] <= self.B
        return outs, pops


def simulate(dut, schedule, cycles, *, credit_policy="echo", model=True):
    """Run ``dut`` for ``cycles``: ``schedule(t, upstream_credits)`` returns {p: flit dict} to send in t
    (the caller respects credits, which this function keeps: B per input VC, +1 per credit_out).
    ``credit_policy`` "echo": a flit sent on a network output is credited back the next cycle;
    "none": never; a callable(t, owed) returns the (o, v) credits to return in t from the owed list.
    Compares every cycle with :class:`RouterModel` (when ``model``) and returns [(t, o, flit dict)]."""
    lay, P, V = dut.flit_layout, dut.n_ports, dut.n_vcs
    ref = RouterModel(dut) if model else None
    upstream = [[dut.vc_depth] * V for _ in range(P)]
    owed, log = [], []

    async def bench(ctx):
        for t in range(cycles):
            arrivals = schedule(t, upstream)
            for p, f in arrivals.items():
                assert upstream[p][f["vc"]] > 0, "schedule ignored the credit protocol"
                upstream[p][f["vc"]] -= 1
            if credit_policy == "echo":
                ret = list(owed)
                owed.clear()
            elif credit_policy == "none":
                ret = []
            else:
                ret = credit_policy(t, owed)
                for c in ret:
                    owed.remove(c)
            for p in range(P):
                ctx.set(dut.in_flit_ip[p].as_value(), pack(lay, arrivals[p]) if p in arrivals else 0)
            ctx.set(dut.in_valid_ip, sum(1 << p for p in arrivals))
            for o in range(P):
                ctx.set(dut.credit_in_op_ovc[o], sum(1 << v for (oo, v) in ret if oo == o))
            valid = ctx.get(dut.out_valid_op)
            outs = {o: unpack(lay, ctx.get(dut.out_flit_op[o].as_value())) for o in range(P) if valid >> o & 1}
            cred = {(p, v) for p in range(P) for v in range(V) if ctx.get(dut.credit_out_ip_ivc[p]) >> v & 1}
            if ref is not None:
                m_outs, m_pops = ref.step(arrivals, ret)
                assert outs == m_outs, f"cycle {t}: RTL {outs} != model {m_outs}"
                assert cred == m_pops, f"cycle {t}: credits RTL {cred} != model {m_pops}"
            for p, v in cred:
                upstream[p][v] += 1
            for o, f in outs.items():
                log.append((t, o, f))
                if o not in dut.eject_ports:
                    owed.append((o, f["vc"]))
            assert ctx.get(dut.error) == 0
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return log


def flit(dest, vc=0, *, head=1, tail=1, hops=0, data=0):
    return {"head": head, "tail": tail, "vc": vc, "dest": dest, "hops": hops, "data": data}


# ------------------------------------------------------------------ (a) single packet timing
def test_single_packet_timing_and_header(fbfly):
    """§R2/§R3: sent on a terminal input in cycle 0, granted in 1 and on the table's output in 1
    (vc = the class's VC with most credits, hops + 1); the next router would grant it in 2."""
    dut = Router(fbfly, 0, n_vcs=2, vc_depth=4, data_width=16)
    table = compile_table(fbfly)
    dest = 13                                         # terminal 13 is on router 3
    port = int(table.next_port[0][int(table.term_router[dest])])
    assert dut.out_channels[port] >= 0 and port not in dut.eject_ports
    sends = {0: {2: flit(dest, vc=1, data=0xab)},     # one-flit packet on terminal port 2, VC 1
             4: {1: flit(dest, vc=0, tail=0, data=1)}, 5: {1: flit(dest, vc=0, head=0, data=2)},
             9: {0: flit(2, vc=1, data=7)}}           # to terminal 2 on this router: ejection
    log = simulate(dut, lambda t, up: sends.get(t, {}), 12)
    assert log == [
        (1, port, flit(dest, vc=0, hops=1, data=0xab)),
        (5, port, flit(dest, vc=0, tail=0, hops=1, data=1)),    # echoed credits: VC 0 has most again
        (6, port, flit(dest, vc=0, head=0, hops=0, data=2)),    # body/tail: same VC, header untouched
        (10, 2, flit(2, vc=0, hops=0, data=7)),                  # ejection: vc 0, hops unchanged
    ]


def test_credit_out_in_grant_cycle(fbfly):
    """A pop returns its credit upstream in the grant cycle (§R2 phase 2, Tl = 1)."""
    dut = Router(fbfly, 1, n_vcs=2, vc_depth=2, data_width=8)
    seen = []

    async def bench(ctx):
        ctx.set(dut.in_flit_ip[3].as_value(), pack(dut.flit_layout, flit(0, vc=1)))
        ctx.set(dut.in_valid_ip, 1 << 3)
        seen.append(ctx.get(dut.credit_out_ip_ivc[3]))
        await ctx.tick()
        ctx.set(dut.in_valid_ip, 0)
        seen.append((ctx.get(dut.credit_out_ip_ivc[3]), ctx.get(dut.out_valid_op)))
        await ctx.tick()
        seen.append((ctx.get(dut.credit_out_ip_ivc[3]), ctx.get(dut.out_valid_op)))

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    port = int(compile_table(fbfly).next_port[1][0])
    assert seen == [0, (0b10, 1 << port), (0, 0)]


# ------------------------------------------------------------------ (b) round robin
def test_two_inputs_compete_round_robin(fbfly):
    """§R6: terminal inputs 0 and 2 stream one-flit packets to one output; the output alternates
    between them from ptr_out, each input alternates its VCs from ptr_in; matches the model."""
    dut = Router(fbfly, 0, n_vcs=2, vc_depth=4, data_width=16)
    count = {0: 0, 2: 0}

    def schedule(t, up):
        out = {}
        for p in (0, 2):
            v = count[p] % 2
            if count[p] < 20 and up[p][v] > 0:
                out[p] = flit(12, vc=v, data=(p << 8) | count[p])
                count[p] += 1
        return out

    log = simulate(dut, schedule, 50)
    srcs = [f["data"] >> 8 for _, _, f in log]
    assert len(log) == 40 and len({o for _, o, _ in log}) == 1
    assert srcs == [0, 2] * 20                         # ptr_out alternates the two inputs
    assert [t for t, _, _ in log] == list(range(1, 41))  # one flit per cycle on the output
    by_src = {p: [f["data"] & 0xff for _, _, f in log if f["data"] >> 8 == p] for p in (0, 2)}
    assert by_src == {0: list(range(20)), 2: list(range(20))}


def test_wormhole_holds_output_vc(fbfly):
    """§R5: a 3-flit packet holds its output VC; a competing head takes the other VC; VCs of one
    input alternate per ptr_in; all against the model."""
    dut = Router(fbfly, 2, n_vcs=2, vc_depth=4, data_width=16)
    sends = {0: {0: flit(1, 0, tail=0, data=1), 1: flit(2, 0, tail=0, data=11)},
             1: {0: flit(1, 0, head=0, tail=0, data=2), 1: flit(2, 1, data=20)},
             2: {0: flit(1, 0, head=0, data=3), 1: flit(2, 0, head=0, tail=0, data=12)},
             3: {1: flit(2, 0, head=0, tail=1, data=13)}}
    log = simulate(dut, lambda t, up: sends.get(t, {}), 12)
    assert len(log) == 7
    vcs = {f["data"]: f["vc"] for _, _, f in log}
    assert vcs[1] == vcs[2] == vcs[3] and vcs[11] == vcs[12] == vcs[13] and vcs[1] != vcs[11]


# ------------------------------------------------------------------ (c) credits
def test_credits_limit_and_resume(fbfly):
    """§R2: without returned credits at most vc_depth flits leave per output VC, then the output
    stops; returning credits resumes it (one flit per returned credit)."""
    B = 3
    dut = Router(fbfly, 0, n_vcs=2, vc_depth=B, data_width=16)
    sent = [0]

    def schedule(t, up):
        for v in (0, 1):
            if up[0][v] > 0 and sent[0] < 30:
                sent[0] += 1
                return {0: flit(12, vc=v, data=sent[0])}
        return {}

    def credits(t, owed):
        return owed[:1] if t >= 25 and t % 3 == 0 else []

    log = simulate(dut, schedule, 40, credit_policy=credits)
    before = [(t, f["vc"]) for t, _, f in log if t < 25]
    assert sorted(v for _, v in before) == [0] * B + [1] * B     # 2 VCs x B credits, then stop
    assert max(t for t, _ in before) < 10
    after = [t for t, _, _ in log if t >= 25]
    assert after == [t + 1 for t in range(27, 39, 3)]  # returned in 27, 30, ...: one flit each, next cycle


def test_ejection_needs_no_credits(fbfly):
    """§R3/§R5: an ejection port always accepts; with no credits ever returned, a stream to a local
    terminal flows at one flit per cycle."""
    dut = Router(fbfly, 0, n_vcs=2, vc_depth=2, data_width=8)
    n = [0]

    def schedule(t, up):
        v = n[0] % 2
        if t < 16 and up[5][v] > 0:
            n[0] += 1
            return {5: flit(3, vc=v, hops=1, data=n[0])}
        return {}

    log = simulate(dut, schedule, 20, credit_policy="none")
    assert [t for t, _, _ in log] == list(range(1, 17)) and {o for _, o, _ in log} == {3}
    assert all(f["vc"] == 0 and f["hops"] == 1 for _, _, f in log)


# ------------------------------------------------------------------ random traffic vs the model
def random_traffic(dut, seed, cycles, load):
    rng = random.Random(seed)
    T = dut.net.num_terminals
    P, V = dut.n_ports, dut.n_vcs
    left = [[0] * V for _ in range(P)]                 # flits still to send of each VC's packet
    dest = [[0] * V for _ in range(P)]
    hops = [[0] * V for _ in range(P)]

    def schedule(t, up):
        out = {}
        for p in range(P):
            if rng.random() >= load:
                continue
            ready = [v for v in range(V) if up[p][v] > 0]
            if not ready:
                continue
            v = rng.choice(ready)
            if left[p][v] == 0:
                left[p][v] = rng.randint(1, 3)
                dest[p][v] = rng.randrange(T)
                hops[p][v] = rng.randrange(3)
                head = 1
            else:
                head = 0
            left[p][v] -= 1
            out[p] = flit(dest[p][v], v, head=head, tail=int(left[p][v] == 0), hops=hops[p][v],
                          data=rng.randrange(256))
        return out

    def credits(t, owed):
        return [c for c in owed if rng.random() < 0.5 and c not in owed[:owed.index(c)]]

    return schedule, credits


@pytest.mark.parametrize("family, kw, rid, seed, n_vcs, depth", [
    ("fbfly", {"k": 4, "n": 2}, 1, 1, 2, 3),
    ("fbfly", {"k": 4, "n": 2}, 3, 3, 3, 1),
    ("slimfly", {"q": 5}, 7, 2, 2, 3),
    # slow (7 s): router 7 above uses both Slim Fly classes, and the fbfly routers choose among VCs of a class
    pytest.param("slimfly", {"q": 5}, 20, 4, 4, 2, marks=pytest.mark.slow),
])
def test_random_traffic_matches_model(family, kw, rid, seed, n_vcs, depth):
    """Random multi-flit traffic on every input (all destinations, hops 0..2 so every VC class is
    used), credits returned at random (at most one per output VC per cycle): RTL == model every cycle."""
    net = build(family, **kw)
    dut = Router(net, rid, n_vcs=n_vcs, vc_depth=depth, data_width=8)
    schedule, credits = random_traffic(dut, seed, 150, 0.7)

    def one_per_vc(t, owed):
        out, seen = [], set()
        for c in credits(t, owed):
            if c not in seen:
                seen.add(c)
                out.append(c)
        return out

    log = simulate(dut, schedule, 150, credit_policy=one_per_vc)
    assert len(log) > 100


def test_model_route_is_the_golden_decide():
    """The model's §R5/§R7a choice is the golden kernel's _decide TABLE branch (.py_func) on random
    credit and busy states: the random-traffic comparison above is against the golden rule."""
    import numpy as np

    from radixnet.gen.routing import TABLE
    from radixnet.golden import kernel

    net = build("slimfly", q=5)
    dut = Router(net, 7, n_vcs=4, vc_depth=3, data_width=8)
    dut._MustUse__silence = True
    model, table, rng = RouterModel(dut), dut.table, random.Random(5)
    R, P, V, B = net.num_routers, dut.n_ports, 4, 3
    out_term = np.full((R, P), -1, np.int64)
    here = table.term_router == 7
    out_term[7, table.eject_port[here]] = np.flatnonzero(here)
    for _ in range(30):
        credit = np.array([[[rng.randrange(B + 1) for _ in range(V)] for _ in range(P)]] * R, np.int64)
        busy = np.array([[[int(rng.random() < 0.3) for _ in range(V)] for _ in range(P)]] * R, np.int64)
        model.credit, model.busy = credit[7].tolist(), busy[7].tolist()
        for dest in range(0, net.num_terminals, 7):
            for hops in range(3):
                pkt = lambda x: np.array([x], np.int64)  # noqa: E731
                dec = np.zeros(5, np.int64)
                known = dict(r=7, pid=0, algo=TABLE, ncls=table.classes, V=V, B=B, thr=0,
                             term_router=table.term_router, eject_port=table.eject_port, out_term=out_term,
                             credit=credit, ovc_busy=busy, pkt_dst=pkt(dest), pkt_phase=pkt(0),
                             pkt_decided=pkt(0), pkt_inter=pkt(0), dec=dec, tbl=table.next_port,
                             pkt_hops=pkt(hops), p=0,
                 tcls=np.full((1, 1), -1, np.int64), up_port=np.full((1, 1), -1, np.int64))
                ok = kernel.decide_reference(known)
                # the allocator then skips an ejection port held by another packet (§R5)
                ok = ok and not (out_term[7, dec[0]] >= 0 and busy[7, dec[0], 0])
                want = (int(dec[0]), int(dec[1])) if ok else None
                assert model.route(flit(dest, hops=hops)) == want


# ------------------------------------------------------------------ parameters
def test_parameters_are_validated(fbfly):
    for kwargs, match in [(dict(router_id=4), "router_id"), (dict(n_vcs=0), "n_vcs"),
                          (dict(vc_depth=0), "vc_depth"), (dict(data_width=0), "data_width")]:
        args = dict(router_id=0, n_vcs=2, vc_depth=2) | kwargs
        with pytest.raises(ValueError, match=match):
            Router(fbfly, args.pop("router_id"), **args)
    with pytest.raises(ValueError, match="multiple of the routing's 2 VC classes"):
        Router(build("slimfly", q=5), 0, n_vcs=3, vc_depth=2)


# ------------------------------------------------------------------ lint, synthesis, rtlgen
@pytest.fixture(scope="module")
def router_verilog(fbfly):
    return flat_verilog(Router(fbfly, 0, n_vcs=2, vc_depth=4, data_width=16), "router0")


@needs_verilator
def test_router_lints_clean(router_verilog):
    assert router_verilog.count("\nmodule ") + router_verilog.startswith("module ") == 1
    lint(router_verilog, "router0")   # raises LintError on anything but the WAIVERS


@needs_yosys
def test_router_synthesizes(router_verilog):
    stats = synth(router_verilog, "router0")
    assert stats.latches == 0 and not any(t.startswith("$mem") for t in stats.cell_types)
    # 7 ports x 2 VCs x 4 flits x 36-bit flit of buffers dominate the flip-flops
    assert 2016 <= stats.flip_flops <= 2300


def test_rtlgen_writes_modules_and_manifest(fbfly, tmp_path):
    man = generate(fbfly, tmp_path, vcs=2, vc_depth=4, data_width=16)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"] + [f"router_{i}.v" for i in range(4)]
    disk = json.loads((tmp_path / "manifest.json").read_text())
    assert disk["routers"][0]["ports"][4]["kind"] == "network" and disk["routers"][0]["ports"][0]["kind"] == "ejection"
    assert disk["flit"]["size"] == flit_widths(fbfly, 2, 16).size
    assert disk["tables"]["next_port"] == compile_table(fbfly).next_port.tolist()
    assert man["modules"] == ["router_0", "router_1", "router_2", "router_3"]


def test_rtlgen_refuses_deadlock_in_one_line(tmp_path, capsys):
    assert rtlgen_main(["torus", "--dims", "6", "--vc-classes", "1", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rtlgen: error: dor with 1 VC class on torus has a cyclic") and "\n" not in err
    assert not any(tmp_path.iterdir())


def test_make_rtl(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make not installed")
    out = subprocess.run(["make", "-s", "rtl", "TOPO=fbfly", "ARGS=--k 4 --n 2", "VCS=2", "DEPTH=2",
                          f"RTL_OUT={tmp_path}/fb", f"PY={sys.executable}"],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads((tmp_path / "fb" / "manifest.json").read_text())["vc_depth"] == 2
