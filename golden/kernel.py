"""The cycle kernel of the golden model: docs/router-spec.md §R2–§R8, compiled with numba.

All state is arrays indexed ``[router, port, vc]`` (plus the packet table);
one call advances every router by a chunk of cycles. The allocation loop is
inherently sequential in the sequential allocator (each grant changes the
state the next input sees, §R6), which is why this is a compiled kernel
rather than numpy.

Flits are encoded as ``pid * L + index`` (head: index 0, tail: index L-1).
"""

from __future__ import annotations

from numba import njit

from radixnet.gen.routing import CLOS_AD, MIN, MIN_AD, PRIO, TABLE, TCLOS, TUGAL_G, TUGAL_L, TVAL, UGAL

__all__ = ["run_cycles", "STATUS_OK", "STATUS_WATCHDOG"]

STATUS_OK = 0
STATUS_WATCHDOG = 1


@njit(cache=True, inline="always", _nrt=False)
def _hops(coords, a, b):
    h = 0
    for d in range(coords.shape[1]):
        if coords[a, d] != coords[b, d]:
            h += 1
    return h


@njit(cache=True, inline="always", _nrt=False)
def _dor(coords, port_to, r, target):
    for d in range(coords.shape[1]):
        if coords[r, d] != coords[target, d]:
            return port_to[r, d, coords[target, d]]
    return -1


@njit(cache=True, inline="always", _nrt=False)
def _qlen(credit, out_term, r, o, B):
    if out_term[r, o] >= 0:
        return 0
    q = 0
    for v in range(credit.shape[2]):
        q += B - credit[r, o, v]
    return q


@njit(cache=True, inline="always", _nrt=False)
def _best_ovc(credit, ovc_busy, out_term, r, o, c0, c1):
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


@njit(cache=True, _nrt=False)
def _enqueue(buf, bhead, bcnt, r, p, v, flit):
    """§R2.4: an arriving flit joins the tail of input VC (r, p, v) (the credit protocol guarantees space)."""
    B = buf.shape[3]
    buf[r, p, v, (bhead[r, p, v] + bcnt[r, p, v]) % B] = flit
    bcnt[r, p, v] += 1


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def _path_queue(credit, out_term, out_ch, ch_dst, tbl, r, target, B):
    """UGAL-G: the queue lengths of every channel on the table route from r to target, summed."""
    total = 0
    x = r
    while x != target:
        o = tbl[x, target]
        total += _qlen(credit, out_term, x, o, B)
        x = ch_dst[out_ch[x, o]]
    return total


@njit(cache=True, _nrt=False)
def _decide_table_nonmin(r, pid, algo, ncls, vpc, B, thr, tbl, tdist, eject_port, out_term, out_ch, ch_dst,
                         credit, ovc_busy, pkt_phase, pkt_decided, pkt_inter, pkt_hops, dt, dr, dec):
    """VAL / UGAL-L / UGAL-G on the route tables (router-spec §R7c); VC class = hops taken."""
    cls = pkt_hops[pid]
    if cls >= ncls:
        cls = ncls - 1
    c0 = cls * vpc
    c1 = c0 + vpc
    phase = pkt_phase[pid]
    inter = pkt_inter[pid]
    if algo != TVAL and pkt_decided[pid] == 0:
        if r == dr:
            dec[0] = eject_port[dt]; dec[1] = 0; dec[2] = 1; dec[3] = 1; dec[4] = r
            return True
        o_min = tbl[r, dr]
        v_min = _best_ovc(credit, ovc_busy, out_term, r, o_min, c0, c1)
        o_nm = -1
        v_nm = -1
        b = inter
        if b != r and b != dr:
            o_nm = tbl[r, b]
            v_nm = _best_ovc(credit, ovc_busy, out_term, r, o_nm, c0, c1)
        prefer_min = False
        if v_min >= 0 and v_nm >= 0:
            Hm = tdist[r, dr]
            Hn = tdist[r, b] + tdist[b, dr]
            if algo == TUGAL_G:
                qm = _path_queue(credit, out_term, out_ch, ch_dst, tbl, r, dr, B)
                qn = _path_queue(credit, out_term, out_ch, ch_dst, tbl, r, b, B) \
                    + _path_queue(credit, out_term, out_ch, ch_dst, tbl, b, dr, B)
                prefer_min = qm + Hm <= qn + Hn + thr  # global: queued flits plus hops along each route
            else:
                prefer_min = _qlen(credit, out_term, r, o_min, B) * Hm <= _qlen(credit, out_term, r, o_nm, B) * Hn + thr
        return _ugal_commit(prefer_min, o_min, v_min, o_nm, v_nm, r, b, dec)
    if phase == 0 and r == inter:
        phase = 1
    if phase == 1 and r == dr:
        dec[0] = eject_port[dt]; dec[1] = 0; dec[2] = phase; dec[3] = 1; dec[4] = inter
        return True
    target = inter if phase == 0 else dr
    o = tbl[r, target]
    ov = _best_ovc(credit, ovc_busy, out_term, r, o, c0, c1)
    if ov < 0:
        return False
    dec[0] = o; dec[1] = ov; dec[2] = phase; dec[3] = 1; dec[4] = inter
    return True


