"""The decision line (router-spec §R11.2a, hdl/decision_line.py) against its specification, in Amaranth simulation.

Random flits enter every injection port every cycle (heads and bodies, destinations at this router and
elsewhere, intermediate routers equal to the source or destination or neither) with random queue lengths;
every flit must leave ``Lw`` cycles later unchanged except a decided head's ``phase``, which must be the
choice :func:`~radixnet.hdl.seq_alloc.seq_alloc_model` makes for its batch: the heads that entered in the
same cycle, served from ``ptr_line`` (one port on every cycle), on the queue lengths of the cycle after they
entered, candidates from the golden kernel's ``dor_output`` and ``hop_count``, ``S = 3``.
"""

from __future__ import annotations

import random
from functools import lru_cache

import pytest
from amaranth.sim import Simulator

from radixnet.gen import build
from radixnet.gen.routing import compile_hyperx
from radixnet.golden import kernel
from radixnet.hdl.decision_line import LINE_S, DecisionLine, line_latency
from radixnet.hdl.seq_alloc import seq_alloc_model

# (family, params, router, theta): four and three injection ports, one and two dimensions
NETS = {
    "fbfly4x2": ("fbfly", dict(k=4, n=2), 2, 4),
    "hyperx3x4": ("hyperx", dict(dims=[3, 4], mult=[2, 1], c=3), 7, 1),
}
V, B, W = 2, 4, 16


@lru_cache(maxsize=None)
def network(name):
    fam, kw, r, thr = NETS[name]
    net = build(fam, **kw)
    pt = net.port_table()
    ports = [p for p in range(int(net.radix[r])) if pt["in_terminal"][r, p] >= 0]
    return net, compile_hyperx(net), ports, r, thr


def candidates(tables, r, thr, f):
    """The line's candidates for flit ``f`` (§R11.2a): none unless an undecided head leaving this router."""
    hops, dor = kernel.hop_count.py_func, kernel.dor_output.py_func
    c = tables.coords
    dr = int(tables.term_router[f["dest"]])
    if not (f["valid"] and f["head"] and not f["decided"]) or dr == r:
        return []
    b = f["inter"]
    out = [(int(dor(c, tables.port_to, r, dr)), int(hops(c, r, dr)), 0)]
    if b not in (r, dr):
        out.append((int(dor(c, tables.port_to, r, b)), int(hops(c, r, b) + hops(c, b, dr)), thr))
    return out


def run_clocked(dut, bench):
    """Run the async testbench ``bench`` on ``dut`` with a clock."""
    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()


def random_flit(rng, net, load):
    return dict(valid=rng.random() < load, head=rng.random() < 0.6, tail=rng.random() < 0.5,
                vc=rng.randrange(V), dest=rng.randrange(net.num_terminals), inter=rng.randrange(net.num_routers),
                phase=rng.randrange(2), decided=int(rng.random() < 0.1), h1=rng.randrange(2),
                hops=rng.randrange(4), data=rng.randrange(1 << W))


def simulate(dut, cycles, seed, load=0.8, qmax=None):
    """Drive random flits and queue lengths for ``cycles`` cycles; per cycle the inputs and the outputs seen."""
    rng = random.Random(seed)
    net, N, P = dut.net, len(dut.ports), dut.n_ports
    qmax = V * B if qmax is None else qmax
    ins, outs = [], []

    async def bench(ctx):
        for _ in range(cycles):
            flits = [random_flit(rng, net, load) for _ in range(N)]
            q = [rng.randrange(qmax + 1) for _ in range(P)]
            for i, f in enumerate(flits):
                for k, v in f.items():
                    if k != "valid":
                        ctx.set(getattr(dut.in_flit_ln[i], k), v)
                ctx.set(dut.in_valid_ln[i], f["valid"])
            for o in range(P):
                ctx.set(dut.q_op[o], q[o])
            ins.append((flits, q))
            got = []
            for i in range(N):
                f = {k: ctx.get(getattr(dut.out_flit_ln[i], k)) for k in flits[0] if k != "valid"}
                f["valid"] = ctx.get(dut.out_valid_ln[i])
                got.append(f)
            outs.append(got)
            await ctx.tick()

    run_clocked(dut, bench)
    return ins, outs


