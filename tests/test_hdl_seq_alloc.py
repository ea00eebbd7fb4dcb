"""The sequential allocator (hdl/seq_alloc.py, docs/seq-alloc.md): its Python model against a
direct transcription of the rule, then both RTL structures (ripple, prefix) against the model in
the Amaranth simulator, a deliberately wrong (greedy) variant caught by the same comparison,
parameter validation, Verilator lint and Yosys synthesis."""

import itertools
import random
import shutil

import pytest
from amaranth import Cat, Const, Module, Signal
from amaranth.sim import Simulator
from hypothesis import given, settings, strategies as st

from radixnet.hdl import seq_alloc
from radixnet.hdl.arbiter import ptr_width
from radixnet.hdl.seq_alloc import IMPLS, Allocation, SequentialAllocator, WavefrontAllocator, build, seq_alloc_model
from radixnet.hdl.verilog import WAIVERS, lint, synth, to_verilog

needs_verilator = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")
needs_yosys = pytest.mark.skipif(shutil.which("yosys") is None, reason="yosys not installed (make setup)")


# ------------------------------------------------------------------ the rule, transcribed
def transcription(q0, cands, start, s):
    """The rule as the spec words it: serve start, start+1, ... (mod N); cost (q0[o] + c[o])·h + b with c
    the grants so far; least cost, ties lowest j; granted iff c[chosen] < S; capacity never steers."""
    n = len(cands)
    c = {o: 0 for o in range(len(q0))}
    out = {}
    for i in [(start + t) % n for t in range(n)]:
        valid = [j for j, cd in enumerate(cands[i]) if cd is not None and cd[0] in c]
        if not valid:
            out[i] = (False, False, None, None)
            continue
        cost = {j: (q0[cands[i][j][0]] + c[cands[i][j][0]]) * cands[i][j][1] + cands[i][j][2] for j in valid}
        j = min(valid, key=lambda j: (cost[j], j))
        o = cands[i][j][0]
        ok = c[o] < s
        c[o] += ok
        out[i] = (True, ok, j, o)
    cols = list(zip(*[out[i] for i in range(n)]))
    return Allocation(*cols, tuple(c[o] for o in range(len(q0))))


def greedy_model(q0, cands, start, s):
    """Deliberately wrong: choices on the start-of-cycle state (greedy), capacity still sequential."""
    n = len(cands)
    alone = [seq_alloc_model(q0, [cands[i]], s=s) for i in range(n)]  # each as if served first
    req = tuple(a.req[0] for a in alone)
    choice = [a.choice[0] for a in alone]
    counts = [0] * len(q0)
    granted = [False] * n
    for i in [(start + t) % n for t in range(n)]:
        if choice[i] is not None:
            o = cands[i][choice[i]][0]
            if counts[o] < s:
                counts[o] += 1
                granted[i] = True
    output = tuple(None if choice[i] is None else cands[i][choice[i]][0] for i in range(n))
    return Allocation(req, tuple(granted), tuple(choice), output, tuple(counts))