@njit(cache=True, _nrt=False)
def _best_lane(credit, ovc_busy, out_term, port_lanes, r, d, m, c0, c1, B, lane_out):
    """Of the parallel lanes to digit m in dimension d, the one with an available VC and the shortest
    queue (ties: lowest lane). Writes (port, vc, q) into lane_out; returns False if none is available."""
    found = False
    for ln in range(port_lanes.shape[3]):
        o = port_lanes[r, d, m, ln]
        if o < 0:
            continue
        ov = _best_ovc(credit, ovc_busy, out_term, r, o, c0, c1)
        if ov < 0:
            continue
        q = _qlen(credit, out_term, r, o, B)
        if not found or q < lane_out[2]:
            lane_out[0] = o; lane_out[1] = ov; lane_out[2] = q
            found = True
    return found


@njit(cache=True, _nrt=False)
def _decide_2dfb(r, pid, p, dr, dt, ncls, vpc, B, Th, coords, dims, eject_port, out_term, out_ch, ch_dst, in_ch,
                 ch_src, port_lanes, credit, ovc_busy, pkt_phase, pkt_hops, dec):
    """2DFB priority-flag adaptive routing (Thamarakuzhi & Chandy, Algorithm 1; router-spec §R7b).

    ``pkt_phase`` carries the priority flag h1. With h1 clear: minimal phase, the differing dimensions
    from the most significant down, never back toward the router the packet came from: the first
    direct link with queue <= Th; non-minimal phase, in the same dimension order, the other links of
    the dimension from s = k-2 down to 0: the first with queue <= Th is taken and h1 is set. With h1
    set, or when neither phase found a link: the direct link of the first differing dimension (not the
    way back), waiting for it while none of its lanes is available.
    """
    dt_port = eject_port[dt]
    if r == dr:
        dec[0] = dt_port; dec[1] = 0; dec[2] = 0; dec[3] = 1; dec[4] = r
        return True
    h1 = pkt_phase[pid]
    cls = pkt_hops[pid]
    if cls >= ncls:
        cls = ncls - 1
    c0 = cls * vpc
    c1 = c0 + vpc
    came = -1
    if in_ch[r, p] >= 0:
        came = ch_src[in_ch[r, p]]
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
        if _best_lane(credit, ovc_busy, out_term, port_lanes, r, i, m, c0, c1, B, dec) and dec[2] <= Th:
            dec[2] = 0; dec[3] = 1; dec[4] = r  # h1 cleared; decided; inter unused
            return True
    if h1 == 0:
        for i in range(D - 1, -1, -1):
            if coords[r, i] == coords[dr, i]:
                continue
            own = coords[r, i]
            for s in range(dims[i] - 2, -1, -1):
                m = s if s < own else s + 1
                if not _best_lane(credit, ovc_busy, out_term, port_lanes, r, i, m, c0, c1, B, dec):
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
    if not _best_lane(credit, ovc_busy, out_term, port_lanes, r, forced, coords[dr, forced], c0, c1, B, dec):
        return False
    dec[2] = 0; dec[3] = 1; dec[4] = r
    return True


