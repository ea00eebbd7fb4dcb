"""Switch top: a whole network behind NetFPGA-style AXI4-Stream terminal ports (docs/axis-ports.md).

:class:`AxisSwitchTop` is the :class:`~radixnet.hdl.network.NetworkTop` of a
Network with an :class:`~radixnet.hdl.axis.AxisIngress` and an
:class:`~radixnet.hdl.axis.AxisEgress` on every terminal: from outside it is a
``T``-port packet switch (e.g. the 64-port 2-dilated flattened butterfly
switch built from eight switching elements). Terminal ``t`` has the ports

* ``s_axis_<t>_tdata / _tkeep / _tlast / _tvalid / _tready / _tuser`` (slave: packets in),
* ``m_axis_<t>_tdata / _tkeep / _tlast / _tvalid / _tready / _tuser`` (master: packets out),

with the 128-bit ``tuser`` of :func:`radixnet.hdl.axis.tuser_layout` ([15:0]
length in bytes, [23:16] source port, [31:24] destination port; one-hot for
``T <= 8``, binary and widened above, as documented in docs/axis-ports.md).
One beat is one flit; the flit's ``data`` carries the beat and the sideband
(:func:`radixnet.hdl.axis.payload_layout`).

Timing (``Tl = 1``, router-spec §R3/§R9): a packet's first beat accepted in
cycle ``t`` is its head flit injected in ``t``; its last beat appears on
``m_axis`` in the packet's ejection cycle. With ``egress_depth`` 0 (default)
``m_axis_<t>_tready`` must be held high (the terminal is an ideal sink, §R3); a
stall sets ``error``. With ``egress_depth = E >= 1`` each egress is an
``E``-beat FIFO whose slots are the ejection port's credits (§R3a): a sink may
stall at will, the network holds the flits back, and nothing is lost.

With ``observe=True`` (co-simulation only; the default top has none of these
ports and the same Verilog) the switch top also brings out the network top's
``obs_*`` ports (:class:`~radixnet.hdl.network.NetworkTop`: every router's
links, credits and decision grants), the flits the ingresses inject
(``obs_inj_valid_t``, and ``obs_inj_flit_t`` with terminal ``t``'s flit at
bits ``[t * F, (t + 1) * F)``) and each egress's ``m_route`` (the routing
header the packet's head flit was ejected with, valid with its first beat on
``m_axis``; ``obs_m_route_t``, terminal ``t``'s at bits ``[t * W_r, (t + 1) *
W_r)``, :func:`radixnet.hdl.axis.route_layout`).

Examples
--------
>>> from radixnet.gen import build
>>> sw = AxisSwitchTop(build("fbfly", k=2, n=2), n_vcs=1, vc_depth=2, data_width=32)
>>> sw.n_terminals, sw.tuser.encoding, [n for n in sw.signature.members][:3]
(4, 'onehot', ['s_axis_0_tdata', 's_axis_0_tkeep', 's_axis_0_tlast'])
"""

from __future__ import annotations

from amaranth import Cat, Module
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from ..gen.router_config import DATA_WIDTH, ROUTER_DEFAULTS
from .axis import TUSER_WIDTH, AxisEgress, AxisIngress, payload_layout, tuser_layout
from .network import NetworkTop

__all__ = ["AxisSwitchTop"]

_BEAT = ("tdata", "tkeep", "tlast", "tvalid", "tuser")


