"""Algorithmic route computation on a HyperX-family router (router-spec §R7; Kim, Dally & Abts 2007 §3.1).

On a flattened butterfly, HyperX, 2-dilated flattened butterfly or hypercube
(``radixnet.gen.routing.HYPERX_FAMILIES``) a router's next hop is a function
of its own coordinates and the target's, so the route needs no table: this
unit reads its router's coordinates and port layout from
:func:`radixnet.gen.routing.compile_hyperx` **at elaboration** and builds the
comparisons as logic. It computes, for one head flit:

* the destination router ``d`` from the ``dest`` terminal id (the HyperX
  terminal layout: terminal ``t`` is port ``t mod c`` of router ``t div c``,
  router ``i = sum_j x_j * prod_{e<j} s_e``, gen/families/hyperx.py), its
  coordinate digits, and ``eject`` when ``d`` is this router (then the
  output is the terminal's ejection port ``t mod c``);
* ``diff_dim`` (bit ``j``: ``c_j != d_j``) and ``hops_cd`` = ``H(c, d)``, their
  count (the minimal hop count, §R7);
* the **DOR** next port (``min``, §R7: the lowest differing dimension first,
  lane 0 of the neighbour whose digit is ``d_j``), as a port number
  (``dor_port``) and one-hot over the network ports (``dor_np``);
* the **productive** ports (``prod_np``, Kim §3.1: "a channel in dimension
  ``j`` is productive if ``c_j != d_j`` before traversing the channel, and
  ``c_j = d_j`` after"): every lane toward the neighbour with digit ``d_j``
  in every differing dimension ``j`` (``min-ad``'s candidates);
* for the intermediate router ``b`` of the header (``inter``): the DOR port
  toward ``b`` (``inter_port``, ``inter_np``), ``inter_here`` (``b = c``),
  ``inter_is_dest`` (``b = d``) and ``hops_cbd`` = ``H(c, b) + H(b, d)``
  (``val``/``ugal`` phase 0 and UGAL's non-minimal hop count).

This is ``hop_count``, ``dor_output`` and the productive-dimension loop of
``radixnet.golden.kernel`` as combinational logic.

Network ports
-------------
Signals ending in ``_np`` are indexed by the router's **network output
ports** in port order: entry ``i`` is port ``net_ports[i]`` (the ports with an
outgoing channel; the terminal ports ``0 .. c-1`` and unused spare ports are
not in the list). The decision units of :mod:`radixnet.hdl.route_adaptive`
take their queue lengths and VC availability in the same order.

Widths
------
``dest``: ``ptr_width(T)`` bits (the flit's field) or ``dest_bits``; ``inter``:
``ptr_width(R)``; ports: ``ptr_width(P)``; ``hops_cd``: ``range(D + 1)``;
``hops_cbd``: ``range(2D + 1)``. Digits come from the binary ids by constant
division (``//``, ``%``), or bit slices where the radix is a power of two.
``inter`` must be a router id (``< R``); a ``dest >= T`` clears ``dest_ok``
(the other outputs are then don't-care).

Examples
--------
>>> from radixnet.gen import build
>>> net = build("fbfly", k=3, n=3)        # 9 routers on a 3 x 3 grid, radix 7
>>> rt = HyperXRoute(net, 4)              # router 4 = coordinates (1, 1)
>>> rt.coord, rt.net_ports
((1, 1), (3, 4, 5, 6))
>>> [rt.port_info[p] for p in rt.net_ports]   # (dimension, digit, lane, neighbour)
[(0, 0, 0, 3), (0, 2, 0, 5), (1, 0, 0, 1), (1, 2, 0, 7)]
>>> from radixnet.hdl.verilog import to_verilog
>>> "module hx(" in to_verilog(rt, "hx")
True
>>> HyperXRoute(build("slimfly", q=5), 0)
Traceback (most recent call last):
...
ValueError: HyperXRoute: net (the topology) must be a HyperX-family network (fbfly, hyperx, 2dfb, hypercube), got slimfly
"""

from __future__ import annotations

from types import SimpleNamespace

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

from .arbiter import check_int, mux_onehot, ptr_width, reject

__all__ = ["HyperXRoute", "hyperx_logic", "hyperx_router", "select_onehot"]


def _is_pow2(n: int) -> bool:
    return n & (n - 1) == 0


