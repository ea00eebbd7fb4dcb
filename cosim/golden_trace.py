"""The golden side of a co-simulation: run :mod:`radixnet.golden` and collect every packet (router-spec §R9).

The co-simulation replays the golden model's traffic into the RTL, so the
golden run must deliver **every** packet it creates: packets are created for
``cycles`` cycles (Bernoulli at ``load``, §R3, or a batch at cycle 0), then
the network drains with no new traffic until the last one is ejected. The
result is one record per packet, in creation order, with the §R9 fields.

Examples
--------
>>> from radixnet.gen import build
>>> pk = golden_packets(build("fbfly", k=2, n=2), load=0.3, cycles=40, vcs=1, vc_depth=2)
>>> sorted(pk[0])
['created', 'dst', 'ejected', 'headers', 'hops', 'id', 'injected', 'inter', 'min', 'sent', 'src']
>>> all(p["created"] <= p["injected"] < p["ejected"] for p in pk)
True
"""

from __future__ import annotations

from ..gen.router_config import RouterConfig
from ..gen.routing import DEFAULT_ROUTING
from ..golden.sim import SimConfig, Simulator, trace_record
from ..golden.traffic import DEFAULT_TRAFFIC
from . import DEFAULT_CYCLES, DEFAULT_LOAD, DEFAULT_VC_DEPTH

__all__ = ["golden_packets", "golden_config", "cosim_router_config"]


def cosim_router_config(config: RouterConfig | None = None, **router) -> RouterConfig:
    """The routers' parameters of a co-simulation: ``config`` (the defaults when not given) with ``router``'s
    values changed, checked (:func:`radixnet.gen.router_config.router_config`), and ``vc_depth``
    :data:`~radixnet.cosim.DEFAULT_VC_DEPTH` when neither gives one.

    >>> cosim_router_config(vcs=2).vc_depth, cosim_router_config(RouterConfig(vc_depth=5)).vc_depth
    (2, 5)
    """
    cfg = (config or RouterConfig()).replace(**router)
    return cfg if cfg.vc_depth is not None else cfg.replace(vc_depth=DEFAULT_VC_DEPTH)


def golden_config(net, config: RouterConfig | None = None, *, routing: str = DEFAULT_ROUTING,
                  traffic: str = DEFAULT_TRAFFIC, packet_length: int = SimConfig.packet_length,
                  seed: int = SimConfig.seed, traffic_opts: dict | None = None,
                  sink_stall: float = SimConfig.sink_stall, **router) -> SimConfig:
    """The validated :class:`~radixnet.golden.sim.SimConfig` the RTL implements (``Tl = 1``, §R1).

    ``config`` and ``router`` are the routers' parameters (:func:`cosim_router_config`: a
    :class:`~radixnet.gen.router_config.RouterConfig`, single values changed by keyword, ``vc_depth``
    :data:`~radixnet.cosim.DEFAULT_VC_DEPTH` unless given); the rest are :class:`~radixnet.golden.sim.SimConfig`'s
    (``sink_stall``: the terminals' sinks' stall probability, §R3a).
    """
    rc = cosim_router_config(config, **router)
    return SimConfig(net, routing=routing, traffic=traffic, packet_length=packet_length, link_latency=1, seed=seed,
                     traffic_opts=dict(traffic_opts or {}), sink_stall=sink_stall, **rc.as_dict()).validate()


def golden_packets(net, *, load: float = DEFAULT_LOAD, cycles: int = DEFAULT_CYCLES, batch: int | None = None,
                   max_drain: int = 100_000, **kw) -> list[dict]:
    """Run the golden model and return every packet it created, delivered (§R9 records).

    Parameters
    ----------
    net : radixnet.gen.Network
        The topology.
    load : float
        Offered load, flits per terminal per cycle (§R3), during the first ``cycles`` cycles.
    cycles : int
        Cycles with packet creation (ignored with ``batch``).
    batch : int, optional
        Instead of Bernoulli traffic, ``batch`` packets per terminal created at cycle 0.
    max_drain : int
        Cycles allowed for the drain; a network that has not delivered everything by then raises.
    **kw
        :func:`golden_config` parameters (``routing``, ``traffic``, ``vcs``, ``vc_depth``,
        ``packet_length``, ``seed``, ...).

    Returns
    -------
    list of dict
        Per packet, in creation order, its §R9 trace object (:func:`radixnet.golden.sim.trace_record`):
        ``id, src, dst, created, injected, ejected, min, inter, hops, headers, sent`` (``hops``:
        ``[router, out_port, out_vc, grant_cycle]`` per router, the last one the ejection; ``headers``:
        ``[phase, decided, inter]`` the head flit leaves each router with; ``sent``: per router, the cycle
        the head flit went onto the link; ``inter``: the header's ``inter`` field at creation,
        Valiant/UGAL's intermediate router).
    """
    import numpy as np

    cfg = golden_config(net, **kw)
    sim = Simulator(cfg, trace=True)
    recs: list[dict] = []
    sim.on_ejected = recs.append
    if batch is not None:
        T = net.num_terminals
        src = np.repeat(np.arange(T, dtype=np.int64), batch)
        dst = sim.pattern.destinations(src, sim.rng).astype(np.int64)
        sim.step(1, batch_cycles=np.zeros(src.size, np.int64), batch_src=src, batch_dst=dst)
    else:
        sim.step(cycles, load=load)
    waited = 0
    while sim.collected < sim.next_seq:
        if waited >= max_drain:
            raise RuntimeError(f"golden_packets: {sim.next_seq - sim.collected} packets not delivered "
                               f"{max_drain} cycles after the last creation")
        sim.step(200)
        waited += 200
    out = [trace_record(rec, i) for rec in recs for i in range(rec["seq"].size)]
    out.sort(key=lambda p: p["id"])
    return out
