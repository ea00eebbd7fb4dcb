"""The ``hiradix`` router model in RTL (router-spec §R11): RI | GO | ST | link, every stage from registers.

:class:`HiradixStages` is the part of :class:`radixnet.hdl.router.Router` that the ``hiradix`` model
changes. VC and switch allocation are one combined allocation (a head asks for an output VC and the
switch at once), split into two registered stages, and the grant is registered before it changes
any state:

* **RI** (request, input stage; :class:`~radixnet.hdl.alloc.ri.InputSelect` per input): per input
  VC, eligible or not on the **view** (below) with the output side from **RI's copy** (the view's
  output-side bits registered a cycle earlier, §R11.1), kept where it is read: a bound VC's own output
  VC's credit bits, ``ri_bound_ok<k>_ip_<p>_ivc_<v>``, made at the input from the counters' registered
  ``>= j`` bits, selected by the binding's next value and moved by the VC's own pop (the output VC is held by
  the VC's packet, so ST's take on it is that pop: no logic of the output's on the long wire); for the head
  of each of a VC's two front registers, its decision and the copy's bit for the output and class it names,
  ``ri_front<e>_<field>_ip_<p>_ivc_<v>``, made from the view at the register's next entry (the stored
  lookahead route with a route table, else the adaptive routing's decision unit on the view's queue lengths
  and availability); the sequential allocator's queue lengths,
  ``ri_qlen_op_<o>``), §R11.2's rule with ``u(v)`` (``req_pending_ip_<p>``,
  a register: ``v`` has a request GO is deciding this cycle). Up to ``S`` eligible VCs per input, round robin, the pointer moving on
  selection; each is registered as a request in its lane: ``rq_*_ip_<p>_lane_<s>``, among them the
  **one-hot output vector** ``rq_ooh`` (bit ``o``: a request for output ``o``), and the header an
  adaptive decision commits (with a route table ST writes the head's ``hops`` from its buffer entry).
* **GO** (grant, output stage; :class:`~radixnet.hdl.alloc.go.OutputArbiter` per output): output
  ``o`` reads bit ``o`` of every lane's registered one-hot vector, masks the requests the view
  does not allow (a head: an idle VC of its class with a credit; a body: a credit, which RI read a cycle
  early; an ejection port: the queue rule),
  and grants up to ``S`` round robin over inputs (within an input by lane). Registered: per output
  and grant the lanes granted, one-hot (``g_lane_oh_op_<o>``, what the inputs gather), the granted lane's
  index (``g_lane_op_<o>``, the crossbar's select; ``Router(crossbar_select="onehot")`` selects by the one-hot
  grant instead) and the output VC a granted head takes (``g_ovc_op_<o>``; with one VC class at ``S = 1`` the
  class's choice itself, registered without the grant in front of it: a body's VC is its binding's, and the
  inputs select it by the output they asked); per output VC the
  flits ST moves to it (``st_take``); per input VC the pop (``st_pop_ip_<p>``, also the credit); per
  input lane the ST lane (``st_*``: VC, output, output VC, committed header). The state only the
  view reads is updated with the grant (at GO's edge): the credit counters (which take GO's grants,
  ``go_take``), the input VC bindings (``active``, ``act_o``, ``act_ov``) and the output VC holds
  (``busy``), as ST will leave them. Whether a granted body ends its packet (the hold it releases)
  comes from registers at both ends: RI registers the kind of the view's front and second flit of
  the VC (``rq_tail1``, ``rq_tail2``) and whether it had a request GO was deciding (``rq_dep``: then
  the request pops the second flit iff the one before it was granted, which the output knows from
  its own ``st_take`` and the input from its ``st_pop``); GO reads no input buffer. With one VC class
  and ``S = 1`` the only term of GO's mask its own last grant changes is the output's availability
  (an idle VC with a credit), the same for every head: the arbiter's chain runs on both of its values
  (every request; bodies only), each outcome's takes, holds and releases are reduced from registers,
  and the bit selects the outcome last (``OutputArbiter(alt=True)``). There GO registers the reductions
  and the bit (``go_<term>_op_<o>_ovc_<w>``, ``go_use_op_<o>``) and ST selects and applies them: the
  counters and holds take at ST's edge (§R11.3 "Where GO's grants are applied").
* **ST**: the input units pop ``st_pop`` (a register); each input lane's flit is its VC's front
  register (``front0``), with the committed header on a head and ``vc`` the output VC. IN's pops and the
  bindings' bit are registered once per reader, kept apart (``in_pop_ip_<p>`` for the input unit,
  ``ri_in_pop_ip_<p>`` and ``ri_active_ip_<p>_ivc_<v>`` for RI, ``st_in_pop_ip_<p>`` for ST's entry
  select), so that each sits beside its reader and not where the datapath pulls a shared one; the crossbar,
  under the registered grants, writes the output registers (``S = 1``) or the §R8b output queues
  (``S = 2``, grant order); ``credit_out_ip_ivc`` is ``st_pop`` delayed by a register (on the link
  in ``s + 1`` for a pop in ``s``).

**The view** (§R11.1) is the state at the start of ``t`` with ``t``'s ST applied, as functions of
registers: an input VC's front is ``front1`` if ST pops it this cycle, else ``front0`` (the
:class:`~radixnet.hdl.input_unit.FrontInputUnit` holds the first two flits of every VC in
registers, the kinds of the first four -- tail and head bits -- in a register beside them, and its
occupancy ``>= 1, 2, 3`` as registered bits: RI reads no buffer RAM); an output VC's ``credit >= k`` is
the counter's registered ``count >= k`` bit (:class:`~radixnet.hdl.credits.CreditCounter`
``thresholds``: the counters take at GO's edge what ST moves in the next cycle, so a counter is the
view's; with one VC class at ``S = 1`` they take at ST's edge, and the view's bit is the counter's ``>= k + 1``
bit when ST takes a flit, else its ``>= k``); bindings and holds are registers written at GO's edge (holds at
ST's edge in the second case, the view's hold ``st_hold | busy & ~st_release``).

Zero-load timeline (one router, ``Tl = 1``): a head written at the edge ending ``a - 1`` is
requested by RI in ``a``, granted by GO in ``a + 1``, popped by ST in ``a + 2`` (its credit on
``credit_out`` in ``a + 3``), on the output link in ``a + 3``. A body behind it is requested once its
VC is bound in the view, ``a + 2``: on the link in ``a + 5``.

**Two-level output arbitration** (§R11.6, ``router_model="hiradix-local"``): at the end of RI's cycle, per group of
``group`` inputs and output, one :class:`~radixnet.hdl.alloc.go.OutputArbiter` (``lo_arb_grp_<g>_op_<o>``) keeps the
group's first ``S`` lanes asking for the output (:meth:`HiradixStages._hr_local`); only kept lanes are registered
(``lo_keep_*``) and set ``req_pending``. The kept requests' GO fields are registered per group, output and slot
(``lo_*_grp_<g>_op_<o>``), and GO reads those ``Q * S`` candidates instead of the lanes, round robin over groups; its
grant is registered as the candidate's lane one-hot. ``hiradix-staged`` (§R11.7) gives LO a cycle of its own on the
request register and splits ST in two; ``hiradix-decoupled`` (§R11.8) is that, with ``req_pending2`` written from
the request register alone and LO's verdict registered beside the group (``lo_keep_*_reg``), so that only
``req_pending3`` reads it, through one gate, and with the view's availability table and the decision units'
queue lengths registered at the outputs (``ri_new_ok_op_cls``, ``ri_view_*``): a head reads them two cycles old.
``hiradix-twohead`` (§R11.9) is ``hiradix-decoupled`` with a VC's second single-flit head in flight: an unbound VC
whose one undecided request is a first head's (``req_pending{,2,3}_sec`` beside ``u(v)``'s registers) asks for the
flit in front1 (``ri_second``: front1's decision and availability bit), if both front registers hold single-flit
heads for different destinations (``ri_front_dst_ne``, registered at front1's entry); the request carries
``rq_sec``, and per VC ``sec_in_front1`` says the flit is still behind the front, so that ST1 reads front1 and IN
removes it (the input unit's ``pop1_ivc``) while the front stays.
``hiradix-relay`` (§R11.10) is ``hiradix-twohead`` with a register on each crossing of the request loop: LO reads
the request register's copy beside it (``rq_*_lo``) and GO the candidates' copy beside the output
(``lo_*_at_go``); ``u(v)`` counts up to five requests (``req_pending4`` and ``req_pending5`` those LO kept), the
request's ST fields wait at the input in ``lo_rq``, ``rl_rq`` and ``go_rq``, and GO counts a body's flit over five
earlier grants (``st_take`` .. ``st_take5``). ``hiradix-relay1`` (§R11.11) is ``hiradix-relay`` with
``hiradix-decoupled``'s one head: the same registers without the second head's.

**Sequential RI** (§R11.2, ``ugal-s``): the inputs pick their lanes as above (the pointer moving on
selection); then one :class:`~radixnet.hdl.seq_alloc.SequentialAllocator` (``Router(seq_impl=...)``:
prefix or ripple) serves the ``P·S`` lanes from lane ``ptr_seq·S`` (``ptr_seq`` one on every cycle),
each with two candidates: a head at its source router the minimal route (cost ``q·H(c,d)``) and the
non-minimal one (``q·(H(c,b)+H(b,d)) + θ``), any other head its one decision, a bound VC its output.
``q0`` is RI's copy of the queue lengths (ejection ports 0); along the order only ``q`` and the
``S`` requests per output change, as the spec says. A lane is registered iff the allocator grants it,
with the chosen candidate's output, class and header. ``clos-ad`` and ``2dfb-adaptive`` are refused
(not a least-cost choice over fixed candidates).

**Under the decision line** (§R11.2a, ``Router(seq_wavefront=g)``): a source head's candidate is its
preference if available, else the other, so every selected lane is registered as a greedy RI registers it
(the pointer moving on selection, ``req_pending`` set). The chain runs beside GO: per output an
:class:`~radixnet.hdl.alloc.chain.OutputChain` (``go_chain_op_<o>``) reads the output's bit of every
registered request and admits the first ``S`` in service order from RI's ``ptr_seq`` of the cycle
before; GO reads only the admitted ones (with ``S = 1`` the one admitted request is the grant if the view
allows it: no round robin). The drops, ORed over the outputs per lane, are registered (``chain_drop_ip_<p>``)
and in the next cycle clear the lane's VC from ``req_pending2`` as RI reads it (``req_pending2_kept``): the
request no longer counts in u(v). Under the two-level models (§R11.6) the chain is taken at LO and GO: a
router-wide thermometer mask of ``ptr_seq`` (``lo_seq_mask``; RI's own for ``hiradix-local``, the cycle before's
for ``hiradix-staged``) ranks each group's lanes in an :class:`~radixnet.hdl.alloc.chain.OutputChain`
(``lo_chain_grp_<g>_op_<o>``) in place of LO's arbiter, each candidate registers its input's bit of the mask
(``lo_from_ptr_*``), and per output a chain over the candidates with those bits as its mask admits the first
``S`` (``go_admit_op_<o>_cand``); a candidate it leaves is refused, and no drop goes back.
"""