class AxisSwitchTop(wiring.Component):
    """A network with AXI4-Stream terminal ports (see the module docstring).

    Parameters
    ----------
    net : radixnet.gen.Network
        The topology.
    n_vcs, vc_depth : int
        ``V`` and ``B`` of every router.
    data_width : int
        ``tdata`` bits (a positive multiple of 8).
    port_encoding : {None, "onehot", "binary"}
        ``tuser`` port fields; None picks one-hot for ``T <= 8``, binary above.
    table : radixnet.gen.routing.RouteTable, optional
        Route tables of the routers (default ``compile_table(net)``).
    fault : str, optional
        A deliberately wrong router (:data:`radixnet.hdl.router.FAULTS`).
    routing, threshold
        An adaptive routing decided in logic and its bias (:class:`~radixnet.hdl.network.NetworkTop`).
    router_model : str
        The routers' pipeline (router-spec §R10, §R11): ``single-cycle`` (default), ``iq`` or ``hiradix``.
    speedup : int
        The routers' speedup ``S`` (§R1): 1 (default) or 2.
    egress_depth : int
        ``E`` (§R3a): 0 (default), ideal sinks; ``>= 1``, egress FIFOs of ``E`` beats with credits.
    observe : bool
        Co-simulation only: add the ``obs_*`` ports (module docstring). Default False.
    group : int
        ``subswitch`` routers (router-spec §R12): ports per row and column group (default 4).
    seq_wavefront : int
        ``hiradix`` with ``ugal-s``: the routers' decision lines (router-spec §R11.2a; default 0: none).
    buffer_fronts : int
        ``hiradix`` routers: the oldest flits per VC in registers (router-spec §R11.1a; default 2).
    buffer_ram : str
        ``hiradix`` routers: what holds the flits behind them (router-spec §R11.1a; default ``"lut"``).
    """

    def __init__(self, net, n_vcs: int, vc_depth: int, data_width: int = DATA_WIDTH, *, port_encoding: str | None = None,
                 table=None, fault: str | None = None, routing: str | None = None,
                 threshold: int = ROUTER_DEFAULTS["threshold"], router_model: str = ROUTER_DEFAULTS["router_model"],
                 speedup: int = ROUTER_DEFAULTS["speedup"], egress_depth: int = ROUTER_DEFAULTS["egress_depth"],
                 observe: bool = False, group: int = ROUTER_DEFAULTS["group"],
                 seq_wavefront: int = ROUTER_DEFAULTS["seq_wavefront"],
                 buffer_fronts: int = ROUTER_DEFAULTS["buffer_fronts"],
                 buffer_ram: str = ROUTER_DEFAULTS["buffer_ram"]):
        T = int(net.num_terminals)
        self.tuser = tuser_layout(T, port_encoding)
        self.payload = payload_layout(data_width, T)
        self.net, self.n_terminals, self.data_width = net, T, data_width
        self.network = NetworkTop(net, n_vcs, vc_depth, self.payload.size, table=table, fault=fault,
                                  routing=routing, threshold=threshold, router_model=router_model,
                                  speedup=speedup, egress_depth=egress_depth, observe=observe, group=group,
                                  seq_wavefront=seq_wavefront, buffer_fronts=buffer_fronts, buffer_ram=buffer_ram)
        self.observe = observe
        self.egress_depth = E = self.network.egress_depth
        lay = self.network.flit_layout
        enc = self.tuser.encoding
        self.ingress = [AxisIngress(T, n_vcs, vc_depth, data_width, port_encoding=enc, flit_layout=lay)
                        for _ in range(T)]
        self.egress = [AxisEgress(T, n_vcs, data_width, depth=max(E, 1), port_encoding=enc, flit_layout=lay)
                       for _ in range(T)]
        members = {}
        for t in range(T):
            for side, d_in, d_out in (("s", In, Out), ("m", Out, In)):
                members[f"{side}_axis_{t}_tdata"] = d_in(data_width)
                members[f"{side}_axis_{t}_tkeep"] = d_in(data_width // 8)
                members[f"{side}_axis_{t}_tlast"] = d_in(1)
                members[f"{side}_axis_{t}_tvalid"] = d_in(1)
                members[f"{side}_axis_{t}_tready"] = d_out(1)
                members[f"{side}_axis_{t}_tuser"] = d_in(TUSER_WIDTH)
        members["error"] = Out(1)
        if observe:   # co-simulation only (module docstring)
            self.route_layout = self.egress[0].route_layout if T else None
            self.obs_offsets, self.obs_widths = self.network.obs_offsets, self.network.obs_widths
            for name, member in self.network.signature.members.items():
                if name.startswith("obs_"):
                    members[name] = Out(member.shape)
            members["obs_inj_valid_t"] = Out(T)
            members["obs_inj_flit_t"] = Out(T * lay.size)
            members["obs_m_route_t"] = Out(T * self.route_layout.size)
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        m.submodules.network = nt = self.network
        errors = [nt.error]
        for t in range(self.n_terminals):
            ig, eg = self.ingress[t], self.egress[t]
            m.submodules[f"ingress_{t}"] = ig
            m.submodules[f"egress_{t}"] = eg
            for f in _BEAT:
                m.d.comb += getattr(ig, f"s_axis_{f}").eq(getattr(self, f"s_axis_{t}_{f}"))
                m.d.comb += getattr(self, f"m_axis_{t}_{f}").eq(getattr(eg, f"m_axis_{f}"))
            m.d.comb += [getattr(self, f"s_axis_{t}_tready").eq(ig.s_axis_tready),
                         eg.m_axis_tready.eq(getattr(self, f"m_axis_{t}_tready")),
                         nt.inj_flit_t[t].eq(ig.inj_flit), nt.inj_valid_t[t].eq(ig.inj_valid),
                         ig.inj_credit_vc.eq(nt.inj_credit_t_ivc[t]),
                         eg.ej_flit.eq(nt.ej_flit_t[t]), eg.ej_valid.eq(nt.ej_valid_t[t])]
            if self.egress_depth:   # the FIFO's freed slots are the ejection port's credits (§R3a)
                m.d.comb += nt.ej_credit_t[t].eq(eg.ej_credit)
            errors += [ig.error, eg.error]
        m.d.comb += self.error.eq(Cat(*errors).any())
        if self.observe:
            nt = self.network
            m.d.comb += [getattr(self, name).eq(getattr(nt, name)) for name in nt.signature.members
                         if name.startswith("obs_")]
            m.d.comb += [self.obs_inj_valid_t.eq(Cat(*[ig.inj_valid for ig in self.ingress])),
                         self.obs_inj_flit_t.eq(Cat(*[ig.inj_flit for ig in self.ingress])),
                         self.obs_m_route_t.eq(Cat(*[eg.m_route for eg in self.egress]))]
        return m
