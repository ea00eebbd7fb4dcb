"""The cycle kernel of the golden model: docs/router-spec.md §R2–§R10, compiled with numba.

All state is arrays indexed ``[router, port, vc]`` (plus the packet table);
one call advances every router by a chunk of cycles. The allocation loop is
inherently sequential in the sequential allocator (each grant changes the
state the next input sees, §R6), which is why this is a compiled kernel
rather than numpy.

The arrays travel in named groups (:class:`Params`, :class:`Topo`,
:class:`Routers`, :class:`Links`, :class:`Sources`, :class:`Packets`,
:class:`Scratch`), so a new piece of state is one field of one group.
Flits are encoded as ``pid * L + index`` (head: index 0, tail: index L-1).

Three router models share every routing decision (§R10, §R11): ``single-cycle``
allocates VC and switch together and traverses in the grant cycle
(:func:`_allocate` in mode COMBINED); ``iq`` runs VC allocation (mode VA) a
cycle before switch allocation (mode SA) and delays the flit by the traversal
stages in its output queue. The same separable and sequential allocators serve
every mode. ``hiradix`` (:func:`_hiradix`) splits the combined allocation into
a registered input stage (RI: :func:`_hr_ri`, :func:`_hr_chain`) and output
stage (GO: :func:`_hr_go`) whose grants switch traversal applies a cycle later
(ST: :func:`_hr_st`, with :func:`_grant`).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..gen.router_model import LINE_S
from ..gen.routing import CLOS_AD, MIN, MIN_AD, PRIO, TABLE, TCLOS, TUGAL_G, TUGAL_L, TVAL, UGAL
from .native import as_python, compiled

__all__ = ["run_cycles", "collect_ejected", "GATHER", "KEEPS_HEADER", "take_slots", "SLOT_FREE", "SLOT_TAKEN",
           "STATUS_OK", "STATUS_WATCHDOG", "Params", "Topo", "Routers", "Links", "Sources", "Packets", "Scratch",
           "NewPackets", "Ejected", "decide_reference", "enqueue", "mix32", "sink_ready", "stall_threshold"]

#: Scalars of a run: the routing (``algo``, ``sequential``, ``ncls`` VC classes of ``vpc`` VCs, ``thr``),
#: ``V`` VCs of ``B`` flits,
#: speedup ``S``, ``L`` flits per packet, link latency ``Tl``, credit latency ``Tc`` (§R10), VA stage
#: cycles ``dv`` (0: combined allocation), SA-grant-to-link cycles ``dst``, ``watchdog``, ``trace_on``; the
#: terminals' egress (§R3a): ``E`` FIFO flits and ejection credits (0: ideal terminals), the sinks' stall
#: threshold ``sthr`` (``floor(p_stall * 2**32)``) and hash seed ``sseed``; ``split``: the ``hiradix`` model
#: (§R11: RI | GO | ST, ``dst`` then counts the cycles from ST to the link); ``sub``: the ``subswitch`` model
#: (§R12: RI | row | SA | column | GO, ``dst`` the cycles from GO to the link) with ports in groups of ``G``;
#: ``wf``: ``hiradix`` with ``ugal-s`` deciding at the source in the decision line (§R11.2a), ``g`` positions
#: per serve stage of its wavefront (0: RI's own chain, §R11.2). Under ``split``, ``dv`` is the cycles from RI to GO:
#: 1, or 2 with LO in a cycle of its own between them (``hiradix-staged``, §R11.7; ``dst`` 2 then holds ST2);
#: ``ri_own``: RI's loop local to its input (§R11.8): RI counts a request LO dropped in u(v) a cycle longer (LO's
#: verdict reaches it a cycle late), and a head reads the output side of the view of two cycles before; ``heads``:
#: the heads of one input VC with undecided requests at once (§R11.9; 2: with single-flit packets the flit behind
#: the front, for another destination, while the front's request is undecided).
Params = namedtuple("Params", "algo sequential ncls vpc thr V B S L Tl Tc dv dst watchdog trace_on E sthr sseed "
                               "split sub G wf ri_own heads")
#: Topology and route tables (read only).
Topo = namedtuple("Topo", "coords port_to dims term_router eject_port out_term out_ch in_ch in_term ch_src "
                          "ch_src_port ch_dst ch_dst_port inj_router inj_port tbl port_lanes tdist tcls up_port "
                          "radix")
#: Router state: input VC buffers and their VC state (``in_ready``: first cycle SA may serve a VC that VA
#: allocated), credits, output VC holds, arbiter pointers (SA: ``ptr_in``/``ptr_out``; VA: ``ptr_va_in``/
#: ``ptr_va_out``; sequential: ``ptr_seq``) and output queues (``oqt``: the cycle a flit may take the link,
#: kept only when ``dst >= 1``), with the lists of the queues holding flits by the cycle their oldest flit may
#: take the link (a timing wheel: ``wheel[t % W, :n_wheel[t % W]]``, as ``r << 16 | o``, int64; ``W``, a power
#: of two above ``dst``: :func:`radixnet.golden.sim.wheel_slots`), so that a queue is listed only for the cycle
#: it sends in. Per router, two lists of its input VCs holding flits, which the separable allocator visits
#: instead of every VC: ``act[r, 0, :n_act[r, 0]]`` the heads awaiting a routing decision, ``act[r, 1,
#: :n_act[r, 1]]`` the VCs holding an output VC (``in_active``), as ``p << 8 | v``; ``act_pos[r, p, v]``: a
#: VC's place in its list. Flit numbers and cycles are int32 (:data:`radixnet.golden.sim.FLIT_MAX`).
#: ``hiradix`` (§R11): ``qadd[r, o]`` the requests a sequential RI made for output o in this cycle so far (added
#: to q(o), zero between RIs); the request register ``rq[r, :rq_n[r]]`` (RI's lanes of the last cycle, each
#: ``(p, v, o, ov, head, lane, phase, decided, inter, flit, second)``, see :data:`RQ_FIELDS`; ``flit``: a head's,
#: -1 for a bound VC's; ``second``: a second head's request, §R11.9) and the grant register ``gr[r, :gr_n[r]]``
#: (GO's grants of the last cycle, in grant order per output, each ``(o, p, v, ov, phase, decided, inter, flit)``),
#: the input side's register ``gi[r, :gi_n[r]]`` (the grants ST applied in the last cycle, whose IN is this cycle,
#: each ``(o, p, v, ov, flit)``) and ``rq2[r, :rq2_n[r]]`` (the requests RI made two cycles ago, ``(p, v,
#: second)``: with those of ``rq``, u(v)); other models keep them empty.
#: ``hiradix-staged`` (§R11.7): ``rqc[r, :rqc_n[r]]`` LO's candidates (the requests it kept in the last cycle, the
#: lane field its slot), which GO decides; ``rq`` holds every lane RI selected, and ``rq2`` the candidates GO decided
#: in the last cycle (with ``rq`` and ``rqc``, u(v)).
#: ``hiradix-relay`` (§R11.10): ``rqr[r, :rqr_n[r]]`` the request relay (the request register of the last cycle,
#: which LO decides) and ``rqcr[r, :rqcr_n[r]]`` the candidate relay (LO's candidates of the last cycle, the
#: dropped ones with ``o = -1``, which GO decides); ``rq2`` the candidates GO decided in the last cycle.
#: ``subswitch`` (§R12): per output of a sub-switch's column, the lane SA granted in this cycle (``sw_lane``,
#: -1: none).
#: ``ri_credit``, ``ri_busy`` (``hiradix``, §R11.1): RI's copy of the output side, ``credit`` and ``ovc_busy``
#: as they were in the view of the cycle before (other models: ``(1, 1, 1)``, unused); ``ri2_credit``, ``ri2_busy``
#: (``hiradix-decoupled``, §R11.8): the view of two cycles before, which a head reads.
#: ``subswitch`` (§R12; other models: arrays of one element): per router, input ``p``, column ``c`` and VC
#: ``v`` the row buffer ``sw_rb[r, p, c, v, :]`` (flits; with each its output ``sw_rbo`` and class ``sw_rbk``),
#: its head and count (``sw_rbh``, ``sw_rbn``), the input's credits for it (``sw_rbc``), the credit returned
#: to it in the last cycle and in this one (``sw_rbr``, ``sw_rbr2``) and the output VC its packet was given
#: (``sw_bind``); per output ``o`` and row ``g`` and output VC ``w`` the column buffer ``sw_cb[r, o, g, w, :]``
#: with ``sw_cbh``, ``sw_cbn``, the sub-switch's credits for it (``sw_cbc``, returns ``sw_cbr``, ``sw_cbr2``)
#: and whether a packet of that sub-switch holds it (``sw_lock``); the row register ``sw_row[r, p]`` (valid,
#: flit, column, VC, output, class) and the column register ``sw_col[r, o, g]`` (valid, flit, output VC: in
#: the RTL, the sub-switch's grant register and the row buffer's front); the pointers of SA's arbiters
#: ``sw_pout[r, o, g]`` (``hiradix-local``: LO's ``ptr_loc[g][o]``, §R11.6) and GO's ``sw_pgo[r, o]`` (RI's is ``ptr_in``); ``sw_n[r]`` the flits in the router's row and column registers and
#: buffers, ``sw_nret[r]`` its credit returns not yet counted.
#: The decision line (§R11.2a; other configurations: arrays of one element): per terminal the flits in its
#: injection port's line, ``wfl[s, c & (W - 1)]`` the flit (-1: none) that leaves the line at the end of cycle
#: ``c`` and ``wflv`` its VC, and per slot the terminals with a flit in it (``wfls[c & (W - 1), :wfln[...]]``);
#: per router and port the packet whose head entered the line at the end of the last cycle (``wfb``, -1: none;
#: ``wfb_n[r]`` of them), decided in this one; ``wf_lw[r]`` the line's length ``Lw``, ``wf_inj[r, :wf_ni[r]]``
#: the router's injection ports in port order and ``wf_ptr[r]`` the one its allocator serves first.
Routers = namedtuple("Routers", "buf bhead bcnt credit ovc_busy in_active in_o in_ov in_ready ptr_in ptr_out "
                                "ptr_va_in ptr_va_out ptr_seq oq oqv oqt oq_head oq_cnt wheel n_wheel "
                                "act n_act act_pos qadd rq rq_n gr gr_n gi gi_n rq2 rq2_n rqc rqc_n "
                                "rqr rqr_n rqcr rqcr_n ri_credit ri_busy "
                                "ri2_credit ri2_busy "
                                "sw_rb sw_rbo sw_rbk sw_rbh sw_rbn sw_rbc sw_rbr sw_rbr2 sw_bind sw_cb sw_cbh sw_cbn "
                                "sw_cbc sw_cbr sw_cbr2 sw_lock sw_row sw_col sw_pout sw_pgo sw_n sw_nret "
                                "wfl wflv wfls wfln wfb wfb_n wf_lw wf_inj wf_ni wf_ptr")
#: Channels in flight: flits (``Tl`` slots) and credits (``Tc`` slots), injection links, terminal credits;
#: with ``E >= 1`` (§R3a) the ejection links (``epipe``), the egress FIFOs (``efifo``, ``ef_head``,
#: ``ef_cnt``) and their credits on the way back (``ecpipe``, ``Tl`` slots). Per slot, the work lists of what
#: is in flight: the channels (``fly_ch[slot, :n_fly_ch[slot]]``) and terminals (``fly_term``) carrying a flit,
#: and the ``channel << 8 | vc`` (``cred_ch``) and ``terminal << 8 | vc`` (``cred_term``, both int64) carrying
#: credits.
Links = namedtuple("Links", "pipe_flit pipe_vc tpipe_flit tpipe_vc cpipe tcpipe tcredit epipe efifo ef_head ef_cnt "
                            "ecpipe fly_ch n_fly_ch fly_term n_fly_term cred_ch n_cred_ch cred_term n_cred_term")
#: Source queues: a linked list per terminal of the packets in the ring (``sq_count`` of them, the one being
#: injected included; the caller holds later ones back, see ``Simulator``), and packets linked per terminal;
#: ``next_vc``: the VC of each terminal's next packet; ``queued[:n_queued[0]]``: the terminals with a packet to
#: inject.
Sources = namedtuple("Sources", "sq_head sq_tail sq_flit sq_count pkt_next next_vc queued n_queued")
#: The packet table (``seq``: creation sequence number, :data:`SLOT_FREE` for a free slot and
#: :data:`SLOT_TAKEN` for one a call will create a packet in, :func:`take_slots`; ``inter0``: the header's
#: intermediate router at creation; a free slot's other fields are stale) and, when tracing, each packet's hops
#: (§R9).
Packets = namedtuple("Packets", "seq src dst created phase decided inter inter0 hops nhop injected vc "
                                "hop_router hop_port hop_vc hop_cycle hop_hdr hop_sent")
#: The packets a call puts into the ring, sorted by ``cycle``, the cycle each joins its source queue (its
#: creation cycle, or the call's first cycle for one created earlier and held back by the caller): their
#: ring ``slot``, sequence number ``seq``, ``created`` cycle, ``src``, ``dst`` and intermediate router
#: ``inter`` (drawn at creation, §R7).
NewPackets = namedtuple("NewPackets", "cycle slot seq created src dst inter")
#: The record of each packet whose tail a call ejects, in ejection order (``n[0]`` of them): the packet's
#: fields at ejection, ``minimal`` (its intermediate router is its source's or destination's) and its ring
#: ``slot`` (freed at ejection; its fields and hop arrays stay readable until the next call creates
#: packets). The kernel writes ``n``, ``ejected`` and ``slot``; :func:`collect_ejected` the rest after the call.
Ejected = namedtuple("Ejected", "n seq src dst created injected ejected hops inter0 minimal slot")
#: Per-router work arrays (the kernel runs without numba's runtime, so the caller allocates them). The
#: separable allocator lists the inputs with a request (``in_list``, ``nin[0]`` of them; only with ``V > S``),
#: the outputs requested (``out_list``, ``nout[0]``) and the inputs granted (``g_list``);
#: ``bucket[o, :bcount[o]]`` holds output o's requests in its round-robin order
#: (int64 keys); ``grants_o``/``grants_i``: the sequential allocator's grants per output and input this cycle;
#: ``last_j[p]``: input p's last VC granted this cycle, as its place in the input's round-robin
#: order. Between calls ``bcount`` and ``inl`` (input p is in ``in_list``) are all zero and ``req_o`` (VC (p,
#: v)'s requested output) and ``last_j`` are all -1. ``tcs[0]``: the current cycle's credit-pipe slot.
#: ``n_sa[0]`` (iq): how many VCs the router's SA list (``act[r, 1]``) held before this cycle's VA.
#: hiradix (§R11): ``req_hd[p, v]`` a request is a head's; ``hu[p, v]`` (all zero between calls) u(v), the VC's
#: requests whose verdict the view does not hold (in ``rq`` and ``rq2``), and ``hs[p, v]`` whether one of them is a
#: second head's (§R11.9); ``req_f[p, v]`` the flit a request names (a head's, -1 for a bound VC's) and ``req_s[p,
#: v]`` whether it is a second head's; ``sel[p, :nsel[p]]`` the VCs a sequential RI selected at input p
#: (under the decision line, :func:`_hr_line_chain`'s request at input p and lane k; -1 between uses).
Scratch = namedtuple("Scratch", "dec grants_o grants_i req_o req_v req_ph req_dc req_in last_j bucket bcount "
                                "in_list inl out_list nin nout g_list resv tcs n_sa req_hd hu sel nsel "
                                "sw_lane hs req_f req_s")

#: An undecided packet's ``phase`` under the decision line (§R11.2a): the line prefers the minimal route or the
#: non-minimal one (a decided packet's phase is 0 or 1, §R7).
PREFER_MIN = 2
PREFER_NM = 3

STATUS_OK = 0
STATUS_WATCHDOG = 1
#: ``Packets.seq`` of a free ring slot, and of one taken for a packet that a call creates
SLOT_FREE = -1
SLOT_TAKEN = -2


_M32 = 0xFFFFFFFF


@compiled(cache=True, inline="always", _nrt=False)
def mix32(x):
    """The ``lowbias32`` integer finalizer (router-spec §R3a) of ``x mod 2**32``: a 32-bit value."""
    x &= _M32
    x ^= x >> 16
    x = (x * 0x7FEB352D) & _M32
    x ^= x >> 15
    x = (x * 0x846CA68B) & _M32
    x ^= x >> 16
    return x


@compiled(cache=True, inline="always", _nrt=False)
def sink_ready(sseed, s, u, sthr):
    """§R3a: does terminal ``s``'s sink take a flit in cycle ``u``? ``h(seed, s, u) >= sthr``.

    ``sthr`` is :func:`stall_threshold` of the stall probability; 0 never stalls. The co-simulation's
    testbenches call the same function (``sink_ready.py_func``, on Python ints) to drive ``tready``.
    """
    return mix32(mix32(mix32(sseed) ^ (s & _M32)) ^ (u & _M32)) >= sthr


def stall_threshold(p_stall: float) -> int:
    """``floor(p_stall * 2**32)``: the §R3a hash threshold of a stall probability in ``[0, 1)``."""
    return int(float(p_stall) * 4294967296.0)


@compiled(cache=True, inline="always", _nrt=False)
def wrap(i, n):
    """``i % n`` for ``0 <= i < 2n``, without a division: ring indices and round-robin pointers advance by
    less than their modulus, and an integer division costs tens of cycles on every flit's path."""
    return i - n if i >= n else i