@njit(cache=True, _nrt=False)
def _decide_clos(r, dr, dt, V, B, tbl, up_port, eject_port, out_term, credit, ovc_busy, dec, phase, decided, inter):
    """Adaptive routing on a folded Clos (router-spec §R7d ``clos-adaptive``; Thamarakuzhi & Chandy §IV,
    Kim, Dally, Abts SC06): while the destination is not below this router (its table hop goes up) the
    packet takes, of all up ports with an available VC, the one with the shortest queue q (§R7; ties:
    the lowest port); once it is, the single down path of the table. One VC class.
    """
    if r == dr:
        dec[0] = eject_port[dt]; dec[1] = 0; dec[2] = phase; dec[3] = decided; dec[4] = inter
        return True
    o = tbl[r, dr]
    going_up = False
    for i in range(up_port.shape[1]):
        if up_port[r, i] == o:
            going_up = True
            break
    if not going_up:
        ov = _best_ovc(credit, ovc_busy, out_term, r, o, 0, V)
        if ov < 0:
            return False
        dec[0] = o; dec[1] = ov; dec[2] = phase; dec[3] = decided; dec[4] = inter
        return True
    best_o = -1
    best_v = -1
    best_q = 0
    for i in range(up_port.shape[1]):
        u = up_port[r, i]
        if u < 0:
            break
        ov = _best_ovc(credit, ovc_busy, out_term, r, u, 0, V)
        if ov < 0:
            continue
        q = _qlen(credit, out_term, r, u, B)
        if best_o < 0 or q < best_q:
            best_o = u; best_v = ov; best_q = q
    if best_o < 0:
        return False
    dec[0] = best_o; dec[1] = best_v; dec[2] = phase; dec[3] = decided; dec[4] = inter
    return True


