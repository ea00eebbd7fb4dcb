"""Network top: every router of a :class:`radixnet.gen.Network` wired per its channels (``network_top.v``, docs/rtl.md).

One module holds the routers (:class:`~radixnet.hdl.router.Router`, ``sp``
table routing, greedy allocator, ``S = 1``) and the links between them, and
exposes the network's ``T`` terminals. Each channel ``c`` of the Network
connects output ``src_port[c]`` of router ``src[c]`` to input ``dst_port[c]``
of router ``dst[c]``: the flit and its valid bit go downstream, the input
VCs' credit returns go upstream. With ``Tl = 1`` a link is a wire (router-spec
§R8a: the receiver's input buffer is the hop's register), so a whole network
has exactly the golden model's timing: one cycle per hop.

Terminal ports (flit level, §R3/§R8a): terminal ``t`` injects into port
``inj_port[t]`` of router ``inj_router[t]`` and ejects from port
``ej_port[t]`` of router ``ej_router[t]``.

* ``inj_flit_t[t]`` / ``inj_valid_t[t]``: the flit the terminal sends this
  cycle (its ``vc`` field is the packet's injection VC, §R3);
* ``inj_credit_t_ivc[t]``: bit ``v`` set when the router frees a slot of input
  VC ``v`` of the injection port this cycle (the terminal may use it from the
  next cycle);
* ``ej_flit_t[t]`` / ``ej_valid_t[t]``: the flit sent on the ejection port
  this cycle (a packet is ejected the cycle after its tail flit, §R3; with
  ``egress_depth >= 1`` the cycle the terminal takes it, §R3a);
* ``ej_credit_t[t]`` (only with ``egress_depth >= 1``): the terminal's egress
  FIFO freed a slot this cycle (the ejection port may use the credit from the
  next cycle, §R3a).

The AXI4-Stream terminal adapters of :mod:`radixnet.hdl.axis` sit on these
ports.

Co-simulation ports (``observe=True`` only; the default top has none of them,
so its Verilog is unchanged): every router's links and grants, for the
per-hop comparison against the golden trace (router-spec §R9,
:mod:`radixnet.cosim.hops`). Router ``r``'s ports start at bit offset
``obs_offsets[r]`` (the sum of the radices before it):

* ``obs_valid_r_op``: bit ``obs_offsets[r] + o`` is router ``r``'s
  ``out_valid_op[o]`` (a flit on output ``o``'s link this cycle: its port,
  output VC and header, the hop as the next router or terminal sees it);
* ``obs_flit_r<r>_op``: router ``r``'s ``out_flit_op``, port ``o`` at bits
  ``[o * F, (o + 1) * F)`` (``F`` the flit's width);
* ``obs_credit_r_ip_ivc``: bit ``(obs_offsets[r] + p) * V + v`` is router
  ``r``'s ``credit_out_ip_ivc[p][v]``: input VC ``(p, v)`` freed the slot of the
  flit switch allocation granted in this cycle, ``credit_delay`` cycles earlier
  under ``iq`` (§R10): the grant of every flit, observed at the ports;
* ``obs_dec_gnt_r_ip_lane``: bit ``(obs_offsets[r] + p) * S + s``, input
  ``p``'s ``s``-th grant in the allocator that takes the routing decisions
  (``single-cycle``: the switch allocator; ``iq``: VA, §R10.1), and
  ``obs_dec_r<r>_ip_lane``: per lane ``i = p * S + s`` of router ``r``, the
  granted input VC at bits ``[i * D, i * D + vw)`` and the output after it
  (``D = vw + pw``, :attr:`obs_widths`).

Examples
--------
>>> from radixnet.gen import build
>>> top = NetworkTop(build("fbfly", k=2, n=2), n_vcs=1, vc_depth=2, data_width=8)
>>> top.n_terminals, len(top.routers), top.channels
(4, 2, [(0, 2, 1, 2), (1, 2, 0, 2)])
"""

from __future__ import annotations

from amaranth import Cat, ClockSignal, Const, Instance, Module, ResetSignal, Value
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..gen.router_config import DATA_WIDTH, ROUTER_DEFAULTS
from .arbiter import check_int, ptr_width, reject
from .router import Router