from __future__ import annotations

from functools import reduce
from operator import or_
from types import SimpleNamespace

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data
from amaranth.lib.wiring import Out

from .alloc import InputSelect, OutputArbiter, OutputChain
from .alloc.chain import service_mask
from .arbiter import mux_onehot, next_ptr, onehot_index, or_all, ptr_width
from .seq_alloc import SequentialAllocator
from .vc_select import OutputVCSelect, QueueLength

__all__ = ["HiradixStages", "view_flits"]

#: outputs per copy of the request register's fields GO reads (:data:`GO_FIELDS`): a register per group of
#: outputs, placed by its readers (Kim, Dally, Towles & Gupta's sub-switches: each group's GO reads its own copy)
GO_GROUP = 4
#: what GO reads of a request besides its one-hot output vector
GO_FIELDS = ("head", "single", "hk", "cls", "ovc", "e1", "e2", "t1", "t2", "t3")
#: per output VC, what GO registers of its grant when ST applies it (§R11.3 "Where GO's grants are applied"):
#: whether a head takes this VC, and the reductions of each outcome (``_a``: every request grantable; ``_b``:
#: bodies only) of the heads' takes and holds and the bodies' takes and releases
DEFER_TERMS = ("head_on", "head_take", "head_hold", "body_take_a", "body_release_a", "body_take_b", "body_release_b")

#: what a request carries more under ``hiradix-staged`` (§R11.7): whether its VC had a request three RIs before
#: (``e3``, one LO kept) and "a body's tail" for the view's fourth flit (``t4``)
STAGED_FIELDS = ("e3", "t4")
#: and under ``hiradix-relay`` (§R11.10): whether its VC had a request four and five RIs before (``e4``, ``e5``: ones
#: LO kept) and "a body's tail" for the view's fifth and sixth flits
RELAY_FIELDS = ("e4", "e5", "t5", "t6")
#: what ST reads of the request GO decided (a copy of the request register at the input); ``sec``: a second head's
#: (``hiradix-twohead``, router-spec §R11.9)
ST_FIELDS = ("v", "voh", "o", "head", "single", "ovc", "commit", "sec")

#: header fields an adaptive routing's decision in RI commits (written at ST into the head); with a route table
#: ST writes the head's ``hops`` from its buffer entry (the stored lookahead's side-band), and RI commits nothing
ADAPTIVE_COMMIT_FIELDS = ("hops", "phase", "decided", "inter", "h1")


#: what the sequential RI's chain reads of a selected lane (:meth:`HiradixStages._hr_seq_candidates`, and the
#: request's head and single-flit bits)
SEQ_LANE_FIELDS = ("head", "single", "ok0", "ok1", "o0", "o1", "h0", "h1", "cls0", "ov0", "cm0", "cm1", "e1", "e2",
                   "t1", "t2", "t3")


