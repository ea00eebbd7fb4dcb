"""The golden simulator: configuration, state, measurement (Kim et al. §3.2), batch mode and trace.

The router it simulates is docs/router-spec.md; the per-cycle work is the
compiled kernel in :mod:`radixnet.golden.kernel`. Everything here is set-up,
packet generation (:mod:`radixnet.golden.sources`: each packet a hash of the seed,
its terminal and its cycle, a kernel call's packets at a time) and statistics.

Examples
--------
>>> from radixnet.gen import build
>>> sim = Simulator(SimConfig(build("fbfly", k=4, n=2), routing="min", traffic="uniform", seed=1))
>>> r = sim.run_load(0.2)
>>> r["saturated"], 0.18 < r["accepted_throughput"] < 0.22
(False, True)
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..gen import Network, ParamError
from ..gen.params import Param
from ..gen.progress import report
from ..gen.resources import effective_limit, format_bytes, memory_limit
from ..gen.router_config import ROUTER_DEFAULTS, ROUTER_LIMITS, RouterConfig, router_config, with_router_fields
from ..gen.router_model import SPLIT_MODELS, get_router_model, line_latency, zero_load_latency
from ..gen.routing import (
    DEFAULT_ROUTING,
    HYPERX_FAMILIES,
    MIN,
    PRIO,
    TABLE,
    TUGAL_G,
    TUGAL_L,
    TVAL,
    UGAL,
    HyperXTables,
    Plan,
    check_deadlock_free,
    compile_dor_table,
    compile_hyperx,
    compile_table,
    default_vc_depth,
    default_vcs,
    get_routing,
    parallel_lanes,
    resolve,
    table_compiler,
)
from . import kernel
from .held import HeldRows, held_put, held_take, held_widen, within_quota
from .sources import PacketDraws, Sources, reused
from .tally import latency_tally
from .traffic import DEFAULT_TRAFFIC, make_pattern

__all__ = ["SimConfig", "Simulator", "HeldPackets", "SimulationError", "TraceWriter", "trace_record", "PacketStats",
           "MEASUREMENT", "SAT_SIGMAS", "SAT_LATENCY", "TAIL_P99", "TAIL_MAX", "TAIL_SOURCE", "wheel_slots", "RECORD_FIELDS",
           "record_fields"]


class SimulationError(RuntimeError):
    """The watchdog stopped a run (a deadlock or livelock), with the blocked channels named."""


#: Inclusive bounds of :class:`SimConfig`'s integer fields (the CLI states them in ``--help``). The upper
#: bounds keep every run finite and its arrays small enough to allocate; the memory estimate
#: (:meth:`SimConfig.memory_estimate`) guards the product of sizes.
LIMITS: dict[str, tuple[int, int]] = {
    **ROUTER_LIMITS, "packet_length": (1, 1024), "link_latency": (1, 1024),
    "measure": (10, 10_000_000), "seed": (0, 2**63 - 1), "window": (10, 1_000_000),
    "watchdog": (10, 100_000_000), "max_warmup": (1, 100_000),
}
#: Packets per terminal of batch mode (``--batch``), at most.
BATCH_LIMIT = 1_000_000
#: Saturation (docs/studies.md): accepted below offered by more than this many standard deviations of the
#: measurement's noise, or an average latency above this multiple of the zero-load latency (§R10).
SAT_SIGMAS = 4.0
SAT_LATENCY = 10.0
#: Saturation by the latency tail (docs/studies.md, ``tail``): the labelled packets' p99 above ``TAIL_P99`` x
#: their mean, or their maximum above ``TAIL_MAX`` x their p99, **and** a source terminal whose labelled packets'
#: mean latency is above ``TAIL_SOURCE`` x the median terminal's -- a few sources starve (their queues grow)
#: while the network-wide rules see the other sources' rates. The screen alone also fires on a rare transient
#: among 10,000 terminals; the per-source check tells the two apart.
TAIL_P99 = 10.0
TAIL_MAX = 10.0
TAIL_SOURCE = 6.0
#: The measurement rules a result was made under (a sweep does not mix points of two).
MEASUREMENT = "kim-3.2/saturation-4"
#: Packets created per kernel call at most, on average (:meth:`Simulator.chunk_cycles`).
PACKETS_PER_CALL = 1 << 20


def _check_int(name: str, v: Any) -> None:
    """An int (not a bool, not a float) within ``LIMITS[name]``; the range and its message are a
    :class:`~radixnet.gen.params.Param`'s, as for the family parameters."""
    lo, hi = LIMITS[name]
    param = Param(name, int, None, "", minimum=lo, maximum=hi)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
        raise ParamError(param.name, f"must be {param.allowed()} (got {v})")
    param.convert(v)


