"""Table-driven route computation of one router (router-spec §R7a, routing ``sp``; §R5 VC classes).

For a head flit with destination terminal ``dest`` at router ``router_id``:

* at the destination router (``term_router[dest] == router_id``) the output
  is the terminal's ejection port ``eject_port[dest]`` (``eject = 1``; the
  ejection port has one implicit VC, so ``cls`` is don't-care, §R5);
* otherwise it is ``next_port_row[term_router[dest]]``, this router's row of
  :attr:`radixnet.gen.routing.RouteTable.next_port` (``compile_table``), and
  the VC class is ``min(hops, n_classes - 1)`` (§R7a).

This is the ``TABLE`` branch of ``_decide`` in ``radixnet.golden.kernel``
without the output VC choice, which :class:`~radixnet.hdl.vc_select.OutputVCSelect`
makes from ``cls`` and the output's credits.

ROM
---
The two lookups (terminal -> router -> port) are folded at elaboration into
**one ROM indexed by** ``dest``: word ``t`` is ``{ok, eject, port}`` for
terminal ``t`` (``ok = 0`` where the table has no route, ``next_port = -1``,
and for the padding words past the last terminal). It is an
``amaranth.lib.memory.Memory`` with ``init`` and a single asynchronous read
port (``domain="comb"``) and no write port: a ROM of ``2**ptr_width(T)``
words of ``ptr_width(P) + 2`` bits (a 200-terminal Slim Fly router: 256 x 6),
instead of ``T x ceil(log2 R)`` plus ``R x ceil(log2 P)`` bits for the two
tables. Yosys ``synth`` turns it into logic; an FPGA flow can map it to a LUT
ROM. The table contents are gen's (``compile_table``), never re-derived here.

Header update
-------------
``hops_out`` is the ``hops`` field the head flit carries when it leaves on
this route: ``hops + 1`` on an inter-router hop (the golden ``_grant``
increments it at the grant), unchanged on ejection. The field is 8 bits
(§R4) and the increment **saturates** at 255 (the golden model's count is
unbounded; the VC class only needs ``min(hops, classes - 1)`` with
``classes <= 256``, which saturation preserves).

Examples
--------
>>> rc = RouteCompute(next_port_row=[-1, 2, 3], term_router=[0, 0, 1, 2], eject_port=[0, 1, 0, 1],
...                   router_id=0, n_ports=4, n_classes=2)
>>> rc.rom_words()   # (ok, eject, port) per destination terminal
[(1, 1, 0), (1, 1, 1), (1, 0, 2), (1, 0, 3)]
>>> from radixnet.hdl.verilog import to_verilog
>>> header = to_verilog(rc, "rc").split("module rc(")[1].split(");")[0]
>>> sorted(header.split(", "))
['cls', 'dest', 'eject', 'hops', 'hops_out', 'port', 'valid']
>>> rc.rom_ints()     # the same words packed as the ROM holds them: port | eject << 2 | ok << 3
[12, 13, 10, 11]

ROM outside the unit
--------------------
:class:`RouteDecode` is the same unit **without** the ROM: it outputs the
lookup address ``addr`` (``dest``) and takes the ROM word ``word`` (packed as
:meth:`RouteCompute.rom_ints`, :func:`pack_rom_word`) as an input, and decodes
it exactly as ``RouteCompute`` decodes its own ROM's output (one shared
function), so a ``RouteDecode`` fed by a ROM holding ``rom_ints()`` is the
``RouteCompute``. :class:`~radixnet.hdl.router.Router` ``external_rom=True``
uses it, so that all routers of one port configuration share one core and the
per-router tables live in small ROM modules (:mod:`radixnet.hdl.topgen`).

>>> rd = RouteDecode(n_ports=4, n_terminals=4, n_classes=2)
>>> sorted(rd.signature.members), rd.word_bits, rd.addr_bits
(['addr', 'cls', 'dest', 'eject', 'hops', 'hops_out', 'port', 'valid', 'word'], 4, 2)
>>> RouteCompute([-1, 2], [0, 1], [0, 0], router_id=2, n_ports=4)
Traceback (most recent call last):
...
ValueError: RouteCompute: router_id (this router) must be an int with 0 <= router_id < 2 (routers in next_port_row), got 2
"""

from __future__ import annotations

import operator

from amaranth import Module, Mux, Signal, unsigned
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .arbiter import check_int, ptr_width, reject
from .flit import HOPS_BITS

