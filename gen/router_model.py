"""Router models: the per-stage delays of the router pipeline (docs/router-spec.md §R10).

The golden model (``radixnet.golden``) and the RTL (``radixnet.hdl``) both read
a :class:`RouterModel`; it is the one place the pipeline's parameters are named
and checked. The names are BookSim2's router parameters (``vc_alloc_delay``,
``sw_alloc_delay``, ``st_final_delay``, ``credit_delay``), so a BookSim user can
read a configuration at a glance.

The presets:

``single-cycle``
    Route computation, VC and switch allocation, switch traversal and the link
    in one cycle (router-spec §R2/§R3; every delay 0 but the link's). One
    inter-router hop costs one cycle.
``iq``
    The input-queued VC router as BookSim2 configures it, with lookahead
    routing: VC allocation, switch allocation and switch traversal one cycle
    each, then the link. One hop costs four cycles; a credit is usable upstream
    two cycles after the flit left the input buffer.
``hiradix``
    VC and switch allocation combined, but split into a registered input stage
    (RI) and output stage (GO), the grant registered before switch traversal
    (ST) applies its output side and, a cycle later, the inputs (IN) its input
    side (router-spec §R11): every stage reads registers only. One hop costs
    four cycles, as ``iq``.
``hiradix-local``
    ``hiradix`` with each output's arbitration in two levels (router-spec
    §R11.6): a local arbiter per group of ``--group`` inputs keeps a group's
    first ``S`` requests per output at the end of RI's cycle, and GO chooses
    among the groups' winners. Four cycles per hop.
``hiradix-staged``
    ``hiradix-local`` with the local arbitration in a cycle of its own (LO,
    between RI and GO) and switch traversal in two halves (the flit into a
    register at its input, then the crossbar): RI | LO | GO | ST1 (+ IN) |
    ST2 | link (router-spec §R11.7). Six cycles per hop.
``hiradix-decoupled``
    ``hiradix-staged`` with RI's loop local to its input (router-spec §R11.8):
    LO's verdict reaches the inputs a cycle after LO gives it, through a
    register beside the group, so no input waits for LO's arbiters; a head
    reads the output side of the view of two cycles before, registered at the
    outputs. Six cycles per hop.
``hiradix-twohead``
    ``hiradix-decoupled`` with two heads of a VC in flight (router-spec
    §R11.9): with single-flit packets, the flit behind a VC's front may be
    requested while the front's request is undecided, when the two are for
    different destinations. Six cycles per hop.
``hiradix-relay``
    ``hiradix-twohead`` with a register on each crossing of the request loop
    (router-spec §R11.10): the local arbiters read a copy of the request
    register beside them, and GO a copy of their candidates beside the output.
    Eight cycles per hop.
``hiradix-relay1``
    ``hiradix-relay`` without the second head: ``hiradix-decoupled`` with the
    registers on the request loop's crossings (router-spec §R11.11). Eight
    cycles per hop.
``subswitch``
    Kim, Dally, Towles and Gupta's hierarchical crossbar: ports in groups, a
    row buffer per input VC at each sub-switch of its row, a local allocator
    per sub-switch (SA), a column buffer per row and output VC at each output,
    and the output's arbiter over its column buffers (GO); RI | row | SA |
    column | GO | link (router-spec §R12). One hop costs six cycles; route-table
    routings and speedup 1.

Examples
--------
>>> m = get_router_model("iq")
>>> m.hop_cycles(link_latency=1)
4
>>> zero_load_latency(m, hops=1, packet_length=1, link_latency=1)   # one inter-router hop
9
>>> zero_load_latency(get_router_model("single-cycle"), hops=1, packet_length=1, link_latency=1)
3
>>> zero_load_latency(get_router_model("hiradix"), hops=1, packet_length=3, link_latency=1)   # §R11.5
13
>>> zero_load_latency(get_router_model("hiradix-staged"), hops=1, packet_length=3, link_latency=1)   # §R11.7
18
>>> zero_load_latency(get_router_model("hiradix-decoupled"), hops=1, packet_length=3, link_latency=1)   # §R11.8
18
>>> zero_load_latency(get_router_model("hiradix-twohead"), hops=1, packet_length=1, link_latency=1)   # §R11.9
13
>>> zero_load_latency(get_router_model("hiradix-relay"), hops=1, packet_length=1, link_latency=1)   # §R11.10
17
>>> zero_load_latency(get_router_model("hiradix-relay"), hops=1, packet_length=3, link_latency=1)   # §R11.10
24
>>> zero_load_latency(get_router_model("hiradix-relay1"), hops=1, packet_length=1, link_latency=1)   # §R11.11
17
>>> zero_load_latency(get_router_model("subswitch"), hops=1, packet_length=3, link_latency=1)   # §R12
15
"""

from __future__ import annotations

from dataclasses import dataclass

from .params import ParamError