def expected(name, dut, ins, t):
    """What the line's ports carry in cycle ``t``: the flits of cycle ``t - Lw``, heads with their preference."""
    net, tables, ports, r, thr = network(name)
    N, Lw = len(ports), dut.latency
    if t < Lw:
        return None
    flits = [dict(f) for f in ins[t - Lw][0]]
    e = t - Lw + 1   # the batch's cycle: the heads sit in the line's first register
    q = ins[e][1]
    alloc = seq_alloc_model(q, [candidates(tables, r, thr, f) for f in flits], start=e % N, s=LINE_S)
    for f, req, j in zip(flits, alloc.req, alloc.choice):
        if req:
            f["phase"] = j
    return flits


@pytest.mark.parametrize("name, g", [("fbfly4x2", 1), ("fbfly4x2", 3), ("hyperx3x4", 2), ("hyperx3x4", 3)])
def test_line_matches_spec(name, g):
    net, tables, ports, r, thr = network(name)
    dut = DecisionLine(net, r, V, B, ports, per_stage=g, threshold=thr, data_width=W)
    assert dut.latency == line_latency(len(ports), g)
    cycles = 120
    ins, outs = simulate(dut, cycles, seed=g)
    moved = 0
    for t in range(dut.latency, cycles):
        want = expected(name, dut, ins, t)
        for i, (w, got) in enumerate(zip(want, outs[t])):
            if not w["valid"]:
                assert not got["valid"], (t, i)
                continue
            assert got == w, (t, i, got, w)
        # the choices the batch's counts moved: the choice on q alone differs from the one made
        e = t - dut.latency + 1
        for f, w in zip(ins[t - dut.latency][0], want):
            cands = candidates(tables, r, thr, f)
            moved += bool(cands) and seq_alloc_model(ins[e][1], [cands]).choice[0] != w["phase"]
    assert moved > 0, "no choice depended on an earlier head of its batch"


def test_nonminimal_preference_needs_a_candidate():
    """A head whose intermediate is its source router has only the minimal candidate: preference 0 whatever
    the queues say, and a head that ejects here keeps its phase."""
    net, tables, ports, r, thr = network("fbfly4x2")
    dut = DecisionLine(net, r, V, B, ports, per_stage=1, threshold=0, data_width=W)
    here = [t for t in range(net.num_terminals) if tables.term_router[t] == r][0]
    other = [t for t in range(net.num_terminals) if tables.term_router[t] != r][0]
    seen = []

    async def bench(ctx):
        for o in range(dut.n_ports):
            ctx.set(dut.q_op[o], V * B)   # the minimal route as loaded as it gets
        for i, (dest, phase) in enumerate([(other, 1), (here, 1)]):
            f = dut.in_flit_ln[i]
            ctx.set(f.head, 1)
            ctx.set(f.dest, dest)
            ctx.set(f.inter, r)
            ctx.set(f.phase, phase)
            ctx.set(dut.in_valid_ln[i], 1)
        await ctx.tick()
        for i in range(2):
            ctx.set(dut.in_valid_ln[i], 0)
        for _ in range(dut.latency - 1):
            await ctx.tick()
        seen.extend((ctx.get(dut.out_valid_ln[i]), ctx.get(dut.out_flit_ln[i].phase)) for i in range(2))

    run_clocked(dut, bench)
    assert seen == [(1, 0), (1, 1)]


def test_refusals_in_one_line():
    net, _, ports, r, _ = network("fbfly4x2")
    with pytest.raises(ValueError, match=r"^DecisionLine: per_stage [^\n]*>= 1, got 0$"):
        DecisionLine(net, r, V, B, ports, per_stage=0)
    with pytest.raises(ValueError, match=r"^DecisionLine: ports [^\n]*got \[0, 0\]$"):
        DecisionLine(net, r, V, B, [0, 0], per_stage=1)