__all__ = ["RouteCompute", "RouteDecode", "pack_rom_word", "rom_word_bits"]


def rom_word_bits(n_ports: int, cls_bits: int = 0) -> int:
    """Bits of one ROM word of a router with ``n_ports`` ports: ``{ok, eject, port}``, ``ptr_width(n_ports) + 2``.

    With a class table (``cls_bits > 0``, router-spec §R7d) the word also holds ``{tcls, tcls_valid}``:
    ``ptr_width(n_ports) + 3 + cls_bits``.
    """
    return ptr_width(n_ports) + 2 + (1 + cls_bits if cls_bits else 0)


def pack_rom_word(word, n_ports: int) -> int:
    """A ROM word as the ROM stores it: ``port | eject << pw | ok << (pw + 1)``.

    A word of a table with classes, ``(ok, eject, port, tcls_valid, tcls)``, adds
    ``tcls_valid << (pw + 2) | tcls << (pw + 3)``.

    >>> pack_rom_word((1, 0, 5), 7)   # pw = 3: 5 | 0 << 3 | 1 << 4
    21
    >>> pack_rom_word((1, 0, 5, 1, 1), 7)   # ... | 1 << 5 | 1 << 6
    117
    """
    ok, eject, port, *tc = (int(x) for x in word)
    pw = ptr_width(n_ports)
    w = port | (eject << pw) | (ok << (pw + 1))
    if tc:
        w |= (tc[0] << (pw + 2)) | (tc[1] << (pw + 3))
    return w


def _decode(m: Module, unit, word, in_range) -> None:
    """Drive ``unit``'s port/eject/valid from a ROM ``word`` and its cls/hops_out from ``hops``.

    Shared by :class:`RouteCompute` (word = its ROM's output) and :class:`RouteDecode`
    (word = an input), so the two decode identically."""
    pw = ptr_width(unit.n_ports)
    m.d.comb += [
        unit.port.eq(word[:pw]),
        unit.eject.eq(word[pw]),
        unit.valid.eq(word[pw + 1] & in_range),
    ]
    top = unit.n_classes - 1
    hop_cls = 0 if top == 0 else Mux(unit.hops >= top, top, unit.hops)
    if unit.cls_bits:   # class table (§R7d): the word's class where it has one, else the hop index
        m.d.comb += unit.cls.eq(Mux(word[pw + 2], word[pw + 3:pw + 3 + unit.cls_bits], hop_cls))
    else:
        m.d.comb += unit.cls.eq(hop_cls)
    hops_inc = Signal(HOPS_BITS)
    m.d.comb += hops_inc.eq(Mux(unit.hops == (1 << HOPS_BITS) - 1, unit.hops, unit.hops + 1))
    m.d.comb += unit.hops_out.eq(Mux(unit.eject, unit.hops, hops_inc))


def _int_list(owner, name: str, what: str, values, lo: int, hi: int | None) -> list[int]:
    """A non-empty sequence of ints in ``lo .. hi-1`` (``hi`` None: no upper bound), as Python ints."""
    try:
        out = [operator.index(x) for x in values]
    except TypeError:
        out = None
    if not out or any(isinstance(x, bool) for x in values):
        reject(owner, f"{name} ({what}) must be a non-empty sequence of ints, got {values!r}")
    bad = [x for x in out if x < lo or (hi is not None and x >= hi)]
    if bad:
        bound = f"{lo} <= x" + (f" < {hi}" if hi is not None else "")
        reject(owner, f"{name} ({what}) entries must satisfy {bound}, got {bad[0]}")
    return out