# ------------------------------------------------------------------ simulation harness
class Harness:
    """Drive a SequentialAllocator through one flat input and read one flat output (one settle per case)."""

    def __init__(self, dut: SequentialAllocator):
        self.dut = dut
        n, M = dut.n, dut.n_cand
        self.ins = [dut.start, *dut.q_op]
        for i in range(n):
            self.ins += [dut.valid_rq_cd[i], *dut.op_rq_cd[i], *dut.hops_rq_cd[i], *dut.bias_rq_cd[i]]
        self.outs = [dut.req_rq, dut.gnt_rq, *dut.sel_rq, *dut.sel_op_rq, *dut.count_op]
        self.m = Module()
        self.m.submodules.dut = dut
        self.flat_in = Signal(sum(len(s) for s in self.ins))
        self.flat_out = Signal(sum(len(s) for s in self.outs))
        self.m.d.comb += [Cat(*self.ins).eq(self.flat_in), self.flat_out.eq(Cat(*self.outs))]
        self.M = M

    def pack(self, q0, cands, start, rng):
        """The flat input word; invalid candidates carry random junk in their fields."""
        d = self.dut
        ow, hb, bb = ptr_width(d.n_out), d.hop_bits, d.bias_bits
        vals = [start, *q0]
        for row in cands:
            row = list(row) + [None] * (self.M - len(row))
            vals.append(sum(1 << j for j, cd in enumerate(row) if cd is not None))
            junk = [(rng.randrange(1 << ow), rng.randrange(1 << hb), rng.randrange(1 << bb)) for _ in row]
            fields = [cd if cd is not None else jk for cd, jk in zip(row, junk)]
            vals += [f[0] for f in fields] + [f[1] for f in fields] + [f[2] for f in fields]
        word, at = 0, 0
        for sig, v in zip(self.ins, vals):
            assert 0 <= v < (1 << len(sig))
            word |= v << at
            at += len(sig)
        return word

    def unpack(self, word, cands):
        d = self.dut
        vals = []
        for sig in self.outs:
            vals.append(word & ((1 << len(sig)) - 1))
            word >>= len(sig)
        n = d.n
        req, gnt = vals[0], vals[1]
        sel, sel_o, counts = vals[2:2 + n], vals[2 + n:2 + 2 * n], vals[2 + 2 * n:]
        reqs = tuple(bool(req >> i & 1) for i in range(n))
        for i in range(n):  # without a request the choice reads as 0
            assert reqs[i] or (sel[i], sel_o[i], gnt >> i & 1) == (0, 0, 0)
        return Allocation(reqs, tuple(bool(gnt >> i & 1) for i in range(n)),
                          tuple(sel[i] if reqs[i] else None for i in range(n)),
                          tuple(sel_o[i] if reqs[i] else None for i in range(n)), tuple(counts))

    def run(self, cases, seed=0):
        """Results of the DUT on cases [(q0, cands, start)], in order."""
        rng = random.Random(seed)
        words = [self.pack(q0, cands, start, rng) for q0, cands, start in cases]
        seen = []

        async def bench(ctx):
            for w in words:
                ctx.set(self.flat_in, w)
                seen.append(ctx.get(self.flat_out))

        sim = Simulator(self.m)
        sim.add_testbench(bench)
        sim.run()
        return [self.unpack(w, cands) for w, (_, cands, _) in zip(seen, cases)]


def mismatches(dut, cases, model=seq_alloc_model):
    """Cases where the DUT differs from the model (an empty list when they agree everywhere)."""
    got = Harness(dut).run(cases)
    return [(case, g) for case, g in zip(cases, got)
            if g != model(case[0], case[1], start=case[2], s=dut.s)]


# ------------------------------------------------------------------ cases
def exhaustive_small(seed):
    """N = O = 3, M = 2: every pattern of (valid, output) over the 6 candidates (4^6 = 4,096), each with
    random q0 in 0..3, weights 0..3, biases 0..3 and start."""
    rng = random.Random(seed)
    opts = [None, 0, 1, 2]
    cases = []
    for pattern in itertools.product(opts, repeat=6):
        q0 = [rng.randrange(4) for _ in range(3)]
        cands = [[None if pattern[2 * i + j] is None else (pattern[2 * i + j], rng.randrange(4), rng.randrange(4))
                  for j in range(2)] for i in range(3)]
        cases.append((q0, cands, rng.randrange(4)))  # start 3 = 0 mod 3
    return cases


def random_cases(rng, n, n_out, M, count, *, q_max=7, h_max=7, b_max=15, ow=None, p_valid=0.8):
    ow = ptr_width(n_out) if ow is None else ow
    cases = []
    for _ in range(count):
        equal_q = rng.random() < 0.25  # equal queues: the matching-like regime
        q = rng.randrange(q_max + 1)
        q0 = [q if equal_q else rng.randrange(q_max + 1) for _ in range(n_out)]
        cands = [[(rng.randrange(1 << ow), rng.randrange(h_max + 1), rng.randrange(b_max + 1))
                  if rng.random() < p_valid else None for _ in range(M)] for _ in range(n)]
        cases.append((q0, cands, rng.randrange(1 << ptr_width(n))))
    return cases