@njit(cache=True, _nrt=False)
def _decide(r, pid, algo, ncls, V, B, thr, coords, port_to, dims, term_router, eject_port, out_term, out_ch, ch_dst,
            credit, ovc_busy, pkt_dst, pkt_phase, pkt_decided, pkt_inter, dec, tbl, pkt_hops, p, in_ch, ch_src, port_lanes, tdist,
            tcls, up_port):
    """Route computation + output VC choice for the head flit of packet ``pid`` at router ``r`` (§R5, §R7).

    Writes (out_port, out_vc, phase, decided, inter) into ``dec``; returns False if no candidate is available.
    """
    dt = pkt_dst[pid]
    dr = term_router[dt]
    vpc = V // ncls
    phase = pkt_phase[pid]
    decided = pkt_decided[pid]
    inter = pkt_inter[pid]
    if algo == TABLE:
        # sp / dor / hdor / dest-tag: table next hop; VC class from the class table (dor, hdor: a function
        # of this router and the destination router, §R7d) or the hop index capped at the last class (§R7a)
        if r == dr:
            dec[0] = eject_port[dt]; dec[1] = 0; dec[2] = phase; dec[3] = decided; dec[4] = inter
            return True
        o = tbl[r, dr]
        cls = -1
        if tcls.shape[0] > 1:
            cls = tcls[r, dr]
        if cls < 0:
            cls = pkt_hops[pid]
            if cls >= ncls:
                cls = ncls - 1
        ov = _best_ovc(credit, ovc_busy, out_term, r, o, cls * vpc, (cls + 1) * vpc)
        if ov < 0:
            return False
        dec[0] = o; dec[1] = ov; dec[2] = phase; dec[3] = decided; dec[4] = inter
        return True
    if algo == TCLOS:
        return _decide_clos(r, dr, dt, V, B, tbl, up_port, eject_port, out_term, credit, ovc_busy, dec, phase,
                            decided, inter)
    if algo == TVAL or algo == TUGAL_L or algo == TUGAL_G:
        return _decide_table_nonmin(r, pid, algo, ncls, vpc, B, thr, tbl, tdist, eject_port, out_term, out_ch,
                                    ch_dst, credit, ovc_busy, pkt_phase, pkt_decided, pkt_inter, pkt_hops, dt, dr,
                                    dec)
    if algo == PRIO:
        return _decide_2dfb(r, pid, p, dr, dt, ncls, vpc, B, thr, coords, dims, eject_port, out_term, out_ch,
                            ch_dst, in_ch, ch_src, port_lanes, credit, ovc_busy, pkt_phase, pkt_hops, dec)
    if algo == MIN or algo == MIN_AD:
        if r == dr:
            o = eject_port[dt]
            dec[0] = o; dec[1] = 0; dec[2] = phase; dec[3] = decided; dec[4] = inter
            return True
        if algo == MIN:
            # dimension order; of parallel lanes (a dilated channel) the least loaded available one
            for d in range(coords.shape[1]):
                if coords[r, d] != coords[dr, d]:
                    if not _best_lane(credit, ovc_busy, out_term, port_lanes, r, d, coords[dr, d], 0, V, B, dec):
                        return False
                    dec[2] = phase; dec[3] = decided; dec[4] = inter
                    return True
            return False
        H = _hops(coords, r, dr)
        cls = coords.shape[1] - H
        best_o = -1
        best_v = -1
        best_q = 0
        for d in range(coords.shape[1]):
            if coords[r, d] != coords[dr, d]:
                if not _best_lane(credit, ovc_busy, out_term, port_lanes, r, d, coords[dr, d], cls * vpc,
                                  (cls + 1) * vpc, B, dec):
                    continue
                o = dec[0]; ov = dec[1]; q = dec[2]
                if best_o < 0 or q < best_q:
                    best_o = o; best_v = ov; best_q = q
        if best_o < 0:
            return False
        dec[0] = best_o; dec[1] = best_v; dec[2] = phase; dec[3] = decided; dec[4] = inter
        return True
    # VAL / UGAL / CLOS AD: two classes by phase
    if (algo == UGAL or algo == CLOS_AD) and decided == 0:
        # source router decision (§R7)
        if r == dr:
            o = eject_port[dt]
            dec[0] = o; dec[1] = 0; dec[2] = 1; dec[3] = 1; dec[4] = r
            return True
        Hm = _hops(coords, r, dr)
        o_min = _dor(coords, port_to, r, dr)
        v_min = _best_ovc(credit, ovc_busy, out_term, r, o_min, vpc, 2 * vpc)
        o_nm = -1
        v_nm = -1
        Hn = 0
        b = -1
        if algo == UGAL:
            b = inter
            if b != r and b != dr:
                o_nm = _dor(coords, port_to, r, b)
                Hn = _hops(coords, r, b) + _hops(coords, b, dr)
                v_nm = _best_ovc(credit, ovc_busy, out_term, r, o_nm, 0, vpc)
        else:
            jmax = -1
            for d in range(coords.shape[1]):
                if coords[r, d] != coords[dr, d]:
                    jmax = d
            best_q = 0
            for d in range(jmax + 1):
                for m in range(dims[d]):
                    o = port_to[r, d, m]
                    if o < 0 or o == o_min:
                        continue
                    ov = _best_ovc(credit, ovc_busy, out_term, r, o, 0, vpc)
                    if ov < 0:
                        continue
                    q = _qlen(credit, out_term, r, o, B)
                    if o_nm < 0 or q < best_q or (q == best_q and o < o_nm):
                        o_nm = o; v_nm = ov; best_q = q
            if o_nm >= 0:
                b = ch_dst[out_ch[r, o_nm]]
                Hn = 1 + _hops(coords, b, dr)
        prefer_min = v_min >= 0 and v_nm >= 0 and \
            _qlen(credit, out_term, r, o_min, B) * Hm <= _qlen(credit, out_term, r, o_nm, B) * Hn + thr
        return _ugal_commit(prefer_min, o_min, v_min, o_nm, v_nm, r, b, dec)
    # VAL, or UGAL/CLOS AD after the decision: DOR to the intermediate in phase 0, then to the destination
    if phase == 0 and r == inter:
        phase = 1
    if phase == 1 and r == dr:
        o = eject_port[dt]
        dec[0] = o; dec[1] = 0; dec[2] = phase; dec[3] = decided; dec[4] = inter
        return True
    target = inter if phase == 0 else dr
    o = _dor(coords, port_to, r, target)
    ov = _best_ovc(credit, ovc_busy, out_term, r, o, phase * vpc, (phase + 1) * vpc)
    if ov < 0:
        return False
    dec[0] = o; dec[1] = ov; dec[2] = phase; dec[3] = decided; dec[4] = inter
    return True


