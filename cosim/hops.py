"""Every hop of the RTL against the golden trace, the backpressure counters and the coverage bins.

The network and switch tops built with ``observe=True``
(:class:`radixnet.hdl.network.NetworkTop`) bring out every router's links
(``out_valid_op`` / ``out_flit_op``), the credits it returns for its input VCs
(``credit_out_ip_ivc``) and the grants of the allocator that takes its routing
decisions. A testbench feeds them, cycle by cycle, to a :class:`HopTracker`,
which reconstructs what the RTL did with every flit at every router:

* a flit **arrives** at input ``(r, p)`` on VC ``v`` in the cycle the upstream
  router (or the terminal) sends it, and waits in the FIFO of input VC
  ``(r, p, v)``;
* the credit router ``r`` returns for ``(p, v)`` in cycle ``c`` frees the slot of
  the FIFO's oldest flit: that flit was **granted** in ``c - credit_delay``
  (router-spec §R2, §R10: the slot is freed at the grant, its credit leaves
  ``credit_delay`` cycles later);
* the flit **leaves** on output ``o`` of ``r`` in the cycle ``out_valid_op[o]``
  carries it, with its output VC and the header the router wrote (§R4:
  ``hops``, ``phase``, ``decided``, ``inter``, ``h1``): the §R9 ``sent`` cycle.

So every hop of every packet is known as the RTL made it -- router, output
port, output VC, grant cycle, link cycle and header -- and is compared with
the golden model's §R9 record (:func:`compare_path`). Body flits must follow
their head hop for hop (wormhole, §R5). Nothing inside the routers is read for
this but the decision grants, which only the coverage bins use.

Counters (:meth:`HopTracker.counters`), all observed at the ports:

* ``full_buffer_cycles``: cycles at whose start some input VC buffer held ``B``
  flits (a full buffer: its upstream had no credit for it);
* ``credit_zero_cycles``: cycles at whose start some output VC had no credit
  (§R2: a network output's ``B``; with ``E >= 1`` an ejection port's ``E``,
  §R3a);
* the testbenches add ``stall_cycles`` (a source offered a flit and its
  injection VC had no credit) and ``max_source_queue``.

A run in which one of ``stall_cycles``, ``full_buffer_cycles`` and
``credit_zero_cycles`` is 0 never exercised backpressure: :func:`idle_counters`
names it, and ``radixnet cosim`` refuses such a run unless ``--allow-idle``.

Coverage bins (:meth:`HopTracker.coverage`), per configuration:

* ``input_vc``: every VC of every input port granted, over the ports and VC
  classes that carried traffic (a class the traffic never brought to a port
  is no bin: the golden comparison, not the bins, says whether it should have);
* ``contention``: every output that the traffic reached from at least two
  input ports, with packets of at least two sources (an output fed by one
  input, or by one source's stream -- an ejection port under a permutation --
  has nothing to arbitrate between: ``single_input`` counts them) granted a flit,
  at least once, in a cycle in which at least two input ports had a flit ready
  for it (arrived
  before the cycle, at the front of its VC, its output VC with a credit): its
  arbiter chose among two requesters (§R6). Under ``iq`` an output arbitrates
  twice (§R10.1): in VA among heads (the decision ports give their VA cycles)
  and in SA among flits bound to it (a head from the cycle after its VA grant);
  either counts;
* ``vc_class``: every VC class of the routing taken by some network hop (§R5;
  n/a where the observed routers have no network output, e.g. a one-router
  switch);
* ``adaptive``: an adaptive routing took both branches of its choice: the
  minimal and the non-minimal route (``ugal``, ``ugal-s``, ``clos-ad``: the
  header's ``phase`` as the head leaves its source router, 1 minimal, 0 via the
  intermediate; ``2dfb-adaptive``: a hop that set the priority flag ``h1``),
  or for ``min-ad`` (all routes minimal) the dimension-order hop and another
  productive dimension;
* ``sequential`` (``ugal-s``, ``clos-ad``, ``2dfb-adaptive``, §R6 sequential):
  a head decided after an earlier grant of the same cycle, in the allocator's
  service order, took one of the outputs its decision compares (the minimal
  next hop, UGAL's non-minimal one, CLOS AD's and the 2DFB's neighbours in the
  dimensions it may use): the state the decision saw had that grant's ``q + 1``
  and VC in it.

Examples
--------
>>> topo = {"radix": [3, 3], "V": 1, "B": 2, "E": 0, "K": 1, "S": 1, "credit_delay": 0,
...         "link": [[None, None, [1, 2]], [None, None, [0, 2]]], "eject": [[0, 1, None], [2, 3, None]],
...         "inj": [[0, 0], [0, 1], [1, 0], [1, 1]], "routing": None}
>>> fields = {"head": [0, 1], "tail": [1, 1], "vc": [2, 1], "hops": [3, 8], "phase": [11, 1],
...           "decided": [12, 1], "inter": [13, 1], "h1": [14, 1], "data": [15, 8]}
>>> tr = HopTracker(topo, fields, ident=lambda x: ((x >> 15) & 255, 0))
>>> f = lambda pid, hops=0: 1 | 2 | hops << 3 | pid << 15
>>> tr.inject(0, 0, f(7))                    # packet 7 from terminal 0 at router 0, input port 0
>>> tr.credits(1, 0, 0, 1); tr.send(1, 0, 2, f(7, 1))         # granted and sent to router 1 in cycle 1
>>> tr.credits(2, 1, 2, 1); tr.send(2, 1, 1, f(7, 1))         # granted at router 1, ejected on port 1
>>> [h[:5] for h in tr.path(7)]
[[0, 2, 0, 1, 1], [1, 1, 0, 2, 2]]
>>> compare_path(tr.path(7), [[0, 2, 0, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 2, 2, 1, 0, 0, 0, 0]])
>>> compare_path(tr.path(7), [[0, 2, 0, 1, 1, 1, 0, 0, 0, 0], [1, 1, 0, 2, 2, 2, 0, 0, 0, 0]])
(1, 2, 'hop 1 at router 1: header hops 1, golden 2')
"""