SMALL = dict(q_bits=2, hop_bits=2, bias_bits=2)


# ------------------------------------------------------------------ the model
@settings(max_examples=300, deadline=None)
@given(st.data())
def test_model_matches_transcription(data):
    n = data.draw(st.integers(1, 7))
    n_out = data.draw(st.integers(1, 5))
    M = data.draw(st.integers(0, 4))
    s = data.draw(st.integers(1, 3))
    q0 = data.draw(st.lists(st.integers(0, 6), min_size=n_out, max_size=n_out))
    cand = st.none() | st.tuples(st.integers(0, n_out), st.integers(0, 4), st.integers(0, 9))  # o = n_out: invalid
    cands = data.draw(st.lists(st.lists(cand, min_size=M, max_size=M), min_size=n, max_size=n))
    start = data.draw(st.integers(0, 2 * n))
    a = seq_alloc_model(q0, cands, start=start, s=s)
    assert a == transcription(q0, cands, start % n, s)
    # the fact the prefix structure rests on: grants to o before a requester = min(S, earlier choosers of o)
    order = [(start + t) % n for t in range(n)]
    for t, i in enumerate(order):
        if a.req[i]:
            before = sum(1 for k in order[:t] if a.output[k] == a.output[i])
            assert a.granted[i] == (before < s)
    assert a.counts == tuple(min(s, a.output.count(o)) for o in range(n_out))


def test_model_hand_cases():
    # UGAL-S: candidate 0 minimal (h = 1, b = 0), candidate 1 non-minimal (h = 2, b = θ = 1)
    a = seq_alloc_model([0, 0], [[(0, 1, 0), (1, 2, 1)]] * 3, s=2)
    assert a == Allocation((True,) * 3, (True,) * 3, (0, 0, 1), (0, 0, 1), (2, 1))
    # capacity never steers the choice: output 0 is full, the tie still goes to it, and waits
    a = seq_alloc_model([0, 5], [[(0, 1, 0)], [(0, 1, 0), (1, 1, 0)], [(0, 1, 0)]], s=1)
    assert a.choice == (0, 0, 0) and a.granted == (True, False, False) and a.counts == (1, 0)
    # start rotates the service order
    assert seq_alloc_model([0], [[(0, 1, 0)]] * 3, start=2, s=1).granted == (False, False, True)
    # S = 1 with equal queues is first-fit matching: each requester takes its first free output
    a = seq_alloc_model([0, 0, 0], [[(0, 1, 0), (1, 1, 0)], [(0, 1, 0), (2, 1, 0)], [(1, 1, 0), (2, 1, 0)]], s=1)
    assert a.output == (0, 2, 1) and all(a.granted)


def test_wrong_models_are_caught():
    """The same comparison flags a greedy model (choices on the start-of-cycle state)."""
    cases = exhaustive_small(1)
    bad = [c for c in cases for s in (1, 2)
           if greedy_model(c[0], c[1], c[2], s) != seq_alloc_model(c[0], c[1], start=c[2], s=s)]
    assert len(bad) > 100


@pytest.mark.parametrize("call, match", [
    (lambda: seq_alloc_model([1], [[(0, 1, 0)]], s=0), r"s \(grants per output\) must be an int >= 1, got 0"),
    (lambda: seq_alloc_model([], [[None]]), r"q0 \(queue estimate per output\)"),
    (lambda: seq_alloc_model([1], []), r"cands \(candidates per requester\)"),
    (lambda: seq_alloc_model([1], [[(0, 1)]]), r"cands\[0\]\[0\] must be None or a triple"),
    (lambda: seq_alloc_model([1], [[(0, -1, 0)]]), r"cands\[0\]\[0\]"),
    (lambda: seq_alloc_model([1], [[None]], start=-1), r"start \(first requester\)"),
])
def test_model_validation(call, match):
    with pytest.raises(ValueError, match="^seq_alloc_model: " + match) as err:
        call()
    assert "\n" not in str(err.value)