class RouteCompute(wiring.Component):
    """Combinational table route computation (§R7a): output port, ejection flag, VC class.

    Parameters
    ----------
    next_port_row : sequence of int
        ``RouteTable.next_port[router_id]``: output port toward each destination router, ``-1``
        where there is none (the router itself, unreachable). Its length is ``R``.
    term_router : sequence of int
        ``RouteTable.term_router``: router of each destination terminal (length ``T``).
    eject_port : sequence of int
        ``RouteTable.eject_port``: ejection port of each terminal on its router (length ``T``).
    router_id : int
        This router, ``0 <= router_id < R``.
    n_ports : int
        Ports of this router (``Network.radix[router_id]``); every port in the table must be below it.
    n_classes : int
        VC classes of the routing (``RouteTable.classes``), ``1 <= n_classes <= 256``.
    dest_bits : int, optional
        Width of the ``dest`` input (the flit's field); default ``ptr_width(T)``. Wider values
        with high bits set are not routed (``valid = 0``).

    Attributes
    ----------
    dest : Signal(dest_bits), in
        Destination terminal of the head flit.
    hops : Signal(8), in
        Inter-router hops the packet has taken (the flit's ``hops``).
    port : Signal(ptr_width(n_ports)), out
        Output port.
    eject : Signal(1), out
        ``port`` is the ejection port of the destination terminal (single implicit VC).
    cls : Signal(ptr_width(n_classes)), out
        VC class ``min(hops, n_classes - 1)`` (don't-care when ``eject``).
    hops_out : Signal(8), out
        ``hops`` for the departing head flit: ``min(hops + 1, 255)``, or ``hops`` when ``eject``.
    valid : Signal(1), out
        The table has a route for ``dest`` (0 for ``next_port = -1`` and for ``dest >= T``).
    """

    def __init__(self, next_port_row, term_router, eject_port, router_id: int, n_ports: int, *,
                 n_classes: int = 1, dest_bits: int | None = None, cls_row=None):
        self.n_ports = check_int(self, "n_ports", "ports of this router", n_ports, 1)
        self.n_classes = check_int(self, "n_classes", "VC classes", n_classes, 1)
        if n_classes > 1 << HOPS_BITS:
            reject(self, f"n_classes (VC classes) must be <= {1 << HOPS_BITS} (hops is {HOPS_BITS} bits), "
                          f"got {n_classes}")
        row = _int_list(self, "next_port_row", "output port toward each router, -1 for none",
                        next_port_row, -1, n_ports)
        n_routers = len(row)
        if isinstance(router_id, bool) or not isinstance(router_id, int) or not 0 <= router_id < n_routers:
            reject(self, f"router_id (this router) must be an int with 0 <= router_id < {n_routers} "
                          f"(routers in next_port_row), got {router_id!r}")
        terms = _int_list(self, "term_router", "router of each terminal", term_router, 0, n_routers)
        ports = _int_list(self, "eject_port", "ejection port of each terminal", eject_port, 0, None)
        if len(ports) != len(terms):
            reject(self, f"eject_port (ejection port of each terminal) must have one entry per terminal "
                          f"({len(terms)} in term_router), got {len(ports)}")
        here = [p for t, p in zip(terms, ports) if t == router_id and p >= n_ports]
        if here:
            reject(self, f"eject_port (ejection port of each terminal) entries of terminals on router "
                          f"{router_id} must be < n_ports = {n_ports}, got {here[0]}")
        if cls_row is not None:
            cls_row = _int_list(self, "cls_row", "VC class toward each router, -1 for the hop index",
                                cls_row, -1, n_classes)
            if len(cls_row) != n_routers:
                reject(self, f"cls_row (VC class toward each router) must have one entry per router "
                              f"({n_routers}), got {len(cls_row)}")
        #: bits of the class field of a ROM word (0: no class table, the class is the hop index)
        self.cls_bits = ptr_width(n_classes) if cls_row is not None else 0
        self.router_id = router_id
        self.n_terminals = len(terms)
        self.addr_bits = ptr_width(self.n_terminals)
        if dest_bits is None:
            dest_bits = self.addr_bits
        self.dest_bits = check_int(self, "dest_bits", "width of the dest input", dest_bits, self.addr_bits)
        self._words = []
        for t in range(1 << self.addr_bits):
            if t >= self.n_terminals:
                w = (0, 0, 0)
            elif terms[t] == router_id:
                w = (1, 1, ports[t])
            else:
                p = row[terms[t]]
                w = (1, 0, p) if p >= 0 else (0, 0, 0)
            if cls_row is not None:
                c = cls_row[terms[t]] if t < self.n_terminals and w[0] and not w[1] else -1
                w = w + ((1, c) if c >= 0 else (0, 0))
            self._words.append(w)
        super().__init__({
            "dest": In(self.dest_bits),
            "hops": In(HOPS_BITS),
            "port": Out(ptr_width(n_ports)),
            "eject": Out(1),
            "cls": Out(ptr_width(n_classes)),
            "hops_out": Out(HOPS_BITS),
            "valid": Out(1),
        })

    @classmethod
    def from_table(cls, table, router_id: int, n_ports: int) -> "RouteCompute":
        """The unit of router ``router_id`` from a :class:`radixnet.gen.routing.RouteTable`."""
        tcls = getattr(table, "cls", None)
        return cls(table.next_port[router_id], table.term_router, table.eject_port, router_id, n_ports,
                   n_classes=table.classes, cls_row=None if tcls is None else tcls[router_id])

    def rom_words(self) -> list[tuple[int, int, int]]:
        """The ROM contents, ``(ok, eject, port)`` per destination terminal (without the padding words)."""
        return self._words[:self.n_terminals]

    @property
    def word_bits(self) -> int:
        """Bits of one ROM word, :func:`rom_word_bits` ``(n_ports, cls_bits)``."""
        return rom_word_bits(self.n_ports, self.cls_bits)

    def rom_ints(self) -> list[int]:
        """The whole ROM, ``2**addr_bits`` words packed as stored (:func:`pack_rom_word`; padding words 0)."""
        return [pack_rom_word(w, self.n_ports) for w in self._words]

    def elaborate(self, platform):
        m = Module()
        words = self.rom_ints()
        m.submodules.rom = rom = Memory(shape=unsigned(self.word_bits), depth=len(words), init=words)
        rp = rom.read_port(domain="comb")
        m.d.comb += rp.addr.eq(self.dest[:self.addr_bits])
        in_range = self.dest[self.addr_bits:] == 0 if self.dest_bits > self.addr_bits else 1
        _decode(m, self, rp.data, in_range)
        return m


