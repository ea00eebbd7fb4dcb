"""Adaptive route decisions of one HyperX-family router (router-spec §R7, §R7b).

Five combinational units, one per routing family, each the route computation
of **one requester** (an input VC with a head flit) at one router:

* :class:`MinAdDecide` -- ``min-ad`` (Kim, Dally & Abts 2007 §3.1 "MIN AD");
* :class:`MinDecide` -- ``min`` where a neighbour is reached over parallel lanes (§R7);
* :class:`UgalDecide` -- ``ugal`` / ``ugal-s`` (Kim §3.1 "UGAL, UGAL-S"), and ``val``;
* :class:`ClosAdDecide` -- ``clos-ad`` (Kim §3.1 "CLOS AD");
* :class:`PriorityFlagDecide` -- ``2dfb-adaptive`` (Thamarakuzhi & Chandy §III, Algorithm 1;
  router-spec §R7b).

Each is built from a :class:`radixnet.gen.Network` of the HyperX family and a
router id: the coordinates and the port layout come from
:func:`radixnet.gen.routing.compile_hyperx` at elaboration (through
:class:`~radixnet.hdl.route_hyperx.HyperXRoute`'s logic, built inline), so no route
table is stored. They are ``_decide`` / ``_decide_2dfb`` of
``radixnet.golden.kernel`` for the routings above, without the output VC
choice (§R5), which the router makes with the
:class:`~radixnet.hdl.vc_select.OutputVCSelect` of the chosen (port, class):
the unit outputs the port and the class, the select unit the VC.

Inputs from the router (per **network** output port, in port order: entry
``i`` is port ``net_ports[i]``, see :mod:`radixnet.hdl.route_hyperx`):

* ``q_np[i]``: the queue length ``q(o) = sum_v (B - credit[o][v])`` (§R7), as
  :class:`~radixnet.hdl.vc_select.QueueLength` computes it;
* ``avail_np_cls[i]``: bit ``k`` set iff class ``k`` of the port has an idle VC
  with a credit (``OutputVCSelect(..., n_classes=K).valid`` with ``cls = k``);
  a candidate whose class bit is clear is **unavailable** and left out of
  every comparison (§R7).

Outputs (all units): ``port``, ``cls`` (VC class; don't-care on ejection),
``eject`` (``port`` is the destination terminal's ejection port; the unit
says ``valid`` there, like ``_decide``: the router itself skips an ejection
port another packet holds, §R5), ``valid`` (some candidate is available), and
the head-flit header fields it leaves with, ``phase_out``, ``decided_out``,
``inter_out``, ``h1_out`` (§R4). Under the sequential allocator (``ugal-s``,
``clos-ad``, ``2dfb-adaptive``, §R6) the router feeds each requester the
state left by the earlier grants; the decision logic is the same.

``fault`` builds a deliberately wrong variant (for the tests that show the
comparison with the golden model catches it): ``None`` is the spec.

Examples
--------
>>> from radixnet.gen import build
>>> net = build("fbfly", k=4, n=2)
>>> u = UgalDecide(net, 0, n_vcs=2, depth=4)
>>> u.n_classes, u.net_ports, u.q_bits
(2, (4, 5, 6), 4)
>>> from radixnet.hdl.verilog import to_verilog
>>> header = to_verilog(u, "ugal").split("module ugal(")[1].split(");")[0].split(", ")
>>> sorted(x for x in header if "__" not in x or x.endswith("__0"))
['avail_np_cls__0', 'cls', 'decided', 'decided_out', 'dest', 'eject', 'h1', 'h1_out', 'inter', 'inter_out',
 'phase', 'phase_out', 'port', 'q_np__0', 'valid']
>>> PriorityFlagDecide(net, 0, n_vcs=3, depth=4)
Traceback (most recent call last):
...
ValueError: PriorityFlagDecide: n_vcs (virtual channels) must be a multiple of the routing's 2 VC classes (router-spec §R5), got 3
"""

from __future__ import annotations

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..gen.router_config import ROUTER_DEFAULTS
from .arbiter import check_int, lowest_one, ptr_width, reject
from .flit import HOPS_BITS
from .route_hyperx import hyperx_logic, hyperx_router, select_onehot

__all__ = ["MinAdDecide", "MinDecide", "UgalDecide", "ClosAdDecide", "PriorityFlagDecide"]