from __future__ import annotations

from collections import defaultdict, deque

from ..hdl.router import SEQUENTIAL

__all__ = ["HopTracker", "ObsPorts", "compare_path", "idle_counters", "missed_bins", "expected_paths",
           "observe_topology", "HEADER_FIELDS", "BACKPRESSURE_COUNTERS", "SEQUENTIAL_BIN", "describe_hop"]

#: header fields compared at every hop, in the order of a path row after ``[router, port, vc, grant, sent]``
HEADER_FIELDS = ("hops", "phase", "decided", "inter", "h1")
#: the counters a run must make non-zero to have exercised backpressure (the vacuity rule)
BACKPRESSURE_COUNTERS = ("stall_cycles", "full_buffer_cycles", "credit_zero_cycles")
#: routings whose allocator is sequential (§R6), which have the ``sequential`` bin
SEQUENTIAL_BIN = tuple(SEQUENTIAL)
#: routings with a minimal / non-minimal choice (the ``adaptive`` bin's two branches)
NONMINIMAL_CHOICE = ("ugal", "ugal-s", "clos-ad", "2dfb-adaptive")


def _get(fields, x: int, name: str) -> int:
    off, w = fields[name]
    return (x >> off) & ((1 << w) - 1)


def describe_hop(row) -> str:
    """``r<router>.p<port> vc<vc> @<grant>`` of a path row, and its link cycle when later than the grant."""
    s = f"r{row[0]}.p{row[1]} vc{row[2]} @{row[3]}"
    return s + (f" (link @{row[4]})" if row[4] is not None and row[3] is not None and row[4] != row[3] else "")


class _Flit:
    """One flit as the RTL moved it: per router it visited, its grant and its link departure."""

    __slots__ = ("pid", "idx", "head", "tail", "grants", "sends")

    def __init__(self, pid, idx, head, tail):
        self.pid, self.idx, self.head, self.tail = pid, idx, head, tail
        self.grants = []   # (router, in port, in vc, grant cycle, arrival cycle, front-from cycle)
        self.sends = []    # (router, out port, out vc, link cycle, header tuple)