@dataclass
@with_router_fields(after="traffic")
class SimConfig:
    """One simulation configuration; :meth:`validate` is the one place it is checked.

    Parameters
    ----------
    net : Network
        The topology (a flattened-butterfly / HyperX family for Kim's routings).
    routing : str
        A routing of :data:`radixnet.gen.routing.ROUTINGS` that the network takes (``resolve``):
        ``min``, ``min-ad``, ``val``, ``ugal``, ``ugal-s``, ``clos-ad``, ``2dfb-adaptive`` (router-spec
        §R7, §R7b), ``sp``, ``ugal-l``, ``ugal-g`` (§R7a, §R7c), ``dor``, ``hdor``, ``dest-tag``,
        ``clos-adaptive`` (§R7d).
    traffic : str
        A pattern of :mod:`radixnet.golden.traffic`.
    vcs : int, optional
        VCs per port (default: two per VC class of the routing); a multiple of the classes.
    vc_depth : int, optional
        Flits per VC buffer (default: 32 flits per port / vcs, Kim §3.2).
    packet_length : int
        Flits per packet (1 in Kim's study).
    speedup : int
        Router speedup S (§R1).
    router_model : str or RouterModel
        The router pipeline (§R10): ``single-cycle`` (route, allocate and traverse in one cycle), ``iq``
        (lookahead routing, then VC allocation, switch allocation and switch traversal a cycle each) or
        ``hiradix`` (combined allocation split into a registered input stage and output stage, the grant
        applied by switch traversal a cycle later, §R11), ``hiradix-local`` (``hiradix`` with a local output
        arbiter per group of ``group`` inputs at the end of RI's cycle, §R11.6), ``hiradix-staged`` (that arbiter
        and switch traversal in cycles of their own, §R11.7), ``hiradix-decoupled`` (``hiradix-staged`` with RI's
        loop local to its input and a head reading the output side two cycles old, §R11.8), ``hiradix-twohead``
        (``hiradix-decoupled`` with two heads of a VC in flight, §R11.9), ``hiradix-relay`` (``hiradix-twohead``
        with the request loop's two crossings registered, §R11.10), ``hiradix-relay1`` (those registers with one
        head, §R11.11) or ``subswitch`` (row buffers, a local
        allocator per sub-switch, column buffers, an output stage, §R12; route-table routings and ``speedup`` 1).
    link_latency : int
        Cycles per channel, flits and credits (§R2).
    seed : int
        Seed of every random draw (injection, destinations, intermediates).
    window : int
        Cycles per warm-up window (steady-state test) and per kernel call.
    measure : int
        Cycles of the labelled measurement interval.
    max_warmup : int
        Warm-up windows at most before measuring anyway.
    watchdog : int
        Cycles without any flit moving, while flits are buffered, before the run is stopped (§R8).
    ugal_threshold : int
        Bias toward minimal routing in UGAL/CLOS AD decisions, in flit-hops (router-spec §R7).
    threshold : int
        ``2dfb-adaptive`` only: T_h, the output-queue length (flits) up to which a link is taken (§R7b).
    vc_classes : int, optional
        Table routings only: VC classes (default the routing's own, deadlock-free: the diameter for
        ``sp``; fewer are refused when they make the channel-dependency graph cyclic).
    traffic_opts : dict
        Options of the traffic pattern (e.g. ``hotspot_fraction``).
    max_memory : int, optional
        Bytes a run may plan to allocate (:meth:`memory_estimate`); default
        :func:`radixnet.gen.resources.memory_limit`.
    egress_depth : int
        ``E``, each terminal's egress FIFO in flits and its ejection port's credits (router-spec §R3a);
        0 (default): ideal terminals that take every flit as it arrives (§R3).
    sink_stall : float
        Probability in ``[0, 1)`` that a terminal's sink takes no flit in a cycle (§R3a: a hash of seed,
        terminal and cycle, shared with the co-simulation's testbenches); above 0 needs ``egress_depth >= 1``.
    group : int
        ``subswitch`` only: ports per row and column group ``G`` (§R12), default 4.
    seq_wavefront : int
        ``hiradix`` with ``ugal-s`` only: the source decision taken in each injection port's decision line by
        the pipelined sequential allocator (router-spec §R11.2a), ``g`` positions per serve stage; 0
        (default): RI decides in its own cycle (§R11.2).
    """

    net: Network
    routing: str = DEFAULT_ROUTING
    traffic: str = DEFAULT_TRAFFIC
    # here: a field per router parameter (radixnet.gen.router_config.ROUTER_PARAMS), with its default
    packet_length: int = 1
    link_latency: int = 1
    seed: int = 0
    window: int = 500
    measure: int = 2000
    max_warmup: int = 40
    watchdog: int = 10_000
    traffic_opts: dict = field(default_factory=dict)
    max_memory: int | None = None
    sink_stall: float = 0.0

    def validate(self) -> "SimConfig":
        # cheap checks first: every integer within LIMITS (derived vcs / vc_depth are checked once known)
        for name in LIMITS:
            v = getattr(self, name)
            if v is not None:
                _check_int(name, v)
        if isinstance(self.max_memory, np.integer):
            self.max_memory = int(self.max_memory)
        memory_limit(self.max_memory)   # a bad --max-memory is refused here (gen.resources: the one check)
        st = self.sink_stall
        if isinstance(st, bool) or not isinstance(st, (int, float, np.integer, np.floating)) or not 0 <= st < 1:
            raise ParamError("sink-stall", f"must be a probability in [0, 1) (got {st!r}); 1 would never take a flit")
        if st > 0 and self.egress_depth == 0:
            raise ParamError("sink-stall", f"a sink that stalls ({st:g}) needs an egress FIFO to push back into the "
                                           f"network: give --egress-depth >= 1 (router-spec §R3a)")
        self.model = get_router_model(self.router_model)
        plan = resolve(self.routing, self.net)  # refuses a routing the network does not take (ParamError)
        if self.model.allocation == "subswitch":
            if plan.code == MIN and not parallel_lanes(self.net):
                # Kim's dimension order on a HyperX is the one-class route table of compile_dor_table (§R7), the
                # table the sub-switch model reads (§R12), as the RTL's table routers hold it
                plan = Plan(plan.routing, TABLE, "kim-dor")
            if plan.code != TABLE:
                raise ParamError("routing", f"{self.routing!r} under --router-model subswitch: route-table routings "
                                            f"only (router-spec §R12), e.g. sp, dor, hdor, dest-tag")
            if self.speedup != 1:
                raise ParamError("speedup", f"must be 1 under --router-model subswitch (router-spec §R12: a port "
                                            f"moves one flit a cycle through its row and column buffers), "
                                            f"got {self.speedup}")
        if self.seq_wavefront and not (self.model.split and plan.code == UGAL
                                       and plan.routing.allocator == "sequential"):
            raise ParamError("seq-wavefront", f"needs --router-model {', '.join(SPLIT_MODELS[:-1])} or "
                                              f"{SPLIT_MODELS[-1]} and --routing ugal-s on a HyperX family "
                                              f"({', '.join(HYPERX_FAMILIES)}; router-spec §R11.2a), got "
                                              f"{self.model.name} and {self.routing} on {self.net.family}")
        # the traffic pattern and its options, here rather than in each (worker's) Simulator (ParamError)
        make_pattern(self.traffic, self.net, seed=self.seed, **self.traffic_opts)
        r = plan.routing
        code = plan.code
        net = self.net
        self._code = code
        self._sequential = r.allocator == "sequential"
        self._intermediate = r.intermediate or code in (TVAL, TUGAL_L, TUGAL_G)
        key = (id(net), self.routing, self.vc_classes)
        if getattr(self, "_checked", None) == key:  # validated before (the CLI, then the Simulator): keep tables
            ncls = self._ncls
        else:
            ncls = self._compile(plan)
            self._checked = key
        self._ncls = ncls
        if self.vcs is None:
            self.vcs = default_vcs(plan, ncls)   # e.g. min on a torus runs dor: its VCs too
        if ncls > LIMITS["vcs"][1]:
            raise ParamError("vcs", f"{self.routing} on this {net.family} network needs {ncls} VC classes, more "
                                    f"than the {LIMITS['vcs'][1]} VCs per port allowed")
        _check_int("vcs", self.vcs)
        if self.vcs % ncls:
            raise ParamError("vcs", f"{self.routing} needs a multiple of {ncls} VC classes (got {self.vcs})")
        if self.vc_depth is None:
            self.vc_depth = default_vc_depth(self.vcs)
        _check_int("vc_depth", self.vc_depth)
        self.check_memory()
        return self

    def memory_estimate(self, batch: int = 0, trace: bool = False) -> dict[str, int]:
        """Bytes the :class:`Simulator` of this (validated) configuration allocates, by part, roughly.

        ``routers`` (input buffers and output queues: routers x ports x VCs x depth), ``links`` (flit
        and credit pipelines: channels x link latency x VCs), ``injection`` (the sources' frontiers and a
        kernel call's new packets as they are generated, at most :data:`PACKETS_PER_CALL`), ``tables`` (route
        tables: routers^2), ``packets`` (the packet ring: the packets a kernel call creates; in batch mode
        ``batch`` packets per terminal, traced or not), ``in_flight`` (ring slots of the packets the buffers
        and links can hold). A saturated source's backlog takes no memory (:mod:`radixnet.golden.sources`:
        its packets are generated when its queue has room).
        """
        net = self.net
        R, P, V, B = net.num_routers, net.max_radix, int(self.vcs), int(self.vc_depth)
        C, T, Tl, S = net.num_channels, net.num_terminals, int(self.link_latency), int(self.speedup)
        L = int(self.packet_length)
        per_call = min(PACKETS_PER_CALL, int(self.window) * T // L + 1)  # packets one kernel call creates
        Tc = self.model.credit_latency(Tl)
        w = 8  # int64
        w4 = 4  # the router and link state is int32
        oq = V * B + S + 1
        # routers: buffers, 11 per-VC fields (8 of state, 3 of the allocator's VC lists), 6 per-port fields
        # (pointers, queue heads and counts) and the link stage's timing wheel (int64, W per port), 3
        # output-queue arrays; the allocator's int64 sort keys (ports x ports x VCs)
        # links: flits and VCs in flight with their work lists (3 x Tl), credits with theirs (2 x Tc x VCs),
        # the terminals' credits (VCs); the terminals' egress FIFOs, ejection links and source lists
        W = wheel_slots(self.model.traversal_delay())
        # hiradix (§R11): the request (9 fields), grant (7 fields), IN (4 fields) and older request (2 fields)
        # registers, S lanes per port, and the requests of a sequential RI per output (every model)
        regs = 22 * S if self.model.split else 0
        if self.model.allocation == "subswitch":   # §R12: row and column buffers and their state, per (port, group)
            Qs = -(-P // int(self.group))
            regs += Qs * V * (4 * 4 + 14) + 3 * Qs + 8
        parts = {"routers": w4 * R * P * (V * (B + 11) + 3 * oq + 7 + 2 * W + regs) + w * P * P * V,
                 "links": w4 * ((C + T) * (3 * Tl + 2 * Tc * V + V) + T * (int(self.egress_depth) + 2 * Tl + 3)),
                 "injection": 3 * w * T + 12 * w * per_call,
                 "tables": 3 * w * R * R if getattr(self, "_table", None) is not None else w * R * 64}
        hmax = 2 * len(net.coord_names) + 2
        if getattr(self, "_table", None) is not None:
            hmax = max(hmax, 2 * int(self._table.dist.max(initial=0)) + 2)
        # ring bytes a slot (PACKET_DTYPES, the 64-bit sequence number, an ejection
        # record at most; traced: 6 hop arrays) x2 (power of two) x1.5 (growing)
        per_slot = 3 * (PACKET_BYTES + w + EJECTED_BYTES + (6 * w * hmax if trace else 0))
        in_flight = ((C + T) * V * B + C * Tl) // L + 1   # packets with a flit in a real buffer or on a link
        created = T * int(batch) if batch else per_call
        parts["packets"] = per_slot * max(1 << 14, created) + w * 20 * created
        parts["in_flight"] = per_slot * in_flight
        return parts

    @property
    def router(self) -> RouterConfig:
        """The router's parameters as one record (:class:`~radixnet.gen.router_config.RouterConfig`: what the
        RTL generator and the co-simulation take); after :meth:`validate`, ``vcs`` and ``vc_depth`` resolved."""
        model = self.router_model if isinstance(self.router_model, str) else self.router_model.name
        return router_config(**{n: model if n == "router_model" else getattr(self, n) for n in ROUTER_DEFAULTS})

    def check_memory(self, batch: int = 0, trace: bool = False) -> None:
        """Refuse (ParamError) a run whose :meth:`memory_estimate` exceeds ``max_memory``."""
        parts = self.memory_estimate(batch, trace)
        total = sum(parts.values())
        limit = effective_limit(self.max_memory)  # --max-memory or the RAM's share, within the process's limits
        if total > limit.bytes:
            top = max(parts, key=parts.get)
            what = {"routers": "routers x ports x --vcs x --vc-depth", "links": "channels x --link-latency x --vcs",
                    "injection": "terminals", "tables": "routers^2 route tables",
                    "packets": "terminals x --batch" if batch else "the packet table",
                    "in_flight": "the packets the buffers hold, (channels + terminals) x --vcs x --vc-depth / "
                                 "--packet-length"}[top]
            raise ParamError("max-memory", f"this simulation needs about {format_bytes(total)} (mostly {top}: {what}), "
                                           f"more than the limit of {format_bytes(limit.bytes)} ({limit.source}); make "
                                           f"it smaller or {limit.raise_it}")

    @property
    def classes(self) -> int:
        """The routing's VC classes on this network (:meth:`validate` first): ``vcs`` is a multiple of them."""
        return self._ncls

    def check_load(self, load: Any) -> None:
        """Refuse (ParamError) an offered load outside (0, 1] or one whose measurement labels no packet."""
        if isinstance(load, bool) or not isinstance(load, (int, float, np.floating, np.integer)) \
                or not 0 < load <= 1:
            raise ParamError("load", f"must be in (0, 1] flits/terminal/cycle (got {load})")
        expect = load / self.packet_length * self.measure * self.net.num_terminals
        if expect < 1:
            need = int(np.ceil(self.packet_length / (load * self.net.num_terminals)))
            raise ParamError("measure", f"{self.measure} cycles at load {load:g} with {self.packet_length}-flit "
                                        f"packets on {self.net.num_terminals} terminals label {expect:.2g} packets "
                                        f"on average: give --measure >= {need} (<= {LIMITS['measure'][1]}) or a "
                                        f"higher load")

    def check_batch(self, batch: Any, trace: bool = False) -> None:
        """Refuse (ParamError) a batch size outside [1, BATCH_LIMIT] or one that needs too much memory."""
        if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or not 1 <= batch <= BATCH_LIMIT:
            raise ParamError("batch", f"must be an integer in [1, {BATCH_LIMIT}] packets per terminal (got {batch})")
        self.check_memory(batch, trace)


    def _compile(self, plan) -> int:
        """Build the route tables of ``plan`` and refuse a cyclic dependency graph; returns the VC classes."""
        r, net = plan.routing, self.net
        self._up = None
        self._table = None
        if plan.table in (None, "kim-dor"):
            if self.vc_classes is not None:
                raise ParamError("vc-classes", f"only the table routings take --vc-classes ({self.routing} on "
                                               f"{net.family} fixes its classes)")
            compile_hyperx(net)  # refuses non-HyperX topologies with a clear error
            # Kim's routings use dimension order inside each VC class and only move to higher classes
            # (phase 0 -> 1; min-ad: n' - hops remaining grows), so their channel-dependency graph is
            # acyclic iff dimension order within one class is. DOR on a HyperX takes at most one hop
            # per dimension, in increasing order, so its dependencies only run from lower to higher
            # dimensions (acyclic); the check below confirms it on every network up to 1024 routers.
            dor = compile_dor_table(net) if net.num_routers <= 1024 or plan.table == "kim-dor" else None
            if net.num_routers <= 1024:
                check_deadlock_free(net, dor)
            ncls = r.classes(net)
            if plan.table == "kim-dor":   # the table the sub-switch model reads
                self._table = dor
        elif plan.table == "two-phase":
            # two phases of shortest routes: at most 2 x diameter hops; hop-index classes keep the
            # class rising on every hop, so the dependency graph is acyclic (router-spec §R7c)
            base = compile_table(net)
            need = max(1, 2 * int(base.dist[np.ix_(np.unique(net.inj_router), np.unique(net.ej_router))].max()))
            if self.vc_classes is not None and self.vc_classes < need:
                raise ParamError("vc-classes", f"{self.routing} needs at least {need} VC classes here (hop "
                                               f"index over two shortest routes); got {self.vc_classes}")
            self._table = compile_table(net, self.vc_classes or need)
            ncls = self._table.classes
        elif plan.table == "clos-adaptive":
            from ..gen.families.clos import check_clos_adaptive, compile_clos_adaptive

            self._table, self._up = compile_clos_adaptive(net, self.vc_classes)
            check_clos_adaptive(net, self._table, self._up)  # refuse before any work (DeadlockError)
            ncls = self._table.classes
        else:
            self._table = table_compiler(plan.table, net)(net, self.vc_classes)
            check_deadlock_free(net, self._table)  # refuse before any work (raises DeadlockError)
            ncls = self._table.classes
        return ncls


#: the packet ring's fields and their types (compact packet state, 48 bytes a packet with its
#: 64-bit sequence number, against 112 at 64 bits each). Cycles, terminals, routers and slots fit 32 bits
#: (the limits: cycles below 2^31, ROUTER_LIMITS for the rest), hop counts and VCs 16, flags 8.
PACKET_DTYPES = {"src": np.int32, "dst": np.int32, "phase": np.int8, "decided": np.int8, "inter": np.int32,
                 "hops": np.int16, "nhop": np.int16, "injected": np.int32, "vc": np.int16,
                 "next": np.int32, "created": np.int32, "inter0": np.int32}
#: bytes a packet slot takes in the ring's fields
PACKET_BYTES = sum(np.dtype(t).itemsize for t in PACKET_DTYPES.values())
#: the types of an ejection record's fields (:class:`kernel.Ejected`: the kernel lists a packet's slot and
#: cycle as its tail leaves, ``kernel.collect_ejected`` gathers the rest from the ring after the call, into
#: arrays reused from call to call)
EJECTED_DTYPES = {"seq": np.int64, "src": np.int32, "dst": np.int32, "created": np.int32, "injected": np.int32,
                  "ejected": np.int32, "hops": np.int16, "inter0": np.int32, "minimal": np.bool_, "slot": np.int64}
#: bytes an ejection record takes
EJECTED_BYTES = sum(np.dtype(t).itemsize for t in EJECTED_DTYPES.values())
#: the fields of the records a sink or caller of :meth:`Simulator.step` receives (``min``: the
#: :class:`kernel.Ejected` field ``minimal``); a sink with a ``fields`` attribute receives only those it names
RECORD_FIELDS = tuple("min" if f == "minimal" else f for f in EJECTED_DTYPES if f != "slot")
#: a record field's name in :class:`kernel.Ejected` where the two differ
RECORD_GATHERED = {"min": "minimal"}
#: the largest flit number (ring slot x packet length + flit index) the int32 router state holds
FLIT_MAX = 2**31 - 1
#: cycles per kernel call while a source holds packets back (:meth:`Simulator._admit`)
HOLD_SPAN = 64
#: the fields of an explicit packet a terminal holds back (:class:`HeldPackets`)
HELD_DTYPES = {"seq": np.int64, "created": np.int32, "dst": np.int32, "inter": np.int32}


def record_fields(sinks, also=()) -> tuple:
    """The record fields ``sinks`` read and ``also``, in :data:`RECORD_FIELDS` order: the union of the sinks'
    ``fields`` (all of them for a sink without one). A field no sink reads is not gathered from the packet ring
    (:func:`kernel.collect_ejected`).

    >>> record_fields([PacketStats(), type("S", (), {"fields": ("src",)})()])
    ('src', 'created', 'ejected', 'hops', 'min')
    """
    names = set(also)
    for sink in sinks:
        f = getattr(sink, "fields", RECORD_FIELDS)
        if not set(f) <= set(RECORD_FIELDS):
            raise ValueError(f"sink {sink!r}: {sorted(set(f) - set(RECORD_FIELDS))} are not record fields "
                             f"({', '.join(RECORD_FIELDS)})")
        names.update(f)
    return tuple(f for f in RECORD_FIELDS if f in names)


def wheel_slots(dst: int) -> int:
    """Slots of the link stage's timing wheel (the kernel's ``Routers.wheel``) for ``dst`` cycles from SA grant
    to link: a power of two (the slot is ``cycle & (W - 1)``) above ``dst`` and at least 2, so that a queue
    listed in cycle ``t`` for ``t + 1 .. t + dst`` never lands in the slot being sent from.

    >>> [wheel_slots(d) for d in (0, 1, 2, 3, 4)]
    [2, 2, 4, 4, 8]
    """
    W = 2
    while W <= dst:
        W *= 2
    return W


class HeldPackets:
    """Explicit packets (batch mode) a terminal holds back from the packet ring, per terminal in creation
    order.

    A terminal's queue beyond the first few packets (:meth:`Simulator._admit`) waits here, 20 bytes a
    packet (its sequence number, creation cycle, destination and intermediate router, all drawn at
    creation) against the ring's ~100, and the ring stays as large as the network's occupancy, not the
    batch. (A Bernoulli source holds nothing back: it stops drawing, :mod:`radixnet.golden.sources`.) Each
    terminal's packets are a ring buffer row of ``cap`` entries; the per-packet
    work is the compiled loops of :mod:`radixnet.golden.held`.

    Parameters
    ----------
    terminals : int
        The network's terminals.

    Examples
    --------
    >>> h = HeldPackets(3)
    >>> h.put(np.arange(5), np.array([4, 4, 5, 6, 6]), np.array([2, 0, 2, 2, 0]), np.zeros(5, np.int64),
    ...       np.zeros(5, np.int64))
    >>> h.count.tolist(), h.total
    ([2, 0, 3], 5)
    >>> out = h.take(np.array([1, 5, 2]))
    >>> out["seq"].tolist(), out["src"].tolist(), out["created"].tolist(), h.count.tolist()
    ([1, 0, 2], [0, 2, 2], [4, 4, 5], [1, 0, 1])
    """

    def __init__(self, terminals: int) -> None:
        self.T = terminals
        self.cap = 0
        self.head = np.zeros(terminals, np.int64)
        #: packets held per terminal
        self.count = np.zeros(terminals, np.int64)
        #: packets held in all
        self.total = 0
        self.rows = {f: np.zeros((terminals, 0), t) for f, t in HELD_DTYPES.items()}
        #: the rows with ``head`` and ``count``, as the compiled loops take them
        self.q = HeldRows(head=self.head, count=self.count, **self.rows)

    def _grow(self, need: int) -> None:
        """Double the rows' capacity (64 at least) until it is ``need``; each terminal's packets move to
        the start of its row."""
        cap = max(64, self.cap)
        while cap < need:
            cap *= 2
        old, self.rows, self.q = self.rows, {}, None
        for f, t in HELD_DTYPES.items():   # a field at a time: each old row is freed once copied
            row = np.zeros((self.T, cap), t)
            if self.cap:
                held_widen(self.head, self.count, old.pop(f), row)
            self.rows[f] = row
        self.head[:] = 0
        self.q = HeldRows(head=self.head, count=self.count, **self.rows)
        self.cap = cap

    def put(self, seq: np.ndarray, created: np.ndarray, src: np.ndarray, dst: np.ndarray, inter: np.ndarray) -> None:
        """Append packets (in creation order) behind those their terminals hold."""
        n = src.size
        if not n:
            return
        need = int((self.count + np.bincount(src, minlength=self.T)).max())
        if need > self.cap:
            self._grow(need)
        held_put(self.q, seq, created, src, dst, inter)
        self.total += n

    def take(self, room: np.ndarray) -> dict[str, np.ndarray]:
        """Remove the first ``min(room[s], count[s])`` packets of each terminal ``s``; return them (``seq``,
        ``created``, ``src``, ``dst``, ``inter``), grouped by terminal, each terminal's in order."""
        m = np.minimum(room, self.count)
        k = int(m.sum())
        out = {f: np.empty(k, np.int64) for f in ("seq", "created", "src", "dst", "inter")}
        if k:
            held_take(self.q, m, out["seq"], out["created"], out["src"], out["dst"], out["inter"])
            self.total -= k
        return out


class Simulator:
    """Cycle-accurate network simulator (docs/router-spec.md).

    Parameters
    ----------
    cfg : SimConfig
        The configuration (validated here).
    trace : bool
        Record every packet's hops (router, out port, out VC, cycle) for :meth:`trace_records`.
    """

    CAP0 = 1 << 14
    #: keep a backed-up source's later packets out of the ring (a Bernoulli source stops drawing, explicit
    #: packets wait in :class:`HeldPackets`); False puts every packet into the ring at creation, the
    #: reference the tests compare with
    HOLD = True

    def __init__(self, cfg: SimConfig, trace: bool = False) -> None:
        self.cfg = cfg.validate()
        net = cfg.net
        self.routing = get_routing(cfg.routing)
        self.code = cfg._code
        if cfg._table is not None:
            tb = cfg._table
            R0 = net.num_routers
            self.tables = HyperXTables(dims=np.ones(1, np.int64), coords=np.zeros((R0, 1), np.int64),
                                       port_to=np.zeros((R0, 1, 1), np.int64), eject_port=tb.eject_port,
                                       term_router=tb.term_router)
            self.tbl = tb.next_port.astype(np.int64)
            self.tdist = tb.dist.astype(np.int64)
            self.port_lanes = np.full((1, 1, 1, 1), -1, np.int64)
            self.tcls = tb.cls.astype(np.int64) if tb.cls is not None else np.full((1, 1), -1, np.int64)
        else:
            self.tables = compile_hyperx(net)
            self.tbl = np.zeros((1, 1), np.int64)
            self.tdist = np.zeros((1, 1), np.int64)
            self.port_lanes = self.tables.port_lanes
            self.tcls = np.full((1, 1), -1, np.int64)
        self.up_port = cfg._up if cfg._up is not None else np.full((1, 1), -1, np.int64)
        self.pattern = make_pattern(cfg.traffic, net, seed=cfg.seed, **cfg.traffic_opts)
        #: the explicit packets' random choices (batch mode); Bernoulli sources hash theirs (:attr:`sources`)
        self.rng = np.random.default_rng(cfg.seed)
        self.trace_on = bool(trace)
        #: called with each chunk's ejection records (dict of arrays), e.g. a trace writer
        self.on_ejected = None
        R, P, V, B = net.num_routers, net.max_radix, cfg.vcs, cfg.vc_depth
        T, C, L, Tl = net.num_terminals, net.num_channels, cfg.packet_length, cfg.link_latency
        self.R, self.P, self.V, self.B, self.T, self.C, self.L, self.Tl = R, P, V, B, T, C, L, Tl
        pt = net.port_table()
        self.out_ch, self.in_ch = pt["out_channel"], pt["in_channel"]
        self.out_term, self.in_term = pt["out_terminal"], pt["in_terminal"]
        i32 = np.int32   # the router, link and source state (FLIT_MAX)
        self.buf = np.zeros((R, P, V, B), i32)
        self.bhead = np.zeros((R, P, V), i32)
        self.bcnt = np.zeros((R, P, V), i32)
        self.credit = np.where((self.out_ch >= 0)[:, :, None], B, 0).astype(i32) * np.ones((1, 1, V), i32)
        E = int(cfg.egress_depth)
        if E:   # the ejection port's implicit VC: E credits, the egress FIFO's slots (§R3a)
            self.credit[net.ej_router, net.ej_port, 0] = E
        self.ovc_busy = np.zeros((R, P, V), i32)
        self.in_active = np.zeros((R, P, V), i32)
        self.in_o = np.zeros((R, P, V), i32)
        self.in_ov = np.zeros((R, P, V), i32)
        self.ptr_in = np.zeros((R, P), i32)
        self.ptr_out = np.zeros((R, P), i32)
        self.ptr_seq = np.zeros(R, i32)
        self.in_ready = np.zeros((R, P, V), i32)    # iq: first cycle SA may serve a VC VA allocated (§R10)
        self.ptr_va_in = np.zeros((R, P), i32)
        self.ptr_va_out = np.zeros((R, P), i32)
        self.oq_cap = V * B + cfg.speedup + 1
        self.oq = np.zeros((R, P, self.oq_cap), i32)
        self.oqv = np.zeros((R, P, self.oq_cap), i32)
        self.oqt = np.zeros((R, P, self.oq_cap), i32)  # the cycle each queued flit may take the link
        self.oq_head = np.zeros((R, P), i32)
        self.oq_cnt = np.zeros((R, P), i32)
        model = cfg.model
        Tc = model.credit_latency(Tl)                # cycles until a returned credit is usable (§R10)
        self.pipe_flit = np.full((C, Tl), -1, i32)
        self.pipe_vc = np.zeros((C, Tl), i32)
        self.tpipe_flit = np.full((T, Tl), -1, i32)
        self.tpipe_vc = np.zeros((T, Tl), i32)
        self.cpipe = np.zeros((C, Tc, V), i32)
        self.tcpipe = np.zeros((T, Tc, V), i32)
        self.tcredit = np.full((T, V), B, i32)
        self.epipe = np.full((T, Tl), -1, i32)      # §R3a (E >= 1): ejection links, egress FIFOs, their credits
        self.efifo = np.zeros((T, max(E, 1)), i32)
        self.ef_head = np.zeros(T, i32)
        self.ef_cnt = np.zeros(T, i32)
        self.ecpipe = np.zeros((T, Tl), i32)
        self.sq_head = np.full(T, -1, i32)
        self.sq_tail = np.full(T, -1, i32)
        self.sq_flit = np.zeros(T, i32)
        self.sq_count = np.zeros(T, i32)    # packets in the ring's source queue of each terminal
        self.next_vc = np.zeros(T, i32)     # the VC of each terminal's next packet (§R3)
        # the kernel's work lists (it visits these, not every queue, channel and terminal): the output queues
        # holding flits (as r << 16 | o), listed by the cycle their oldest flit may take the link, per link slot
        # the channels and terminals a flit is on and the (channel or terminal) << 8 | VC pairs credits are on,
        # and the terminals with a packet to inject
        W = wheel_slots(model.traversal_delay())
        self.wheel, self.n_wheel = np.zeros((W, R * P), np.int64), np.zeros(W, i32)
        # per router, its input VCs holding flits (as p << 8 | v) in two lists (awaiting a routing decision,
        # holding an output VC) and each VC's place in its list
        self.act, self.n_act = np.zeros((R, 2, P * V), i32), np.zeros((R, 2), i32)
        self.act_pos = np.zeros((R, P, V), i32)
        # hiradix (§R11): per router the request register (RI -> GO) and the grant register (GO -> ST), up to S
        # lanes per input and S grants per output (kernel.RQ_FIELDS, kernel.GR_FIELDS); a sequential RI's
        # requests so far per output (added to q). Other models keep the registers empty.
        S = int(cfg.speedup)
        nreg = P * S if model.split else 1
        self.rq, self.rq_n = np.zeros((R, nreg, len(kernel.RQ_FIELDS)), i32), np.zeros(R, i32)
        self.gr, self.gr_n = np.zeros((R, nreg, len(kernel.GR_FIELDS)), i32), np.zeros(R, i32)
        # hiradix: the grants whose input side (IN) is the next cycle, and the requests of two cycles ago
        self.gi, self.gi_n = np.zeros((R, nreg, 5), i32), np.zeros(R, i32)
        self.rq2, self.rq2_n = np.zeros((R, nreg, 3), i32), np.zeros(R, i32)
        # hiradix-staged (§R11.7): LO's candidates, which GO decides in the next cycle
        self.rqc = np.zeros((R, nreg if model.staged else 1, len(kernel.RQ_FIELDS)), i32)
        self.rqc_n = np.zeros(R, i32)
        # hiradix-relay (§R11.10): the request relay (LO's input) and the candidate relay (GO's)
        nrel = nreg if model.relay else 1
        self.rqr, self.rqr_n = np.zeros((R, nrel, len(kernel.RQ_FIELDS)), i32), np.zeros(R, i32)
        self.rqcr, self.rqcr_n = np.zeros((R, nrel, len(kernel.RQ_FIELDS)), i32), np.zeros(R, i32)
        self.qadd = np.zeros((R, P), i32)
        # hiradix: RI's copy of the output side (§R11.1), at t = 0 the reset state
        self.ri_credit = self.credit.copy() if model.split else np.zeros((1, 1, 1), i32)
        self.ri_busy = self.ovc_busy.copy() if model.split else np.zeros((1, 1, 1), i32)
        # hiradix-decoupled: the view of two cycles before, which a head reads (§R11.8)
        self.ri2_credit = self.credit.copy() if model.decoupled else np.zeros((1, 1, 1), i32)
        self.ri2_busy = self.ovc_busy.copy() if model.decoupled else np.zeros((1, 1, 1), i32)
        # subswitch (§R12): row buffers per (input, column, VC) and column buffers per (output, row, output VC),
        # Bs = 4 flits each, with their credits (full at reset), holds, bindings, registers and pointers
        sub = model.allocation == "subswitch"
        Qg = -(-P // int(cfg.group))   # groups of ports (§R12's rows and columns, §R11.6's input groups)
        Qs, Bs = (Qg, 4) if sub else (1, 1)
        Rs, Ps, Vs = (R, P, V) if sub else (1, 1, 1)
        for name in ("sw_rb", "sw_rbo", "sw_rbk", "sw_cb"):
            setattr(self, name, np.zeros((Rs, Ps, Qs, Vs, Bs), i32))
        for name in ("sw_rbh", "sw_rbn", "sw_rbr", "sw_rbr2", "sw_bind", "sw_cbh", "sw_cbn", "sw_cbr", "sw_cbr2",
                     "sw_lock"):
            setattr(self, name, np.zeros((Rs, Ps, Qs, Vs), i32))
        self.sw_rbc = np.full((Rs, Ps, Qs, Vs), Bs, i32)
        self.sw_cbc = np.full((Rs, Ps, Qs, Vs), Bs, i32)
        self.sw_row = np.zeros((Rs, Ps, 6), i32)
        self.sw_col = np.zeros((Rs, Ps, Qs, 3), i32)
        # hiradix-local (§R11.6): LO's pointers ptr_loc per (output, group) are sw_pout
        self.sw_pout = np.zeros((R, P, Qg), i32) if model.local_output else np.zeros((Rs, Ps, Qs), i32)
        self.sw_pgo = np.zeros((Rs, Ps), i32)
        self.sw_n = np.zeros(R, i32)   # read by the watchdog under every model
        self.sw_nret = np.zeros(Rs, i32)
        # hiradix with ugal-s deciding in the decision lines (§R11.2a): Lw = 5 + ceil(n_inj / g) per router
        g = int(cfg.seq_wavefront)
        n_inj = (self.in_term >= 0).sum(axis=1)
        self.wf_lw = line_latency(n_inj, g).astype(i32) if g else np.zeros(R, i32)
        Wl = 1 << int(self.wf_lw.max(initial=0)).bit_length() if g else 1
        self.wfl, self.wflv = np.full((T if g else 1, Wl), -1, i32), np.zeros((T if g else 1, Wl), i32)
        self.wfls, self.wfln = np.zeros((Wl, T if g else 1), i32), np.zeros(Wl, i32)
        self.wf_ni = n_inj.astype(i32) if g else np.zeros(R, i32)
        self.wf_inj = np.zeros((R if g else 1, P), i32)
        for r in range(R if g else 0):
            ports = np.flatnonzero(self.in_term[r] >= 0)
            self.wf_inj[r, :ports.size] = ports
        self.wfb, self.wfb_n = np.full((R if g else 1, P), -1, i32), np.zeros(R, i32)
        self.wf_ptr = np.zeros(R, i32)
        #: the decision line's cycles, averaged over the terminals (each packet crosses its source's once)
        self.line_latency = float(self.wf_lw[net.inj_router].mean()) if g else 0.0
        self.fly_ch, self.n_fly_ch = np.zeros((Tl, C), i32), np.zeros(Tl, i32)
        self.fly_term, self.n_fly_term = np.zeros((Tl, T), i32), np.zeros(Tl, i32)
        self.cred_ch, self.n_cred_ch = np.zeros((Tc, C * V), np.int64), np.zeros(Tc, i32)
        self.cred_term, self.n_cred_term = np.zeros((Tc, T * V), np.int64), np.zeros(Tc, i32)
        self.queued, self.n_queued = np.zeros(T, i32), np.zeros(1, i32)
        self.hmax = 2 * len(net.coord_names) + 2
        if cfg._table is not None:  # table routes (two phases at most) can be longer than 2 hops per coordinate
            self.hmax = max(self.hmax, 2 * int(cfg._table.dist.max(initial=0)) + 2)
        z = lambda *shape: np.zeros(shape, i32)  # noqa: E731
        K = kernel
        self.prm = K.Params(algo=self.code, sequential=bool(cfg._sequential), ncls=int(cfg._ncls),
                            vpc=int(V // cfg._ncls),
                            thr=int(cfg.threshold if self.code == PRIO else cfg.ugal_threshold), V=V, B=B,
                            S=int(cfg.speedup), L=L, Tl=Tl, Tc=Tc, dv=model.vc_alloc_delay,
                            dst=model.st_final_delay if model.split or sub else model.traversal_delay(),
                            watchdog=int(cfg.watchdog), trace_on=self.trace_on,
                            E=E, sthr=K.stall_threshold(cfg.sink_stall), sseed=int(cfg.seed), split=model.split, sub=sub,
                            G=int(cfg.group) if model.grouped else 0, wf=int(cfg.seq_wavefront),
                            ri_own=model.decoupled, heads=model.heads)
        t = self.tables
        self.tp = K.Topo(coords=t.coords, port_to=t.port_to, dims=t.dims, term_router=t.term_router,
                         eject_port=t.eject_port, out_term=self.out_term, out_ch=self.out_ch, in_ch=self.in_ch,
                         in_term=self.in_term, ch_src=net.src, ch_src_port=net.src_port, ch_dst=net.dst,
                         ch_dst_port=net.dst_port, inj_router=net.inj_router, inj_port=net.inj_port, tbl=self.tbl,
                         port_lanes=self.port_lanes, tdist=self.tdist, tcls=self.tcls, up_port=self.up_port,
                         radix=np.asarray(net.radix, i32))
        self.rs = K.Routers(**{f: getattr(self, f) for f in K.Routers._fields})
        self.lk = K.Links(**{f: getattr(self, f) for f in K.Links._fields})
        self.sc = K.Scratch(dec=z(5), grants_o=z(P), grants_i=z(P), req_o=np.full((P, V), -1, i32),
                            req_v=z(P, V), req_ph=z(P, V), req_dc=z(P, V), req_in=z(P, V),
                            last_j=np.full(P, -1, i32), bucket=np.zeros((P, P * V), np.int64), bcount=z(P),
                            in_list=z(P), inl=z(P), out_list=z(P), nin=z(1), nout=z(1), g_list=z(P), resv=z(P * V),
                            tcs=z(1), n_sa=z(1), req_hd=z(P, V), hu=z(P, V), sel=np.full((P, max(1, min(V, S))), -1, i32),
                            nsel=z(P), sw_lane=z(P), hs=z(P, V), req_f=z(P, V), req_s=z(P, V))
        self._alloc_packets(self.CAP0)
        self.nfree = self.CAP0   # free ring slots (pkt_seq kernel.SLOT_FREE), taken in ring order from slot_at
        self.slot_at = 0
        self.held = HeldPackets(T)
        #: the Bernoulli sources (§R3): per terminal the first cycle whose coin it has not drawn
        self.sources = Sources(T, cfg.seed)
        #: packets generated after their creation cycle (a backed-up source catching up)
        self.deferred = 0
        self.ej = self._ejected_table(0)   # the kernel's records of ejected packets (grown per call)
        #: the columns of each kernel call's new packets (sequence numbers, slots, destinations, intermediates),
        #: reused from call to call (:func:`~radixnet.golden.sources.reused`); each call's are dead once it ends
        self.pool: dict = {}
        #: every packet's intermediate router stays its source's (a routing that draws none and never changes
        #: the header): every record's ``min`` is True, and is not gathered for a sink
        self.all_minimal = self.code in kernel.KEEPS_HEADER and not cfg._intermediate
        #: 2DFB (router-spec §R7b) draws no intermediate router (the header's is the deciding router): a packet
        #: is minimal iff its network hops equal the number of dimensions in which its routers differ (a
        #: non-minimal hop moves within a dimension and leaves that number as it was)
        self.term_coords = self.tables.coords[self.tables.term_router] if self.code == PRIO else None
        self.trues = np.ones(0, np.bool_)
        self.iota = np.arange(0, dtype=np.int64)   # 0, 1, 2, ...: the sequence numbers' offsets
        self.t = 0
        self.next_seq = 0        # packets created so far
        self.collected = 0       # packets ejected and collected so far
        # watermarks (watch_created): cycle X -> [packets created before X, those collected]
        self.below: dict[int, list[int]] = {}
        self.last_move = 0
        self.ch_flits = np.zeros(C, np.int64)
        # ejection records (filled per chunk)
        self._log: list[np.ndarray] = []

    # ----------------------------------------------------------- packet table
    def _alloc_packets(self, cap: int) -> None:
        i64 = np.int64
        self.cap = cap
        # pkt_seq marks the free slots (kernel.take_slots); the kernel writes every field of a slot in its
        # packet's creation cycle
        self.pkt_seq = np.full(cap, kernel.SLOT_FREE, i64)
        for name, dtype in PACKET_DTYPES.items():
            setattr(self, "pkt_" + name, np.zeros(cap, dtype))
        h = self.hmax if self.trace_on else 1
        hc = cap if self.trace_on else 1
        self.hop_router = np.full((hc, h), -1, i64)
        self.hop_port = np.full((hc, h), -1, i64)
        self.hop_vc = np.full((hc, h), -1, i64)
        self.hop_cycle = np.full((hc, h), -1, i64)
        self.hop_hdr = np.full((hc, h), -1, i64)   # phase | decided << 1 | inter << 2 after each grant
        self.hop_sent = np.full((hc, h), -1, i64)  # cycle the head left the output queue onto the link
        self.pk = kernel.Packets(**{f: getattr(self, f if f.startswith("hop_") else "pkt_" + f)
                                    for f in kernel.Packets._fields})
        self.srcq = kernel.Sources(**{f: getattr(self, f) for f in kernel.Sources._fields})

    def _grow(self, need: int) -> None:
        """Double the packet ring until it has ``need`` slots; a packet keeps its slot, the new ones are free."""
        old = {n: getattr(self, n) for n in vars(self) if n.startswith(("pkt_", "hop_"))}
        oldcap = self.cap
        cap = oldcap
        while cap < need:
            cap *= 2
        if cap * self.L > FLIT_MAX:   # flit numbers (slot * L + index) are int32 in the router state
            raise SimulationError(f"the packet ring would need {cap:,} slots of {self.L}-flit packets; flit numbers "
                                  f"are 32-bit (at most {FLIT_MAX:,}): lower the load or the packet length")
        self._alloc_packets(cap)
        for n, arr in old.items():
            if n.startswith("hop_") and not self.trace_on:
                continue
            getattr(self, n)[:oldcap] = arr
        self.nfree += cap - oldcap
        self.slot_at = oldcap   # the new slots first

    def _take_slots(self, n: int) -> np.ndarray:
        """``n`` free ring slots, in ring order (:func:`kernel.take_slots`): packets created together sit
        together in the ring. The slots are in :attr:`pool`'s array, which the next call overwrites."""
        if n > self.nfree:
            self._grow(self.cap - self.nfree + n)
        slots = reused(self.pool, "slot", n, np.int64)
        self.slot_at = int(kernel.take_slots(self.pkt_seq, self.slot_at, slots))
        if self.slot_at < 0:
            raise AssertionError(f"the packet ring has fewer than {n} free slots; nfree was {self.nfree}")
        self.nfree -= n
        return slots

    def _born(self, cycles: np.ndarray, src: np.ndarray, dst: np.ndarray) -> dict[str, np.ndarray]:
        """Explicit packets (batch mode; sorted by creation cycle): sequence numbers, and intermediate routers
        drawn now (§R7) from :attr:`rng`, whichever call puts them into the ring."""
        seq = self._number(cycles.size)
        inter = self._intermediates(src, dst, self.rng) if self.cfg._intermediate else self.tables.term_router[src]
        return {"join": cycles, "created": cycles, "seq": seq, "src": src, "dst": dst,
                "inter": inter.astype(np.int64, copy=False)}

    def _number(self, n: int, reuse: bool = False) -> np.ndarray:
        """Sequence numbers for ``n`` packets generated now (they count packets in the order generated);
        ``reuse``: in :attr:`pool`'s array, which the next such call overwrites."""
        if not reuse:
            seq = np.arange(self.next_seq, self.next_seq + n, dtype=np.int64)
        else:
            if self.iota.size < n:
                self.iota = np.arange(2 * n, dtype=np.int64)
            seq = np.add(self.iota[:n], self.next_seq, out=reused(self.pool, "seq", n, np.int64))
        self.next_seq += n
        return seq

    def _drawn(self, gen: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """The packets of the Bernoulli sources' coins that hit (:meth:`Sources.generate`): sequence numbers
        in the order generated, destinations (§R3) and intermediate routers (§R7) hashed from each packet's
        cell (:class:`~radixnet.golden.sources.PacketDraws`), the same whichever call generates them."""
        created, src = gen["created"], gen["src"]
        seq = self._number(src.size, reuse=True)
        if src.size:
            self.deferred += int(np.count_nonzero(gen["join"] != created))
            draws = PacketDraws(gen["key"], self.pool)
            dst = self.pattern.destinations(src, draws).astype(np.int64, copy=False)
            if self.cfg._intermediate:
                inter = self._intermediates(src, dst, draws)
            else:
                tr = self.tables.term_router
                # every source is a terminal: "clip" never clips, and unlike "raise" writes without a buffer
                inter = np.take(tr, src, out=reused(self.pool, "inter", src.size, tr.dtype), mode="clip")
        else:
            dst = inter = src
        return {"join": gen["join"], "created": created, "seq": seq, "src": src, "dst": dst,
                "inter": inter.astype(np.int64, copy=False)}

    def _quota(self, span: int) -> int:
        """Packets of a terminal's queue the ring holds in a call of ``span`` cycles (:meth:`_admit`)."""
        return span // self.L + 3

    def _room(self, span: int) -> np.ndarray:
        """Per terminal, the packets its queue in the ring takes in a call of ``span`` cycles (no bound
        without :attr:`HOLD`)."""
        if not self.HOLD:
            return np.full(self.T, np.iinfo(np.int64).max // 2, np.int64)
        return np.maximum(self._quota(span) - self.sq_count.astype(np.int64), 0)

    def _fits(self, src: np.ndarray, span: int) -> bool:
        """No terminal holds packets back or has coins of past cycles to draw, and none will hold back
        explicit packets ``src`` in a call of ``span`` cycles."""
        if not self.HOLD:
            return True
        if self.held.total or self.sources.behind(self.t):
            return False
        return not src.size or bool((self.sq_count + np.bincount(src, minlength=self.T) <= self._quota(span)).all())

    def _join(self, p: dict[str, np.ndarray]) -> "kernel.NewPackets":
        """Every packet of ``p`` joins the ring in its ``join`` cycle."""
        return kernel.NewPackets(cycle=p["join"], slot=self._take_slots(p["join"].size), seq=p["seq"],
                                 created=p["created"], src=p["src"], dst=p["dst"], inter=p["inter"])

    def _admit(self, born: dict[str, np.ndarray] | None, t0: int, span: int) -> "kernel.NewPackets":
        """The packets the kernel puts into the ring in a call of ``span`` cycles from ``t0``: held ones
        first, then the Bernoulli sources' (those behind ``t0`` catching up, then the call's cycles), then the
        explicit ones ``born`` in the call.

        A terminal injects at most one flit a cycle, so in ``span`` cycles it starts at most
        ``span // L + 1`` packets: the ring holds the first ``K = span // L + 3`` of each terminal's queue.
        A Bernoulli source with ``K`` packets in the ring stops drawing (:class:`Sources`) and an explicit
        packet beyond them waits in :class:`HeldPackets`; either joins the ring in order in a later call, at
        its first cycle. Which packets wait where changes no cycle of any packet.
        """
        held, t1 = self.held, t0 + span
        room = self._room(span)
        old = held.take(room)                        # held packets first, in order, joining at t0
        old["join"] = np.full(old["src"].size, t0, np.int64)
        if old["src"].size:
            room -= np.bincount(old["src"], minlength=self.T)
        room[held.count > 0] = 0                     # a terminal's new packets queue behind its held ones
        parts = [old, self._drawn(self.sources.generate(t0, t1, room))]
        if born is not None and born["src"].size:
            # explicit packets join while their terminal has room, nothing held and no coins left to draw
            src = born["src"]
            join = np.empty(src.size, np.bool_)
            within_quota(src, np.where(self.sources.fr >= t1, room, 0), join)
            keep = ~join
            if keep.any():
                held.put(born["seq"][keep], born["created"][keep], src[keep], born["dst"][keep], born["inter"][keep])
            parts.append({k: v[join] for k, v in born.items()})
        p = {k: np.concatenate([q[k] for q in parts]) for k in ("join", "created", "seq", "src", "dst", "inter")}
        if born is not None and parts[1]["src"].size and parts[2]["src"].size:
            order = np.argsort(p["join"], kind="stable")   # both kinds in one call: in join order
            p = {k: v[order] for k, v in p.items()}
        return self._join(p)

    def watch_created(self) -> int:
        """Watch the packets created before this cycle ``x`` (returned), generated or not: from now on
        :meth:`delivered_before` counts those collected, :meth:`created_before` is how many there are."""
        x = self.t
        # every packet generated so far was created before x; a source behind has coins left before x
        self.below[x] = [self.next_seq + self.sources.count(self.sources.fr, x), self.collected]
        return x

    def created_before(self, x: int) -> int:
        """Packets created before cycle ``x`` (watched, :meth:`watch_created`)."""
        return self.below[x][0]

    def delivered_before(self, x: int) -> int:
        """Packets created before cycle ``x`` collected so far (watched, :meth:`watch_created`)."""
        return self.below[x][1]

    def backlog(self) -> int:
        """Packets created and not yet collected: in the network, in the ring's source queues, held back or
        not yet generated by a source behind (:class:`Sources`)."""
        return self.next_seq - self.collected + self.sources.count(self.sources.fr, self.t)

    def _ejected_table(self, size: int) -> "kernel.Ejected":
        return kernel.Ejected(n=np.zeros(1, np.int64), **{f: np.zeros(size, t) for f, t in EJECTED_DTYPES.items()})

    def _intermediates(self, src: np.ndarray, dst: np.ndarray, rng) -> np.ndarray:
        """Random intermediate routers drawn at creation (router-spec §R7), from ``rng`` (a
        :class:`numpy.random.Generator` or the packets' :class:`~radixnet.golden.sources.PacketDraws`).

        ``val``: uniform over all routers (Kim §3.1). ``ugal``/``ugal-s``: uniform over the routers other
        than the source and destination routers, so that the non-minimal candidate is a non-minimal path.
        """
        R = self.R
        if self.code == TVAL:
            cand = np.unique(self.cfg.net.inj_router)
            return cand[rng.integers(0, cand.size, src.size)]
        if self.routing.name == "val" or R <= 2:
            return rng.integers(0, R, src.size)
        if self.code in (TVAL, TUGAL_L, TUGAL_G):
            # any topology: intermediates among the routers that carry terminals (other than the source
            # and destination routers); a Clos spine or butterfly middle stage is never a Valiant target
            cand = np.unique(self.cfg.net.inj_router)
            a = self.tables.term_router[src]
            b = self.tables.term_router[dst]
            pick = cand[rng.integers(0, cand.size, src.size)]
            bad = (pick == a) | (pick == b)
            for _ in range(64):
                if not bad.any():
                    break
                pick[bad] = cand[rng.integers(0, cand.size, src.size)[bad]]   # one draw per packet, as PacketDraws
                bad = (pick == a) | (pick == b)
            return np.where(bad, a, pick)
        a = self.tables.term_router[src]
        b = self.tables.term_router[dst]
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        distinct = lo != hi
        u = rng.integers(0, R - 1 - distinct, src.size)  # R-2 choices, or R-1 when a == b
        u = u + (u >= lo)
        u = u + (distinct & (u >= hi))
        return u

    # ------------------------------------------------------------------ cycles
    def chunk_cycles(self, cycles: int, load: float) -> int:
        """Cycles per kernel call of :meth:`step` at ``load``: all ``cycles`` unless one call would create
        more than :data:`PACKETS_PER_CALL` packets on average, which bounds the packet ring on big networks
        (a 262,144-terminal network at load 0.3 makes 39 million packets per 500-cycle window).

        No result depends on the chunk (every packet is a function of the seed, its terminal and its cycle).
        At the default window (500 cycles) networks of up to 2,097 terminals at load 1 (6,990 at 0.3) are never
        split.
        """
        per_cycle = max(load / self.L * self.T, 1e-9)
        return int(max(1, min(cycles, PACKETS_PER_CALL // per_cycle)))

    def place_flit(self, r: int, p: int, v: int, flit: int) -> None:
        """Put flit number ``flit`` at the tail of input VC (r, p, v) as an arriving flit joins it (§R2.4),
        the allocator's lists of VCs holding flits included (the kernel's own :func:`kernel.enqueue`): for
        tests that build a state by hand."""
        kernel.enqueue(self.rs, r, p, v, flit)

    def step(self, cycles: int, load: float = 0.0, batch_cycles=None, batch_src=None, batch_dst=None,
             sinks=()) -> dict:
        """Run ``cycles`` cycles with Bernoulli injection at ``load`` flits/terminal/cycle (§R3).

        Returns ``ejected`` (the records of the packets ejected in sequence order, a dict of arrays, or
        None), ``ej_flits`` (flits ejected per cycle) and ``first_seq`` (the first packet generated).
        Bernoulli injection on a big network runs as several kernel calls of :meth:`chunk_cycles` each,
        and a source that backs up makes calls of :data:`HOLD_SPAN` cycles. With ``sinks`` (callables,
        e.g. :class:`PacketStats`) each kernel call's records go to them as the call ends and are dropped
        (views of the kernel's table, valid only during the sink call: a sink that keeps them copies them),
        and ``ejected`` is None: a big network's window of records is never held at once, and the records a
        sink sees are in ejection order (statistics do not depend on it; :attr:`on_ejected` sees each
        call's records in sequence order). A sink with a ``fields`` attribute names the record fields it reads
        (:data:`RECORD_FIELDS`); with sinks alone, a record holds only the fields some sink names.
        """
        record_fields(sinks)   # a sink naming a field that is not a record field is refused before any cycle
        chunk = self.chunk_cycles(cycles, load) if load > 0 and batch_cycles is None else cycles
        first_seq = self.next_seq
        recs: list[dict] = []       # each kernel call's records (none kept with sinks)
        ejf: list[np.ndarray] = []  # each kernel call's flits ejected per cycle
        for c in range(0, cycles, chunk):
            self._step(min(chunk, cycles - c), load, batch_cycles, batch_src, batch_dst, sinks=sinks, recs=recs,
                       ejf=ejf)
        rec = recs[0] if len(recs) == 1 else None
        if len(recs) > 1:   # several kernel calls: one record set, in sequence order
            rec = {k: np.concatenate([r[k] for r in recs]) for k in recs[0]}
            order = np.argsort(rec["seq"], kind="stable")
            rec = {k: v[order] for k, v in rec.items()}
        return {"ejected": rec, "ej_flits": ejf[0] if len(ejf) == 1 else np.concatenate(ejf), "first_seq": first_seq}

    def _step(self, cycles: int, load: float, batch_cycles, batch_src, batch_dst, sinks: tuple, recs: list,
              ejf: list) -> None:
        """Create one chunk's packets and run its cycles (:meth:`_run`, once or in spans); each kernel call's
        records go to the ``sinks`` or, without sinks, onto ``recs`` (:meth:`_run`), its flits ejected per
        cycle onto ``ejf``."""
        t0 = t1 = self.t
        t1 += cycles
        born = None
        if batch_cycles is not None:
            self.sources.rate(t0, 0.0)
            born = self._born(batch_cycles, batch_src, batch_dst)
        else:
            self.sources.rate(t0, load / self.L)
        if born is not None and self._fits(born["src"], cycles):
            # no backlog anywhere: one kernel call, every packet joins the ring (the sources draw no coin)
            self.sources.generate(t0, t1, np.zeros(self.T, np.int64))
            self._run(t0, t1, self._join(born), sinks, recs, ejf)
            return
        if born is None and not self.held.total and not self.sources.behind(t0):
            fr = self.sources.fr.copy()
            gen = self.sources.generate(t0, t1, self._room(cycles))
            if not self.sources.behind(t1):   # every source's packets fit: one kernel call
                self._run(t0, t1, self._join(self._drawn(gen)), sinks, recs, ejf)
                return
            self.sources.fr[:] = fr           # a source backs up: draw again, span by span
        # a source backs up: the kernel runs in spans of HOLD_SPAN cycles, so that the ring holds a few
        # packets per terminal, not a window's worth (a Bernoulli source stops drawing, explicit packets wait
        # in HeldPackets)
        for a in range(t0, t1, HOLD_SPAN):
            b = min(a + HOLD_SPAN, t1)
            part = None
            if born is not None:
                lo, hi = np.searchsorted(born["created"], [a, b])
                part = {k: v[lo:hi] for k, v in born.items()}
            self._run(a, b, self._admit(part, a, b - a), sinks, recs, ejf)

    def _run(self, t0: int, t1: int, new: "kernel.NewPackets", sinks: tuple, recs: list, ejf: list) -> None:
        """One kernel call over cycles ``[t0, t1)``: the records of the packets it ejected go to each of the
        ``sinks`` (in ejection order, as views of the kernel's table that the next call overwrites) or, without
        sinks, onto ``recs`` (copies, in sequence order); the flits ejected per cycle go onto ``ejf``."""
        cycles = t1 - t0
        ej = np.zeros(cycles + self.Tl + 1, np.int64)
        # packets whose tails a call ejects: at most one flit per terminal and cycle, and no more than live
        most = min(self.cap, self.T * ((cycles + self.L - 1) // self.L + 1))
        if self.ej.seq.size < most:
            self.ej = self._ejected_table(most)
        self.ej.n[0] = 0
        status, tend, self.last_move = kernel.run_cycles(
            t0, t1, self.prm, self.tp, self.rs, self.lk, self.srcq, self.pk, self.sc, new, self.ch_flits, ej,
            self.ej, self.last_move)
        self.t = int(tend)
        if status == kernel.STATUS_WATCHDOG:
            raise SimulationError(self._watchdog_message())
        # the packets whose tails were ejected in this call (the kernel listed their slots and cycles; their
        # fields are gathered here and their slots freed); in sequence order for a caller that reads the
        # records' order (statistics do not)
        n = int(self.ej.n[0])
        ejf.append(ej[:cycles])
        if n:
            # sinks alone take views in ejection order, of the fields they name; else every field in sequence
            # order (a gather, so copies)
            alone = sinks and self.on_ejected is None
            names = record_fields(sinks, ("created",) if self.below else ()) if alone else RECORD_FIELDS
            set_min = alone and self.all_minimal and "min" in names   # True for every packet: not gathered
            gathered = [f for f in names if not (set_min and f == "min")]
            by_hops = self.term_coords is not None and "min" in names
            if by_hops:   # minimal by hop count: its terms gathered, min itself not
                gathered = [f for f in RECORD_FIELDS if f in {"src", "dst", "hops"} or (f in gathered and f != "min")]
            kernel.collect_ejected(self.ej, self.pk, self.tp.term_router,
                                   sum(kernel.GATHER.get(RECORD_GATHERED.get(f, f), 0) for f in gathered))
            order = slice(None) if alone else np.argsort(self.ej.seq[:n], kind="stable")
            rec = {f: getattr(self.ej, RECORD_GATHERED.get(f, f))[:n][order] for f in gathered}
            if by_hops:
                tc = self.term_coords
                rec["min"] = rec["hops"] == (tc[rec["src"]] != tc[rec["dst"]]).sum(1)
            if set_min:
                if self.trues.size < n:
                    self.trues = np.ones(2 * n, np.bool_)
                rec["min"] = self.trues[:n]
            s = self.ej.slot[:n][order]
            if self.trace_on:
                rec["hop"] = np.stack([self.hop_router[s], self.hop_port[s], self.hop_vc[s], self.hop_cycle[s]], -1)
                h = self.hop_hdr[s]
                rec["hdr"] = np.stack([h & 1, (h >> 1) & 1, h >> 2], -1)   # per hop: phase, decided, inter
                rec["sent"] = self.hop_sent[s].copy()
            if self.on_ejected is not None:
                self.on_ejected(rec)
            self.collected += n
            for x, w in self.below.items():
                w[1] += int(np.count_nonzero(rec["created"] < x))
            self.nfree += n
            if sinks:
                for sink in sinks:
                    sink(rec)
            else:
                recs.append(rec)

    def _watchdog_message(self) -> str:
        occupied = self.bcnt.sum(axis=2) > 0
        r, p = np.nonzero(occupied)
        chans = self.in_ch[r, p]
        net = self.cfg.net
        names = [f"{net.src[c]}:{net.src_port[c]}->{net.dst[c]}:{net.dst_port[c]}" for c in chans[chans >= 0][:8]]
        more = max(0, int(np.count_nonzero(chans >= 0)) - 8)
        return (f"watchdog: no flit moved for {self.cfg.watchdog} cycles at cycle {self.t} while flits are "
                f"buffered; blocked channels (router:port->router:port): {', '.join(names) or 'injection ports'}"
                + (f" and {more} more" if more else ""))

    # ------------------------------------------------------------ measurement
    def run_load(self, load: float, progress=None) -> dict[str, Any]:
        """Kim §3.2: warm up to steady state, label a measurement interval, drain it; report statistics.

        ``progress`` (a :data:`radixnet.gen.progress.ProgressFn`) is told the phase after every window:
        ``warm-up`` (windows of at most ``max_warmup``, with the window's accepted throughput),
        ``measure`` (cycles of ``measure``) and ``drain`` (labelled packets delivered).
        """
        self.cfg.check_load(load)
        cfg = self.cfg
        wall0 = time.perf_counter()
        W, T = cfg.window, self.T
        hist: list[tuple[float, float]] = []
        steady = False
        for _ in range(cfg.max_warmup):
            window = PacketStats()
            out = self.step(W, load, sinks=(window,))
            thr = out["ej_flits"].sum() / (W * T)
            lat = window.mean_latency() if window.n else 0.0
            hist.append((thr, lat))
            report(progress, "warm-up", len(hist), cfg.max_warmup, f"cycle {self.t}, accepted {thr:.3f}")
            if len(hist) >= 3 and all(_close(hist[-i], hist[-i - 1]) for i in (1, 2)):
                steady = True
                break
        # measurement interval: label packets created in [tm0, tm1)
        tm0 = self.t
        backlog0 = self.backlog()        # packets in the network, in source queues or not yet generated
        stats = PacketStats(lo=tm0, terminals=T)   # the labelled packets: those created from here to the end of measure
        early = PacketStats(lo=tm0)      # those created in the first half of the interval ...
        late = None                      # ... and in the second (saturation test, docs/studies.md)
        ej_flits = 0
        ch0 = self.ch_flits.copy()
        done_cycles = 0
        while done_cycles < cfg.measure:
            n = min(W, cfg.measure - done_cycles)
            out = self.step(n, load, sinks=(stats, early) if late is None else (stats, early, late))
            ej_flits += int(out["ej_flits"].sum())
            done_cycles += n
            if late is None and 2 * done_cycles >= cfg.measure:
                early.hi = self.t
                late = PacketStats(lo=self.t)
            report(progress, "measure", done_cycles, cfg.measure, f"cycle {self.t}")
        tm1 = self.watch_created()
        stats.hi = late.hi = tm1
        ch_util = (self.ch_flits - ch0) / (tm1 - tm0)
        backlog1 = self.backlog()
        labelled = self.sources.count(np.full(T, tm0, np.int64), tm1)   # generated or not
        grew = backlog1 - backlog0 > max(0.02 * labelled, 2 * T * cfg.packet_length)
        reasons = ["backlog"] if grew else []
        saturated = grew
        # drain: keep injecting until every labelled packet has left
        drain_limit = 10 * cfg.measure
        drained = 0
        while not saturated and self.delivered_before(tm1) < self.created_before(tm1):   # up to the last labelled
            self.step(W, load, sinks=(stats, early, late))
            drained += W
            report(progress, "drain", stats.n, labelled, f"cycle {self.t}")
            if drained > drain_limit:
                saturated = True
                reasons.append("drain")
        accepted = ej_flits / ((tm1 - tm0) * T)
        result: dict[str, Any] = {
            "offered_load": load, "accepted_throughput": round(accepted, 6), "saturated": bool(saturated),
            "steady_state": steady, "warmup_cycles": tm0, "measure_cycles": tm1 - tm0, "cycles": self.t,
            "labelled_packets": int(labelled),
        }
        # the saturation rules a reader of the curve would apply (docs/studies.md, "Saturation")
        M, L_ = tm1 - tm0, cfg.packet_length
        lat_now = stats.mean_latency() if stats.n else float(cfg.measure)
        noise = float(np.sqrt(L_ * load * (1 - load / L_) / (T * M) + 2 * load * lat_now / (T * M * M)))
        result["throughput_deficit"] = round(load - accepted, 6)
        result["throughput_noise"] = round(noise, 6)
        if load - accepted > SAT_SIGMAS * noise:
            reasons.append("throughput")
        zl = zero_load_latency(cfg.model, stats.mean_hops(), L_, cfg.link_latency) + self.line_latency \
            if stats.n else None
        if zl and stats.mean_latency() > SAT_LATENCY * zl:
            reasons.append("latency")
        if stats.n:
            p99 = stats.percentile(99)
            ratio = stats.source_ratio()
            result["tail_source_ratio"] = round(ratio, 4)
            if (p99 > TAIL_P99 * stats.mean_latency() or stats.max_latency() > TAIL_MAX * p99) \
                    and ratio > TAIL_SOURCE:
                reasons.append("tail")
        saturated = bool(reasons)
        result["saturated"] = saturated
        result["saturation_reasons"] = reasons
        if early.n and late.n:
            result["latency_first_half"] = round(early.mean_latency(), 4)
            result["latency_second_half"] = round(late.mean_latency(), 4)
        if stats.n and not saturated:
            result.update({
                "avg_latency": round(stats.mean_latency(), 4),
                "p50_latency": stats.percentile(50),
                "p99_latency": stats.percentile(99),
                "max_latency": stats.max_latency(),
                "avg_hops": round(stats.mean_hops(), 4),
                "minimal_fraction": round(stats.minimal_fraction(), 4),
            })
            # the spec's zero-load latency at the measured hop count (§R10): the rest is queueing
            result["zero_load_latency"] = round(zero_load_latency(
                cfg.model, stats.mean_hops(), cfg.packet_length, cfg.link_latency) + self.line_latency, 4)
        else:
            result.update({"avg_latency": None, "p50_latency": None, "p99_latency": None, "max_latency": None,
                           "avg_hops": None, "minimal_fraction": None})
        result.setdefault("zero_load_latency", None)
        result["channel_utilisation_avg"] = round(float(ch_util.mean()), 6) if ch_util.size else 0.0
        result["channel_utilisation_max"] = round(float(ch_util.max()), 6) if ch_util.size else 0.0
        result["wall_seconds"] = round(time.perf_counter() - wall0, 3)
        return result

    def run_batch(self, batch: int, max_cycles: int = 10_000_000, progress=None) -> dict[str, Any]:
        """Kim Fig. 5: every terminal creates ``batch`` packets at once; cycles until all are delivered.

        Returns ``cycles`` (first creation to last ejection) and ``normalized`` = cycles / batch, the
        quantity of Kim's Fig. 5, which approaches 1/throughput as the batch grows. ``progress`` (a
        :data:`radixnet.gen.progress.ProgressFn`) is told the packets delivered after every window.
        """
        self.cfg.check_batch(batch, self.trace_on)
        wall0 = time.perf_counter()
        src = np.tile(np.arange(self.T, dtype=np.int64), batch)  # round r: one packet per terminal
        dst = self.pattern.destinations(src, self.rng).astype(np.int64)
        cyc = np.full(src.size, self.t, np.int64)
        t_start, total = self.t, src.size
        stats = PacketStats(lo=t_start, hi=t_start + 1)
        self.step(1, batch_cycles=cyc, batch_src=src, batch_dst=dst, sinks=(stats,))
        mark = self.watch_created()   # the batch and every packet before it
        while self.delivered_before(mark) < self.created_before(mark):
            if self.t - t_start > max_cycles:
                raise SimulationError(f"batch of {batch} not delivered within {max_cycles} cycles")
            self.step(self.cfg.window, sinks=(stats,))
            report(progress, "batch", stats.n, total, f"cycle {self.t}")
        cycles = stats.last_ejected - t_start
        return {"batch": batch, "packets": int(total), "cycles": cycles, "normalized": round(cycles / batch, 4),
                "wall_seconds": round(time.perf_counter() - wall0, 3)}


class PacketStats:
    """Streaming statistics of ejected packets created in cycles ``[lo, hi)`` (``hi`` None: no upper bound
    yet), fed a kernel call's records at a time (:meth:`Simulator.step`'s ``sinks``).

    Latencies are integers, so an integer histogram gives the mean and every percentile exactly (as
    ``numpy.percentile``'s linear interpolation over all of them) in memory that grows with the largest
    latency, not with the number of packets: 39 million labelled packets of a 262,144-terminal network
    take a few kilobytes.

    Examples
    --------
    >>> s = PacketStats(lo=1)
    >>> s({"seq": np.arange(5), "created": np.arange(5), "ejected": np.array([9, 4, 6, 7, 14]),
    ...    "hops": np.array([1, 2, 2, 3, 3]), "min": np.array([1, 1, 0, 1, 1], bool)})
    >>> s.n, s.mean_latency(), s.percentile(50), s.percentile(99), s.max_latency(), s.mean_hops()
    (4, 5.25, 4.0, 9.819999999999999, 10, 2.5)
    >>> float(np.percentile([3, 4, 4, 10], 99))
    9.819999999999999

    With ``terminals``, it also keeps each source terminal's count and latency sum (the record's ``src``):
    :meth:`source_ratio` is the slowest source's mean over the median source's.

    >>> s = PacketStats(lo=0, terminals=4)
    >>> s({"src": np.array([0, 0, 1, 2, 3]), "created": np.zeros(5, int), "ejected": np.array([4, 6, 5, 5, 50]),
    ...    "hops": np.ones(5, int), "min": np.ones(5, bool)})
    >>> s.source_ratio()
    10.0
    """

    #: the record fields it reads (:func:`record_fields`: the others are not gathered for it)
    fields = ("created", "ejected", "hops", "min")

    def __init__(self, lo: int = 0, hi: int | None = None, terminals: int = 0) -> None:
        self.lo, self.hi = int(lo), None if hi is None else int(hi)   # Python ints: the tally's one signature
        self.n = self.lat_sum = self.hops_sum = self.min_sum = 0
        self.last_ejected = -1
        self.hist = np.zeros(64, np.int64)
        if terminals:
            self.fields = ("src",) + PacketStats.fields
            self.src_n = np.zeros(terminals, np.int64)
            self.src_sum = np.zeros(terminals, np.int64)

    def __call__(self, rec: dict) -> None:
        created = rec["created"]
        if not created.size:
            return
        if "src" in self.fields:
            m = created >= self.lo if self.hi is None else (created >= self.lo) & (created < self.hi)
            src, T = rec["src"][m], self.src_n.size
            self.src_n += np.bincount(src, minlength=T)
            self.src_sum += np.bincount(src, weights=(rec["ejected"][m] - created[m]), minlength=T).astype(np.int64)
        # one compiled pass (radixnet.golden.tally), on the kernel's own dtypes (a native module holds the
        # signatures its workload called: another dtype would switch the process to the JIT)
        args = [np.require(rec[f], t, "CWA") for f, t in (("created", np.int32), ("ejected", np.int32),
                                                              ("hops", np.int16), ("min", np.bool_))]
        hi = np.iinfo(np.int32).max if self.hi is None else self.hi
        out = np.array([0, 0, 0, 0, self.last_ejected], np.int64)
        while True:
            need = latency_tally(*args, self.lo, hi, self.hist, out)
            if not need:
                break
            self.hist = np.concatenate([self.hist, np.zeros(max(need, 2 * self.hist.size) - self.hist.size, np.int64)])
        self.n += int(out[0])
        self.lat_sum += int(out[1])
        self.hops_sum += int(out[2])
        self.min_sum += int(out[3])
        self.last_ejected = int(out[4])

    def mean_latency(self) -> float:
        return self.lat_sum / self.n

    def mean_hops(self) -> float:
        return self.hops_sum / self.n

    def minimal_fraction(self) -> float:
        return self.min_sum / self.n

    def max_latency(self) -> int:
        return int(np.flatnonzero(self.hist)[-1])

    def source_ratio(self) -> float:
        """The largest source terminal's mean latency over the median of the sources' means (sources with a
        packet only); 1.0 without per-source counts (``terminals`` 0)."""
        if "src" not in self.fields or not self.src_n.any():
            return 1.0
        has = self.src_n > 0
        means = self.src_sum[has] / self.src_n[has]
        return float(means.max() / np.median(means))

    def percentile(self, q: float) -> float:
        """``numpy.percentile(latencies, q)`` to the last bit (its "linear" method: the virtual index
        ``(n - 1) (q / 100)`` and its lerp, computed as numpy computes them)."""
        cum = np.cumsum(self.hist)
        vi = (self.n - 1) * float(np.true_divide(q, 100))
        lo = min(max(int(np.floor(vi)), 0), self.n - 1)
        hi = min(lo + 1, self.n - 1)
        g = vi - np.floor(vi) if 0 <= vi < self.n - 1 else 0.0
        a, b = (float(np.searchsorted(cum, i, side="right")) for i in (lo, hi))
        return float(b - (b - a) * (1 - g)) if g >= 0.5 else float(a + (b - a) * g)


def _close(a: tuple[float, float], b: tuple[float, float]) -> bool:
    (ta, la), (tb, lb) = a, b
    return abs(ta - tb) <= max(0.02 * max(ta, tb), 0.002) and abs(la - lb) <= max(0.05 * max(la, lb), 0.5)


def trace_record(rec: dict, i: int) -> dict:
    """Packet ``i`` of an ejection record as its §R9 trace object.

    ``id`` (sequence number: packets counted in the order generated, §R3), ``src``, ``dst``, ``created``,
    ``injected``, ``ejected``, ``min`` (routed minimally), ``inter`` (the header's intermediate router at creation,
    §R4) and, when the simulator traces, ``hops`` (``[router, out_port, out_vc, grant_cycle]`` per router, the last
    one the ejection port) and ``headers`` (per hop, ``[phase, decided, inter]`` of the head flit as it leaves: for
    ``2dfb-adaptive`` ``phase`` is the priority flag ``h1``) and ``sent`` (per hop, the cycle the head flit left the
    §R2 output queue onto the link: the grant cycle plus the router model's traversal delay, later when the queue
    held older flits, which only speedup ``S > 1`` makes possible).
    """
    out = {"id": int(rec["seq"][i]), "src": int(rec["src"][i]), "dst": int(rec["dst"][i]),
           "created": int(rec["created"][i]), "injected": int(rec["injected"][i]),
           "ejected": int(rec["ejected"][i]), "min": bool(rec["min"][i]), "inter": int(rec["inter0"][i]),
           "hops": [], "headers": []}
    if "hop" in rec:
        keep = rec["hop"][i][:, 0] >= 0
        out["hops"] = rec["hop"][i][keep].tolist()
        out["headers"] = rec["hdr"][i][keep].tolist()
        out["sent"] = rec["sent"][i][keep].tolist()
    return out


class TraceWriter:
    """Write ejection records as JSON Lines in ejection order (router-spec §R9).

    One object per packet (:func:`trace_record`).
    """

    def __init__(self, fh) -> None:
        self.fh = fh
        self.count = 0

    def __call__(self, rec: dict) -> None:
        order = np.lexsort((rec["seq"], rec["ejected"]))
        for i in order:
            self.fh.write(json.dumps(trace_record(rec, i)) + "\n")
        self.count += int(order.size)