def _argmin(m: Module, items, key_bits: int, payload_bits: int, name: str, *, ties_high: bool = False):
    """Balanced tree over ``items`` = [(valid, key, payload), ...] in priority order.

    Returns ``(valid, key, payload)`` of the valid item with the smallest key, ties to the earliest
    (``ties_high``: the latest, a deliberate fault). Each node keeps its left operand unless the right
    one is valid and its key strictly smaller (or the left is invalid), so the tree computes the
    lexicographic minimum of (key, position) that a linear scan with ``<`` finds.
    """
    level = list(items)
    depth = 0
    while len(level) > 1:
        nxt = []
        for j in range(0, len(level) - 1, 2):
            (va, ka, pa), (vb, kb, pb) = level[j], level[j + 1]
            tag = f"{name}_{depth}_{j // 2}"
            take_b = Signal(name=f"{tag}_take_b")
            better = (kb <= ka) if ties_high else (kb < ka)
            m.d.comb += take_b.eq(vb & (~va | better))
            v, k, p = Signal(name=f"{tag}_valid"), Signal(key_bits, name=f"{tag}_key"), \
                Signal(payload_bits, name=f"{tag}_payload")
            m.d.comb += [v.eq(va | vb), k.eq(Mux(take_b, kb, ka)), p.eq(Mux(take_b, pb, pa))]
            nxt.append((v, k, p))
        if len(level) % 2:
            nxt.append(level[-1])
        level, depth = nxt, depth + 1
    return level[0]


def _any(values):
    """OR of a list of 1-bit values (0 for an empty list)."""
    return Cat(*values).any() if values else Const(0, 1)


class _Decide(wiring.Component):
    """Common parameters, ports and checks of the decision units (not used directly)."""

    #: deliberate bugs a unit can be built with; None is the spec
    FAULTS: tuple = (None,)
    #: the routing names the unit implements (first: the default)
    ROUTINGS: tuple = ()
    #: extra inputs beyond dest/q_np/avail_np_cls
    _inputs: tuple = ("phase", "decided", "inter", "h1")

    def __init__(self, net, router_id: int, n_vcs: int, depth: int, *, threshold: int = ROUTER_DEFAULTS["threshold"],
                 fault=None, routing: str | None = None, dest_bits: int | None = None):
        self.__dict__.update(hyperx_router(self, net, router_id))
        self.n_vcs = check_int(self, "n_vcs", "virtual channels", n_vcs, 1)
        self.depth = check_int(self, "depth", "flits per downstream VC buffer", depth, 1)
        self.threshold = check_int(self, "threshold", self._threshold_what, threshold, 0)
        if fault not in self.FAULTS:
            reject(self, f"fault (deliberate bug for fault-injection tests) must be one of "
                          f"{', '.join(map(repr, self.FAULTS))}, got {fault!r}")
        self.fault = fault
        routing = self.ROUTINGS[0] if routing is None else routing
        if routing not in self.ROUTINGS:
            reject(self, f"routing (the routing it decides for) must be one of {', '.join(self.ROUTINGS)}, "
                          f"got {routing!r}")
        self.routing = routing
        self.n_classes = self._classes()
        if n_vcs % self.n_classes:
            reject(self, f"n_vcs (virtual channels) must be a multiple of the routing's {self.n_classes} VC "
                          f"classes (router-spec §R5), got {n_vcs}")
        if dest_bits is None:
            dest_bits = ptr_width(self.n_terminals)
        self.dest_bits = check_int(self, "dest_bits", "width of the dest input", dest_bits,
                                    ptr_width(self.n_terminals))
        #: width of each q_np entry: range(n_vcs * depth + 1), as QueueLength.q
        self.q_bits = (n_vcs * depth).bit_length()
        N, K, pw, ib = len(self.net_ports), self.n_classes, ptr_width(self.n_ports), ptr_width(self.n_routers)
        ins = {"phase": In(1), "decided": In(1), "inter": In(ib), "h1": In(1),
               "hops": In(HOPS_BITS), "in_port": In(pw)}
        members = {"dest": In(self.dest_bits)}
        members |= {k: ins[k] for k in self._inputs}
        if routing != "val":        # Valiant routing reads no queue
            members["q_np"] = In(range(n_vcs * depth + 1)).array(N)
        members |= {
            "avail_np_cls": In(K).array(N),
            "port": Out(pw),
            "cls": Out(ptr_width(K)),
            "eject": Out(1),
            "valid": Out(1),
            "phase_out": Out(1),
            "decided_out": Out(1),
            "inter_out": Out(ib),
            "h1_out": Out(1),
        }
        super().__init__(members | self._more_members())

    def _more_members(self) -> dict:
        """Ports a subclass adds (none here)."""
        return {}

    _threshold_what = "UGAL bias theta in flit-hops"

    def _classes(self) -> int:
        return 2

    def _route(self, m: Module, intermediate: bool):
        """The :class:`~radixnet.hdl.route_hyperx.HyperXRoute` signals, built inline (one flat module)."""
        return hyperx_logic(m, self, self.dest, self.inter if intermediate else None, self.dest_bits)

    def _avail(self, i: int, cls):
        """Availability of network port i in class ``cls`` (an int or a signal)."""
        a = self.avail_np_cls[i]
        return a[cls] if isinstance(cls, int) else a.bit_select(cls, 1)