__all__ = ["RouterModel", "ROUTER_MODELS", "SPLIT_MODELS", "get_router_model", "zero_load_latency", "LINE_S",
           "line_latency"]


@dataclass(frozen=True)
class RouterModel:
    """The cycle-level router pipeline (router-spec §R10).

    Parameters
    ----------
    name : str
        Preset name (``--router-model``).
    routing_delay : int
        Cycles of a route-computation stage before VC allocation. 0 in every preset: the route is
        computed as the head flit is written into the input buffer (lookahead: no RC stage).
    vc_alloc_delay : int
        Cycles of VC allocation (VA). 0: VC and switch allocation are one combined stage
        (single-cycle, §R5–§R6); 1: VA in its own cycle, its grant usable by SA in the next cycle.
    sw_alloc_delay : int
        Cycles from a switch-allocation (SA) grant to the start of switch traversal.
    st_final_delay : int
        Cycles of switch traversal (ST, crossbar into the output register) before the link.
    credit_delay : int
        Cycles a credit spends in the router before its link (BookSim's ``credit_delay``): a credit
        is usable upstream ``link_latency + credit_delay`` cycles after its flit left the input buffer.
    summary : str
        One line for ``--help`` and reports.
    allocation : str
        How allocation is organised: ``"combined"`` (VA and SA one stage, §R6), ``"va-sa"`` (VA, then SA,
        §R10) or ``"split"`` (combined VA/SA split into a registered input stage RI and output stage GO,
        the grant applied by ST in the next cycle, §R11) or ``"subswitch"`` (row buffers, a local allocator per
        sub-switch, column buffers, an output stage, §R12).
    local_output : bool
        ``split`` only: each output's arbitration in two levels, a local arbiter per group of ``--group`` inputs
        at the end of RI's cycle and GO over the groups' winners (§R11.6).
    staged : bool
        ``local_output`` only: the local arbiter in a cycle of its own (``vc_alloc_delay`` 2: RI, LO) and switch
        traversal in two halves (``st_final_delay`` 2: ST1, ST2), §R11.7.
    decoupled : bool
        ``staged`` only: RI's u(v) counts a request of two cycles ago whatever LO decided, and one of three cycles
        ago if LO kept it, so LO's verdict reaches the inputs through a register of its own; a head reads the
        output side of the view of two cycles before (§R11.8).
    heads : int
        ``decoupled`` only: the heads of one input VC that may have undecided requests at once, 1 or 2 (§R11.9:
        the second, with single-flit packets, the flit behind the front, for another destination).
    relay : bool
        ``decoupled`` only: a register on each crossing of the request loop, the request register copied beside
        LO and LO's candidates beside GO (``vc_alloc_delay`` 4: RI, RL1, LO, RL2), §R11.10 (two heads) and
        §R11.11 (one).
    """

    name: str
    routing_delay: int
    vc_alloc_delay: int
    sw_alloc_delay: int
    st_final_delay: int
    credit_delay: int
    summary: str
    allocation: str = "combined"
    local_output: bool = False
    staged: bool = False
    decoupled: bool = False
    heads: int = 1
    relay: bool = False

    @property
    def pipelined(self) -> bool:
        """True when VC allocation is a stage of its own (VA before SA), §R10."""
        return self.vc_alloc_delay > 0 and self.allocation == "va-sa"

    @property
    def split(self) -> bool:
        """True for the split allocator of §R11 (RI | GO | ST)."""
        return self.allocation == "split"

    @property
    def grouped(self) -> bool:
        """True when ``--group`` shapes the model: the sub-switches of §R12, the local output arbiters of §R11.6."""
        return self.allocation == "subswitch" or self.local_output

    def traversal_delay(self) -> int:
        """Cycles from an SA grant to the flit being sent on its link (§R10: SA, then ST)."""
        return self.sw_alloc_delay + self.st_final_delay

    def credit_latency(self, link_latency: int) -> int:
        """Cycles from a flit leaving an input buffer to its credit being usable upstream."""
        return link_latency + self.credit_delay

    def hop_cycles(self, link_latency: int) -> int:
        """Zero-load cycles per router traversal plus its outgoing link, for a head flit (§R10)."""
        return self.routing_delay + self.vc_alloc_delay + self.traversal_delay() + link_latency

    def as_dict(self) -> dict:
        """The model's name and delays, as the reports and manifests record them."""
        return {"router_model": self.name, "routing_delay": self.routing_delay,
                "vc_alloc_delay": self.vc_alloc_delay, "sw_alloc_delay": self.sw_alloc_delay,
                "st_final_delay": self.st_final_delay, "credit_delay": self.credit_delay}


