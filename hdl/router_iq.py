"""The ``iq`` router model in RTL (router-spec §R10.1): VA | SA | ST | link, and a credit register.

:class:`IqStages` is the part of :class:`radixnet.hdl.router.Router` that the
``iq`` model changes; the input units, credit counters, output VC choice and
decision units are the router's own. Per cycle, on the state at the start of
the cycle (registers only):

* **VA** (VC allocation): input VCs whose front flit is a head that holds no
  output VC request. The table and greedy adaptive routings use §R6's
  separable allocator (arbiters ``va_in_arb_ip_<p>``, ``va_out_arb_op_<o>``);
  the sequential routings (``ugal-s``, ``clos-ad``, ``2dfb-adaptive``) the
  sequential chain, VA only (``ptr_va_in_ip_<p>``, ``start_seq``). A grant binds
  the input VC to the output VC (``active``, ``act_op``, ``act_ovc``), holds that
  output VC if the packet is longer than a flit, and **commits** the header the
  decision wrote (``commit_ip_<p>_ivc_<v>``: ``hops`` as the head will leave,
  and the adaptive routings' ``phase``, ``decided``, ``inter``, ``h1``).
* **SA** (switch allocation): input VCs bound in an earlier cycle whose output
  VC has a credit (an ejection port: whose queue is not full), §R6's separable
  allocator (``sa_in_arb_ip_<p>``, ``sa_out_arb_op_<o>``). A grant pops the
  flit (its slot's credit enters the credit register), takes a credit of its
  output VC, releases the output VC and the binding on a tail, and loads the
  flit -- a head with the committed header -- into the **ST register** of its
  input (``st_valid_ip``, ``st_op_ip_<p>``, ``st_flit_ip_<p>``).
* **ST**: the crossbar reads the ST registers, under each output's SA
  grant registered with them (``st_sel_op_<o>``), and writes the **output
  registers**, which drive ``out_valid_op`` / ``out_flit_op`` -- the link --
  in the next cycle.
* **Credits**: ``credit_out_ip_ivc`` is a register: a slot freed by an SA
  grant in cycle ``g`` is signalled upstream in ``g + 1`` and counted there
  from ``g + 2`` (§R10: ``Tl + credit_delay``).

With a route table the route is looked up as a flit arrives and stored with it in its VC buffer
(§R10.4 "Lookahead route", :attr:`Router.lookahead`): VA reads it with the front flit.

Zero-load timeline at one router (§R10.1): a head written at the edge ending
``a - 1`` is in VA in ``a``, SA ``a + 1``, ST ``a + 2``, on the output link
in ``a + 3``. The paths are register to register: link -> route ROM -> VC buffer;
buffer (stored route, or the decision) -> VC choice -> VA arbiters -> binding registers; binding registers -> SA arbiters
-> buffer read -> ST and select registers; ST and select registers -> crossbar
-> output register.
The sequential chain sits in VA only, in series with no crossbar.

The §R2 output queue of an ejection port (depth ``V * B``) holds the flits in
the ST and output registers, so with ``V * B <= 2`` a full one stops SA
granting it, as in the golden model.
"""

from __future__ import annotations

from amaranth import Module, Signal
from amaranth.lib import data

from .arbiter import ptr_width

__all__ = ["IqStages"]

#: header fields a VA grant commits for the head's SA (§R10.1): ``hops`` always, the decision's with
#: an adaptive routing
COMMIT_FIELDS = ("hops",)
ADAPTIVE_COMMIT_FIELDS = ("hops", "phase", "decided", "inter", "h1")