class MinAdDecide(_Decide):
    """``min-ad``: the productive output with the smallest ``q``, ties to the lowest dimension (§R7).

    Kim §3.1 MIN AD: "choosing for the next hop the productive channel with the shortest queue";
    ``n'`` VC classes "selected based on the number of hops remaining": class ``n' - H(c, d)``.
    Parallel lanes (§R7): of a neighbour's lanes the one with an available VC and the shortest ``q``,
    ties to the lowest lane. Together: over the available productive ports, the lexicographic minimum
    of ``(q, dimension, lane)`` (``_decide`` ``MIN_AD``). At the destination router: its ejection port.
    The header passes through unchanged.

    Parameters
    ----------
    net : radixnet.gen.Network
        HyperX-family network (see :class:`~radixnet.hdl.route_hyperx.HyperXRoute`).
    router_id : int
        This router.
    n_vcs : int
        ``V``, VCs per port, a multiple of the ``n' = D`` classes.
    depth : int
        ``B``, flits per VC buffer (``q_np`` entries are ``range(V*B + 1)``).
    threshold : int
        Unused by ``min-ad`` (accepted for a uniform constructor), ``>= 0``.
    fault : None or "ties_high"
        ``"ties_high"``: ties go to the highest (dimension, lane) -- a deliberate bug.

    Attributes
    ----------
    dest : Signal(ptr_width(T)), in
        Destination terminal.
    phase, decided, h1 : Signal(1), in;  inter : Signal(ptr_width(R)), in
        Header fields (passed through).
    q_np : list of Signal(range(V*B + 1)), in
        Queue length of each network output port.
    avail_np_cls : list of Signal(D), in
        Per network output port, bit ``k``: class ``k`` has an available VC.
    port, cls, eject, valid, phase_out, decided_out, inter_out, h1_out : out
        The decision (see the module docstring).

    Examples
    --------
    Router 3 of the 8-ary 1-dim 2DFB toward router 5 (terminal 40): the two lanes, ports 16 and 17,
    are productive; the lighter one wins, in class ``n' - H = 0``.

    >>> from amaranth.sim import Simulator
    >>> from radixnet.gen import build
    >>> u = MinAdDecide(build("2dfb", k=8, n=1), 3, n_vcs=1, depth=4)
    >>> u.n_classes, [p for p in u.net_ports if u.port_info[p][3] == 5]
    (1, [16, 17])
    >>> async def bench(ctx):
    ...     ctx.set(u.dest, 40)
    ...     for i, p in enumerate(u.net_ports):
    ...         ctx.set(u.q_np[i], {16: 3, 17: 2}.get(p, 0))
    ...         ctx.set(u.avail_np_cls[i], 1)
    ...     print(ctx.get(u.valid), ctx.get(u.port), ctx.get(u.cls))
    >>> sim = Simulator(u)
    >>> sim.add_testbench(bench)
    >>> sim.run()
    1 17 0
    """

    FAULTS = (None, "ties_high")
    ROUTINGS = ("min-ad",)
    _threshold_what = "unused by min-ad"

    def _classes(self) -> int:
        return self.n_dims

    def _hop_class(self, m: Module, rt):
        """The VC class of a hop: ``n' - H(c, d)`` (0 at the destination router)."""
        K = self.n_classes
        cls = Signal(ptr_width(K), name="cls_hops_left")
        m.d.comb += cls.eq(Mux(rt.eject, 0, K - rt.hops_cd))
        return cls

    def _candidate(self, rt, p: int):
        """Whether network port ``p`` is a candidate of the hop: any productive port."""
        return rt.prod_np[self.np_index[p]]

    def elaborate(self, platform):
        m = Module()
        rt = self._route(m, intermediate=False)
        cls = self._hop_class(m, rt)
        order = sorted(self.net_ports, key=lambda p: (self.port_info[p][0], self.port_info[p][2],
                                                       self.port_info[p][1]))
        pw = ptr_width(self.n_ports)
        items = []
        for p in order:
            i = self.np_index[p]
            items.append((self._candidate(rt, p) & self._avail(i, cls), self.q_np[i], Const(p, pw)))
        found, _, best_port = _argmin(m, items, self.q_bits, pw, "best",
                                      ties_high=self.fault == "ties_high")
        m.d.comb += [
            self.port.eq(Mux(rt.eject, rt.dor_port, best_port)),
            self.cls.eq(cls),
            self.eject.eq(rt.eject),
            self.valid.eq(rt.eject | (rt.dest_ok & found)),
            self.phase_out.eq(self.phase),
            self.decided_out.eq(self.decided),
            self.inter_out.eq(self.inter),
            self.h1_out.eq(self.h1),
        ]
        return m


