"""The decision line of UGAL-S under ``hiradix`` (router-spec §R11.2a).

Every flit of a router's injection ports crosses ``Lw = 5 + ceil(N / g)`` registers on its way from the
link to the input buffer (``N`` the injection ports, ``g`` the wavefront's decisions per serve stage). The
heads that enter the line in one cycle are a batch: in the next cycle (the one in which they sit in the
line's first register, ``e``) their candidates go into a
:class:`~radixnet.hdl.seq_alloc.WavefrontAllocator` with RI's copy of the queue lengths of cycle ``e``, and
``Lw - 1`` cycles later, as each head leaves the line's last register into its input unit, the allocator's
choice is written into the head's ``phase`` bit: the head's **preference** (1: the non-minimal route), which
RI reads for an undecided head (§R11.2a "RI").

Per head whose destination is another router ``c != d``: candidate 0 the minimal route (the DOR port toward
``d``, weight ``H(c, d)``, bias 0), candidate 1 the non-minimal one (the DOR port toward ``b``, weight
``H(c, b) + H(b, d)``, bias ``θ``; none when ``b`` is ``c`` or ``d``). Availability plays no part; the
allocator's ``S = 3``. A head that ejects here, and every body flit, cross the line unchanged.

Examples
--------
>>> from radixnet.gen import build
>>> net = build("fbfly", k=4, n=2)
>>> line = DecisionLine(net, 0, 4, 4, [0, 1, 2, 3], per_stage=1)
>>> line.latency, line.allocator.latency
(9, 8)
>>> DecisionLine(net, 0, 4, 4, [], per_stage=1)
Traceback (most recent call last):
...
ValueError: DecisionLine: ports (the injection ports it serves) must be a non-empty list of distinct ports < 7, got []
"""

from __future__ import annotations

from amaranth import Cat, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..gen.router_config import DATA_WIDTH, ROUTER_DEFAULTS
from ..gen.router_model import LINE_S, line_latency
from .arbiter import check_int, next_ptr, ptr_width, reject
from .flit import flit_widths
from .route_hyperx import HyperXRoute
from .seq_alloc import WavefrontAllocator

__all__ = ["DecisionLine", "LINE_S", "line_latency"]