@compiled(cache=True, inline="always", _nrt=False)
def rr_offset(i, ptr, n):
    """``(i - ptr) % n`` for ``0 <= i, ptr < n``: the place of ``i`` in a round-robin order starting at ``ptr``."""
    d = i - ptr
    return d + (d < 0) * n


@compiled(cache=True, inline="always", _nrt=False)
def packet_of(flit, L):
    """The packet of flit number ``flit`` (``flit // L``; no division for single-flit packets)."""
    return flit if L == 1 else flit // L


@compiled(cache=True, inline="always", _nrt=False)
def _no_credit(r, o, ov, prm, tp, rs):
    """Output VC (o, ov) of router r has no credit: a network VC, or with ``E >= 1`` the ejection port's (§R3a)."""
    return (tp.out_term[r, o] < 0 or prm.E > 0) and rs.credit[r, o, ov] <= 0


@compiled(cache=True, inline="always", _nrt=False)
def _eject_blocked(r, o, prm, tp, rs):
    """A head may not take ejection port ``o``: a packet holds its implicit VC (§R5), or it has no credit (§R3a)."""
    return rs.ovc_busy[r, o, 0] != 0 or (prm.E > 0 and rs.credit[r, o, 0] <= 0)


@compiled(cache=True, inline="always", _nrt=False)
def hop_count(coords, a, b):
    """Minimal hops between routers ``a`` and ``b`` of a flattened butterfly/HyperX: the dimensions where their
    coordinates differ (Kim et al. §3, the H of UGAL's comparison)."""
    h = 0
    for d in range(coords.shape[1]):
        if coords[a, d] != coords[b, d]:
            h += 1
    return h


@compiled(cache=True, inline="always", _nrt=False)
def dor_output(coords, port_to, r, target):
    """Router ``r``'s output toward router ``target`` in dimension order: the port to ``target``'s coordinate in
    the lowest dimension where they differ; -1 at ``target`` itself."""
    for d in range(coords.shape[1]):
        if coords[r, d] != coords[target, d]:
            return port_to[r, d, coords[target, d]]
    return -1


@compiled(cache=True, inline="always", _nrt=False)
def queue_length(credit, out_term, r, o, B):
    """§R7 q(o): the flits router ``r`` sent on output ``o`` that the next router has not credited back (``B`` a
    VC's depth); 0 for an ejection port."""
    if out_term[r, o] >= 0:
        return 0
    q = 0
    for v in range(credit.shape[2]):
        q += B - credit[r, o, v]
    return q


@compiled(cache=True, inline="always", _nrt=False)
def _qlen(credit, qadd, out_term, r, o, B):
    """§R7 q(o) as the routing decisions read it: :func:`queue_length`, plus (``hiradix`` sequential RI, §R11.2)
    one flit per request that the lanes served earlier in this RI made for ``o`` (``qadd``, zero otherwise)."""
    if out_term[r, o] >= 0:
        return 0
    return queue_length(credit, out_term, r, o, B) + qadd[r, o]


@compiled(cache=True, inline="always", _nrt=False)
def best_ovc(credit, ovc_busy, out_term, r, o, c0, c1):
    """§R5: idle VC of the class with >= 1 credit and the most credits (ties: lowest)."""
    if out_term[r, o] >= 0:
        return 0
    best = -1
    bc = 0
    for v in range(c0, c1):
        if ovc_busy[r, o, v] == 0 and credit[r, o, v] > bc:
            bc = credit[r, o, v]
            best = v
    return best


@compiled(cache=True, inline="always", _nrt=False)
def _send_credit(pipe, events, n_events, k, cs, v):
    """One credit for VC ``v`` onto credit pipe ``pipe[k]`` (a channel's or a terminal's) in slot ``cs``;
    the first of its (k, v) in that slot joins the slot's work list ``events`` as ``k << 8 | v``."""
    if pipe[k, cs, v] == 0:
        events[cs, n_events[cs]] = (k << 8) | v   # VCs < 2**8 (LIMITS)
        n_events[cs] += 1
    pipe[k, cs, v] += 1


@compiled(cache=True, inline="always", _nrt=False)
def _arrive(fly, n_fly, pipe_flit, pipe_vc, dst_router, dst_port, slot, rs):
    """The flits of link slot ``slot`` (channels' or injection links', listed in ``fly[slot]``) join the
    input VCs at the far end (``dst_router``, ``dst_port``), and the slot's list empties (§R2.4)."""
    for i in range(n_fly[slot]):
        k = fly[slot, i]
        enqueue(rs, dst_router[k], dst_port[k], pipe_vc[k, slot], pipe_flit[k, slot])
        pipe_flit[k, slot] = -1
    n_fly[slot] = 0


@compiled(cache=True, _nrt=False)
def _line(t, lk, tp, rs, slot, L):
    """§R11.2a, at the end of cycle ``t``: the flits of injection-link slot ``slot`` enter their ports'
    decision lines, to leave them at the end of ``t + Lw`` (a head is listed in ``wfb``, decided in ``t + 1``),
    and the flits whose ``Lw`` cycles are over join their input VCs. True when a flit joined a VC."""
    W = rs.wfl.shape[1]
    for i in range(lk.n_fly_term[slot]):
        s = lk.fly_term[slot, i]
        r = tp.inj_router[s]
        flit = lk.tpipe_flit[s, slot]
        k = (t + rs.wf_lw[r]) & (W - 1)
        rs.wfl[s, k] = flit
        rs.wflv[s, k] = lk.tpipe_vc[s, slot]
        rs.wfls[k, rs.wfln[k]] = s
        rs.wfln[k] += 1
        lk.tpipe_flit[s, slot] = -1
        if flit % L == 0:
            rs.wfb[r, tp.inj_port[s]] = flit // L
            rs.wfb_n[r] += 1
    lk.n_fly_term[slot] = 0
    k = t & (W - 1)
    for i in range(rs.wfln[k]):
        s = rs.wfls[k, i]
        enqueue(rs, tp.inj_router[s], tp.inj_port[s], rs.wflv[s, k], rs.wfl[s, k])
        rs.wfl[s, k] = -1
    moved = rs.wfln[k] > 0
    rs.wfln[k] = 0
    return moved


@compiled(cache=True, inline="always", _nrt=False)
def _list_add(rs, r, k, p, v):
    """Input VC (r, p, v) joins its router's list ``k`` (0: awaiting a routing decision, 1: holding an
    output VC)."""
    n = rs.n_act[r, k]
    rs.act[r, k, n] = (p << 8) | v   # VCs < 2**8 (LIMITS)
    rs.act_pos[r, p, v] = n
    rs.n_act[r, k] = n + 1


@compiled(cache=True, inline="always", _nrt=False)
def _list_drop(rs, r, k, p, v):
    """Input VC (r, p, v) leaves its router's list ``k`` (the list's last VC takes its place)."""
    i = rs.act_pos[r, p, v]
    n = rs.n_act[r, k] - 1
    last = rs.act[r, k, n]
    rs.act[r, k, i] = last
    rs.act_pos[r, last >> 8, last & 0xFF] = i
    rs.n_act[r, k] = n


@compiled(cache=True, inline="always", _nrt=False)
def enqueue(rs, r, p, v, flit):
    """§R2.4: an arriving flit joins the tail of input VC (r, p, v) (the credit protocol guarantees space);
    a VC that was empty joins its router's list for its state (``in_active``)."""
    n = rs.bcnt[r, p, v]
    if n == 0:
        _list_add(rs, r, rs.in_active[r, p, v], p, v)
    rs.buf[r, p, v, wrap(rs.bhead[r, p, v] + n, rs.buf.shape[3])] = flit
    rs.bcnt[r, p, v] = n + 1


@compiled(cache=True, _nrt=False)
def _ugal_commit(prefer_min, o_min, v_min, o_nm, v_nm, r, b, dec):
    """§R7: the minimal choice if available and preferred (or the only one), else the non-minimal one.

    Writes (port, vc, phase, decided, inter) into ``dec``; False when neither candidate is available.
    ``prefer_min`` matters only when both are available.
    """
    if v_min >= 0 and (v_nm < 0 or prefer_min):
        dec[0] = o_min; dec[1] = v_min; dec[2] = 1; dec[3] = 1; dec[4] = r
        return True
    if v_nm >= 0:
        dec[0] = o_nm; dec[1] = v_nm; dec[2] = 0; dec[3] = 1; dec[4] = b
        return True
    return False


@compiled(cache=True, _nrt=False)
def _path_queue(credit, out_term, out_ch, ch_dst, tbl, r, target, B):
    """UGAL-G: the queue lengths of every channel on the table route from r to target, summed."""
    total = 0
    x = r
    while x != target:
        o = tbl[x, target]
        total += queue_length(credit, out_term, x, o, B)
        x = ch_dst[out_ch[x, o]]
    return total



@compiled(cache=True, _nrt=False)
def _decide_table_nonmin(r, pid, prm, tp, rs, pk, dt, dr, dec):
    """VAL / UGAL-L / UGAL-G on the route tables (router-spec §R7c); VC class = hops taken."""
    credit, ovc_busy, out_term, tbl, tdist, B = rs.credit, rs.ovc_busy, tp.out_term, tp.tbl, tp.tdist, prm.B
    algo, ncls = prm.algo, prm.ncls
    vpc = prm.vpc
    cls = pk.hops[pid]
    if cls >= ncls:
        cls = ncls - 1
    c0 = cls * vpc
    c1 = c0 + vpc
    phase = pk.phase[pid]
    inter = pk.inter[pid]
    if algo != TVAL and pk.decided[pid] == 0:
        if r == dr:
            dec[0] = tp.eject_port[dt]; dec[1] = 0; dec[2] = 1; dec[3] = 1; dec[4] = r
            return True
        o_min = tbl[r, dr]
        v_min = best_ovc(credit, ovc_busy, out_term, r, o_min, c0, c1)
        o_nm = -1
        v_nm = -1
        b = inter
        if b != r and b != dr:
            o_nm = tbl[r, b]
            v_nm = best_ovc(credit, ovc_busy, out_term, r, o_nm, c0, c1)
        prefer_min = False
        if v_min >= 0 and v_nm >= 0:
            Hm = tdist[r, dr]
            Hn = tdist[r, b] + tdist[b, dr]
            if algo == TUGAL_G:
                qm = _path_queue(credit, out_term, tp.out_ch, tp.ch_dst, tbl, r, dr, B)
                qn = _path_queue(credit, out_term, tp.out_ch, tp.ch_dst, tbl, r, b, B) \
                    + _path_queue(credit, out_term, tp.out_ch, tp.ch_dst, tbl, b, dr, B)
                prefer_min = qm + Hm <= qn + Hn + prm.thr  # global: queued flits plus hops along each route
            else:
                prefer_min = _qlen(credit, rs.qadd, out_term, r, o_min, B) * Hm \
                    <= _qlen(credit, rs.qadd, out_term, r, o_nm, B) * Hn + prm.thr
        return _ugal_commit(prefer_min, o_min, v_min, o_nm, v_nm, r, b, dec)
    if phase == 0 and r == inter:
        phase = 1
    if phase == 1 and r == dr:
        dec[0] = tp.eject_port[dt]; dec[1] = 0; dec[2] = phase; dec[3] = 1; dec[4] = inter
        return True
    target = inter if phase == 0 else dr
    o = tbl[r, target]
    ov = best_ovc(credit, ovc_busy, out_term, r, o, c0, c1)
    if ov < 0:
        return False
    dec[0] = o; dec[1] = ov; dec[2] = phase; dec[3] = 1; dec[4] = inter
    return True


@compiled(cache=True, inline="always", _nrt=False)
def _best_lane(credit, qadd, ovc_busy, out_term, port_lanes, r, d, m, c0, c1, B, lane_out, need_q=True):
    """Of the parallel lanes to digit m in dimension d, the one with an available VC and the shortest
    queue (ties: lowest lane). Writes (port, vc, q) into lane_out; returns False if none is available.
    ``need_q`` False: the caller reads no q, which is then computed only to compare parallel lanes."""
    found = False
    for ln in range(port_lanes.shape[3]):
        o = port_lanes[r, d, m, ln]
        if o < 0:
            continue
        ov = best_ovc(credit, ovc_busy, out_term, r, o, c0, c1)
        if ov < 0:
            continue
        q = _qlen(credit, qadd, out_term, r, o, B) if need_q or port_lanes.shape[3] > 1 else 0
        if not found or q < lane_out[2]:
            lane_out[0] = o; lane_out[1] = ov; lane_out[2] = q
            found = True
    return found