def _digits(m: Module, value, radices, name: str) -> list[Signal]:
    """Mixed-radix digits of ``value`` (least significant first) for ``radices``.

    Power-of-two radices are bit slices, others a constant ``%`` and ``//``. The last digit is the
    remaining quotient without the final ``%`` (the value is assumed in range).
    """
    out = []
    rest = value
    for i, s in enumerate(radices):
        digit = Signal(ptr_width(s), name=f"{name}_{i}")
        last = i == len(radices) - 1
        if _is_pow2(s):
            k = s.bit_length() - 1
            m.d.comb += digit.eq(rest[:k] if k else 0)
            nxt = rest[k:] if k < len(rest) else Const(0, 1)
        else:
            m.d.comb += digit.eq(rest if last else rest % s)
            nxt = rest // s
        if not last:
            r = Signal(max(1, len(nxt)), name=f"{name}_rest_{i}")
            m.d.comb += r.eq(nxt)
            rest = r
        out.append(digit)
    return out


def _popcount(m: Module, bits, n: int, name: str) -> Signal:
    """Number of set bits of the ``n``-bit value ``bits``."""
    out = Signal(range(n + 1), name=name)
    total = Const(0, 1)
    for i in range(n):
        total = total + bits[i]
    m.d.comb += out.eq(total)
    return out


def select_onehot(m: Module, onehot, values, width: int, name: str) -> Signal:
    """AND-OR multiplexer: the entry of ``values`` whose ``onehot`` bit is set (0 when none).

    ``values`` may mix signals and Python ints (constants).
    """
    out = Signal(width, name=name)
    m.d.comb += out.eq(mux_onehot(onehot, values) if values else Const(0, width))
    return out


class HyperXRoute(wiring.Component):
    """Combinational DOR / productive-port / hop-count logic of one HyperX-family router (§R7).

    Parameters
    ----------
    net : radixnet.gen.Network
        A HyperX-family network (``fbfly``, ``hyperx``, ``2dfb``, ``hypercube``) with at least one
        dimension and the HyperX terminal layout (``c >= 1`` terminals on every router).
    router_id : int
        This router, ``0 <= router_id < R``.
    intermediate : bool
        Build the intermediate-router outputs (``inter`` and the ``inter_*``/``hops_cbd``
        signals); False for routings without one (``min-ad``, ``2dfb-adaptive``).
    dest_bits : int, optional
        Width of ``dest`` (default ``ptr_width(T)``); a value ``>= T`` clears ``dest_ok``.

    Attributes
    ----------
    dest : Signal(dest_bits), in
        Destination terminal of the head flit.
    inter : Signal(ptr_width(R)), in
        Intermediate router ``b`` (only with ``intermediate``; must be ``< R``).
    dest_ok : Signal(1), out
        ``dest < T``.
    eject : Signal(1), out
        ``dest`` is a terminal of this router (and ``dest_ok``).
    dor_port : Signal(ptr_width(P)), out
        The DOR next port toward ``d`` (lane 0), or the ejection port of ``dest`` when ``eject``.
    dor_np : Signal(N), out
        ``dor_port`` one-hot over the network ports (all zero when ``eject``).
    prod_np : Signal(N), out
        Productive network ports (every lane).
    diff_dim : Signal(D), out
        Bit ``j``: ``c_j != d_j``.
    hops_cd : Signal(range(D + 1)), out
        ``H(c, d)``.
    inter_port : Signal(ptr_width(P)), out
        DOR next port toward ``b`` (lane 0; don't-care when ``inter_here``).
    inter_np : Signal(N), out
        ``inter_port`` one-hot (all zero when ``inter_here``).
    inter_here, inter_is_dest : Signal(1), out
        ``b = c``; ``b = d``.
    hops_cbd : Signal(range(2D + 1)), out
        ``H(c, b) + H(b, d)``.

    Examples
    --------
    A binary 3-cube (one terminal per router): router 5 = (1, 0, 1) toward router 2 = (0, 1, 0)
    differs in all three dimensions; DOR corrects dimension 0 first (port 1, to router 4).

    >>> from amaranth.sim import Simulator
    >>> from radixnet.gen import build
    >>> rt = HyperXRoute(build("hypercube", n=3), 5, intermediate=False)
    >>> rt.coord, [(p, rt.port_info[p][3]) for p in rt.net_ports]
    ((1, 0, 1), [(1, 4), (2, 7), (3, 1)])
    >>> async def bench(ctx):
    ...     ctx.set(rt.dest, 2)
    ...     print(ctx.get(rt.hops_cd), ctx.get(rt.dor_port), bin(ctx.get(rt.prod_np)))
    >>> sim = Simulator(rt)
    >>> sim.add_testbench(bench)
    >>> sim.run()
    3 1 0b111
    """

    def __init__(self, net, router_id: int, *, intermediate: bool = True, dest_bits: int | None = None):
        info = hyperx_router(self, net, router_id)
        self.__dict__.update(info)
        if not isinstance(intermediate, bool):
            reject(self, f"intermediate (build the intermediate-router outputs) must be a bool, "
                          f"got {intermediate!r}")
        self.intermediate = intermediate
        if dest_bits is None:
            dest_bits = ptr_width(self.n_terminals)
        self.dest_bits = check_int(self, "dest_bits", "width of the dest input", dest_bits,
                                    ptr_width(self.n_terminals))
        N, D, pw = len(self.net_ports), self.n_dims, ptr_width(self.n_ports)
        members = {
            "dest": In(self.dest_bits),
            "dest_ok": Out(1),
            "eject": Out(1),
            "dor_port": Out(pw),
            "dor_np": Out(N),
            "prod_np": Out(N),
            "diff_dim": Out(D),
            "hops_cd": Out(range(D + 1)),
        }
        if intermediate:
            members |= {
                "inter": In(ptr_width(self.n_routers)),
                "inter_port": Out(pw),
                "inter_np": Out(N),
                "inter_here": Out(1),
                "inter_is_dest": Out(1),
                "hops_cbd": Out(range(2 * D + 1)),
            }
        super().__init__(members)

    def elaborate(self, platform):
        m = Module()
        x = hyperx_logic(m, self, self.dest, self.inter if self.intermediate else None, self.dest_bits)
        names = ["dest_ok", "eject", "dor_port", "dor_np", "prod_np", "diff_dim", "hops_cd"]
        if self.intermediate:
            names += ["inter_port", "inter_np", "inter_here", "inter_is_dest", "hops_cbd"]
        m.d.comb += [getattr(self, k).eq(getattr(x, k)) for k in names]
        return m