class MinDecide(MinAdDecide):
    """``min`` on parallel lanes: dimension order, the lane by queue length (router-spec §R7 "Parallel lanes").

    Kim's dimension-order routing takes the lowest differing dimension; where a neighbour is reached over
    parallel lanes (the 2-dilated flattened butterfly's two channels), of that neighbour's lanes the one with
    an available VC and the shortest ``q``, ties to the lowest lane (``_decide`` ``MIN``, ``_best_lane``). One
    VC class. With one lane per neighbour ``min`` is the route table of
    :func:`radixnet.gen.routing.compile_dor_table` and the router holds that table instead
    (:func:`radixnet.hdl.router.decided_in_logic`). At the destination router: its ejection port. The header
    passes through unchanged.

    Parameters
    ----------
    net, router_id, n_vcs, depth, threshold
        As :class:`MinAdDecide` (``threshold`` unused).
    fault : None or "ties_high"
        ``"ties_high"``: ties go to the highest lane -- a deliberate bug.

    Examples
    --------
    Router 3 of the 8-ary 1-dim 2DFB toward router 5 (terminal 40): the two lanes, ports 16 and 17; the
    lighter one wins, and with equal queues the lower one.

    >>> from amaranth.sim import Simulator
    >>> from radixnet.gen import build
    >>> u = MinDecide(build("2dfb", k=8, n=1), 3, n_vcs=1, depth=4)
    >>> async def bench(ctx):
    ...     ctx.set(u.dest, 40)
    ...     for qs in ({16: 3, 17: 2}, {16: 2, 17: 2}):
    ...         for i, p in enumerate(u.net_ports):
    ...             ctx.set(u.q_np[i], qs.get(p, 0))
    ...             ctx.set(u.avail_np_cls[i], 1)
    ...         print(ctx.get(u.valid), ctx.get(u.port), ctx.get(u.cls))
    >>> sim = Simulator(u)
    >>> sim.add_testbench(bench)
    >>> sim.run()
    1 17 0
    1 16 0
    """

    ROUTINGS = ("min",)
    _threshold_what = "unused by min"

    def _classes(self) -> int:
        return 1

    def _hop_class(self, m: Module, rt):
        """One VC class."""
        return 0

    def _candidate(self, rt, p: int):
        """A lane of the dimension-order neighbour: its lane 0 is the DOR port."""
        lane0 = next(q for q in self.net_ports if self.port_info[q][:2] == self.port_info[p][:2]
                     and self.port_info[q][2] == 0)
        return rt.dor_np[self.np_index[lane0]]


class _TwoPhase(_Decide):
    """UGAL / CLOS AD: the source-router decision, then Valiant's two phases (§R7)."""

    def _phase_path(self, m: Module, rt):
        """After the decision (or ``val``): DOR to ``inter`` in class 0, then to ``d`` in class 1.

        Returns (port, cls, eject, valid, phase) of the phase path.
        """
        N = len(self.net_ports)
        ph = Signal(name="phase_eff")           # phase 0 ends at the intermediate router
        m.d.comb += ph.eq(self.phase | rt.inter_here)
        tgt = Signal(N, name="target_np")
        m.d.comb += tgt.eq(Mux(ph, rt.dor_np, rt.inter_np))
        avail = _any([tgt[i] & Mux(ph, self._avail(i, 1), self._avail(i, 0)) for i in range(N)])
        ej = Signal(name="phase_eject")
        m.d.comb += ej.eq(ph & rt.eject)
        port = Mux(ph, rt.dor_port, rt.inter_port)   # dor_port is the ejection port when rt.eject
        valid = ej | (rt.dest_ok & avail)
        return port, ph, ej, valid, ph

    def _source(self, m: Module, rt, prefer_min, avail_min, avail_nm, port_nm, inter_nm):
        """Commit (``_ugal_commit``): minimal if available and preferred (or the only one), else non-minimal.

        Returns (port, cls, eject, valid, phase, inter) of the source decision.
        """
        take_min = Signal(name="take_min")
        m.d.comb += take_min.eq(avail_min & (~avail_nm | prefer_min))
        port = Mux(rt.eject | take_min, rt.dor_port, port_nm)
        cls = Mux(take_min, 1, 0)
        valid = rt.eject | (rt.dest_ok & (avail_min | avail_nm))
        phase = rt.eject | take_min
        inter = Mux(rt.eject | take_min, self.router_id, inter_nm)
        return port, cls, rt.eject, valid, phase, inter

    def _drive(self, m: Module, rt, source):
        """Drive the outputs: the source decision while ``decided = 0``, else the phase path.

        ``source`` None (``val``): always the phase path.
        """
        p_port, p_cls, p_ej, p_valid, p_phase = self._phase_path(m, rt)
        if source is None:
            s_port, s_cls, s_ej, s_valid, s_phase, s_inter, at_source = 0, 0, 0, 0, 0, 0, Const(0, 1)
        else:
            s_port, s_cls, s_ej, s_valid, s_phase, s_inter = source
            at_source = Signal(name="at_source")
            m.d.comb += at_source.eq(~self.decided)
        m.d.comb += [
            self.port.eq(Mux(at_source, s_port, p_port)),
            self.cls.eq(Mux(at_source, s_cls, p_cls)),
            self.eject.eq(Mux(at_source, s_ej, p_ej)),
            self.valid.eq(Mux(at_source, s_valid, p_valid)),
            self.phase_out.eq(Mux(at_source, s_phase, p_phase)),
            self.decided_out.eq(Mux(at_source, 1, self.decided)),
            self.inter_out.eq(Mux(at_source, s_inter, self.inter)),
            self.h1_out.eq(self.h1),
        ]

    def _prefer_min(self, m: Module, q_min, h_min, q_nm, h_nm, h_nm_max: int):
        """``q_min * h_min <= q_nm * h_nm + theta`` (``fault="strict"``: ``<``); exact widths."""
        qmax = self.n_vcs * self.depth
        lhs = Signal(range(qmax * self.n_dims + 1), name="delay_min")
        rhs = Signal(range(qmax * h_nm_max + self.threshold + 1), name="delay_nm")
        m.d.comb += [lhs.eq(q_min * h_min), rhs.eq(q_nm * h_nm + self.threshold)]
        prefer = Signal(name="prefer_min")
        m.d.comb += prefer.eq(lhs < rhs if self.fault == "strict" else lhs <= rhs)
        return prefer

    def _minimal(self, m: Module, rt):
        """q and availability (class 1) of the DOR port toward d."""
        N = len(self.net_ports)
        q_min = select_onehot(m, rt.dor_np, list(self.q_np), self.q_bits, "q_min")
        avail_min = Signal(name="avail_min")
        m.d.comb += avail_min.eq(_any([rt.dor_np[i] & self._avail(i, 1) for i in range(N)]))
        return q_min, avail_min


