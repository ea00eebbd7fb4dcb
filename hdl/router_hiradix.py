"""The ``hiradix`` router model in RTL (router-spec §R11): RI | GO | ST | link, every stage from registers.

:class:`HiradixStages` is the part of :class:`radixnet.hdl.router.Router` that the ``hiradix`` model
changes. VC and switch allocation are one combined allocation (a head asks for an output VC and the
switch at once), split into two registered stages, and the grant is registered before it changes
any state:

* **RI** (request, input stage; :class:`~radixnet.hdl.alloc.ri.InputSelect` per input): per input
  VC, eligible or not on the **view** (below) with the output side from **RI's copy**
  (``ri_*_g<k>``: the view's output-side bits registered a cycle earlier, §R11.1; one copy per
  group of :data:`RI_GROUP` inputs, marked ``keep`` so that synthesis leaves the equal registers
  apart), §R11.2's rule with ``u(v)`` (``req_pending_ip_<p>``, a register: ``v`` has a request GO
  is deciding this cycle); a head's routing decision (the stored lookahead route with a route
  table, or the decision unit of a greedy adaptive routing on the copy's queue lengths). Up to
  ``S`` eligible VCs per input, round robin, the pointer moving on selection; each is registered
  as a request in its lane: ``rq_*_ip_<p>_lane_<s>``, among them the **one-hot output vector**
  ``rq_ooh`` (bit ``o``: a request for output ``o``), the header the decision commits, and what GO
  needs to tell whether the flit it grants is a tail (``u(v)``, the tail bits of the VC's front
  and of the flit behind it, the lane of the VC's undecided request).
* **GO** (grant, output stage; :class:`~radixnet.hdl.alloc.go.OutputArbiter` per output): output
  ``o`` reads bit ``o`` of every lane's registered one-hot vector, masks the requests the view
  does not allow (a head: an idle VC of its class with a credit; a body: a credit, which RI read
  a cycle early; an ejection port: the queue rule), and grants up to ``S`` round robin over inputs
  (within an input by lane). Every register GO writes is at its output: per grant the lane
  (``g_lane_op_<o>``, the switch select, and one-hot ``g_lanes_op_<o>``) and the output VC given
  (``g_ovc_op_<o>``); per output VC the credits ST takes (``st_take``) and the hold (``busy``,
  as ST will leave it: a head's hold, a tail's release, whose tail bit GO reads from the request
  and, behind an undecided request, from its own grant register). No grant crosses back to the
  inputs in the cycle GO decides it.
* **ST**: each input reads GO's registers (the OR over the outputs of its lanes' bits): the pops
  (``st_pop_ip_<p>``, also the credits out, a register later), and the bindings it makes (a head
  of a packet longer than a flit) and ends (a tail), which the view shows in this cycle and the
  binding registers (``active``, ``act_o``, ``act_ov``) hold from the next. Each input lane's
  flit is its VC's front register (``front0``, ST's copy of the request ``st_*`` names it), with
  the committed header on a head; the crossbar, under the registered grants, writes the output
  registers (``S = 1``) or the §R8b output queues (``S = 2``, grant order), the flit's ``vc`` GO's
  register at the output; the credit counters take ``st_take``.

**The view** (§R11.1) is the state at the start of ``t`` with ``t``'s ST applied, as functions of
registers: an input VC's front is ``front1`` if ST pops it this cycle, else ``front0`` (the
:class:`~radixnet.hdl.input_unit.FrontInputUnit` holds the first two flits of every VC in
registers, and its occupancy ``>= 1, 2, 3`` as registered bits), its binding the register or what
ST makes of it; an output VC's ``credit >= k`` is the counter's registered ``count >= k + take``
bit for ST's registered ``take`` (:class:`~radixnet.hdl.credits.CreditCounter` ``thresholds``),
its hold a register written at GO's edge.

Zero-load timeline (one router, ``Tl = 1``): a head written at the edge ending ``a - 1`` is
requested by RI in ``a``, granted by GO in ``a + 1``, popped by ST in ``a + 2`` (its credit on
``credit_out`` in ``a + 3``), on the output link in ``a + 3``. A body behind it is requested once its
VC is bound in the view, ``a + 2``: on the link in ``a + 5``.

Sequential routings (``ugal-s``, ``clos-ad``, ``2dfb-adaptive``) are not built under ``hiradix``
(the router refuses them).
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data

from .alloc import InputSelect, OutputArbiter
from .arbiter import onehot_index, or_all, ptr_width
from .vc_select import OutputVCSelect, QueueLength

__all__ = ["HiradixStages"]

#: inputs per copy of RI's view of the output side (router-spec §R11.1): a register per group, placed by
#: its readers
RI_GROUP = 4

#: header fields RI's decision commits (written at ST into the head): ``hops`` always, the adaptive
#: routings' decision fields too
COMMIT_FIELDS = ("hops",)
ADAPTIVE_COMMIT_FIELDS = ("hops", "phase", "decided", "inter", "h1")


def _mux_onehot(sel_bits, values):
    """``OR_i (sel_bits[i] ? values[i] : 0)``: the value a one-hot selects (0 when none)."""
    return or_all([Mux(sel_bits[i], v, 0) for i, v in enumerate(values)])


class HiradixStages:
    """Mixin of :class:`radixnet.hdl.router.Router`: the ``hiradix`` pipeline (module docstring)."""

    def _elaborate_hiradix(self, m: Module, ius, active, act_o, act_ov):
        P, V, B, S, K = self.n_ports, self.n_vcs, self.vc_depth, self.speedup, self.n_classes
        lay = self.flit_layout
        fw = lay.size
        pw, vw, kb = ptr_width(P), ptr_width(V), ptr_width(K)
        vpc = V // K
        n = P * S
        is_eject = self._is_eject
        credits, ej_credits, busy = self._credits, self._ej_credits, self._busy
        adaptive = self.routing is not None
        fields = ADAPTIVE_COMMIT_FIELDS if adaptive else COMMIT_FIELDS
        commit_lay = data.StructLayout({k: lay[k].shape for k in fields})
        side_lay = self._side_layout

        # ------------------------------------------------ registers between the stages
        # per output VC: credits ST takes this cycle (from GO's grants of the cycle before)
        st_take = {o: [Signal(range(S + 1), name=f"st_take_op_{o}_ovc_{w}") for w in range(1 if is_eject[o] else V)]
                   for o in range(P)}
        st_pop = [Signal(V, name=f"st_pop_ip_{p}") for p in range(P)]   # ST's pops: from GO's registers
        pending = [Signal(V, name=f"req_pending_ip_{p}") for p in range(P)]   # u(v) of §R11.2

        def lane_sfx(p, s):
            return f"ip_{p}" if S == 1 else f"ip_{p}_lane_{s}"

        def reg(shape, name):
            return Signal(shape, name=name)

        rq = [[{"valid": reg(1, f"rq_valid_{lane_sfx(p, s)}"),
                "v": reg(vw, f"rq_ivc_{lane_sfx(p, s)}"),
                "voh": reg(V, f"rq_ivc_oh_{lane_sfx(p, s)}"),
                "o": reg(pw, f"rq_op_{lane_sfx(p, s)}"),
                "ooh": reg(P, f"rq_ooh_{lane_sfx(p, s)}"),
                "head": reg(1, f"rq_head_{lane_sfx(p, s)}"),
                "single": reg(1, f"rq_single_{lane_sfx(p, s)}"),
                "cls": reg(kb, f"rq_cls_{lane_sfx(p, s)}"),
                "hk": reg(K, f"rq_head_cls_oh_{lane_sfx(p, s)}"),
                "ovc": reg(vw, f"rq_ovc_{lane_sfx(p, s)}"),
                # what GO needs to know whether the flit ST would pop is a tail (it releases the output VC):
                # u(v) at RI, the tail bit of RI's view front and of the flit behind it, and the lane of
                # the earlier request of the VC (u(v) = 1: the front leaves if that one was granted)
                "u": reg(1, f"rq_u_{lane_sfx(p, s)}"),
                "t1": reg(1, f"rq_tail1_{lane_sfx(p, s)}"),
                "t2": reg(1, f"rq_tail2_{lane_sfx(p, s)}"),
                "plane": reg(ptr_width(S), f"rq_prev_lane_{lane_sfx(p, s)}"),
                "commit": reg(commit_lay, f"rq_commit_{lane_sfx(p, s)}")} for s in range(S)] for p in range(P)]
        # ST's copy of each request (written whatever GO decides; GO's registers say which were granted)
        st = [[{"valid": Signal(name=f"st_valid_{lane_sfx(p, s)}"),
                "v": reg(vw, f"st_ivc_{lane_sfx(p, s)}"),
                "voh": reg(V, f"st_ivc_oh_{lane_sfx(p, s)}"),
                "o": reg(pw, f"st_op_{lane_sfx(p, s)}"),
                "head": reg(1, f"st_head_{lane_sfx(p, s)}"),
                "single": reg(1, f"st_single_{lane_sfx(p, s)}"),
                "ovc": reg(vw, f"st_ovc_{lane_sfx(p, s)}"),
                "commit": reg(commit_lay, f"st_commit_{lane_sfx(p, s)}")} for s in range(S)] for p in range(P)]
        # GO's registers at the outputs: per grant the lane (one-hot over the P * S lanes) and the VC given
        g_oh = [[Signal(n, name=f"g_lanes_op_{o}" + ("" if S == 1 else f"_{j}")) for j in range(S)]
                for o in range(P)]
        g_ovc = [[Signal(vw, name=f"g_ovc_op_{o}" + ("" if S == 1 else f"_{j}")) for j in range(S)]
                 for o in range(P)]
        g_reg = [[(Signal(name=f"g_valid_op_{o}" + ("" if S == 1 else f"_{j}")),
                   Signal(ptr_width(n), name=f"g_lane_op_{o}" + ("" if S == 1 else f"_{j}"))) for j in range(S)]
                 for o in range(P)]

        # ------------------------------------------------ the view (§R11.1): functions of registers
        def view_ge(o, w, k):
            """Output VC ``(o, w)`` holds at least ``k`` credits in the view (``k`` = 1 or 2; ``k + S <= S + 2``)."""
            cc = ej_credits.get(o) if is_eject[o] else credits[o][w]
            if cc is None:
                return Const(1, 1)
            t = st_take[o][w]
            x = Signal(name=f"view_ge{k}_op_{o}_ovc_{w}")
            if S == 1:
                m.d.comb += x.eq(Mux(t, cc.ge[k], cc.ge[k - 1]))
            else:
                m.d.comb += x.eq(Mux(t[1], cc.ge[k + 1], Mux(t[0], cc.ge[k], cc.ge[k - 1])))
            return x

        ge1 = {o: [view_ge(o, w, 1) for w in range(len(st_take[o]))] for o in range(P)}
        ge2 = {o: [view_ge(o, w, 2) for w in range(len(st_take[o]))] for o in range(P)}
        need_cnt = adaptive or vpc > 1
        vcnt = {}
        if need_cnt:
            for o in credits:
                vcnt[o] = []
                for w in range(V):
                    c = Signal(len(credits[o][w].count), name=f"view_credit_op_{o}_ovc_{w}")
                    m.d.comb += c.eq(credits[o][w].count - st_take[o][w])
                    vcnt[o].append(c)
        # per (output, class): may a head take it, and which VC (§R5 on the view)
        avail, aovc = {}, {}
        for o in range(P):
            if is_eject[o]:
                a = Signal(name=f"view_avail_op_{o}")
                m.d.comb += a.eq(~busy[o][0] & ge1[o][0])
                for k in range(K):
                    avail[(o, k)], aovc[(o, k)] = a, Const(0, vw)
                continue
            for k in range(K):
                a = Signal(name=f"view_avail_op_{o}_cls_{k}")
                if vpc == 1:
                    m.d.comb += a.eq(~busy[o][k] & ge1[o][k])
                    avail[(o, k)], aovc[(o, k)] = a, Const(k, vw)
                    continue
                sel = OutputVCSelect(V, len(vcnt[o][0]), n_classes=K)
                m.submodules[f"view_vcsel_op_{o}_cls_{k}"] = sel
                m.d.comb += [sel.busy_ovc.eq(busy[o]), sel.cls.eq(k)]
                m.d.comb += [sel.credit_ovc[w].eq(vcnt[o][w]) for w in range(V)]
                m.d.comb += a.eq(sel.valid)
                avail[(o, k)], aovc[(o, k)] = a, sel.ovc
        # tables indexed by (output, class) and (output, VC), as Router._route_table / _held_route
        ok_bits = []
        for o in range(1 << pw):
            for k in range(1 << kb):
                ok_bits.append(avail[(o, k)] if o < P and k < K else
                               avail[(o, 0)] if o < P and is_eject[o] else Const(0, 1))
        ok_tab = Signal(len(ok_bits), name="view_new_ok_op_cls")
        m.d.comb += ok_tab.eq(Cat(*ok_bits))
        h1_bits, h2_bits = [], []
        for o in range(1 << pw):
            for w in range(1 << vw):
                if o >= P or w >= len(st_take[o]):
                    h1_bits.append(Const(0, 1)), h2_bits.append(Const(0, 1))
                else:
                    h1_bits.append(ge1[o][w]), h2_bits.append(ge2[o][w])
        held1 = Signal(len(h1_bits), name="view_held_ok1_op_ovc")
        held2 = Signal(len(h2_bits), name="view_held_ok2_op_ovc")
        m.d.comb += [held1.eq(Cat(*h1_bits)), held2.eq(Cat(*h2_bits))]
        if adaptive:
            q_o, avail_o = {}, {}
            for o in credits:
                ql = QueueLength(V, B)
                m.submodules[f"view_qlen_op_{o}"] = ql
                m.d.comb += [ql.credit_ovc[w].eq(vcnt[o][w]) for w in range(V)]
                q_o[o] = ql.q
                avail_o[o] = Cat(*[avail[(o, k)] for k in range(K)])

        # RI's copy of the output side (§R11.1): the view's output-side bits of the cycle before, registered;
        # at reset the reset state's (every counter full, nothing held)
        def reset_ge(o, w, k):
            cc = ej_credits.get(o) if is_eject[o] else credits[o][w]
            return 1 if cc is None else int(cc.depth >= k)

        def copy(x, name, init=0):
            # one register per group of RI_GROUP inputs, kept apart (``keep``: synthesis would merge the
            # equal flip-flops), so that each group's copy can be placed beside its readers
            cs = []
            for g in range((P + RI_GROUP - 1) // RI_GROUP):
                c = Signal(len(x), name=f"{name}_g{g}", init=init, attrs={"keep": 1})
                m.d.sync += c.eq(x)
                cs.append(c)
            return cs

        ok_init = 0
        for i, b in enumerate(ok_bits):
            if not (isinstance(b, Const) and b.value == 0):
                ok_init |= 1 << i
        h_init = {1: 0, 2: 0}
        for o in range(P):
            for w in range(len(st_take[o])):
                for k in (1, 2):
                    h_init[k] |= reset_ge(o, w, k) << (o * (1 << vw) + w)
        ri_ok_tab_g = copy(ok_tab, "ri_new_ok_op_cls", ok_init)
        ri_held1_g = copy(held1, "ri_held_ok1_op_ovc", h_init[1])
        ri_held2_g = copy(held2, "ri_held_ok2_op_ovc", h_init[2])
        if adaptive:
            ri_q_og = {o: copy(q_o[o], f"ri_qlen_op_{o}") for o in q_o}
            ri_avail_og = {o: copy(avail_o[o], f"ri_avail_op_{o}_cls", (1 << K) - 1) for o in avail_o}

        # ------------------------------------------------ ST's effects on the inputs, in this cycle's view
        # GO registered its grants at the outputs; an input reads them here (the OR over the outputs of its
        # lane's bit, ``hit``): the pops, and the bindings ST makes and ends, which the view (RI) sees in
        # this cycle and the binding registers hold from the next. What a grant would do is known at the
        # input before the grant arrives (ST's copy of the request), so RI computes each VC both ways and
        # ``hit`` chooses at the end.
        st_hit = [[None] * V for _ in range(P)]
        st_bind = [[None] * V for _ in range(P)]     # (bind, unbind, output, output VC) if granted
        for p in range(P):
            given = []
            for s_ in range(S):
                i, t = p * S + s_, st[p][s_]
                sel_i = Cat(*[g_oh[o][j][i] for o in range(P) for j in range(S)])
                m.d.comb += t["valid"].eq(sel_i.any())
                if vpc == 1:   # RI stored it
                    given.append(t["ovc"])
                else:
                    x = Signal(vw, name=f"st_ovc_given_{lane_sfx(p, s_)}")
                    m.d.comb += x.eq(_mux_onehot(sel_i, [g_ovc[o][j] for o in range(P) for j in range(S)]))
                    given.append(x)
            pops = []
            for v in range(V):
                tag = f"ip_{p}_ivc_{v}"
                mine = [st[p][s_]["voh"][v] for s_ in range(S)]   # the lane holding v's request, if any
                hit = Signal(name=f"st_hit_{tag}")
                m.d.comb += hit.eq(or_all([st[p][s_]["valid"] & mine[s_] for s_ in range(S)]))
                f0 = data.View(lay, ius[p].front0_ivc[v][:fw])   # the flit ST pops
                bind_c, unbind_c = Signal(name=f"st_binds_{tag}"), Signal(name=f"st_unbinds_{tag}")
                m.d.comb += [bind_c.eq(or_all([x & st[p][s_]["head"] & ~st[p][s_]["single"] for s_, x in enumerate(mine)])),
                             unbind_c.eq(or_all([x & ~st[p][s_]["head"] for s_, x in enumerate(mine)]) & f0.tail & ~f0.head)]
                bo = _mux_onehot(Cat(*mine), [st[p][s_]["o"] for s_ in range(S)]) if S > 1 else st[p][0]["o"]
                bov = _mux_onehot(Cat(*mine), given) if S > 1 else given[0]
                pops.append(hit)
                st_hit[p][v] = hit
                st_bind[p][v] = (bind_c, unbind_c, bo, bov)
                with m.If(hit):
                    with m.If(bind_c):
                        m.d.sync += [active[p][v].eq(1), act_o[p][v].eq(bo), act_ov[p][v].eq(bov)]
                    with m.Elif(unbind_c):
                        m.d.sync += active[p][v].eq(0)
            m.d.comb += st_pop[p].eq(Cat(*pops))

        # ------------------------------------------------ RI (§R11.2)
        eject_tab = Const(sum(1 << o for o in range(P) if is_eject[o]), 1 << pw)
        for p in range(P):
            iu = ius[p]
            g = p // RI_GROUP   # this input's copy of the output side
            ri_ok_tab, ri_held1, ri_held2 = ri_ok_tab_g[g], ri_held1_g[g], ri_held2_g[g]
            if adaptive:
                ri_q_o = {o: x[g] for o, x in ri_q_og.items()}
                ri_avail_o = {o: x[g] for o, x in ri_avail_og.items()}
            elig = Signal(V, name=f"ri_elig_ip_{p}")
            per_v = []
            for v in range(V):
                tag = f"ip_{p}_ivc_{v}"
                hit = st_hit[p][v]
                bind_c, unbind_c, bo, bov = st_bind[p][v]
                nge = iu.nge_ivc[v]
                fronts = (iu.front0_ivc[v], iu.front1_ivc[v], iu.front2_ivc[v])
                if adaptive:   # one decision unit, on the view's front (the later of the two paths)
                    fe = Signal(iu.entry_bits, name=f"view_front_{tag}")
                    m.d.comb += fe.eq(Mux(hit, fronts[1], fronts[0]))
                    rc = self._decider()
                    m.submodules[f"route_{tag}"] = rc
                    self._connect_decider(m, rc, data.View(lay, fe[:fw]), p, ri_q_o, ri_avail_o)
                    hops_ad = self._hops_out(m, rc.eject, data.View(lay, fe[:fw]).hops, tag)
                    new_ok_ad = Signal(name=f"view_new_ok_{tag}")
                    m.d.comb += new_ok_ad.eq(ri_ok_tab.bit_select(Cat(rc.cls[:kb], rc.port), 1))

                def lookup(tab, o, w):
                    return tab.bit_select(Cat(w[:vw], o), 1)

                def version(popped: bool):
                    """RI's decision for VC ``v`` if ST pops it in this cycle (``popped``) or not."""
                    sfx = f"{tag}_{'pop' if popped else 'stay'}"
                    f = data.View(lay, fronts[int(popped)][:fw])
                    second = data.View(lay, fronts[int(popped) + 1][:fw])
                    pres1, pres2 = nge[int(popped)], nge[int(popped) + 1]
                    if popped:   # the bindings as ST leaves them
                        bound = Signal(name=f"view_active_{sfx}")
                        m.d.comb += bound.eq(Mux(bind_c, 1, Mux(unbind_c, 0, active[p][v])))
                        ao = Signal(pw, name=f"view_act_op_{sfx}")
                        m.d.comb += ao.eq(Mux(bind_c, bo, act_o[p][v]))
                        aov = Signal(vw, name=f"view_act_ovc_{sfx}")
                        m.d.comb += aov.eq(Mux(bind_c, bov, act_ov[p][v]))
                        oks = []
                        for tab in (ri_held1, ri_held2):
                            kept = lookup(tab, act_o[p][v], act_ov[p][v])
                            if vpc == 1:
                                new = lookup(tab, bo, bov)
                            else:   # the VC GO gave arrives late: a lookup per VC, chosen by it
                                new = Cat(*[lookup(tab, bo, Const(w, vw)) for w in range(V)]).bit_select(bov, 1)
                            oks.append(Mux(bind_c, new, kept))
                    else:
                        bound, ao, aov = active[p][v], act_o[p][v], act_ov[p][v]
                        oks = [lookup(ri_held1, ao, aov), lookup(ri_held2, ao, aov)]
                    ok1, ok2 = Signal(name=f"view_bound_ok1_{sfx}"), Signal(name=f"view_bound_ok2_{sfx}")
                    m.d.comb += [ok1.eq(oks[0]), ok2.eq(oks[1])]
                    if adaptive:
                        port, rvalid, cls, hops_out, new_ok = rc.port, rc.valid, rc.cls, hops_ad, new_ok_ad
                    else:
                        side = data.View(side_lay, fronts[int(popped)][fw:])
                        port, rvalid, cls, hops_out = side.port, side.valid, side.cls, side.hops_out
                        new_ok = ri_ok_tab.bit_select(Cat(cls[:kb], port), 1)
                    if self.fault == "eject_hops":
                        hops_out = self._hops_out(m, Const(0, 1), f.hops, f"fault_{sfx}")
                    el = Signal(name=f"ri_elig_{sfx}")
                    m.d.comb += el.eq(Mux(pending[p][v], bound & ~f.tail & pres2 & ok2,
                                          pres1 & Mux(bound, ok1, f.head & rvalid & new_ok)))
                    o_req = Signal(pw, name=f"ri_op_{sfx}")
                    m.d.comb += o_req.eq(Mux(bound, ao, port))
                    cm = Signal(commit_lay, name=f"ri_commit_{sfx}")
                    m.d.comb += cm.hops.eq(hops_out)
                    if adaptive:
                        m.d.comb += [cm.phase.eq(rc.phase_out), cm.decided.eq(rc.decided_out),
                                     cm.inter.eq(rc.inter_out), cm.h1.eq(rc.h1_out)]
                    ovc = aov
                    if vpc == 1:   # one VC per class: a head's output VC is its class's (VC 0 on an ejection port)
                        ovc = Signal(vw, name=f"ri_ovc_{sfx}")
                        m.d.comb += ovc.eq(Mux(bound, aov, Mux(eject_tab.bit_select(port, 1), 0, cls[:kb])))
                    hk = Signal(K, name=f"ri_head_cls_oh_{sfx}")   # a head's class, one-hot (GO's AND-OR)
                    m.d.comb += hk.eq(Mux(bound, 0, (Const(1, K) << cls[:kb])[:K]))
                    return el, {"o": o_req, "head": ~bound, "single": f.tail, "cls": cls[:kb], "hk": hk,
                                "ovc": ovc, "commit": cm.as_value(), "t1": f.tail & ~f.head,
                                "t2": second.tail & ~second.head}

                el_a, xa = version(False)
                el_b, xb = version(True)
                m.d.comb += elig[v].eq(Mux(hit, el_b, el_a))
                x = {k: Mux(hit, xb[k], xa[k]) for k in xa}
                plane = Const(0, ptr_width(S))
                if S > 1:   # the lane of the VC's request in the request register (u(v) = 1)
                    plane = onehot_index(Cat(*[rq[p][s_]["valid"] & rq[p][s_]["voh"][v] for s_ in range(S)]), S)
                x.update(u=pending[p][v], plane=plane)
                per_v.append(x)
            sel = InputSelect(V, S)
            m.submodules[f"ri_sel_ip_{p}"] = sel
            m.d.comb += sel.elig.eq(elig)
            picked = []
            for s in range(S):
                pk = sel.pick[s]
                picked.append(pk)
                r = rq[p][s]
                m.d.sync += [r["valid"].eq(pk.any()), r["v"].eq(onehot_index(pk, V)), r["voh"].eq(pk)]
                m.d.sync += r["ooh"].eq(_mux_onehot(pk, [(Const(1, P) << x["o"])[:P] for x in per_v]))
                for k in ("o", "head", "single", "cls", "hk", "ovc", "u", "t1", "t2", "plane"):
                    m.d.sync += r[k].eq(_mux_onehot(pk, [x[k] for x in per_v]))
                m.d.sync += r["commit"].eq(_mux_onehot(pk, [x["commit"] for x in per_v]))
            m.d.sync += pending[p].eq(or_all(picked))

        # ------------------------------------------------ GO (§R11.3)
        lanes = [rq[p][s] for p in range(P) for s in range(S)]
        def lane_tail(o, i):
            """Lane ``i``'s flit, the one ST pops if GO at ``o`` grants it, is a tail: the view's front of its VC.
            With u(v) = 0 that is RI's front; with u(v) = 1 (a bound VC, its earlier request to this same
            output) RI's front (no tail) or, if this output granted the earlier request in the cycle before
            (its own grant register), the flit behind it."""
            r, p = lanes[i], i // S
            bits = [or_all([g_oh[o][j][p * S + s] for j in range(S)]) for s in range(S)]
            pg = bits[0] if S == 1 else Cat(*bits).bit_select(r["plane"], 1)
            t = Signal(name=f"go_pops_tail_op_{o}_lane_{i}")
            m.d.comb += t.eq(Mux(r["u"], pg & r["t2"], r["t1"]))
            return t
        # the ejection queue's length (§R11.3): flits in it at the start of t and those this ST adds
        eject_len = {}
        oqs = self._hiradix_oqs
        for o in (o for o in range(P) if is_eject[o]):
            in_st = sum(valid for valid, _ in g_reg[o])
            cnt = Signal(range(V * B + 2 * S + 2), name=f"eject_len_op_{o}")
            m.d.comb += cnt.eq((self.out_valid_op[o] if S == 1 else oqs[o].count) + in_st)
            eject_len[o] = cnt
        def body_credit(o, ovc, ge):
            """Output VC ``(o, ovc)`` holds ``ge``'s credits in the view (``ovc`` a lane's register)."""
            bits = ge[o]
            return bits[0] if len(bits) == 1 else Cat(*bits).bit_select(ovc, 1)

        g_any = {}
        for o in range(P):
            ask = Signal(n, name=f"go_ask_op_{o}_lane")
            m.d.comb += ask.eq(Cat(*[r["ooh"][o] for r in lanes]))
            ok = Signal(n, name=f"go_ok_op_{o}_lane")
            lane_ovc = []   # the output VC a lane would get as the first grant
            for i, r in enumerate(lanes):
                if is_eject[o]:
                    hd = avail[(o, 0)]
                    lane_ovc.append(Const(0, vw) if vpc > 1 else r["ovc"])
                elif vpc == 1:   # the output VC RI stored (the class's one VC for a head)
                    hd = Signal(name=f"go_head_ok_op_{o}_lane_{i}")
                    m.d.comb += hd.eq((r["hk"] & Cat(*[avail[(o, k)] for k in range(K)])).any())
                    lane_ovc.append(r["ovc"])
                else:
                    hd = Signal(name=f"go_head_ok_op_{o}_lane_{i}")
                    m.d.comb += hd.eq(Cat(*[avail[(o, k)] for k in range(K)]).bit_select(r["cls"], 1) if K > 1
                                      else avail[(o, 0)])
                    hov = Signal(vw, name=f"go_head_ovc_op_{o}_lane_{i}")
                    m.d.comb += hov.eq(_mux_onehot(Cat(*[r["cls"] == k for k in range(K)]),
                                                   [aovc[(o, k)] for k in range(K)]))
                    lv = Signal(vw, name=f"go_ovc_op_{o}_lane_{i}")
                    m.d.comb += lv.eq(Mux(r["head"], hov, r["ovc"]))
                    lane_ovc.append(lv)
                # a body or tail: its output VC has a credit in the view (RI chose it on its copy, §R11.3)
                m.d.comb += ok[i].eq(Mux(r["head"], hd, body_credit(o, r["ovc"], ge1)))
            room = Const(1, 1)
            if is_eject[o]:
                room = eject_len[o] < V * B
            arb = OutputArbiter(P, S, frozen=self.fault == "out_arb_fixed")
            m.submodules[f"go_arb_op_{o}"] = arb
            m.d.comb += arb.req.eq(Mux(room, ask & ok, 0))
            first = arb.first
            # the first grant's VC, hold and take: what a second grant (S = 2) sees
            f_valid = Signal(name=f"go_first_valid_op_{o}")
            f_ovc = Signal(vw, name=f"go_first_ovc_op_{o}")
            f_hold = Signal(name=f"go_first_holds_op_{o}")
            m.d.comb += [f_valid.eq(first.any()), f_ovc.eq(_mux_onehot(first, lane_ovc)),
                         f_hold.eq(_mux_onehot(first, [r["head"] & ~r["single"] for r in lanes]))]
            grants = [(first, lane_ovc)]
            if S > 1:
                ok2 = Signal(n, name=f"go_second_ok_op_{o}_lane")
                if is_eject[o]:
                    room2 = Signal(name=f"go_second_room_op_{o}")
                    cred2 = ge2[o][0] if o in ej_credits else Const(1, 1)
                    m.d.comb += room2.eq((eject_len[o] + 1 < V * B) & cred2)
                    for i, r in enumerate(lanes):
                        m.d.comb += ok2[i].eq(room2 & ~(r["head"] & f_hold))
                    lane_ovc2 = lane_ovc
                else:
                    # per class: the idle VC with the most credits once the first grant's take and hold count
                    lane_ovc2 = []
                    av2, ov2 = {}, {}
                    for k in range(K):
                        if vpc == 1:
                            took = f_valid & (f_ovc == k)
                            a2 = Signal(name=f"go_second_avail_op_{o}_cls_{k}")
                            m.d.comb += a2.eq(~busy[o][k] & ~(took & f_hold) & Mux(took, ge2[o][k], ge1[o][k]))
                            av2[k], ov2[k] = a2, Const(k, vw)
                            continue
                        alt = OutputVCSelect(V, len(vcnt[o][0]), n_classes=K)
                        m.submodules[f"go_second_vcsel_op_{o}_cls_{k}"] = alt
                        for w in range(V):
                            took = f_valid & (f_ovc == w)
                            m.d.comb += alt.credit_ovc[w].eq(vcnt[o][w] - took)
                        m.d.comb += [alt.busy_ovc.eq(busy[o] | Mux(f_valid & f_hold, (Const(1, V) << f_ovc)[:V], 0)),
                                     alt.cls.eq(k)]
                        av2[k], ov2[k] = alt.valid, alt.ovc
                    for i, r in enumerate(lanes):
                        hd2 = Cat(*[av2[k] for k in range(K)]).bit_select(r["cls"], 1) if K > 1 else av2[0]
                        # a body's VC is held by its packet, so the first grant took none of its credits (a
                        # head gets an idle VC; an input VC makes one request a cycle)
                        m.d.comb += ok2[i].eq(Mux(r["head"], hd2, body_credit(o, r["ovc"], ge1)))
                        lv = Signal(vw, name=f"go_second_ovc_op_{o}_lane_{i}")
                        hov = _mux_onehot(Cat(*[r["cls"] == k for k in range(K)]), [ov2[k] for k in range(K)]) \
                            if K > 1 else ov2[0]
                        m.d.comb += lv.eq(Mux(r["head"], hov, r["ovc"]))
                        lane_ovc2.append(lv)
                m.d.comb += arb.second_ok.eq(ok2)
                grants.append((arb.second, lane_ovc2))
            # registered: the grants (the switch select), the credits ST takes, the holds
            tails = [lane_tail(o, i) for i in range(n)]
            takes = [[] for _ in st_take[o]]
            hold_w = [[] for _ in st_take[o]]
            rel_w = [[] for _ in st_take[o]]
            for j, (g, lov) in enumerate(grants):
                gv, gl = g_reg[o][j]
                gov = Signal(vw, name=f"go_ovc_op_{o}_{j}")
                m.d.comb += gov.eq(_mux_onehot(g, lov))
                m.d.sync += [gv.eq(g.any()), gl.eq(onehot_index(g, n)), g_oh[o][j].eq(g), g_ovc[o][j].eq(gov)]
                # per output VC, each an AND-OR of the one-hot grant with per-lane terms known before it
                # (the lane's VC, a head that holds, a tail that releases): no decoding after the arbiter
                for w in range(len(st_take[o])):
                    on_w = [Const(1, 1) if is_eject[o] else (x == w) for x in lov]
                    t_bits = Signal(n, name=f"go_take_op_{o}_{j}_ovc_{w}_lane")
                    h_bits = Signal(n, name=f"go_hold_op_{o}_{j}_ovc_{w}_lane")
                    r_bits = Signal(n, name=f"go_release_op_{o}_{j}_ovc_{w}_lane")
                    m.d.comb += [t_bits.eq(g & Cat(*on_w)),
                                 h_bits.eq(g & Cat(*[e & r["head"] & ~r["single"] for e, r in zip(on_w, lanes)])),
                                 r_bits.eq(g & Cat(*[e & ~r["head"] & tl for e, r, tl in zip(on_w, lanes, tails)]))]
                    takes[w].append(t_bits.any())
                    hold_w[w].append(h_bits.any())
                    rel_w[w].append(r_bits.any())
            for w in range(len(st_take[o])):
                m.d.sync += st_take[o][w].eq(sum(takes[w]) if S > 1 else takes[w][0])
                hold, rel = Cat(*hold_w[w]).any(), Cat(*rel_w[w]).any()
                m.d.sync += busy[o][w].eq(hold | (busy[o][w] & ~rel))
            g_any[o] = arb.first.any()

        # ST's copy of every request (GO's registers at the outputs say which were granted)
        for p in range(P):
            for s_ in range(S):
                r, t = rq[p][s_], st[p][s_]
                m.d.sync += [t[k].eq(r[k]) for k in ("v", "voh", "o", "head", "single", "ovc", "commit")]

        # ------------------------------------------------ ST (§R11.4)
        lane_flits = []
        for p in range(P):
            m.d.comb += ius[p].pop_ivc.eq(st_pop[p])
            for s in range(S):
                t = st[p][s]
                fl = Signal(lay, name=f"st_flit_{lane_sfx(p, s)}")
                m.d.comb += fl.eq(ius[p].front0_ivc[0][:fw])
                if V > 1:
                    m.d.comb += fl.eq(Cat(*[ius[p].front0_ivc[v][:fw] for v in range(V)])
                                      .word_select(t["v"], fw) if V == 1 << vw else
                                      _mux_onehot(Cat(*[t["v"] == v for v in range(V)]),
                                                  [ius[p].front0_ivc[v][:fw] for v in range(V)]))
                with m.If(t["head"]):
                    m.d.comb += [fl[k].eq(t["commit"][k]) for k in fields]
                lane_flits.append(fl)
        for o in range(P):
            for w, cc in enumerate([ej_credits[o]] if o in ej_credits else credits.get(o, [])):
                m.d.comb += cc.take.eq(st_take[o][w])
        outs = self._crossbar(m, lane_flits, g_reg, "crossbar")
        for o in range(P):   # the output VC: GO's register at the output
            for j, (valid, fo) in enumerate(outs[o]):
                fv = Signal(lay, name=f"st_out_flit_op_{o}" + ("" if S == 1 else f"_{j}"))
                m.d.comb += [fv.eq(fo), fv.vc.eq(g_ovc[o][j])]
                outs[o][j] = (valid, fv)
        self._drive_links(m, outs, oqs, m.d.sync)

        # co-simulation ports: the decisions commit at ST (the heads it applies)
        if self.observe:
            for p in range(P):
                for s in range(S):
                    i, t = p * S + s, st[p][s]
                    m.d.comb += [self.obs_dec_gnt_ip_lane[i].eq(t["valid"] & t["head"]),
                                 self.obs_dec_ivc_ip_lane[i].eq(t["v"]), self.obs_dec_op_ip_lane[i].eq(t["o"])]
