"""Router-level co-simulation: one router of a network, its neighbours played from the golden trace.

The golden model runs the whole network (every router, every terminal); one
router's Verilog is built alone and every one of its ports is driven as the
golden model says its neighbours drove it:

* a flit arrives on input port ``p`` in the cycle the upstream router sent it
  (its §R9 hop record: router, output port, output VC, grant cycle, and the
  ``sent`` cycle it left the output queue), or, on an injection port, in the
  packet's ``injected`` cycle on VC ``i mod V`` (§R3);
* a credit for output ``o`` VC ``v`` arrives in the cycle the downstream
  router granted the flit this router had sent there (§R2: the slot is freed
  at the grant).

Under the ``iq`` model (§R10) every one of these moves by the router model's
delays: a flit granted (SA) in cycle ``g`` is on its output link in ``g +
sw_alloc_delay + st_final_delay`` (later if, with speedup 2, older flits
queue ahead of it: the trace's ``sent``) and its slot's credit in ``g +
credit_delay``, upstream and here alike.

A flit arrives with the header the upstream router gave it (the §R9
``headers`` record: ``phase``, ``decided``, ``inter``, and the 2DFB's
priority flag), so adaptive routings that rewrite the header at a decision
(``val``, ``ugal``, ``ugal-s``, ``clos-ad``, ``2dfb-adaptive``) are checked
router by router too.

Expected from the router, every cycle: the flits it sends (output port,
VC, updated header: ``hops`` and the decision's fields) exactly in the golden
hop records' ``sent`` cycles, and the credits it returns upstream in the same cycles. This level builds in
seconds for routers whose whole network is too large to build (Slim Fly q = 5:
50 routers), and it drives every port at once.

It needs single-flit packets: the trace records the grant cycle of a packet's
head flit only, which for ``L = 1`` is every flit.

Examples
--------
>>> from radixnet.gen import build
>>> ev = router_events(build("fbfly", k=2, n=2), router=0, load=0.5, cycles=30, vcs=1, vc_depth=2)
>>> sorted(ev)[:4], ev["router"]
(['arrivals', 'credits_in', 'expected_credits', 'expected_out'], 0)
>>> len(ev["arrivals"]) == len(ev["expected_out"]) == len(ev["expected_credits"])
True
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict

from ..gen.router_config import DATA_WIDTH
from . import DEFAULT_CYCLES, DEFAULT_LOAD

__all__ = ["router_events", "cosim_router"]


def _pack(lay, **values) -> int:
    x = 0
    for name, v in values.items():
        w = lay[name].width
        x |= (int(v) & ((1 << w) - 1)) << lay[name].offset
    return x


def router_events(net, *, router: int | None = None, data_width: int = DATA_WIDTH, packets=None, table=None,
                  fault=None, **kw) -> dict:
    """Golden stimulus and expected responses of one router (see the module docstring).

    Parameters
    ----------
    net : radixnet.gen.Network
        The topology.
    router : int, optional
        The router under test; default the one the most packets traverse.
    data_width : int
        Flit payload bits (they carry the packet id, so they bound the trace length).
    packets : list of dict, optional
        Golden records (:func:`radixnet.cosim.golden_trace.golden_packets`); default: run the golden model
        with ``**kw``.
    **kw
        ``load``, ``cycles``, ``batch`` and :func:`radixnet.cosim.golden_trace.golden_config` parameters.

    Returns
    -------
    dict
        ``router``, the ``Router`` component (``top``), ``arrivals`` ``[cycle, port, flit, id]``,
        ``credits_in`` ``[cycle, port, vc]``, ``expected_out`` ``[cycle, port, flit, id]``,
        ``expected_credits`` ``[cycle, port, vc]``, ``packets`` (the golden records), ``topo`` (the router for a
        :class:`~radixnet.cosim.hops.HopTracker`) and its terminals' ``stall_cycles`` and ``max_source_queue``
        (:func:`source_counters`).
    """
    from ..hdl.router import Router
    from .golden_trace import golden_config, golden_packets
    from .hops import observe_topology
    from .run import rtl_route

    if kw.get("packet_length", 1) != 1:
        raise ValueError("--packet-length: the router-level co-simulation takes single-flit packets (the trace "
                         "records head-flit grants only); the network level takes any length")
    gkw = {k: v for k, v in kw.items() if k not in ("load", "cycles", "batch")}
    cfg = golden_config(net, **gkw)
    routing, threshold = None, 0
    if table is None:
        table, routing, threshold = rtl_route(cfg)
    if packets is None:
        packets = golden_packets(net, load=kw.get("load", DEFAULT_LOAD), cycles=kw.get("cycles", DEFAULT_CYCLES),
                                 batch=kw.get("batch"), **{**gkw, "vcs": cfg.vcs, "vc_depth": cfg.vc_depth})
    V = cfg.vcs
    # SA grant -> credit register (§R10); hiradix frees the slot at IN, a cycle after ST (§R11.4)
    d_cr = cfg.model.credit_delay + int(cfg.model.split)
    if router is None:
        visits = Counter(h[0] for p in packets for h in p["hops"])
        router = max(range(net.num_routers), key=lambda r: (visits[r], -r))
    # observe: the decision grants for the coverage bins (radixnet.cosim.hops); the router's logic is the default
    top = Router(net, int(router), V, cfg.vc_depth, data_width, table=table, fault=fault, routing=routing,
                 threshold=threshold, router_model=cfg.model.name, speedup=cfg.speedup, observe=True,
                 group=cfg.group, seq_wavefront=cfg.seq_wavefront, buffer_fronts=cfg.buffer_fronts,
                 buffer_ram=cfg.buffer_ram)
    lay = top.flit_layout
    mask = (1 << data_width) - 1
    pt = net.port_table()
    seen = defaultdict(int)
    inj_vc = {}
    for p in sorted(packets, key=lambda p: p["id"]):
        inj_vc[p["id"]] = seen[p["src"]] % V      # packet i of a terminal: VC i mod V (§R3)
        seen[p["src"]] += 1
    def header(phase, decided, inter):
        """The flit's §R4 header fields from the golden model's (phase, decided, inter): ``2dfb-adaptive``
        keeps its priority flag h1 in the golden ``phase``; the RTL has a field of its own for it."""
        if routing == "2dfb-adaptive":
            return dict(phase=0, h1=phase, decided=decided, inter=inter)
        return dict(phase=phase, h1=0, decided=decided, inter=inter)

    arrivals, credits_in, exp_out, exp_credit = [], [], [], []
    for p in packets:
        hops, hdrs, sent = p["hops"], p["headers"], p["sent"]
        for j, h in enumerate(hops):
            if h[0] != router:
                continue
            if j == 0:
                port, vc, cyc = int(net.inj_port[p["src"]]), inj_vc[p["id"]], p["injected"]
            else:
                prev = hops[j - 1]
                ch = int(pt["out_channel"][prev[0], prev[1]])
                port, vc, cyc = int(net.dst_port[ch]), prev[2], sent[j - 1]
            data = (p["id"] & mask)
            before = header(0, 0, p["inter"]) if j == 0 else header(*hdrs[j - 1])   # as it arrives (§R9)
            arrivals.append([cyc, port, _pack(lay, head=1, tail=1, vc=vc, dest=p["dst"], hops=j, data=data,
                                              **before), p["id"]])
            eject = int(pt["out_terminal"][router, h[1]]) >= 0
            exp_out.append([sent[j], h[1], _pack(lay, head=1, tail=1, vc=0 if eject else h[2], dest=p["dst"],
                                              hops=j if eject else j + 1, data=data, **header(*hdrs[j])),
                            p["id"]])
            exp_credit.append([h[3] + d_cr, port, vc])
            if not eject:
                credits_in.append([hops[j + 1][3] + d_cr, h[1], h[2]])
    P = top.n_ports
    topo = {"radix": [P], "link": [[None] * P], "eject": [[None] * P], "V": V, "B": cfg.vc_depth, "E": 0,
            "K": top.n_classes, "S": cfg.speedup, "credit_delay": d_cr, "iq": bool(cfg.model.pipelined),
            "heads": int(cfg.model.heads),
            "routing": routing, "inj": [[0, p] for p in range(P) if int(pt["in_terminal"][router, p]) >= 0],
            "net_out": [[o not in top.eject_ports for o in range(P)]],
            "credited": [[o not in top.eject_ports for o in range(P)]]}
    if routing is not None:   # the adaptive and sequential bins: the network's geometry, the router's global id
        full = observe_topology(net, V=V, B=cfg.vc_depth, E=0, K=top.n_classes, S=cfg.speedup, model=cfg.model,
                                routing=routing)
        topo.update({k: full[k] for k in ("coords", "port_dim", "dor", "ej_router")}, router_ids=[int(router)],
                    inj_router=[int(x) for x in net.inj_router],
                    pk=[[p["id"], p["src"], p["dst"], p["inter"]] for p in packets])
    return {"router": int(router), "top": top, "arrivals": sorted(arrivals), "credits_in": sorted(credits_in),
            "expected_out": sorted(exp_out), "expected_credits": sorted(exp_credit), "packets": packets,
            "V": V, "data_width": data_width, "topo": topo, **source_counters(net, packets, router)}


def source_counters(net, packets, router: int) -> dict:
    """``stall_cycles`` and ``max_source_queue`` of the terminals that inject at ``router``, from the golden records.

    A terminal's source queue (§R3) sends its oldest packet when the packet's VC has a credit. With single-flit
    packets packet ``k`` of a terminal is at the front from ``max(created_k, injected_{k-1} + 1)`` and waits
    for a credit until ``injected_k``: those cycles are its stalls. The queue holds the packets created by a
    cycle and not sent before it.
    """
    import numpy as np

    stalls, deepest = 0, 0
    mine = {t for t in range(net.num_terminals) if int(net.inj_router[t]) == router}
    by_src = defaultdict(list)
    for p in packets:
        if p["src"] in mine:
            by_src[p["src"]].append(p)
    for pk in by_src.values():
        pk.sort(key=lambda p: p["id"])
        prev = -1
        for p in pk:
            stalls += p["injected"] - max(p["created"], prev + 1)
            prev = p["injected"]
        created = np.array([p["created"] for p in pk])
        sent = np.sort([p["injected"] for p in pk])
        for c in np.unique(created):   # the queue is deepest just after a creation
            deepest = max(deepest, int((created <= c).sum() - np.searchsorted(sent, c, side="left")))
    return {"stall_cycles": int(stalls), "max_source_queue": deepest}


def cosim_router(net, *, router: int | None = None, sim: str = "verilator", waves: bool = False,
                 build_root="build/cosim", verbose: bool = False, progress=None, **kw) -> dict:
    """Co-simulate one router against the golden model; return the verdict (see :func:`router_events`).

    The verdict has ``router``, ``packets`` (traversals of this router), ``mismatches`` (traversals that
    differ), ``first`` (the first ones, with their golden paths), ``credit_mismatches``, ``cycles``,
    ``cycles_per_s``, ``error``, the timings and ``verilog_bytes`` (size of the flat Verilog).
    """
    from ..gen.progress import report
    from ..hdl.rtlgen import flat_verilog
    from .hops import idle_counters
    from .run import SIMULATORS, check_option, replay

    check_option("sim", sim in SIMULATORS, "one of " + ", ".join(SIMULATORS), sim)
    t0 = time.perf_counter()
    report(progress, "golden model", 0, None, f"{net.num_terminals} terminals")
    ev = router_events(net, router=router, **kw)
    t1 = time.perf_counter()
    top = ev.pop("top")
    report(progress, "Verilog", 0, None, f"router {ev['router']}")
    verilog = flat_verilog(top, "router_top")
    t2 = time.perf_counter()
    lay = top.flit_layout
    spec = {"P": top.n_ports, "V": ev["V"], "router": ev["router"],
            "fields": {f: [lay[f].offset, lay[f].width] for f in lay.members},
            **{k: ev[k] for k in ("arrivals", "credits_in", "expected_out", "expected_credits", "topo")}}
    verdict = replay(verilog, "router_top", "radixnet.cosim.tb_router", spec, sim=sim, waves=waves,
                     build_root=build_root, verbose=verbose, progress=progress)
    verdict.update(stall_cycles=ev["stall_cycles"], max_source_queue=ev["max_source_queue"])
    verdict["idle"] = idle_counters(verdict)
    by_id = {p["id"]: p for p in ev["packets"]}
    for m in verdict["first"]:
        p = by_id.get(m["id"], {"src": -1, "dst": -1, "created": -1, "hops": []})  # id -1: not a golden flit
        m.update(src=p["src"], dst=p["dst"], created=p["created"], golden_path=p["hops"])
    verdict.update(router=ev["router"], golden_s=t1 - t0, verilog_s=t2 - t1, verilog_bytes=len(verilog))
    return verdict