class UgalDecide(_TwoPhase):
    """``ugal`` / ``ugal-s`` (and ``val``): UGAL's choice at the source router, then Valiant's phases (§R7).

    Kim §3.1 UGAL: "chooses between MIN AD and VAL on a packet-by-packet basis ... The product of
    queue length and hop count is used as an estimate of delay." At the source router
    (``decided = 0``), with ``o_min`` / ``o_val`` the DOR next ports toward ``d`` / ``b`` (``b`` =
    ``inter``, drawn at creation):

    * minimal iff ``q(o_min)·H(c,d) <= q(o_val)·(H(c,b)+H(b,d)) + θ`` (ties minimal);
    * a candidate without an available VC (minimal: class 1, non-minimal: class 0) is left out; ``b``
      equal to ``c`` or ``d`` leaves only the minimal candidate; none: not ``valid`` (re-evaluated
      the next cycle, §R7);
    * minimal: ``phase_out = 1``, ``inter_out = c``; non-minimal: ``phase_out = 0``, ``inter_out =
      b``; both ``decided_out = 1`` (the router writes them with the grant, §R7 "committed with the
      grant"); at the destination router: eject with ``phase_out = 1``, ``inter_out = c``.

    After the decision (``decided = 1``), and always for ``routing="val"``: phase 0 (DOR toward
    ``b``, class 0) becomes phase 1 at ``b``; phase 1 goes DOR toward ``d`` in class 1 and ejects at
    ``d``. Lane 0 of every neighbour (§R7). ``_decide`` ``UGAL``/``VAL`` and ``_ugal_commit``.

    Widths: ``q <= V·B``, ``H(c,d) <= D``, ``H(c,b)+H(b,d) <= 2D``; the products are exact
    (``range(V·B·D + 1)`` and ``range(2·V·B·D + θ + 1)``), made by Yosys from ``*`` on a
    ``ceil(log2(V·B+1))``-bit and a 2-3-bit operand (a few adders).

    Parameters
    ----------
    net, router_id, n_vcs, depth
        As :class:`MinAdDecide`; two VC classes.
    threshold : int
        ``θ`` (``--ugal-threshold``, flit-hops), ``>= 0``; default 4.
    routing : "ugal", "ugal-s" or "val"
        ``val`` never decides (the source branch is not built into the output).
    fault : None or "strict"
        ``"strict"``: minimal iff ``<`` instead of ``<=`` -- a deliberate bug.

    Attributes
    ----------
    dest, phase, decided, inter, h1, q_np, avail_np_cls : in
        As :class:`MinAdDecide` (``avail_np_cls`` entries are 2 bits).
    port, cls, eject, valid, phase_out, decided_out, inter_out, h1_out : out
        The decision; ``h1_out = h1``.

    Examples
    --------
    ``val`` reads no queue lengths (docs/route-units.md has a simulated UGAL decision):

    >>> from radixnet.gen import build
    >>> from radixnet.hdl.verilog import to_verilog
    >>> net = build("fbfly", k=3, n=3)
    >>> ["q_np__0" in to_verilog(UgalDecide(net, 5, 2, 8, routing=r), "u") for r in ("ugal", "val")]
    [True, False]
    """

    FAULTS = (None, "strict")
    ROUTINGS = ("ugal", "ugal-s", "val")

    def __init__(self, net, router_id: int, n_vcs: int, depth: int, *, candidates: bool = False,
                 preference: bool = False, **kw):
        #: also output the source decision's two candidates (a sequential allocator's requester, §R11.2)
        self.candidates = bool(candidates)
        #: the source comparison replaced by the head's ``phase`` bit, the decision line's preference (§R11.2a):
        #: minimal preferred iff ``phase = 0``; no queue length is read
        self.preference = bool(preference)
        super().__init__(net, router_id, n_vcs, depth, **kw)

    def _more_members(self) -> dict:
        if not self.candidates or self.routing == "val":
            self.candidates = False
            return {}
        pw, D = ptr_width(self.n_ports), self.n_dims
        return {"src": Out(1), "min_port": Out(pw), "min_ok": Out(1), "min_hops": Out(range(D + 1)),
                "nm_port": Out(pw), "nm_ok": Out(1), "nm_hops": Out(range(2 * D + 1))}

    def elaborate(self, platform):
        m = Module()
        rt = self._route(m, intermediate=True)
        if self.routing == "val":
            self._drive(m, rt, None)
            return m
        N = len(self.net_ports)
        q_min, avail_min = self._minimal(m, rt)
        q_nm = select_onehot(m, rt.inter_np, list(self.q_np), self.q_bits, "q_val")
        avail_nm = Signal(name="avail_val")
        m.d.comb += avail_nm.eq(~rt.inter_here & ~rt.inter_is_dest &
                                _any([rt.inter_np[i] & self._avail(i, 0) for i in range(N)]))
        if self.preference:
            prefer = Signal(name="prefer_min")
            m.d.comb += prefer.eq(~self.phase)
        else:
            prefer = self._prefer_min(m, q_min, rt.hops_cd, q_nm, rt.hops_cbd, 2 * self.n_dims)
        src = self._source(m, rt, prefer, avail_min, avail_nm, rt.inter_port, self.inter)
        self._drive(m, rt, src)
        if self.candidates:
            # the comparison above as a requester of the sequential allocator sees it: candidate 0 minimal
            # (cost q·H(c,d)), candidate 1 non-minimal (cost q·(H(c,b)+H(b,d)) + θ), least cost, ties minimal
            m.d.comb += [self.src.eq(~self.decided & ~rt.eject),
                         self.min_port.eq(rt.dor_port), self.min_ok.eq(rt.dest_ok & avail_min),
                         self.min_hops.eq(rt.hops_cd),
                         self.nm_port.eq(rt.inter_port), self.nm_ok.eq(rt.dest_ok & avail_nm),
                         self.nm_hops.eq(rt.hops_cbd)]
        return m