__all__ = ["ModuleInstance", "NetworkTop"]


class NetworkTop(wiring.Component):
    """All routers of ``net`` and their links, with the terminals as ports.

    Parameters
    ----------
    net : radixnet.gen.Network
        The topology.
    n_vcs : int
        ``V``, VCs per port (a multiple of the route table's classes, §R5).
    vc_depth : int
        ``B``, flits per VC buffer.
    data_width : int
        Payload bits of a flit.
    table : radixnet.gen.routing.RouteTable, optional
        The route tables (default ``compile_table(net)``), shared by every router.
    fault : str, optional
        A deliberately wrong router, for the co-simulation's fault-injection test
        (:class:`~radixnet.hdl.router.Router` ``fault``); ``None`` builds the spec.
    routing : str, optional
        An adaptive routing decided in logic (:data:`radixnet.hdl.router.ADAPTIVE`); None: ``table``.
    threshold : int
        UGAL's bias theta (router-spec §R7).
    check : bool
        Emit the routers' protocol assertions.
    router_model : str
        The routers' pipeline (router-spec §R10): ``single-cycle`` (default) or ``iq``.
    speedup : int
        The routers' speedup ``S`` (§R1): 1 (default) or 2.
    egress_depth : int
        ``E`` (§R3a): 0 (default), ideal terminals; ``>= 1``, the ejection ports take credits, returned on
        ``ej_credit_t``.
    observe : bool
        Co-simulation only: add the ``obs_*`` ports of the module docstring (routers built with
        ``observe``). Default False: the top and its routers have exactly their default ports and Verilog.
    group : int
        ``subswitch`` routers (router-spec §R12): ports per row and column group (default 4).
    seq_wavefront : int
        ``hiradix`` with ``ugal-s`` (router-spec §R11.2a): the routers' decision lines, ``g`` decisions per
        wavefront stage (default 0: none).
    buffer_fronts : int
        ``hiradix`` routers: the oldest flits per VC in registers (router-spec §R11.1a; default 2).
    buffer_ram : str
        ``hiradix`` routers: what holds the flits behind them (router-spec §R11.1a; default ``"lut"``).

    Attributes
    ----------
    inj_flit_t, inj_valid_t : in
        Per terminal, the flit it sends this cycle, and its valid bit.
    inj_credit_t_ivc : list of Signal(V), out
        Per terminal, the injection port's credit returns this cycle.
    ej_flit_t, ej_valid_t : out
        Per terminal, the flit its ejection port sends this cycle, and its valid bit.
    ej_credit_t : Signal(T), in (``egress_depth >= 1`` only)
        Bit ``t``: terminal ``t``'s egress FIFO freed a slot this cycle.
    error : Signal(1), out
        Sticky protocol violation in any router.
    obs_offsets : list of int (``observe`` only)
        Per router, the bit offset of its ports in the ``obs_*`` vectors (module docstring).
    obs_widths : dict (``observe`` only)
        ``flit`` (``F``), ``vw`` and ``pw`` (input VC and output fields of a decision lane), ``S``.
    """

    def __init__(self, net, n_vcs: int, vc_depth: int, data_width: int = DATA_WIDTH, *, table=None, fault: str | None = None,
                 check: bool = True, routing: str | None = None, threshold: int = ROUTER_DEFAULTS["threshold"],
                 router_model: str = ROUTER_DEFAULTS["router_model"], speedup: int = ROUTER_DEFAULTS["speedup"],
                 egress_depth: int = ROUTER_DEFAULTS["egress_depth"], observe: bool = False,
                 group: int = ROUTER_DEFAULTS["group"], seq_wavefront: int = ROUTER_DEFAULTS["seq_wavefront"],
                 buffer_fronts: int = ROUTER_DEFAULTS["buffer_fronts"],
                 buffer_ram: str = ROUTER_DEFAULTS["buffer_ram"]):
        from ..gen.routing import compile_table

        if not hasattr(net, "radix") or not hasattr(net, "port_table"):
            reject(self, f"net (the topology) must be a radixnet.gen.Network, got {net!r}")
        check_int(self, "n_vcs", "virtual channels per port", n_vcs, 1)
        if table is None and routing is None:
            table = compile_table(net)
        self.net, self.table = net, table
        self.n_vcs, self.vc_depth, self.data_width = n_vcs, vc_depth, data_width
        self.n_terminals = int(net.num_terminals)
        #: the routers' keyword arguments (a router's twin is ``Router(net, r, V, B, W, **router_kw, ...)``)
        self.router_kw = dict(table=table, fault=fault, check=check, routing=routing, threshold=threshold,
                              router_model=router_model, speedup=speedup, egress_depth=egress_depth,
                              observe=observe, group=group, seq_wavefront=seq_wavefront,
                              buffer_fronts=buffer_fronts, buffer_ram=buffer_ram)
        #: one Router per router of the network (validated here, before any elaboration)
        self.routers = [Router(net, r, n_vcs, vc_depth, data_width, **self.router_kw) for r in range(net.num_routers)]
        self.observe = observe
        self.egress_depth = self.routers[0].egress_depth if self.routers else 0
        #: (src router, src port, dst router, dst port) per channel
        self.channels = [(int(net.src[c]), int(net.src_port[c]), int(net.dst[c]), int(net.dst_port[c]))
                         for c in range(net.num_channels)]
        lay = self.routers[0].flit_layout
        self.flit_layout = lay
        self.widths = self.routers[0].widths
        T = self.n_terminals
        members = {
            "inj_flit_t": In(lay).array(T),
            "inj_valid_t": In(T),
            "inj_credit_t_ivc": Out(n_vcs).array(T),
            "ej_flit_t": Out(lay).array(T),
            "ej_valid_t": Out(T),
            "error": Out(1),
        }
        if self.egress_depth:
            members["ej_credit_t"] = In(T)
        if observe:   # co-simulation only (module docstring)
            radix = [router.n_ports for router in self.routers]
            self.obs_offsets = [sum(radix[:r]) for r in range(len(radix))]
            S, n = speedup, sum(radix)
            vw, pw = ptr_width(n_vcs), ptr_width(max(radix))
            self.obs_widths = {"flit": lay.size, "vw": vw, "pw": pw, "S": S}
            members["obs_valid_r_op"] = Out(n)
            members["obs_credit_r_ip_ivc"] = Out(n * n_vcs)
            members["obs_dec_gnt_r_ip_lane"] = Out(n * S)
            heads = self.routers[0].model.heads
            if heads > 1:   # router-spec §R11.9: which credits are for a second flit
                self.obs_widths["heads"] = heads
                members["obs_credit1_r_ip_ivc"] = Out(n * n_vcs)
            for r, P in enumerate(radix):
                members[f"obs_flit_r{r}_op"] = Out(P * lay.size)
                members[f"obs_dec_r{r}_ip_lane"] = Out(P * S * (vw + pw))
        super().__init__(members)

    def use_modules(self, modules: list[str]) -> None:
        """Elaborate router ``r`` as an instance of the Verilog module ``modules[r]`` (written apart, with the
        router's ports and names, e.g. by :func:`radixnet.hdl.rtlgen.shared_network_verilog`) instead of its
        logic: the top's own Verilog then holds the links, the terminals and the ``obs_*`` wiring only."""
        if len(modules) != len(self.routers):
            raise ValueError(f"use_modules: {len(modules)} modules for {len(self.routers)} routers")
        for router in self.routers:
            router._MustUse__silence = True   # replaced, never elaborated
        self.routers = [ModuleInstance(name, router) for name, router in zip(modules, self.routers)]

    def elaborate(self, platform):
        m = Module()
        net = self.net
        rs = self.routers
        for r, router in enumerate(rs):
            m.submodules[f"router_{r}"] = router
        # every input port is driven: by a channel, a terminal, or 0 (unused)
        in_valid = [[Const(0, 1)] * router.n_ports for router in rs]
        credit_in = [[0] * router.n_ports for router in rs]
        for (sr, sp, dr, dp) in self.channels:
            m.d.comb += rs[dr].in_flit_ip[dp].eq(rs[sr].out_flit_op[sp])
            in_valid[dr][dp] = rs[sr].out_valid_op[sp]
            credit_in[sr][sp] = rs[dr].credit_out_ip_ivc[dp]
        for t in range(self.n_terminals):
            ir, ip = int(net.inj_router[t]), int(net.inj_port[t])
            er, ep = int(net.ej_router[t]), int(net.ej_port[t])
            m.d.comb += [rs[ir].in_flit_ip[ip].eq(self.inj_flit_t[t]),
                         self.inj_credit_t_ivc[t].eq(rs[ir].credit_out_ip_ivc[ip]),
                         self.ej_flit_t[t].eq(rs[er].out_flit_op[ep]),
                         self.ej_valid_t[t].eq(rs[er].out_valid_op[ep])]
            in_valid[ir][ip] = self.inj_valid_t[t]
            if self.egress_depth:   # the egress FIFO's credit, on the ejection port's VC 0 (§R3a)
                credit_in[er][ep] = self.ej_credit_t[t]
        for r, router in enumerate(rs):
            m.d.comb += router.in_valid_ip.eq(Cat(*in_valid[r]))
            for o in range(router.n_ports):
                m.d.comb += router.credit_in_op_ovc[o].eq(credit_in[r][o])
        m.d.comb += self.error.eq(Cat(*[router.error for router in rs]).any())
        if self.observe:
            self._drive_observe(m)
        return m

    def _drive_observe(self, m: Module) -> None:
        """The ``obs_*`` ports (module docstring) from every router's links, credits and decision grants."""
        rs, w = self.routers, self.obs_widths
        m.d.comb += [
            self.obs_valid_r_op.eq(Cat(*[router.out_valid_op for router in rs])),
            self.obs_credit_r_ip_ivc.eq(Cat(*[c for router in rs for c in router.credit_out_ip_ivc])),
            self.obs_dec_gnt_r_ip_lane.eq(Cat(*[router.obs_dec_gnt_ip_lane for router in rs])),
        ]
        if hasattr(self, "obs_credit1_r_ip_ivc"):
            m.d.comb += self.obs_credit1_r_ip_ivc.eq(Cat(*[c for router in rs for c in router.obs_credit1_ip_ivc]))
        for r, router in enumerate(rs):
            m.d.comb += getattr(self, f"obs_flit_r{r}_op").eq(Cat(*router.out_flit_op))
            # each lane (ivc, op) zero-extended to vw + pw bits (pw: the widest router's output index)
            lanes = [Cat(ivc, op, Const(0, w["pw"] - len(op)))
                     for ivc, op in zip(router.obs_dec_ivc_ip_lane, router.obs_dec_op_ip_lane)]
            m.d.comb += getattr(self, f"obs_dec_r{r}_ip_lane").eq(Cat(*lanes))