# ------------------------------------------------------------------ the RTL against the model
# the prefix structure is slow here (about 4 s each, 20 s beside other jobs): the ripple one takes all 4,096
# patterns by default, tests/test_formal.py proves the two equal for every input at N = 4, O = 3, M = 2
# (sa_equiv_s1, sa_equiv_s2), and the random, odd-shape and single-candidate cases below compare the prefix
# structure with the model by default
@pytest.mark.parametrize("impl", [i if i == "ripple" else pytest.param(i, marks=pytest.mark.slow) for i in IMPLS])
@pytest.mark.parametrize("s", [1, 2])
def test_rtl_exhaustive_small(impl, s):
    """N = O = 3, M = 2: all 4,096 valid/output patterns (random q0, weights, biases, start, junk)."""
    dut = SequentialAllocator(3, 3, 2, s=s, impl=impl, **SMALL)
    assert mismatches(dut, exhaustive_small(s)) == []


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("M, s", [(2, 1), (2, 2), (3, 1), (3, 2)])
def test_rtl_random_8x8(impl, M, s):
    """N = O = 8, seeded random cases (a quarter with equal queues), 4-bit queues, 3-bit weights."""
    rng = random.Random(1000 * M + s)
    dut = SequentialAllocator(8, 8, M, s=s, q_bits=3, hop_bits=3, bias_bits=4, impl=impl)
    assert mismatches(dut, random_cases(rng, 8, 8, M, 150)) == []


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("n, n_out, M, s", [(1, 1, 1, 1), (5, 3, 1, 2), (6, 5, 4, 3), (4, 6, 2, 5), (2, 1, 3, 1)])
def test_rtl_odd_shapes(impl, n, n_out, M, s):
    """Non-power-of-two sizes: outputs >= O count as invalid, start >= N wraps, S above N, M = 1."""
    rng = random.Random(n * 100 + n_out * 10 + M)
    dut = SequentialAllocator(n, n_out, M, s=s, impl=impl, q_bits=2, hop_bits=2, bias_bits=3)
    assert mismatches(dut, random_cases(rng, n, n_out, M, 120, q_max=3, h_max=3, b_max=7)) == []


# N = 5 (a start of 3 bits that wraps) is proved for every input by tests/test_formal.py's sa_equiv_m1
@pytest.mark.parametrize("n, s", [(4, 1), (4, 2)])
def test_rtl_single_candidate_exhaustive(n, s):
    """M = 1 in the prefix structure (no rotation: index-order networks under a thermometer mask from
    ``start``): every (valid, output) pattern of N requesters over O = 3 outputs (one of them out of range)
    at every start, against the model."""
    opts = [None, 0, 1, 2, 3]   # output 3 >= O: not valid
    cases = [([0, 0, 0], [[None if x is None else (x, 1, 0)] for x in pattern], start)
             for pattern in itertools.product(opts, repeat=n) for start in range(1 << ptr_width(n))]
    dut = SequentialAllocator(n, 3, 1, s=s, impl="prefix", q_bits=1, hop_bits=1, bias_bits=1)
    assert mismatches(dut, cases) == []


@pytest.mark.parametrize("impl", IMPLS)
def test_rtl_single_candidate_is_prefix_sum_arbiter(impl):
    """M = 1: granted iff fewer than S earlier requesters (in service order) ask for the same output."""
    rng = random.Random(7)
    dut = SequentialAllocator(8, 4, 1, s=2, impl=impl, **SMALL)
    cases = random_cases(rng, 8, 4, 1, 100, q_max=3, h_max=3, b_max=3)
    for (q0, cands, start), got in zip(cases, Harness(dut).run(cases)):
        order = [(start + t) % 8 for t in range(8)]
        for t, i in enumerate(order):
            if cands[i][0] is not None:
                earlier = sum(1 for k in order[:t] if cands[k][0] is not None and cands[k][0][0] == cands[i][0][0])
                assert got.granted[i] == (earlier < 2)