class RouteDecode(wiring.Component):
    """:class:`RouteCompute` with its ROM outside: the lookup address out, the ROM word in.

    Parameters
    ----------
    n_ports : int
        Ports of the router (sizes ``port`` and the word).
    n_terminals : int
        ``T``, the network's terminals: the ROM has ``2**ptr_width(T)`` words.
    n_classes : int
        VC classes of the routing, ``1 <= n_classes <= 256``.
    dest_bits : int, optional
        Width of ``dest``; default ``ptr_width(T)``. Wider values with high bits set are not
        routed (``valid = 0``), as in ``RouteCompute``.

    Attributes
    ----------
    dest, hops : in
        As in :class:`RouteCompute`.
    addr : Signal(ptr_width(T)), out
        The ROM address: ``dest`` (its low ``ptr_width(T)`` bits).
    word : Signal(ptr_width(n_ports) + 2), in
        The ROM word at ``addr``: ``port | eject << pw | ok << (pw + 1)`` (:func:`pack_rom_word`).
    port, eject, cls, hops_out, valid : out
        As in :class:`RouteCompute`.
    """

    def __init__(self, n_ports: int, n_terminals: int, *, n_classes: int = 1, dest_bits: int | None = None,
                 cls_bits: int = 0):
        self.n_ports = check_int(self, "n_ports", "ports of this router", n_ports, 1)
        self.n_terminals = check_int(self, "n_terminals", "terminals of the network", n_terminals, 1)
        self.n_classes = check_int(self, "n_classes", "VC classes", n_classes, 1)
        if n_classes > 1 << HOPS_BITS:
            reject(self, f"n_classes (VC classes) must be <= {1 << HOPS_BITS} (hops is {HOPS_BITS} bits), "
                          f"got {n_classes}")
        self.addr_bits = ptr_width(n_terminals)
        if dest_bits is None:
            dest_bits = self.addr_bits
        self.dest_bits = check_int(self, "dest_bits", "width of the dest input", dest_bits, self.addr_bits)
        if cls_bits not in (0, ptr_width(n_classes)):
            reject(self, f"cls_bits (class field of a ROM word) must be 0 (no class table) or "
                          f"{ptr_width(n_classes)}, got {cls_bits!r}")
        self.cls_bits = cls_bits
        self.word_bits = rom_word_bits(n_ports, cls_bits)
        super().__init__({
            "dest": In(self.dest_bits),
            "hops": In(HOPS_BITS),
            "addr": Out(self.addr_bits),
            "word": In(self.word_bits),
            "port": Out(ptr_width(n_ports)),
            "eject": Out(1),
            "cls": Out(ptr_width(n_classes)),
            "hops_out": Out(HOPS_BITS),
            "valid": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.addr.eq(self.dest[:self.addr_bits])
        in_range = self.dest[self.addr_bits:] == 0 if self.dest_bits > self.addr_bits else 1
        _decode(m, self, self.word, in_range)
        return m
