"""One router in the Amaranth simulator: a driver honouring the credit protocol, random traffic, and the
invariants every router model keeps (shared by tests/test_hdl_hiradix.py and tests/test_hdl_subswitch.py)."""

from amaranth.sim import Simulator

from radixnet.gen.routing import compile_table
from radixnet.hdl.router import Router

from .flits import pack, unpack


def flit(dest, vc=0, *, head=1, tail=1, hops=0, data=0):
    return {"head": head, "tail": tail, "vc": vc, "dest": dest, "hops": hops, "data": data}


def simulate(dut, sends, cycles, *, credit_delay=1, credits=True, ej_credit=None):
    """Run ``dut``: ``sends`` maps a cycle to {input port: flit} (the caller respects credits; checked here).
    A flit sent on a network output in ``t`` is credited back in ``t + credit_delay`` (never with
    ``credits=False``); ``ej_credit(t, o, flit)`` returns the cycle an ejection credit comes back (E >= 1).
    Returns (outputs [(t, o, flit)], credit_out [(t, p, v)])."""
    lay, P, V = dut.flit_layout, dut.n_ports, dut.n_vcs
    upstream = [[dut.vc_depth] * V for _ in range(P)]
    owed, outs, creds = {}, [], []

    async def bench(ctx):
        for t in range(cycles):
            arrivals = sends(t, upstream) if callable(sends) else sends.get(t, {})
            for p, f in arrivals.items():
                assert upstream[p][f["vc"]] > 0, f"cycle {t}: the schedule ignored the credit protocol"
                upstream[p][f["vc"]] -= 1
            for p in range(P):
                ctx.set(dut.in_flit_ip[p].as_value(), pack(lay, arrivals[p]) if p in arrivals else 0)
            ctx.set(dut.in_valid_ip, sum(1 << p for p in arrivals))
            ret, later = [], []
            for c in owed.pop(t, []):   # a link carries one credit per VC per cycle: the rest wait
                (later if c in ret else ret).append(c)
            if later:
                owed.setdefault(t + 1, []).extend(later)
            for o in range(P):
                ctx.set(dut.credit_in_op_ovc[o], sum(1 << v for (oo, v) in ret if oo == o))
            valid = ctx.get(dut.out_valid_op)
            for o in range(P):
                if valid >> o & 1:
                    f = unpack(lay, ctx.get(dut.out_flit_op[o].as_value()))
                    outs.append((t, o, f))
                    if o not in dut.eject_ports and credits:
                        owed.setdefault(t + credit_delay, []).append((o, f["vc"]))
                    elif o in dut.eject_ports and ej_credit is not None:
                        owed.setdefault(ej_credit(t, o, f), []).append((o, 0))
            for p in range(P):
                for v in range(V):
                    if ctx.get(dut.credit_out_ip_ivc[p]) >> v & 1:
                        creds.append((t, p, v))
                        upstream[p][v] += 1
            assert ctx.get(dut.error) == 0, f"cycle {t}: error"
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-6)
    sim.add_testbench(bench)
    sim.run()
    return outs, creds


def source(queues):
    """A ``sends`` callable: per input port a list of (earliest cycle, flit), sent in order, one per cycle,
    each when its VC has an upstream credit (§R3's source queue)."""
    qs = {p: list(q) for p, q in queues.items()}

    def sends(t, up):
        out = {}
        for p, q in qs.items():
            if q and q[0][0] <= t and up[p][q[0][1]["vc"]] > 0:
                out[p] = q.pop(0)[1]
        return out
    return sends


def packet(dest, length, vc=0, *, at=0, data=0):
    """The flits of one packet as ``source`` entries, all available from cycle ``at``."""
    return [(at, flit(dest, vc, head=int(i == 0), tail=int(i == length - 1), data=data + i)) for i in range(length)]