@njit(cache=True, _nrt=False)
def _grant(r, p, v, o, ov, nphase, ndecided, ninter, t, L, Tl, buf, bhead, bcnt, credit, ovc_busy, in_active,
           in_o, in_ov, oq, oqv, oq_head, oq_cnt, out_term, in_ch, in_term, cpipe, tcpipe, pkt_phase, pkt_decided,
           pkt_inter, pkt_hops, pkt_nhop, trace_on, hop_router, hop_port, hop_vc, hop_cycle, hop_hdr):
    """§R2 switch traversal of the front flit of input VC (r, p, v) to output (o, ov)."""
    Bd = buf.shape[3]
    flit = buf[r, p, v, bhead[r, p, v]]
    bhead[r, p, v] = (bhead[r, p, v] + 1) % Bd
    bcnt[r, p, v] -= 1
    pid = flit // L
    idx = flit - pid * L
    eject = out_term[r, o] >= 0
    if idx == 0:
        pkt_phase[pid] = nphase
        pkt_decided[pid] = ndecided
        pkt_inter[pid] = ninter
        if not eject:
            pkt_hops[pid] += 1
        if trace_on:
            h = pkt_nhop[pid]
            if h < hop_router.shape[1]:
                hop_router[pid, h] = r
                hop_port[pid, h] = o
                hop_vc[pid, h] = ov
                hop_cycle[pid, h] = t
                hop_hdr[pid, h] = nphase | (ndecided << 1) | (ninter << 2)  # the header it leaves with (§R9)
        pkt_nhop[pid] += 1
        if idx != L - 1:
            in_active[r, p, v] = 1
            in_o[r, p, v] = o
            in_ov[r, p, v] = ov
            ovc_busy[r, o, ov] = 1  # an ejection port's implicit VC is held head to tail too (§R5)
    elif idx == L - 1:
        in_active[r, p, v] = 0
        ovc_busy[r, o, ov] = 0
    if not eject:
        credit[r, o, ov] -= 1
    Q = oq.shape[2]
    slot = (oq_head[r, o] + oq_cnt[r, o]) % Q
    oq[r, o, slot] = flit
    oqv[r, o, slot] = ov
    oq_cnt[r, o] += 1
    # credit back upstream for the freed input slot
    c_in = in_ch[r, p]
    if c_in >= 0:
        cpipe[c_in, t % Tl, v] += 1
    else:
        tcpipe[in_term[r, p], t % Tl, v] += 1