@pytest.mark.parametrize("impl", IMPLS)
def test_greedy_rtl_variant_is_caught(impl, monkeypatch):
    """Choices on the start-of-cycle counts (greedy; grants still checked on the running counts) fail
    the same comparison, and match the greedy model instead."""
    monkeypatch.setattr(seq_alloc, "_seen_count", lambda m, counts, index, width, name: Const(0, width))
    dut = SequentialAllocator(3, 3, 2, s=1, impl=impl, **SMALL)
    cases = exhaustive_small(1)[::8]
    bad = mismatches(dut, cases)
    assert len(bad) >= 10  # 19 of these 512 cases with the seeds used
    assert mismatches(dut, cases, model=lambda q0, c, start, s: greedy_model(q0, c, start, s)) == []


# ------------------------------------------------------------------ parameters
@pytest.mark.parametrize("make, match", [
    (lambda: SequentialAllocator(0, 4, 2), r"n \(requesters\) must be an int with n >= 1, got 0"),
    (lambda: SequentialAllocator(4, 0, 2), r"n_out \(outputs\) must be an int with n_out >= 1, got 0"),
    (lambda: SequentialAllocator(4, 4, 0), r"n_cand \(candidates per requester\)"),
    (lambda: SequentialAllocator(4, 4, 2, s=0), r"s \(grants per output per cycle\) must be an int with s >= 1"),
    (lambda: SequentialAllocator(4, 4, 2, s=True), r"s \(grants per output per cycle\).*got True"),
    (lambda: SequentialAllocator(4, 4, 2, q_bits=0), r"q_bits \(width of a queue estimate\)"),
    (lambda: SequentialAllocator(4, 4, 2, hop_bits=1.5), r"hop_bits \(width of a hop weight\)"),
    (lambda: SequentialAllocator(4, 4, 2, bias_bits=0), r"bias_bits \(width of a bias\)"),
    (lambda: SequentialAllocator(4, 4, 2, impl="tree"), r"impl \(structure\) must be 'ripple' or 'prefix', got 'tree'"),
    (lambda: build(8, impl="greedy"), r"impl \(structure\)"),
])
def test_parameter_validation(make, match):
    with pytest.raises(ValueError, match="^SequentialAllocator: " + match) as err:
        make()
    assert "\n" not in str(err.value)


def test_build_and_ports():
    a = build(8, "prefix")
    assert (a.n, a.n_out, a.n_cand, a.s, a.q_bits, a.hop_bits, a.bias_bits) == (8, 8, 2, 2, 8, 3, 4)
    assert (len(a.start), len(a.q_op[0]), len(a.op_rq_cd[0][0]), len(a.sel_rq[0]), len(a.count_op[0])) == (3, 8, 3, 1, 2)
    b = build(8, n_out=5, s=1)
    assert (b.n_out, b.s, len(b.op_rq_cd[0][0])) == (5, 1, 3)
    for unit in (a, b):  # not elaborated here
        unit._MustUse__silence = True


# ------------------------------------------------------------------ tools
@needs_verilator
@pytest.mark.parametrize("impl", IMPLS)
def test_lint_clean(impl):
    top = f"seqalloc_{impl}"
    text = to_verilog(SequentialAllocator(3, 3, 2, s=2, impl=impl, **SMALL), top)
    waived = lint(text, top)
    assert {w.split(":")[0].removeprefix("%Warning-") for w in waived} <= set(WAIVERS)


@needs_yosys
@pytest.mark.slow  # 15-40 s per structure on 2 cores
@pytest.mark.parametrize("impl", IMPLS)
def test_yosys_synthesizes_8x8(impl):
    top = f"seqalloc8_{impl}"
    stats = synth(to_verilog(build(8, impl), top), top)
    assert stats.top == top and stats.latches == 0 and stats.flip_flops == 0  # combinational
    assert stats.cells > 500