def random_run(fbfly, seed, cycles=160, *, rid=0, router_model="hiradix", **kw):
    """Random multi-flit packets on every input (terminal and network ports alike), credits returned after a
    random delay; returns the router and its outputs, and what was sent per input VC."""
    import random
    rng = random.Random(seed)
    dut = Router(fbfly, rid, router_model=router_model, **{"n_vcs": 2, "vc_depth": 4, "data_width": 16, **kw})
    P, V = dut.n_ports, dut.n_vcs
    T = fbfly.num_terminals
    queues, sent, serial = {}, {}, [0]
    for p in range(P):
        q = []
        for k in range(rng.randrange(2, 6)):
            v, L, dest = rng.randrange(V), rng.randrange(1, 5), rng.randrange(T)
            at = rng.randrange(0, 40)
            for i in range(L):
                serial[0] += 1
                f = flit(dest, v, head=int(i == 0), tail=int(i == L - 1), hops=0 if dut.in_channels[p] < 0 else 1,
                         data=serial[0])
                q.append((at, f))
        queues[p] = q
        for _, f in q:
            sent.setdefault((p, f["vc"]), []).append(f["data"])
    rebuilt = {}   # a packet's flits together, packets in order of their cycle
    for p in range(P):
        pkts, cur = [], []
        for x in sorted(queues[p], key=lambda x: x[1]["data"]):
            cur.append(x)
            if x[1]["tail"]:
                pkts.append(cur)
                cur = []
        pkts.sort(key=lambda pk: pk[0][0])
        rebuilt[p] = [x for pk in pkts for x in pk]
        sent_p = {}
        for _, f in rebuilt[p]:
            sent_p.setdefault(f["vc"], []).append(f["data"])
        for v, d in sent_p.items():
            sent[(p, v)] = d
    def ej(t, o, f):
        return t + 1 + rng.randrange(3)

    outs, _ = simulate(dut, source(rebuilt), cycles, credit_delay=1, ej_credit=ej if dut.egress_depth else None)
    return dut, outs, rebuilt


def check_invariants(fbfly, dut, outs, sent, *, order="vc"):
    """What :func:`random_run` must show under every router model: every flit leaves once, on its route's
    port (a table routing) with the right header; an output VC carries a packet's flits together (wormhole);
    and flits leave in order per input VC (``order="vc"``, one FIFO per input VC) or per input VC, output and
    output VC (``order="vc-output"``: the ``subswitch`` model's row buffer per column and column buffer per
    output VC, router-spec §R12)."""
    n_sent = sum(len(q) for q in sent.values())
    assert len(outs) == n_sent, f"{len(outs)} of {n_sent} flits left"
    assert len({f["data"] for _, _, f in outs}) == n_sent
    table = compile_table(fbfly)
    owner = {}   # (o, ovc) -> the packet (first flit's data) holding it
    src = {f["data"]: (p, f) for p, q in sent.items() for _, f in q}
    for t, o, f in outs:
        p, g = src[f["data"]]
        if dut.routing is None:
            r = int(table.term_router[g["dest"]])
            if r == dut.router_id:
                assert o in dut.eject_ports
            else:
                assert o == int(table.next_port[dut.router_id][r])
        key = (o, f["vc"])
        if f["head"]:
            assert owner.get(key) is None, f"cycle {t}: head on {key} while a packet holds it"
            if not f["tail"]:
                owner[key] = f["data"]
            assert f["hops"] == g["hops"] + (0 if o in dut.eject_ports else 1)
        else:
            assert owner.get(key) is not None and f["data"] > owner[key], f"cycle {t}: body without its head"
            if f["tail"]:
                owner[key] = None
    out_of = {f["data"]: (o, f["vc"]) for _, o, f in outs}
    for p, q in sent.items():
        for v in range(dut.n_vcs):
            mine = [f["data"] for _, f in q if f["vc"] == v]
            for key in ([None] if order == "vc" else sorted(set(out_of[d] for d in mine))):
                want = [d for d in mine if key is None or out_of[d] == key]
                got = [f["data"] for _, _, f in outs if f["data"] in set(want)]
                assert got == want, f"input {p} VC {v} (output, output VC) {key}: out of order"