ROUTER_MODELS: dict[str, RouterModel] = {m.name: m for m in (
    RouterModel("single-cycle", 0, 0, 0, 0, 0,
                "route, allocate and traverse the crossbar in one cycle (spec §R2); 1 cycle per hop"),
    RouterModel("iq", 0, 1, 1, 1, 1,
                "input-queued VC router, lookahead routing, VA | SA | ST | link (spec §R10); 4 cycles per hop",
                "va-sa"),
    RouterModel("hiradix", 0, 1, 1, 1, 1,
                "allocation split into registered input and output stages, RI | GO | ST (+ IN) | link (spec §R11); "
                "4 cycles per hop", "split"),
    RouterModel("hiradix-local", 0, 1, 1, 1, 1,
                "hiradix with the output arbitration in two levels: a local arbiter per group of --group inputs, "
                "then GO over the groups' winners (spec §R11.6); 4 cycles per hop", "split", local_output=True),
    RouterModel("hiradix-staged", 0, 2, 1, 2, 1,
                "hiradix-local with the local arbiter and the crossbar in stages of their own, RI | LO | GO | ST1 "
                "(+ IN) | ST2 | link (spec §R11.7); 6 cycles per hop", "split", local_output=True, staged=True),
    RouterModel("hiradix-decoupled", 0, 2, 1, 2, 1,
                "hiradix-staged with RI's loop local to its input: LO's verdict reaches the inputs a cycle later, "
                "through a register, and a head reads the output side two cycles old (spec §R11.8); 6 cycles per hop",
                "split", local_output=True, staged=True, decoupled=True),
    RouterModel("hiradix-twohead", 0, 2, 1, 2, 1,
                "hiradix-decoupled with two heads of a VC in flight: with single-flit packets the flit behind the "
                "front is requested while the front's request is undecided, for another destination (spec §R11.9); "
                "6 cycles per hop", "split", local_output=True, staged=True, decoupled=True, heads=2),
    RouterModel("hiradix-relay", 0, 4, 1, 2, 1,
                "hiradix-twohead with a register on each crossing of the request loop: the request register copied "
                "beside the local arbiters and their candidates beside GO, RI | RL1 | LO | RL2 | GO | ST1 (+ IN) | "
                "ST2 | link (spec §R11.10); 8 cycles per hop", "split", local_output=True, staged=True, decoupled=True,
                heads=2, relay=True),
    RouterModel("hiradix-relay1", 0, 4, 1, 2, 1,
                "hiradix-relay without the second head: hiradix-decoupled with a register on each crossing of the "
                "request loop, RI | RL1 | LO | RL2 | GO | ST1 (+ IN) | ST2 | link (spec §R11.11); 8 cycles per hop",
                "split", local_output=True, staged=True, decoupled=True, relay=True),
    RouterModel("subswitch", 0, 1, 3, 1, 1,
                "sub-switches with row and column buffers, RI | row | SA | column | GO | link (spec §R12); "
                "6 cycles per hop; table routings, --speedup 1", "subswitch"),
)}

#: the presets whose allocation is split into RI and GO (router-spec §R11), in the order of :data:`ROUTER_MODELS`
SPLIT_MODELS = tuple(name for name, m in ROUTER_MODELS.items() if m.split)


def get_router_model(name: "str | RouterModel") -> RouterModel:
    """The preset called ``name`` (a :class:`RouterModel` is returned as it is); ParamError otherwise."""
    if isinstance(name, RouterModel):
        return name
    try:
        return ROUTER_MODELS[name]
    except (KeyError, TypeError):
        raise ParamError("router-model", f"one of {', '.join(ROUTER_MODELS)} (got {name!r})") from None


#: ``hiradix`` with ``ugal-s`` under the decision line (router-spec §R11.2a): its allocator counts at most this many
#: earlier heads of a batch per output (``S``, 2-bit counts); golden model and RTL alike.
LINE_S = 3


def line_latency(n_inj, per_stage: int):
    """``Lw = 5 + ceil(n_inj / g)``: the cycles a flit spends in the decision line of a router with ``n_inj``
    injection ports, ``g = per_stage`` decisions per wavefront stage (router-spec §R11.2a). ``n_inj`` may be a
    numpy array (one ``Lw`` per router).

    >>> line_latency(8, 1), line_latency(8, 3)
    (13, 8)
    """
    return 5 + -(-n_inj // per_stage)


def zero_load_latency(model: RouterModel, hops: int, packet_length: int = 1, link_latency: int = 1) -> int:
    """The spec's zero-load latency of a packet with ``hops`` inter-router hops (§R3, §R10).

    Creation to ejection with no other traffic: the injection link (the packet is injected in its
    creation cycle), ``hops + 1`` router traversals each followed by a link (the last one the
    ejection link), and ``packet_length - 1`` cycles for the body flits to follow the head.
    """
    # §R11.5, §R11.7: the first body waits for its head's IN, vc_alloc_delay + 2 cycles after the head's RI
    extra = model.vc_alloc_delay + 1 if model.split and packet_length > 1 else 0
    return link_latency + (hops + 1) * model.hop_cycles(link_latency) + packet_length - 1 + extra