def hyperx_logic(m: Module, info, dest, inter, dest_bits: int) -> SimpleNamespace:
    """Build :class:`HyperXRoute`'s logic into ``m`` (the decision units call it inline).

    ``info`` has the attributes of :func:`hyperx_router`; ``inter`` is None to leave out the
    intermediate-router logic. Returns the signals under the port names of :class:`HyperXRoute`.

    Every one-hot DOR bit is ``first_j & eq_i`` (lowest differing dimension ``j`` and the target's
    digit), never a copy of a productive bit, so no two vectors alias each other bit by bit (which
    Verilator would report as a combinational loop, UNOPTFLAT).
    """
    D, N, pw = info.n_dims, len(info.net_ports), ptr_width(info.n_ports)
    own = info.coord
    x = SimpleNamespace()
    # destination terminal -> (port on its router, digits of its router)
    tdig = _digits(m, dest, [info.conc, *info.dims], "dest_digit")
    ej_port, dx = tdig[0], tdig[1:]
    x.dest_ok = Signal(name="dest_ok_int")
    m.d.comb += x.dest_ok.eq(dest < info.n_terminals if (1 << dest_bits) > info.n_terminals else 1)
    x.diff_dim = Signal(D, name="diff_dim_int")
    m.d.comb += x.diff_dim.eq(Cat(*[dx[j] != own[j] for j in range(D)]))
    x.hops_cd = _popcount(m, x.diff_dim, D, "hops_cd_int")
    x.eject = Signal(name="eject_int")
    m.d.comb += x.eject.eq(~x.diff_dim.any() & x.dest_ok)

    def decode(digits, name):
        """eq[i]: the target's digit in port i's dimension is port i's digit (i over network ports)."""
        eq = Signal(N, name=name)
        m.d.comb += eq.eq(Cat(*[digits[info.port_info[p][0]] == info.port_info[p][1] for p in info.net_ports]))
        return eq

    def dor_onehot(eq, dif, name):
        """Lane-0 port of the lowest differing dimension toward the target's digit."""
        first = Signal(D, name=f"{name}_first_dim")
        m.d.comb += first.eq(Cat(*[dif[j] & ~dif[:j].any() if j else dif[0] for j in range(D)]))
        oh = Signal(N, name=name)
        m.d.comb += oh.eq(Cat(*[first[info.port_info[p][0]] & eq[i] if info.port_info[p][2] == 0 else Const(0, 1)
                                for i, p in enumerate(info.net_ports)]))
        return oh

    x.prod_np = decode(dx, "prod_np_int")
    x.dor_np = dor_onehot(x.prod_np, x.diff_dim, "dor_np_int")
    dor_port = select_onehot(m, x.dor_np, list(info.net_ports), pw, "dor_port_net")
    x.dor_port = Signal(pw, name="dor_port_int")
    m.d.comb += x.dor_port.eq(Mux(x.eject, ej_port, dor_port))

    if inter is not None:
        bx = _digits(m, inter, info.dims, "inter_digit")
        diff_cb = Signal(D, name="diff_cb")
        diff_bd = Signal(D, name="diff_bd")
        m.d.comb += diff_cb.eq(Cat(*[bx[j] != own[j] for j in range(D)]))
        m.d.comb += diff_bd.eq(Cat(*[bx[j] != dx[j] for j in range(D)]))
        x.inter_np = dor_onehot(decode(bx, "inter_eq_np"), diff_cb, "inter_np_int")
        x.inter_port = select_onehot(m, x.inter_np, list(info.net_ports), pw, "inter_port_int")
        x.inter_here, x.inter_is_dest = Signal(name="inter_here_int"), Signal(name="inter_is_dest_int")
        x.hops_cbd = Signal(range(2 * D + 1), name="hops_cbd_int")
        m.d.comb += [
            x.inter_here.eq(~diff_cb.any()),
            x.inter_is_dest.eq(~diff_bd.any()),
            x.hops_cbd.eq(_popcount(m, diff_cb, D, "hops_cb") + _popcount(m, diff_bd, D, "hops_bd")),
        ]
    return x