@compiled(cache=True, _nrt=False)
def _decide_2dfb(r, pid, p, dr, dt, prm, tp, rs, pk, dec):
    """2DFB priority-flag adaptive routing (Thamarakuzhi & Chandy, Algorithm 1; router-spec §R7b).

    ``pk.phase`` carries the priority flag h1. With h1 clear: minimal phase, the differing dimensions
    from the most significant down, never back toward the router the packet came from: the first
    direct link with queue <= Th; non-minimal phase, in the same dimension order, the other links of
    the dimension from s = k-2 down to 0: the first with queue <= Th is taken and h1 is set. With h1
    set, or when neither phase found a link: the direct link of the first differing dimension (not the
    way back), waiting for it while none of its lanes is available.
    """
    credit, ovc_busy, out_term, port_lanes, coords = rs.credit, rs.ovc_busy, tp.out_term, tp.port_lanes, tp.coords
    out_ch, ch_dst, B, Th = tp.out_ch, tp.ch_dst, prm.B, prm.thr
    dt_port = tp.eject_port[dt]
    if r == dr:
        dec[0] = dt_port; dec[1] = 0; dec[2] = 0; dec[3] = 1; dec[4] = r
        return True
    h1 = pk.phase[pid]
    ncls = prm.ncls
    vpc = prm.vpc
    cls = pk.hops[pid]
    if cls >= ncls:
        cls = ncls - 1
    c0 = cls * vpc
    c1 = c0 + vpc
    came = -1
    if tp.in_ch[r, p] >= 0:
        came = tp.ch_src[tp.in_ch[r, p]]
    D = coords.shape[1]
    forced = -1  # the first differing dimension whose direct link is not the way back
    for i in range(D - 1, -1, -1):
        if coords[r, i] == coords[dr, i]:
            continue
        m = coords[dr, i]
        if ch_dst[out_ch[r, port_lanes[r, i, m, 0]]] == came:
            continue  # the direct link leads back where the packet came from (Algorithm 1 lines 17-18, 41)
        if forced < 0:
            forced = i
        if h1 == 1:
            break  # the priority flag forces this direct link, whatever its queue (Algorithm 1 lines 16-22)
        if _best_lane(credit, rs.qadd, ovc_busy, out_term, port_lanes, r, i, m, c0, c1, B, dec) and dec[2] <= Th:
            dec[2] = 0; dec[3] = 1; dec[4] = r  # h1 cleared; decided; inter unused
            return True
    if h1 == 0:
        for i in range(D - 1, -1, -1):
            if coords[r, i] == coords[dr, i]:
                continue
            own = coords[r, i]
            for s in range(tp.dims[i] - 2, -1, -1):
                m = s if s < own else s + 1
                if not _best_lane(credit, rs.qadd, ovc_busy, out_term, port_lanes, r, i, m, c0, c1, B, dec):
                    continue
                if ch_dst[out_ch[r, dec[0]]] == came:
                    continue
                if dec[2] <= Th:
                    dec[2] = 1; dec[3] = 1; dec[4] = r  # non-minimal hop: set h1
                    return True
    # h1 set, or no link under the threshold: the direct link of the first differing dimension, waiting for
    # it while no lane is available (router-spec §R7b step 4). A packet never waits on a queue length, only
    # on a VC of the next class, and every non-minimal hop is followed by a minimal one that settles its
    # dimension for good: at most 2n hops with the hop-index class rising on each, so the channel
    # dependencies are acyclic (Algorithm 1's "no port selected" retry deadlocks a credit-based network:
    # every router can hold flits that wait for the next queue to fall under T_h)
    if forced < 0:
        return False
    if not _best_lane(credit, rs.qadd, ovc_busy, out_term, port_lanes, r, forced, coords[dr, forced], c0, c1, B, dec):
        return False
    dec[2] = 0; dec[3] = 1; dec[4] = r
    return True


@compiled(cache=True, _nrt=False)
def _decide_clos(r, dr, dt, prm, tp, rs, dec):
    """Adaptive routing on a folded Clos (router-spec §R7d ``clos-adaptive``; Thamarakuzhi & Chandy §IV,
    Kim, Dally, Abts SC06): while the destination is not below this router (its table hop goes up) the
    packet takes, of all up ports with an available VC, the one with the shortest queue q (§R7; ties:
    the lowest port); once it is, the single down path of the table. One VC class. The header does not
    change (``dec[2] = -1``, see :func:`_decide`).
    """
    credit, ovc_busy, out_term, up_port, V = rs.credit, rs.ovc_busy, tp.out_term, tp.up_port, prm.V
    if r == dr:
        dec[0] = tp.eject_port[dt]; dec[1] = 0; dec[2] = -1
        return True
    o = tp.tbl[r, dr]
    going_up = False
    for i in range(up_port.shape[1]):
        if up_port[r, i] == o:
            going_up = True
            break
    if not going_up:
        ov = best_ovc(credit, ovc_busy, out_term, r, o, 0, V)
        if ov < 0:
            return False
        dec[0] = o; dec[1] = ov; dec[2] = -1
        return True
    best_o = -1
    best_v = -1
    best_q = 0
    for i in range(up_port.shape[1]):
        u = up_port[r, i]
        if u < 0:
            break
        ov = best_ovc(credit, ovc_busy, out_term, r, u, 0, V)
        if ov < 0:
            continue
        q = _qlen(credit, rs.qadd, out_term, r, u, prm.B)
        if best_o < 0 or q < best_q:
            best_o = u; best_v = ov; best_q = q
    if best_o < 0:
        return False
    dec[0] = best_o; dec[1] = best_v; dec[2] = -1
    return True


#: the routings whose decisions never change a packet's header (:func:`_decide` returns ``dec[2] = -1``)
KEEPS_HEADER = (TABLE, TCLOS, MIN, MIN_AD)


@compiled(cache=True, inline="always", _nrt=False)
def _table_class(r, dr, pid, ncls, tp, pk):
    """The VC class of packet ``pid``'s next hop from router ``r`` toward router ``dr`` under a table routing:
    the class table's entry (``dor``, ``hdor``: a function of the two routers, §R7d), else the hops it has
    taken, capped at the last class (§R7a)."""
    cls = -1
    if tp.tcls.shape[0] > 1:
        cls = tp.tcls[r, dr]
    if cls < 0:
        cls = pk.hops[pid]
        if cls >= ncls:
            cls = ncls - 1
    return cls


@compiled(cache=True, inline="always", _nrt=False)
def _decide(r, p, pid, prm, tp, rs, pk, dec):
    """Route computation + output VC choice for the head flit of packet ``pid`` at input ``p`` of router
    ``r`` (§R5, §R7), on the state ``rs`` holds now.

    Writes (out_port, out_vc, phase, decided, inter) into ``dec``, or (out_port, out_vc, -1) when the header
    leaves as it came (the routings that never change it: table, Clos, MIN, MIN AD; the commit then neither
    reads nor writes it); returns False if no candidate is available.
    """
    algo, ncls, V, B, thr = prm.algo, prm.ncls, prm.V, prm.B, prm.thr
    credit, ovc_busy, out_term, coords, port_to = rs.credit, rs.ovc_busy, tp.out_term, tp.coords, tp.port_to
    dt = pk.dst[pid]
    dr = tp.term_router[dt]
    vpc = prm.vpc
    if algo == TABLE:
        # sp / dor / hdor / dest-tag: table next hop; VC class from the class table (dor, hdor: a function
        # of this router and the destination router, §R7d) or the hop index capped at the last class (§R7a)
        if r == dr:
            dec[0] = tp.eject_port[dt]; dec[1] = 0; dec[2] = -1
            return True
        o = tp.tbl[r, dr]
        cls = _table_class(r, dr, pid, ncls, tp, pk)
        ov = best_ovc(credit, ovc_busy, out_term, r, o, cls * vpc, (cls + 1) * vpc)
        if ov < 0:
            return False
        dec[0] = o; dec[1] = ov; dec[2] = -1
        return True
    if algo == TCLOS:
        return _decide_clos(r, dr, dt, prm, tp, rs, dec)
    if algo == TVAL or algo == TUGAL_L or algo == TUGAL_G:
        return _decide_table_nonmin(r, pid, prm, tp, rs, pk, dt, dr, dec)
    if algo == PRIO:
        return _decide_2dfb(r, pid, p, dr, dt, prm, tp, rs, pk, dec)
    port_lanes = tp.port_lanes
    if algo == MIN or algo == MIN_AD:
        if r == dr:
            dec[0] = tp.eject_port[dt]; dec[1] = 0; dec[2] = -1
            return True
        if algo == MIN:
            # dimension order; of parallel lanes (a dilated channel) the least loaded available one
            for d in range(coords.shape[1]):
                if coords[r, d] != coords[dr, d]:
                    if not _best_lane(credit, rs.qadd, ovc_busy, out_term, port_lanes, r, d, coords[dr, d], 0, V, B, dec,
                                      False):
                        return False
                    dec[2] = -1
                    return True
            return False
        H = hop_count(coords, r, dr)
        cls = coords.shape[1] - H
        best_o = -1
        best_v = -1
        best_q = 0
        for d in range(coords.shape[1]):
            if coords[r, d] != coords[dr, d]:
                if not _best_lane(credit, rs.qadd, ovc_busy, out_term, port_lanes, r, d, coords[dr, d], cls * vpc,
                                  (cls + 1) * vpc, B, dec):
                    continue
                o = dec[0]; ov = dec[1]; q = dec[2]
                if best_o < 0 or q < best_q:
                    best_o = o; best_v = ov; best_q = q
        if best_o < 0:
            return False
        dec[0] = best_o; dec[1] = best_v; dec[2] = -1
        return True
    # VAL / UGAL / CLOS AD: two classes by phase
    phase = pk.phase[pid]
    decided = pk.decided[pid]
    inter = pk.inter[pid]
    if (algo == UGAL or algo == CLOS_AD) and decided == 0:
        # source router decision (§R7)
        if r == dr:
            o = tp.eject_port[dt]
            dec[0] = o; dec[1] = 0; dec[2] = 1; dec[3] = 1; dec[4] = r
            return True
        Hm = hop_count(coords, r, dr)
        o_min = dor_output(coords, port_to, r, dr)
        v_min = best_ovc(credit, ovc_busy, out_term, r, o_min, vpc, 2 * vpc)
        o_nm = -1
        v_nm = -1
        Hn = 0
        b = -1
        if algo == UGAL:
            b = inter
            if b != r and b != dr:
                o_nm = dor_output(coords, port_to, r, b)
                Hn = hop_count(coords, r, b) + hop_count(coords, b, dr)
                v_nm = best_ovc(credit, ovc_busy, out_term, r, o_nm, 0, vpc)
        else:
            jmax = -1
            for d in range(coords.shape[1]):
                if coords[r, d] != coords[dr, d]:
                    jmax = d
            best_q = 0
            for d in range(jmax + 1):
                for m in range(tp.dims[d]):
                    o = port_to[r, d, m]
                    if o < 0 or o == o_min:
                        continue
                    ov = best_ovc(credit, ovc_busy, out_term, r, o, 0, vpc)
                    if ov < 0:
                        continue
                    q = _qlen(credit, rs.qadd, out_term, r, o, B)
                    if o_nm < 0 or q < best_q or (q == best_q and o < o_nm):
                        o_nm = o; v_nm = ov; best_q = q
            if o_nm >= 0:
                b = tp.ch_dst[tp.out_ch[r, o_nm]]
                Hn = 1 + hop_count(coords, b, dr)
        if prm.wf > 0:   # the decision line's preference (§R11.2a)
            prefer_min = v_min >= 0 and v_nm >= 0 and phase != PREFER_NM
        else:
            prefer_min = v_min >= 0 and v_nm >= 0 and \
                _qlen(credit, rs.qadd, out_term, r, o_min, B) * Hm <= _qlen(credit, rs.qadd, out_term, r, o_nm, B) * Hn + thr
        return _ugal_commit(prefer_min, o_min, v_min, o_nm, v_nm, r, b, dec)
    # VAL, or UGAL/CLOS AD after the decision: DOR to the intermediate in phase 0, then to the destination
    if phase == 0 and r == inter:
        phase = 1
    if phase == 1 and r == dr:
        o = tp.eject_port[dt]
        dec[0] = o; dec[1] = 0; dec[2] = phase; dec[3] = decided; dec[4] = inter
        return True
    target = inter if phase == 0 else dr
    o = dor_output(coords, port_to, r, target)
    ov = best_ovc(credit, ovc_busy, out_term, r, o, phase * vpc, (phase + 1) * vpc)
    if ov < 0:
        return False
    dec[0] = o; dec[1] = ov; dec[2] = phase; dec[3] = decided; dec[4] = inter
    return True


@compiled(cache=True, inline="always", _nrt=False)
def _grant(r, p, v, o, ov, nphase, ndecided, ninter, t, cs, prm, tp, rs, lk, pk):
    """§R2 switch traversal (single-cycle) or SA grant (§R10) of the front flit of input VC (r, p, v)
    to output (o, ov): the flit leaves its buffer, takes a credit of (o, ov), joins the output queue of
    ``o`` (sent on the link from cycle ``t + dst``), and a credit for its slot goes upstream. A head leaves
    with the header (``nphase``, ``ndecided``, ``ninter``); ``nphase < 0``: the one its packet holds (a VC
    that holds its output VC, so that its request reads no packet fields, or a routing that never changes
    the header, :func:`_decide`). ``cs``: the credit pipes' slot of cycle ``t`` (``t % Tc``). Both sides of the
    grant at once: :func:`_grant_in`, then :func:`_grant_out` (``hiradix`` applies them a cycle apart, §R11.4)."""
    flit = rs.buf[r, p, v, rs.bhead[r, p, v]]
    _grant_in(r, p, v, o, ov, cs, prm, tp, rs, lk)
    _grant_out(r, o, ov, flit, nphase, ndecided, ninter, t, prm, tp, rs, pk)


@compiled(cache=True, inline="always", _nrt=False)
def _grant_in(r, p, v, o, ov, cs, prm, tp, rs, lk):
    """The input side of a grant of input VC (r, p, v)'s front flit to (o, ov): the flit leaves its buffer, a
    head of a packet longer than a flit binds the VC to (o, ov), a tail unbinds it, and a credit for the slot
    goes upstream (``cs``: the credit pipes' slot of this cycle)."""
    L = prm.L
    buf, bhead, bcnt = rs.buf, rs.bhead, rs.bcnt
    Bd = buf.shape[3]
    flit = buf[r, p, v, bhead[r, p, v]]
    k0 = rs.in_active[r, p, v]   # the router list the VC is in (see the end)
    bcnt[r, p, v] -= 1
    # an emptied buffer restarts at slot 0 (so does an output queue): below saturation the queues then
    # stay in their first cache line instead of cycling through every slot
    bhead[r, p, v] = 0 if bcnt[r, p, v] == 0 else wrap(bhead[r, p, v] + 1, Bd)
    idx = flit - packet_of(flit, L) * L
    if idx == 0 and idx != L - 1:
        rs.in_active[r, p, v] = 1
        rs.in_o[r, p, v] = o
        rs.in_ov[r, p, v] = ov
    if idx == L - 1:
        # the tail releases its input VC's allocation (for L = 1 in the single-cycle model it was never set;
        # in the iq model VA set it, §R10)
        rs.in_active[r, p, v] = 0
    # the VC leaves its router's lists when emptied, and changes list when it took or released an output VC
    if bcnt[r, p, v] == 0:
        _list_drop(rs, r, k0, p, v)
    elif rs.in_active[r, p, v] != k0:
        _list_drop(rs, r, k0, p, v)
        _list_add(rs, r, 1 - k0, p, v)
    # credit back upstream for the freed input slot, usable there Tc cycles later (§R2, §R10)
    c_in = tp.in_ch[r, p]
    if c_in >= 0:
        _send_credit(lk.cpipe, lk.cred_ch, lk.n_cred_ch, c_in, cs, v)
    else:
        _send_credit(lk.tcpipe, lk.cred_term, lk.n_cred_term, tp.in_term[r, p], cs, v)