class IqStages:
    """Mixin of :class:`radixnet.hdl.router.Router`: the ``iq`` pipeline (module docstring)."""

    def _elaborate_iq(self, m: Module, ius, active, act_o, act_ov):
        from .router import SEQUENTIAL

        P, V, B, S = self.n_ports, self.n_vcs, self.vc_depth, self.speedup
        lay = self.flit_layout
        is_eject = self._is_eject
        fields = ADAPTIVE_COMMIT_FIELDS if self.routing is not None else COMMIT_FIELDS
        commit_lay = data.StructLayout({k: lay[k].shape for k in fields})
        commit = [[Signal(commit_lay, name=f"commit_ip_{p}_ivc_{v}") for v in range(V)] for p in range(P)]

        # ---- VA (§R10.1 step 1)
        if self.routing in SEQUENTIAL:
            va = self._allocate_sequential(m, ius, active, act_o, act_ov, va=True)
        else:
            req, req_o, dep = self._greedy_requests(m, ius, active, act_o, act_ov, va=True)
            va = self._separable(m, req, req_o, dep, "va_", mode="va")
        self._observe_decisions(m, va)   # co-simulation ports (``observe``): VA takes the decisions

        # ---- SA requests (§R10.1 step 2): bound VCs whose output VC has a credit
        sa_req = [Signal(V, name=f"sa_req_ip_{p}_ivc") for p in range(P)]
        sa_dep = [[Signal(lay, name=f"sa_dep_flit_ip_{p}_ivc_{v}") for v in range(V)] for p in range(P)]
        for p in range(P):
            for v in range(V):
                f = ius[p].front_flit_ivc[v]
                ok = self._held_route(m, act_o[p][v], act_ov[p][v], f"sa_ip_{p}_ivc_{v}")
                m.d.comb += [sa_req[p][v].eq(ius[p].front_valid_ivc[v] & active[p][v] & ok),
                             sa_dep[p][v].eq(f), sa_dep[p][v].vc.eq(act_ov[p][v])]
                with m.If(f.head):   # the head leaves with the header VA committed
                    m.d.comb += [sa_dep[p][v][k].eq(commit[p][v][k]) for k in fields]

        # ---- the ST registers (a lane per grant an input may win), and the ejection queue: the flits in
        # ST registers bound for the port and, with S = 1, its output register; with S = 2 its output queue
        st_valid = [[Signal(name=f"st_valid_ip_{p}" + ("" if S == 1 else f"_lane_{s}")) for s in range(S)]
                    for p in range(P)]
        st_flit = [[Signal(lay, name=f"st_flit_ip_{p}" + ("" if S == 1 else f"_lane_{s}")) for s in range(S)]
                   for p in range(P)]
        # the SA's grant order per output, registered with the flits: the crossbar's select in ST comes
        # from registers, and with S = 2 it is the order the flits join the output queue
        st_sel = [[(Signal(name=f"st_sel_valid_op_{o}" + ("" if S == 1 else f"_{j}")),
                    Signal(ptr_width(P * S), name=f"st_sel_op_{o}" + ("" if S == 1 else f"_{j}")))
                   for j in range(S)] for o in range(P)]
        oqs, _, _ = self._output_queues(m, bypass=False)
        eject_count, blocked = ({}, {}) if S > 1 else (None, {})
        for o in (o for o in range(P) if is_eject[o]):
            in_st = sum(valid for valid, _ in st_sel[o])
            if S > 1:   # the output queue and the ST registers bound for the port
                n = Signal(range(V * B + S + 1), name=f"eject_count_op_{o}")
                m.d.comb += n.eq(oqs[o].count + in_st)
                eject_count[o] = held = n
            elif V * B <= 2:   # at S = 1 at most two flits are on their way out: ST and output register
                held = in_st + self.out_valid_op[o]
            else:
                continue
            full = Signal(name=f"eject_full_op_{o}")
            m.d.comb += full.eq(held >= V * B)
            blocked[o] = full
        sa = self._separable(m, sa_req, act_o, sa_dep, "sa_", blocked, mode="sa", eject_count=eject_count)

        # ---- grants: pops, ST registers, bindings and committed headers
        for p in range(P):
            m.d.comb += ius[p].pop_ivc.eq(self._pops(sa.g[p], sa.v[p]))
            for s in range(S):
                m.d.sync += [st_valid[p][s].eq(sa.g[p][s]), st_flit[p][s].eq(sa.flit[p][s])]
                for v in range(V):
                    with m.If(va.g[p][s] & (va.v[p][s] == v)):
                        m.d.sync += [active[p][v].eq(1), act_o[p][v].eq(va.o[p][s]),
                                     act_ov[p][v].eq(va.flit[p][s].vc)]
                        m.d.sync += [commit[p][v][k].eq(va.flit[p][s][k]) for k in fields]
                    with m.If(sa.g[p][s] & (sa.v[p][s] == v) & sa.flit[p][s].tail):
                        m.d.sync += active[p][v].eq(0)
        for o in range(P):
            for (rv, rs), (valid, src) in zip(st_sel[o], sa.sel[o]):
                m.d.sync += [rv.eq(valid), rs.eq(src)]

        # ---- output VCs: SA takes a credit and a tail releases; VA holds for a packet longer than a flit
        # (per output, the headers of its grants, selected by the allocators' sel as the crossbar is)
        takes = self._granted_headers(m, sa.sel, sa.flit, "sa")
        holds = self._granted_headers(m, va.sel, va.flit, "va")
        for o in range(P):
            self._output_vc_updates(m, o, takes[o], holds[o])

        # ---- ST: the crossbar from the ST registers into the output registers (S = 1) or queues (the link)
        outs = self._crossbar(m, [st_flit[p][s] for p in range(P) for s in range(S)], st_sel, "crossbar")
        self._drive_links(m, outs, oqs, m.d.sync)
