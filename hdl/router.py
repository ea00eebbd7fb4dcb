"""Router top: table or adaptive routing, the greedy or the sequential allocator (§R5-§R7), speedup
``S = 1`` (this docstring) or ``2`` (§R8b, section "Speedup 2" below), under a router model of §R10-§R11:
``single-cycle`` (this docstring), ``iq`` (VA | SA | ST | link, :mod:`radixnet.hdl.router_iq`) or ``hiradix``
(RI | GO | ST | link, every stage from registers, :mod:`radixnet.hdl.router_hiradix`; greedy routings and
``ugal-s``).

The route comes from a route table (``sp``, ``dor``, ``hdor``, ``dest-tag``,
``min``; §R7a, §R7d) or, on the HyperX family, from a decision unit per
requester (:mod:`radixnet.hdl.route_adaptive`): ``min-ad``, ``val``, ``ugal``
with the greedy allocator (:data:`ADAPTIVE`), ``ugal-s``, ``clos-ad`` and
``2dfb-adaptive`` with the sequential one (:data:`SEQUENTIAL`; section
"Sequential allocation" below).

One router of a :class:`radixnet.gen.Network`, composed of the units of
``hdl/`` (docs/rtl.md): per port an :class:`~radixnet.hdl.input_unit.InputUnit` (``V`` VC
buffers of ``B`` flits), per input VC a
:class:`~radixnet.hdl.route_table.RouteDecode` reading the router's one route
ROM (its row of the tables of ``radixnet.gen.routing.compile_table``, a
memory with a read port per input VC; under ``iq`` a read per input port on
arrival, the route stored with the flit, §R10.4), per network output and VC class an
:class:`~radixnet.hdl.vc_select.OutputVCSelect` on the output's
:class:`~radixnet.hdl.credits.CreditCounter` s, a
:class:`~radixnet.hdl.arbiter.RoundRobinArbiter` per input (over its VCs) and
per output (over the inputs), and a flat
:class:`~radixnet.hdl.crossbar.Crossbar`.

Allocation (§R5, §R6 greedy, ``S = 1``), every cycle, on the state at the
start of the cycle (registers only):

1. every input VC with a front flit makes its request: a VC that holds an
   output VC (wormhole, a body/tail flit) requests that output VC if it has a
   credit (an ejection port always accepts, or with ``egress_depth >= 1`` has a
   credit of its one VC, §R3a); otherwise the front (head) flit
   is routed by the table and asks for the output VC of its class
   ``min(hops, classes - 1)`` that is idle with the most credits, lowest
   index on ties (VC 0 on an ejection port, if no packet holds it and, with
   ``egress_depth >= 1``, it has a credit), and does not request without one;
2. input arbitration: input ``p`` picks one requesting VC round robin from
   ``ptr_in[p]``;
3. output arbitration: output ``o`` grants one of the picks for it round robin
   over inputs from ``ptr_out[o]``. With ``S = 1`` an output grants at most
   one flit, so the §R6 skips (no credit left, VC taken by an earlier grant)
   never apply beyond step 1;
4. ``ptr_out[o]`` moves to one past the granted input, ``ptr_in[p]`` to one
   past the granted VC -- only if ``p``'s pick was granted.

Sequential allocation (§R6 sequential, ``S = 1``; ``ugal-s``, ``clos-ad``, ``2dfb-adaptive``)
------------------------------------------------------------------------------------------
Inputs are served one after the other from a ``start`` pointer that advances
every cycle; each decides on the state the inputs before it left: an output
granted earlier this cycle shows one credit fewer (``q + 1``) and that VC's
hold updated, and cannot be granted again. The requests are rotated by
``start`` into positions of a ripple chain (one barrel rotator) and the
results rotated back; each position holds ``V`` decision units that see the
same state (a VC that is not granted commits nothing, and with ``S = 1`` the
input stops at its first grant), and a round-robin pick from ``ptr_in``.
Details in ``Router._allocate_sequential``; the chain is ``P`` decisions
deep (docs/seq-alloc.md explains why no log-depth circuit is expected).

A grant pops the input VC (its credit goes upstream in the same cycle,
``credit_out_ip_ivc``), takes one credit of the output VC (network outputs),
sets the output VC busy and the input VC active for a head flit that is not a
tail (clears both on the tail), and sends the flit through the crossbar with
``vc`` = the output VC (0 on an ejection port) and, for a head flit,
``hops + 1`` on a network output (saturating; unchanged on ejection).

Speedup 2 (§R8b)
----------------
``speedup=2`` gives every input and output two lanes. The separable allocator
picks up to two VCs per input (the first two requesters in round-robin order)
and grants up to two lanes per output in its round-robin order, the second
only if the first left it grantable (:meth:`Router._second_ok`: the credit,
the VC hold, the ejection queue; under ``iq``'s VA, the next-best VC); the
sequential chain has two steps per input. A ``2P``-lane crossbar writes each
output's grants, in grant order, into its §R2 output queue
(:class:`~radixnet.hdl.output_queue.OutputQueue`, ``V * B`` flits; bypassed
when empty, so an idle output adds no cycle). Credit counters take up to two
credits a cycle.

Timing (§R2, §R8a, ``Tl = 1``)
------------------------------
``in_valid_ip[p]`` high in cycle ``t`` means a flit *sent* in ``t``: it
arrives at the end of ``t`` (written into its VC buffer at the edge ending
``t``) and can be granted from ``t + 1`` on. A flit granted in cycle ``g``
is **sent in** ``g``: ``out_valid_op[o]`` / ``out_flit_op[o]`` are high /
valid during ``g`` itself, and the next router (or terminal) registers it at
the edge ending ``g``, so it can be granted downstream in ``g + 1``.
Returned credits behave the same way: ``credit_out_ip_ivc`` is high in the
grant (pop) cycle, and a ``credit_in_op_ovc`` bit high in ``t`` is usable from
``t + 1`` (the counter updates at the edge). One cycle per hop, as in the
golden model and §R3's zero-load example::

    cycle            0          1            2            3
    source terminal  in_valid   .            .            .
    router A         (write)    grant,       .            .
                                out_valid
    router B         .          (write)      grant,       .
                                             out_valid (ejection port)
    terminal         .          .            (write)      ejected (t + Tl)

So the §R2 "output queue", which with ``S = 1`` never holds a flit across a
cycle, is the **receiver's input register**: §R8a's "the link is the output
register" -- an RTL link with ``Tl = 1`` adds no register of its own, and the
router adds none either (a register at the output would make each hop two
cycles, against §R3). The outputs are nevertheless **Moore** outputs:
``out_*`` and ``credit_out_ip_ivc`` depend only on the router's registers
(buffers, counters, pointers, busy/active bits), never combinationally on
``in_*`` or ``credit_in_op_ovc`` of the same cycle, so routers connect back to
back without combinational loops. The combinational path from a register to
``out_*`` is buffer read -> route ROM -> VC choice -> two arbiters -> crossbar.

Ejection ports have no credits (the terminal is an ideal sink, §R3/§R5):
their ``credit_in_op_ovc`` bits are not credits; one set is a protocol
violation and sets the sticky ``error`` (as do the input units' and credit
counters' violations).

Route ROM outside the router (``external_rom=True``)
----------------------------------------------------
By default the router holds its own route ROM (one memory, :attr:`rom_ints`,
with a combinational read port per input VC, each decoded by a
:class:`~radixnet.hdl.route_table.RouteDecode`; the Verilog holds the table
once, however many ports read it), so with ``sp`` no two routers have the same
hardware. With ``external_rom=True`` the router is a **core** that depends
only on its port count, which ports eject, ``V``, ``B``, the classes and the
flit widths: the ROM leaves the router, and it gets two more ports per input
port ``p`` and VC ``v``:

* ``route_addr_ip_ivc[p][v]`` (out, ``ptr_width(T)`` bits): the lookup
  address, the ``dest`` field of the VC's front flit (a function of registers);
* ``route_word_ip_ivc[p][v]`` (in, ``ptr_width(P) + 2`` bits): the ROM word at
  that address, packed as ``RouteCompute`` stores it
  (``port | eject << pw | ok << (pw + 1)``, :attr:`rom_ints`).

Under ``iq`` (:attr:`lookahead`, §R10.4) the lookup is on arrival, one per
input port: ``route_addr_ip[p]`` is the ``dest`` of ``in_flit_ip[p]`` (a
combinational function of an input) and ``route_word_ip[p]`` the word, stored
with the flit.

Everything else (VC class from ``hops``, ``hops + 1``, VC choice, allocation)
is unchanged, so a core whose ``route_word`` inputs come from combinational
ROMs holding :attr:`rom_ints`, addressed by its ``route_addr`` outputs, is
cycle-for-cycle the default router (``tests/test_rtlgen.py`` checks it).
The path register -> ``route_addr`` -> external ROM -> ``route_word`` -> VC
choice -> arbiters -> ``out_*`` is the default one with the ROM moved out:
``out_*`` still depend on the registers only (and on ``route_word``, which
a ROM computes from ``route_addr``), never on ``in_*``/``credit_in_op_ovc``.

Examples
--------
>>> from radixnet.gen import build
>>> r = Router(build("fbfly", k=4, n=2), 0, n_vcs=2, vc_depth=4, data_width=16)
>>> r.n_ports, r.n_classes, r.eject_ports, r.out_channels
(7, 1, [0, 1, 2, 3], [-1, -1, -1, -1, 0, 1, 2])
>>> from radixnet.hdl.rtlgen import flat_verilog
>>> header = flat_verilog(r, "rt").split("module rt(")[1].split(");")[0].split(", ")
>>> sorted(x for x in header if x.endswith("_0") or "__" not in x)
['clk', 'credit_in_op_ovc__0', 'credit_out_ip_ivc__0', 'error', 'in_flit_ip__0', 'in_valid_ip', 'out_flit_op__0', 'out_valid_op', 'rst']
>>> core = Router(build("fbfly", k=4, n=2), 0, n_vcs=2, vc_depth=4, data_width=16, external_rom=True)
>>> core.route_addr_ip_ivc[6][1].shape(), core.route_word_ip_ivc[6][1].shape(), core.rom_ints[:3]
(unsigned(4), unsigned(5), [24, 25, 26])
>>> Router(build("slimfly", q=5), 0, n_vcs=3, vc_depth=4)
Traceback (most recent call last):
...
ValueError: Router: n_vcs (virtual channels per port) must be a multiple of the routing's 2 VC classes (router-spec §R5), got 3
"""

from __future__ import annotations

from typing import NamedTuple

from amaranth import Cat, Const, Module, Mux, Signal, Value, unsigned
from amaranth.hdl import Assert
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..gen.router_config import DATA_WIDTH, ROUTER_DEFAULTS
from ..gen.router_model import ROUTER_MODELS, SPLIT_MODELS, get_router_model
from ..gen.routing import ROUTINGS as _ROUTINGS
from .arbiter import (
    RoundRobinArbiter,
    check_choice,
    check_int,
    later_than,
    lowest_one,
    next_ptr,
    onehot_index,
    or_all,
    ptr_width,
    reject,
    rr_first,
)
from .credits import CreditCounter
from .crossbar import Crossbar
from .decision_line import DecisionLine
from .flit import HOPS_BITS, flit_widths
from .input_unit import FRONTS, RAMS, FrontInputUnit, InputUnit
from .output_queue import OutputQueue
from .route_table import RouteCompute, RouteDecode
from .router_hiradix import HiradixStages, view_flits
from .router_iq import IqStages
from .router_subswitch import SubswitchStages
from .seq_alloc import rotate
from .vc_select import OutputVCSelect, QueueLength, vc_class