class ClosAdDecide(_TwoPhase):
    """``clos-ad``: UGAL's comparison against the least-loaded neighbour as the intermediate (§R7).

    Kim §3.1 CLOS AD: "routed as if it were adaptively routing to the middle stage of a Clos network
    ... the channel with the shortest queue for that dimension (including a 'dummy queue' for
    staying at the current coordinate)". radixnet (§R7): ``b`` is the neighbour, over the lane-0
    channels of the dimensions ``<= j_max`` (the highest dimension in which ``c`` and ``d`` differ)
    other than the minimal next hop, with an available class-0 VC and the smallest ``q`` (ties: the
    lowest port); staying is the minimal choice, taken unless

    ``q(o_min)·H(c,d) > q(o_b)·(1 + H(b,d)) + θ``    (non-minimal; ties minimal).

    ``1 + H(b,d)`` is computed per neighbour as ``H(c,d) + 1 - [c_j != d_j] + [m != d_j]`` for the
    neighbour with digit ``m`` in dimension ``j`` (``<= D + 1``). Availability, the commit and the
    two phases after it are :class:`UgalDecide`'s, with ``inter_out = b`` on a non-minimal commit.
    ``_decide`` ``CLOS_AD``.

    Widths: the neighbour search is a balanced tree of ``ceil(log2(V·B+1))``-bit comparators over
    the lane-0 network ports (``sum_j (s_j - 1)`` leaves); products as :class:`UgalDecide` with
    ``1 + H(b,d) <= D + 1``.

    Parameters
    ----------
    net, router_id, n_vcs, depth, threshold
        As :class:`UgalDecide`.
    fault : None or "strict"
        ``"strict"``: non-minimal iff ``>=`` instead of ``>`` -- a deliberate bug.

    Attributes
    ----------
    dest, phase, decided, inter, h1, q_np, avail_np_cls : in
        As :class:`UgalDecide` (``inter`` is read after the decision, in phase 0).
    port, cls, eject, valid, phase_out, decided_out, inter_out, h1_out : out
        As :class:`UgalDecide`.

    Examples
    --------
    Router 5 = (2, 1) of the radix-7 ``fbfly k=3 n=3``: the lane-0 neighbours the search ranges over,
    as (port, neighbour router) -- all of them when the destination differs in dimension 1:

    >>> from radixnet.gen import build
    >>> c = ClosAdDecide(build("fbfly", k=3, n=3), 5, n_vcs=2, depth=8, threshold=4)
    >>> [(p, c.port_info[p][3]) for p in c.net_ports]
    [(3, 3), (4, 4), (5, 2), (6, 8)]
    >>> from radixnet.hdl.verilog import to_verilog
    >>> c.n_classes, c.threshold, "module closad(" in to_verilog(c, "closad")
    (2, 4, True)
    """

    FAULTS = (None, "strict")
    ROUTINGS = ("clos-ad",)

    def elaborate(self, platform):
        m = Module()
        rt = self._route(m, intermediate=True)
        D, pw, ib = self.n_dims, ptr_width(self.n_ports), ptr_width(self.n_routers)
        q_min, avail_min = self._minimal(m, rt)
        hw = (D + 1).bit_length()
        items = []
        for p in self.net_ports:                      # port order: ties to the lowest port
            j, dig, lane, nb = self.port_info[p]
            if lane:
                continue
            i = self.np_index[p]
            up_to = Signal(name=f"dim_le_jmax_np_{i}")   # dimension j <= the highest differing one
            m.d.comb += up_to.eq(rt.diff_dim[j:].any())
            hn = Signal(range(D + 2), name=f"hops_nm_np_{i}")
            m.d.comb += hn.eq(rt.hops_cd + 1 - rt.diff_dim[j] + ~rt.prod_np[i])
            ok = Signal(name=f"cand_np_{i}")
            m.d.comb += ok.eq(up_to & ~rt.dor_np[i] & self._avail(i, 0))
            items.append((ok, self.q_np[i], Cat(Const(p, pw), Const(nb, ib), hn[:hw])))
        avail_nm, q_nm, payload = _argmin(m, items, self.q_bits, pw + ib + hw, "nb")
        port_nm, b, h_nm = payload[:pw], payload[pw:pw + ib], payload[pw + ib:]
        prefer = self._prefer_min(m, q_min, rt.hops_cd, q_nm, h_nm, D + 1)
        src = self._source(m, rt, prefer, avail_min, avail_nm, port_nm, b)
        self._drive(m, rt, src)
        return m