# ------------------------------------------------------------------ the wavefront (pipelined) structure
def run_clocked(dut: WavefrontAllocator, cases, seed=0):
    """Stream ``cases`` into the clocked unit, one per cycle; the outputs of every cycle (flat words) and each
    case's allocation, read ``dut.latency`` cycles after it went in."""
    h = Harness(dut)
    rng = random.Random(seed)
    words = [h.pack(q0, cands, start, rng) for q0, cands, start in cases]
    seen = []

    async def bench(ctx):
        for w in words + [0] * dut.latency:
            ctx.set(h.flat_in, w)
            await ctx.tick()
            seen.append(ctx.get(h.flat_out))

    sim = Simulator(h.m)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return seen, [h.unpack(seen[c + dut.latency - 1], cases[c][1]) for c in range(len(cases))]


@pytest.mark.parametrize("n, n_out, M, s, g", [(8, 8, 2, 1, 1), (8, 8, 2, 2, 3), (6, 5, 3, 2, 2), (5, 3, 2, 1, 5),
                                               (1, 1, 1, 1, 1), (4, 6, 2, 3, 1)])
def test_wavefront_matches_model(n, n_out, M, s, g):
    """A new batch every cycle, each batch's allocation exactly the model's, ``latency = 4 + ceil(N / g)``
    cycles later; before the first batch arrives the outputs hold no request."""
    rng = random.Random(100 * n + 10 * g + s)
    dut = WavefrontAllocator(n, n_out, M, s=s, q_bits=3, hop_bits=2, bias_bits=3, per_stage=g)
    assert dut.latency == 4 + -(-n // g)
    cases = random_cases(rng, n, n_out, M, 60, q_max=7, h_max=3, b_max=7)
    seen, got = run_clocked(dut, cases)
    assert seen[:dut.latency - 1] == [0] * (dut.latency - 1)
    want = [seq_alloc_model(q0, cands, start=start, s=s) for q0, cands, start in cases]
    assert [i for i, (a, b) in enumerate(zip(got, want)) if a != b] == []


def test_wavefront_small_patterns():
    """N = O = 3, M = 2, S = 1, one position per stage: a 512-pattern sample of the exhaustive cases, streamed."""
    dut = WavefrontAllocator(3, 3, 2, s=1, per_stage=1, **SMALL)
    cases = exhaustive_small(1)[::8]
    _, got = run_clocked(dut, cases)
    assert [c for c, a in zip(cases, got) if a != seq_alloc_model(c[0], c[1], start=c[2], s=1)] == []


def test_wavefront_greedy_variant_is_caught(monkeypatch):
    """Choices on zero counts (greedy) fail the same comparison."""
    monkeypatch.setattr(seq_alloc, "_seen_count", lambda m, counts, index, width, name: Const(0, width))
    dut = WavefrontAllocator(3, 3, 2, s=1, per_stage=1, **SMALL)
    cases = exhaustive_small(1)[::8]
    _, got = run_clocked(dut, cases)
    assert sum(a != seq_alloc_model(c[0], c[1], start=c[2], s=1) for c, a in zip(cases, got)) >= 10


def test_wavefront_parameters():
    w = WavefrontAllocator(16, 16, 2, per_stage=4)
    assert (w.serve_stages, w.latency, w.impl) == (4, 8, "wavefront")
    w._MustUse__silence = True
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match=r"^WavefrontAllocator: per_stage \(positions a serve stage decides\)"):
            WavefrontAllocator(4, 4, 2, per_stage=bad)


@needs_verilator
def test_wavefront_lint_clean():
    text = to_verilog(WavefrontAllocator(3, 3, 2, s=2, per_stage=2, **SMALL), "seqalloc_wavefront")
    waived = lint(text, "seqalloc_wavefront")
    assert {w.split(":")[0].removeprefix("%Warning-") for w in waived} <= set(WAIVERS)