def view_flits(model) -> int:
    """The view's flits whose kinds RI reads of an input VC under ``model``: ``u(v) + 1`` at most (router-spec §R11.2:
    3; ``hiradix-staged``, §R11.7: 4; ``hiradix-relay``, §R11.10: 6). The input units keep one more (IN's pop shifts
    them), and a bound VC's credit copy reads the counters' ``>= 1 ..`` that many."""
    return 6 if model.relay else 4 if model.staged else 3


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
        # hiradix-staged (§R11.7): LO in a cycle of its own, ST in two halves; u(v) up to 3, so RI reads four flits
        staged = self.model.staged
        decoupled = self.model.decoupled   # hiradix-decoupled (§R11.8): LO's verdict a cycle later, RI's loop local
        twohead = self.model.heads > 1     # hiradix-twohead (§R11.9): a VC's second single-flit head in flight
        relay = self.model.relay           # hiradix-relay (§R11.10): a register on each crossing of the loop
        nu = view_flits(self.model)
        more = STAGED_FIELDS + (RELAY_FIELDS if relay else ()) if staged else ()
        # GO's flit count (§R11.3): the undecided requests whose grants are not yet in the view, e1 .. e<ne>
        ne = nu - 1
        fields = ADAPTIVE_COMMIT_FIELDS if adaptive else ()
        commit_lay = data.StructLayout({k: lay[k].shape for k in fields})
        side_lay = self._side_layout

        # ------------------------------------------------ registers between the stages
        # per output VC: the flits GO granted it in the cycle before (ST moves them in this cycle); the credits
        # are taken at GO's edge (``go_take``), so that a counter is the view itself
        st_take = {o: [Signal(range(S + 1), name=f"st_take_op_{o}_ovc_{w}") for w in range(1 if is_eject[o] else V)]
                   for o in range(P)}
        go_take = {o: [Signal(range(S + 1), name=f"go_take_op_{o}_ovc_{w}") for w in range(1 if is_eject[o] else V)]
                   for o in range(P)}
        st_take2 = {o: [Signal(range(S + 1), name=f"st_take2_op_{o}_ovc_{w}") for w in range(len(st_take[o]))]
                    for o in range(P)}   # the same, a cycle older
        # and two cycles older (§R11.7), up to four (§R11.10): ``st_takes[k]`` is GO's take of k + 1 cycles before
        st_takes = [st_take, st_take2] + [
            {o: [Signal(range(S + 1), name=f"st_take{k}_op_{o}_ovc_{w}") for w in range(len(st_take[o]))]
             for o in range(P)} for k in range(3, ne + 1)]
        # one VC class at speedup 1 (§R11.3 "Where GO's grants are applied"): GO registers, per output VC, each
        # outcome's reductions of its grant and, per output, the availability bit that selects the outcome; ST
        # selects (``st_take``, ``st_hold``, ``st_release``) and the credit counters and holds apply it at ST's
        # edge. The view is then the registers corrected by what ST applies: a counter less ``st_take``, a hold
        # ``st_hold | busy & ~st_release``
        defer = self._hr_defer
        go_red = {o: [{x: Signal(name=f"go_{x}_op_{o}_ovc_{w}") for x in DEFER_TERMS} for w in range(len(st_take[o]))]
                  for o in range(P)} if defer else {}
        go_use = {o: Signal(name=f"go_use_op_{o}") for o in range(P)} if defer else {}
        if defer:
            busy_reg = busy   # the holds' registers; ``busy`` is the view from here on
            busy = {o: Signal(len(busy_reg[o]), name=f"view_busy_op_{o}_ovc") for o in range(P)}
            for o in range(P):
                for w, d in enumerate(go_red[o]):
                    st_hold, st_rel = Signal(name=f"st_hold_op_{o}_ovc_{w}"), Signal(name=f"st_release_op_{o}_ovc_{w}")
                    u, take_a = go_use[o], (d["head_on"] & d["head_take"]) | d["body_take_a"]
                    m.d.comb += [st_take[o][w].eq(Mux(u, take_a, d["body_take_b"])),
                                 st_hold.eq(u & d["head_on"] & d["head_hold"]),
                                 st_rel.eq(Mux(u, d["body_release_a"], d["body_release_b"]))]
                    held = st_hold | (busy_reg[o][w] & ~st_rel)   # the hold after ST's grant
                    m.d.comb += busy[o][w].eq(held)
                    m.d.sync += busy_reg[o][w].eq(held)
        # per input VC: IN's pop this cycle (the input side of the grants ST applied in the cycle before), one
        # register per reader: the input unit's, RI's and ST's entry select (which pulls toward the crossbar);
        # likewise the bindings' bit, ST's and RI's. Every copy carries ``keep``: synthesis merges equal
        # flip-flops unless both do
        in_pop = [Signal(V, name=f"in_pop_ip_{p}", attrs={"keep": 1}) for p in range(P)]
        in_pop_ri = [Signal(V, name=f"ri_in_pop_ip_{p}", attrs={"keep": 1}) for p in range(P)]
        in_pop_st = [Signal(V, name=f"st_in_pop_ip_{p}", attrs={"keep": 1}) for p in range(P)]
        # hiradix-twohead (§R11.9): the pops above are of the front; IN may remove the flit behind it instead (a
        # second head's grant while the front stays), for the input unit and RI; and per VC whether its second head's
        # undecided request names the flit in the second front register (set when RI asks, cleared when a flit of
        # the VC leaves)
        in_pop1 = [Signal(V, name=f"in_pop1_ip_{p}", attrs={"keep": 1}) for p in range(P)] if twohead else []
        in_pop1_ri = [Signal(V, name=f"ri_in_pop1_ip_{p}", attrs={"keep": 1}) for p in range(P)] if twohead else []
        sec_in1 = [Signal(V, name=f"sec_in_front1_ip_{p}") for p in range(P)] if twohead else []
        for p in range(P):
            for v in range(V):
                active[p][v].attrs["keep"] = 1
        active_ri = [[Signal(name=f"ri_active_ip_{p}_ivc_{v}", attrs={"keep": 1}) for v in range(V)]
                     for p in range(P)]
        # u(v) of §R11.2: the VCs RI requested in the cycle before (GO decides them now) and two cycles ago
        # (GO decided them in the cycle before; the view holds their verdict from the next cycle)
        pending = [Signal(V, name=f"req_pending_ip_{p}") for p in range(P)]
        pending2 = [Signal(V, name=f"req_pending2_ip_{p}") for p in range(P)]
        # hiradix-staged (§R11.7): the VCs LO kept two cycles ago and three (req_pending2 then holds the kept only)
        pending3 = [Signal(V, name=f"req_pending3_ip_{p}") for p in range(P)] if staged else []
        # hiradix-relay (§R11.10): the VCs LO kept four cycles ago and five
        pending45 = [[Signal(V, name=f"req_pending{k}_ip_{p}") for p in range(P)] for k in (4, 5)] if relay else []
        # and, registered from the next values of u(v)'s registers but the last RI's, RI's own cycle's part of u(v):
        # their count one-hot (``ri_u_rest_oh``, 0 .. 4) and whether one of them is a second head's
        u_rest_oh = [[Signal(5, name=f"ri_u_rest_oh_ip_{p}_ivc_{v}", init=1) for v in range(V)] for p in range(P)] \
            if relay else []
        und_rest = [Signal(V, name=f"ri_undecided_second_rest_ip_{p}") for p in range(P)] if relay and twohead else []
        # hiradix-twohead (§R11.9): of those, the second heads' requests
        pend_sec = [[Signal(V, name=f"req_pending{k}_sec_ip_{p}") for p in range(P)]
                    for k in ("", "2", "3", "4", "5")[:ne]] if twohead else []
        # under the decision line (§R11.2a): per input lane, the chain beside GO dropped the request GO decided in
        # the cycle before (the request ``st`` holds now); RI no longer counts it in u(v)
        line = bool(self.seq_wavefront)
        # the two-level models take the chain's rule at LO and GO, where a candidate GO does not admit is refused
        # (§R11.6): no drop comes back
        line_drop = line and not self.model.local_output
        chain_drop = [[Signal(name=f"chain_drop_ip_{p}_lane_{s}") for s in range(S)] for p in range(P)] \
            if line_drop else []

        def lane_sfx(p, s):
            return f"ip_{p}" if S == 1 else f"ip_{p}_lane_{s}"

        def reg(shape, name):
            return Signal(shape, name=name)

        def older(x, name, init=0):
            """``x`` a cycle late: a register."""
            r = Signal(len(x), name=name, init=init)
            m.d.sync += r.eq(x)
            return r

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
                **({"commit": reg(commit_lay, f"rq_commit_{lane_sfx(p, s)}")} if adaptive else {}),
                # the kind of the flit ST will take, from RI's view (GO reads no input buffer): whether the VC had
                # a request in the last RI (``e1``) and the one before (``e2``), and "a body's tail" for the view's
                # first three flits (the grant takes flit e1·granted + e2·granted, §R11.2)
                "e1": reg(1, f"rq_dep1_{lane_sfx(p, s)}"),
                "e2": reg(1, f"rq_dep2_{lane_sfx(p, s)}"),
                "t1": reg(1, f"rq_tail1_{lane_sfx(p, s)}"),
                "t2": reg(1, f"rq_tail2_{lane_sfx(p, s)}"),
                "t3": reg(1, f"rq_tail3_{lane_sfx(p, s)}"),
                **({"e3": reg(1, f"rq_dep3_{lane_sfx(p, s)}"), "t4": reg(1, f"rq_tail4_{lane_sfx(p, s)}")}
                   if more else {}),
                **({f"e{k}": reg(1, f"rq_dep{k}_{lane_sfx(p, s)}") for k in (4, 5)} if relay else {}),
                **({f"t{k}": reg(1, f"rq_tail{k}_{lane_sfx(p, s)}") for k in (5, 6)} if relay else {}),
                # a second head's request (§R11.9): its flit is the one behind the front
                **({"sec": reg(1, f"rq_sec_{lane_sfx(p, s)}")} if twohead else {})}
               for s in range(S)] for p in range(P)]
        # per input lane, in ST: the request GO decided in the cycle before (a copy of the request register;
        # whether it was granted comes back from the outputs' grant registers)
        # RI writes the request's next value (``rqn``); the request register and, with more than one group of
        # outputs, a copy of GO's fields per group (kept apart: synthesis would merge the equal flip-flops)
        def name_of(x):
            return (x.as_value() if isinstance(x, data.View) else x).name

        rqn = [[{k: Signal(x.shape(), name=f"{name_of(x)}_next") for k, x in rq[p][s].items()} for s in range(S)]
               for p in range(P)]
        # hiradix-local (§R11.6): GO reads LO's candidate registers, not the lanes (no copies); a lane is
        # registered iff LO keeps it (``keep``)
        local = self.model.local_output
        n_go = 1 if local else (P + GO_GROUP - 1) // GO_GROUP
        rq_go = [[[{k: Signal(rq[p][s][k].shape(), name=f"{name_of(rq[p][s][k])}_go{g}", attrs={"keep": 1})
                    for k in GO_FIELDS} for s in range(S)] for p in range(P)] for g in range(n_go)] if n_go > 1 else []
        keep = [[Signal(name=f"lo_keep_{lane_sfx(p, s)}") for s in range(S)] for p in range(P)] if local else []
        for p in range(P):
            for s in range(S):
                if local and not staged:
                    m.d.sync += [x.eq(rqn[p][s][k] & keep[p][s] if k in ("valid", "ooh") else rqn[p][s][k])
                                 for k, x in rq[p][s].items()]
                    continue
                m.d.sync += [x.eq(rqn[p][s][k]) for k, x in rq[p][s].items()]
                m.d.sync += [x.eq(rqn[p][s][k]) for cp in rq_go for k, x in cp[p][s].items()]
        # hiradix-staged: the request's ST fields wait a cycle beside the input while LO decides it (§R11.7)
        # hiradix-relay (§R11.10): and in the cycles of RL2 and GO (``rl_rq``, ``go_rq``); ``lo_rq`` keeps whether
        # the lane was valid (u(v)'s request of three cycles ago, whatever LO decides)
        st_keys = ST_FIELDS + (("valid",) if relay else ())
        rq_wait = [[[{k: reg(rq[p][s][k].shape(), f"{x}_rq_{k}_{lane_sfx(p, s)}") for k in st_keys if k in rq[p][s]}
                     for s in range(S)] for p in range(P)] for x in (("lo", "rl", "go") if relay else ("lo",))] \
            if staged else []
        lo_rq = rq_wait[0] if staged else []
        st = [[{"v": reg(vw, f"st_ivc_{lane_sfx(p, s)}"),
                "voh": reg(V, f"st_ivc_oh_{lane_sfx(p, s)}"),
                "o": reg(pw, f"st_op_{lane_sfx(p, s)}"),
                "head": reg(1, f"st_head_{lane_sfx(p, s)}"),
                "single": reg(1, f"st_single_{lane_sfx(p, s)}"),
                "ovc": reg(vw, f"st_ovc_{lane_sfx(p, s)}"),
                **({"commit": reg(commit_lay, f"st_commit_{lane_sfx(p, s)}")} if adaptive else {}),
                **({"sec": reg(1, f"st_sec_{lane_sfx(p, s)}")} if twohead else {})}
               for s in range(S)] for p in range(P)]
        # per output and grant: the lanes granted (one-hot: the crossbar's select, and what the inputs gather)
        # and the output VC given
        g_oh = [[Signal(n, name=f"g_lane_oh_op_{o}" + ("" if S == 1 else f"_{j}")) for j in range(S)]
                for o in range(P)]
        g_reg = [[(Signal(name=f"g_valid_op_{o}" + ("" if S == 1 else f"_{j}")), g_oh[o][j]) for j in range(S)]
                 for o in range(P)]
        g_ovc = [[Signal(vw, name=f"g_ovc_op_{o}" + ("" if S == 1 else f"_{j}")) for j in range(S)]
                 for o in range(P)]
        # the crossbar's select: the granted lane's index (registered beside the one-hot grant), or the one-hot
        by_index = self.crossbar_select == "index"
        g_sel = [[(valid, Signal(ptr_width(n), name=f"g_lane_op_{o}" + ("" if S == 1 else f"_{j}")))
                  for j, (valid, _) in enumerate(g_reg[o])] for o in range(P)] if by_index else g_reg
        # hiradix-staged: ST2's copy of the grant registers (the crossbar's select and a head's output VC), a cycle
        # after ST1 read the flits into the lane registers (§R11.7)
        g2_sel = [[(Signal(name=f"g2_valid_op_{o}" + ("" if S == 1 else f"_{j}")),
                    Signal(len(x), name=f"g2_{'lane' if by_index else 'lane_oh'}_op_{o}" + ("" if S == 1 else f"_{j}")))
                   for j, (_, x) in enumerate(g_sel[o])] for o in range(P)] if staged else []
        g2_ovc = [[Signal(vw, name=f"g2_ovc_op_{o}" + ("" if S == 1 else f"_{j}")) for j in range(S)]
                  for o in range(P)] if staged else []
        for o in range(len(g2_sel)):
            for j in range(S):
                m.d.sync += [g2_sel[o][j][0].eq(g_reg[o][j][0]), g2_sel[o][j][1].eq(g_sel[o][j][1]),
                             g2_ovc[o][j].eq(g_ovc[o][j])]

        # ------------------------------------------------ the view (§R11.1): functions of registers
        def counter(o, w):
            """Output VC ``(o, w)``'s credit counter (None: an ejection port without egress credits)."""
            return ej_credits.get(o) if is_eject[o] else credits[o][w]

        def view_ge(o, w, k):
            """Output VC ``(o, w)`` holds at least ``k`` credits in the view (``k`` = 1, 2 or 3): the counter's
            registered bit (GO's grants take their credits at GO's edge, ST's in the view)."""
            cc = counter(o, w)
            if cc is None:
                return Const(1, 1)
            if defer:   # the counter less the take ST applies in this cycle
                return Mux(st_take[o][w], cc.ge[k], cc.ge[k - 1])
            return cc.ge[k - 1]

        ge1 = {o: [view_ge(o, w, 1) for w in range(len(st_take[o]))] for o in range(P)}
        ge2 = {o: [view_ge(o, w, 2) for w in range(len(st_take[o]))] for o in range(P)}
        need_cnt = adaptive or vpc > 1
        vcnt = {}
        if need_cnt:
            for o in credits:
                vcnt[o] = []
                for w in range(V):
                    c = credits[o][w].count
                    if defer:
                        cv = Signal(len(c), name=f"view_credit_op_{o}_ovc_{w}")
                        m.d.comb += cv.eq(c - st_take[o][w])
                        c = cv
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
                # an idle VC of the class with a credit (``sel.valid``), from the registered ``>= 1`` bits: no
                # subtraction in front of GO's request mask
                m.d.comb += a.eq(Cat(*[~busy[o][w] & ge1[o][w] for w in range(k * vpc, (k + 1) * vpc)]).any())
                avail[(o, k)], aovc[(o, k)] = a, sel.ovc
        # tables indexed by (output, class) and (output, VC), as Router._route_table / _held_route
        ok_bits = []
        for o in range(1 << pw):
            for k in range(1 << kb):
                ok_bits.append(avail[(o, k)] if o < P and k < K else
                               avail[(o, 0)] if o < P and is_eject[o] else Const(0, 1))
        ok_tab = Signal(len(ok_bits), name="view_new_ok_op_cls")
        m.d.comb += ok_tab.eq(Cat(*ok_bits))
        if decoupled:
            # §R11.8: a head reads the output side of the view of two cycles before: the table registered at the
            # outputs, so the wire to the inputs' front registers runs from a register (at reset, every output
            # available: the reset state's table)
            reset_tab = sum(1 << i for i, b in enumerate(ok_bits) if not (isinstance(b, Const) and b.value == 0))
            ok_tab = older(ok_tab, "ri_new_ok_op_cls", init=reset_tab)
        # the counters' registered ``count >= j`` bits by (output, VC): what a bound input VC's copy is made from
        # (below); with GO's grants applied at ST the view's bits are ``>= j + 1`` when ST takes, and j runs to
        # u(v) + 1 at most (``nu``), one more with GO's grants applied at ST
        n_ge = nu + int(defer)

        def counter_ge(o, w, j):
            if o >= P or w >= len(st_take[o]):
                return Const(0, 1)
            cc = counter(o, w)
            return Const(1, 1) if cc is None else cc.ge[j - 1]

        cge = {}
        for j in range(1, n_ge + 1):
            cge[j] = Signal((1 << pw) * (1 << vw), name=f"credit_ge{j}_op_ovc")
            m.d.comb += cge[j].eq(Cat(*[counter_ge(o, w, j) for o in range(1 << pw) for w in range(1 << vw)]))
        if adaptive:
            q_o, avail_o = {}, {}
            for o in credits:
                ql = QueueLength(V, B)
                m.submodules[f"view_qlen_op_{o}"] = ql
                m.d.comb += [ql.credit_ovc[w].eq(vcnt[o][w]) for w in range(V)]
                q_o[o] = ql.q
                avail_o[o] = Cat(*[avail[(o, k)] for k in range(K)])
                if decoupled:   # §R11.8: the decision units read the view of two cycles before, registered
                    q_o[o] = older(q_o[o], f"ri_view_qlen_op_{o}")
                    avail_o[o] = older(avail_o[o], f"ri_view_avail_op_{o}_cls", init=(1 << K) - 1)

        # RI's copy of the output side (§R11.1): the view's output-side bits of the cycle before, registered;
        # at reset the reset state's (every counter full, nothing held)
        def reset_ge(o, w, k):
            cc = counter(o, w)
            return 1 if cc is None else int(cc.depth >= k)

        h_init = {k: 0 for k in range(1, nu + 1)}
        for o in range(P):
            for w in range(len(st_take[o])):
                for k in range(1, nu + 1):
                    h_init[k] |= reset_ge(o, w, k) << (o * (1 << vw) + w)
        # a bound input VC reads only its own output VC's bits of the copy, one register per input VC beside RI,
        # made at the input from registers (written in ST, below): the output VC is held by the VC's own packet,
        # so the take ST applies to it is the VC's own pop, and the view's bits are the counter's, selected by the
        # binding's next value and moved by the pop (no logic of the output's on the long wire)
        bound_ok = [[[Signal(name=f"ri_bound_ok{k}_ip_{p}_ivc_{v}", init=(h_init[k] & 1)) for k in range(1, nu + 1)]
                     for v in range(V)] for p in range(P)]
        # the sequential allocator's queue lengths (§R11.2, §R11.2a): RI's copy, a register per output
        ri_q_o = {}
        for o in (q_o if self.sequential else ()):
            ri_q_o[o] = Signal(len(q_o[o]), name=f"ri_qlen_op_{o}")
            m.d.sync += ri_q_o[o].eq(q_o[o])

        # ------------------------------------------------ RI (§R11.2)
        eject_tab = Const(sum(1 << o for o in range(P) if is_eject[o]), 1 << pw)
        seq = self.sequential
        seq_lanes = []   # sequential: per input, per lane, the selected VC's candidates
        for p in range(P):
            iu = ius[p]
            elig = Signal(V, name=f"ri_elig_ip_{p}")
            per_v = []
            for v in range(V):
                tag = f"ip_{p}_ivc_{v}"
                pop = in_pop_ri[p][v]
                bound = active_ri[p][v]
                e1, e2 = pending[p][v], pending2[p][v]
                e3 = pending3[p][v] if staged else None
                es = [e1, e2] + ([e3] if staged else []) + [x[p][v] for x in pending45]   # u(v)'s requests
                # the head RI reads: the view's front (front1 when IN removes front0 now), or (§R11.9) the flit behind
                # it for a second head, which an unbound VC with an undecided request can only ask for (no flit of
                # the VC leaves then, so it is front1)
                sel1, pop_any = pop, pop
                second = None
                if twohead:
                    second = Signal(name=f"ri_second_{tag}")
                    # relay: an undecided request of the last RI, or one of the earlier ones (the count registered)
                    m.d.comb += second.eq(~bound & (e1 | ~u_rest_oh[p][v][0] if relay else reduce(or_, es)))
                    sel1 = Signal(name=f"ri_sel_front1_{tag}")
                    pop_any = Signal(name=f"ri_in_pop_any_{tag}")
                    m.d.comb += [sel1.eq(pop | second), pop_any.eq(pop | in_pop1_ri[p][v])]
                fe = Signal(iu.entry_bits, name=f"view_front_{tag}")
                m.d.comb += fe.eq(Mux(sel1, iu.front1_ivc[v], iu.front0_ivc[v]))
                f = data.View(lay, fe[:fw])
                nge = iu.nge_ivc[v]
                pres = [Signal(name=f"view_has{k}_{tag}") for k in range(1, nu + 1)]   # the view holds >= 1, 2, .. flits
                m.d.comb += [x.eq(Mux(pop_any, nge[k + 1], nge[k])) for k, x in enumerate(pres)]
                # the kinds (tail, head) of the view's first three (staged: four) flits, from the input unit's kind
                # registers (IN removing the flit behind the front shifts those behind it)
                kd = iu.kind_ivc[v]
                kv = [Mux(pop_any if k else pop, kd[2 * k + 2:2 * k + 4], kd[2 * k:2 * k + 2]) for k in range(nu)]
                tl = [x[0] for x in kv]
                oks = bound_ok[p][v]   # the bound output VC holds >= 1, 2, 3 credits (copy)
                # per front register, what RI reads of its head, made a cycle early from the view of the cycle
                # before at the register's next entry (the copy is that view, registered), so RI reads registers
                # and the view's choice of the two (§R11.1): the copy's bit for the head's output and class, and
                # an adaptive head's decision (its unit reads the head, the input port and the view)
                looks, decs = [], []
                for e, nxt in enumerate((iu.front0_next_ivc[v], iu.front1_next_ivc[v])):
                    if adaptive:
                        hdr = data.View(lay, nxt[:fw])
                        rc_e = self._decider()
                        m.submodules[f"route_{tag}_front{e}"] = rc_e
                        self._connect_decider(m, rc_e, hdr, p, q_o, avail_o)
                        d = {}
                        for name, mem in rc_e.signature.members.items():
                            if mem.flow == Out:
                                d[name] = Signal.like(getattr(rc_e, name), name=f"ri_front{e}_{name}_{tag}")
                                m.d.sync += d[name].eq(getattr(rc_e, name))
                        hops_e = self._hops_out(m, Const(0, 1) if self.fault == "eject_hops" else rc_e.eject,
                                                hdr.hops, f"front{e}_{tag}")
                        d["hops_out"] = Signal.like(hops_e, name=f"ri_front{e}_hops_out_{tag}")
                        m.d.sync += d["hops_out"].eq(hops_e)
                        decs.append(d)
                        e_cls, e_port = rc_e.cls, rc_e.port
                    else:
                        sd = data.View(side_lay, nxt[fw:])
                        e_cls, e_port = sd.cls, sd.port
                    ok_e = Signal(name=f"ri_front{e}_new_ok_{tag}")
                    m.d.sync += ok_e.eq(ok_tab.bit_select(Cat(e_cls[:kb], e_port), 1))
                    looks.append(ok_e)
                new_ok = Signal(name=f"view_new_ok_{tag}")
                m.d.comb += new_ok.eq(Mux(sel1, looks[1], looks[0]))
                if adaptive:   # the view's front's decision (§R11.9: or the second head's)
                    rc = SimpleNamespace(**{k: Mux(sel1, decs[1][k], decs[0][k]) for k in decs[0]})
                    port, rvalid, cls, hops_out = rc.port, rc.valid, rc.cls, rc.hops_out
                else:   # the head's hops are written at ST from its entry (below)
                    side = data.View(side_lay, fe[fw:])
                    port, rvalid, cls = side.port, side.valid, side.cls
                # u(v) = 0, 1 or 2 (§R11.2): a bound VC asks for the flit behind its undecided requests' flits,
                # which must be no tails, with u(v) + 1 credits; a head only with u(v) = 0
                if line_drop:
                    e2 = Signal(name=f"req_pending2_kept_{tag}")
                    m.d.comb += e2.eq(pending2[p][v] & ~Cat(*[chain_drop[p][s] & st[p][s]["voh"][v]
                                                              for s in range(S)]).any())
                if staged:   # u(v) = e1 + e2 + e3 (the last two: requests LO kept, §R11.7; relay: + e4 + e5, §R11.10)
                    if not relay:
                        u = Signal(range(ne + 1), name=f"ri_u_{tag}")
                        m.d.comb += u.eq(sum(es[1:], es[0]))
                    by_u = [pres[0] & Mux(bound, oks[0], kv[0][1] & rvalid & new_ok)]
                    for k in range(1, nu):
                        by_u.append(bound & ~Cat(*tl[:k]).any() & pres[k] & oks[k])
                    if twohead:
                        # §R11.9: with u(v) = 1 an unbound VC asks for its second head when the undecided request is
                        # a first head's, both front registers hold single-flit heads for different destinations
                        # (compared at front1's entry), and the second's decision has an available candidate
                        und_sec = Signal(name=f"ri_undecided_second_{tag}")
                        m.d.comb += und_sec.eq((e1 & pend_sec[0][p][v]) | und_rest[p][v] if relay else
                                               reduce(or_, [e & x[p][v] for e, x in zip(es, pend_sec)]))
                        dst_ne = Signal(name=f"ri_front_dst_ne_{tag}")
                        nx0, nx1 = (data.View(lay, x[:fw]) for x in (iu.front0_next_ivc[v], iu.front1_next_ivc[v]))
                        m.d.sync += dst_ne.eq(nx0.dest != nx1.dest)
                        ok2 = Signal(name=f"ri_second_ok_{tag}")
                        m.d.comb += ok2.eq(~und_sec & nge[1] & (kd[0:4] == 0b1111) & dst_ne & rvalid & new_ok)
                        by_u[1] = Mux(bound, by_u[1], ok2)
                    if relay:   # by u(v) = e1 + the registered rest: two AND-ORs by the rest's one-hot, e1 last
                        uo = u_rest_oh[p][v]
                        m.d.comb += elig[v].eq(Mux(e1, reduce(or_, [uo[k] & by_u[k + 1] for k in range(5)]),
                                                   reduce(or_, [uo[k] & by_u[k] for k in range(5)])))
                    else:
                        m.d.comb += elig[v].eq(Cat(*by_u).bit_select(u, 1))
                else:
                    m.d.comb += elig[v].eq(Mux(e1 & e2, bound & ~tl[0] & ~tl[1] & pres[2] & oks[2],
                                               Mux(e1 | e2, bound & ~tl[0] & pres[1] & oks[1],
                                                   pres[0] & Mux(bound, oks[0], kv[0][1] & rvalid & new_ok))))
                o_req = Signal(pw, name=f"ri_op_{tag}")
                m.d.comb += o_req.eq(Mux(bound, act_o[p][v], port))
                commit = {}
                if adaptive:
                    cm = Signal(commit_lay, name=f"ri_commit_{tag}")
                    m.d.comb += [cm.hops.eq(hops_out), cm.phase.eq(rc.phase_out), cm.decided.eq(rc.decided_out),
                                 cm.inter.eq(rc.inter_out), cm.h1.eq(rc.h1_out)]
                    commit = {"commit": cm}
                ovc = act_ov[p][v]
                if vpc == 1:   # one VC per class: a head's output VC is its class's (VC 0 on an ejection port)
                    ovc = Signal(vw, name=f"ri_ovc_{tag}")
                    m.d.comb += ovc.eq(Mux(bound, act_ov[p][v], Mux(eject_tab.bit_select(port, 1), 0, cls[:kb])))
                hk = Signal(K, name=f"ri_head_cls_oh_{tag}")   # a head's class, one-hot (GO's test is an AND-OR)
                m.d.comb += hk.eq(Mux(bound, 0, (Const(1, K) << cls[:kb])[:K]))
                # the kind of the flit this request takes: the view's flit k, k the number of its VC's undecided
                # requests GO grants (GO counts them, §R11.2)
                ts = [Signal(name=f"ri_tail{k + 1}_{tag}") for k in range(nu)]
                m.d.comb += [t.eq(x[0] & ~x[1]) for t, x in zip(ts, kv)]
                per_v.append({"o": o_req, "head": ~bound, "single": tl[0], "cls": cls[:kb], "hk": hk,
                              "ovc": ovc, "e1": e1, "e2": e2, "t1": ts[0], "t2": ts[1], "t3": ts[2], **commit,
                              **({"e3": e3, "t4": ts[3]} if staged else {}),
                              **({"e4": es[3], "e5": es[4], "t5": ts[4], "t6": ts[5]} if relay else {}),
                              **({"sec": second} if twohead else {})})
                if seq:
                    per_v[-1].update(self._hr_seq_candidates(m, rc, f, bound, act_o[p][v], act_ov[p][v], rvalid,
                                                             new_ok, hops_out, eject_tab, commit_lay, tag))
            sel = InputSelect(V, S)
            m.submodules[f"ri_sel_ip_{p}"] = sel
            m.d.comb += sel.elig.eq(elig)
            if seq:   # the selected lanes go to the sequential allocator (below), which registers them
                seq_lanes.append([{k: mux_onehot(sel.pick[s], [x[k] for x in per_v])
                                   for k in SEQ_LANE_FIELDS + more + (("sec",) if twohead else ())}
                                  | {"pick": sel.pick[s]} for s in range(S)])
                continue
            picked = []
            for s in range(S):
                pk = sel.pick[s]
                picked.append(pk)
                r = rqn[p][s]
                m.d.comb += [r["valid"].eq(pk.any()), r["v"].eq(onehot_index(pk, V)), r["voh"].eq(pk)]
                m.d.comb += r["ooh"].eq(mux_onehot(pk, [(Const(1, P) << x["o"])[:P] for x in per_v]))
                for k in ("o", "head", "single", "cls", "hk", "ovc", "e1", "e2", "t1", "t2", "t3") + more + \
                        (("sec",) if twohead else ()):
                    m.d.comb += r[k].eq(mux_onehot(pk, [x[k] for x in per_v]))
                if adaptive:
                    m.d.comb += r["commit"].eq(mux_onehot(pk, [x["commit"].as_value() for x in per_v]))
            if local and not staged:
                picked = [Mux(keep[p][s], x, 0) for s, x in enumerate(picked)]
            m.d.sync += pending[p].eq(or_all(picked))

        if seq:
            self._hr_seq_chain(m, seq_lanes, rqn, pending, ri_q_o, commit_lay, [] if staged else keep)
        for p in range(P if twohead else 0):   # §R11.9: RI's second heads, and where their flits are
            asked2 = or_all([Mux(rqn[p][s]["valid"] & rqn[p][s]["sec"], rqn[p][s]["voh"], 0) for s in range(S)])
            m.d.sync += [pend_sec[0][p].eq(asked2), sec_in1[p].eq(asked2 | (sec_in1[p] & ~in_pop[p] & ~in_pop1[p]))]
        go_fields = GO_FIELDS + more
        # LO (§R11.6): at the end of RI's cycle on its next requests, or (staged, §R11.7) in the next cycle on the
        # request register
        seq_mask = None
        if line and local:
            # §R11.6 under the decision line: LO ranks by the service order of the RI whose lanes it reads, a
            # thermometer mask (bit p: input p is at or after ptr_seq) one input on every cycle: RI's own at the
            # end of RI's cycle, the cycle before's in LO's own cycle (staged)
            seq_mask = service_mask(m, P, behind=2 if relay else int(staged), name="lo_seq_mask")
        # hiradix-relay (§R11.10): LO reads the request relay, a copy of the request register beside it
        lo_in = rq if staged else rqn
        if relay:
            lo_in = [[{k: older(rq[p][s][k], f"{name_of(rq[p][s][k])}_lo") for k in ("ooh",) + go_fields}
                      for s in range(S)] for p in range(P)]
        cand = self._hr_local(m, lo_in, keep, go_fields, seq_mask) if local else None
        if relay:   # and GO the candidate relay, a copy of LO's candidates beside their output
            cand = [[[{k: older(x, f"{name_of(x)}_at_go") for k, x in c.items()} for c in per_o] for per_o in per_g]
                    for per_g in cand]
        drop_next = [Signal(n, name=f"chain_drop_op_{o}_lane") for o in range(P)] if line_drop else []
        if self._line is not None:   # §R11.2a: the decision line decides on RI's copy of its cycle
            m.d.comb += [self._line.q_op[o].eq(ri_q_o.get(o, 0)) for o in range(P)]
        if decoupled:   # LO's verdict, registered beside the group (§R11.8)
            keep_reg = [[Signal(name=f"lo_keep_{lane_sfx(p, s)}_reg") for s in range(S)] for p in range(P)]
            m.d.sync += [keep_reg[p][s].eq(keep[p][s]) for p in range(P) for s in range(S)]
        for p in range(P):
            if relay:   # u(v): the requests of two and three cycles ago all, of four and five those LO kept (§R11.10)
                rl_rq = rq_wait[1]

                def lanes_of(ok, rr, key="voh"):
                    return or_all([Mux(ok(s), rr[p][s][key], 0) for s in range(S)])

                nxt = [lanes_of(lambda s: rq[p][s]["valid"], rq), lanes_of(lambda s: lo_rq[p][s]["valid"], lo_rq),
                       lanes_of(lambda s: keep_reg[p][s], rl_rq),
                       pending45[0][p]]   # LO's kept request of four cycles before, a cycle on
                m.d.sync += [x.eq(y) for x, y in zip([pending2[p], pending3[p]] + [k[p] for k in pending45], nxt)]
                nxt_sec = []
                if twohead:   # §R11.10: which of them are second heads' (§R11.11: none)
                    nxt_sec = [lanes_of(lambda s: rq[p][s]["valid"] & rq[p][s]["sec"], rq),
                               lanes_of(lambda s: lo_rq[p][s]["valid"] & lo_rq[p][s]["sec"], lo_rq),
                               lanes_of(lambda s: keep_reg[p][s] & rl_rq[p][s]["sec"], rl_rq), pend_sec[3][p]]
                    m.d.sync += [x[p].eq(y) for x, y in zip(pend_sec[1:], nxt_sec)]
                for v in range(V):
                    cnt = sum((x[v] for x in nxt[1:]), nxt[0][v])
                    m.d.sync += u_rest_oh[p][v].eq(Cat(*[cnt == k for k in range(5)]))
                if twohead:
                    m.d.sync += und_rest[p].eq(reduce(or_, [x & y for x, y in zip(nxt, nxt_sec)]))
            elif decoupled:   # u(v): the requests of two cycles ago all, of three those LO kept (§R11.8)
                m.d.sync += [pending2[p].eq(or_all([Mux(rq[p][s]["valid"], rq[p][s]["voh"], 0) for s in range(S)])),
                             pending3[p].eq(or_all([Mux(keep_reg[p][s], lo_rq[p][s]["voh"], 0) for s in range(S)]))]
                if twohead:
                    asked = [Mux(rq[p][s]["valid"] & rq[p][s]["sec"], rq[p][s]["voh"], 0) for s in range(S)]
                    kept = [Mux(keep_reg[p][s] & lo_rq[p][s]["sec"], lo_rq[p][s]["voh"], 0) for s in range(S)]
                    m.d.sync += [pend_sec[1][p].eq(or_all(asked)), pend_sec[2][p].eq(or_all(kept))]
            elif staged:   # u(v)'s requests of two and three cycles ago: those LO kept (§R11.7)
                m.d.sync += [pending2[p].eq(or_all([Mux(keep[p][s], rq[p][s]["voh"], 0) for s in range(S)])),
                             pending3[p].eq(pending2[p])]
            else:
                m.d.sync += pending2[p].eq(pending[p])

        # ------------------------------------------------ GO (§R11.3)
        # per group of outputs, the lanes as its GO reads them (its copy of GO's fields)
        lanes_go = [[{**rq[p][s], **(rq_go[g][p][s] if rq_go else {})} for p in range(P) for s in range(S)]
                    for g in range(n_go)]
        # the ejection queue's length (§R11.3): flits in it at the start of t and those this ST adds
        eject_len = {}
        oqs = self._hiradix_oqs
        for o in (o for o in range(P) if is_eject[o]):
            in_st = sum(valid for valid, _ in g_reg[o])
            if staged:   # and the flits in ST2 (§R11.7)
                in_st = in_st + sum(valid for valid, _ in g2_sel[o])
            cnt = Signal(range(V * B + (3 if staged else 2) * S + 2), name=f"eject_len_op_{o}")
            m.d.comb += cnt.eq((self.out_valid_op[o] if S == 1 else oqs[o].count) + in_st)
            eject_len[o] = cnt

        g_any = {}
        n_lanes = n
        for o in range(P):
            if local:   # §R11.6: the groups' candidates, group by group, each in slot order
                lanes = [c for per_g in cand for c in per_g[o]]
                n = len(lanes)
                ask = Signal(n, name=f"go_ask_op_{o}_cand")
                m.d.comb += ask.eq(Cat(*[r["valid"] for r in lanes]))
            else:
                lanes = lanes_go[o // GO_GROUP]
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
                    m.d.comb += hov.eq(mux_onehot(Cat(*[r["cls"] == k for k in range(K)]),
                                                   [aovc[(o, k)] for k in range(K)]))
                    lv = Signal(vw, name=f"go_ovc_op_{o}_lane_{i}")
                    m.d.comb += lv.eq(Mux(r["head"], hov, r["ovc"]))
                    lane_ovc.append(lv)
                # a body or tail: its output VC holds a credit in the view (§R11.3: RI asked with u(v) + 1 credits
                # in its copy, and every take since is one of those u(v) requests'; the counter asserts it)
                m.d.comb += ok[i].eq(Mux(r["head"], hd, 1))
            room = Const(1, 1)
            if is_eject[o]:
                room = eject_len[o] < V * B
            # one VC class and S = 1: the only term of the mask GO's last grant changes is the output's
            # availability (``avail``), the same for every head; the chain runs on both of its values (all
            # requests; bodies only) and the outcome is selected by it last (below)
            two = defer   # one VC class and S = 1
            if line_drop:   # §R11.2a: the chain beside GO admits the first S requests in service order
                chain = OutputChain(P, S)
                m.submodules[f"go_chain_op_{o}"] = chain
                m.d.comb += [chain.req.eq(ask), drop_next[o].eq(chain.drop)]
                ask = chain.admit
            elif line:   # §R11.6 under the decision line: the first S candidates in service order, by the place
                # each candidate's input kept in it (a group's candidates are in its order already)
                chain = OutputChain(n, S, lanes=1, mask_in=True)
                m.submodules[f"go_chain_op_{o}"] = chain
                admitted = Signal(n, name=f"go_admit_op_{o}_cand")
                m.d.comb += [chain.req.eq(ask), chain.ptr_mask.eq(Cat(*[r["from_ptr"] for r in lanes])),
                             admitted.eq(chain.admit)]
                ask = admitted
            if line and S == 1:
                # one admitted request, nothing left to order (ptr_out plays no part): granted if allowed
                req = Signal(n, name=f"go_req_op_{o}_lane")
                if two:
                    heads = Cat(*[r["head"] for r in lanes])
                    req_b = Signal(n, name=f"go_req_bodies_op_{o}_lane")
                    first = Signal(n, name=f"go_first_op_{o}_lane")
                    m.d.comb += [req.eq(Mux(room, ask, 0)), req_b.eq(req & ~heads),
                                 first.eq(Mux(avail[(o, 0)], req, req_b))]
                    arb = SimpleNamespace(first=first, first_hl=Cat(req, Const(0, n)),
                                          alt_first_hl=Cat(req_b, Const(0, n)))
                else:
                    m.d.comb += req.eq(Mux(room, ask & ok, 0))
                    arb = SimpleNamespace(first=req, first_hl=Cat(req, Const(0, n)))
            else:
                arb = OutputArbiter(len(cand) if local else P, S, frozen=self.fault == "out_arb_fixed", alt=two)
                m.submodules[f"go_arb_op_{o}"] = arb
                req = Signal(n, name=f"go_req_op_{o}_lane")
                if two:
                    heads = Cat(*[r["head"] for r in lanes])
                    m.d.comb += [req.eq(Mux(room, ask, 0)), arb.req.eq(req), arb.req_alt.eq(req & ~heads),
                                 arb.use_alt.eq(~avail[(o, 0)])]
                else:
                    m.d.comb += [req.eq(Mux(room, ask & ok, 0)), arb.req.eq(req)]
            first = arb.first
            # the first grant's VC, hold and take: what a second grant (S = 2) sees
            f_valid = Signal(name=f"go_first_valid_op_{o}")
            f_ovc = Signal(vw, name=f"go_first_ovc_op_{o}")
            f_hold = Signal(name=f"go_first_holds_op_{o}")
            m.d.comb += [f_valid.eq(first.any()), f_ovc.eq(mux_onehot(first, lane_ovc)),
                         f_hold.eq(mux_onehot(first, [r["head"] & ~r["single"] for r in lanes]))]
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
                        m.d.comb += ok2[i].eq(Mux(r["head"], hd2, 1))
                        lv = Signal(vw, name=f"go_second_ovc_op_{o}_lane_{i}")
                        hov = mux_onehot(Cat(*[r["cls"] == k for k in range(K)]), [ov2[k] for k in range(K)]) \
                            if K > 1 else ov2[0]
                        m.d.comb += lv.eq(Mux(r["head"], hov, r["ovc"]))
                        lane_ovc2.append(lv)
                m.d.comb += arb.second_ok.eq(ok2)
                grants.append((arb.second, lane_ovc2))
            # registered: the grants (the switch select), the credits ST takes, the holds
            for j, (g, lov) in enumerate(grants):
                gv = g_reg[o][j][0]
                g_lane = g
                if local:   # the granted candidate's lane one-hot, in the lanes' order (the groups are contiguous)
                    g_lane = Signal(n_lanes, name=f"go_lane_oh_op_{o}" + ("" if S == 1 else f"_{j}"))
                    m.d.comb += g_lane.eq(Cat(*[or_all([Mux(g[q * S + k], cand[q][o][k]["lane_oh"], 0)
                                                        for k in range(S)]) for q in range(len(cand))]))
                m.d.sync += [gv.eq(g.any()), g_oh[o][j].eq(g_lane)]
                # the output VC is read for a granted head only (a body's is its binding's): with one class at
                # S = 1 it is the class's choice, registered without the grant in front of it
                m.d.sync += g_ovc[o][j].eq(aovc[(o, 0)] if S == 1 and K == 1 else mux_onehot(g, lov))
                if by_index:
                    m.d.sync += g_sel[o][j][1].eq(onehot_index(g_lane, n_lanes))
            # per output VC, from per-lane terms known before the grant (the lane's VC, a head that holds, a tail
            # that releases), each an AND-OR of the one-hot grant: no decoding after the arbiter
            for w in range(len(st_take[o])):
                on_w = [[Const(1, 1) if is_eject[o] else (x == w) for x in lov] for _, lov in grants]
                # does the flit a body lane's grant takes end its packet? From registers at this end: RI read
                # the kind of the view's first three flits (``t1..t3``) and whether its VC had a request in the
                # RI before (``e1``, decided by GO in the cycle before) and the one before that (``e2``); such a
                # request was for the output VC the packet holds, so GO granted it iff it granted this output VC
                # a flit then (``st_take``, ``st_take2``), and the grant takes flit e1·took1 + e2·took2
                took1, took2 = Signal(name=f"go_took1_op_{o}_ovc_{w}"), Signal(name=f"go_took2_op_{o}_ovc_{w}")
                m.d.comb += [took1.eq(st_take[o][w] != 0), took2.eq(st_take2[o][w] != 0)]
                m.d.sync += st_take2[o][w].eq(st_take[o][w])
                lane_tail = []
                if staged:   # three undecided requests (§R11.7): the grant takes flit e1·took1 + e2·took2 + e3·took3
                    # (relay, §R11.10: five, e1·took1 + .. + e5·took5)
                    tooks = [took1, took2]
                    for k in range(3, ne + 1):
                        tk = Signal(name=f"go_took{k}_op_{o}_ovc_{w}")
                        m.d.comb += tk.eq(st_takes[k - 1][o][w] != 0)
                        m.d.sync += st_takes[k - 1][o][w].eq(st_takes[k - 2][o][w])
                        tooks.append(tk)
                    for r in lanes:
                        nk = [r[f"e{k + 1}"] & x for k, x in enumerate(tooks)]
                        nk = sum(nk[1:], nk[0])
                        lane_tail.append(Cat(*[r[f"t{k}"] for k in range(1, ne + 2)]).bit_select(nk, 1))
                else:
                    for r in lanes:
                        k1, k2 = r["e1"] & took1, r["e2"] & took2
                        lane_tail.append(Mux(k1 & k2, r["t3"], Mux(k1 | k2, r["t2"], r["t1"])))
                if two:
                    # per outcome of the availability bit, the take, hold and release of this VC, each a
                    # reduction of the chain's one-hot halves over per-lane terms from registers; a head's VC
                    # (GO's choice among the class's idle VCs) enters after the reduction, the bit last
                    head_w = Const(1, 1)   # a head granted this output takes VC w
                    if not is_eject[o] and vpc > 1:
                        head_w = Signal(name=f"go_head_on_op_{o}_ovc_{w}")
                        m.d.comb += head_w.eq(aovc[(o, 0)] == w)
                    on_r = [Const(1, 1) if is_eject[o] else (r["ovc"] == w) for r in lanes]
                    hv = [r["head"] & (1 if vpc > 1 and not is_eject[o] else x) for r, x in zip(lanes, on_r)]
                    t_h, h_h, t_b, r_b = (Signal(n, name=f"go_{x}_op_{o}_ovc_{w}_lane")
                                          for x in ("head_take", "head_hold", "body_take", "body_release"))
                    m.d.comb += [t_h.eq(Cat(*hv)), h_h.eq(Cat(*[x & ~r["single"] for x, r in zip(hv, lanes)])),
                                 t_b.eq(Cat(*[~r["head"] & x for r, x in zip(lanes, on_r)])),
                                 r_b.eq(Cat(*[~r["head"] & x & t for r, x, t in zip(lanes, on_r, lane_tail)]))]

                    def red(hl, bits):
                        return (hl & Cat(bits, bits)).any()

                    hl_a, hl_b = arb.first_hl, arb.alt_first_hl   # all requests; bodies only
                    # registered; ST selects by ``go_use`` and applies (§R11.3 "Where GO's grants are applied")
                    d = go_red[o][w]
                    m.d.sync += [d["head_on"].eq(head_w), d["head_take"].eq(red(hl_a, t_h)),
                                 d["head_hold"].eq(red(hl_a, h_h)), d["body_take_a"].eq(red(hl_a, t_b)),
                                 d["body_release_a"].eq(red(hl_a, r_b)), d["body_take_b"].eq(red(hl_b, t_b)),
                                 d["body_release_b"].eq(red(hl_b, r_b))]
                    continue
                if S == 1:
                    # the take and the hold the VC has if that lane wins, selected by the chain's one-hot halves
                    # (``first_hl``): one AND-OR after the chain
                    t_lane = Signal(n, name=f"go_take_op_{o}_ovc_{w}_lane")
                    b_lane = Signal(n, name=f"go_busy_op_{o}_ovc_{w}_lane")
                    m.d.comb += [t_lane.eq(Cat(*on_w[0])),
                                 b_lane.eq(Cat(*[(e & r["head"] & ~r["single"]) | (busy[o][w] & ~(e & ~r["head"] & t))
                                                 for e, r, t in zip(on_w[0], lanes, lane_tail)]))]
                    hl = arb.first_hl
                    m.d.comb += go_take[o][w].eq((hl & Cat(t_lane, t_lane)).any())
                    m.d.sync += [st_take[o][w].eq(go_take[o][w]),
                                 busy[o][w].eq(Mux(req.any(), (hl & Cat(b_lane, b_lane)).any(), busy[o][w]))]
                    continue
                takes, hold_w, rel_w = [], [], []
                for j, (g, _) in enumerate(grants):
                    t_bits = Signal(n, name=f"go_take_op_{o}_{j}_ovc_{w}_lane")
                    h_bits = Signal(n, name=f"go_hold_op_{o}_{j}_ovc_{w}_lane")
                    r_bits = Signal(n, name=f"go_release_op_{o}_{j}_ovc_{w}_lane")
                    m.d.comb += [t_bits.eq(g & Cat(*on_w[j])),
                                 h_bits.eq(g & Cat(*[e & r["head"] & ~r["single"] for e, r in zip(on_w[j], lanes)])),
                                 r_bits.eq(g & Cat(*[e & ~r["head"] & t for e, r, t in zip(on_w[j], lanes, lane_tail)]))]
                    takes.append(t_bits.any())
                    hold_w.append(h_bits.any())
                    rel_w.append(r_bits.any())
                hold, rel = Cat(*hold_w).any(), Cat(*rel_w).any()
                m.d.comb += go_take[o][w].eq(sum(takes))
                m.d.sync += [st_take[o][w].eq(go_take[o][w]), busy[o][w].eq(hold | (busy[o][w] & ~rel))]
            g_any[o] = arb.first.any()
            if defer:
                m.d.sync += go_use[o].eq(avail[(o, 0)])
        n = n_lanes
        if line_drop:   # the chain's drops, back to the inputs through a register (§R11.2a)
            m.d.sync += [chain_drop[p][s].eq(Cat(*[drop_next[o][p * S + s] for o in range(P)]).any())
                         for p in range(P) for s in range(S)]

        # ------------------------------------------------ ST and IN (§R11.4)
        # per input lane, in ST: the request GO decided in the cycle before, its flit the view's front of its VC
        # (IN pops this cycle's earlier grants); whether it was granted, and the output VC given, gathered from
        # the outputs' grant registers and registered at the input: IN's pop and the bindings of the next cycle
        lane_flits = []
        granted_lane = []

        def ge_at(j, o, w):
            """The counter's registered ``count >= j`` bit of output VC ``(o, w)``: ``o`` a register at the
            input, ``w`` selected last (GO's VC choice, when the class has more than one)."""
            by_w = [cge[j].bit_select(Cat(Const(x, vw), o), 1) for x in range(1 << vw)]
            return Cat(*by_w).bit_select(w, 1) if vw else by_w[0]

        for p in range(P):
            iu = ius[p]
            m.d.comb += iu.pop_ivc.eq(in_pop[p])
            pop_next = Signal(V, name=f"st_pop_next_ip_{p}")   # the pops ST applies in this cycle (IN's next)
            pop1_next = Signal(V, name=f"st_pop1_next_ip_{p}") if twohead else None   # of those, the second flits
            if twohead:
                m.d.comb += iu.pop1_ivc.eq(in_pop1[p])
            for v in range(V):
                # RI's copy for the binding kept: the view's ``>= k`` bits of its output VC, whose only take in this
                # cycle is the VC's own pop (with GO's grants applied at ST; else the counter took at GO's edge)
                ge_j = [ge_at(j, act_o[p][v], act_ov[p][v][:vw]) for j in range(1, n_ge + 1)]
                m.d.sync += [x.eq(Mux(pop_next[v], ge_j[k + 1], ge_j[k]) if defer else ge_j[k])
                             for k, x in enumerate(bound_ok[p][v])]
            pops, pops1 = [], []
            for s in range(S):
                i = p * S + s
                r, t = rq[p][s], st[p][s]
                for w in rq_wait:   # RI's request, a cycle beside LO (relay: and RL2's and GO's), then ST's
                    m.d.sync += [x.eq(r[k]) for k, x in w[p][s].items()]
                    r = w[p][s]
                m.d.sync += [t[k].eq(r[k]) for k in ST_FIELDS if k in t]
                # the lane's buffer entry: its VC's front in the view (flit and side-band); a second head's (§R11.9)
                # is front1 while the front it asked behind is there (it may leave at this IN), else front0
                in1 = [in_pop_st[p][v] | (t["sec"] & sec_in1[p][v]) if twohead else in_pop_st[p][v] for v in range(V)]
                ents = [Mux(in1[v], iu.front1_ivc[v], iu.front0_ivc[v]) for v in range(V)]
                eb = iu.entry_bits
                ent = Signal(eb, name=f"st_entry_{lane_sfx(p, s)}")
                m.d.comb += ent.eq(ents[0])
                if V > 1:
                    m.d.comb += ent.eq(Cat(*ents).word_select(t["v"], eb) if V == 1 << vw else
                                       mux_onehot(t["voh"], ents))
                fl = Signal(lay, name=f"st_flit_{lane_sfx(p, s)}")
                m.d.comb += [fl.eq(ent[:fw]), fl.vc.eq(t["ovc"])]
                with m.If(t["head"]):
                    if adaptive:   # the decision RI made
                        m.d.comb += [fl[k].eq(t["commit"][k]) for k in fields]
                    else:   # the stored lookahead's hops (a head is requested with u(v) = 0: RI's front is ST's)
                        hops = data.View(side_lay, ent[fw:]).hops_out
                        if self.fault == "eject_hops":
                            hops = self._hops_out(m, Const(0, 1), data.View(lay, ent[:fw]).hops,
                                                  f"fault_{lane_sfx(p, s)}")
                        m.d.comb += fl.hops.eq(hops)
                if staged:   # ST1 reads the flit into the lane register; ST2's crossbar reads that (§R11.7)
                    fl2 = Signal(lay, name=f"st2_flit_{lane_sfx(p, s)}")
                    m.d.sync += fl2.eq(fl)
                    lane_flits.append(fl2)
                else:
                    lane_flits.append(fl)
                by = Signal(P * S, name=f"st_granted_by_{lane_sfx(p, s)}")   # per output and grant
                m.d.comb += by.eq(Cat(*[g_oh[o][j][i] for o in range(P) for j in range(S)]))
                granted = Signal(name=f"st_granted_{lane_sfx(p, s)}")
                m.d.comb += granted.eq(by.any())
                granted_lane.append(granted)
                if vpc == 1:   # known before the grant: RI stored it
                    ovc = t["ovc"]
                else:
                    ovc = Signal(vw, name=f"st_granted_ovc_{lane_sfx(p, s)}")
                    if S == 1:   # the output the lane asked, a register here, selects its grant's VC
                        m.d.comb += ovc.eq(Cat(*[g_ovc[o][0] for o in range(P)]).word_select(t["o"], vw))
                    else:
                        m.d.comb += ovc.eq(mux_onehot(by, [g_ovc[o][j] for o in range(P) for j in range(S)]))
                pops.append(Mux(granted, t["voh"], 0))
                if twohead:   # IN removes the second head's flit from behind the front, if the front stays
                    behind = Signal(name=f"st_pop_behind_{lane_sfx(p, s)}")
                    m.d.comb += behind.eq(t["sec"] & (t["voh"] & sec_in1[p] & ~in_pop[p]).any())
                    pops1.append(Mux(granted & behind, t["voh"], 0))
                # IN of the next cycle: the head binds, the tail (the lane's flit's own kind) unbinds
                ends = Signal(name=f"st_ends_{lane_sfx(p, s)}")
                m.d.comb += ends.eq(fl.tail & ~fl.head)
                for v in range(V):
                    with m.If(granted & t["voh"][v]):
                        with m.If(t["head"] & ~t["single"]):
                            m.d.sync += [active[p][v].eq(1), active_ri[p][v].eq(1), act_o[p][v].eq(t["o"]),
                                         act_ov[p][v].eq(ovc)]
                            # the new binding's: its head's pop is the output VC's take in this cycle
                            m.d.sync += [x.eq(ge_at(k + 1 + int(defer), t["o"], ovc)) for k, x in enumerate(bound_ok[p][v])]
                        with m.Elif(~t["head"] & ends):
                            m.d.sync += [active[p][v].eq(0), active_ri[p][v].eq(0)]
            m.d.comb += pop_next.eq(or_all(pops))
            front_next = pop_next   # the pops of the front (with twohead, not those behind it)
            if twohead:
                front_next = Signal(V, name=f"st_pop0_next_ip_{p}")
                m.d.comb += [pop1_next.eq(or_all(pops1)), front_next.eq(pop_next & ~pop1_next)]
            m.d.sync += [in_pop[p].eq(front_next), in_pop_ri[p].eq(front_next), in_pop_st[p].eq(front_next)]
            if twohead:
                m.d.sync += [in_pop1[p].eq(pop1_next), in_pop1_ri[p].eq(pop1_next)]
                if self.observe:   # credit_out is IN's pop a cycle late; this says which flit left
                    m.d.sync += self.obs_credit1_ip_ivc[p].eq(in_pop1[p])
        for o in range(P):
            for w, cc in enumerate([ej_credits[o]] if o in ej_credits else credits.get(o, [])):
                m.d.comb += cc.take.eq(st_take[o][w] if defer else go_take[o][w])
        outs = self._crossbar(m, lane_flits, g2_sel if staged else g_sel, "crossbar", select=self.crossbar_select)
        if vpc > 1:   # a head leaves on the output VC GO gave it (registered at the output)
            for o in range(P):
                for j, (go, fo) in enumerate(outs[o]):
                    f2 = Signal(lay, name=f"st_out_flit_op_{o}" + ("" if S == 1 else f"_{j}"))
                    m.d.comb += f2.eq(fo)
                    with m.If(fo.head):
                        m.d.comb += f2.vc.eq((g2_ovc if staged else g_ovc)[o][j])
                    outs[o][j] = (go, f2)
        self._drive_links(m, outs, oqs, m.d.sync)

        # co-simulation ports: the decisions commit at ST (the heads it applies)
        if self.observe:
            for p in range(P):
                for s in range(S):
                    i, t = p * S + s, st[p][s]
                    m.d.comb += [self.obs_dec_gnt_ip_lane[i].eq(granted_lane[i] & t["head"]),
                                 self.obs_dec_ivc_ip_lane[i].eq(t["v"]), self.obs_dec_op_ip_lane[i].eq(t["o"])]

    # ------------------------------------------------ LO: the local output arbiters (§R11.6)
    def _hr_local(self, m: Module, rqn, keep, go_fields=GO_FIELDS, seq_mask=None):
        """§R11.6's LO: per group of ``G`` inputs and output, an :class:`~radixnet.hdl.alloc.go.OutputArbiter` over
        the group's lanes ``rqn`` (RI's next requests at the end of its cycle; ``hiradix-staged``, §R11.7: the
        request register, in the next cycle), ranked by input from its pointer, then by lane, keeps the first
        ``S``; ``keep`` (per lane) says which lanes it kept. Under the decision line (``seq_mask``, the service
        order's thermometer mask) an :class:`~radixnet.hdl.alloc.chain.OutputChain` on the group's slice of the
        mask ranks them instead, and each candidate keeps its input's bit of the mask (``from_ptr``). Returns, per
        group, output and slot, the candidate register GO reads: ``valid``, the lane one-hot within the group
        (``lane_oh``) and ``go_fields`` of the kept request."""
        P, S, G = self.n_ports, self.speedup, self.group
        cand = []
        kept = {(p, s): [] for p in range(P) for s in range(S)}
        for q, p0 in enumerate(range(0, P, G)):
            ins = range(p0, min(P, p0 + G))
            lanes = [(p, s) for p in ins for s in range(S)]
            nl = len(lanes)
            per_o = []
            for o in range(P):
                req = Cat(*[rqn[p][s]["ooh"][o] for p, s in lanes])
                if seq_mask is not None:
                    arb = OutputChain(len(ins), S, mask_in=True)
                    m.submodules[f"lo_chain_grp_{q}_op_{o}"] = arb
                    m.d.comb += [arb.req.eq(req), arb.ptr_mask.eq(seq_mask[p0:p0 + len(ins)])]
                    gnts = list(arb.slot_admit)
                else:
                    arb = OutputArbiter(len(ins), S)
                    m.submodules[f"lo_arb_grp_{q}_op_{o}"] = arb
                    m.d.comb += arb.req.eq(req)
                    if S > 1:
                        m.d.comb += arb.second_ok.eq(Const((1 << nl) - 1, nl))
                    gnts = [arb.first, arb.second][:S]
                slots = []
                for k, g in enumerate(gnts):
                    sfx = f"grp_{q}_op_{o}" + ("" if S == 1 else f"_{k}")
                    c = {"valid": Signal(name=f"lo_valid_{sfx}"), "lane_oh": Signal(nl, name=f"lo_lane_oh_{sfx}")}
                    for f in go_fields:
                        x = rqn[lanes[0][0]][lanes[0][1]][f]
                        c[f] = Signal(x.shape(), name=f"lo_{f}_{sfx}")
                        m.d.sync += c[f].eq(mux_onehot(g, [rqn[p][s][f] for p, s in lanes]))
                    m.d.sync += [c["valid"].eq(g.any()), c["lane_oh"].eq(g)]
                    if seq_mask is not None:   # the candidate's input is at or after the service pointer
                        c["from_ptr"] = Signal(name=f"lo_from_ptr_{sfx}")
                        m.d.sync += c["from_ptr"].eq((g & Cat(*[seq_mask[p] for p, _ in lanes])).any())
                    for i, ps in enumerate(lanes):
                        kept[ps].append(g[i])
                    slots.append(c)
                per_o.append(slots)
            cand.append(per_o)
        for (p, s), bits in kept.items():
            m.d.comb += keep[p][s].eq(or_all(bits))
        return cand

    # ------------------------------------------------ sequential RI (§R11.2)
    def _hr_seq_candidates(self, m: Module, rc, f, bound, act_o, act_ov, rvalid, new_ok, hops_out, eject_tab,
                           commit_lay, tag):
        """One input VC as a requester of the sequential allocator: candidate 0 and 1 (valid, output, hop
        weight), and per candidate the class, output VC (one VC per class) and header the head commits.

        A bound VC asks for its output VC's port (candidate 0 alone); a head at its source router
        (``ugal-s`` undecided, not ejecting) offers the minimal route (cost ``q·H(c,d)``) and the
        non-minimal one (``q·(H(c,b)+H(b,d)) + θ``); any other head its one decision.
        """
        P, K = self.n_ports, self.n_classes
        pw, vw, kb = ptr_width(P), ptr_width(self.n_vcs), ptr_width(K)
        src = Signal(name=f"seq_src_{tag}")
        m.d.comb += src.eq(~bound & rc.src)
        ok0, ok1 = Signal(name=f"seq_ok0_{tag}"), Signal(name=f"seq_ok1_{tag}")
        min_ok, nm_ok = rc.min_ok, rc.nm_ok
        if self.fault == "seq_stale_state":   # the planted bug: the choice made on the copy alone, not re-made
            min_ok, nm_ok = min_ok & rc.phase_out, nm_ok & ~rc.phase_out
        if self.seq_wavefront:   # §R11.2a: the line's preference (phase 1: non-minimal) if available, else the other
            pref_nm = f.phase
            min_ok, nm_ok = min_ok & (~nm_ok | ~pref_nm), nm_ok & (~min_ok | pref_nm)
        m.d.comb += [ok0.eq(bound | Mux(src, min_ok, rvalid & new_ok)), ok1.eq(src & nm_ok)]
        o0 = Signal(pw, name=f"seq_op0_{tag}")
        m.d.comb += o0.eq(Mux(bound, act_o, Mux(src, rc.min_port, rc.port)))
        h0 = Signal(len(rc.min_hops), name=f"seq_hops0_{tag}")
        m.d.comb += h0.eq(Mux(src, rc.min_hops, 0))
        cls0 = Signal(kb, name=f"seq_cls0_{tag}")
        m.d.comb += cls0.eq(Mux(src, 1, rc.cls[:kb]))
        cm0 = Signal(commit_lay, name=f"seq_commit0_{tag}")   # minimal, or the one decision
        cm1 = Signal(commit_lay, name=f"seq_commit1_{tag}")   # non-minimal: phase 0 toward b
        m.d.comb += [cm0.hops.eq(hops_out), cm0.phase.eq(Mux(src, 1, rc.phase_out)),
                     cm0.decided.eq(Mux(src, 1, rc.decided_out)), cm0.inter.eq(Mux(src, self.router_id, rc.inter_out)),
                     cm0.h1.eq(rc.h1_out),
                     cm1.hops.eq(hops_out), cm1.phase.eq(0), cm1.decided.eq(1), cm1.inter.eq(f.inter),
                     cm1.h1.eq(rc.h1_out)]
        ov0 = Signal(vw, name=f"seq_ovc0_{tag}")
        m.d.comb += ov0.eq(Mux(bound, act_ov, Mux(eject_tab.bit_select(o0, 1), 0, cls0)))
        return {"ok0": ok0, "ok1": ok1, "o0": o0, "o1": rc.nm_port, "h0": h0, "h1": rc.nm_hops, "cls0": cls0,
                "ov0": ov0, "cm0": cm0.as_value(), "cm1": cm1.as_value()}

    def _hr_seq_chain(self, m: Module, seq_lanes, rqn, pending, ri_q_o, commit_lay, keep):
        """§R11.2's chain: the selected lanes, served from input ``ptr_seq`` (every cycle one on) in lane
        order, through :class:`~radixnet.hdl.seq_alloc.SequentialAllocator` (``q0``: RI's copy of the
        queue lengths; ejection ports 0); a lane is registered iff the allocator grants it. Under the decision
        line (§R11.2a) every selected lane is registered with its one candidate (the preferred one if available,
        else the other): the chain runs beside GO (:class:`~radixnet.hdl.alloc.chain.OutputChain`)."""
        P, V, S, K = self.n_ports, self.n_vcs, self.speedup, self.n_classes
        n = P * S
        lanes = [x for per_in in seq_lanes for x in per_in]
        qb = (V * self.vc_depth).bit_length()
        hb = len(lanes[0]["h1"])
        wf = self.seq_wavefront
        if wf:
            gnt = [x["pick"].any() & (x["ok0"] | x["ok1"]) for x in lanes]
            ops = [Mux(x["ok1"], x["o1"], x["o0"]) for x in lanes]
        else:
            alloc = SequentialAllocator(n, P, 2, s=S, q_bits=qb, hop_bits=hb,
                                        bias_bits=max(1, self.threshold.bit_length()), impl=self.seq_impl)
            m.submodules["ri_seq_alloc"] = alloc
            ptr_seq = Signal(range(P), name="ptr_seq")   # the input served first; every cycle one on
            if P > 1:
                m.d.sync += ptr_seq.eq(next_ptr(m, ptr_seq, None, P, "ptr_seq_next"))
            m.d.comb += alloc.start.eq(ptr_seq * S)
            for o in range(P):
                m.d.comb += alloc.q_op[o].eq(ri_q_o.get(o, 0))
            for i, x in enumerate(lanes):
                m.d.comb += [alloc.valid_rq_cd[i].eq(Cat(x["ok0"], x["ok1"])),
                             alloc.op_rq_cd[i][0].eq(x["o0"]), alloc.op_rq_cd[i][1].eq(x["o1"]),
                             alloc.hops_rq_cd[i][0].eq(x["h0"]), alloc.hops_rq_cd[i][1].eq(x["h1"]),
                             alloc.bias_rq_cd[i][0].eq(0), alloc.bias_rq_cd[i][1].eq(self.threshold)]
            gnt = [alloc.gnt_rq[i] for i in range(n)]
            ops = [alloc.sel_op_rq[i] for i in range(n)]
        for p in range(P):
            granted = []
            for s in range(S):
                i, x, r = p * S + s, seq_lanes[p][s], rqn[p][s]
                g, nm = gnt[i], (x["ok1"] if wf else alloc.sel_rq[i][0])
                o = ops[i]
                cls = Mux(nm, 0, x["cls0"])
                m.d.comb += [r["valid"].eq(g), r["v"].eq(onehot_index(x["pick"], V)), r["voh"].eq(x["pick"]),
                             r["o"].eq(o), r["ooh"].eq(Mux(g, (Const(1, P) << o)[:P], 0)),
                             r["head"].eq(x["head"]), r["single"].eq(x["single"]), r["cls"].eq(cls),
                             r["hk"].eq(Mux(x["head"], (Const(1, K) << cls)[:K], 0)),
                             r["ovc"].eq(Mux(nm, 0, x["ov0"])),
                             r["commit"].eq(Mux(nm, x["cm1"], x["cm0"])),
                             r["e1"].eq(x["e1"]), r["e2"].eq(x["e2"]), r["t1"].eq(x["t1"]), r["t2"].eq(x["t2"]),
                             r["t3"].eq(x["t3"])]
                m.d.comb += [r[k].eq(x[k]) for k in STAGED_FIELDS + RELAY_FIELDS + ("sec",) if k in r]
                granted.append(Mux(g & keep[p][s] if keep else g, x["pick"], 0))
            m.d.sync += pending[p].eq(or_all(granted))