def hyperx_router(owner, net, router_id) -> dict:
    """Elaboration-time facts of router ``router_id`` of a HyperX-family ``net`` (validated).

    Returns a dict with ``router_id``, ``n_routers``, ``n_terminals``, ``n_ports``, ``n_dims``,
    ``dims`` (tuple), ``conc`` (terminals per router), ``coord`` (own digits), ``net_ports`` (network
    output ports in port order), ``np_index`` (port -> index in ``net_ports``), ``port_info`` (port ->
    ``(dimension, digit, lane, neighbour router)``), ``came_from`` (input port -> neighbour router
    feeding it, -1 for terminal/unused ports) and ``lanes`` ((dimension, digit) -> ports of its lanes,
    in lane order). Raises ValueError (via ``reject``) naming the parameter otherwise.
    """
    import numpy as np

    from ..gen.network import Network
    from ..gen.params import ParamError
    from ..gen.routing import HYPERX_FAMILIES, compile_hyperx

    if not isinstance(net, Network):
        reject(owner, f"net (the topology) must be a radixnet.gen.Network, got {net!r}")
    if net.family not in HYPERX_FAMILIES or net.coords is None:
        reject(owner, f"net (the topology) must be a HyperX-family network ({', '.join(HYPERX_FAMILIES)}), "
                       f"got {net.family}")
    R = net.num_routers
    if isinstance(router_id, bool) or not isinstance(router_id, int) or not 0 <= router_id < R:
        reject(owner, f"router_id (this router) must be an int with 0 <= router_id < {R}, got {router_id!r}")
    try:
        t = compile_hyperx(net)
    except ParamError as e:
        reject(owner, f"net (the topology): {e}")
    D = int(net.coords.shape[1])
    if D < 1:
        reject(owner, "net (the topology) must have at least one dimension (a single router needs no route)")
    dims = tuple(int(s) for s in t.dims)
    strides = np.cumprod([1, *dims[:-1]])
    idx = np.arange(R)
    if R != int(np.prod(dims)) or not np.array_equal(t.coords, (idx[:, None] // strides) % np.array(dims)):
        reject(owner, "net (the topology) must number its routers in mixed radix of dims (gen/families/hyperx.py)")
    T = net.num_terminals
    conc = T // R if R else 0
    tt = np.arange(T)
    if T == 0 or T != R * conc or not np.array_equal(t.term_router, tt // conc) or \
            not np.array_equal(t.eject_port, tt % conc):
        reject(owner, "net (the topology) must carry c >= 1 terminals on every router, terminal t on port "
                       "t mod c of router t div c (the HyperX layout)")
    pt = net.port_table()
    P = int(net.radix[router_id])
    port_info, lanes = {}, {}
    for j in range(D):
        for dig in range(dims[j]):
            for ln in range(t.port_lanes.shape[3]):
                p = int(t.port_lanes[router_id, j, dig, ln])
                if p < 0:
                    continue
                nb = int(net.dst[pt["out_channel"][router_id, p]])
                port_info[p] = (j, dig, ln, nb)
                lanes.setdefault((j, dig), []).append(p)
    net_ports = tuple(sorted(port_info))
    came = tuple(int(net.src[c]) if c >= 0 else -1 for c in pt["in_channel"][router_id, :P])
    return dict(router_id=router_id, n_routers=R, n_terminals=T, n_ports=P, n_dims=D, dims=dims, conc=conc,
                coord=tuple(int(x) for x in t.coords[router_id]), net_ports=net_ports,
                np_index={p: i for i, p in enumerate(net_ports)}, port_info=port_info, came_from=came,
                lanes={k: tuple(v) for k, v in lanes.items()})