@njit(cache=True, _nrt=False)
def run_cycles(t0, t1, algo, sequential, ncls, S, L, Tl, watchdog, thr, tbl, port_lanes, tdist, tcls, up_port,
               # topology / routing tables
               coords, port_to, dims, term_router, eject_port, out_term, out_ch, in_ch, in_term, ch_src, ch_src_port,
               ch_dst, ch_dst_port, inj_router, inj_port,
               # router state
               buf, bhead, bcnt, credit, ovc_busy, in_active, in_o, in_ov, ptr_in, ptr_out, ptr_seq,
               oq, oqv, oq_head, oq_cnt,
               # links
               pipe_flit, pipe_vc, tpipe_flit, tpipe_vc, cpipe, tcpipe, tcredit,
               # terminals
               sq_head, sq_tail, sq_flit, pkt_next, term_count,
               # packets
               new_cycle, new_pid, new_ptr, pkt_src, pkt_dst, pkt_phase, pkt_decided, pkt_inter, pkt_hops, pkt_nhop,
               pkt_injected, pkt_ejected, pkt_vc, trace_on, hop_router, hop_port, hop_vc, hop_cycle, hop_hdr,
               # statistics
               ch_flits, ej_flits, last_move,
               # scratch (allocated by the caller: the kernel runs without numba's runtime)
               dec, grants_o, grants_i, req_o, req_v, req_ph, req_dc, req_in, sel, bucket, bcount, tried):
    """Advance the network from cycle ``t0`` to ``t1`` (exclusive).

    Returns ``(status, cycle, new_ptr, last_move)``; ``status`` is STATUS_WATCHDOG when buffered flits
    have not moved for ``watchdog`` cycles.
    """
    R, P, V, B = buf.shape
    T = term_router.shape[0]
    ej_depth = V * B  # an ejection port's output queue holds at most V*B flits (§R2)
    C = ch_dst.shape[0]
    for t in range(t0, t1):
        moved = False
        # ---- packet creation (§R3): packets created in cycle t join their source queues
        while new_ptr < new_cycle.shape[0] and new_cycle[new_ptr] == t:
            pid = new_pid[new_ptr]
            s = pkt_src[pid]
            pkt_vc[pid] = term_count[s] % V  # packet i of a terminal uses VC i mod V (§R3)
            term_count[s] += 1
            if sq_tail[s] >= 0:
                pkt_next[sq_tail[s]] = pid
            else:
                sq_head[s] = pid
                sq_flit[s] = 0
            sq_tail[s] = pid
            new_ptr += 1
        # ---- allocation and switch traversal (§R5, §R6)
        for r in range(R):
            for o in range(P):
                grants_o[o] = 0
            for p in range(P):
                grants_i[p] = 0
            if sequential:
                start = ptr_seq[r]
                for i in range(P):
                    p = (start + i) % P
                    vstart = ptr_in[r, p]
                    for j in range(V):
                        if grants_i[p] >= S:
                            break
                        v = (vstart + j) % V
                        if bcnt[r, p, v] == 0:
                            continue
                        flit = buf[r, p, v, bhead[r, p, v]]
                        pid = flit // L
                        if in_active[r, p, v]:
                            o = in_o[r, p, v]
                            ov = in_ov[r, p, v]
                            if grants_o[o] >= S or (out_term[r, o] < 0 and credit[r, o, ov] <= 0) \
                                    or (out_term[r, o] >= 0 and oq_cnt[r, o] >= ej_depth):
                                continue
                            _grant(r, p, v, o, ov, pkt_phase[pid], pkt_decided[pid], pkt_inter[pid], t, L, Tl,
                                   buf, bhead, bcnt, credit, ovc_busy, in_active, in_o, in_ov, oq, oqv, oq_head,
                                   oq_cnt, out_term, in_ch, in_term, cpipe, tcpipe, pkt_phase, pkt_decided,
                                   pkt_inter, pkt_hops, pkt_nhop, trace_on, hop_router, hop_port, hop_vc, hop_cycle, hop_hdr)
                        else:
                            if not _decide(r, pid, algo, ncls, V, B, thr, coords, port_to, dims, term_router,
                                           eject_port, out_term, out_ch, ch_dst, credit, ovc_busy,
                                           pkt_dst, pkt_phase, pkt_decided, pkt_inter, dec, tbl, pkt_hops, p, in_ch, ch_src, port_lanes, tdist,
                                           tcls, up_port):
                                continue
                            o = dec[0]
                            if out_term[r, o] >= 0 and ovc_busy[r, o, 0]:
                                continue  # ejection port held by another packet (§R5): unavailable
                            if grants_o[o] >= S or (out_term[r, o] >= 0 and oq_cnt[r, o] >= ej_depth):
                                continue  # output full this cycle: wait, decision not committed
                            _grant(r, p, v, o, dec[1], dec[2], dec[3], dec[4], t, L, Tl,
                                   buf, bhead, bcnt, credit, ovc_busy, in_active, in_o, in_ov, oq, oqv, oq_head,
                                   oq_cnt, out_term, in_ch, in_term, cpipe, tcpipe, pkt_phase, pkt_decided,
                                   pkt_inter, pkt_hops, pkt_nhop, trace_on, hop_router, hop_port, hop_vc, hop_cycle, hop_hdr)
                        moved = True
                        grants_o[o] += 1
                        grants_i[p] += 1
                        ptr_in[r, p] = (v + 1) % V
                ptr_seq[r] = (start + 1) % P
            else:
                # 1. every requester decides on the start-of-cycle state
                any_req = False
                for p in range(P):
                    for v in range(V):
                        req_o[p, v] = -1
                        if bcnt[r, p, v] == 0:
                            continue
                        flit = buf[r, p, v, bhead[r, p, v]]
                        pid = flit // L
                        if in_active[r, p, v]:
                            o = in_o[r, p, v]
                            ov = in_ov[r, p, v]
                            if out_term[r, o] < 0 and credit[r, o, ov] <= 0:
                                continue
                            req_o[p, v] = o
                            req_v[p, v] = ov
                            req_ph[p, v] = pkt_phase[pid]
                            req_dc[p, v] = pkt_decided[pid]
                            req_in[p, v] = pkt_inter[pid]
                        else:
                            if not _decide(r, pid, algo, ncls, V, B, thr, coords, port_to, dims, term_router,
                                           eject_port, out_term, out_ch, ch_dst, credit, ovc_busy,
                                           pkt_dst, pkt_phase, pkt_decided, pkt_inter, dec, tbl, pkt_hops, p, in_ch, ch_src, port_lanes, tdist,
                                           tcls, up_port):
                                continue
                            if out_term[r, dec[0]] >= 0 and ovc_busy[r, dec[0], 0]:
                                continue  # ejection port held by another packet (§R5): unavailable
                            req_o[p, v] = dec[0]
                            req_v[p, v] = dec[1]
                            req_ph[p, v] = dec[2]
                            req_dc[p, v] = dec[3]
                            req_in[p, v] = dec[4]
                        any_req = True
                if not any_req:
                    continue
                # 2. input arbitration: up to S VCs per input, round robin from ptr_in
                for o in range(P):
                    bcount[o] = 0
                for p in range(P):
                    k = 0
                    for j in range(V):
                        v = (ptr_in[r, p] + j) % V
                        sel[p, v] = 0
                        if req_o[p, v] >= 0 and k < S:
                            sel[p, v] = 1
                            k += 1
                            o = req_o[p, v]
                            # bucket key: rank of input from ptr_out, then VC order within the input
                            key = ((p - ptr_out[r, o]) % P) * V + j
                            bucket[o, bcount[o]] = key * (P * V) + p * V + v
                            bcount[o] += 1
                # 3. output arbitration: round robin over inputs from ptr_out, up to S grants
                for o in range(P):
                    n = bcount[o]
                    if n == 0:
                        continue
                    for e in range(n):
                        tried[e] = 0
                    last_p = -1
                    for _ in range(n):
                        if grants_o[o] >= S:
                            break
                        best = -1
                        for e in range(n):
                            if tried[e] == 0 and (best < 0 or bucket[o, e] < bucket[o, best]):
                                best = e
                        tried[best] = 1
                        pv = bucket[o, best] % (P * V)
                        p = pv // V
                        v = pv - p * V
                        ov = req_v[p, v]
                        if out_term[r, o] < 0:
                            if credit[r, o, ov] <= 0:
                                continue
                            if in_active[r, p, v] == 0 and ovc_busy[r, o, ov]:
                                continue
                        elif oq_cnt[r, o] >= ej_depth or (in_active[r, p, v] == 0 and ovc_busy[r, o, 0]):
                            continue  # full ejection queue, or its implicit VC taken by an earlier head
                        _grant(r, p, v, o, ov, req_ph[p, v], req_dc[p, v], req_in[p, v], t, L, Tl,
                               buf, bhead, bcnt, credit, ovc_busy, in_active, in_o, in_ov, oq, oqv, oq_head,
                               oq_cnt, out_term, in_ch, in_term, cpipe, tcpipe, pkt_phase, pkt_decided,
                               pkt_inter, pkt_hops, pkt_nhop, trace_on, hop_router, hop_port, hop_vc, hop_cycle, hop_hdr)
                        moved = True
                        grants_o[o] += 1
                        grants_i[p] += 1
                        last_p = p
                        sel[p, v] = 2  # granted
                    if last_p >= 0:
                        ptr_out[r, o] = (last_p + 1) % P
                # 4. input pointers: one past the last granted VC in the input's round-robin order
                for p in range(P):
                    if grants_i[p] == 0:
                        continue
                    vstart = ptr_in[r, p]
                    for j in range(V - 1, -1, -1):
                        v = (vstart + j) % V
                        if sel[p, v] == 2:
                            ptr_in[r, p] = (v + 1) % V
                            break
        # ---- link: each output queue sends its oldest flit (§R2.3)
        slot = t % Tl
        for r in range(R):
            for o in range(P):
                if oq_cnt[r, o] == 0:
                    continue
                h = oq_head[r, o]
                flit = oq[r, o, h]
                ov = oqv[r, o, h]
                oq_head[r, o] = (h + 1) % oq.shape[2]
                oq_cnt[r, o] -= 1
                c = out_ch[r, o]
                if c >= 0:
                    pipe_flit[c, slot] = flit
                    pipe_vc[c, slot] = ov
                    ch_flits[c] += 1
                else:
                    pid = flit // L
                    ej_flits[t - t0] += 1
                    if flit - pid * L == L - 1:
                        pkt_ejected[pid] = t + Tl
                moved = True
        # ---- terminals inject (§R3): one flit per cycle on VC (packet index mod V)
        for s in range(T):
            pid = sq_head[s]
            if pid < 0:
                continue
            v = pkt_vc[pid]
            if tcredit[s, v] <= 0:
                continue
            tcredit[s, v] -= 1
            f = sq_flit[s]
            if f == 0:
                pkt_injected[pid] = t
            tpipe_flit[s, slot] = pid * L + f
            tpipe_vc[s, slot] = v
            moved = True
            if f == L - 1:
                nxt = pkt_next[pid]
                sq_head[s] = nxt
                sq_flit[s] = 0
                if nxt < 0:
                    sq_tail[s] = -1
            else:
                sq_flit[s] = f + 1
        # ---- arrivals at the end of the cycle (§R2.4): flits and credits sent in cycle t+1-Tl
        aslot = (t + 1) % Tl
        for c in range(C):
            flit = pipe_flit[c, aslot]
            if flit >= 0:
                _enqueue(buf, bhead, bcnt, ch_dst[c], ch_dst_port[c], pipe_vc[c, aslot], flit)
                pipe_flit[c, aslot] = -1
            for v in range(V):
                n = cpipe[c, aslot, v]
                if n:
                    credit[ch_src[c], ch_src_port[c], v] += n
                    cpipe[c, aslot, v] = 0
        for s in range(T):
            flit = tpipe_flit[s, aslot]
            if flit >= 0:
                _enqueue(buf, bhead, bcnt, inj_router[s], inj_port[s], tpipe_vc[s, aslot], flit)
                tpipe_flit[s, aslot] = -1
            for v in range(V):
                n = tcpipe[s, aslot, v]
                if n:
                    tcredit[s, v] += n
                    tcpipe[s, aslot, v] = 0
        if moved:
            last_move = t
        elif t - last_move > watchdog:
            # anything buffered?
            for r in range(R):
                for p in range(P):
                    for v in range(V):
                        if bcnt[r, p, v] > 0:
                            return STATUS_WATCHDOG, t, new_ptr, last_move
            last_move = t
    return STATUS_OK, t1, new_ptr, last_move