@compiled(cache=True, inline="always", _nrt=False)
def _grant_out(r, o, ov, flit, nphase, ndecided, ninter, t, prm, tp, rs, pk):
    """The output side of a grant of ``flit`` to (o, ov) in cycle ``t``: a head commits its header (``nphase``,
    ``ndecided``, ``ninter``; ``nphase < 0``: the one its packet holds), its ``hops`` grows at a network port,
    its hop is traced (§R9), and with ``L > 1`` it holds the output VC, which its tail releases; the flit takes
    a credit of (o, ov) and joins the output queue of ``o`` (sent on the link from cycle ``t + dst``)."""
    L = prm.L
    pid = packet_of(flit, L)
    idx = flit - pid * L
    eject = tp.out_term[r, o] >= 0
    if idx == 0:
        if nphase < 0:   # the header VA wrote (§R10), or one the routing keeps
            if prm.trace_on:   # read back only for the trace's hop record
                nphase = pk.phase[pid]
                ndecided = pk.decided[pid]
                ninter = pk.inter[pid]
        else:
            pk.phase[pid] = nphase
            pk.decided[pid] = ndecided
            pk.inter[pid] = ninter
        if not eject:
            pk.hops[pid] += 1
        if prm.trace_on:
            h = pk.nhop[pid]
            if h < pk.hop_router.shape[1]:
                pk.hop_router[pid, h] = r
                pk.hop_port[pid, h] = o
                pk.hop_vc[pid, h] = ov
                if not prm.sub:   # subswitch: the hop's cycle is its RI's, written there (§R12)
                    pk.hop_cycle[pid, h] = t
                pk.hop_hdr[pid, h] = nphase | (ndecided << 1) | (ninter << 2)  # the header it leaves with (§R9)
            pk.nhop[pid] += 1
        if idx != L - 1:
            rs.ovc_busy[r, o, ov] = 1  # an ejection port's implicit VC is held head to tail too (§R5)
    if idx == L - 1:
        rs.ovc_busy[r, o, ov] = 0   # the tail releases the output VC it held (L = 1: never set, §R10)
    if not eject or prm.E > 0:
        rs.credit[r, o, ov] -= 1
    Q = rs.oq.shape[2]
    if rs.oq_cnt[r, o] == 0:   # the queue joins the link stage's list of cycle t + dst
        w = (t + prm.dst) & (rs.wheel.shape[0] - 1)
        rs.wheel[w, rs.n_wheel[w]] = (r << 16) | o   # ports < 2**16
        rs.n_wheel[w] += 1
    slot = wrap(rs.oq_head[r, o] + rs.oq_cnt[r, o], Q)
    rs.oq[r, o, slot] = flit
    rs.oqv[r, o, slot] = ov
    if prm.dst > 0:   # with dst = 0 (single-cycle) a flit may take the link in its grant cycle
        rs.oqt[r, o, slot] = t + prm.dst
    rs.oq_cnt[r, o] += 1


# allocation modes (§R6, §R10)
COMBINED = 0  # single-cycle: VC and switch allocated together, the flit traverses in the grant cycle
VA = 1        # iq: VC allocation only (the head holds an output VC from now on)
SA = 2        # iq: switch allocation of VCs that VA allocated in an earlier cycle


@compiled(cache=True, inline="always", _nrt=False)
def _va_commit(r, p, v, o, ov, t, prm, tp, rs, pk, dec):
    """A VA grant (§R10): input VC (r, p, v) is bound to output VC (o, ov) until its tail's SA grant, SA may
    serve it from cycle ``t + dv``, and the routing decision in ``dec`` is committed to the packet's header
    (unless ``dec[2] < 0``: the header leaves as it came, :func:`_decide`).
    A multi-flit packet holds the output VC for that time (wormhole, §R5); a single-flit packet cannot
    interleave with another, so it holds none (as in the single-cycle model)."""
    _list_drop(rs, r, 0, p, v)   # a head in the buffer: from the router's list awaiting a decision ...
    _list_add(rs, r, 1, p, v)    # ... to the list holding an output VC
    rs.in_active[r, p, v] = 1
    rs.in_o[r, p, v] = o
    rs.in_ov[r, p, v] = ov
    rs.in_ready[r, p, v] = t + prm.dv
    if prm.L > 1:
        rs.ovc_busy[r, o, ov] = 1
    if dec[2] >= 0:
        pid = packet_of(rs.buf[r, p, v, rs.bhead[r, p, v]], prm.L)
        pk.phase[pid] = dec[2]
        pk.decided[pid] = dec[3]
        pk.inter[pid] = dec[4]


@compiled(cache=True, inline="always", _nrt=False)
def _alloc_sequential(r, t, mode, prm, tp, rs, lk, pk, sc):
    """The sequential allocator (§R6; in the iq model its VA stage, §R10): inputs in turn from ``ptr_seq``
    (advancing every cycle), each trying its VCs in round-robin order and each VC deciding on the state
    the earlier grants of this cycle left; a decision whose output already has ``S`` grants this cycle
    waits uncommitted. COMBINED grants the switch at once (the credit it takes raises q for the inputs
    after it); VA only allocates the output VC, and counts each grant as one more flit in the output's
    queue length for the inputs after it (Kim §3.1: "updates the queuing state before the next input
    makes its decision"). At most ``S`` grants per input. Returns True on any grant."""
    P, V, S, L = rs.buf.shape[1], prm.V, prm.S, prm.L
    ej_depth = V * prm.B
    out_term, dec, grants_o, grants_i = tp.out_term, sc.dec, sc.grants_o, sc.grants_i
    ptr_in = rs.ptr_va_in if mode == VA else rs.ptr_in
    for o in range(P):   # fresh grant counts
        grants_o[o] = 0
        grants_i[o] = 0
    moved = False
    nres = 0
    start = rs.ptr_seq[r]
    for i in range(P):
        p = wrap(start + i, P)
        vstart = ptr_in[r, p]
        for j in range(V):
            if grants_i[p] >= S:
                break
            v = wrap(vstart + j, V)
            if rs.bcnt[r, p, v] == 0:
                continue
            if rs.in_active[r, p, v]:
                if mode == VA:
                    continue  # holds its output VC already
                o = rs.in_o[r, p, v]
                ov = rs.in_ov[r, p, v]
                if grants_o[o] >= S or _no_credit(r, o, ov, prm, tp, rs) \
                        or (out_term[r, o] >= 0 and rs.oq_cnt[r, o] >= ej_depth):
                    continue
                _grant(r, p, v, o, ov, -1, 0, 0, t, sc.tcs[0], prm, tp, rs, lk, pk)   # the packet keeps its header
            else:
                pid = packet_of(rs.buf[r, p, v, rs.bhead[r, p, v]], L)
                if not _decide(r, p, pid, prm, tp, rs, pk, dec):
                    continue
                o = dec[0]
                if out_term[r, o] >= 0 and _eject_blocked(r, o, prm, tp, rs):
                    continue  # ejection port held by another packet (§R5) or out of credits (§R3a)
                if grants_o[o] >= S or (mode == COMBINED and out_term[r, o] >= 0 and rs.oq_cnt[r, o] >= ej_depth):
                    continue  # output full this cycle: wait, decision not committed
                if mode == VA:
                    _va_commit(r, p, v, o, dec[1], t, prm, tp, rs, pk, dec)
                    if out_term[r, o] < 0 or prm.E > 0:
                        rs.credit[r, o, dec[1]] -= 1  # q(o) + 1 for the later inputs (undone below)
                        sc.resv[nres] = (o << 8) | dec[1]   # VCs < 2**8 (LIMITS)
                        nres += 1
                else:
                    _grant(r, p, v, o, dec[1], dec[2], dec[3], dec[4], t, sc.tcs[0], prm, tp, rs, lk, pk)
            moved = True
            grants_o[o] += 1
            grants_i[p] += 1
            ptr_in[r, p] = wrap(v + 1, V)
    rs.ptr_seq[r] = wrap(start + 1, P)
    for i in range(nres):
        rs.credit[r, sc.resv[i] >> 8, sc.resv[i] & 0xFF] += 1
    return moved


@compiled(cache=True, inline="always", _nrt=False)
def _bucket_add(r, o, p, v, j, ptr_out, P, V, sc):
    """Step 2 of the separable allocator (§R6): input p's selected VC v (its place ``j`` in the input's
    round-robin order) joins output o's list, kept sorted by the output's round-robin order (rank of the input from
    ``ptr_out``, then ``j``); an output's first request lists it in ``sc.out_list`` (``sc.nout[0]`` of them)."""
    _bucket_insert(o, rr_offset(p, ptr_out[r, o], P), j, p, v, V, sc)


@compiled(cache=True, inline="always", _nrt=False)
def _bucket_insert(o, rank, j, p, v, V, sc):
    """Input p's VC v joins output o's list, kept sorted by ``rank``, then ``j`` (:func:`_bucket_add`;
    ``hiradix-local``'s GO ranks by group and slot, §R11.6); an output's first request lists it in
    ``sc.out_list``."""
    n = sc.bcount[o]
    if n == 0:
        sc.out_list[sc.nout[0]] = o
        sc.nout[0] += 1
    key = ((rank * V + j) << 32) | (p << 16) | v   # p, v < 2**16 (ports and VCs of a router)
    bucket = sc.bucket
    while n > 0 and bucket[o, n - 1] > key:
        bucket[o, n] = bucket[o, n - 1]
        n -= 1
    bucket[o, n] = key
    sc.bcount[o] += 1


@compiled(cache=True, inline="always", _nrt=False)
def _requests(r, t, mode, prm, tp, rs, pk, sc):
    """Step 1 of the separable allocator (§R6): fill ``sc.req_*`` with each input VC's request.

    COMBINED: a VC holding an output VC requests it if it has a credit; any other head decides on the
    start-of-cycle state. VA: only heads without an output VC decide. SA: only VCs that VA allocated at
    least ``dv`` cycles ago, if their output VC has a credit; SA visits only the first ``sc.n_sa[0]`` VCs of
    its list, those there before this cycle's VA (which appends the VCs it allocates). Only the VCs holding
    flits are visited, from the router's lists (``rs.act``: VA the heads awaiting a decision, SA the VCs
    holding an output VC, COMBINED both), in any order: a request depends on the start-of-cycle state
    alone, and steps 2-4 order the requests by the arbiters' pointers.

    With ``V <= S`` an input selects every VC that requests (step 2 selects up to ``S``), so each request
    joins its output's list at once (:func:`_bucket_add`); otherwise ``sc.req_o`` holds the requested output
    (-1 for every VC that does not request; step 2 restores that after reading it) and ``sc.in_list`` the
    inputs with a request. Returns True if any VC requests."""
    L = prm.L
    P, V = rs.buf.shape[1], prm.V
    direct = V <= prm.S
    ptr_in = rs.ptr_va_in if mode == VA else rs.ptr_in
    ptr_out = rs.ptr_va_out if mode == VA else rs.ptr_out
    out_term, dec = tp.out_term, sc.dec
    nin = 0
    sc.nout[0] = 0
    for k in range(1 if mode == SA else 0, 1 if mode == VA else 2):
        for i in range(sc.n_sa[0] if mode == SA else rs.n_act[r, k]):
            pv = rs.act[r, k, i]
            p = pv >> 8
            v = pv & 0xFF
            if k == 1:   # holds its output VC (in_active)
                if mode == SA and prm.dv > 1 and rs.in_ready[r, p, v] > t:
                    continue
                o = rs.in_o[r, p, v]
                ov = rs.in_ov[r, p, v]
                if _no_credit(r, o, ov, prm, tp, rs):
                    continue
                sc.req_v[p, v] = ov
                sc.req_ph[p, v] = -1   # a VC holding its output VC: the packet keeps its header (_grant)
            else:        # a head awaiting a routing decision
                pid = packet_of(rs.buf[r, p, v, rs.bhead[r, p, v]], L)
                if not _decide(r, p, pid, prm, tp, rs, pk, dec):
                    continue
                o = dec[0]
                if out_term[r, o] >= 0 and _eject_blocked(r, o, prm, tp, rs):
                    continue  # ejection port held by another packet (§R5) or out of credits (§R3a)
                sc.req_v[p, v] = dec[1]
                sc.req_ph[p, v] = dec[2]
                sc.req_dc[p, v] = dec[3]
                sc.req_in[p, v] = dec[4]
            if direct:
                _bucket_add(r, o, p, v, rr_offset(v, ptr_in[r, p], V), ptr_out, P, V, sc)
            else:
                sc.req_o[p, v] = o
                if not sc.inl[p]:   # the input's first request
                    sc.inl[p] = 1
                    sc.in_list[nin] = p
                    nin += 1
    sc.nin[0] = nin
    return sc.nout[0] > 0 or nin > 0