class ModuleInstance(wiring.Component):
    """A router's ports, elaborated as an instance of the Verilog module ``module`` that holds its logic.

    The instance's ports carry the names Amaranth gives the router's own Verilog (``in_flit_ip__<p>``,
    ``in_valid_ip``, ..., ``obs_dec_ivc_ip_lane__<i>``, ``clk``, ``rst``), so a wrapper written with those
    ports (:func:`radixnet.hdl.topgen.wrapper_verilog`) takes the router's place; the router's attributes that
    a top reads (``n_ports``, ``flit_layout``, ...) are the router's.
    """

    def __init__(self, module: str, router):
        self.module, self._router = module, router
        super().__init__({n: mem for n, mem in router.signature.members.items()})

    def __getattr__(self, name):   # the router's attributes, but its ports: those are the instance's
        if name.startswith("_") or name in self._router.signature.members:
            raise AttributeError(name)
        return getattr(self._router, name)

    def elaborate(self, platform):
        ports = {"i_clk": ClockSignal(), "i_rst": ResetSignal()}
        for name, mem in self.signature.members.items():
            d, x = "i" if mem.flow == In else "o", getattr(self, name)
            for idx, e in (enumerate(x) if mem.dimensions else [(None, x)]):
                ports[f"{d}_{name}" + ("" if idx is None else f"__{idx}")] = Value.cast(e)
        return Instance(self.module, **ports)
