"""The ``subswitch`` router model in RTL (router-spec §R12): RI | row | SA | column | GO | link.

:class:`SubswitchStages` is the part of :class:`radixnet.hdl.router.Router` that the ``subswitch`` model
builds. Ports in groups of ``G`` (``Router(group=...)``); sub-switch ``(r, c)`` joins row ``r``'s inputs to
column ``c``'s outputs. Every decision reads the state of one place, and every wire between places runs
from a register to a register or a buffer's write port:

* **RI**, per input ``p`` (:class:`~radixnet.hdl.alloc.ri.InputSelect`): one VC round robin whose front flit
  (the input unit's, with its stored lookahead route) has a credit for its row buffer ``RB[p, c, v]``
  (``rb_credit_ip_<p>_col_<c>_ivc_<v>``, counters at the input); the flit leaves its input buffer into the
  **row register** (``row_*_ip_<p>``) with its output and, for a head, its ``hops`` from the lookahead. A
  body's output is its head's (``ri_o_ip_<p>_ivc_<v>``, written when the head goes).
* **row**: the row register writes ``RB[p, c, v]`` (``rb_ip_<p>_col_<c>_ivc_<v>``, a
  :class:`~radixnet.hdl.front_fifo.FrontFIFO` of ``Bs`` flits at the sub-switch: its front a register, so SA
  reads no RAM).
* **SA**, per sub-switch (:class:`~radixnet.hdl.alloc.sa.SubSwitchAllocator`): per output of the column a
  round-robin arbiter over the ``G · V`` row buffers' fronts, on the sub-switch's own credits for the column
  buffers, into the sub-switch's **grant registers** (``sag_pop_ip_<p>_col_<c>``: the row-buffer VCs
  granted; ``sag_gnt_op_<o>_row_<r>``, ``sag_ovc_op_<o>_row_<r>``: the lane granted and the output VC).
  SA's arbitration ends at a register beside it; no grant drives a buffer or a wire to the outputs in SA's
  cycle.
* **column**: the grant registers select the granted flit off its row buffer's front (``sag_ent_*``) and
  write it, with ``vc`` the output VC, into ``CB[o, r, w]`` (``cb_op_<o>_row_<r>_ovc_<w>``, at the output);
  the row buffer pops, and its credit is on its way back to the input (``rb_ret_*``, counted at the cycle's
  end). A row-buffer VC granted in the last cycle shows SA the flit behind the leaving one (its head and tail
  bits, output and class: :class:`~radixnet.hdl.front_fifo.FrontFIFO`'s view ``v_bits``, a register SA's
  grant chooses at the edge between the front and the second word, ``r_next``).
* **GO**, per output (:class:`~radixnet.hdl.alloc.column.ColumnArbiter`): one column buffer round robin whose
  front may go (a credit; a head an idle output VC); the flit leaves its column buffer (a credit back to the
  sub-switch through ``cb_ret_*``, a register) into the output register, on the link the next cycle.

Zero-load timeline (one router, ``Tl = 1``): a head written into its input buffer at the edge ending
``a - 1`` is picked by RI in ``a``, written into its row buffer at the end of ``a + 1``, granted by SA in
``a + 2``, written into its column buffer at the end of ``a + 3``, granted by GO in ``a + 4`` and on the link
in ``a + 5``; its input slot's credit is on ``credit_out`` in ``a + 1``.
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.hdl import Assert
from amaranth.lib import data

from .alloc import ColumnArbiter, InputSelect, SubSwitchAllocator
from .arbiter import mux_onehot, onehot_index, ptr_width
from .credits import CreditCounter
from .front_fifo import FrontFIFO

__all__ = ["SubswitchStages", "SUB_DEPTH", "groups"]

#: ``Bs``, flits per row and column buffer: each buffer's credit loop is four cycles (router-spec §R12), so
#: four credits let one VC stream a flit per cycle
SUB_DEPTH = 4


def groups(n: int, g: int) -> list[list[int]]:
    """The ports ``0 .. n - 1`` in groups of ``g`` (the last one smaller when ``g`` does not divide ``n``).

    >>> groups(6, 4)
    [[0, 1, 2, 3], [4, 5]]
    """
    return [list(range(i, min(i + g, n))) for i in range(0, n, g)]


class SubswitchStages:
    """Mixin of :class:`radixnet.hdl.router.Router`: the ``subswitch`` pipeline (module docstring)."""

    def _elaborate_subswitch(self, m: Module, ius):
        P, V, K = self.n_ports, self.n_vcs, self.n_classes
        Bs = SUB_DEPTH
        lay = self.flit_layout
        pw, vw, kb = ptr_width(P), ptr_width(V), ptr_width(K)
        rows = groups(P, self.group)
        Q = len(rows)
        lw = ptr_width(self.group)   # an output's index in its column
        is_eject = self._is_eject
        credits, ej_credits, busy, errors = self._credits, self._ej_credits, self._busy, self._errors
        # a row or column buffer entry: the flit, its output's index in the column, its class
        ent = data.StructLayout({"flit": lay, "ol": lw, "cls": kb})

        # ---- RI: per input one VC round robin whose front flit has a credit for its row buffer
        row_valid = [Signal(name=f"row_valid_ip_{p}") for p in range(P)]
        row_col = [Signal(ptr_width(Q), name=f"row_col_ip_{p}") for p in range(P)]
        row_vc = [Signal(vw, name=f"row_vc_ip_{p}") for p in range(P)]
        row_ent = [Signal(ent, name=f"row_ent_ip_{p}") for p in range(P)]
        rb_ret = [[[Signal(name=f"rb_ret_ip_{p}_col_{c}_ivc_{v}") for v in range(V)] for c in range(Q)]
                  for p in range(P)]
        for p in range(P):
            iu = ius[p]
            rbc = [[None] * V for _ in range(Q)]
            for c in range(Q):
                for v in range(V):
                    cc = CreditCounter(Bs, check=self.check, thresholds=1)   # ge[0]: count >= 1, a register
                    m.submodules[f"rb_credit_ip_{p}_col_{c}_ivc_{v}"] = cc
                    m.d.comb += cc.ret.eq(rb_ret[p][c][v])
                    errors.append(cc.error)
                    rbc[c][v] = cc
            ri_o = [Signal(pw, name=f"ri_o_ip_{p}_ivc_{v}") for v in range(V)]
            o_v = [Signal(pw, name=f"ri_out_ip_{p}_ivc_{v}") for v in range(V)]
            c_v = [Signal(ptr_width(Q), name=f"ri_col_ip_{p}_ivc_{v}") for v in range(V)]
            elig = Signal(V, name=f"ri_elig_ip_{p}")
            for v in range(V):
                f, side = iu.front_flit_ivc[v], iu.front_side_ivc[v]
                m.d.comb += o_v[v].eq(Mux(f.head, side.port, ri_o[v]))
                # the column, o // G, as a sum of compares at the column boundaries (no divider)
                m.d.comb += c_v[v].eq(sum((o_v[v] >= c * self.group for c in range(1, Q)), Const(0, ptr_width(Q))))
                has_credit = Cat(*[rbc[c][v].ge[0] for c in range(Q)]).bit_select(c_v[v], 1)
                m.d.comb += elig[v].eq(iu.front_valid_ivc[v] & (~f.head | side.valid) & has_credit)
            sel = InputSelect(V, 1)
            m.submodules[f"ri_sel_ip_{p}"] = sel
            m.d.comb += sel.elig.eq(elig)
            pick = sel.pick[0]
            m.d.comb += iu.pop_ivc.eq(pick)
            o_pick = Signal(pw, name=f"ri_o_pick_ip_{p}")
            m.d.comb += o_pick.eq(mux_onehot(pick, o_v))
            c_pick = Signal(ptr_width(Q), name=f"ri_c_pick_ip_{p}")
            m.d.comb += c_pick.eq(mux_onehot(pick, c_v))
            for c in range(Q):
                for v in range(V):
                    m.d.comb += rbc[c][v].take.eq(pick[v] & (c_pick == c))
            # the flit into the row register, a head with its hops (the lookahead's, §R8a)
            fl = Signal(lay, name=f"ri_flit_ip_{p}")
            m.d.comb += fl.eq(mux_onehot(pick, [iu.front_flit_ivc[v] for v in range(V)]))
            hops = mux_onehot(pick, [iu.front_side_ivc[v].hops_out for v in range(V)])
            with m.If(fl.head):
                m.d.comb += fl.hops.eq(hops)
            e = Signal(ent, name=f"ri_ent_ip_{p}")
            m.d.comb += [e.flit.eq(fl), e.ol.eq(o_pick - c_pick * self.group),
                         e.cls.eq(mux_onehot(pick, [iu.front_side_ivc[v].cls for v in range(V)]))]
            m.d.sync += [row_valid[p].eq(pick.any()), row_col[p].eq(c_pick), row_ent[p].eq(e),
                         row_vc[p].eq(onehot_index(pick, V))]
            for v in range(V):
                with m.If(pick[v] & iu.front_flit_ivc[v].head):
                    m.d.sync += ri_o[v].eq(o_v[v])

        # ---- row buffers, SA per sub-switch and its grant registers; the column stage moves the granted flits
        col_valid = [[Signal(name=f"col_valid_op_{o}_row_{r}") for r in range(Q)] for o in range(P)]
        col_w = [[Signal(vw, name=f"col_ovc_op_{o}_row_{r}") for r in range(Q)] for o in range(P)]
        col_ent = [[Signal(ent, name=f"col_ent_op_{o}_row_{r}") for r in range(Q)] for o in range(P)]
        cb_ret = [[[Signal(name=f"cb_ret_op_{o}_row_{r}_ovc_{w}") for w in range(V)] for r in range(Q)]
                  for o in range(P)]
        # the bits of a row buffer's second flit SA reads (a register beside the buffer): its head and tail
        # bits, output and class
        fl_off = ent["flit"].offset
        peek = 0
        for off, width in ((fl_off + lay["head"].offset, 1), (fl_off + lay["tail"].offset, 1),
                           (ent["ol"].offset, lw), (ent["cls"].offset, kb)):
            peek |= ((1 << width) - 1) << off
        for r, ins in enumerate(rows):
            for c, outs in enumerate(rows):
                ovcs = [1 if is_eject[o] else V for o in outs]
                sa = SubSwitchAllocator(len(ins), ovcs, V, K, Bs, check=self.check)
                m.submodules[f"sa_row_{r}_col_{c}"] = sa
                errors.append(sa.error)
                # SA's grants, registered: per input the row-buffer VCs granted (their flits leave in the column
                # stage, the next cycle), per output the lane granted (input i's VC v: i * V + v) and the output VC
                sag_pop = [Signal(V, name=f"sag_pop_ip_{p}_col_{c}") for p in ins]
                sag_gnt = [Signal(len(ins) * V, name=f"sag_gnt_op_{o}_row_{r}") for o in outs]
                sag_w = [Signal(vw, name=f"sag_ovc_op_{o}_row_{r}") for o in outs]
                fronts = []
                for i, p in enumerate(ins):
                    m.d.sync += sag_pop[i].eq(sa.pop_in_ivc[i])
                    for v in range(V):
                        fifo = FrontFIFO(ent.size, Bs, peek=peek)
                        m.submodules[f"rb_ip_{p}_col_{c}_ivc_{v}"] = fifo
                        wr = row_valid[p] & (row_col[p] == c) & (row_vc[p] == v)
                        m.d.comb += [fifo.w_en.eq(wr), fifo.w_data.eq(row_ent[p])]
                        if self.check:
                            m.d.sync += Assert(~wr | fifo.w_rdy, "Router: row buffer overflow")
                        # a VC granted in the last cycle: its front leaves now, SA sees the flit behind it (the
                        # buffer's view register, chosen at the last edge by SA's grant)
                        gone = sag_pop[i][v]
                        view = data.View(ent, fifo.v_bits)
                        m.d.comb += [fifo.r_sel.eq(sa.pop_in_ivc[i][v]),
                                     sa.rdy_in_ivc[i][v].eq(fifo.v_rdy),
                                     sa.o_in_ivc[i][v].eq(view.ol),
                                     sa.cls_in_ivc[i][v].eq(view.cls),
                                     sa.head_in_ivc[i][v].eq(view.flit.head),
                                     sa.tail_in_ivc[i][v].eq(view.flit.tail),
                                     fifo.r_en.eq(gone), rb_ret[p][c][v].eq(gone)]
                        fronts.append(fifo.r_data)
                for j, o in enumerate(outs):
                    for w in range(ovcs[j]):
                        m.d.comb += sa.ret_op_ovc[j][w].eq(cb_ret[o][r][w])
                    m.d.sync += [sag_gnt[j].eq(sa.gnt_op_lane[j]), sag_w[j].eq(sa.ovc_op[j])]
                    e = Signal(ent, name=f"sag_ent_op_{o}_row_{r}")
                    m.d.comb += e.eq(mux_onehot(sag_gnt[j], fronts))
                    m.d.comb += [col_ent[o][r].eq(e), col_ent[o][r].flit.vc.eq(0 if is_eject[o] else sag_w[j]),
                                 col_valid[o][r].eq(sag_gnt[j].any()), col_w[o][r].eq(sag_w[j])]

        # ---- column buffers and GO per output; the output register
        for o in range(P):
            W = 1 if is_eject[o] else V
            go = ColumnArbiter(Q, W)
            m.submodules[f"go_op_{o}"] = go
            lanes = []
            for r in range(Q):
                for w in range(W):
                    fifo = FrontFIFO(ent.size, Bs)
                    m.submodules[f"cb_op_{o}_row_{r}_ovc_{w}"] = fifo
                    wr = col_valid[o][r] & (col_w[o][r] == w)
                    m.d.comb += [fifo.w_en.eq(wr), fifo.w_data.eq(col_ent[o][r])]
                    if self.check:
                        m.d.sync += Assert(~wr | fifo.w_rdy, "Router: column buffer overflow")
                    front = data.View(ent, fifo.r_data)
                    lane = r * W + w
                    m.d.comb += [go.rdy_l[lane].eq(fifo.r_rdy), go.head_l[lane].eq(front.flit.head),
                                 go.tail_l[lane].eq(front.flit.tail), fifo.r_en.eq(go.gnt_l[lane])]
                    m.d.sync += cb_ret[o][r][w].eq(go.gnt_l[lane])
                    lanes.append(front.flit)
            if is_eject[o]:
                if o in ej_credits:
                    m.d.comb += [go.avail_ovc.eq(ej_credits[o].ge[0]), ej_credits[o].take.eq(go.take_ovc[0])]
                else:
                    m.d.comb += go.avail_ovc.eq(1)
            else:
                for w in range(V):
                    m.d.comb += [go.avail_ovc[w].eq(credits[o][w].ge[0]), credits[o][w].take.eq(go.take_ovc[w])]
            m.d.comb += busy[o].eq(go.busy_ovc)
            m.d.sync += [self.out_valid_op[o].eq(go.gnt_l.any()),
                         self.out_flit_op[o].eq(mux_onehot(go.gnt_l, [Cat(f) for f in lanes]))]