class DecisionLine(wiring.Component):
    """The decision line of one router's injection ports (router-spec §R11.2a).

    Parameters
    ----------
    net : radixnet.gen.Network
        A HyperX-family network.
    router_id : int
        The router.
    n_vcs, vc_depth : int
        ``V`` and ``B`` of the router's outputs (they size the queue lengths).
    ports : list of int
        The router's injection ports, in port order (the allocator's requester ``i`` is ``ports[i]``).
    per_stage : int
        ``g``, decisions per serve stage of the wavefront (``--seq-wavefront``), ``>= 1``.
    threshold : int
        UGAL's bias ``θ`` (flit-hops), ``>= 0``.
    data_width : int
        Payload bits of the flit (its layout is the router's).

    Attributes
    ----------
    in_flit_ln, out_flit_ln : list of View(flit), in / out
        Per injection port ``ports[i]``: the flit from the link this cycle; the flit leaving the line (its
        head's ``phase`` the preference).
    in_valid_ln, out_valid_ln : Signal(N), in / out
        Bit ``i``: the flit above is one.
    q_op : list of Signal, in
        Per router port, ``q(o)`` of RI's copy (§R11.1) in this cycle; 0 on an ejection port.
    latency : int
        ``Lw``.
    allocator : WavefrontAllocator
        The allocator in the line (``N`` requesters, the router's ports as outputs, two candidates).
    """

    def __init__(self, net, router_id: int, n_vcs: int, vc_depth: int, ports, *, per_stage: int,
                 threshold: int = ROUTER_DEFAULTS["ugal_threshold"], data_width: int = DATA_WIDTH):
        self.per_stage = check_int(self, "per_stage", "decisions per serve stage of the wavefront", per_stage, 1)
        self.threshold = check_int(self, "threshold", "UGAL bias theta in flit-hops", threshold, 0)
        self.net, self.router_id = net, router_id
        P = int(net.radix[router_id])
        ports = list(ports) if isinstance(ports, (list, tuple)) else ports
        if not isinstance(ports, list) or not ports or len(set(ports)) != len(ports) \
                or not all(isinstance(p, int) and 0 <= p < P for p in ports):
            reject(self, f"ports (the injection ports it serves) must be a non-empty list of distinct ports < {P}, "
                         f"got {ports!r}")
        self.ports, self.n_ports = ports, P
        rt = HyperXRoute(net, router_id)   # validates the family; sizes the hop weights
        rt._MustUse__silence = True
        self.q_bits = (n_vcs * vc_depth).bit_length()
        N = len(ports)
        self.allocator = WavefrontAllocator(N, P, 2, s=LINE_S, q_bits=self.q_bits, hop_bits=len(rt.hops_cbd),
                                            bias_bits=max(1, threshold.bit_length()), per_stage=per_stage)
        self.latency = line_latency(N, per_stage)
        assert self.latency == self.allocator.latency + 1
        lay = flit_widths(net, n_vcs, data_width).layout()
        self.flit_layout = lay
        super().__init__({
            "in_flit_ln": In(lay).array(N),
            "in_valid_ln": In(N),
            "q_op": In(self.q_bits).array(P),
            "out_flit_ln": Out(lay).array(N),
            "out_valid_ln": Out(N),
        })

    def elaborate(self, platform):
        m = Module()
        N, P, Lw = len(self.ports), self.n_ports, self.latency
        alloc = self.allocator
        m.submodules.alloc = alloc
        # the line: Lw registers per port; stage k holds in cycle e + k what the link carried in e - 1
        line = []
        for i in range(N):
            stages = []
            prev_f, prev_v = self.in_flit_ln[i].as_value(), self.in_valid_ln[i]
            for k in range(Lw):
                f = Signal(len(prev_f), name=f"line_flit_ln_{i}_s{k}")
                v = Signal(name=f"line_valid_ln_{i}_s{k}")
                m.d.sync += [f.eq(prev_f), v.eq(prev_v)]
                stages.append((f, v))
                prev_f, prev_v = f, v
            line.append(stages)
        # the batch: the heads in the first register, decided on this cycle's copy from ptr_line
        ptr_line = Signal(ptr_width(N), name="ptr_line")   # the injection port served first; every cycle one on
        if N > 1:
            m.d.sync += ptr_line.eq(next_ptr(m, ptr_line, None, N, "ptr_line_next"))
        m.d.comb += alloc.start.eq(ptr_line)
        m.d.comb += [alloc.q_op[o].eq(self.q_op[o]) for o in range(P)]
        lay = self.flit_layout
        for i in range(N):
            f0, v0 = line[i][0]
            hdr = lay(f0)
            rt = HyperXRoute(self.net, self.router_id)
            m.submodules[f"route_ln_{i}"] = rt
            m.d.comb += [rt.dest.eq(hdr.dest), rt.inter.eq(hdr.inter)]
            src = Signal(name=f"line_src_ln_{i}")   # a head to decide: not ejecting here
            m.d.comb += src.eq(v0 & hdr.head & ~hdr.decided & rt.dest_ok & ~rt.eject)
            m.d.comb += [alloc.valid_rq_cd[i].eq(Cat(src, src & ~rt.inter_here & ~rt.inter_is_dest)),
                         alloc.op_rq_cd[i][0].eq(rt.dor_port), alloc.op_rq_cd[i][1].eq(rt.inter_port),
                         alloc.hops_rq_cd[i][0].eq(rt.hops_cd), alloc.hops_rq_cd[i][1].eq(rt.hops_cbd),
                         alloc.bias_rq_cd[i][0].eq(0), alloc.bias_rq_cd[i][1].eq(self.threshold)]
            # leaving: the allocator's outputs are the batch of this head's cycle; its choice is the preference
            f, v = line[i][Lw - 1]
            out = lay(f)
            m.d.comb += [self.out_flit_ln[i].eq(f), self.out_valid_ln[i].eq(v),
                         self.out_flit_ln[i].phase.eq(Mux(alloc.req_rq[i], alloc.sel_rq[i][0], out.phase))]
        return m