class PriorityFlagDecide(_Decide):
    """``2dfb-adaptive``: the priority-flag algorithm (Thamarakuzhi & Chandy §III, Algorithm 1; §R7b).

    With ``q`` of a neighbour that of its least-loaded lane with an available VC (ties: the lowest
    lane) in class ``min(hops, 2D - 1)``, and ``came`` the neighbour feeding input port ``in_port``:

    1. at the destination router: eject (``h1_out = 0``);
    2. ``h1 = 0``, minimal phase: over the dimensions in which ``c`` and ``d`` differ, from the most
       significant down, skipping a direct neighbour that is ``came``, the first direct link that is
       available with ``q <= T_h`` (the threshold comparator); ``h1_out = 0``;
    3. ``h1 = 0``, otherwise, non-minimal phase: over the same dimensions in the same order, the
       neighbours ``s = k-2 … 0`` (the ``s``-th digit other than the router's own: digits high to
       low), the first available one, not ``came``, with ``q <= T_h``; ``h1_out = 1``;
    4. ``h1 = 1`` (Algorithm 1 lines 16-22), or nothing in steps 2-3: the direct link of the first
       differing dimension that is not ``came``, **forced**: not ``valid`` while none of its lanes
       is available (the packet waits on a VC, never on a queue length); ``h1_out = 0``.

    ``decided_out = 1`` and ``inter_out = c`` (constants, as ``_decide_2dfb`` writes them; the
    routing reads neither); ``phase_out = phase``. ``_decide_2dfb`` of the golden kernel.

    Widths: per neighbour one lane comparator (two lanes on a 2DFB) and one ``q <= T_h`` constant
    comparator; two priority encoders over the ``sum_j (s_j - 1)`` neighbours.

    Parameters
    ----------
    net, router_id, n_vcs, depth
        As :class:`MinAdDecide`; ``2D`` VC classes (hop index).
    threshold : int
        ``T_h`` (``--threshold``, flits), ``>= 0``; default 4.
    fault : None or "strict"
        ``"strict"``: ``q < T_h`` instead of ``q <= T_h`` -- a deliberate bug.

    Attributes
    ----------
    dest, phase, h1, q_np, avail_np_cls : in
        As :class:`MinAdDecide` (``avail_np_cls`` entries are ``2D`` bits).
    hops : Signal(8), in
        Inter-router hops taken (the VC class is ``min(hops, 2D - 1)``).
    in_port : Signal(ptr_width(P)), in
        The input port the packet arrived on (a terminal port: no way back).
    port, cls, eject, valid, phase_out, decided_out, inter_out, h1_out : out
        The decision.

    Examples
    --------
    Router 0 of the 8-ary 1-dim 2DFB toward router 3 (terminal 24), ``T_h = 4``: every queue at 9
    but router 7's lane 0 (port 20, the first non-minimal link ``s = 6``) at 4 -- a detour with the
    flag set; with ``h1`` already set, the direct link (port 12) regardless of its queue.

    >>> from amaranth.sim import Simulator
    >>> from radixnet.gen import build
    >>> u = PriorityFlagDecide(build("2dfb", k=8, n=1), 0, n_vcs=2, depth=8)
    >>> async def bench(ctx):
    ...     ctx.set(u.dest, 24)
    ...     for i, p in enumerate(u.net_ports):
    ...         ctx.set(u.q_np[i], 4 if p == 20 else 9)
    ...         ctx.set(u.avail_np_cls[i], 0b11)
    ...     for h1 in (0, 1):
    ...         ctx.set(u.h1, h1)
    ...         print(ctx.get(u.port), ctx.get(u.h1_out))
    >>> sim = Simulator(u)
    >>> sim.add_testbench(bench)
    >>> sim.run()
    20 1
    12 0
    """

    FAULTS = (None, "strict")
    ROUTINGS = ("2dfb-adaptive",)
    _inputs = ("phase", "h1", "hops", "in_port")
    _threshold_what = "T_h, output queue threshold in flits"

    def _classes(self) -> int:
        return 2 * self.n_dims

    def elaborate(self, platform):
        m = Module()
        rt = self._route(m, intermediate=False)
        K, pw = self.n_classes, ptr_width(self.n_ports)
        cls = Signal(ptr_width(K), name="cls_hop")
        m.d.comb += cls.eq(Mux(self.hops >= K - 1, K - 1, self.hops))
        order = sorted(self.lanes, key=lambda jm: (-jm[0], -jm[1]))   # dims high to low, digits high to low
        min_act, nm_act, nb_ports, forced, oks = [], [], [], [], []
        for j, dig in order:
            ports = self.lanes[(j, dig)]
            tag = f"nb_{j}_{dig}"
            items = [(self._avail(self.np_index[p], cls), self.q_np[self.np_index[p]], Const(p, pw)) for p in ports]
            ok, q, port = _argmin(m, items, self.q_bits, pw, f"{tag}_lane")
            nb = self.port_info[ports[0]][3]
            back = [p for p in range(self.n_ports) if self.came_from[p] == nb]
            came = Signal(name=f"{tag}_came")
            m.d.comb += came.eq(_any([self.in_port == p for p in back]))
            low = Signal(name=f"{tag}_le_th")
            m.d.comb += low.eq(q < self.threshold if self.fault == "strict" else q <= self.threshold)
            go = Signal(name=f"{tag}_go")
            m.d.comb += go.eq(ok & ~came)
            # the direct link of a differing dimension, not the way back: with h1 set, the first one is
            # forced (Algorithm 1 lines 16-22), available or not
            f = Signal(name=f"{tag}_forced")
            m.d.comb += f.eq(rt.prod_np[self.np_index[ports[0]]] & ~came)
            a_min, a_nm = Signal(name=f"{tag}_direct"), Signal(name=f"{tag}_detour")
            m.d.comb += [a_min.eq(go & rt.prod_np[self.np_index[ports[0]]] & low),
                         a_nm.eq(go & rt.diff_dim[j] & low)]
            min_act.append(a_min)
            nm_act.append(a_nm)
            nb_ports.append(port)
            forced.append(f)
            oks.append(ok)
        n = len(order)
        act_min, act_nm = Signal(n, name="direct_nb"), Signal(n, name="detour_nb")
        forced_nb, ok_nb = Signal(n, name="forced_nb"), Signal(n, name="ok_nb")
        m.d.comb += [act_min.eq(Cat(*min_act)), act_nm.eq(Cat(*nm_act)), forced_nb.eq(Cat(*forced)),
                     ok_nb.eq(Cat(*oks))]
        port_min = select_onehot(m, lowest_one(m, act_min, n, "first_direct_nb"), nb_ports, pw, "port_direct")
        port_nm = select_onehot(m, lowest_one(m, act_nm, n, "first_detour_nb"), nb_ports, pw, "port_detour")
        first_forced = lowest_one(m, forced_nb, n, "first_forced_nb")
        port_forced = select_onehot(m, first_forced, nb_ports, pw, "port_forced")
        direct = act_min.any()
        # h1 set, or no link under the threshold: the first differing dimension's direct link (§R7b step 4)
        use_forced = Signal(name="use_forced")
        m.d.comb += use_forced.eq(self.h1 | ~(direct | act_nm.any()))
        m.d.comb += [
            self.port.eq(Mux(rt.eject, rt.dor_port, Mux(use_forced, port_forced, Mux(direct, port_min, port_nm)))),
            self.cls.eq(cls),
            self.eject.eq(rt.eject),
            self.valid.eq(rt.eject | (rt.dest_ok & (~use_forced | (first_forced & ok_nb).any()))),
            self.phase_out.eq(self.phase),
            self.decided_out.eq(1),
            self.inter_out.eq(self.router_id),
            self.h1_out.eq(~rt.eject & ~use_forced & ~direct),
        ]
        return m
