"""The ``subswitch`` model's sub-switch allocator (router-spec §R12 SA): a ``G × G`` separable allocator, local.

Sub-switch ``(r, c)`` joins the inputs of row ``r`` to the outputs of column ``c``. Its requesters are the
front flits of its row buffers (one per input and VC); its resources are the column buffers it feeds (one per
output of its column and output VC, at the outputs) and its only knowledge of them is its own: a credit
counter per column buffer (returned a cycle after the output pops, so counted at the end of the cycle after
the pop), whether a packet of its own holds it, and which output VC each of its row-buffer VCs is bound to.
Nothing here reads another sub-switch or an output's state.

Per cycle, per output of the column, one round-robin arbiter (``ptr_sa``, moving past a grant only) over the
``G · V`` row-buffer VCs (lanes ``i · V + v``) whose front flit is for it and may go: a head with an output VC
of its class whose column buffer no packet holds and has a credit (it is given the one with the most credits,
ties to the lowest index), a body or tail whose bound column buffer has a credit. There is no input arbiter:
each row buffer has its own read port, so two VCs of one input may leave for two outputs in one cycle. A
granted head of a packet longer than a flit holds its column buffer and binds its VC to the output VC; a
granted tail releases both. Each arbiter is :class:`~radixnet.hdl.alloc.go.OutputArbiter` (the pointer a
thermometer-mask register, one carry chain), and every update (the credit taken, the lock, the binding) is one
AND-OR of its one-hot grant with values computed per lane beside the request. The grants are outputs of logic:
the router registers them, and the granted flits leave their row buffers a cycle later (so a row-buffer VC
granted in the last cycle shows this allocator the flit behind the one leaving).

Examples
--------
>>> from radixnet.hdl.verilog import to_verilog
>>> "module sa(" in to_verilog(SubSwitchAllocator(2, [2, 1], 2, 1, 4), "sa")
True
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..arbiter import check_int, mux_onehot, or_all, ptr_width, reject
from ..credits import CreditCounter
from .go import OutputArbiter

__all__ = ["SubSwitchAllocator"]


class SubSwitchAllocator(wiring.Component):
    """One sub-switch's allocator (module docstring; router-spec §R12).

    Parameters
    ----------
    n_in : int
        Inputs of the sub-switch's row (``G``, fewer in the last row).
    ovcs : list of int
        Per output of its column, the output VCs it has a column buffer for: ``V`` for a network output,
        1 for an ejection output.
    n_vcs : int
        ``V``, VCs per input (row-buffer VCs per input).
    n_classes : int
        ``K``, the routing's VC classes (``V`` a multiple of it; class ``k`` is VCs ``[k V/K, (k+1) V/K)``).
    depth : int
        ``Bs``, flits per column buffer (the credit counters' reset value).
    check : bool
        Emit the credit counters' assertions.

    Attributes
    ----------
    rdy_in_ivc : list of Signal(n_vcs), in
        Per input, the row-buffer VCs holding a flit.
    o_in_ivc, cls_in_ivc : list of list of Signal, in
        Per input and VC, the front flit's output (its index in the column) and VC class.
    head_in_ivc, tail_in_ivc : list of Signal(n_vcs), in
        Per input, the front flits' head and tail bits.
    ret_op_ovc : list of Signal, in
        Per output of the column, a credit of each of its column buffers coming back (bit ``w``).
    pop_in_ivc : list of Signal(n_vcs), out
        Per input, the row-buffer VCs granted (by different outputs; 0 when none).
    gnt_op_lane : list of Signal(n_in * n_vcs), out
        Per output, the lane granted (one-hot over ``i * n_vcs + v``, or 0).
    ovc_op : list of Signal, out
        Per output, the output VC of its grant (the column buffer it writes).
    error : Signal(1), out
        A credit counter's underflow or overflow (never under the protocol).
    """

    def __init__(self, n_in: int, ovcs, n_vcs: int, n_classes: int, depth: int, *, check: bool = True):
        self.n_in = check_int(self, "n_in", "inputs of the sub-switch's row", n_in, 1)
        self.n_vcs = check_int(self, "n_vcs", "VCs per input", n_vcs, 1)
        self.n_classes = check_int(self, "n_classes", "VC classes", n_classes, 1)
        self.depth = check_int(self, "depth", "flits per column buffer", depth, 1)
        if not ovcs or any(w not in (1, n_vcs) for w in ovcs):
            reject(self, f"ovcs (column buffers per output) must be a non-empty list of 1 (ejection) or n_vcs "
                         f"({n_vcs}), got {ovcs!r}")
        if n_vcs % n_classes:
            reject(self, f"n_vcs ({n_vcs}) must be a multiple of n_classes, got {n_classes}")
        self.ovcs, self.check = list(ovcs), check
        G, V = n_in, n_vcs
        ow, vw, kw = ptr_width(len(ovcs)), ptr_width(V), ptr_width(n_classes)
        super().__init__({
            "rdy_in_ivc": In(V).array(G),
            "o_in_ivc": In(ow).array(G, V),
            "cls_in_ivc": In(kw).array(G, V),
            "head_in_ivc": In(V).array(G),
            "tail_in_ivc": In(V).array(G),
            "ret_op_ovc": In(V).array(len(ovcs)),
            "pop_in_ivc": Out(V).array(G),
            "gnt_op_lane": Out(G * V).array(len(ovcs)),
            "ovc_op": Out(vw).array(len(ovcs)),
            "error": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        G, V, J, K = self.n_in, self.n_vcs, len(self.ovcs), self.n_classes
        vpc = V // K
        vw = ptr_width(V)
        errors = []
        # ---- the column buffers' credits, holds (a packet of this sub-switch streams into it) and bindings
        cred = [[None] * V for _ in range(J)]
        for j, W in enumerate(self.ovcs):
            for w in range(W):
                cc = CreditCounter(self.depth, check=self.check, thresholds=1)   # ge[0]: count >= 1, a register
                m.submodules[f"cb_credit_op_{j}_ovc_{w}"] = cc
                m.d.comb += cc.ret.eq(self.ret_op_ovc[j][w])
                errors.append(cc.error)
                cred[j][w] = cc
        lock = [Signal(W, name=f"cb_lock_op_{j}_ovc") for j, W in enumerate(self.ovcs)]
        bound = [[Signal(vw, name=f"sa_ovc_in_{i}_ivc_{v}") for v in range(V)] for i in range(G)]

        # ---- per output and VC class, from registers only: the free column buffer with the most credits (ties
        # to the lowest index) and whether there is one; a head then selects its output's and class's pair, so
        # the comparisons leave the per-input path (the same choice as comparing after the selection)
        best_jk = [[None] * K for _ in range(J)]
        any_jk = [[None] * K for _ in range(J)]
        for j, W in enumerate(self.ovcs):
            for k in range(K if W > 1 else 1):
                ws = range(k * vpc, (k + 1) * vpc) if W > 1 else range(1)
                best, best_n, any_free = Const(0, vw), Const(0, len(cred[0][0].count)), Const(0, 1)
                for w in ws:
                    free = ~lock[j][w] & cred[j][w].ge[0]
                    better = free & (~any_free | (cred[j][w].count > best_n))
                    b2, n2, a2 = (Signal(vw, name=f"sa_best_op_{j}_cls_{k}_{w}"),
                                  Signal(len(best_n), name=f"sa_bestn_op_{j}_cls_{k}_{w}"),
                                  Signal(name=f"sa_any_op_{j}_cls_{k}_{w}"))
                    m.d.comb += [b2.eq(Mux(better, w, best)), n2.eq(Mux(better, cred[j][w].count, best_n)),
                                 a2.eq(any_free | free)]
                    best, best_n, any_free = b2, n2, a2
                for kk in (range(K) if W == 1 else [k]):   # an ejection output's one VC serves every class
                    best_jk[j][kk], any_jk[j][kk] = best, any_free

        # ---- per output, its requests: a lane whose front flit is for it and may go (a head: a free column buffer
        # of its class, from the registers above; a body or tail: its bound column buffer has a credit); beside
        # each request, from the same registers and fronts, what a grant of that lane would do: the column
        # buffer it takes (one-hot over w), whether it locks or releases it, the output VC a head binds. After
        # the arbiter's chain each update is one AND-OR of the one-hot grant with these (no index, no compare).
        pop = [[[] for _ in range(V)] for _ in range(G)]
        bind = [[[] for _ in range(V)] for _ in range(G)]
        for j, W in enumerate(self.ovcs):
            req, tk_lane, set_lane, clr_lane, w_lane = [], [], [], [], []
            for i in range(G):
                for v in range(V):
                    cls, head, tail = self.cls_in_ivc[i][v], self.head_in_ivc[i][v], self.tail_in_ivc[i][v]
                    sel_k = [(cls == k) if K > 1 else Const(1, 1) for k in range(K)]
                    free = Cat(*[sel_k[k] & any_jk[j][k] for k in range(K)]).any()
                    best = or_all([Mux(sel_k[k], best_jk[j][k], 0) for k in range(K)])
                    body_ok = Cat(*[(bound[i][v] == w) & cred[j][w].ge[0] for w in range(W)]).any()
                    r = Signal(name=f"sa_req_op_{j}_in_{i}_ivc_{v}")
                    m.d.comb += r.eq(self.rdy_in_ivc[i][v] & (self.o_in_ivc[i][v] == j) & Mux(head, free, body_ok))
                    req.append(r)
                    wl = Signal(vw, name=f"sa_w_op_{j}_in_{i}_ivc_{v}")
                    m.d.comb += wl.eq(Mux(head, best, bound[i][v]) if W > 1 else 0)
                    tk = Signal(W, name=f"sa_tk_op_{j}_in_{i}_ivc_{v}")
                    m.d.comb += tk.eq(Cat(*[wl == w for w in range(W)]))
                    w_lane.append(wl)
                    tk_lane.append(tk)
                    set_lane.append(Mux(head & ~tail, tk, 0))
                    clr_lane.append(Mux(tail, tk, 0))
            arb = OutputArbiter(G * V, 1)   # round robin, the pointer a thermometer-mask register, one chain
            m.submodules[f"sa_arb_op_{j}"] = arb
            m.d.comb += [arb.req.eq(Cat(*req)), self.gnt_op_lane[j].eq(arb.first)]
            # the chain's 2n-bit one-hot (the requests at or after the pointer, then all): each select one AND-OR
            n = G * V
            low = arb.first_hl

            def by_grant(vals, name, width):
                sig = Signal(width, name=name)
                m.d.comb += sig.eq(mux_onehot(low, vals + vals))
                return sig

            take = by_grant(tk_lane, f"sa_take_op_{j}", W)
            lset = by_grant(set_lane, f"sa_lock_set_op_{j}", W)
            lclr = by_grant(clr_lane, f"sa_lock_clr_op_{j}", W)
            m.d.comb += self.ovc_op[j].eq(by_grant(w_lane, f"sa_w_op_{j}", vw) if W > 1 else 0)
            for w in range(W):
                m.d.comb += cred[j][w].take.eq(take[w])
            m.d.sync += lock[j].eq((lock[j] & ~lclr) | lset)
            for i in range(G):
                for v in range(V):
                    g = Signal(name=f"sa_gnt_op_{j}_in_{i}_ivc_{v}")
                    m.d.comb += g.eq(low[i * V + v] | low[n + i * V + v])
                    pop[i][v].append(g)
                    bind[i][v].append(Mux(g, w_lane[i * V + v], 0))
        # ---- the lanes granted leave (a head binds its VC to the output VC it was given)
        for i in range(G):
            m.d.comb += self.pop_in_ivc[i].eq(Cat(*[Cat(*pop[i][v]).any() for v in range(V)]))
            for v in range(V):
                with m.If(self.pop_in_ivc[i][v] & self.head_in_ivc[i][v] & ~self.tail_in_ivc[i][v]):
                    m.d.sync += bound[i][v].eq(or_all(bind[i][v]))
        m.d.comb += self.error.eq(Cat(*errors).any())
        return m