__all__ = ["Router", "FAULTS", "ALLOCATOR_FAULTS", "ADAPTIVE", "SEQUENTIAL", "HIRADIX_SEQUENTIAL", "SEQ_IMPLS",
           "CROSSBAR_SELECTS",
           "DECIDED", "LANE_MIN", "decided_in_logic", "RTL_MODELS", "RTL_SPEEDUPS", "Grants"]

#: every routing the router decides in logic (router-spec §R7, §R7b): routing name -> (decision unit class name in
#: hdl/route_adaptive.py, its ``routing`` argument)
DECIDED = {"min-ad": ("MinAdDecide", None), "val": ("UgalDecide", "val"), "ugal": ("UgalDecide", "ugal"),
           "ugal-s": ("UgalDecide", "ugal-s"), "clos-ad": ("ClosAdDecide", None),
           "2dfb-adaptive": ("PriorityFlagDecide", None)}
#: ``min`` where a neighbour is reached over parallel lanes: dimension order, the lane by queue length (§R7), decided
#: in logic (:func:`decided_in_logic`); with one lane per neighbour ``min`` is a route table
LANE_MIN = ("MinDecide", None)


def decided_in_logic(routing: str | None, net) -> bool:
    """Whether the router decides ``routing`` on ``net`` in logic (a decision unit per input VC, no route table):
    the routings of :data:`DECIDED`, and ``min`` on parallel lanes (:data:`LANE_MIN`).

    >>> from radixnet.gen import build
    >>> decided_in_logic("min", build("2dfb", k=4, n=1)), decided_in_logic("min", build("fbfly", k=4, n=2))
    (True, False)
    """
    from ..gen.routing import parallel_lanes

    return routing in DECIDED or (routing == "min" and parallel_lanes(net))


#: those the greedy allocator serves, and those the sequential one serves (§R6): which is the routing's own
#: attribute, ``radixnet.gen.routing.ROUTINGS[name].allocator``, stated there once
ADAPTIVE = {k: v for k, v in DECIDED.items() if _ROUTINGS[k].allocator == "greedy"}
SEQUENTIAL = {k: v for k, v in DECIDED.items() if _ROUTINGS[k].allocator == "sequential"}
#: the sequential routings ``hiradix`` builds: its RI composes :class:`~radixnet.hdl.seq_alloc.SequentialAllocator`,
#: whose requester chooses its least-cost candidate (UGAL-S's comparison, router-spec §R11.2)
HIRADIX_SEQUENTIAL = ("ugal-s",)
#: structures of that allocator (:data:`radixnet.hdl.seq_alloc.IMPLS`)
SEQ_IMPLS = ("prefix", "ripple")
#: how the ``hiradix`` crossbar selects an output's input lane (:class:`~radixnet.hdl.crossbar.Crossbar`): by the
#: index GO registers beside its one-hot grant (default), or by the one-hot grant itself (an AND-OR)
CROSSBAR_SELECTS = ("index", "onehot")


#: the router models (router-spec §R10, :mod:`radixnet.gen.router_model`) the RTL builds
RTL_MODELS = tuple(ROUTER_MODELS)

#: the speedups the RTL builds (router-spec §R1)
RTL_SPEEDUPS = (1, 2)


class Grants(NamedTuple):
    """One allocator's grants this cycle, ``S`` lanes per input (lane ``s``: the input's ``s``-th pick).

    ``g[p][s]`` granted, ``v[p][s]`` its input VC, ``o[p][s]`` its output, ``flit[p][s]`` the flit as it
    leaves (``vc`` the output VC, the header updated); ``sel[o]``: per grant ``j`` of output ``o`` in
    grant order, ``(valid, lane)`` with ``lane = p * S + s`` (the order it joins the output queue).
    """
    g: list
    v: list
    o: list
    flit: list
    sel: list


#: the deliberate bugs a Router can be built with (``fault``); ``None`` is the spec
FAULTS = (None, "out_arb_fixed", "seq_stale_state", "eject_hops")
#: faults planted in one allocator, and which: the router must use it (the others apply to any router)
ALLOCATOR_FAULTS = {"out_arb_fixed": "greedy", "seq_stale_state": "sequential"}