def chain_model(req, ptr, P, S):
    """The first ``S`` requests of ``req`` (a list of lane bits, lane ``p * S + j``) in service order from input
    ``ptr`` (router-spec §R11.2a's chain beside GO)."""
    admit = [0] * (P * S)
    k = 0
    for i in range(P):
        for j in range(S):
            lane = ((ptr + i) % P) * S + j
            if req[lane] and k < S:
                admit[lane] = 1
                k += 1
    return admit


@pytest.mark.parametrize("P,S", [(1, 1), (5, 1), (8, 1), (4, 2), (3, 3)])
def test_output_chain_matches_spec(P, S):
    """:class:`OutputChain` admits, in cycle ``t``, the first ``S`` requests in service order from input
    ``(t - 1) mod P`` (RI's ``ptr_seq`` of the cycle before, which starts at 0 and moves one input every cycle)
    and drops the rest; checked on random request vectors of every density."""
    from radixnet.hdl.alloc import OutputChain

    dut = OutputChain(P, S)
    rng = random.Random(P * 10 + S)
    n = P * S
    seen = {"dropped": 0, "wrapped": 0}

    async def bench(ctx):
        for t in range(40 * P):
            dens = rng.choice([0.1, 0.4, 0.8, 1.0])
            req = [int(rng.random() < dens) for _ in range(n)]
            ctx.set(dut.req, sum(b << i for i, b in enumerate(req)))
            want = chain_model(req, (t - 1) % P, P, S)
            admit, drop = ctx.get(dut.admit), ctx.get(dut.drop)
            assert [(admit >> i) & 1 for i in range(n)] == want, (t, req)
            assert drop == sum(b << i for i, b in enumerate(req)) & ~admit
            seen["dropped"] += drop != 0
            ptr = (t - 1) % P
            seen["wrapped"] += any(want[i] for i in range(ptr * S))   # served after the wrap
            await ctx.tick()

    run_clocked(dut, bench)
    assert P == 1 or (seen["dropped"] > 0 and seen["wrapped"] > 0)


@pytest.mark.parametrize("P,S,L", [(4, 1, 1), (3, 2, 2), (8, 2, 1)])
def test_output_chain_mask_in_and_slots(P, S, L):
    """``OutputChain(mask_in=True)``, as the two-level models use it under the decision line (router-spec §R11.6):
    any thermometer mask given (inputs at or after a pointer, the unit keeping none of its own), ``lanes`` per
    input; the ``j``-th admitted request is ``slot_admit[j]``, in service order."""
    from radixnet.hdl.alloc import OutputChain

    dut = OutputChain(P, S, lanes=L, mask_in=True)
    rng = random.Random(P * 100 + S * 10 + L)
    n = P * L

    async def bench(ctx):
        for _ in range(60 * P):
            ptr = rng.randrange(P)
            req = [int(rng.random() < rng.choice([0.2, 0.6, 1.0])) for _ in range(n)]
            ctx.set(dut.ptr_mask, sum(1 << p for p in range(ptr, P)))
            ctx.set(dut.req, sum(b << i for i, b in enumerate(req)))
            order = [((ptr + i) % P) * L + j for i in range(P) for j in range(L)]
            first = [lane for lane in order if req[lane]][:S]
            assert ctx.get(dut.admit) == sum(1 << lane for lane in first), (ptr, req)
            for j in range(S):
                assert ctx.get(dut.slot_admit[j]) == (1 << first[j] if j < len(first) else 0), (ptr, req, j)
            await ctx.delay(1e-9)

    sim = Simulator(dut)   # combinational: no register of its own
    sim.add_testbench(bench)
    sim.run()


def test_output_chain_refuses_bad_sizes():
    from radixnet.hdl.alloc import OutputChain

    with pytest.raises(ValueError, match="n_inputs"):
        OutputChain(0, 1)