@compiled(cache=True, inline="always", _nrt=False)
def _arbitrate(r, t, mode, prm, tp, rs, lk, pk, sc):
    """Steps 2-4 of the separable input-first allocator over ``sc.req_*`` (§R6; the iq model's VA and SA,
    §R10): inputs select up to ``S`` requesting VCs round robin, outputs grant up to ``S`` round robin
    over inputs. COMBINED and SA grant the switch (:func:`_grant`); VA allocates the output VC, the
    output assigning each grant the idle VC of the requested class with the most credits as earlier
    grants of this cycle left them (for single-flit packets, which hold no output VC, the VC requested:
    nothing VA does changes a credit or a VC's state). Returns True on any grant."""
    P, V, S = rs.buf.shape[1], prm.V, prm.S
    ej_depth = V * prm.B
    vpc = prm.vpc
    out_term, last_j, bucket, bcount, in_list, out_list, g_list = \
        tp.out_term, sc.last_j, sc.bucket, sc.bcount, sc.in_list, sc.out_list, sc.g_list
    ptr_in = rs.ptr_va_in if mode == VA else rs.ptr_in
    ptr_out = rs.ptr_va_out if mode == VA else rs.ptr_out
    moved = False
    # 2. input arbitration (V <= S: done by _requests): up to S VCs per requesting input, round robin from
    # ptr_in; each selected VC joins its output's list (_bucket_add)
    for i in range(sc.nin[0]):
        p = in_list[i]
        sc.inl[p] = 0
        k = 0
        for j in range(V):
            v = wrap(ptr_in[r, p] + j, V)
            o = sc.req_o[p, v]
            sc.req_o[p, v] = -1
            if o >= 0 and k < S:
                k += 1
                _bucket_add(r, o, p, v, j, ptr_out, P, V, sc)
    # 3. output arbitration: each requested output grants up to S, round robin over inputs from ptr_out
    # (outputs share no state here, so the order they are served in does not matter); the inputs granted
    # are listed in g_list for step 4
    ng = 0
    for i in range(sc.nout[0]):
        o = out_list[i]
        n = bcount[o]
        bcount[o] = 0
        last_p = -1
        g = 0   # the output's grants
        for e in range(n):
            if g >= S:
                break
            p = (bucket[o, e] >> 16) & 0xFFFF
            v = bucket[o, e] & 0xFFFF
            ov = sc.req_v[p, v]
            if mode == VA:
                if prm.L > 1:
                    if out_term[r, o] < 0:
                        c0 = 0 if prm.ncls == 1 else (ov // vpc) * vpc
                        ov = best_ovc(rs.credit, rs.ovc_busy, out_term, r, o, c0, c0 + vpc)
                        if ov < 0:
                            continue  # every VC of the class went to earlier grants of this cycle
                    elif rs.ovc_busy[r, o, 0]:
                        continue  # the ejection port's implicit VC went to an earlier head
                sc.dec[2] = sc.req_ph[p, v]; sc.dec[3] = sc.req_dc[p, v]; sc.dec[4] = sc.req_in[p, v]
                _va_commit(r, p, v, o, ov, t, prm, tp, rs, pk, sc.dec)
            else:
                if out_term[r, o] < 0:
                    if rs.credit[r, o, ov] <= 0:
                        continue
                    if rs.in_active[r, p, v] == 0 and rs.ovc_busy[r, o, ov]:
                        continue
                elif rs.oq_cnt[r, o] >= ej_depth or (rs.in_active[r, p, v] == 0 and rs.ovc_busy[r, o, 0]) \
                        or _no_credit(r, o, 0, prm, tp, rs):
                    continue  # full ejection queue, its implicit VC taken by an earlier head, no credit (§R3a)
                _grant(r, p, v, o, ov, sc.req_ph[p, v], sc.req_dc[p, v], sc.req_in[p, v], t, sc.tcs[0], prm, tp,
                       rs, lk, pk)
            moved = True
            g += 1
            last_p = p
            j = rr_offset(v, ptr_in[r, p], V)   # the VC's place in the input's round-robin order
            if last_j[p] < 0:
                g_list[ng] = p
                ng += 1
            if j > last_j[p]:
                last_j[p] = j
        if last_p >= 0:
            ptr_out[r, o] = wrap(last_p + 1, P)
    # 4. input pointers: one past the last granted VC in the input's round-robin order
    for i in range(ng):
        p = g_list[i]
        ptr_in[r, p] = wrap(ptr_in[r, p] + last_j[p] + 1, V)
        last_j[p] = -1
    return moved


@compiled(cache=True, inline="always", _nrt=False)
def _allocate(r, t, mode, prm, tp, rs, lk, pk, sc):
    """One allocation stage of router ``r`` in cycle ``t``; True on any grant.

    A stage with no VC to serve (the router's lists, see :func:`_requests`) grants nothing; of its state
    only the sequential allocator's pointer changes, which advances every cycle."""
    n = sc.n_sa[0] if mode == SA else rs.n_act[r, 0] + (rs.n_act[r, 1] if mode == COMBINED else 0)
    seq = prm.sequential and mode != SA
    if n == 0:
        if seq:
            rs.ptr_seq[r] = wrap(rs.ptr_seq[r] + 1, rs.buf.shape[1])
        return False
    if seq:
        return _alloc_sequential(r, t, mode, prm, tp, rs, lk, pk, sc)
    if _requests(r, t, mode, prm, tp, rs, pk, sc):
        return _arbitrate(r, t, mode, prm, tp, rs, lk, pk, sc)
    return False


# ---- the hiradix model (§R11): RI | GO | ST, every stage reading registers only

#: the fields of a request register entry (``Routers.rq[r, i]``)
RQ_FIELDS = ("p", "v", "o", "ov", "head", "lane", "phase", "decided", "inter", "flit", "second")
#: the fields of a grant register entry (``Routers.gr[r, i]``)
GR_FIELDS = ("o", "p", "v", "ov", "phase", "decided", "inter", "flit")


@compiled(cache=True, inline="always", _nrt=False)
def _to_front(r, p, v, flit, rs):
    """§R11.9: ``flit``, the front of input VC (r, p, v) or the flit behind it, made the front (the two swap)."""
    h = rs.bhead[r, p, v]
    if rs.buf[r, p, v, h] != flit:
        h1 = wrap(h + 1, rs.buf.shape[3])
        rs.buf[r, p, v, h1] = rs.buf[r, p, v, h]
        rs.buf[r, p, v, h] = flit


@compiled(cache=True, _nrt=False)
def _hr_in(r, prm, tp, rs, lk, sc):
    """§R11.4 IN of router ``r``: the input side of the grants ST applied in the cycle before (``gi``), each by
    :func:`_grant_in` (the flit leaves its buffer, its slot's credit goes upstream, a head binds, a tail
    unbinds). True when a grant was applied."""
    gi = rs.gi
    n = rs.gi_n[r]
    for i in range(n):
        if prm.heads > 1:   # §R11.9: the flit the request named, the front or the one behind it
            _to_front(r, gi[r, i, 1], gi[r, i, 2], gi[r, i, 4], rs)
        _grant_in(r, gi[r, i, 1], gi[r, i, 2], gi[r, i, 0], gi[r, i, 3], sc.tcs[0], prm, tp, rs, lk)
    rs.gi_n[r] = 0
    return n > 0


@compiled(cache=True, _nrt=False)
def _hr_st(r, t, prm, tp, rs, pk):
    """§R11.4 ST of router ``r`` in cycle ``t``: the output side of the grants GO registered in ``t - 1``, in
    each output's grant order, by :func:`_grant_out`: the requested VC's front flit in the view (its buffer after
    this cycle's IN) commits its header, takes a credit and joins the output queue; a head holds the output VC
    and a tail releases it. The grants move on to ``gi`` (their IN is the next cycle). True when a grant was
    applied."""
    gr, gi = rs.gr, rs.gi
    n = rs.gr_n[r]
    for i in range(n):
        o, p, v, ov = gr[r, i, 0], gr[r, i, 1], gr[r, i, 2], gr[r, i, 3]
        # the flit the request named under §R11.9 (the front or the one behind it), else the view's front
        flit = gr[r, i, 7] if prm.heads > 1 and gr[r, i, 7] >= 0 else rs.buf[r, p, v, rs.bhead[r, p, v]]
        _grant_out(r, o, ov, flit, gr[r, i, 4], gr[r, i, 5], gr[r, i, 6], t, prm, tp, rs, pk)
        gi[r, i, 0] = o
        gi[r, i, 1] = p
        gi[r, i, 2] = v
        gi[r, i, 3] = ov
        gi[r, i, 4] = flit
    rs.gi_n[r] = n
    rs.gr_n[r] = 0
    return n > 0


@compiled(cache=True, _nrt=False)
def _hr_go(r, prm, tp, rs, sc, rq, nrq):
    """§R11.3 GO of router ``r``: the request register's requests, per output ranked by input from
    ``ptr_out[o]`` and by lane (``hiradix-local``, §R11.6: by group from ``ptr_out[o]`` and by slot), granted up to ``S`` per output on the view (the state after this cycle's ST)
    with the output's earlier grants of this cycle counted (a credit each, a hold for a head of a packet
    longer than a flit; counted in ``credit`` and ``ovc_busy`` while the output is served, then undone: GO
    changes no state, it registers). A head to a network port is given the idle VC of its class with the most
    credits. The grants go into the grant register, in grant order per output. ``rq[r, :nrq]``: the requests
    GO decides (``hiradix-staged``, §R11.7: LO's candidates). Under the decision line GO decides the admitted
    requests only: the flat model's chain drops the rest (:func:`_hr_line_chain`); the two-level models admit, per
    output, the first ``S`` candidates in the service order of the RI that made them (§R11.6), and the rest are
    refused."""
    P, V, S, L, G = rs.buf.shape[1], prm.V, prm.S, prm.L, prm.G
    Q = (P + G - 1) // G if G > 0 else P
    ej_depth = V * prm.B
    vpc = prm.vpc
    gr, out_term, credit, ovc_busy = rs.gr, tp.out_term, rs.credit, rs.ovc_busy
    bucket, bcount = sc.bucket, sc.bcount
    line_cand = prm.wf > 0 and prm.sequential and G > 0
    if prm.wf > 0 and prm.sequential and G == 0:
        _hr_line_chain(r, prm, rs, sc)
    start = wrap(rs.ptr_seq[r] + P - prm.dv, P)   # the service order of the RI that made the requests
    sc.nout[0] = 0
    for i in range(nrq):
        if rq[r, i, 2] < 0:
            continue   # dropped by the chain
        p = rq[r, i, 0]
        if line_cand:   # admitted: fewer than S candidates for the output before it in the service order
            ki = rr_offset(p, start, P) * S + rq[r, i, 5]
            c = 0
            for j in range(nrq):
                if j != i and rq[r, j, 2] == rq[r, i, 2] and rr_offset(rq[r, j, 0], start, P) * S + rq[r, j, 5] < ki:
                    c += 1
            if c >= S:
                continue   # not admitted: refused
        v = rq[r, i, 1]
        sc.req_v[p, v] = rq[r, i, 3]
        sc.req_hd[p, v] = rq[r, i, 4]
        sc.req_ph[p, v] = rq[r, i, 6]
        sc.req_dc[p, v] = rq[r, i, 7]
        sc.req_in[p, v] = rq[r, i, 8]
        sc.req_f[p, v] = rq[r, i, 9]
        if G > 0:   # hiradix-local (§R11.6): rank by group from ptr_out, then by LO's slot
            _bucket_insert(rq[r, i, 2], rr_offset(p // G, rs.ptr_out[r, rq[r, i, 2]], Q), rq[r, i, 5], p, v, V, sc)
        else:
            _bucket_add(r, rq[r, i, 2], p, v, rq[r, i, 5], rs.ptr_out, P, V, sc)   # rank by input, then lane
    ng = 0
    for i in range(sc.nout[0]):
        o = sc.out_list[i]
        n = bcount[o]
        bcount[o] = 0
        eject = out_term[r, o] >= 0
        takes = not eject or prm.E > 0   # the output VC has credits (network port, or E >= 1, §R3a)
        g0 = ng
        last_p = -1
        for e in range(n):
            if ng - g0 >= S:
                break
            p = (bucket[o, e] >> 16) & 0xFFFF
            v = bucket[o, e] & 0xFFFF
            ov = sc.req_v[p, v]
            hd = sc.req_hd[p, v]
            if eject:
                ov = 0
                if rs.oq_cnt[r, o] + (ng - g0) >= ej_depth:
                    continue   # the ejection queue (its flits after this cycle's ST, and earlier grants) is full
                if hd and ovc_busy[r, o, 0]:
                    continue   # a packet holds the port (or an earlier head of this cycle, L > 1)
            elif hd:
                ov = best_ovc(credit, ovc_busy, out_term, r, o, (ov // vpc) * vpc, (ov // vpc + 1) * vpc)
                if ov < 0:
                    continue   # no idle VC of the class with a credit left
            if takes:
                if credit[r, o, ov] <= 0:
                    continue
                credit[r, o, ov] -= 1   # counted for the later grants of this output (undone below)
            if hd and L > 1:
                ovc_busy[r, o, ov] = 1
            gr[r, ng, 0] = o
            gr[r, ng, 1] = p
            gr[r, ng, 2] = v
            gr[r, ng, 3] = ov
            gr[r, ng, 4] = sc.req_ph[p, v]
            gr[r, ng, 5] = sc.req_dc[p, v]
            gr[r, ng, 6] = sc.req_in[p, v]
            gr[r, ng, 7] = sc.req_f[p, v]
            ng += 1
            last_p = p
        if last_p >= 0:
            rs.ptr_out[r, o] = wrap(last_p // G + 1, Q) if G > 0 else wrap(last_p + 1, P)
        for k in range(g0, ng):   # GO changes no state: its grants take effect at ST
            ov = gr[r, k, 3]
            if takes:
                credit[r, o, ov] += 1
            if L > 1 and sc.req_hd[gr[r, k, 1], gr[r, k, 2]]:
                ovc_busy[r, o, ov] = 0
    rs.gr_n[r] = ng


@compiled(cache=True, inline="always", _nrt=False)
def _hr_line_chain(r, prm, rs, sc):
    """§R11.2a, the chain beside GO: per output, the request register's requests in the service order of the RI
    that made them (inputs from its ``ptr_seq``, one behind the pointer now, each input's lanes in order), the
    first ``S`` admitted and the rest dropped (``o`` set to -1: GO skips it, and the next RI does not count it in
    u(v))."""
    P, S = rs.buf.shape[1], prm.S
    rq, lane_at, grants_o = rs.rq, sc.sel, sc.grants_o
    n = rs.rq_n[r]
    for i in range(n):
        lane_at[rq[r, i, 0], rq[r, i, 5]] = i
        grants_o[rq[r, i, 2]] = 0
    start = wrap(rs.ptr_seq[r] + P - 1, P)
    for j in range(P):
        p = wrap(start + j, P)
        for k in range(S):
            i = lane_at[p, k]
            if i < 0:
                continue
            lane_at[p, k] = -1
            o = rq[r, i, 2]
            if grants_o[o] >= S:
                rq[r, i, 2] = -1
            else:
                grants_o[o] += 1


@compiled(cache=True, inline="always", _nrt=False)
def _hr_move(r, a, a_n, b, b_n):
    """Router ``r``'s requests ``a[r, :a_n[r]]`` copied into ``b`` (a relay register, §R11.10)."""
    for i in range(a_n[r]):
        for f in range(a.shape[2]):
            b[r, i, f] = a[r, i, f]
    b_n[r] = a_n[r]


@compiled(cache=True, inline="always", _nrt=False)
def _hr_keep_rq2(r, a, n, rs):
    """Router ``r``'s requests ``a[r, :n]`` that were kept (``o >= 0``) become ``rq2`` (``(p, v, second)``, counted in
    u(v) by the next RI, §R11.2); the dropped ones' verdict is known from now on (§R11.2a, §R11.8, §R11.10)."""
    n2 = 0
    for i in range(n):
        if a[r, i, 2] >= 0:
            rs.rq2[r, n2, 0] = a[r, i, 0]
            rs.rq2[r, n2, 1] = a[r, i, 1]
            rs.rq2[r, n2, 2] = a[r, i, 10]
            n2 += 1
    rs.rq2_n[r] = n2


@compiled(cache=True, inline="always", _nrt=False)
def _hr_age_requests(r, prm, rs, sc):
    """The request register's requests become the two-cycle-old ones (``rq2``, counted in u(v) by the next RI),
    except those the chain beside GO dropped (``o = -1``: their verdict is known from now on, §R11.2a).
    ``hiradix-staged`` (§R11.7): the candidates GO decided in this cycle become ``rq2``, and LO (:func:`_hr_local`)
    makes the next candidates of the request register. ``hiradix-relay`` (§R11.10): the candidate relay's kept
    requests become ``rq2``, LO's candidates the candidate relay, LO decides the request relay, and the request
    register becomes the request relay."""
    if prm.dv == 4:
        _hr_keep_rq2(r, rs.rqcr, rs.rqcr_n[r], rs)   # LO kept it (GO decided it in this cycle)
        _hr_move(r, rs.rqc, rs.rqc_n, rs.rqcr, rs.rqcr_n)
        rs.rqc_n[r] = _hr_local(r, prm, rs, sc, rs.rqr, rs.rqr_n[r], rs.rqc) if rs.rqr_n[r] > 0 else 0
        _hr_move(r, rs.rq, rs.rq_n, rs.rqr, rs.rqr_n)
        return
    if prm.dv == 2:
        _hr_keep_rq2(r, rs.rqc, rs.rqc_n[r], rs)   # hiradix-decoupled (§R11.8): LO's drop is known from now on
        rs.rqc_n[r] = _hr_local(r, prm, rs, sc, rs.rq, rs.rq_n[r], rs.rqc) if rs.rq_n[r] > 0 else 0
        return
    _hr_keep_rq2(r, rs.rq, rs.rq_n[r], rs)


@compiled(cache=True, inline="always", _nrt=False)
def _hr_u_add(r, a, n, sf, kept, sc):
    """u(v) (``hu``) counts router ``r``'s requests ``a[r, :n]`` (with ``kept``, only those LO kept: ``o >= 0``),
    and ``hs`` takes each one's second-head bit, field ``sf`` (§R11.2, §R11.9)."""
    for i in range(n):
        if kept and a[r, i, 2] < 0:
            continue
        sc.hu[a[r, i, 0], a[r, i, 1]] += 1
        sc.hs[a[r, i, 0], a[r, i, 1]] = a[r, i, sf]


@compiled(cache=True, inline="always", _nrt=False)
def _hr_u_clear(r, a, n, sc):
    """u(v) (``hu``) cleared for each of router ``r``'s requests ``a[r, :n]`` (all zero between calls)."""
    for i in range(n):
        sc.hu[a[r, i, 0], a[r, i, 1]] = 0


@compiled(cache=True, _nrt=False)
def _hr_ri(r, prm, tp, rs, pk, sc):
    """§R11.2 RI of router ``r`` on the view: each input VC's eligibility (with u(v), whether it has a request
    in the request register that GO decides in this cycle), up to ``S`` eligible VCs per input selected round
    robin from ``ptr_in[p]`` (which moves past the last one selected), registered as lanes ``0..S-1``. Sequential
    routings: the selected lanes are served in order (inputs from ``ptr_seq``, lanes in order), each head
    deciding again on the view with one more flit in ``q`` per earlier request of this RI at the output, and no
    output taking more than ``S`` requests (a lane that would is not registered: it waits)."""
    V, S, L = prm.V, prm.S, prm.L
    rq, rq2, out_term, dec = rs.rq, rs.rq2, tp.out_term, sc.dec
    n_old, n_old2 = rs.rq_n[r], rs.rq2_n[r]
    # u(v), and whether an undecided request is a second head's (the one, when u(v) = 1: §R11.9)
    _hr_u_add(r, rq, n_old, 10, False, sc)
    _hr_u_add(r, rq2, n_old2, 2, False, sc)   # rq2 is (p, v, second)
    n_c = rs.rqc_n[r] if prm.dv >= 2 else 0   # hiradix-staged: LO's kept requests of two cycles ago (§R11.7)
    _hr_u_add(r, rs.rqc, n_c, 10, False, sc)
    # hiradix-relay (§R11.10): the request relay (t - 2), and of the candidate relay (t - 4) the kept ones
    n_r, n_cr = (rs.rqr_n[r], rs.rqcr_n[r]) if prm.dv == 4 else (0, 0)
    _hr_u_add(r, rs.rqr, n_r, 10, False, sc)
    _hr_u_add(r, rs.rqcr, n_cr, 10, True, sc)
    nin = 0
    for k in range(2):
        for i in range(rs.n_act[r, k]):
            pv = rs.act[r, k, i]
            p = pv >> 8
            v = pv & 0xFF
            if k == 1:   # bound to an output VC (§R11.4)
                o = rs.in_o[r, p, v]
                ov = rs.in_ov[r, p, v]
                u = sc.hu[p, v]
                # a bound VC's credits: RI's copy, the view of t - 1 (§R11.1); under ri_own ``credit`` holds the
                # view of t - 2, which the heads read, and the copy is in ``ri_credit`` (§R11.8)
                bc = rs.ri_credit[r, o, ov] if prm.ri_own else rs.credit[r, o, ov]
                if u:
                    # the first u flits may be taken by the undecided requests: the next one, if none of them is
                    # a tail, a flit is behind them and the output VC holds u + 1 credits (none needed at an
                    # ejection port with E = 0)
                    if rs.bcnt[r, p, v] < u + 1:
                        continue
                    tail = False
                    for j in range(u):
                        flit = rs.buf[r, p, v, wrap(rs.bhead[r, p, v] + j, rs.buf.shape[3])]
                        if flit - packet_of(flit, L) * L == L - 1:
                            tail = True
                    if tail:
                        continue
                if (out_term[r, o] < 0 or prm.E > 0) and bc < u + 1:   # u + 1 credits (u = 0: _no_credit on the copy)
                    continue
                sc.req_v[p, v] = ov
                sc.req_hd[p, v] = 0
                sc.req_ph[p, v] = -1   # the packet keeps its header (_grant)
                sc.req_dc[p, v] = 0
                sc.req_in[p, v] = 0
                sc.req_f[p, v] = -1    # the front flit at ST, whichever it is then (§R11.2)
                sc.req_s[p, v] = 0
            else:        # a head: never requested while an earlier request of its VC is undecided, ...
                u = sc.hu[p, v]
                flit = rs.buf[r, p, v, rs.bhead[r, p, v]]
                sc.req_s[p, v] = 0
                if u:
                    # ... but under §R11.9, with single-flit packets, the flit behind the front when the one
                    # undecided request is a first head's (it names the front) and the two are for different
                    # destinations
                    if prm.heads < 2 or u > 1 or L > 1 or rs.bcnt[r, p, v] < 2 or sc.hs[p, v]:
                        continue
                    second = rs.buf[r, p, v, wrap(rs.bhead[r, p, v] + 1, rs.buf.shape[3])]
                    if pk.dst[second] == pk.dst[flit]:
                        continue
                    flit = second
                    sc.req_s[p, v] = 1
                pid = packet_of(flit, L)
                if not _decide(r, p, pid, prm, tp, rs, pk, dec):
                    continue
                o = dec[0]
                if out_term[r, o] >= 0 and _eject_blocked(r, o, prm, tp, rs):
                    continue  # ejection port held by another packet (§R5) or out of credits (§R3a)
                sc.req_v[p, v] = dec[1]
                sc.req_hd[p, v] = 1
                sc.req_ph[p, v] = dec[2]
                sc.req_dc[p, v] = dec[3]
                sc.req_in[p, v] = dec[4]
                sc.req_f[p, v] = flit
            sc.req_o[p, v] = o
            if not sc.inl[p]:
                sc.inl[p] = 1
                sc.in_list[nin] = p
                nin += 1
    _hr_u_clear(r, rq2, n_old2, sc)
    _hr_u_clear(r, rs.rqc, n_c, sc)
    _hr_u_clear(r, rs.rqr, n_r, sc)
    _hr_u_clear(r, rs.rqcr, n_cr, sc)
    _hr_u_clear(r, rq, n_old, sc)   # cleared; the last RI's requests are two cycles old at the next RI
    _hr_age_requests(r, prm, rs, sc)
    seq = prm.sequential and prm.wf == 0   # under the decision line the chain runs beside GO (§R11.2a)
    if prm.sequential and prm.wf > 0:
        rs.ptr_seq[r] = wrap(rs.ptr_seq[r] + 1, rs.buf.shape[1])
    n = 0
    for i in range(nin):
        p = sc.in_list[i]
        sc.inl[p] = 0
        k = 0
        last = -1
        for j in range(V):
            v = wrap(rs.ptr_in[r, p] + j, V)
            o = sc.req_o[p, v]
            sc.req_o[p, v] = -1
            if o < 0 or k >= S:
                continue
            if seq:
                sc.sel[p, k] = v
            else:
                rq[r, n, 0] = p
                rq[r, n, 1] = v
                rq[r, n, 2] = o
                rq[r, n, 3] = sc.req_v[p, v]
                rq[r, n, 4] = sc.req_hd[p, v]
                rq[r, n, 5] = k
                rq[r, n, 6] = sc.req_ph[p, v]
                rq[r, n, 7] = sc.req_dc[p, v]
                rq[r, n, 8] = sc.req_in[p, v]
                rq[r, n, 9] = sc.req_f[p, v]
                rq[r, n, 10] = sc.req_s[p, v]
                n += 1
            k += 1
            last = v
        if seq:
            sc.nsel[p] = k
        if last >= 0:
            rs.ptr_in[r, p] = wrap(last + 1, V)
    if seq:
        n = _hr_chain(r, prm, tp, rs, pk, sc, nin)
    if prm.G > 0 and prm.dv == 1 and n > 0:   # hiradix-local: LO at the end of RI's cycle (§R11.6)
        n = _hr_local(r, prm, rs, sc, rq, n, rq)
    rs.rq_n[r] = n


@compiled(cache=True, _nrt=False)
def _hr_local(r, prm, rs, sc, rq, n, out):
    """§R11.6 LO of router ``r``: per group of ``G`` inputs and output, the ``n`` requests of ``rq`` (RI's lanes)
    ranked by input from ``ptr_loc`` (``sw_pout[r, o, g]``, inputs counted within the group) and by lane; the
    first ``S`` kept, their slot in the lane field, the rest dropped; ``ptr_loc`` moves to one past the last input
    kept. Returns the requests kept, compacted into ``out`` (``rq`` itself, or LO's candidates, §R11.7).
    Under the decision line the lanes are ranked in the service order of the RI that made them (inputs from its
    ``ptr_seq``, one behind the pointer now, ``hiradix-relay`` two, then by lane) and ``ptr_loc`` plays no part."""
    P, G, S = rs.buf.shape[1], prm.G, prm.S
    ptr, slot = rs.sw_pout, sc.resv
    line = prm.wf > 0 and prm.sequential
    start = wrap(rs.ptr_seq[r] + P - (2 if prm.dv == 4 else 1), P)   # hiradix-relay: the RI of two cycles before
    for i in range(n):
        p, o = rq[r, i, 0], rq[r, i, 2]
        g = p // G
        gs = min(G, P - g * G)
        ki = (rr_offset(p, start, P) if line else rr_offset(p - g * G, ptr[r, o, g], gs)) * S + rq[r, i, 5]
        c = 0
        for j in range(n):
            pj = rq[r, j, 0]
            if j != i and rq[r, j, 2] == o and pj // G == g:
                kj = (rr_offset(pj, start, P) if line else rr_offset(pj - g * G, ptr[r, o, g], gs)) * S \
                    + rq[r, j, 5]
                if kj < ki:
                    c += 1
        slot[i] = c
    # ptr_loc: one past the last input kept (the kept request with the highest slot); none under the decision line
    for i in range(0 if line else n):
        p, o = rq[r, i, 0], rq[r, i, 2]
        g = p // G
        if slot[i] >= S:
            continue
        last = True
        for j in range(n):
            if rq[r, j, 2] == o and rq[r, j, 0] // G == g and S > slot[j] > slot[i]:
                last = False
        if last:
            ptr[r, o, g] = wrap(p - g * G + 1, min(G, P - g * G))
    k = 0
    for i in range(n):
        if slot[i] < S or prm.ri_own:
            for f in range(rq.shape[2]):
                out[r, k, f] = rq[r, i, f]
            out[r, k, 5] = slot[i]
            if slot[i] >= S:
                out[r, k, 2] = -1   # hiradix-decoupled (§R11.8): dropped, GO skips it, RI counts it in u(v)
            k += 1
    return k


@compiled(cache=True, _nrt=False)
def _hr_chain(r, prm, tp, rs, pk, sc, nin):
    """§R11.2, sequential routings: the selected lanes (``sc.sel``) served in order, inputs from ``ptr_seq``
    (advancing every cycle), each input's lanes in lane order; a head decides again on the view plus one flit
    in ``q`` per request the lanes before it made for that output (``qadd``); an output with ``S`` requests
    in this RI takes no more (the lane waits, its decision not committed); a bound lane requests its output
    and counts the same way. Returns the requests registered."""
    P, S, L = rs.buf.shape[1], prm.S, prm.L
    rq, out_term, dec, grants_o = rs.rq, tp.out_term, sc.dec, sc.grants_o
    start = rs.ptr_seq[r]
    rs.ptr_seq[r] = wrap(start + 1, P)
    if nin == 0:
        return 0
    for o in range(P):
        grants_o[o] = 0
    n = 0
    for i in range(P):
        p = wrap(start + i, P)
        for k in range(sc.nsel[p]):
            v = sc.sel[p, k]
            if rs.in_active[r, p, v]:
                o = rs.in_o[r, p, v]
                ov = rs.in_ov[r, p, v]
                hd = 0
                ph = -1
                dc = 0
                inter = 0
            else:   # the flit RI named (§R11.9: the front or the one behind it)
                pid = packet_of(sc.req_f[p, v], L)
                if not _decide(r, p, pid, prm, tp, rs, pk, dec):
                    continue
                o = dec[0]
                if out_term[r, o] >= 0 and _eject_blocked(r, o, prm, tp, rs):
                    continue
                ov = dec[1]
                hd = 1
                ph = dec[2]
                dc = dec[3]
                inter = dec[4]
            if grants_o[o] >= S:
                continue   # the output has S requests in this RI: wait, decision not committed
            grants_o[o] += 1
            rs.qadd[r, o] += 1
            rq[r, n, 0] = p
            rq[r, n, 1] = v
            rq[r, n, 2] = o
            rq[r, n, 3] = ov
            rq[r, n, 4] = hd
            rq[r, n, 5] = k
            rq[r, n, 6] = ph
            rq[r, n, 7] = dc
            rq[r, n, 8] = inter
            rq[r, n, 9] = sc.req_f[p, v]
            rq[r, n, 10] = sc.req_s[p, v]
            n += 1
        sc.nsel[p] = 0
    for o in range(P):
        rs.qadd[r, o] = 0
    return n


@compiled(cache=True, _nrt=False)
def _hr_decide_line(r, prm, tp, rs, pk, sc):
    """§R11.2a: the heads that entered router ``r``'s decision lines at the end of the last cycle (``wfb``),
    decided as hdl/seq_alloc.py's allocator decides (``N`` = the injection ports, in port order, served from
    ``wf_ptr`` (the spec's ``ptr_line``, one injection port on every cycle), ``S =`` :data:`LINE_S`): each head whose
    destination is another router chooses the minimal route (cost ``q(o_min)·H(c, d)``) unless the
    non-minimal one (its intermediate ``b`` neither router) costs less (``q(o_nm)·(H(c, b) + H(b, d)) + θ``),
    ``q`` from RI's copy (§R11.1) plus one flit per earlier head of the batch that chose the output, at most
    :data:`LINE_S` of them. The
    choice is the head's preference at RI (§R7's rule with this comparison: the preferred candidate if
    available, else the other), kept until its switch traversal commits the decision in ``phase`` (undecided:
    :data:`PREFER_MIN` or :data:`PREFER_NM`)."""
    ni = rs.wf_ni[r]
    start = rs.wf_ptr[r]
    rs.wf_ptr[r] = wrap(start + 1, ni) if ni > 0 else 0
    if rs.wfb_n[r] == 0:
        return
    rs.wfb_n[r] = 0
    coords, port_to, out_term, qadd, B = tp.coords, tp.port_to, tp.out_term, rs.qadd, prm.B
    credit = rs.ri2_credit if prm.ri_own else rs.ri_credit   # RI's copy, as a head reads it (§R11.1, §R11.8)
    touched = False
    for i in range(ni):
        p = rs.wf_inj[r, wrap(start + i, ni)]
        pid = rs.wfb[r, p]
        if pid < 0:
            continue
        rs.wfb[r, p] = -1
        dr = tp.term_router[pk.dst[pid]]
        if dr == r:
            continue   # ejected here: nothing to decide
        o_min = dor_output(coords, port_to, r, dr)
        c_min = _qlen(credit, qadd, out_term, r, o_min, B) * hop_count(coords, r, dr)
        b = pk.inter[pid]
        o = o_min
        if b != r and b != dr:
            o_nm = dor_output(coords, port_to, r, b)
            c_nm = _qlen(credit, qadd, out_term, r, o_nm, B) * (hop_count(coords, r, b) + hop_count(coords, b, dr)) \
                + prm.thr
            if c_min > c_nm:
                o = o_nm
        pk.phase[pid] = PREFER_MIN if o == o_min else PREFER_NM
        if qadd[r, o] < LINE_S:
            qadd[r, o] += 1
        touched = True
    if touched:
        for o in range(rs.qadd.shape[1]):
            qadd[r, o] = 0


@compiled(cache=True, _nrt=False)
def _hiradix(r, t, prm, tp, rs, lk, pk, sc):
    """Router ``r`` in cycle ``t`` under ``hiradix`` (§R11): IN applies the input side of the grants ST applied
    in ``t - 1``, ST the output side of the grant register, then GO decides the request register and RI makes
    new requests, both on the state IN and ST left (the view; GO registers its grants without applying them, so
    RI does not see them, and RI reads the two request registers, ``rq`` and ``rq2``, only for u(v)). True when
    a flit moved."""
    moved = False
    if prm.wf > 0:
        _hr_decide_line(r, prm, tp, rs, pk, sc)
    if rs.gi_n[r] > 0:
        moved = _hr_in(r, prm, tp, rs, lk, sc)
    if rs.gr_n[r] > 0:
        moved |= _hr_st(r, t, prm, tp, rs, pk)
    if prm.dv == 4:   # hiradix-relay (§R11.10): GO decides the candidate relay
        if rs.rqcr_n[r] > 0:
            _hr_go(r, prm, tp, rs, sc, rs.rqcr, rs.rqcr_n[r])
    elif prm.dv == 2:   # hiradix-staged (§R11.7): GO decides LO's candidates
        if rs.rqc_n[r] > 0:
            _hr_go(r, prm, tp, rs, sc, rs.rqc, rs.rqc_n[r])
    elif rs.rq_n[r] > 0:
        _hr_go(r, prm, tp, rs, sc, rs.rq, rs.rq_n[r])
    # RI reads the output side one cycle late, from its copy (§R11.1); the copy for the next cycle is the
    # output side of this cycle's view (credits that arrive in this cycle are added after allocation)
    if prm.ri_own:   # §R11.8: the heads read the view of t - 2 (ri2), the bound VCs the copy of t - 1 (ri)
        if rs.n_act[r, 0] + rs.n_act[r, 1] > 0:
            _hr_swap(r, rs.ri2_credit, rs.ri2_busy, rs)   # the heads' view in, this cycle's view out
            _hr_ri(r, prm, tp, rs, pk, sc)
            _hr_copy(r, rs.ri_credit, rs.ri_busy, rs.credit, rs.ovc_busy)   # the copy: the next cycle's ri2
            _hr_swap(r, rs.ri2_credit, rs.ri2_busy, rs)   # this cycle's view back, the next ri2 out
        else:
            _hr_no_ri(r, prm, rs, sc)
            _hr_copy(r, rs.ri_credit, rs.ri_busy, rs.ri2_credit, rs.ri2_busy)
        _hr_copy(r, rs.credit, rs.ovc_busy, rs.ri_credit, rs.ri_busy)
    elif rs.n_act[r, 0] + rs.n_act[r, 1] > 0:
        _hr_swap(r, rs.ri_credit, rs.ri_busy, rs)   # the copy in, this cycle's view out (the next cycle's copy)
        _hr_ri(r, prm, tp, rs, pk, sc)
        _hr_copy(r, rs.ri_credit, rs.ri_busy, rs.credit, rs.ovc_busy)   # this cycle's view back
    else:
        _hr_no_ri(r, prm, rs, sc)
        _hr_copy(r, rs.credit, rs.ovc_busy, rs.ri_credit, rs.ri_busy)
    return moved


@compiled(cache=True, inline="always", _nrt=False)
def _hr_no_ri(r, prm, rs, sc):
    """Router ``r``'s RI with no flit: no request (each request's flit is still in its buffer)."""
    _hr_age_requests(r, prm, rs, sc)
    rs.rq_n[r] = 0
    if prm.sequential:
        rs.ptr_seq[r] = wrap(rs.ptr_seq[r] + 1, rs.buf.shape[1])


@compiled(cache=True, inline="always", _nrt=False)
def _hr_swap(r, ri_credit, ri_busy, rs):
    """Exchange router ``r``'s ``credit`` and ``ovc_busy`` with a copy of them (§R11.1)."""
    credit, busy = rs.credit, rs.ovc_busy
    for o in range(credit.shape[1]):
        for v in range(credit.shape[2]):
            x = credit[r, o, v]
            credit[r, o, v] = ri_credit[r, o, v]
            ri_credit[r, o, v] = x
            x = busy[r, o, v]
            busy[r, o, v] = ri_busy[r, o, v]
            ri_busy[r, o, v] = x


@compiled(cache=True, inline="always", _nrt=False)
def _hr_copy(r, credit, busy, to_credit, to_busy):
    """Router ``r``'s ``credit`` and ``ovc_busy`` rows copied into ``to_credit`` and ``to_busy``."""
    for o in range(credit.shape[1]):
        for v in range(credit.shape[2]):
            to_credit[r, o, v] = credit[r, o, v]
            to_busy[r, o, v] = busy[r, o, v]


# ---- the subswitch model (§R12): RI | row | SA | column | GO, each stage local to one place


@compiled(cache=True, _nrt=False)
def _sw_go(r, t, prm, tp, rs, pk):
    """§R12 GO of router ``r`` in cycle ``t``: per output, one column buffer round robin from ``sw_pgo``
    (lanes ``g * W + w``) whose front flit may go (a credit of output VC ``w``; a head, ``w`` idle), on the
    state at the start of the cycle (the column registers write their buffers after GO). The flit leaves its
    column buffer (its credit reaches the sub-switch at the end of ``t + 1``) through :func:`_grant_out`
    (a credit taken, the hold, the trace, the output queue: on the link in ``t + 1``). True when one went."""
    L, G, V = prm.L, prm.G, prm.V
    Pr = tp.radix[r]
    Q = (Pr + G - 1) // G
    Bs = rs.sw_cb.shape[4]
    moved = False
    for o in range(Pr):
        eject = tp.out_term[r, o] >= 0
        W = 1 if eject else V
        n = Q * W
        ptr = rs.sw_pgo[r, o]
        for k in range(n):
            lane = wrap(ptr + k, n)
            g = lane // W
            w = lane - g * W
            if rs.sw_cbn[r, o, g, w] == 0:
                continue
            flit = rs.sw_cb[r, o, g, w, rs.sw_cbh[r, o, g, w]]
            if (not eject or prm.E > 0) and rs.credit[r, o, w] <= 0:
                continue
            if flit % L == 0 and rs.ovc_busy[r, o, w] != 0:
                continue
            rs.sw_cbh[r, o, g, w] = wrap(rs.sw_cbh[r, o, g, w] + 1, Bs)
            rs.sw_cbn[r, o, g, w] -= 1
            rs.sw_cbr2[r, o, g, w] = 1
            rs.sw_nret[r] += 1
            rs.sw_n[r] -= 1
            _grant_out(r, o, w, flit, -1, 0, 0, t, prm, tp, rs, pk)
            rs.sw_pgo[r, o] = wrap(lane + 1, n)
            moved = True
            break
    return moved


@compiled(cache=True, _nrt=False)
def _sw_sa(r, prm, tp, rs, sc):
    """§R12 SA of router ``r``: per sub-switch ``(g, c)`` and output ``o`` of its column, one round-robin
    arbiter from ``sw_pout[r, o, g]`` over the lanes ``i * V + v`` (row-buffer VC ``v`` of the row's ``i``-th
    input) whose front flit is for ``o`` and may go (a head: an output VC of its class whose column buffer no
    packet of the sub-switch holds and has a credit, the most credits, ties to the lowest; a body or tail: its
    bound column buffer has a credit), the pointer moving to one past the lane granted; on the state at the
    start of the cycle (the row registers write their buffers after SA, the column registers were emptied
    into the column buffers before it). No input arbiter: each row buffer has its own read port, so two VCs of
    one input may go to two outputs at once. The grant takes a column-buffer credit, holds (a head of a longer
    packet, binding its row-buffer VC) or releases (a tail) the column buffer, writes the column register
    (in the RTL, the sub-switch's grant register) and pops the row buffer once every output of the column has
    decided (its credit reaches the input at the end of the next cycle)."""
    L, G, V, vpc = prm.L, prm.G, prm.V, prm.vpc
    Pr = tp.radix[r]
    Q = (Pr + G - 1) // G
    Bs = rs.sw_rb.shape[4]
    for g in range(Q):
        p0 = g * G
        n = (min(p0 + G, Pr) - p0) * V
        for c in range(Q):
            o0 = c * G
            o1 = min(o0 + G, Pr)
            for o in range(o0, o1):
                sc.sw_lane[o] = -1
                eject = tp.out_term[r, o] >= 0
                W = 1 if eject else V
                ptr = rs.sw_pout[r, o, g]
                for k in range(n):
                    lane = wrap(ptr + k, n)
                    p = p0 + lane // V
                    v = lane % V
                    if rs.sw_rbn[r, p, c, v] == 0:
                        continue
                    h = rs.sw_rbh[r, p, c, v]
                    if rs.sw_rbo[r, p, c, v, h] != o:
                        continue
                    flit = rs.sw_rb[r, p, c, v, h]
                    if flit % L == 0:
                        best = -1
                        bestn = 0
                        for w in range(W):
                            cc = rs.sw_cbc[r, o, g, w]
                            if rs.sw_lock[r, o, g, w] != 0 or cc <= 0:
                                continue
                            if not eject and w // vpc != rs.sw_rbk[r, p, c, v, h]:
                                continue
                            if best < 0 or cc > bestn:
                                best = w
                                bestn = cc
                        if best < 0:
                            continue
                        w = best
                    else:
                        w = rs.sw_bind[r, p, c, v]
                        if rs.sw_cbc[r, o, g, w] <= 0:
                            continue
                    rs.sw_cbc[r, o, g, w] -= 1
                    idx = flit % L
                    if idx == 0 and idx != L - 1:
                        rs.sw_lock[r, o, g, w] = 1
                        rs.sw_bind[r, p, c, v] = w
                    if idx == L - 1:
                        rs.sw_lock[r, o, g, w] = 0
                    rs.sw_col[r, o, g, 0] = 1
                    rs.sw_col[r, o, g, 1] = flit
                    rs.sw_col[r, o, g, 2] = w
                    rs.sw_pout[r, o, g] = wrap(lane + 1, n)
                    sc.sw_lane[o] = lane
                    break
            # the granted flits leave their row buffers (after the column's outputs decided: none of them
            # sees the flit behind one granted in this cycle)
            for o in range(o0, o1):
                lane = sc.sw_lane[o]
                if lane < 0:
                    continue
                p = p0 + lane // V
                v = lane % V
                rs.sw_rbh[r, p, c, v] = wrap(rs.sw_rbh[r, p, c, v] + 1, Bs)
                rs.sw_rbn[r, p, c, v] -= 1
                rs.sw_rbr2[r, p, c, v] = 1
                rs.sw_nret[r] += 1


@compiled(cache=True, _nrt=False)
def _sw_ri(r, t, prm, tp, rs, lk, pk, sc):
    """§R12 RI of router ``r``: per input, one VC round robin from ``ptr_in`` (moving to one past it) whose
    front flit has a credit for its row buffer ``(column of its output, VC)``: a head's output from the route
    table (§R7a: the table's next port, or the ejection port; its class from the class table or the hop
    index), a body's its head's. The flit leaves its input buffer (:func:`_grant_in`: its credit upstream,
    a head of a longer packet binding the VC to the output) into the row register. True when one went."""
    L, G, V = prm.L, prm.G, prm.V
    ncls = prm.ncls
    Pr = tp.radix[r]
    moved = False
    for p in range(Pr):
        ptr = rs.ptr_in[r, p]
        for k in range(V):
            v = wrap(ptr + k, V)
            if rs.bcnt[r, p, v] == 0:
                continue
            flit = rs.buf[r, p, v, rs.bhead[r, p, v]]
            pid = packet_of(flit, L)
            cls = 0
            if flit - pid * L == 0:
                dt = pk.dst[pid]
                dr = tp.term_router[dt]
                if r == dr:
                    o = tp.eject_port[dt]
                else:
                    o = tp.tbl[r, dr]
                    cls = _table_class(r, dr, pid, ncls, tp, pk)
            else:
                o = rs.in_o[r, p, v]
            c = o // G
            if rs.sw_rbc[r, p, c, v] <= 0:
                continue
            rs.sw_rbc[r, p, c, v] -= 1
            if prm.trace_on and flit - pid * L == 0:   # the hop's cycle (§R9, §R12): the head leaves its buffer
                h = pk.nhop[pid]
                if h < pk.hop_cycle.shape[1]:
                    pk.hop_cycle[pid, h] = t
            _grant_in(r, p, v, o, 0, sc.tcs[0], prm, tp, rs, lk)
            rs.sw_row[r, p, 0] = 1
            rs.sw_row[r, p, 1] = flit
            rs.sw_row[r, p, 2] = c
            rs.sw_row[r, p, 3] = v
            rs.sw_row[r, p, 4] = o
            rs.sw_row[r, p, 5] = cls
            rs.sw_n[r] += 1
            rs.ptr_in[r, p] = wrap(v + 1, V)
            moved = True
            break
    return moved


@compiled(cache=True, _nrt=False)
def _subswitch(r, t, prm, tp, rs, lk, pk, sc):
    """Router ``r`` in cycle ``t`` under ``subswitch`` (§R12): GO on the column buffers, then the column
    registers (SA's grants of ``t - 1``) write the column buffers, SA on the row buffers, the row registers
    (RI's picks of ``t - 1``) write the row buffers, RI on the input buffers; last, the credits returned in
    ``t - 1`` are counted (those of ``t`` wait a cycle in ``sw_rbr2``, ``sw_cbr2``). Every stage reads the state
    at the start of the cycle: each writes only what a later stage in this order does not read. True when
    a flit moved."""
    G = prm.G
    Pr = tp.radix[r]
    Q = (Pr + G - 1) // G
    Bs = rs.sw_rb.shape[4]
    moved = False
    if rs.sw_n[r] > 0:
        moved = _sw_go(r, t, prm, tp, rs, pk)
        for o in range(Pr):
            for g in range(Q):
                if rs.sw_col[r, o, g, 0] != 0:
                    w = rs.sw_col[r, o, g, 2]
                    rs.sw_cb[r, o, g, w, wrap(rs.sw_cbh[r, o, g, w] + rs.sw_cbn[r, o, g, w], Bs)] = \
                        rs.sw_col[r, o, g, 1]
                    rs.sw_cbn[r, o, g, w] += 1
                    rs.sw_col[r, o, g, 0] = 0
        _sw_sa(r, prm, tp, rs, sc)
        for p in range(Pr):
            if rs.sw_row[r, p, 0] != 0:
                c = rs.sw_row[r, p, 2]
                v = rs.sw_row[r, p, 3]
                at = wrap(rs.sw_rbh[r, p, c, v] + rs.sw_rbn[r, p, c, v], Bs)
                rs.sw_rb[r, p, c, v, at] = rs.sw_row[r, p, 1]
                rs.sw_rbo[r, p, c, v, at] = rs.sw_row[r, p, 4]
                rs.sw_rbk[r, p, c, v, at] = rs.sw_row[r, p, 5]
                rs.sw_rbn[r, p, c, v] += 1
                rs.sw_row[r, p, 0] = 0
    if rs.n_act[r, 0] + rs.n_act[r, 1] > 0:
        moved |= _sw_ri(r, t, prm, tp, rs, lk, pk, sc)
    if rs.sw_nret[r] > 0:
        n = 0
        for p in range(Pr):
            for c in range(Q):
                for v in range(prm.V):
                    rs.sw_rbc[r, p, c, v] += rs.sw_rbr[r, p, c, v]
                    x = rs.sw_rbr2[r, p, c, v]
                    rs.sw_rbr[r, p, c, v] = x
                    rs.sw_rbr2[r, p, c, v] = 0
                    n += x
        for o in range(Pr):
            for g in range(Q):
                for w in range(prm.V):
                    rs.sw_cbc[r, o, g, w] += rs.sw_cbr[r, o, g, w]
                    x = rs.sw_cbr2[r, o, g, w]
                    rs.sw_cbr[r, o, g, w] = x
                    rs.sw_cbr2[r, o, g, w] = 0
                    n += x
        rs.sw_nret[r] = n
    return moved


@compiled(cache=True, inline="always", _nrt=False)
def _log_ejection(pid, t, ej):
    """Packet ``pid``'s tail left the network in cycle ``t``: its slot and cycle join ``ej`` (the caller frees
    the slot and reads the packet's fields after the call, :func:`collect_ejected`: read here, each from a
    column last touched when the packet was created, they cost 12% of the kernel at load 0.8)."""
    i = ej.n[0]
    ej.n[0] = i + 1
    ej.ejected[i] = t
    ej.slot[i] = pid


@compiled(cache=True, _nrt=False)
def take_slots(seq, start, out):
    """The first ``out.size`` free slots of the packet ring (``seq`` :data:`SLOT_FREE`) from slot ``start`` on,
    wrapping around, into ``out``, each marked :data:`SLOT_TAKEN` (the kernel writes its packet's sequence
    number in its creation cycle). Returns the slot after the last one taken, where the next call starts, or
    -1 if the ring has fewer free slots (some then marked taken).

    Slots taken in ring order keep the packets created together side by side, as the kernel reads their fields
    in creation order (scattered slots cost 17% at load 0.8), without sorting a free list (3% of a run)."""
    cap = seq.size
    i = start
    seen = 0
    for k in range(out.size):
        while seq[i] != SLOT_FREE:
            i = wrap(i + 1, cap)
            seen += 1
            if seen >= cap:
                return -1
        out[k] = i
        seq[i] = SLOT_TAKEN
        i = wrap(i + 1, cap)
        seen += 1
    return i


#: the fields :func:`collect_ejected` can gather, one bit each of its ``want`` (``ejected`` and ``slot`` the kernel
#: writes itself)
GATHER = {"seq": 1, "src": 2, "dst": 4, "created": 8, "injected": 16, "hops": 32, "inter0": 64, "minimal": 128}


@compiled(cache=True, _nrt=False)
def collect_ejected(ej, pk, term_router, want):
    """The records of a call's ``ej.n[0]`` ejected packets (:class:`Ejected`), filled in one pass after the call
    from the slots the kernel listed: of each packet the fields ``want`` names (bits of :data:`GATHER`, ``minimal``
    among them) as it left; their slots are freed (``seq``: :data:`SLOT_FREE`) whatever ``want`` is.

    A field no reader takes is not gathered: the packet's fields were last touched when it was created, so each
    one read here is a cache miss per packet (streaming statistics read four of the eight)."""
    for i in range(ej.n[0]):
        pid = ej.slot[i]
        if want & 1:
            ej.seq[i] = pk.seq[pid]
        pk.seq[pid] = SLOT_FREE
        if want & (2 | 4 | 128):
            s = pk.src[pid]
            d = pk.dst[pid]
            if want & 2:
                ej.src[i] = s
            if want & 4:
                ej.dst[i] = d
            if want & 128:
                inter = pk.inter[pid]
                ej.minimal[i] = inter == term_router[s] or inter == term_router[d]
        if want & 8:
            ej.created[i] = pk.created[pid]
        if want & 16:
            ej.injected[i] = pk.injected[pid]
        if want & 32:
            ej.hops[i] = pk.hops[pid]
        if want & 64:
            ej.inter0[i] = pk.inter0[pid]


@compiled(cache=True, _nrt=False)
def run_cycles(t0, t1, prm, tp, rs, lk, src, pk, sc, new, ch_flits, ej_flits, ej, last_move):
    """Advance the network from cycle ``t0`` to ``t1`` (exclusive).

    ``new`` (:class:`NewPackets`): the packets created in these cycles, written into their ring slots in
    their creation cycle; ``ch_flits`` counts flits per channel, ``ej_flits[t - t0]`` flits ejected in
    cycle ``t``; ``ej`` (:class:`Ejected`) receives the record of every packet whose tail is ejected, so
    the caller collects them without a gather over the ring. Returns ``(status, cycle, last_move)``; ``status`` is
    STATUS_WATCHDOG when buffered flits have not moved for ``watchdog`` cycles.
    """
    R, P, V, B = rs.buf.shape
    T = tp.term_router.shape[0]
    L, Tl, Tc = prm.L, prm.Tl, prm.Tc
    new_ptr = 0
    for t in range(t0, t1):
        moved = False
        # ---- packet creation (§R3): packets created in cycle t join their source queues
        while new_ptr < new.cycle.shape[0] and new.cycle[new_ptr] == t:
            pid = new.slot[new_ptr]
            s = new.src[new_ptr]
            pk.seq[pid] = new.seq[new_ptr]
            pk.src[pid] = s
            pk.dst[pid] = new.dst[new_ptr]
            pk.created[pid] = new.created[new_ptr]
            pk.phase[pid] = 0
            pk.decided[pid] = 0
            pk.inter[pid] = new.inter[new_ptr]
            pk.inter0[pid] = new.inter[new_ptr]
            pk.hops[pid] = 0
            pk.injected[pid] = -1
            src.pkt_next[pid] = -1
            if prm.trace_on:
                pk.nhop[pid] = 0
                for h in range(pk.hop_router.shape[1]):
                    pk.hop_router[pid, h] = -1
                    pk.hop_port[pid, h] = -1
                    pk.hop_vc[pid, h] = -1
                    pk.hop_cycle[pid, h] = -1
                    pk.hop_hdr[pid, h] = -1
                    pk.hop_sent[pid, h] = -1
            pk.vc[pid] = src.next_vc[s]  # packet i of a terminal uses VC i mod V (§R3)
            src.next_vc[s] = wrap(src.next_vc[s] + 1, V)
            src.sq_count[s] += 1
            if src.sq_tail[s] >= 0:
                src.pkt_next[src.sq_tail[s]] = pid
            else:   # the terminal has a packet to inject again: it joins the injection list
                src.sq_head[s] = pid
                src.sq_flit[s] = 0
                src.queued[src.n_queued[0]] = s
                src.n_queued[0] += 1
            src.sq_tail[s] = pid
            new_ptr += 1
        # ---- sinks (§R3a, E >= 1): each takes its egress FIFO's oldest flit (there since the start of the
        # cycle) unless it stalls; the credit is usable from t + Tl
        if prm.E > 0:
            cs = t % Tl
            for s in range(T):
                if lk.ef_cnt[s] == 0 or not sink_ready(prm.sseed, s, t, prm.sthr):
                    continue
                h = lk.ef_head[s]
                flit = lk.efifo[s, h]
                lk.ef_head[s] = wrap(h + 1, lk.efifo.shape[1])
                lk.ef_cnt[s] -= 1
                lk.ecpipe[s, cs] += 1
                ej_flits[t - t0] += 1
                pid = packet_of(flit, L)
                if flit - pid * L == L - 1:
                    _log_ejection(pid, t, ej)
                moved = True
        # ---- allocation and switch traversal (§R5, §R6; iq: VA then SA, §R10)
        # single-cycle: COMBINED; iq: VA then SA, both acting on the start-of-cycle state: SA serves only VCs
        # allocated before this cycle (in_ready), and VA sees no credit or VC that SA changes in this cycle.
        # One call site for all three modes: the inlined allocator is compiled once (the native build 40 %
        # shorter than with a COMBINED site of its own, for at most 9 % of single-cycle speed)
        sc.tcs[0] = t % Tc
        if prm.split:   # hiradix (§R11): per router ST, GO, RI
            for r in range(R):
                moved |= _hiradix(r, t, prm, tp, rs, lk, pk, sc)
        elif prm.sub:   # subswitch (§R12): per router GO, SA, RI
            for r in range(R):
                moved |= _subswitch(r, t, prm, tp, rs, lk, pk, sc)
        else:
            m0, m1 = (COMBINED, COMBINED) if prm.dv == 0 else (VA, SA)
            for r in range(R):
                if prm.dv != 0:
                    sc.n_sa[0] = rs.n_act[r, 1]   # SA's VCs: those VA allocated before this cycle (see _requests)
                for mode in range(m0, m1 + 1):
                    moved |= _allocate(r, t, mode, prm, tp, rs, lk, pk, sc)
        # ---- link: each output queue whose oldest flit's traversal is done sends it (§R2.3, §R10)
        # (the queues listed for this cycle, in the order they were listed: each sends on its own link, so any
        # order gives the same cycle; a queue that still holds flits is listed for the cycle its next flit is
        # ready, t + 1 at the earliest)
        slot = t % Tl
        wmask = rs.wheel.shape[0] - 1
        w0 = t & wmask
        for i in range(rs.n_wheel[w0]):
            ro = rs.wheel[w0, i]
            r = ro >> 16
            o = ro & 0xFFFF
            h = rs.oq_head[r, o]
            flit = rs.oq[r, o, h]
            ov = rs.oqv[r, o, h]
            rs.oq_cnt[r, o] -= 1
            if rs.oq_cnt[r, o] == 0:
                rs.oq_head[r, o] = 0
            else:
                h1 = wrap(h + 1, rs.oq.shape[2])
                rs.oq_head[r, o] = h1
                nt = t + 1
                if prm.dst > 0 and rs.oqt[r, o, h1] > nt:
                    nt = rs.oqt[r, o, h1]
                w = nt & wmask
                rs.wheel[w, rs.n_wheel[w]] = ro
                rs.n_wheel[w] += 1
            if prm.trace_on and flit % L == 0:
                # the head's latest hop is this router's until it is granted downstream (§R9 "sent")
                h = pk.nhop[flit // L] - 1
                if h < pk.hop_sent.shape[1]:
                    pk.hop_sent[flit // L, h] = t
            c = tp.out_ch[r, o]
            if c >= 0:
                lk.pipe_flit[c, slot] = flit
                lk.pipe_vc[c, slot] = ov
                lk.fly_ch[slot, lk.n_fly_ch[slot]] = c
                lk.n_fly_ch[slot] += 1
                ch_flits[c] += 1
            elif prm.E > 0:   # onto the ejection link, into the egress FIFO at t + Tl (§R3a)
                lk.epipe[tp.out_term[r, o], slot] = flit
            else:             # an ideal terminal (§R3)
                pid = packet_of(flit, L)
                ej_flits[t - t0] += 1
                if flit - pid * L == L - 1:
                    _log_ejection(pid, t + Tl, ej)
            moved = True
        rs.n_wheel[w0] = 0
        # ---- terminals inject (§R3): one flit per cycle on VC (packet index mod V); the terminals with a
        # packet to inject, in the order they got it (each sends on its own link, so any order gives the
        # same cycle); a terminal whose queue empties leaves the list
        nq = 0
        for i in range(src.n_queued[0]):
            s = src.queued[i]
            pid = src.sq_head[s]
            v = pk.vc[pid]
            if lk.tcredit[s, v] <= 0:
                src.queued[nq] = s
                nq += 1
                continue
            lk.tcredit[s, v] -= 1
            f = src.sq_flit[s]
            if f == 0:
                pk.injected[pid] = t
            lk.tpipe_flit[s, slot] = pid * L + f
            lk.tpipe_vc[s, slot] = v
            lk.fly_term[slot, lk.n_fly_term[slot]] = s
            lk.n_fly_term[slot] += 1
            moved = True
            if f == L - 1:
                nxt = src.pkt_next[pid]
                src.sq_count[s] -= 1
                src.sq_head[s] = nxt
                src.sq_flit[s] = 0
                if nxt < 0:
                    src.sq_tail[s] = -1
                    continue   # leaves the list
            else:
                src.sq_flit[s] = f + 1
            src.queued[nq] = s
            nq += 1
        src.n_queued[0] = nq
        # ---- arrivals at the end of the cycle (§R2.4): flits sent in cycle t+1-Tl, credits in t+1-Tc
        # (each slot lists the channels and terminals it carries a flit on and the (channel, VC) pairs it carries
        # credits for, so that only those are visited)
        aslot = (t + 1) % Tl
        cslot = (t + 1) % Tc
        _arrive(lk.fly_ch, lk.n_fly_ch, lk.pipe_flit, lk.pipe_vc, tp.ch_dst, tp.ch_dst_port, aslot, rs)
        for i in range(lk.n_cred_ch[cslot]):
            c = lk.cred_ch[cslot, i] >> 8
            v = lk.cred_ch[cslot, i] & 0xFF
            rs.credit[tp.ch_src[c], tp.ch_src_port[c], v] += lk.cpipe[c, cslot, v]
            lk.cpipe[c, cslot, v] = 0
        lk.n_cred_ch[cslot] = 0
        if prm.wf > 0:   # injection links into the decision lines, the lines' last flits into the buffers
            moved |= _line(t, lk, tp, rs, aslot, L)
        else:
            _arrive(lk.fly_term, lk.n_fly_term, lk.tpipe_flit, lk.tpipe_vc, tp.inj_router, tp.inj_port, aslot, rs)
        for i in range(lk.n_cred_term[cslot]):
            s = lk.cred_term[cslot, i] >> 8
            v = lk.cred_term[cslot, i] & 0xFF
            lk.tcredit[s, v] += lk.tcpipe[s, cslot, v]
            lk.tcpipe[s, cslot, v] = 0
        lk.n_cred_term[cslot] = 0
        if prm.E > 0:   # ejection links into the egress FIFOs, and the FIFOs' credits back (§R3a)
            for s in range(T):
                flit = lk.epipe[s, aslot]
                if flit >= 0:
                    lk.efifo[s, wrap(lk.ef_head[s] + lk.ef_cnt[s], lk.efifo.shape[1])] = flit
                    lk.ef_cnt[s] += 1
                    lk.epipe[s, aslot] = -1
                n = lk.ecpipe[s, aslot]
                if n:
                    rs.credit[tp.term_router[s], tp.eject_port[s], 0] += n
                    lk.ecpipe[s, aslot] = 0
        if moved:
            last_move = t
        elif t - last_move > prm.watchdog:
            # anything buffered?
            for r in range(R):
                if rs.n_act[r, 0] + rs.n_act[r, 1] + rs.sw_n[r] > 0:
                    return STATUS_WATCHDOG, t, last_move
            last_move = t
    return STATUS_OK, t1, last_move


def decide_reference(known: dict) -> bool:
    """Run the golden routing decision (:func:`_decide`, as plain Python) on arrays given by name.

    ``known`` names the scalars and arrays the decision reads, as the tests of the RTL decision units
    build them: ``r``, ``p``, ``pid``, ``algo``, ``ncls``, ``V``, ``B``, ``thr``, the :class:`Topo` fields
    (``coords``, ``port_to``, ``dims``, ``term_router``, ``eject_port``, ``out_term``, ``out_ch``, ``in_ch``,
    ``ch_src``, ``ch_dst``, ``port_lanes``, ``tbl``, ``tdist``, ``tcls``, ``up_port``), ``credit``,
    ``ovc_busy``, the packet fields ``pkt_dst``, ``pkt_phase``, ``pkt_decided``, ``pkt_inter``,
    ``pkt_hops`` and the output array ``dec``. Fields a routing does not read may be left out.
    Returns what :func:`_decide` returns; the decision is in ``known["dec"]``, with the header it leaves with
    in ``dec[2:5]`` (the packet's own when the routing does not change it).
    """
    z1, z2 = np.zeros(1, np.int64), np.full((1, 1), -1, np.int64)
    z3, z4 = np.zeros((1, 1, 1), np.int64), np.full((1, 1, 1, 1), -1, np.int64)
    shapes = {"coords": z2, "port_to": z3, "dims": z1, "port_lanes": z4, "tdist": z2, "tcls": z2, "up_port": z2,
              "tbl": z2}
    tp = Topo(**{f: known.get(f, shapes.get(f, z1)) for f in Topo._fields})
    V, B = int(known["V"]), int(known["B"])
    rs = Routers(**{f: z1 for f in Routers._fields})._replace(
        buf=np.zeros((1, 1, V, B), np.int64), credit=known["credit"], ovc_busy=known["ovc_busy"],
        qadd=np.zeros(np.shape(known["credit"])[:2], np.int64))
    pk = Packets(**{f: z1 for f in Packets._fields})._replace(
        dst=known["pkt_dst"], phase=known["pkt_phase"], decided=known["pkt_decided"], inter=known["pkt_inter"],
        hops=known["pkt_hops"])
    prm = Params(algo=int(known["algo"]), sequential=False, ncls=int(known["ncls"]),
                 vpc=V // int(known["ncls"]), thr=int(known["thr"]), V=V,
                 B=B, S=1, L=1, Tl=1, Tc=1, dv=0, dst=0, watchdog=1, trace_on=False, E=0, sthr=0,
                 sseed=0, split=False, sub=False, G=1, wf=0, ri_own=False, heads=1)
    pid, dec = int(known.get("pid", 0)), known["dec"]
    with as_python():   # and the compiled functions it calls: these arrays are not the simulator's types
        ok = bool(_decide(int(known["r"]), int(known.get("p", 0)), pid, prm, tp, rs, pk, dec))
    if ok and dec[2] < 0:   # the header leaves as it came
        dec[2], dec[3], dec[4] = pk.phase[pid], pk.decided[pid], pk.inter[pid]
    return ok