class Router(IqStages, HiradixStages, SubswitchStages, wiring.Component):
    """One router of ``net``: table or adaptive routing, greedy or sequential allocation, ``S = 1`` or ``2`` (§R6).

    Parameters
    ----------
    net : radixnet.gen.Network
        The topology; ``radix[router_id]`` gives the ports, the channels and terminals which
        outputs are network outputs (credits) and which are ejection ports (no credits).
    router_id : int
        This router, ``0 <= router_id < net.num_routers``.
    n_vcs : int
        ``V``, VCs per port, ``>= 1``, a multiple of the routing's classes (§R5).
    vc_depth : int
        ``B``, flits per VC buffer (here and downstream), ``>= 1``.
    data_width : int
        Payload bits of the flit (default 64).
    table : radixnet.gen.routing.RouteTable, optional
        The route tables; default ``compile_table(net)`` (classes = diameter).
    check : bool
        Emit the units' protocol assertions (simulation and Verilog).
    fault : str, optional
        Build a deliberately wrong router, so that a test can show the co-simulation
        catches it: ``"out_arb_fixed"`` freezes every output arbiter's pointer (fixed
        priority, lowest input first, instead of §R6's round robin; greedy allocator);
        ``"seq_stale_state"`` makes every input of the sequential allocator decide on the
        start-of-cycle state instead of the one the earlier grants left; ``"eject_hops"`` counts a
        hop on ejection too (the head leaves on its ejection port with ``hops + 1``, against §R8a):
        the packet's timing, exit port and payload are those of the spec, only its header differs,
        which the co-simulation's per-hop comparison sees and its endpoint comparison does not.
        ``None``: the spec.
    external_rom : bool
        Leave the route ROMs out (module docstring): add the ``route_addr_ip_ivc`` /
        ``route_word_ip_ivc`` ports. Default False: the ROMs are inside, no extra ports.
    routing : str, optional
        A routing decided in logic on a HyperX-family network (:data:`DECIDED`): ``min-ad``,
        ``val``, ``ugal`` (greedy allocator) or ``ugal-s``, ``clos-ad``, ``2dfb-adaptive``
        (sequential allocator). None (default): ``table``.
    threshold : int
        The decision units' bias: UGAL's / CLOS AD's ``θ`` in flit-hops, the 2DFB's ``T_h`` in
        flits (§R7, §R7b); default 4.
    router_model : str
        The pipeline (§R10, :data:`RTL_MODELS`): ``single-cycle`` (default; allocation and crossbar in
        the grant cycle, Moore outputs from the buffers), ``iq`` (:mod:`radixnet.hdl.router_iq`: VA,
        SA, ST and output registers, a credit register; 4 cycles per hop), ``hiradix``
        (:mod:`radixnet.hdl.router_hiradix`: RI | GO | ST, every stage from registers, router-spec §R11;
        the greedy routings and ``ugal-s``), ``hiradix-local`` (its output arbitration in two levels, §R11.6),
        ``hiradix-staged`` (those levels and switch traversal in stages of their own, §R11.7),
        ``hiradix-decoupled`` (``hiradix-staged`` with RI's loop local to its input, §R11.8), ``hiradix-twohead``
        (``hiradix-decoupled`` with two heads of a VC in flight, §R11.9), ``hiradix-relay`` (``hiradix-twohead`` with
        the request loop's two crossings registered, §R11.10), ``hiradix-relay1`` (those registers with one head,
        §R11.11) or ``subswitch``
        (:mod:`radixnet.hdl.router_subswitch`: RI | row buffers | SA per sub-switch | column buffers | GO, router-spec
        §R12; route tables, ``S = 1``).
    speedup : int
        ``S`` (§R1, :data:`RTL_SPEEDUPS`): grants per input and per output per cycle. 1 (default), or 2:
        two crossbar lanes per input and per output, and a §R2 output queue of ``V * B`` flits per
        output (:class:`~radixnet.hdl.output_queue.OutputQueue`).
    egress_depth : int
        ``E`` (router-spec §R3a): 0 (default), the terminals are ideal sinks and ejection ports take no
        credits; ``E >= 1``, each ejection port's VC has ``E`` credits (the terminal's egress FIFO),
        returned on bit 0 of its ``credit_in_op_ovc``.
    group : int
        ``subswitch`` (router-spec §R12): ports per row and column group ``G`` (default 4), ``>= 1``; the
        last group is smaller when ``G`` does not divide the radix.
    seq_wavefront : int
        ``hiradix`` with ``ugal-s`` (router-spec §R11.2a): 0 (default) decides the source choice in RI's
        chain; ``g >= 1`` decides it in a :class:`~radixnet.hdl.decision_line.DecisionLine` at the injection
        ports, a wavefront of ``g`` decisions per stage, every injection flit ``5 + ceil(n_inj / g)`` cycles
        longer on its way in, and RI's chain (no choice left in it) moves beside GO, per output the first ``S``
        requests in service order (:class:`~radixnet.hdl.alloc.chain.OutputChain`).
    seq_impl : str
        ``hiradix`` with ``ugal-s``: the structure of the sequential allocator its RI composes
        (:class:`~radixnet.hdl.seq_alloc.SequentialAllocator`, :data:`SEQ_IMPLS`): ``"prefix"`` (default,
        about half the ripple chain's logic depth) or ``"ripple"``; the same function bit for bit.
    crossbar_select : str
        ``hiradix``: how the crossbar selects each output's input lane (:data:`CROSSBAR_SELECTS`): ``"index"``
        (default), a multiplexer tree on the lane's index, which GO registers beside its one-hot grant, or
        ``"onehot"``, an AND-OR of the one-hot grant (fewer LUT4s; at radix 16 its select nets, each fanning out
        to a flit's bits at every input, leave the ECP5 core unroutable, docs/timing-report.md); the same
        function bit for bit.
    buffer_fronts : int
        ``hiradix``: the oldest flits of every VC held in registers (:data:`~radixnet.hdl.input_unit.FRONTS`,
        router-spec §R11.1a): 2 (default), or 3, which keeps the third flit in a register too, so that no RAM
        read is on a path into the allocator's registers (at ``vc_depth = 4``: no RAM at all); the same function
        bit for bit.
    buffer_ram : str
        ``hiradix``: what holds the flits behind the front registers (:data:`~radixnet.hdl.input_unit.RAMS`,
        router-spec §R11.1a): ``"lut"`` (default), a LUT-RAM, or ``"block"``, a RAM with a registered read
        (the ECP5's ``DP16KD``), read a cycle ahead; the same function bit for bit.
    observe : bool
        Co-simulation only (default False: no extra ports, the Verilog of the default router): bring
        out the grants of the allocator that takes the routing decisions -- the combined allocator
        of ``single-cycle``, the VA of ``iq`` (§R10.1) -- as ``obs_dec_gnt_ip_lane``,
        ``obs_dec_ivc_ip_lane`` and ``obs_dec_op_ip_lane``.

    Attributes
    ----------
    in_flit_ip : list of View(flit), in
        Per input port, the flit on the incoming link this cycle.
    in_valid_ip : Signal(P), in
        Bit ``p``: ``in_flit_ip[p]`` is a flit (sent this cycle; usable from the next).
    credit_out_ip_ivc : list of Signal(V), out
        Per input port, bit ``v``: a credit for input VC ``v`` is returned upstream this cycle.
    out_flit_op : list of View(flit), out
        Per output port, the flit sent this cycle (header updated: ``vc``, ``hops``).
    out_valid_op : Signal(P), out
        Bit ``o``: ``out_flit_op[o]`` is a flit.
    credit_in_op_ovc : list of Signal(V), in
        Per output port, bit ``v``: the downstream router returns a credit for VC ``v`` this
        cycle (usable from the next). On an ejection port: bit 0, the egress FIFO freed a slot
        (``egress_depth >= 1``); must stay 0 otherwise.
    error : Signal(1), out
        Sticky protocol violation (input buffer overflow/underflow/bad VC, credit
        underflow/overflow, a credit on an ejection port that takes none); never under the protocol.
    route_addr_ip_ivc : list of list of Signal(ptr_width(T)), out (``external_rom`` only)
        Per input port and VC, the ROM address: the front flit's ``dest``.
    route_word_ip_ivc : list of list of Signal(ptr_width(P) + 2), in (``external_rom`` only)
        Per input port and VC, the ROM word at ``route_addr_ip_ivc[p][v]`` (:attr:`rom_ints`).
    route_addr_ip, route_word_ip : list of Signal, out / in (``external_rom`` under :attr:`lookahead`)
        The same per input port, for the arriving flit (``in_flit_ip[p].dest``), instead of the two above.
    obs_dec_gnt_ip_lane : Signal(P * S), out (``observe`` only)
        Bit ``p * S + s``: input ``p``'s ``s``-th grant of the deciding allocator this cycle.
    obs_dec_ivc_ip_lane, obs_dec_op_ip_lane : list of Signal, out (``observe`` only)
        Per lane ``p * S + s``, the granted input VC and the output it was granted.
    lookahead : bool
        The route is looked up as a flit arrives and stored with it (``iq`` with a route table, §R10.4).
    route_reads : list of str
        The ROM's read ports, by suffix: ``ip_<p>`` under :attr:`lookahead`, else ``ip_<p>_ivc_<v>``
        (:func:`radixnet.hdl.topgen.rom_verilog`'s ``reads``); empty for a routing decided in logic.
    rom_words : list of (ok, eject, port)
        This router's ROM, one word per destination terminal.
    rom_ints : list of int
        The same, packed and padded to ``2**rom_addr_bits`` words, as a ROM stores it.
    rom_addr_bits, rom_word_bits : int
        ROM address and word widths.
    """

    def __init__(self, net, router_id: int, n_vcs: int, vc_depth: int, data_width: int = DATA_WIDTH, *, table=None,
                 check: bool = True, fault: str | None = None, external_rom: bool = False, routing: str | None = None,
                 threshold: int = ROUTER_DEFAULTS["threshold"], router_model: str = ROUTER_DEFAULTS["router_model"],
                 speedup: int = ROUTER_DEFAULTS["speedup"], egress_depth: int = ROUTER_DEFAULTS["egress_depth"],
                 observe: bool = False, seq_impl: str = "prefix", group: int = ROUTER_DEFAULTS["group"],
                 seq_wavefront: int = ROUTER_DEFAULTS["seq_wavefront"], crossbar_select: str = CROSSBAR_SELECTS[0],
                 buffer_fronts: int = ROUTER_DEFAULTS["buffer_fronts"],
                 buffer_ram: str = ROUTER_DEFAULTS["buffer_ram"]):
        from ..gen.routing import compile_table

        if router_model not in RTL_MODELS:
            reject(self, f"router_model (the pipeline, router-spec §R10) must be one of {', '.join(RTL_MODELS)}, "
                         f"got {router_model!r}")
        self.model = get_router_model(router_model)
        if self.model.split and routing in SEQUENTIAL and routing not in HIRADIX_SEQUENTIAL:
            reject(self, f"routing {routing!r} is not built under router_model 'hiradix' (its sequential RI, "
                         f"router-spec §R11.2, composes hdl/seq_alloc.py, whose least-cost choice is "
                         f"{', '.join(HIRADIX_SEQUENTIAL)}'s); use ugal-s, a greedy routing, or router_model 'iq'")
        self.seq_impl = check_choice(self, "seq_impl", "structure of hiradix's sequential allocator, "
                                                       "hdl/seq_alloc.py", seq_impl, SEQ_IMPLS)
        self.crossbar_select = check_choice(self, "crossbar_select", "how hiradix's crossbar selects a lane",
                                            crossbar_select, CROSSBAR_SELECTS)
        # the input units' structure (router-spec §R11.1a): hiradix models only, the same function either way
        self.buffer_fronts = check_choice(self, "buffer_fronts", "the oldest flits per VC in registers, router-spec "
                                                                 "§R11.1a", buffer_fronts, FRONTS)
        self.buffer_ram = check_choice(self, "buffer_ram", "what holds the flits behind the front registers, "
                                                           "router-spec §R11.1a", buffer_ram, RAMS)
        for name, value, default in (("buffer_fronts", buffer_fronts, FRONTS[0]), ("buffer_ram", buffer_ram, RAMS[0])):
            if value != default and not self.model.split:
                reject(self, f"{name} {value!r} needs a hiradix router_model (router-spec §R11.1a: its input units "
                             f"hold their front flits in registers), got {router_model!r}")
        self.group = check_int(self, "group", "ports per sub-switch group (router-spec §R12), inputs per local output "
                                             "arbiter (§R11.6)", group, 1)
        self.seq_wavefront = check_int(self, "seq_wavefront", "decisions per wavefront stage of the decision line, "
                                                              "router-spec §R11.2a; 0: none", seq_wavefront, 0)
        if seq_wavefront and not (self.model.split and routing in HIRADIX_SEQUENTIAL):
            reject(self, f"seq_wavefront {seq_wavefront!r} needs router_model "
                         f"{', '.join(map(repr, SPLIT_MODELS[:-1]))} or {SPLIT_MODELS[-1]!r} and routing "
                         f"{' or '.join(HIRADIX_SEQUENTIAL)} (router-spec §R11.2a), got {router_model!r} "
                         f"with routing {routing!r}")
        if self.model.allocation == "subswitch":
            if routing is not None:
                reject(self, f"routing {routing!r} is not built under router_model 'subswitch' (router-spec §R12: "
                             f"route-table routings only so far); use the route table (routing None)")
            if speedup != 1:
                reject(self, f"speedup {speedup!r} is not built under router_model 'subswitch' (router-spec §R12: "
                             f"S = 1 only so far)")
        if speedup not in RTL_SPEEDUPS or isinstance(speedup, bool):
            reject(self, f"speedup (flits an input may send and an output accept per cycle, router-spec §R1) "
                         f"must be one of {', '.join(map(str, RTL_SPEEDUPS))}, got {speedup!r}")
        self.speedup = speedup
        self.egress_depth = check_int(self, "egress_depth", "egress FIFO flits, the ejection port's credits "
                                                            "(router-spec §R3a; 0: ideal terminals)", egress_depth, 0)

        if fault not in FAULTS:
            reject(self, f"fault (deliberate bug for fault-injection tests) must be one of "
                          f"{', '.join(repr(f) for f in FAULTS)}, got {fault!r}")
        self.fault = fault

        if not hasattr(net, "radix") or not hasattr(net, "port_table"):
            reject(self, f"net (the topology) must be a radixnet.gen.Network, got {net!r}")
        if isinstance(router_id, bool) or not isinstance(router_id, int) \
                or not 0 <= router_id < net.num_routers:
            reject(self, f"router_id (this router) must be an int with 0 <= router_id < "
                          f"{net.num_routers}, got {router_id!r}")
        self.n_vcs = check_int(self, "n_vcs", "virtual channels per port", n_vcs, 1)
        self.vc_depth = check_int(self, "vc_depth", "flits per VC buffer", vc_depth, 1)
        self.data_width = check_int(self, "data_width", "payload bits", data_width, 1)
        if not isinstance(check, bool):
            reject(self, f"check (emit the protocol assertions) must be a bool, got {check!r}")
        if not isinstance(external_rom, bool):
            reject(self, f"external_rom (route ROMs outside the router) must be a bool, got {external_rom!r}")
        self.external_rom = external_rom
        if routing is not None and not decided_in_logic(routing, net):
            reject(self, f"routing (an adaptive routing decided in logic; None: the route table) must be one of "
                          f"{', '.join(DECIDED)}, or min on parallel lanes, got {routing!r}")
        if fault in ALLOCATOR_FAULTS and (ALLOCATOR_FAULTS[fault] == "sequential") != (routing in SEQUENTIAL):
            reject(self, f"fault: {fault!r} plants a bug in the {ALLOCATOR_FAULTS[fault]} allocator, which routing "
                          f"{routing or 'table'!r} does not use")
        if not isinstance(observe, bool):
            reject(self, f"observe (co-simulation ports of the deciding allocator's grants) must be a bool, "
                          f"got {observe!r}")
        self.observe = observe
        self.routing, self.threshold = routing, threshold
        #: the routing is decided by the sequential allocator (§R6 sequential)
        self.sequential = routing in SEQUENTIAL
        if routing is not None:
            if external_rom:
                reject(self, f"external_rom: routing {routing!r} is decided in logic and has no route ROM")
            # one decision unit per input VC (router-spec §R7, hdl/route_adaptive.py); validated here
            self.net, self.router_id = net, router_id
            unit = self._decider()
            unit._MustUse__silence = True
            table, n_classes = None, unit.n_classes
        else:
            if table is None:
                table = compile_table(net)
            elif not hasattr(table, "next_port") or not hasattr(table, "classes"):
                reject(self, f"table (route tables) must be a radixnet.gen.routing.RouteTable, got {table!r}")
            n_classes = int(table.classes)
        if n_vcs % n_classes:
            reject(self, f"n_vcs (virtual channels per port) must be a multiple of the routing's "
                          f"{n_classes} VC classes (router-spec §R5), got {n_vcs}")
        self.net, self.router_id, self.table, self.check = net, router_id, table, check
        self.n_ports = int(net.radix[router_id])
        self.n_classes = n_classes
        pt = net.port_table()
        P = self.n_ports
        #: ports whose output is an ejection port (a terminal ejects there)
        self.eject_ports = [o for o in range(P) if pt["out_terminal"][router_id, o] >= 0]
        #: ports a terminal feeds, in port order (the decision line's requesters, §R11.2a)
        self.inject_ports = [p for p in range(P) if pt["in_terminal"][router_id, p] >= 0]
        #: per output port, the channel it drives (-1: ejection or unused)
        self.out_channels = [int(pt["out_channel"][router_id, o]) for o in range(P)]
        #: per input port, the channel that feeds it (-1: injection or unused)
        self.in_channels = [int(pt["in_channel"][router_id, p]) for p in range(P)]
        self.widths = flit_widths(net, n_vcs, data_width)
        self.flit_layout = self.widths.layout()
        if routing is None:
            rc = RouteCompute.from_table(table, router_id, P)  # its ROM words name the configuration
            self.rom_words = rc.rom_words()
            self.rom_ints = rc.rom_ints()
            self.rom_addr_bits, self.rom_word_bits = rc.addr_bits, rc.word_bits
            self.rom_cls_bits = rc.cls_bits  # class-table field of a ROM word (0: hop-index classes)
            rc._MustUse__silence = True
        else:
            self.rom_words = self.rom_ints = None
            self.rom_addr_bits = self.rom_word_bits = self.rom_cls_bits = 0
        lay = self.flit_layout
        members = {
            "in_flit_ip": In(lay).array(P),
            "in_valid_ip": In(P),
            "credit_out_ip_ivc": Out(n_vcs).array(P),
            "out_flit_op": Out(lay).array(P),
            "out_valid_op": Out(P),
            "credit_in_op_ovc": In(n_vcs).array(P),
            "error": Out(1),
        }
        #: the route is looked up as a flit arrives and stored with it in the VC buffer (``iq`` with a route
        #: table, router-spec §R10.4): one ROM read per input port, and none in VA
        self.lookahead = (self.model.pipelined or self.model.split or self.model.allocation == "subswitch") \
            and routing is None
        #: the ROM's read ports, by suffix (``ip_<p>`` per input port under lookahead, else ``ip_<p>_ivc_<v>``)
        self.route_reads = [] if routing is not None else \
            [f"ip_{p}" for p in range(P)] if self.lookahead else \
            [f"ip_{p}_ivc_{v}" for p in range(P) for v in range(n_vcs)]
        if external_rom and self.lookahead:
            members["route_addr_ip"] = Out(self.rom_addr_bits).array(P)
            members["route_word_ip"] = In(self.rom_word_bits).array(P)
        elif external_rom:
            members["route_addr_ip_ivc"] = Out(self.rom_addr_bits).array(P, n_vcs)
            members["route_word_ip_ivc"] = In(self.rom_word_bits).array(P, n_vcs)
        if observe:   # co-simulation only (§R9 checks); the default router has none of these ports
            members["obs_dec_gnt_ip_lane"] = Out(P * speedup)
            members["obs_dec_ivc_ip_lane"] = Out(ptr_width(n_vcs)).array(P * speedup)
            members["obs_dec_op_ip_lane"] = Out(ptr_width(P)).array(P * speedup)
            if self.model.heads > 1:   # §R11.9: the credit on credit_out_ip_ivc is for the flit behind the front
                members["obs_credit1_ip_ivc"] = Out(n_vcs).array(P)
        super().__init__(members)

    def _decider(self):
        """A decision unit of the adaptive routing (hdl/route_adaptive.py) for one input VC."""
        from . import route_adaptive

        cls_name, arg = DECIDED.get(self.routing, LANE_MIN)
        kw = {"routing": arg} if arg else {}
        if self.model.split and self.routing in SEQUENTIAL:   # hiradix's sequential RI reads both candidates
            kw["candidates"] = True
            kw["preference"] = bool(self.seq_wavefront)   # §R11.2a: the decision line compared
        return getattr(route_adaptive, cls_name)(self.net, self.router_id, self.n_vcs, self.vc_depth,
                                                 threshold=self.threshold, **kw)

    def elaborate(self, platform):
        m = Module()
        P, V, B, K = self.n_ports, self.n_vcs, self.vc_depth, self.n_classes
        lay = self.flit_layout
        pw, vw = ptr_width(P), ptr_width(V)
        is_eject = [o in self.eject_ports for o in range(P)]
        errors = []
        self._is_eject, self._errors = is_eject, errors
        self._route_tables = {}   # per allocation state: the tables of _new_route / _held_route
        iq = self.model.pipelined
        split = self.model.split   # hiradix (§R11): front registers, credit register, registered view bits
        sub = self.model.allocation == "subswitch"   # §R12: row buffers, sub-switch allocators, column buffers

        # ---- input units; iq: the credit of a freed slot leaves through the credit register (§R10)
        self._rom = None   # the route ROM (_route_decoder), added on its first read
        # lookahead (§R10.4): the route of each arriving flit, stored with it
        side = data.StructLayout({"port": pw, "valid": 1, "cls": ptr_width(K), "hops_out": HOPS_BITS}) \
            if self.lookahead else None
        self._side_layout = side
        ius = []
        # §R11.2a: the injection ports' flits reach their input units through the decision line
        line, self._line = None, None
        if self.seq_wavefront and self.inject_ports:
            line = DecisionLine(self.net, self.router_id, V, B, self.inject_ports, per_stage=self.seq_wavefront,
                                threshold=self.threshold, data_width=self.data_width)
            m.submodules.decision_line = self._line = line
            for i, p in enumerate(self.inject_ports):
                m.d.comb += [line.in_flit_ln[i].eq(self.in_flit_ip[p]), line.in_valid_ln[i].eq(self.in_valid_ip[p])]
        for p in range(P):
            iu = (FrontInputUnit(V, B, lay, check=self.check, side_shape=side, kinds=view_flits(self.model) + 1,
                                 second_pop=self.model.heads > 1, fronts=self.buffer_fronts, ram=self.buffer_ram)
                  if split else InputUnit(V, B, lay, check=self.check, side_shape=side))
            m.submodules[f"input_ip_{p}"] = iu
            if line is not None and p in self.inject_ports:
                i = self.inject_ports.index(p)
                m.d.comb += [iu.in_flit.eq(line.out_flit_ln[i]), iu.in_valid.eq(line.out_valid_ln[i])]
            else:
                m.d.comb += [iu.in_flit.eq(self.in_flit_ip[p]), iu.in_valid.eq(self.in_valid_ip[p])]
            if self.lookahead:
                ext = (self.route_addr_ip[p], self.route_word_ip[p]) if self.external_rom else None
                rc = self._route_decoder(m, f"ip_{p}", self.in_flit_ip[p], ext)
                m.d.comb += [iu.in_side.port.eq(rc.port), iu.in_side.valid.eq(rc.valid),
                             iu.in_side.cls.eq(rc.cls), iu.in_side.hops_out.eq(rc.hops_out)]
            if iq or split or sub:
                m.d.sync += self.credit_out_ip_ivc[p].eq(iu.credit_ret_ivc)
            else:
                m.d.comb += self.credit_out_ip_ivc[p].eq(iu.credit_ret_ivc)
            errors.append(iu.error)
            ius.append(iu)

        # ---- credits of the network outputs, and the §R5 output VC choice per (output, class)
        credits = {}      # o -> [CreditCounter] * V
        vcsel = {}        # (o, k) -> OutputVCSelect
        busy = {}         # o -> Signal(V): output VC held by a packet
        qlen = {}         # o -> QueueLength (adaptive routings)
        ej_credits = {}   # o -> CreditCounter of an ejection port's VC (egress_depth >= 1, §R3a)
        E = self.egress_depth
        # hiradix reads credits >= 1, 2 and 3 in its view (§R11.1) as registered bits; with one VC class at speedup
        # 1 its counters take a cycle after GO (at ST) and the view is a counter less the take on its way, which
        # reads ">= 4" for ">= 3" (§R11.3 "Where GO's grants are applied")
        self._hr_defer = split and self.speedup == 1 and K == 1
        # u(v) up to 2 (3 staged, §R11.7; 5 relay, §R11.10): the bound VCs' copies read ``>= u(v) + 1``
        cc_kw = {"thresholds": view_flits(self.model) + int(self._hr_defer)} if split else \
            {"thresholds": 1} if sub else {}
        for o in range(P):
            if is_eject[o]:
                busy[o] = Signal(1, name=f"busy_op_{o}_ovc")  # the implicit VC, held head to tail (§R5)
                if E:
                    cc = CreditCounter(E, check=self.check, takes=self.speedup, **cc_kw)
                    m.submodules[f"credit_op_{o}_ej"] = cc
                    m.d.comb += cc.ret.eq(self.credit_in_op_ovc[o][0])
                    errors.append(cc.error)
                    ej_credits[o] = cc
                bad = Signal(name=f"eject_credit_op_{o}")
                m.d.comb += bad.eq(self._stray_ej_credit(o))
                errors.append(bad)
                continue
            cs = []
            for v in range(V):
                cc = CreditCounter(B, check=self.check, takes=self.speedup, **cc_kw)
                m.submodules[f"credit_op_{o}_ovc_{v}"] = cc
                m.d.comb += cc.ret.eq(self.credit_in_op_ovc[o][v])
                errors.append(cc.error)
                cs.append(cc)
            credits[o] = cs
            busy[o] = Signal(V, name=f"busy_op_{o}_ovc")
            if split or sub:   # hiradix chooses output VCs on its view (router_hiradix.py), subswitch at SA
                continue
            for k in range(K):
                sel = OutputVCSelect(V, len(cs[0].count), n_classes=K)
                m.submodules[f"vcsel_op_{o}_cls_{k}"] = sel
                m.d.comb += [sel.busy_ovc.eq(busy[o]), sel.cls.eq(k)]
                m.d.comb += [sel.credit_ovc[v].eq(cs[v].count) for v in range(V)]
                vcsel[(o, k)] = sel
            if self.routing is not None:   # q(o) of §R7 for the adaptive decisions
                ql = QueueLength(V, B)
                m.submodules[f"qlen_op_{o}"] = ql
                m.d.comb += [ql.credit_ovc[v].eq(cs[v].count) for v in range(V)]
                qlen[o] = ql
        self._credits, self._vcsel, self._busy, self._qlen = credits, vcsel, busy, qlen
        self._ej_credits = ej_credits

        # ---- per input VC: the output VC its packet holds (§R5 wormhole; iq: bound by VA, §R10.1)
        active = [[Signal(name=f"active_ip_{p}_ivc_{v}") for v in range(V)] for p in range(P)]
        act_o = [[Signal(pw, name=f"act_op_ip_{p}_ivc_{v}") for v in range(V)] for p in range(P)]
        act_ov = [[Signal(vw, name=f"act_ovc_ip_{p}_ivc_{v}") for v in range(V)] for p in range(P)]

        if iq:
            self._elaborate_iq(m, ius, active, act_o, act_ov)
        elif sub:
            self._elaborate_subswitch(m, ius)
        elif split:
            self._hiradix_oqs = self._output_queues(m, bypass=False)[0]
            self._elaborate_hiradix(m, ius, active, act_o, act_ov)
        else:
            self._elaborate_single_cycle(m, ius, active, act_o, act_ov)

        # ---- sticky error
        any_err = Signal()
        m.d.comb += any_err.eq(Cat(*errors).any())
        with m.If(any_err):
            m.d.sync += self.error.eq(1)
        if self.check and self.eject_ports and (V > 1 or not self.egress_depth):
            ej = Cat(*[self._stray_ej_credit(o) for o in self.eject_ports])
            m.d.sync += Assert(~ej.any(), "Router: credit returned on an ejection port"
                               + (" VC other than 0" if self.egress_depth else ""))
        return m

    def _observe_decisions(self, m: Module, a: Grants) -> None:
        """Drive the ``observe`` ports from the deciding allocator's grants ``a`` (nothing without ``observe``)."""
        if not self.observe:
            return
        S = self.speedup
        for p in range(self.n_ports):
            for s in range(S):
                i = p * S + s
                m.d.comb += [self.obs_dec_gnt_ip_lane[i].eq(a.g[p][s]), self.obs_dec_ivc_ip_lane[i].eq(a.v[p][s]),
                             self.obs_dec_op_ip_lane[i].eq(a.o[p][s])]

    def _stray_ej_credit(self, o: int):
        """A credit on ejection port ``o`` that it takes none of: any bit with ``egress_depth`` 0, else a VC
        other than 0 (§R3a); a constant 0 when no such bit exists."""
        bits = self.credit_in_op_ovc[o][1 if self.egress_depth else 0:]
        return bits.any() if len(bits) else Const(0, 1)

    def _elaborate_single_cycle(self, m: Module, ius, active, act_o, act_ov):
        """The ``single-cycle`` model (§R2, §R6): allocate, traverse and send in the grant cycle.

        ``S = 1``: the crossbar drives the links (no output register, §R8a). ``S = 2``: a crossbar of
        ``2P`` lanes writes each output's grants, in grant order, into its §R2 output queue
        (:class:`~radixnet.hdl.output_queue.OutputQueue`, depth ``V * B``, with bypass: a grant into an
        empty queue still leaves in its grant cycle).
        """
        P, V, S = self.n_ports, self.n_vcs, self.speedup

        oqs, eject_count, blocked = self._output_queues(m, bypass=True)

        # ---- allocation (§R6): per input lane, granted?, which VC, to which output, the departing flit
        if self.routing in SEQUENTIAL:
            a = self._allocate_sequential(m, ius, active, act_o, act_ov, eject_count=eject_count)
        else:
            req, req_o, dep = self._greedy_requests(m, ius, active, act_o, act_ov, va=False)
            a = self._separable(m, req, req_o, dep, "", blocked, eject_count=eject_count)
        self._observe_decisions(m, a)

        # ---- the crossbar: output o takes the lanes granted to it (S = 1: at most one, onto the link)
        outs = self._crossbar(m, [a.flit[p][s] for p in range(P) for s in range(S)], a.sel, "crossbar")
        for p in range(P):
            m.d.comb += ius[p].pop_ivc.eq(self._pops(a.g[p], a.v[p]))
        self._drive_links(m, outs, oqs, m.d.comb)

        # ---- state updates of a grant (§R2 phase 2, §R5 wormhole)
        for o in range(P):
            self._output_vc_updates(m, o, outs[o], outs[o])
        for p in range(P):
            for s in range(S):
                pf = a.flit[p][s]
                for v in range(V):
                    with m.If(a.g[p][s] & (a.v[p][s] == v)):
                        with m.If(pf.head & ~pf.tail):
                            m.d.sync += [active[p][v].eq(1), act_o[p][v].eq(a.o[p][s]), act_ov[p][v].eq(pf.vc)]
                        with m.Elif(~pf.head & pf.tail):
                            m.d.sync += active[p][v].eq(0)

    # ------------------------------------------------------------------ datapath pieces (both models)
    def _output_queues(self, m: Module, *, bypass: bool):
        """``S > 1``: the §R2 output queue of every output, depth ``V * B`` (None with ``S = 1``), its
        length at the start of the cycle per ejection output, and per ejection output a full-queue bit
        that keeps SA (or the combined allocator) from granting it (§R6 step 3)."""
        P, V, B, S = self.n_ports, self.n_vcs, self.vc_depth, self.speedup
        if S == 1:
            return None, None, None
        oqs, count, blocked = [], {}, {}
        for o in range(P):
            oq = OutputQueue(V * B, S, self.flit_layout, bypass=bypass, check=self.check)
            m.submodules[f"outq_op_{o}"] = oq
            m.d.comb += [self.out_flit_op[o].eq(oq.out_flit), self.out_valid_op[o].eq(oq.out_valid)]
            self._errors.append(oq.error)
            oqs.append(oq)
            if self._is_eject[o]:
                count[o] = oq.count
                full = Signal(name=f"eject_full_op_{o}")
                m.d.comb += full.eq(oq.count >= V * B)
                blocked[o] = full
        return oqs, count, blocked

    def _crossbar(self, m: Module, lane_flits, sel, name: str, select: str = "index"):
        """A crossbar from ``P * S`` input lanes to ``S`` lanes per output; ``sel[o][j]`` (``(valid, lane)``)
        names the input lane of output ``o``'s ``j``-th grant (its index, or one-hot with ``select="onehot"``).
        Returns per output its ``(valid, flit)`` lanes."""
        P, S = self.n_ports, self.speedup
        m.submodules[name] = xbar = Crossbar(P * S, P * S, self.flit_layout, select=select)
        for i, f in enumerate(lane_flits):
            m.d.comb += xbar.data_in_ip[i].eq(f)
        outs = []
        for o in range(P):
            lanes = []
            for j, (valid, src) in enumerate(sel[o]):
                k = o * S + j
                m.d.comb += [xbar.sel_op[k].eq(src), xbar.sel_valid_op[k].eq(valid)]
                lanes.append((xbar.valid_out_op[k], xbar.data_out_op[k]))
            outs.append(lanes)
        return outs

    def _drive_links(self, m: Module, outs, oqs, domain):
        """The links from the crossbar's output lanes: ``S = 1``, lane 0 drives ``out_*`` in ``domain``
        (``m.d.comb`` for ``single-cycle``, ``m.d.sync`` for ``iq``'s output registers); ``S = 2``, the lanes
        write each output's queue (:meth:`_output_queues`) in grant order, and the queue drives ``out_*``."""
        for o, lanes in enumerate(outs):
            if oqs is None:
                go, fo = lanes[0]
                domain += [self.out_flit_op[o].eq(fo), self.out_valid_op[o].eq(go)]
                continue
            for j, (go, fo) in enumerate(lanes):
                m.d.comb += [oqs[o].in_flit_lane[j].eq(fo), oqs[o].in_valid_lane[j].eq(go)]

    def _pops(self, g, v):
        """An input unit's ``pop_ivc``: one bit per granted lane's VC."""
        return or_all([Mux(gs, 1 << vs, 0)[:self.n_vcs] for gs, vs in zip(g, v)])

    def _lane_headers(self, m: Module, flits, pre: str):
        """The ``vc``, ``head`` and ``tail`` bits of each lane's flit (``flits[p][s]``), what an output's
        bookkeeping reads of a grant, as signals, and all of them concatenated (lane ``p * S + s``, padded
        with 0 to a power of two lanes): the arbiters select these few bits, not whole flits."""
        P, S = self.n_ports, self.speedup
        hdr = data.StructLayout({"vc": self.flit_layout["vc"].shape, "head": 1, "tail": 1})
        lanes = []
        for p in range(P):
            for s in range(S):
                h = Signal(hdr, name=f"{pre}_lane_hdr_ip_{p}" + ("" if S == 1 else f"_lane_{s}"))
                m.d.comb += [h.vc.eq(flits[p][s].vc), h.head.eq(flits[p][s].head), h.tail.eq(flits[p][s].tail)]
                lanes.append(h)
        n = 1 << ptr_width(P * S)
        flat = Signal(n * hdr.size, name=f"{pre}_lane_hdrs")
        m.d.comb += flat.eq(Cat(*lanes))
        return hdr, lanes, flat

    def _granted_headers(self, m: Module, sel, flits, pre: str):
        """Per output, the ``(valid, header)`` of each grant ``sel[o]`` names: a small crossbar of the lanes'
        ``vc``, ``head`` and ``tail`` bits (what :meth:`_output_vc_updates` reads), ``P`` of them instead of
        ``P * P`` per-lane comparisons (the ``iq`` model updates credits and holds at its SA/VA grants)."""
        S = self.speedup
        hdr, _, flat = self._lane_headers(m, flits, pre)
        out = []
        for o in range(self.n_ports):
            grants = []
            for j, (valid, src) in enumerate(sel[o]):
                h = Signal(hdr, name=f"{pre}_hdr_op_{o}" + ("" if S == 1 else f"_{j}"))
                m.d.comb += h.eq(flat.word_select(src, hdr.size))
                grants.append((valid, h))
            out.append(grants)
        return out

    def _output_vc_updates(self, m: Module, o: int, takes, holds):
        """Output ``o``'s credits and VC holds after this cycle's grants (§R2 phase 2, §R5 wormhole).

        ``takes`` are the ``(valid, flit)`` lanes that consume a credit and release a VC on a tail (the
        switch grants); ``holds`` those whose head holds its VC when it is not a tail (the switch grants in
        ``single-cycle``, the VA grants in ``iq``). A release and a hold of one VC in one cycle: the hold
        wins (a tail left and a later head took the VC, §R6 sequential).
        """
        V, S = self.n_vcs, self.speedup
        busy = self._busy[o]
        for v in (range(1) if self._is_eject[o] else range(V)):
            def on(f):
                return 1 if self._is_eject[o] else f.vc == v
            cc = self._ej_credits.get(o) if self._is_eject[o] else self._credits[o][v]
            if cc is not None:
                hits = [go & on(fo) for go, fo in takes]
                # S = 1: at most one of them is a grant this cycle
                m.d.comb += cc.take.eq(Cat(*hits).any() if S == 1 else sum(hits))
            release = Cat(*[go & on(fo) & fo.tail & ~fo.head for go, fo in takes]).any()
            hold = Cat(*[go & on(fo) & fo.head & ~fo.tail for go, fo in holds]).any()
            with m.If(hold):
                m.d.sync += busy[v].eq(1)
            with m.Elif(release):
                m.d.sync += busy[v].eq(0)

    def _route_decoder(self, m: Module, tag: str, f, ext=None) -> RouteDecode:
        """A :class:`~radixnet.hdl.route_table.RouteDecode` (submodule ``route_<tag>``) of flit ``f``'s
        ``dest`` and ``hops``, reading the router's one route ROM (a read port each; synthesis replicates
        it as the device needs, and the Verilog holds the table once) or, with ``external_rom``, the
        ``(addr, word)`` ports ``ext``."""
        rc = RouteDecode(self.n_ports, self.net.num_terminals, n_classes=self.n_classes, dest_bits=len(f.dest),
                         cls_bits=self.rom_cls_bits)
        m.submodules[f"route_{tag}"] = rc
        m.d.comb += [rc.dest.eq(f.dest), rc.hops.eq(f.hops)]
        if ext is not None:
            m.d.comb += [ext[0].eq(rc.addr), rc.word.eq(ext[1])]
            return rc
        if self._rom is None:
            m.submodules.route_rom = self._rom = Memory(shape=unsigned(self.rom_word_bits),
                                                        depth=len(self.rom_ints), init=self.rom_ints)
        rp = self._rom.read_port(domain="comb")
        m.d.comb += [rp.addr.eq(rc.addr), rc.word.eq(rp.data)]
        return rc

    # ------------------------------------------------------------------ per-VC request pieces (both allocators)
    def _new_route(self, m: Module, port, cls, tag: str, vcsel=None, busy=None, state: str = "", used=None):
        """``(ok, ovc)`` of a new route to ``port`` in class ``cls`` on the start-of-cycle state (§R5).

        A network port: the idle VC of the class with the most credits (``OutputVCSelect``); an ejection
        port: its implicit VC 0, unless a packet holds it (or, ``egress_depth >= 1``, it has no credit,
        §R3a). ``vcsel`` (per (output, class)), ``busy`` (per output) and ``used`` (credits earlier
        grants took, per output and VC) replace the start-of-cycle selectors, holds and credits (a
        sequential step's state, named ``state``). The choice is one indexed read of a table over
        (output, class), built once per state (:meth:`_route_table`), not a case over the outputs per
        requester.
        """
        ok_tab, ov_tab = self._route_table(m, vcsel, busy, state, used)
        idx = Cat(cls[:ptr_width(self.n_classes)], port)
        ok, ov = Signal(name=f"new_ok_{tag}"), Signal(ptr_width(self.n_vcs), name=f"new_ovc_{tag}")
        m.d.comb += [ok.eq(ok_tab.bit_select(idx, 1)), ov.eq(ov_tab.word_select(idx, len(ov)))]
        return ok, ov

    def _ej_credit_ok(self, o: int, used):
        """Ejection port ``o`` has a credit left (§R3a), after ``used[o][0]`` taken this cycle; 1 when it takes none."""
        cc = self._ej_credits.get(o)
        if cc is None:
            return Const(1, 1)
        return cc.avail if used is None else cc.count > used[o][0]

    def _route_table(self, m: Module, vcsel, busy, state: str, used=None):
        """Per (output ``o``, class ``k``), at index ``o << kb | k`` (``kb = ptr_width(K)``; padded with 0 up
        to a power of two): may a new route take it, and which output VC (:meth:`_new_route`). Built once
        per ``state`` (``""``: the start of the cycle)."""
        assert (vcsel is None and busy is None) == (state == ""), "a step's state needs its own name"
        key = ("new", state)
        if key in self._route_tables:
            return self._route_tables[key]
        vcsel = self._vcsel if vcsel is None else vcsel
        busy = self._busy if busy is None else busy
        P, K, vw = self.n_ports, self.n_classes, ptr_width(self.n_vcs)
        kb, pb = ptr_width(K), ptr_width(P)
        oks, ovs = [], []
        for o in range(1 << pb):
            for k in range(1 << kb):
                if o >= P or (k >= K and not self._is_eject[o]):
                    oks.append(Const(0, 1)), ovs.append(Const(0, vw))
                elif self._is_eject[o]:
                    free = ~busy[o][0]
                    oks.append(free if o not in self._ej_credits else free & self._ej_credit_ok(o, used))
                    ovs.append(Const(0, vw))
                else:
                    oks.append(vcsel[(o, k)].valid), ovs.append(vcsel[(o, k)].ovc)
        sfx = f"_{state}" if state else ""
        ok_tab = Signal(len(oks), name=f"new_ok_op_cls{sfx}")
        ov_tab = Signal(len(ovs) * vw, name=f"new_ovc_op_cls{sfx}")
        m.d.comb += [ok_tab.eq(Cat(*oks)), ov_tab.eq(Cat(*ovs))]
        self._route_tables[key] = (ok_tab, ov_tab)
        return ok_tab, ov_tab

    def _held_route(self, m: Module, o_held, ov_held, tag: str, used=None, state: str = ""):
        """A held route (wormhole body/tail flit) may go: its output VC has a credit (an ejection port: always,
        or with ``egress_depth >= 1`` a credit of its VC, §R3a).

        ``used[o][v]`` (optional): credits earlier grants of this cycle took (a sequential step's state,
        named ``state``). One indexed read of a table over (output, VC), built once per state.
        """
        assert (used is None) == (state == ""), "a step's state needs its own name"
        key = ("held", state)
        if key not in self._route_tables:
            P, V = self.n_ports, self.n_vcs
            pb, vb = ptr_width(P), ptr_width(V)
            bits = []
            for o in range(1 << pb):
                for v in range(1 << vb):
                    if o >= P or v >= V:
                        bits.append(Const(0, 1))
                    elif self._is_eject[o]:
                        bits.append(self._ej_credit_ok(o, used) if v == 0 else Const(0, 1))
                    elif used is None:
                        bits.append(self._credits[o][v].avail)
                    else:
                        bits.append(self._credits[o][v].count > used[o][v])
            tab = Signal(len(bits), name="held_ok_op_ovc" + (f"_{state}" if state else ""))
            m.d.comb += tab.eq(Cat(*bits))
            self._route_tables[key] = tab
        tab = self._route_tables[key]
        ok = Signal(name=f"act_ok_{tag}")
        m.d.comb += ok.eq(tab.bit_select(Cat(ov_held[:ptr_width(self.n_vcs)], o_held), 1))
        return ok

    def _hops_out(self, m: Module, eject, hops, tag: str):
        """The head flit's ``hops`` as it leaves: ``+ 1`` on a network output, saturating (§R8a)."""
        out = Signal(HOPS_BITS, name=f"hops_out_{tag}")
        m.d.comb += out.eq(Mux(eject | (hops == (1 << HOPS_BITS) - 1), hops, hops + 1))
        return out

    def _connect_decider(self, m: Module, rc, hdr, in_port, q_o, avail_o_cls):
        """Drive a decision unit (hdl/route_adaptive.py) from a header, the input port and per-output state.

        ``q_o[o]`` and ``avail_o_cls[o]`` (a ``K``-bit value) are the queue length and class availability of
        network output ``o`` that this requester sees.
        """
        m.d.comb += rc.dest.eq(hdr.dest)
        for name in rc._inputs:
            m.d.comb += getattr(rc, name).eq(in_port if name == "in_port" else getattr(hdr, name))
        for i, o in enumerate(rc.net_ports):
            if "q_np" in rc.signature.members:
                m.d.comb += rc.q_np[i].eq(q_o[o])
            m.d.comb += rc.avail_np_cls[i].eq(avail_o_cls[o])

    # ------------------------------------------------------------------ greedy allocation (§R6)
    def _greedy_requests(self, m: Module, ius, active, act_o, act_ov, *, va: bool):
        """Step 1 of §R6 greedy: per input VC, request?, to which output, the flit it would send.

        ``va=False`` (``single-cycle``): a VC holding an output VC requests it if it has a credit; a head
        decides on the start-of-cycle state. ``va=True`` (the ``iq`` model's VA, §R10.1): only heads
        holding no output VC request, and the "flit" is the header the decision commits.
        """
        P, V, K = self.n_ports, self.n_vcs, self.n_classes
        lay = self.flit_layout
        pw = ptr_width(P)
        adaptive = self.routing is not None
        pre = "va_" if va else ""
        if adaptive:
            q_o = {o: ql.q for o, ql in self._qlen.items()}
            avail_o = {o: Cat(*[self._vcsel[(o, k)].valid for k in range(K)]) for o in self._credits}
        req = [Signal(V, name=f"{pre}req_ip_{p}_ivc") for p in range(P)]
        req_o = [[Signal(pw, name=f"{pre}req_op_ip_{p}_ivc_{v}") for v in range(V)] for p in range(P)]
        dep = [[Signal(lay, name=f"{pre}dep_flit_ip_{p}_ivc_{v}") for v in range(V)] for p in range(P)]
        for p in range(P):
            iu = ius[p]
            for v in range(V):
                f = iu.front_flit_ivc[v]
                tag = f"ip_{p}_ivc_{v}"
                if adaptive:
                    rc = self._decider()
                    m.submodules[f"route_{tag}"] = rc
                    self._connect_decider(m, rc, f, p, q_o, avail_o)
                    hops_out = self._hops_out(m, rc.eject, f.hops, tag)
                elif self.lookahead:   # looked up on arrival, stored with the flit (§R10.4)
                    rc = iu.front_side_ivc[v]
                    hops_out = rc.hops_out
                else:   # the ROM word of the head's dest
                    ext = (self.route_addr_ip_ivc[p][v], self.route_word_ip_ivc[p][v]) if self.external_rom else None
                    rc = self._route_decoder(m, tag, f, ext)
                    hops_out = rc.hops_out
                if self.fault == "eject_hops":   # the planted bug: a hop counted on ejection too
                    hops_out = self._hops_out(m, Const(0, 1), f.hops, f"fault_{tag}")
                new_ok, new_ov = self._new_route(m, rc.port, rc.cls, tag)
                is_act = active[p][v]
                if va:   # a VC that holds an output VC already is SA's (§R10.1)
                    is_act = Const(0, 1)
                    m.d.comb += req[p][v].eq(iu.front_valid_ivc[v] & ~active[p][v] & rc.valid & new_ok)
                else:
                    act_ok = self._held_route(m, act_o[p][v], act_ov[p][v], tag)
                    m.d.comb += req[p][v].eq(iu.front_valid_ivc[v] & Mux(is_act, act_ok, rc.valid & new_ok))
                m.d.comb += [
                    req_o[p][v].eq(Mux(is_act, act_o[p][v], rc.port)),
                    dep[p][v].eq(f),
                    dep[p][v].vc.eq(Mux(is_act, act_ov[p][v], new_ov)),
                    dep[p][v].hops.eq(Mux(is_act, f.hops, hops_out)),
                ]
                if adaptive:   # the head flit leaves with the decision's header (§R4, §R7)
                    m.d.comb += [dep[p][v].phase.eq(Mux(is_act, f.phase, rc.phase_out)),
                                 dep[p][v].decided.eq(Mux(is_act, f.decided, rc.decided_out)),
                                 dep[p][v].inter.eq(Mux(is_act, f.inter, rc.inter_out)),
                                 dep[p][v].h1.eq(Mux(is_act, f.h1, rc.h1_out))]
        return req, req_o, dep

    def _separable(self, m: Module, req, req_o, dep, pre: str, blocked_op=None, *, mode: str = "combined",
                   eject_count=None) -> Grants:
        """Steps 2-4 of §R6 greedy: input then output round robin, up to ``S`` grants each; pointers move on grants.

        ``pre`` prefixes the arbiters' and signals' names (``""``: ``single-cycle``; ``"va_"``/``"sa_"``:
        the ``iq`` model's two allocators, §R10.1). ``blocked_op[o]`` (optional) keeps output ``o`` from
        granting (a full ejection queue, §R6 step 3). ``mode`` (``"combined"``, ``"va"``, ``"sa"``) names
        the allocator, which matters only for an output's second grant with ``S = 2``: it is skipped when
        the first left it no credit, no VC or no queue slot (:meth:`_second_ok`); ``eject_count[o]`` is
        the ejection queue's length at the start of the cycle.
        """
        P, V, S = self.n_ports, self.n_vcs, self.speedup
        lay = self.flit_layout
        pw, vw = ptr_width(P), ptr_width(V)
        # input arbitration (§R6 step 2): up to S VCs per input, in round-robin order from ptr_in
        in_arb, ptr_in = [], []
        pick_req, pick_o, pick_v, pick_flit = [], [], [], []
        for p in range(P):
            if S == 1:
                arb = RoundRobinArbiter(V)
                m.submodules[f"{pre}in_arb_ip_{p}"] = arb
                m.d.comb += arb.req.eq(req[p])
                picks = [arb.gnt]
                in_arb.append(arb)
            else:
                ptr = Signal(vw, name=f"{pre}ptr_in_ip_{p}")
                picks, rest = [], req[p]
                for s in range(S):
                    pk = rr_first(m, rest, ptr, V, f"{pre}in_pick_ip_{p}_lane_{s}")
                    picks.append(pk)
                    nxt = Signal(V, name=f"{pre}in_rest_ip_{p}_lane_{s}")
                    m.d.comb += nxt.eq(rest & ~pk)
                    rest = nxt
                ptr_in.append(ptr)
            lanes = ([], [], [], [])
            for s, pk in enumerate(picks):
                sfx = f"ip_{p}" if S == 1 else f"ip_{p}_lane_{s}"
                r = Signal(name=f"{pre}pick_req_{sfx}")
                po = Signal(pw, name=f"{pre}pick_op_{sfx}")
                pv = Signal(vw, name=f"{pre}pick_ivc_{sfx}")
                pf = Signal(lay, name=f"{pre}pick_flit_{sfx}")
                m.d.comb += [r.eq(req[p].any() if S == 1 else pk.any()), pv.eq(onehot_index(pk, V))]
                with m.Switch(pv):
                    for v in range(V):
                        with m.Case(v):
                            m.d.comb += [po.eq(req_o[p][v]), pf.eq(dep[p][v])]
                    with m.Default():
                        m.d.comb += [po.eq(0), pf.eq(dep[p][0])]
                for lst, x in zip(lanes, (r, po, pv, pf)):
                    lst.append(x)
            for lst, x in zip((pick_req, pick_o, pick_v, pick_flit), lanes):
                lst.append(x)

        # output arbitration (§R6 step 3): up to S lanes per output; pointers move on grants (step 4)
        n = P * S   # requester lanes, lane p * S + s
        lane_req = [pick_req[p][s] for p in range(P) for s in range(S)]
        lane_o = [pick_o[p][s] for p in range(P) for s in range(S)]
        gnt_lane = [[] for _ in range(n)]          # per lane, its grant bit from each output
        second_lane = [[] for _ in range(n)]       # per lane, (granted second by o, its new VC or None)
        sel = []
        if S > 1:
            hdr, lane_hdr, lane_hdrs = self._lane_headers(m, pick_flit, f"{pre}pick")
        for o in range(P):
            asks = Cat(*[lane_req[i] & (lane_o[i] == o) for i in range(n)])
            if blocked_op is not None and blocked_op.get(o) is not None:
                asks = Mux(blocked_op[o], 0, asks)
            ask = Signal(n, name=f"{pre}ask_op_{o}_lane")   # a signal: the arbiter reads it whole
            m.d.comb += ask.eq(asks)
            if S == 1:
                arb = RoundRobinArbiter(P)
                m.submodules[f"{pre}out_arb_op_{o}"] = arb
                m.d.comb += arb.req.eq(ask)
                # moves only when some input asks (§R6 step 4); the planted fault freezes it
                m.d.comb += arb.update.eq(0 if self.fault == "out_arb_fixed" else 1)
                for i in range(n):
                    gnt_lane[i].append(arb.gnt[i])
                sel.append([(arb.gnt.any(), onehot_index(arb.gnt, P))])
                continue
            ptr = Signal(pw, name=f"{pre}ptr_out_op_{o}")
            lane_ptr = Signal(ptr_width(n), name=f"{pre}ptr_out_op_{o}_lane")
            m.d.comb += lane_ptr.eq(ptr * S)
            first = rr_first(m, ask, lane_ptr, n, f"{pre}out_first_op_{o}")
            f1 = Signal(hdr, name=f"{pre}out_first_hdr_op_{o}")   # what _second_ok reads of the first grant
            m.d.comb += f1.eq(lane_hdrs.word_select(onehot_index(first, n), hdr.size))
            ok, new_vc = self._second_ok(m, o, f1, lane_hdr, mode, eject_count, f"{pre}op_{o}")
            second = rr_first(m, ask & ~first & ok, lane_ptr, n, f"{pre}out_second_op_{o}")
            for i in range(n):
                gnt_lane[i].append(first[i] | second[i])
                if new_vc is not None:
                    second_lane[i].append((second[i], new_vc[i]))
            last = Signal(n, name=f"{pre}out_last_op_{o}")
            m.d.comb += last.eq(Mux(second.any(), second, first))
            last_p = Signal(pw, name=f"{pre}out_last_ip_op_{o}")
            m.d.comb += last_p.eq(onehot_index(last, n) // S)
            if self.fault != "out_arb_fixed":   # the planted fault freezes the pointer (fixed priority)
                with m.If(ask.any()):
                    m.d.sync += ptr.eq(next_ptr(m, last_p, None, P, f"{pre}ptr_out_next_op_{o}"))
            sel.append([(first.any(), onehot_index(first, n)), (second.any(), onehot_index(second, n))])

        g = [[Signal(name=f"{pre}granted_ip_{p}" + ("" if S == 1 else f"_lane_{s}")) for s in range(S)]
             for p in range(P)]
        flit = [[pick_flit[p][s] for s in range(S)] for p in range(P)]
        for p in range(P):
            for s in range(S):
                i = p * S + s
                m.d.comb += g[p][s].eq(Cat(*gnt_lane[i]).any())
                if second_lane[i]:   # VA: a second grant may get another VC of its class (§R10.1)
                    f = Signal(lay, name=f"{pre}gnt_flit_ip_{p}_lane_{s}")
                    m.d.comb += f.eq(pick_flit[p][s])
                    for hit, vc in second_lane[i]:
                        with m.If(hit):
                            m.d.comb += f.vc.eq(vc)
                    flit[p][s] = f
            if S == 1:
                m.d.comb += in_arb[p].update.eq(g[p][0])
            else:   # one past the last granted VC, in the input's round-robin order
                with m.If(g[p][0]):
                    m.d.sync += ptr_in[p].eq(next_ptr(m, pick_v[p][0], None, V, f"{pre}ptr_in_next_ip_{p}_0"))
                with m.If(g[p][1]):
                    m.d.sync += ptr_in[p].eq(next_ptr(m, pick_v[p][1], None, V, f"{pre}ptr_in_next_ip_{p}_1"))
        return Grants(g, pick_v, pick_o, flit, sel)

    def _second_ok(self, m: Module, o: int, f1, lane_hdr, mode: str, eject_count, tag: str):
        """Which lanes output ``o`` may grant after its first grant ``f1`` this cycle (§R6 step 3, ``S = 2``).

        Network output: ``combined``/``sa`` skip a lane on ``f1``'s VC when ``f1`` took its last credit, and
        (``combined``) a head on it when ``f1`` is a head that holds it (a packet longer than a flit). ``va``
        gives the lane the idle VC of its class with the most credits once ``f1``'s hold is counted: the
        same VC unless ``f1`` holds it, then the next best (:class:`OutputVCSelect` with ``f1``'s VC busy),
        and skips the lane if there is none. Ejection output: the queue must have a slot left after
        ``f1`` (``combined``, ``sa``); a head is skipped when ``f1`` is a head that holds the port.
        ``f1`` and ``lane_hdr`` are headers (:meth:`_lane_headers`: ``vc``, ``head``, ``tail``). Returns the bit
        vector over lanes and, for ``va``, each lane's VC if granted second (else None).
        """
        V, B, K = self.n_vcs, self.vc_depth, self.n_classes
        n = len(lane_hdr)
        holds = Signal(name=f"first_holds_{tag}")
        m.d.comb += holds.eq(f1.head & ~f1.tail)
        ok = Signal(n, name=f"second_ok_{tag}_lane")
        if self._is_eject[o]:
            room = Const(1, 1)
            if mode != "va":   # a slot in the queue after f1, and (§R3a) a credit f1 did not take
                room = Signal(name=f"second_room_{tag}")
                cc = self._ej_credits.get(o)
                slot = eject_count[o] + 1 < V * B
                # (with E = 1 the first took the only credit; a constant compare would trip Verilator's CMPCONST)
                m.d.comb += room.eq(slot if cc is None else slot & (cc.count > 1) if cc.depth > 1 else 0)
            for i, lf in enumerate(lane_hdr):
                m.d.comb += ok[i].eq(room if mode == "sa" else room & ~(lf.head & holds))
            return ok, None
        if mode == "va":
            f1_cls = vc_class(m, f1.vc, V, K, f"first_cls_{tag}")
            alt = OutputVCSelect(V, len(self._credits[o][0].count), n_classes=K)
            m.submodules[f"second_vcsel_{tag}"] = alt
            m.d.comb += [alt.credit_ovc[v].eq(self._credits[o][v].count) for v in range(V)]
            m.d.comb += [alt.busy_ovc.eq(self._busy[o] | Mux(holds, (1 << f1.vc)[:V], 0)), alt.cls.eq(f1_cls)]
            new_vc = []
            for i, lf in enumerate(lane_hdr):
                same = Signal(name=f"second_same_cls_{tag}_lane_{i}")
                m.d.comb += same.eq(holds if K == 1 else
                                    holds & (vc_class(m, lf.vc, V, K, f"lane_cls_{tag}_{i}") == f1_cls))
                m.d.comb += ok[i].eq(~same | alt.valid)
                vc = Signal(len(lf.vc), name=f"second_vc_{tag}_lane_{i}")
                m.d.comb += vc.eq(Mux(same, alt.ovc, lf.vc))
                new_vc.append(vc)
            return ok, new_vc
        last = Signal(name=f"first_last_credit_{tag}")
        with m.Switch(f1.vc):
            for v in range(V):
                with m.Case(v):
                    m.d.comb += last.eq(self._credits[o][v].count == 1)
            with m.Default():
                m.d.comb += last.eq(0)
        for i, lf in enumerate(lane_hdr):
            clash = last | (lf.head & holds) if mode == "combined" else last
            m.d.comb += ok[i].eq(~((lf.vc == f1.vc) & clash))
        return ok, None

    # ------------------------------------------------------------------ sequential allocation (§R6)
    def _allocate_sequential(self, m: Module, ius, active, act_o, act_ov, *, va: bool = False,
                             eject_count=None) -> Grants:
        """§R6 sequential: inputs served one after the other, each on the state the earlier grants left.

        ``va=True`` is the ``iq`` model's sequential VA (§R10.1): only heads holding no output VC take
        part, and a grant allocates the output VC without sending the flit. The state a grant leaves for
        the steps after it is the same: the VC taken (held if the packet is longer than a flit) and
        its output's ``q`` one flit longer (the golden kernel's temporary credit reservation).

        The service order ``start, start + 1, ... (mod P)`` is made by rotating the inputs' requests into
        **positions** (a barrel rotator by ``start``), running a ripple chain over the positions and
        rotating the results back. Each position has ``S`` **steps**, one per grant the input may win
        (§R6: at most ``S`` per input). A step sees, per output, how many grants earlier steps gave it
        this cycle (``cnt``), and per output VC the credits they used (``used``) and its hold after them
        (``hold``); from that it derives what §R6 says the decision sees: ``q(o) + cnt(o)`` and, per
        class, the idle VC with the most credits left (an :class:`OutputVCSelect` per output and class
        on the step's state, also the VC a new route takes). The decision units
        (hdl/route_adaptive.py, one per step and VC) decide on it. A VC **would be granted** if its
        choice (or its held route) is an output with fewer than ``S`` grants (and, ``single-cycle``, an
        ejection queue with room) and a usable VC (an ejection port's: a credit with ``egress_depth >= 1``);
        the first such VC in round-robin order from
        ``ptr_in[p]`` is granted, and the step's grant updates the state the next step sees.

        Why one pass over the VCs per step suffices: a VC that is not granted commits nothing, so every
        VC of the input sees the same state until the step's grant; the next step of the same input
        tries only the VCs after that grant in round-robin order (the golden kernel's loop goes on
        from there), on the state the grant left.
        """
        P, V, K, S = self.n_ports, self.n_vcs, self.n_classes, self.speedup
        lay = self.flit_layout
        pw, vw = ptr_width(P), ptr_width(V)
        is_eject = self._is_eject
        credits, vcsel, busy, qlen = self._credits, self._vcsel, self._busy, self._qlen
        net_out = [o for o in range(P) if not is_eject[o]]
        cb = len(credits[net_out[0]][0].count) if net_out else 1
        hdr_lay = data.StructLayout({k: lay[k].shape for k in lay.members if k != "data"})
        vc_lay = data.StructLayout({"valid": 1, "active": 1, "act_o": pw, "act_ov": vw, "hdr": hdr_lay})
        in_lay = data.StructLayout({"port": pw, "ptr": vw, "vc": data.ArrayLayout(vc_lay, V)})
        lane_lay = data.StructLayout({"granted": 1, "ivc": vw, "op": pw, "hdr": hdr_lay})
        res_lay = data.ArrayLayout(lane_lay, S)

        # the rotating start pointer (ptr_seq, advanced every cycle) and ptr_in per input
        start = Signal(pw, name="start_seq")
        if P > 1:
            m.d.sync += start.eq(next_ptr(m, start, None, P, "start_seq_next"))
        pre = "va_" if va else ""
        ptr_in = [Signal(vw, name=f"ptr_{pre}in_ip_{p}") for p in range(P)]

        words = []
        for p in range(P):
            w = Signal(in_lay, name=f"seq_req_ip_{p}")
            m.d.comb += [w.port.eq(p), w.ptr.eq(ptr_in[p])]
            for v in range(V):
                f = ius[p].front_flit_ivc[v]
                if va:   # a VC holding an output VC already is SA's (§R10.1)
                    m.d.comb += w.vc[v].valid.eq(ius[p].front_valid_ivc[v] & ~active[p][v])
                else:
                    m.d.comb += [w.vc[v].valid.eq(ius[p].front_valid_ivc[v]), w.vc[v].active.eq(active[p][v]),
                                 w.vc[v].act_o.eq(act_o[p][v]), w.vc[v].act_ov.eq(act_ov[p][v])]
                m.d.comb += [w.vc[v].hdr[k].eq(f[k]) for k in hdr_lay.members]
            words.append(Value.cast(w))
        pos_words = [data.View(in_lay, x) for x in rotate(m, words, start, True, "seq_rot")]

        # the chain state entering the first step: no grants, no credits used, the start-of-cycle holds
        cnt = {o: Const(0, ptr_width(S + 1)) for o in range(P)}
        used = {o: [Const(0, ptr_width(S + 1)) for _ in range(V)] for o in net_out}
        used.update({o: [Const(0, ptr_width(S + 1))] for o in self._ej_credits})   # §R3a
        hold = {o: [busy[o][v] for v in range(1 if is_eject[o] else V)] for o in range(P)}
        stale = self.fault == "seq_stale_state"
        results, hits = [], {o: [] for o in range(P)}   # hits[o]: per step, granted to o (service order)
        for k in range(P):
            w = pos_words[k]
            lanes = []
            cand = Const((1 << V) - 1, V)   # the VCs this step may try
            for s in range(S):
                tag = f"pos_{k}" if S == 1 else f"pos_{k}_lane_{s}"
                first_step = k == 0 and s == 0
                # what this step's decisions see (§R6: credits and VCs taken by earlier grants)
                q_o, avail_o, sel_o = {}, {}, {}
                for o in net_out:
                    q = Signal(len(qlen[o].q), name=f"q_{tag}_op_{o}")
                    a = Signal(K, name=f"avail_{tag}_op_{o}_cls")
                    for c in range(K):
                        if first_step:
                            sel_o[(o, c)] = vcsel[(o, c)]
                        else:
                            sv = OutputVCSelect(V, cb, n_classes=K)
                            m.submodules[f"vcsel_{tag}_op_{o}_cls_{c}"] = sv
                            m.d.comb += [sv.credit_ovc[v].eq(credits[o][v].count - used[o][v]) for v in range(V)]
                            m.d.comb += [sv.busy_ovc.eq(Cat(*hold[o])), sv.cls.eq(c)]
                            sel_o[(o, c)] = sv
                        # the planted bug: decide on the start-of-cycle state (greedy's view)
                        m.d.comb += a[c].eq(vcsel[(o, c)].valid if stale else sel_o[(o, c)].valid)
                    m.d.comb += q.eq(qlen[o].q + (0 if stale else cnt[o]))
                    q_o[o], avail_o[o] = q, a
                busy_now = {o: Cat(*hold[o]) for o in range(P)}
                # per output: may it take one more grant (fewer than S, and a single-cycle ejection queue
                # with room)?
                room = Signal(P, name=f"room_{tag}_op")
                for o in range(P):
                    r = cnt[o] < S
                    if is_eject[o] and not va and S > 1:
                        r = r & (eject_count[o] + cnt[o] < V * self.vc_depth)
                    m.d.comb += room[o].eq(r)
                wg = Signal(V, name=f"would_{tag}_ivc")
                outs, hdrs = [], []
                for v in range(V):
                    e = w.vc[v]
                    hdr = e.hdr
                    vtag = f"{tag}_ivc_{v}"
                    rc = self._decider()
                    m.submodules[f"route_{vtag}"] = rc
                    self._connect_decider(m, rc, hdr, w.port, q_o, avail_o)
                    new_ok, new_ov = self._new_route(m, rc.port, rc.cls, vtag, sel_o, busy_now, state=tag,
                                                     used=used)
                    act_ok = self._held_route(m, e.act_o, e.act_ov, vtag, used, state=tag)
                    o_req = Signal(pw, name=f"req_op_{vtag}")
                    m.d.comb += o_req.eq(Mux(e.active, e.act_o, rc.port))
                    free = Signal(name=f"free_{vtag}")
                    m.d.comb += free.eq(room.bit_select(o_req, 1) if P > 1 else room[0])
                    m.d.comb += wg[v].eq(cand[v] & e.valid & free & Mux(e.active, act_ok, rc.valid & new_ok))
                    h = Signal(hdr_lay, name=f"dep_hdr_{vtag}")
                    m.d.comb += h.eq(hdr)
                    hops_out = self._hops_out(m, Const(0, 1) if self.fault == "eject_hops" else rc.eject, hdr.hops,
                                              vtag)
                    with m.If(~e.active):   # the head flit leaves with the decision's header (§R4, §R7)
                        m.d.comb += [h.hops.eq(hops_out), h.phase.eq(rc.phase_out), h.decided.eq(rc.decided_out),
                                     h.inter.eq(rc.inter_out), h.h1.eq(rc.h1_out)]
                    m.d.comb += h.vc.eq(Mux(e.active, e.act_ov, new_ov))
                    outs.append(o_req)
                    hdrs.append(h)
                # round robin over the VCs from ptr_in of the position's input: the first that would be granted
                first = rr_first(m, wg, w.ptr, V, f"pick_{tag}")
                # separate signals, packed at the end: a struct assigned from its own fields would look like
                # a combinational loop to Verilator (UNOPTFLAT works per signal, not per bit)
                g_ivc = Signal(vw, name=f"gnt_ivc_{tag}")
                g_op = Signal(pw, name=f"gnt_op_{tag}")
                g_hdr = Signal(hdr_lay, name=f"gnt_hdr_{tag}")
                granted = Signal(name=f"gnt_{tag}")
                m.d.comb += [g_ivc.eq(onehot_index(first, V)), granted.eq(wg.any())]
                with m.Switch(g_ivc):
                    for v in range(V):
                        with m.Case(v):
                            m.d.comb += [g_op.eq(outs[v]), g_hdr.eq(hdrs[v])]
                lane = Signal(lane_lay, name=f"res_{tag}")
                m.d.comb += [lane.granted.eq(granted), lane.ivc.eq(g_ivc), lane.op.eq(g_op), lane.hdr.eq(g_hdr)]
                lanes.append(lane)
                # the state the next step sees
                head, tail, g_ovc = g_hdr.head, g_hdr.tail, g_hdr.vc
                for o in range(P):
                    hit = Signal(name=f"hit_{tag}_op_{o}")
                    m.d.comb += hit.eq(granted & (g_op == o))
                    hits[o].append(hit)
                    c = Signal(len(cnt[o]), name=f"cnt_{tag}_op_{o}")
                    m.d.comb += c.eq(cnt[o] + hit)
                    cnt[o] = c
                    nh = []
                    for v, hv in enumerate(hold[o]):
                        on = hit if is_eject[o] else hit & (g_ovc == v)
                        x = Signal(name=f"hold_{tag}_op_{o}_ovc_{v}")
                        # a head that is not a tail holds the VC, a tail releases it
                        m.d.comb += x.eq(Mux(on, ~tail & (head | hv), hv))
                        nh.append(x)
                        if o in used:
                            u = Signal(len(used[o][v]), name=f"used_{tag}_op_{o}_ovc_{v}")
                            m.d.comb += u.eq(used[o][v] + on)
                            used[o][v] = u
                    hold[o] = nh
                if s + 1 < S:   # the next step tries the VCs after this grant, if there was one
                    nc = Signal(V, name=f"cand_{tag}_next")
                    m.d.comb += nc.eq(Mux(granted, later_than(m, first, w.ptr, V, f"later_{tag}"), 0))
                    cand = nc
            results.append(Cat(*[Value.cast(x) for x in lanes]))

        # back to the inputs' own indices
        g = [[Signal(name=f"{pre}granted_ip_{p}" + ("" if S == 1 else f"_lane_{s}")) for s in range(S)]
             for p in range(P)]
        pick_v, pick_o, pick_flit = [], [], []
        for p, x in enumerate(rotate(m, results, start, False, "seq_unrot")):
            r = data.View(res_lay, x)
            vs, os_, fs = [], [], []
            for s in range(S):
                sfx = f"ip_{p}" if S == 1 else f"ip_{p}_lane_{s}"
                pv = Signal(vw, name=f"{pre}pick_ivc_{sfx}")
                po = Signal(pw, name=f"{pre}pick_op_{sfx}")
                pf = Signal(lay, name=f"{pre}pick_flit_{sfx}")
                m.d.comb += [g[p][s].eq(r[s].granted), pv.eq(r[s].ivc), po.eq(r[s].op)]
                with m.Switch(pv):
                    for v in range(V):
                        with m.Case(v):
                            m.d.comb += pf.data.eq(ius[p].front_flit_ivc[v].data)
                m.d.comb += [pf[k].eq(r[s].hdr[k]) for k in hdr_lay.members]
                # one past the last VC granted, in the order they were tried
                nxt = next_ptr(m, pv, None, V, f"ptr_in_next_{sfx}")
                with m.If(r[s].granted):
                    m.d.sync += ptr_in[p].eq(nxt)
                vs.append(pv)
                os_.append(po)
                fs.append(pf)
            pick_v.append(vs)
            pick_o.append(os_)
            pick_flit.append(fs)

        # per output, its grants in service order (the order they join the §R2 output queue)
        sel = []
        for o in range(P):
            if S == 1:
                to_o = Signal(P, name=f"seq_to_op_{o}_ip")   # a signal: onehot_index reads each bit
                m.d.comb += to_o.eq(Cat(*[g[p][0] & (pick_o[p][0] == o) for p in range(P)]))
                sel.append([(to_o.any(), onehot_index(to_o, P))])
                continue
            n = P * S
            bits = Cat(*hits[o])
            js = []
            for j in range(S):
                one = lowest_one(m, bits, n, f"seq_order_op_{o}_{j}")
                step = Signal(ptr_width(n), name=f"seq_order_step_op_{o}_{j}")
                m.d.comb += step.eq(onehot_index(one, n))
                pos, lane = step // S, step % S
                # position k of the chain is input (start + k) mod P
                total = Signal(pw + 1, name=f"seq_order_sum_op_{o}_{j}")
                m.d.comb += total.eq(pos + start)
                src = Signal(ptr_width(n), name=f"seq_order_src_op_{o}_{j}")
                m.d.comb += src.eq(Mux(total >= P, total - P, total) * S + lane)
                js.append((one.any(), src))
                rest = Signal(n, name=f"seq_order_rest_op_{o}_{j}")
                m.d.comb += rest.eq(bits & ~one)
                bits = rest
            sel.append(js)
        return Grants(g, pick_v, pick_o, pick_flit, sel)