class HopTracker:
    """What the RTL did with every flit, from the observation ports (module docstring).

    Parameters
    ----------
    topo : dict
        :func:`observe_topology`: ``radix`` per router, ``link[r][o]`` ``[dst router, dst port]`` or None,
        ``eject[r][o]`` the terminal or None, ``inj[t]`` ``[router, port]``, ``V``, ``B``, ``E``, ``K``
        (VC classes), ``S``, ``credit_delay``, ``routing`` (the RTL's decided routing or None) and, for
        the bins of adaptive routings, ``coords``, ``port_dim`` and ``dor``.
    fields : dict
        The flit's fields, name -> ``[offset, width]``.
    ident : callable
        ``ident(flit) -> (packet id, flit index)`` or None when the flit does not say (then it is the
        next flit of the packet its link VC or terminal is carrying: wormhole, §R5).
    """

    def __init__(self, topo: dict, fields: dict, ident):
        self.topo, self.fields, self.ident = topo, {k: tuple(v) for k, v in fields.items()}, ident
        self.d_cr = int(topo.get("credit_delay", 0))
        #: per (router, input port) fed by an observed link, the (router, output port) upstream
        self.in_link = {tuple(d): (r, o) for r, row in enumerate(topo["link"]) for o, d in enumerate(row)
                        if d is not None}
        #: per router, per output: does it take credits (a network output, or with E >= 1 an ejection port)
        self.credited = topo.get("credited") or [[d is not None or bool(topo.get("E")) for d in row]
                                                 for row in topo["link"]]
        #: per router, per output: a network output (a hop that counts, §R8a)
        self.net_out = topo.get("net_out") or [[d is not None for d in row] for row in topo["link"]]
        #: the network's id of each observed router (router level: the one router under test; else the identity)
        self.global_id = list(topo.get("router_ids") or range(len(topo["radix"])))
        self.fifo = defaultdict(deque)     # (r, p, v) -> deque of [flit, arrival cycle]
        self.front_from = {}               # (r, p, v) -> cycle the FIFO's front flit became the front
        self.n_second = 0                  # flits that left from behind their VC's front (router-spec §R11.9)
        self.stream = {}                   # link VC or terminal -> (pid, next flit index)
        self.flits = {}                    # (pid, idx) -> _Flit
        self.ret_events = defaultdict(list)   # (r, o, v) -> cycles a credit came back (usable the next cycle)
        self.decisions = []                # (t, r, [(p, s, ivc, op), ...])
        self.errors = []                   # protocol surprises (a credit with an empty FIFO, an unknown flit)
        self.last = 0

    # ---------------------------------------------------------------------------------- observations
    def _flit(self, key, x: int) -> _Flit | None:
        head, tail = _get(self.fields, x, "head"), _get(self.fields, x, "tail")
        got = self.ident(x)
        if got is None:
            got = self.stream.get(key)
            if got is None:
                self.errors.append(f"a body flit on {key} with no packet open there")
                return None
        pid, idx = got
        if not tail and key is not None:
            self.stream[key] = (pid, idx + 1)
        elif key is not None:
            self.stream.pop(key, None)
        f = self.flits.get((pid, idx))
        if f is None:
            f = self.flits[(pid, idx)] = _Flit(pid, idx, head, tail)
        return f

    def _push(self, t: int, r: int, p: int, v: int, f: _Flit) -> None:
        q = self.fifo[(r, p, v)]
        if not q:
            self.front_from[(r, p, v)] = t + 1
        q.append([f, t])

    def inject(self, t: int, term: int, x: int) -> None:
        """Terminal ``term`` sent flit ``x`` into its injection port in cycle ``t``."""
        r, p = self.topo["inj"][term]
        f = self._flit(("inj", term), x)
        if f is not None:
            self._push(t, r, p, _get(self.fields, x, "vc"), f)
        self.last = max(self.last, t)

    def arrive(self, t: int, r: int, p: int, x: int) -> None:
        """Flit ``x`` arrived on input ``(r, p)`` in cycle ``t`` from outside the observed routers (router level)."""
        f = self._flit(("in", r, p, _get(self.fields, x, "vc")), x)
        if f is not None:
            self._push(t, r, p, _get(self.fields, x, "vc"), f)
        self.last = max(self.last, t)

    def credits(self, t: int, r: int, p: int, bits: int, second: int = 0) -> None:
        """Router ``r`` returned, in cycle ``t``, a credit for VC ``v`` of input ``p`` per bit ``v`` set in ``bits``;
        with bit ``v`` of ``second`` set, for the flit behind the VC's front, which stays (router-spec §R11.9).

        Call before the cycle's :meth:`send` / :meth:`inject` (a flit arriving in ``t`` is granted ``t + 1`` at
        the earliest).
        """
        g = t - self.d_cr
        link = self.in_link.get((r, p))
        while bits:
            v = (bits & -bits).bit_length() - 1
            bits &= bits - 1
            q = self.fifo[(r, p, v)]
            if not q:
                self.errors.append(f"router {r} returned a credit for input {p} VC {v} in cycle {t} with no flit there")
                continue
            if (second >> v) & 1:   # the second flit left; the front stays
                if len(q) < 2:
                    self.errors.append(f"router {r} returned a credit for the second flit of input {p} VC {v} in "
                                       f"cycle {t} with {len(q)} flit(s) there")
                    continue
                f, a = q[1]
                del q[1]
                self.n_second += 1
                f.grants.append((r, p, v, g, a, max(self.front_from[(r, p, v)], a + 1)))
            else:
                f, a = q.popleft()
                f.grants.append((r, p, v, g, a, self.front_from[(r, p, v)]))
                self.front_from[(r, p, v)] = max(g + 1, q[0][1] + 1) if q else None
            if link is not None:   # the upstream router counts the credit from t + 1 (Tl = 1, §R2)
                self.ret_events[(link[0], link[1], v)].append(t)
        self.last = max(self.last, t)

    def send(self, t: int, r: int, o: int, x: int) -> None:
        """Router ``r`` sent flit ``x`` on output ``o`` in cycle ``t`` (downstream it arrives, §R8a)."""
        vc = _get(self.fields, x, "vc")
        f = self._flit(("out", r, o, vc), x)
        if f is None:
            return
        hdr = tuple(_get(self.fields, x, k) for k in HEADER_FIELDS if k in self.fields)
        f.sends.append((r, o, vc, t, hdr))
        link = self.topo["link"][r][o]
        if link is not None:
            self._push(t, link[0], link[1], vc, f)
        self.last = max(self.last, t)

    def credit_return(self, t: int, r: int, o: int, v: int = 0) -> None:
        """A credit for output VC ``(r, o, v)`` came back in cycle ``t`` from outside the observed routers: an
        egress FIFO's sink took a flit (§R3a), or at router level the driven ``credit_in_op_ovc``."""
        self.ret_events[(r, o, v)].append(t)

    def decide(self, t: int, r: int, lanes) -> None:
        """Router ``r``'s deciding allocator granted ``lanes`` (``(in port, lane, in vc, out port)``) in cycle ``t``."""
        self.decisions.append((t, r, list(lanes)))

    # ---------------------------------------------------------------------------------- results
    def path(self, pid: int, idx: int = 0) -> list:
        """Flit ``idx`` of packet ``pid`` as the RTL moved it: per router visited, ``[router, out port, out vc,
        grant cycle, link cycle, *header]`` (:data:`HEADER_FIELDS`; None where the RTL showed nothing)."""
        f = self.flits.get((pid, idx))
        if f is None:
            return []
        rows = []
        for j in range(max(len(f.grants), len(f.sends))):
            g = f.grants[j] if j < len(f.grants) else None
            s = f.sends[j] if j < len(f.sends) else None
            r = s[0] if s is not None else g[0]
            grant = g[3] if g is not None and g[0] == r else None
            rows.append([r, s[1] if s else None, s[2] if s else None, grant, s[3] if s else None,
                         *(s[4] if s else [None] * len(HEADER_FIELDS))])
        return rows

    def body_problems(self, pid: int, length: int) -> list:
        """Flits of packet ``pid`` (``length`` flits) that did not follow its head router for router (§R5)."""
        head = [(s[0], s[1], s[2]) for s in self.flits[(pid, 0)].sends] if (pid, 0) in self.flits else []
        out = []
        for i in range(1, length):
            f = self.flits.get((pid, i))
            got = [(s[0], s[1], s[2]) for s in f.sends] if f else []
            if got != head:
                out.append(f"flit {i} took {['r%d.p%d vc%d' % h for h in got]}, its head "
                           f"{['r%d.p%d vc%d' % h for h in head]}")
                break
        return out

    def _hops(self):
        """Every (flit, grant, send) of a router visit: ``(f, j, grant, send)``."""
        for f in self.flits.values():
            for j in range(min(len(f.grants), len(f.sends))):
                if f.grants[j][0] == f.sends[j][0]:
                    yield f, j, f.grants[j], f.sends[j]

    def counters(self, n_cycles: int | None = None) -> dict:
        """``full_buffer_cycles`` and ``credit_zero_cycles`` over cycles ``[0, n_cycles)`` (module docstring)."""
        import numpy as np

        n = (self.last + 2) if n_cycles is None else n_cycles
        B, E = int(self.topo["B"]), int(self.topo.get("E", 0))
        full = np.zeros(n, bool)
        zero = np.zeros(n, bool)
        buf = defaultdict(list)     # (r, p, v) -> [(effective cycle, delta)]
        cred = defaultdict(list)    # (r, o, v) -> [(effective cycle, delta)]
        for f, j, g, s in self._hops():
            buf[(g[0], g[1], g[2])] += [(g[4] + 1, 1), (g[3] + 1, -1)]
            if self.credited[s[0]][s[1]]:
                cred[(s[0], s[1], s[2])].append((g[3] + 1, -1))
        for (r, p, v), q in self.fifo.items():   # flits still buffered at the end
            buf[(r, p, v)] += [(a + 1, 1) for _, a in q]
        for key, cycles in self.ret_events.items():
            cred[key] += [(c + 1, 1) for c in cycles]

        def levels(events, start):
            d = np.zeros(n + 1, np.int64)
            for c, x in events:
                if c < n:
                    d[c] += x
            return start + np.cumsum(d[:n])

        for ev in buf.values():
            full |= levels(ev, 0) >= B
        for (r, o, v), ev in cred.items():
            if self.credited[r][o]:
                zero |= levels(ev, B if self.net_out[r][o] else E) <= 0
        return {"full_buffer_cycles": int(full.sum()), "credit_zero_cycles": int(zero.sum())}

    def coverage(self, packets: dict | None = None) -> dict:
        """The coverage bins (module docstring): per bin family, ``hit``, ``total`` and the ``missed`` bins by name,
        or ``"n/a"`` with the reason where the configuration has none.

        ``packets`` (id -> ``(src terminal, dst terminal, inter)``) is needed for the ``adaptive`` and
        ``sequential`` bins.
        """
        topo = self.topo
        V, K = int(topo["V"]), int(topo["K"])
        vpc = V // K
        routing = topo.get("routing")
        out = {}

        # ---- input VCs: every VC of each (port, class) that carried a flit
        granted = defaultdict(set)   # (r, p, class or -1 for an injection port) -> VCs granted
        inj = {tuple(x) for x in topo["inj"]}
        for f, j, g, s in self._hops():
            r, p, v = g[0], g[1], g[2]
            granted[(r, p, -1 if (r, p) in inj else v // vpc)].add(v)
        bins, missed = 0, []
        for (r, p, k), vs in sorted(granted.items()):
            want = range(V) if k < 0 else range(k * vpc, (k + 1) * vpc)
            bins += len(want)
            missed += [f"r{r}.p{p} vc{v}" for v in want if v not in vs]
        out["input_vc"] = {"hit": bins - len(missed), "total": bins, "missed": missed}

        # ---- outputs arbitrated among at least two ready inputs
        out["contention"] = self._contention(packets)

        # ---- VC classes taken on network hops
        classes = set()
        for f, j, g, s in self._hops():
            if self.net_out[s[0]][s[1]]:
                classes.add(s[2] // vpc)
        missed = [f"class {k}" for k in range(K) if k not in classes]
        if not any(any(row) for row in self.net_out):
            out["vc_class"] = {"n/a": "no network output: no hop takes a VC class"}
        else:
            out["vc_class"] = {"hit": K - len(missed), "total": K, "missed": missed}

        # ---- a second head that left from behind its VC's front, which stayed (router-spec §R11.9)
        if int(topo.get("heads", 1)) > 1:
            if any(not (f.head and f.tail) for f in self.flits.values()):
                out["second_head"] = {"n/a": "packets longer than a flit: the flit behind a head is its body"}
            else:
                out["second_head"] = {"hit": int(self.n_second > 0), "total": 1, "passed": self.n_second,
                                      "missed": [] if self.n_second else ["a flit leaving from behind its VC's front"]}

        # ---- both branches of an adaptive choice
        if routing in NONMINIMAL_CHOICE or routing == "min-ad":
            out["adaptive"] = self._adaptive(routing, packets or {})
        else:
            out["adaptive"] = {"n/a": f"{routing or 'table'} routing has no adaptive choice"}

        # ---- the sequential allocator deciding on the state an earlier grant of its cycle left
        if routing in SEQUENTIAL_BIN:
            out["sequential"] = self._sequential(routing, packets or {})
        else:
            out["sequential"] = {"n/a": f"{routing or 'table'} routing uses the separable allocator"}
        return out

    def _ready_intervals(self):
        """Per arbitration a flit went through, ``(stage, router, in port, out port, out vc, first ready cycle,
        grant cycle, packet id)``: the cycles it was at the front of its input VC, had arrived before the cycle and waited
        for that stage's grant. ``single-cycle``: one stage (``"sw"``). ``iq`` (§R10.1): a head's VA (``"va"``,
        until the VA grant the decision ports show) and every flit's SA (``"sw"``; a head from the cycle after
        its VA grant)."""
        iq = self.topo.get("iq")
        va = defaultdict(list)   # (r, p, v) -> VA grant cycles, in order: the k-th is the k-th head's there
        if iq:
            for t, r, lanes in self.decisions:
                for p, s, ivc, op in lanes:
                    va[(r, p, ivc)].append(t)
        heads_seen = defaultdict(int)
        rows = []
        for f, j, g, s in sorted(self._hops(), key=lambda x: x[2][3]):
            r, p, v, gc, a, front = g
            lo = max(a + 1, front if front is not None else a + 1)
            if iq and f.head:
                k = heads_seen[(r, p, v)]
                heads_seen[(r, p, v)] += 1
                cyc = va.get((r, p, v), [])
                if k < len(cyc):
                    rows.append(("va", r, p, s[1], s[2], lo, cyc[k], f.pid))
                    lo = max(lo, cyc[k] + 1)
            rows.append(("sw", r, p, s[1], s[2], lo, gc, f.pid))
        return rows

    def _credit_ok(self):
        """A function ``ok(r, o, v, t)``: output VC ``(r, o, v)`` had a credit at the start of cycle ``t``."""
        B, E = int(self.topo["B"]), int(self.topo.get("E", 0))
        takes = defaultdict(list)
        for f, j, g, s in self._hops():
            takes[(s[0], s[1], s[2])].append(g[3])
        import bisect
        tk = {k: sorted(v) for k, v in takes.items()}
        rt = {k: sorted(v) for k, v in self.ret_events.items()}

        def ok(r, o, v, t):
            if not self.credited[r][o]:
                return True
            cap = B if self.net_out[r][o] else E
            return cap - bisect.bisect_left(tk.get((r, o, v), []), t) + bisect.bisect_left(rt.get((r, o, v), []), t) > 0
        return ok

    def _contention(self, packets: dict | None) -> dict:
        ok = self._credit_ok()
        ready = defaultdict(lambda: defaultdict(set))   # (r, o) -> (stage, cycle) -> input ports with a ready flit
        grants = defaultdict(set)                       # (r, o) -> (stage, cycle) of its grants
        fed = defaultdict(set)                          # (r, o) -> input ports it granted over the run
        srcs = defaultdict(set)                         # (r, o) -> source terminals of the packets it granted
        for stage, r, p, o, v, lo, gc, pid in self._ready_intervals():
            grants[(r, o)].add((stage, gc))
            fed[(r, o)].add(p)
            if packets and pid in packets:
                srcs[(r, o)].add(packets[pid][0])
            for t in range(lo, gc + 1):
                if ok(r, o, v, t):
                    ready[(r, o)][(stage, t)].add(p)
        bins = [k for k in sorted(grants) if len(fed[k]) >= 2 and (not packets or len(srcs[k]) >= 2)]
        missed = [f"r{r}.o{o}" for r, o in bins
                  if not any(len(ready[(r, o)].get(x, ())) >= 2 for x in grants[(r, o)])]
        return {"hit": len(bins) - len(missed), "total": len(bins), "missed": missed,
                "single_input": len(grants) - len(bins)}

    def _adaptive(self, routing: str, packets: dict) -> dict:
        topo = self.topo
        ej_router, gid = topo["ej_router"], self.global_id
        branch = {}
        if routing == "min-ad":   # per hop with two productive dimensions: dimension order or not
            coords, pdim = topo["coords"], topo["port_dim"]
            if len(coords[0]) < 2:
                return {"n/a": "min-ad on a one-dimension network has one productive channel: no choice of "
                               "dimension"}
            names = ("dimension order", "other productive dimension")
            for f in self.flits.values():
                if not f.head or f.pid not in packets:
                    continue
                d = ej_router[packets[f.pid][1]]
                for r, o, vc, t, hdr in f.sends:
                    g = gid[r]
                    diff = [j for j, (a, b) in enumerate(zip(coords[g], coords[d])) if a != b]
                    if len(diff) >= 2 and pdim[g][o] >= 0:
                        branch[names[pdim[g][o] != diff[0]]] = True
        else:   # the decision as the RTL wrote it into the header (§R4, §R7, §R7b)
            names = ("minimal", "non-minimal")
            ph, h1 = HEADER_FIELDS.index("phase"), HEADER_FIELDS.index("h1")
            for f in self.flits.values():
                if not f.head or not f.sends or not self.net_out[f.sends[0][0]][f.sends[0][1]]:
                    continue
                if routing != "2dfb-adaptive" and not self.at_source(f, packets, f.sends[0][0]):
                    continue   # UGAL / CLOS AD decide at the source router (§R7): a packet seen after it is not
                if routing == "2dfb-adaptive":   # a non-minimal hop sets the priority flag h1
                    branch[names[any(s[4][h1] for s in f.sends)]] = True
                else:                            # UGAL / CLOS AD: phase 0 leaving the source = via b
                    branch[names[f.sends[0][4][ph] == 0]] = True
        missed = [n for n in names if n not in branch]
        return {"hit": 2 - len(missed), "total": 2, "missed": missed}

    def at_source(self, f, packets: dict, r: int) -> bool:
        """Whether observed router ``r`` is flit ``f``'s source router (where UGAL and CLOS AD decide, §R7):
        from the packet's source terminal when the network's injection routers are known
        (``topo["inj_router"]``: router level, where the router sees packets from upstream too), else from
        the flit's first grant (the network level sees every hop)."""
        inj_router = self.topo.get("inj_router")
        if inj_router is None:
            return bool(f.grants) and f.grants[0][0] == r
        return f.pid in packets and inj_router[packets[f.pid][0]] == self.global_id[r]

    def _candidates(self, routing: str, c: int, d: int, b: int) -> set:
        """The outputs a head's decision at router ``c`` (destination router ``d``, intermediate ``b``) compares."""
        topo = self.topo
        coords, pdim, dor = topo["coords"], topo["port_dim"], topo["dor"]
        c = self.global_id[c]   # the routers' global ids index coords, port_dim and dor; ports are the router's own
        if c == d:
            return set()
        if routing == "ugal-s":
            return {dor[c][d]} | ({dor[c][b]} if b not in (c, d) else set())
        diff = [j for j, (x, y) in enumerate(zip(coords[c], coords[d])) if x != y]
        if routing == "clos-ad":
            return {o for o, j in enumerate(pdim[c]) if 0 <= j <= max(diff)}
        return {o for o, j in enumerate(pdim[c]) if j in diff}   # 2dfb-adaptive

    def _sequential(self, routing: str, packets: dict) -> dict:
        """Decisions whose state held an earlier grant of their cycle on an output they compare (§R6)."""
        topo = self.topo
        radix, ej_router = topo["radix"], topo["ej_router"]
        front = self._fronts()
        hits = 0
        for t, r, lanes in self.decisions:
            if len(lanes) < 2:
                continue
            P = radix[r]
            # service order: inputs from (the deciding cycle) mod P
            t0 = t - topo.get("decide_lag", 0)
            order = sorted(lanes, key=lambda x: ((x[0] - t0) % P, x[1]))
            for j in range(1, len(order)):
                p, s, ivc, op = order[j]
                f = front(r, p, ivc, t)
                if f is None or not f.head or f.pid not in packets:
                    continue
                if routing != "2dfb-adaptive" and not self.at_source(f, packets, r):
                    continue   # ugal-s / clos-ad decide at the source router only (§R7)
                src, dst, inter = packets[f.pid]
                cand = self._candidates(routing, r, ej_router[dst], inter)
                if any(order[i][3] in cand for i in range(j)):
                    hits += 1
        missed = [] if hits else ["a decision after an earlier grant of its cycle on an output it compares"]
        return {"hit": 1 - len(missed), "total": 1, "missed": missed, "decisions": hits}

    def _fronts(self):
        """``front(r, p, v, t)``: the flit at the front of input VC ``(r, p, v)`` at the start of cycle ``t``."""
        import bisect
        per = defaultdict(list)   # (r, p, v) -> [(front from, grant, flit)] in FIFO order
        for f, j, g, s in self._hops():
            per[(g[0], g[1], g[2])].append((g[5], g[3], f))
        for k in per:
            per[k].sort(key=lambda x: x[1])
        ends = {k: [x[1] for x in v] for k, v in per.items()}

        def front(r, p, v, t):
            rows = per.get((r, p, v))
            if not rows:
                return None
            i = bisect.bisect_left(ends[(r, p, v)], t)   # the first flit not granted before t
            return rows[i][2] if i < len(rows) and rows[i][0] is not None and rows[i][0] <= t else None
        return front


def compare_path(rtl: list, golden: list):
    """The first hop at which the RTL's path differs from the golden one, or None when every hop agrees.

    Parameters
    ----------
    rtl, golden : list of list
        Rows ``[router, out port, out vc, grant cycle, link cycle, hops, phase, decided, inter, h1]``:
        :meth:`HopTracker.path` and :func:`expected_paths`.

    Returns
    -------
    tuple or None
        ``(hop index, cycle by which the two sides diverged, what differed)``.
    """
    names = ("router", "out port", "out vc", "grant", "link cycle") + tuple(f"header {h}" for h in HEADER_FIELDS)
    for j in range(max(len(rtl), len(golden))):
        if j >= len(golden):
            row = rtl[j]
            return j, min(c for c in (row[3], row[4]) if c is not None), \
                f"hop {j}: the RTL took an extra hop {describe_hop(row)}, the golden path ended"
        g = golden[j]
        if j >= len(rtl):
            return j, g[3], f"hop {j} at router {g[0]}: the RTL never made it (golden {describe_hop(g)})"
        row = rtl[j]
        for i, name in enumerate(names):
            if i >= len(g):
                break
            if row[i] != g[i]:
                cycles = [c for c in (row[3], row[4], g[3]) if c is not None]
                if i < 5:
                    what = f"hop {j}: RTL {describe_hop(row)}, golden {describe_hop(g)} ({name} differs)"
                else:
                    what = f"hop {j} at router {g[0]}: {name} {row[i]}, golden {g[i]}"
                return j, min(cycles), what
    return None


def idle_counters(verdict: dict) -> list:
    """The backpressure counters (:data:`BACKPRESSURE_COUNTERS`) that are 0 in ``verdict``: the run is vacuous
    for them (it never made a source wait, a buffer fill or an output run out of credits)."""
    return [k for k in BACKPRESSURE_COUNTERS if k in verdict and not verdict[k]]


def missed_bins(coverage: dict) -> list:
    """The coverage bins a run missed, one string each (``"contention: r0.o3"``); empty when it reached them all."""
    return [f"{family}: {name}" for family, c in coverage.items() for name in c.get("missed", ())]


def expected_paths(packets: list, *, routing: str | None, axis: bool) -> dict:
    """Per golden packet, the path the RTL must take: rows for :func:`compare_path` (router-spec §R9).

    Row ``j`` is the golden hop ``[router, out port, out vc, grant]``, the ``sent`` cycle, and the header the
    head flit leaves with as the RTL's flit fields carry it: ``hops`` (§R8a: ``j + 1`` on a network output,
    ``j`` on the ejection), and the §R9 ``headers[j]`` ``(phase, decided, inter)`` -- for ``2dfb-adaptive``
    the golden ``phase`` is the priority flag ``h1`` (§R7b) and the RTL's ``phase`` stays 0. With AXI4-Stream
    terminals (``axis``) the ingress injects a zero header (hdl/axis.py), so a routing that never writes
    ``inter`` (the table routings, ``min`` and ``min-ad``) carries 0 there instead of the golden draw at
    creation.
    """
    keep_inter = axis and routing in (None, "min", "min-ad")
    out = {}
    for p in packets:
        rows = []
        n = len(p["hops"])
        for j, (h, hdr, sent) in enumerate(zip(p["hops"], p["headers"], p["sent"])):
            phase, decided, inter = hdr
            h1 = 0
            if routing == "2dfb-adaptive":
                phase, h1 = 0, phase
            if keep_inter:
                inter = 0
            rows.append([h[0], h[1], h[2], h[3], sent, j + 1 if j < n - 1 else j, phase, decided, inter, h1])
        out[p["id"]] = rows
    return out


def observe_topology(net, *, V: int, B: int, E: int, K: int, S: int, model, routing: str | None) -> dict:
    """The topology and parameters a :class:`HopTracker` needs (JSON-ready), for the network ``net``.

    ``model`` is the router model (:mod:`radixnet.gen.router_model`), ``K`` the routing's VC classes,
    ``routing`` the routing decided in logic (None: a route table).
    """
    import numpy as np

    pt = net.port_table()
    R = int(net.num_routers)
    radix = [int(x) for x in net.radix]
    link, eject = [], []
    for r in range(R):
        lr, er = [], []
        for o in range(radix[r]):
            c = int(pt["out_channel"][r, o])
            lr.append([int(net.dst[c]), int(net.dst_port[c])] if c >= 0 else None)
            t = int(pt["out_terminal"][r, o])
            er.append(t if t >= 0 else None)
        link.append(lr)
        eject.append(er)
    topo = {"radix": radix, "link": link, "eject": eject, "V": V, "B": B, "E": E, "K": K, "S": S,
            # cycles from a grant (the hop's cycle) to the credit of its slot: hiradix frees the slot at IN, a
            # cycle after ST (router-spec §R11.4)
            "credit_delay": int(model.credit_delay) + int(getattr(model, "split", False)),
            "iq": bool(model.pipelined), "routing": routing, "heads": int(getattr(model, "heads", 1)),
            # cycles from the allocator's decision to the cycle a decision is recorded (hiradix: RI, then ST)
            "decide_lag": 2 if getattr(model, "split", False) else 0,
            "inj": [[int(net.inj_router[t]), int(net.inj_port[t])] for t in range(net.num_terminals)],
            "ej_router": [int(x) for x in net.ej_router]}
    if routing is not None:   # the adaptive bins: coordinates, dimension per port, DOR next hop
        coords = np.asarray(net.coords).reshape(R, -1)
        port_dim = [[-1] * radix[r] for r in range(R)]
        for r in range(R):
            for o in range(radix[r]):
                if link[r][o] is not None:
                    d = np.flatnonzero(coords[r] != coords[link[r][o][0]])
                    port_dim[r][o] = int(d[0]) if d.size else -1
        dor = [[-1] * R for _ in range(R)]
        for c in range(R):
            for x in range(R):
                diff = np.flatnonzero(coords[c] != coords[x])
                if not diff.size:
                    continue
                want = coords[c].copy()
                want[diff[0]] = coords[x][diff[0]]
                dor[c][x] = next(o for o in range(radix[c]) if link[c][o] is not None
                                 and (coords[link[c][o][0]] == want).all())
        topo.update(coords=coords.tolist(), port_dim=port_dim, dor=dor)
    return topo


class ObsPorts:
    """The ``obs_*`` ports of an ``observe`` network or switch top, read once per cycle into a :class:`HopTracker`.

    Parameters
    ----------
    dut : cocotb handle
        The top (:class:`radixnet.hdl.network.NetworkTop` or :class:`radixnet.hdl.switch.AxisSwitchTop`
        built with ``observe=True``).
    topo : dict
        :func:`observe_topology`.
    widths : dict
        The top's ``obs_widths`` (``flit``, ``vw``, ``pw``, ``S``; ``heads`` under ``hiradix-twohead``).
    """

    def __init__(self, dut, topo: dict, widths: dict):
        radix, V = topo["radix"], int(topo["V"])
        self.F, self.S = int(widths["flit"]), int(widths["S"])
        self.vw, self.pw = int(widths["vw"]), int(widths["pw"])
        self.fmask = (1 << self.F) - 1
        self.valid, self.credit = dut.obs_valid_r_op, dut.obs_credit_r_ip_ivc
        # router-spec §R11.9: per credit, whether the flit behind the VC's front left (absent: never)
        self.credit1 = getattr(dut, "obs_credit1_r_ip_ivc", None) if widths.get("heads", 1) > 1 else None
        self.dec = dut.obs_dec_gnt_r_ip_lane
        self.flit = [getattr(dut, f"obs_flit_r{r}_op") for r in range(len(radix))]
        self.dec_r = [getattr(dut, f"obs_dec_r{r}_ip_lane") for r in range(len(radix))]
        self.port = [(r, o) for r, P in enumerate(radix) for o in range(P)]   # global port index -> (r, o)
        self.V = V
        self.vmask = (1 << V) - 1

    def sample(self, t: int, tr: HopTracker) -> None:
        """Feed cycle ``t``'s credits, decision grants and link flits to ``tr`` (call after ``ReadOnly``)."""
        c = int(self.credit.value)
        c1 = int(self.credit1.value) if c and self.credit1 is not None else 0
        V = self.V
        while c:
            low = (c & -c).bit_length() - 1
            gp = low // V
            bits = (c >> (gp * V)) & self.vmask
            c &= ~(self.vmask << (gp * V))
            r, p = self.port[gp]
            tr.credits(t, r, p, bits, (c1 >> (gp * V)) & self.vmask)
        d = int(self.dec.value)
        if d:
            S, D = self.S, self.vw + self.pw
            per = {}
            while d:
                i = (d & -d).bit_length() - 1
                d &= d - 1
                r, p = self.port[i // S]
                per.setdefault(r, []).append((p, i % S))
            for r, lanes in per.items():
                x = int(self.dec_r[r].value)
                out = []
                for p, s in lanes:
                    w = x >> ((p * S + s) * D)
                    out.append((p, s, w & ((1 << self.vw) - 1), (w >> self.vw) & ((1 << self.pw) - 1)))
                tr.decide(t, r, out)
        v = int(self.valid.value)
        last_r, x = -1, 0
        while v:
            i = (v & -v).bit_length() - 1
            v &= v - 1
            r, o = self.port[i]
            if r != last_r:
                x, last_r = int(self.flit[r].value), r
            tr.send(t, r, o, (x >> (o * self.F)) & self.fmask)
