"""NetFPGA-style AXI4-Stream terminal ports for a router's injection and ejection ports (docs/axis-ports.md).

A terminal talks AXI4-Stream; the router talks flits (router-spec §R2-§R4).
:class:`AxisIngress` turns the beats of a slave stream ``s_axis_*`` into the
flits of the router's injection input port, one beat per flit, and keeps the
§R3 source-queue rules (packet ``i`` on VC ``i mod V``, one flit per cycle
when that VC has a credit, packets never interleaved). :class:`AxisEgress`
turns the flits of an ejection output port back into beats on a master
stream ``m_axis_*``. Full contract and rationale: ``docs/axis-ports.md``.

AXI4-Stream ports (NetFPGA names, ``W = data_width``)
-----------------------------------------------------
=================== ======= ===============================================================
port                bits    meaning
=================== ======= ===============================================================
``*_axis_tdata``    ``W``   one beat of the packet, byte 0 in bits ``[7:0]``
``*_axis_tkeep``    ``W/8`` byte enables: all ones, but on the last beat the low
                            ``len - (beats-1)*W/8`` bytes only (contiguous, NetFPGA)
``*_axis_tlast``    1       last beat of the packet
``*_axis_tvalid``   1       a beat is offered
``*_axis_tready``   1       the beat is taken (``tvalid & tready``)
``*_axis_tuser``    128     metadata, valid on the **first** beat (see below)
=================== ======= ===============================================================

``amaranth.lib.stream`` is not used for them: its members are
``payload``/``valid``/``ready``, which flatten to ``s_axis__payload`` ... in the
Verilog, while NetFPGA wrappers expect the flat ``s_axis_tdata`` ... names.

``tuser`` layout (:func:`tuser_layout`)
---------------------------------------
=========================== ============================================================
bits                        field
=========================== ============================================================
``[15:0]``                  ``len``: packet length in bytes, ``1 <= len``; the packet has
                            ``ceil(len / (W/8))`` beats
``[23:16]``                 ``src``: source port (low 8 bits in ``binary``)
``[31:24]``                 ``dst``: destination port (low 8 bits in ``binary``)
``[32+h-1:32]``             ``src_hi``: high bits of ``src`` (``binary`` with ``h > 0`` only)
``[32+2h-1:32+h]``          ``dst_hi``: high bits of ``dst`` (idem)
``[127:32+2h]``             ``user``: user-defined; the low ``user_bits`` travel with the
                            packet, the rest must be 0
=========================== ============================================================

Port encodings (terminal ``i`` of ``T``):

* ``"onehot"`` (NetFPGA, ``T <= 8``, the default there): bit ``i`` of the 8-bit field;
* ``"binary"`` (the default for ``T > 8``): the number ``i`` in ``p = max(8, ptr_width(T))``
  bits, the low 8 in ``[23:16]``/``[31:24]`` and the ``h = p - 8`` high bits in
  ``src_hi``/``dst_hi`` right above bit 32 (``h = 0``, no such fields, up to ``T = 256``).
  It needs ``32 + 2h <= 128``, i.e. ``T <= 2**56``.

How a packet travels (the flit's ``data`` field, :func:`payload_layout`)
------------------------------------------------------------------------
One beat is one flit. The flit's ``data`` field is a struct ``tdata`` (the beat)
followed by the **sideband** ``len`` (16 bits), ``src`` (``ptr_width(T)``, the
source terminal index; left out when the flit layout has its own §R4 ``src``
field, which then carries it) and ``user`` (``user_bits``, left out when 0).
The router passes ``data`` unchanged, so a router built with
``data_width = payload_layout(W, T, ...).size`` carries it. The sideband and the
routing header (``dest``) are set in the head flit only and are 0 in body and
tail flits (§R4: meaningful in the head only). ``tkeep`` does not travel: the
ingress checks that it is the mask the length implies and the egress rebuilds it
from the length, which is lossless for NetFPGA's contiguous ``tkeep``.

Ingress timing (``AxisIngress``, all with ``Tl = 1``)
-----------------------------------------------------
* ``s_axis_tready`` in cycle ``t`` is a function of registers only (Moore): the
  credit count of the current packet's VC at the start of ``t`` is above 0 (or the
  ingress is discarding a packet, below). No path from ``inj_credit_vc``,
  ``s_axis_*`` or anything else of the same cycle.
* A beat accepted in cycle ``t`` (``tvalid & tready``) is driven as a flit on
  ``inj_flit``/``inj_valid`` in the same cycle ``t`` (combinationally from
  ``s_axis_*``); the router writes it into its input VC buffer at the end of ``t``.
  So a packet's head flit is sent in the cycle its first beat is accepted: that
  is the §R9 ``injected`` cycle.
* It takes a credit of its VC at the end of ``t``; a credit on ``inj_credit_vc``
  (the router's ``credit_out_ip_ivc`` of this port) in cycle ``t`` is usable
  from ``t + 1``.

Egress timing (``AxisEgress``)
------------------------------
A flit on ``ej_flit``/``ej_valid`` in cycle ``t`` (the router's
``out_flit_op``/``out_valid_op`` of an ejection port: sent in ``t``) is
registered at the end of ``t`` and is a beat on ``m_axis_*`` from ``t + 1``
(§R3: ejected in ``t + Tl``), provided the beats before it have been taken. With
an ideal terminal (router-spec §R3, ``egress_depth`` 0) ``depth = 1`` is spec-exact
and the sink must take each beat in the cycle it appears, i.e. hold
``m_axis_tready`` high. With backpressure (§R3a) ``depth = E``: the beat buffer is
the terminal's egress FIFO, ``ej_credit`` is high in each cycle a beat is taken
(``tvalid & tready``), and the router's ejection port, holding ``E`` credits,
never sends a flit the FIFO has no slot for; the sink may hold ``tready`` low for
as long as it likes.

Errors (sticky until reset, never under the protocol)
-----------------------------------------------------
Ingress ``error``: a first beat with ``len == 0`` or with user bits set beyond
``user_bits``; a beat whose ``tlast`` or ``tkeep`` disagrees with the length
(such packets are still forwarded, framed by ``tlast``, and the egress rebuilds
``tkeep`` from the length); an invalid ``src``/``dst`` port (not one-hot, or
``>= T``): that packet is **discarded** (its beats are taken, no flit is sent,
it does not count as a packet for ``i mod V``); a credit counter over/underflow.

Egress ``overflow``: a flit arrived while all ``depth`` beat slots were full
and ``m_axis`` took none that cycle. The flit is dropped (the beats held on
``m_axis`` stay stable, as AXI4-Stream requires). Egress ``error``:
``overflow``, or a malformed flit stream: a head flit while a packet is open
(packets interleaved on the ejection port), a body/tail flit with no packet
open, a tail flag that disagrees with the head's length, ``len == 0``, a
``vc`` other than 0 (§R8a) or ``dest``/``src >= T``.

Packets arrive whole
--------------------
The egress rebuilds packets from consecutive flits, so it needs the ejection
port to send one packet's flits without another's in between. Router-spec §R5
promises it: an ejection port's implicit VC is held by a packet from the grant
of its head flit to the grant of its tail flit, like a network output VC (the
golden kernel and ``hdl/router.py`` both do). A head flit while a packet is
open is therefore a protocol violation and sets ``error``.

Examples
--------
>>> tu = tuser_layout(16)                      # T = 16 > 8: binary by default
>>> tu.encoding, tu.fields["src"], tu.fields["dst"], tu.fields["user"]
('binary', (16, 8), (24, 8), (32, 96))
>>> hex(tu.pack(length=100, src=3, dst=12))
'0xc030064'
>>> tuser_layout(8, "onehot").unpack(0x80010005)
{'len': 5, 'src': 0, 'dst': 7, 'user': 0}
>>> payload_layout(64, 16).size                # tdata 64 + len 16 + src 4
84
>>> ing = AxisIngress(16, n_vcs=2, vc_depth=4, data_width=64)
>>> ing.flit_layout["data"].width, ing.tuser.encoding
(84, 'binary')
>>> AxisIngress(9, 2, 4, 64, port_encoding="onehot")
Traceback (most recent call last):
...
ValueError: AxisIngress: port_encoding 'onehot' (NetFPGA's 8-bit one-hot port fields) needs n_terminals <= 8, got 9; use 'binary'
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth import Cat, Const, Module, Mux, Signal
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..gen.router_config import DATA_WIDTH
from .arbiter import check_int, onehot_index, ptr_width, reject
from .credits import CreditCounter
from .flit import HOPS_BITS, flit_layout as _flit_layout

__all__ = ["TUSER_WIDTH", "LEN_BITS", "PORT_ENCODINGS", "TuserLayout", "tuser_layout", "payload_layout",
           "axis_flit_layout", "route_layout", "AxisIngress", "AxisEgress", "connect_router_port"]

#: Width of ``tuser`` (NetFPGA).
TUSER_WIDTH = 128
#: Width of the packet length field ``tuser[15:0]`` (bytes).
LEN_BITS = 16
#: The port encodings of :func:`tuser_layout`.
PORT_ENCODINGS = ("onehot", "binary")
_PORT_BITS = 8      # NetFPGA's src/dst port fields
_ONEHOT_MAX = 8     # terminals a one-hot 8-bit field can name
_HI_MAX = (TUSER_WIDTH - 32) // 2


@dataclass(frozen=True)
class TuserLayout:
    """The bit layout of the 128-bit ``tuser`` for ``n_terminals`` ports (module docstring table).

    Build it with :func:`tuser_layout`; ``as_dict()`` is what a manifest records.

    Parameters
    ----------
    n_terminals : int
        ``T``, the ports (terminals) that ``src``/``dst`` can name.
    encoding : str
        ``"onehot"`` or ``"binary"``.
    hi_bits : int
        ``h``: bits of ``src_hi`` and of ``dst_hi`` (0: no such fields).
    """

    n_terminals: int
    encoding: str
    hi_bits: int

    @property
    def fields(self) -> dict[str, tuple[int, int]]:
        """``name -> (lsb, width)`` from bit 0 up: ``len, src, dst, [src_hi, dst_hi], [user]``."""
        h = self.hi_bits
        out = {"len": (0, LEN_BITS), "src": (16, _PORT_BITS), "dst": (24, _PORT_BITS)}
        if h:
            out["src_hi"] = (32, h)
            out["dst_hi"] = (32 + h, h)
        if TUSER_WIDTH - 32 - 2 * h:
            out["user"] = (32 + 2 * h, TUSER_WIDTH - 32 - 2 * h)
        return out

    @property
    def user_width(self) -> int:
        """Bits of the user-defined field (``128 - 32 - 2h``)."""
        return TUSER_WIDTH - 32 - 2 * self.hi_bits

    def layout(self) -> data.StructLayout:
        """The 128-bit ``StructLayout`` of :attr:`fields` (the type of the ``*_axis_tuser`` ports)."""
        return data.StructLayout({name: width for name, (_, width) in self.fields.items()})

    def as_dict(self) -> dict:
        """JSON-ready description: width, encoding, terminals and ``name -> [msb, lsb]``."""
        return {"width": TUSER_WIDTH, "encoding": self.encoding, "n_terminals": self.n_terminals,
                "fields": {name: [lsb + width - 1, lsb] for name, (lsb, width) in self.fields.items()}}

    def _encode(self, port: int) -> tuple[int, int]:
        if self.encoding == "onehot":
            return 1 << port, 0
        return port & 0xFF, port >> 8

    def pack(self, length: int, src: int, dst: int, user: int = 0) -> int:
        """The ``tuser`` value of a packet: ``length`` bytes from terminal ``src`` to ``dst``.

        Parameters
        ----------
        length : int
            Bytes, ``0 <= length < 2**16``.
        src, dst : int
            Terminal indices, ``0 <= src, dst < n_terminals``.
        user : int
            The user-defined field, ``0 <= user < 2**user_width``.

        Returns
        -------
        int
            The 128-bit value.
        """
        T = self.n_terminals
        for name, value, hi in (("length", length, 1 << LEN_BITS), ("src", src, T), ("dst", dst, T),
                                ("user", user, 1 << self.user_width)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < hi:
                raise ValueError(f"TuserLayout.pack: {name} must be an int with 0 <= {name} < {hi}, got {value!r}")
        (s_lo, s_hi), (d_lo, d_hi) = self._encode(src), self._encode(dst)
        f = self.fields
        word = length | s_lo << 16 | d_lo << 24
        if self.hi_bits:
            word |= s_hi << f["src_hi"][0] | d_hi << f["dst_hi"][0]
        if user:
            word |= user << f["user"][0]
        return word

    def unpack(self, value: int) -> dict[str, int]:
        """Inverse of :meth:`pack`: ``{"len", "src", "dst", "user"}`` (ports as terminal indices).

        Raises
        ------
        ValueError
            If ``src`` or ``dst`` is not a valid port (not one-hot, or ``>= n_terminals``).
        """
        f = self.fields

        def get(name):
            lsb, width = f.get(name, (0, 0))
            return (value >> lsb) & ((1 << width) - 1)

        out = {"len": get("len")}
        for name in ("src", "dst"):
            raw = get(name)
            if self.encoding == "onehot":
                if raw == 0 or raw & (raw - 1) or raw.bit_length() > self.n_terminals:
                    raise ValueError(f"TuserLayout.unpack: {name} port {raw:#04x} is not one-hot over "
                                     f"{self.n_terminals} ports")
                port = raw.bit_length() - 1
            else:
                port = raw | get(f"{name}_hi") << 8
                if port >= self.n_terminals:
                    raise ValueError(f"TuserLayout.unpack: {name} port {port} >= n_terminals {self.n_terminals}")
            out[name] = port
        out["user"] = get("user")
        return out


def tuser_layout(n_terminals: int, port_encoding: str | None = None) -> TuserLayout:
    """The ``tuser`` layout for ``n_terminals`` ports (module docstring table).

    Parameters
    ----------
    n_terminals : int
        ``T``, ``>= 1``.
    port_encoding : {None, "onehot", "binary"}
        ``None``: ``"onehot"`` for ``T <= 8`` (NetFPGA), else ``"binary"``.

    Returns
    -------
    TuserLayout
        ``hi_bits = max(0, ptr_width(T) - 8)`` for ``"binary"``, 0 for ``"onehot"``.

    Examples
    --------
    >>> tuser_layout(1000).as_dict()["fields"]
    {'len': [15, 0], 'src': [23, 16], 'dst': [31, 24], 'src_hi': [33, 32], 'dst_hi': [35, 34], 'user': [127, 36]}
    """
    if isinstance(n_terminals, bool) or not isinstance(n_terminals, int) or n_terminals < 1:
        raise ValueError(f"tuser_layout: n_terminals (ports src/dst can name) must be an int with "
                         f"n_terminals >= 1, got {n_terminals!r}")
    if port_encoding is None:
        port_encoding = "onehot" if n_terminals <= _ONEHOT_MAX else "binary"
    if port_encoding not in PORT_ENCODINGS:
        raise ValueError(f"tuser_layout: port_encoding must be None, 'onehot' or 'binary', got {port_encoding!r}")
    if port_encoding == "onehot":
        if n_terminals > _ONEHOT_MAX:
            raise ValueError(f"tuser_layout: port_encoding 'onehot' (NetFPGA's 8-bit one-hot port fields) "
                             f"needs n_terminals <= {_ONEHOT_MAX}, got {n_terminals}; use 'binary'")
        return TuserLayout(n_terminals, "onehot", 0)
    hi = max(0, ptr_width(n_terminals) - _PORT_BITS)
    if hi > _HI_MAX:
        raise ValueError(f"tuser_layout: port_encoding 'binary' fits two ports of at most {_PORT_BITS + _HI_MAX} "
                         f"bits in the 128-bit tuser (n_terminals <= 2**{_PORT_BITS + _HI_MAX}), got {n_terminals}")
    return TuserLayout(n_terminals, "binary", hi)


def _check_user_bits(prefix: str, user_bits, tu: TuserLayout) -> int:
    if isinstance(user_bits, bool) or not isinstance(user_bits, int) or not 0 <= user_bits <= tu.user_width:
        raise ValueError(f"{prefix}: user_bits (user-defined tuser bits carried with the packet) must be an int "
                         f"with 0 <= user_bits <= {tu.user_width}, got {user_bits!r}")
    return user_bits


def _check_data_width(prefix: str, data_width) -> int:
    if isinstance(data_width, bool) or not isinstance(data_width, int) or data_width < 8 or data_width % 8:
        raise ValueError(f"{prefix}: data_width (tdata bits) must be a positive multiple of 8, got {data_width!r}")
    return data_width


def payload_layout(data_width: int, n_terminals: int, *, user_bits: int = 0,
                   src_in_data: bool = True) -> data.StructLayout:
    """The flit's ``data`` field: the beat ``tdata`` and the sideband ``len``, ``[src]``, ``[user]``.

    Parameters
    ----------
    data_width : int
        ``W``, tdata bits, a positive multiple of 8.
    n_terminals : int
        ``T``; ``src`` is ``ptr_width(T)`` bits.
    user_bits : int
        Low bits of the tuser ``user`` field that travel with the packet (0: no ``user`` member).
    src_in_data : bool
        Carry the source terminal here (False when the flit has its own §R4 ``src`` field).

    Returns
    -------
    amaranth.lib.data.StructLayout
        ``tdata, len, [src], [user]`` from bit 0 up; a router carrying it needs
        ``data_width = payload_layout(...).size``.
    """
    _check_data_width("payload_layout", data_width)
    tu = tuser_layout(n_terminals, "binary")
    _check_user_bits("payload_layout", user_bits, tu)
    fields = {"tdata": data_width, "len": LEN_BITS}
    if src_in_data:
        fields["src"] = ptr_width(n_terminals)
    if user_bits:
        fields["user"] = user_bits
    return data.StructLayout(fields)


def axis_flit_layout(n_terminals: int, n_vcs: int, data_width: int, *, user_bits: int = 0,
                     inter_bits: int = 1, with_src: bool = False) -> data.StructLayout:
    """The §R4 flit whose ``data`` is :func:`payload_layout` (what a router with these ports carries).

    Equal to ``Router(net, r, n_vcs, B, data_width=payload_layout(W, T).size).flit_layout`` with
    ``inter_bits = ptr_width(net.num_routers)``.

    Parameters
    ----------
    n_terminals, n_vcs, data_width : int
        ``T``, ``V``, ``W``.
    user_bits : int
        As in :func:`payload_layout`.
    inter_bits : int
        Width of the flit's ``inter`` field (``ptr_width(R)``).
    with_src : bool
        Give the flit its own ``src`` field (then ``data`` has none).

    Returns
    -------
    amaranth.lib.data.StructLayout
    """
    pl = payload_layout(data_width, n_terminals, user_bits=user_bits, src_in_data=not with_src)
    return _flit_layout(ptr_width(n_terminals), ptr_width(n_vcs), pl.size, inter_bits=inter_bits,
                        src_bits=ptr_width(n_terminals) if with_src else 0)


def route_layout(inter_bits: int) -> data.StructLayout:
    """The egress's ``m_route``: the routing header of a packet's head flit as it was ejected."""
    return data.StructLayout({"hops": HOPS_BITS, "inter": inter_bits, "phase": 1, "decided": 1, "h1": 1})


_FLIT_FIELDS = ("head", "tail", "vc", "dest", "src", "phase", "inter", "decided", "h1", "hops", "data")


class _AxisPort(wiring.Component):
    """Parameters shared by the ingress and the egress (validated in one place)."""

    def _setup(self, n_terminals, n_vcs, data_width, port_encoding, user_bits, flit_layout):
        self.n_terminals = check_int(self, "n_terminals", "ports src/dst can name", n_terminals, 1)
        self.n_vcs = check_int(self, "n_vcs", "virtual channels of the router's terminal port", n_vcs, 1)
        try:
            self.data_width = _check_data_width("x", data_width)
            self.tuser = tuser_layout(n_terminals, port_encoding)
            self.user_bits = _check_user_bits("x", user_bits, self.tuser)
        except ValueError as exc:
            reject(self, str(exc).split(": ", 1)[1])
        T, V = n_terminals, n_vcs
        if flit_layout is None:
            flit_layout = axis_flit_layout(T, V, data_width, user_bits=user_bits)
        if not isinstance(flit_layout, data.StructLayout) or not {"head", "data", "dest"} <= set(flit_layout.members):
            reject(self, f"flit_layout (the router's flit) must be a StructLayout from "
                          f"radixnet.hdl.flit.flit_layout, got {flit_layout!r}")
        members = dict(flit_layout.members)
        src_in_data = "src" not in members
        self.payload = payload_layout(data_width, T, user_bits=user_bits, src_in_data=src_in_data)
        want = {"head": 1, "tail": 1, "vc": ptr_width(V), "dest": ptr_width(T), "phase": 1,
                "inter": members.get("inter"), "decided": 1, "h1": 1, "hops": HOPS_BITS, "data": self.payload.size}
        if not src_in_data:
            want["src"] = ptr_width(T)
        for name in _FLIT_FIELDS:
            if name not in want:
                continue
            if name not in members:
                reject(self, f"flit_layout (the router's flit) has no {name!r} field (router-spec §R4)")
            width = flit_layout[name].width
            if want[name] is not None and width != want[name]:
                reject(self, f"flit_layout (the router's flit) field {name!r} must be {want[name]} bits for "
                              f"T = {T}, V = {V}, data_width = {data_width}, user_bits = {user_bits} "
                              f"(data = payload_layout(...).size), got {width}")
        extra = sorted(set(members) - set(want))
        if extra:
            reject(self, f"flit_layout (the router's flit) has fields the ports do not know: {extra}")
        self.flit_layout = flit_layout
        self.inter_bits = flit_layout["inter"].width
        self.src_in_data = src_in_data

    def _axis_members(self, direction: str) -> dict:
        """The six AXI4-Stream members; ``direction`` "s" (slave, inputs) or "m" (master, outputs)."""
        fwd, back = (In, Out) if direction == "s" else (Out, In)
        w = self.data_width
        return {f"{direction}_axis_tdata": fwd(w), f"{direction}_axis_tkeep": fwd(w // 8),
                f"{direction}_axis_tlast": fwd(1), f"{direction}_axis_tvalid": fwd(1),
                f"{direction}_axis_tready": back(1), f"{direction}_axis_tuser": fwd(self.tuser.layout())}


def _keep_of(remaining, bpb: int):
    """tkeep of a beat with ``remaining`` bytes of its packet left (before it): bit i = remaining > i."""
    return Cat(*[remaining > i for i in range(bpb)])


class AxisIngress(_AxisPort):
    """AXI4-Stream slave -> a router's injection port: one beat per flit, §R3 VCs and credits.

    Parameters
    ----------
    n_terminals : int
        ``T``, the network's terminals (``dst``/``src`` name them), ``>= 1``.
    n_vcs : int
        ``V``, VCs of the router's input port, ``>= 1``; packet ``i`` goes to VC ``i mod V``.
    vc_depth : int
        ``B``, flits per input VC buffer of the router (the initial credits per VC), ``>= 1``.
    data_width : int
        ``W``, ``tdata`` bits, a positive multiple of 8 (default 64).
    port_encoding : {None, "onehot", "binary"}
        ``tuser`` port fields (:func:`tuser_layout`); None picks by ``T``.
    user_bits : int
        Low bits of the tuser ``user`` field carried to the egress (default 0; the others must be 0).
    flit_layout : amaranth.lib.data.StructLayout, optional
        The router's flit (``router.flit_layout``); default :func:`axis_flit_layout` with
        ``inter_bits = 1``. Its ``data`` must be :func:`payload_layout` wide.
    check : bool
        Emit the credit counters' assertions (simulation and Verilog).

    Attributes
    ----------
    s_axis_tdata, s_axis_tkeep, s_axis_tlast, s_axis_tvalid, s_axis_tuser : in
        The slave stream (module docstring); ``s_axis_tuser`` is a View of ``tuser.layout()``.
    s_axis_tready : Signal(1), out
        Moore: the current packet's VC has a credit (or a discarded packet is being drained).
    inj_flit : View(flit_layout), out
        The flit sent this cycle (to the router's ``in_flit_ip[p]``).
    inj_valid : Signal(1), out
        ``inj_flit`` is a flit (to ``in_valid_ip[p]``): a beat is accepted this cycle.
    inj_credit_vc : Signal(V), in
        Bit ``v``: the router returns a credit for VC ``v`` (its ``credit_out_ip_ivc[p]``).
    error : Signal(1), out
        Sticky: malformed input or a credit counter violation (module docstring).
    """

    def __init__(self, n_terminals: int, n_vcs: int, vc_depth: int, data_width: int = DATA_WIDTH, *,
                 port_encoding: str | None = None, user_bits: int = 0, flit_layout=None, check: bool = True):
        self._setup(n_terminals, n_vcs, data_width, port_encoding, user_bits, flit_layout)
        self.vc_depth = check_int(self, "vc_depth", "flits per router input VC buffer", vc_depth, 1)
        if not isinstance(check, bool):
            reject(self, f"check (emit the credit assertions) must be a bool, got {check!r}")
        self.check = check
        super().__init__({
            **self._axis_members("s"),
            "inj_flit": Out(self.flit_layout),
            "inj_valid": Out(1),
            "inj_credit_vc": In(self.n_vcs),
            "error": Out(1),
        })

    def _decode_port(self, m: Module, name: str):
        """(valid, terminal index) of the tuser port field ``name`` ("src" or "dst")."""
        T, tu, lay = self.n_terminals, self.tuser, self.s_axis_tuser
        w = ptr_width(T)
        ok = Signal(name=f"{name}_ok")
        idx = Signal(w, name=f"{name}_idx")
        raw = getattr(lay, name)
        if tu.encoding == "onehot":
            onehot = Signal(_PORT_BITS, name=f"{name}_onehot")
            m.d.comb += onehot.eq(raw)
            single = (onehot != 0) & ((onehot & (onehot - 1)[:_PORT_BITS]) == 0)
            in_range = onehot[T:] == 0 if T < _PORT_BITS else Const(1, 1)
            m.d.comb += ok.eq(single & in_range)
            m.d.comb += idx.eq(onehot_index(onehot, T))
        else:
            value = Signal(_PORT_BITS + tu.hi_bits, name=f"{name}_value")
            m.d.comb += value.eq(Cat(raw, getattr(lay, f"{name}_hi")) if tu.hi_bits else raw)
            m.d.comb += ok.eq(value < T if T < 2 ** len(value) else Const(1, 1))
            m.d.comb += idx.eq(value[:w])
        return ok, idx

    def elaborate(self, platform):
        m = Module()
        V, B = self.n_vcs, self.vc_depth
        bpb = self.data_width // 8
        tu, f, pl_has_src = self.s_axis_tuser, self.inj_flit, self.src_in_data
        vw = ptr_width(V)

        # ---- state (registers only)
        pkt_vc = Signal(vw, name="pkt_vc")          # VC of the current/next packet: i mod V
        in_pkt = Signal(name="in_pkt")              # first beat sent, tail not yet
        dropping = Signal(name="dropping")          # discarding a packet with a bad port field
        rem = Signal(LEN_BITS, name="rem_bytes")    # bytes of the packet not yet sent (after the first beat)
        credits = []
        for v in range(V):
            cc = CreditCounter(B, check=self.check)
            m.submodules[f"credit_vc_{v}"] = cc
            m.d.comb += cc.ret.eq(self.inj_credit_vc[v])
            credits.append(cc)
        avail_vc = Signal(V, name="avail_vc")
        m.d.comb += avail_vc.eq(Cat(*[c.avail for c in credits]))
        m.d.comb += self.s_axis_tready.eq(dropping | (avail_vc.bit_select(pkt_vc, 1) if V > 1 else avail_vc[0]))

        # ---- this cycle's beat
        accept, first, send, bad_hdr, bad_beat = (Signal(name=n) for n in
                                                 ("accept", "first", "send", "bad_hdr", "bad_beat"))
        src_ok, src_idx = self._decode_port(m, "src")
        dst_ok, dst_idx = self._decode_port(m, "dst")
        cur_rem = Signal(LEN_BITS, name="cur_rem")
        exp_last = Signal(name="exp_last")
        exp_keep = Signal(bpb, name="exp_keep")
        user_lost = Const(0, 1)
        if self.user_bits < self.tuser.user_width:
            user_lost = tu.user[self.user_bits:].any()
        m.d.comb += [
            accept.eq(self.s_axis_tvalid & self.s_axis_tready),
            first.eq(~in_pkt & ~dropping),
            bad_hdr.eq(~src_ok | ~dst_ok),
            send.eq(accept & ~dropping & ~(first & bad_hdr)),
            cur_rem.eq(Mux(first, tu.len, rem)),
            exp_last.eq(cur_rem <= bpb),
            exp_keep.eq(_keep_of(cur_rem, bpb)),
            bad_beat.eq((self.s_axis_tlast != exp_last) | (self.s_axis_tkeep != exp_keep)
                        | (first & ((tu.len == 0) | user_lost))),
        ]

        # ---- the flit (§R4: header and sideband in the head flit only)
        pl = data.View(self.payload, f.data)
        m.d.comb += [
            self.inj_valid.eq(send),
            f.head.eq(first), f.tail.eq(self.s_axis_tlast), f.vc.eq(pkt_vc),
            f.dest.eq(Mux(first, dst_idx, 0)),
            f.phase.eq(0), f.inter.eq(0), f.decided.eq(0), f.h1.eq(0), f.hops.eq(0),
            pl.tdata.eq(self.s_axis_tdata),
            pl.len.eq(Mux(first, tu.len, 0)),
        ]
        m.d.comb += (pl.src if pl_has_src else f.src).eq(Mux(first, src_idx, 0))
        if self.user_bits:
            m.d.comb += pl.user.eq(Mux(first, tu.user[:self.user_bits], 0))
        for v in range(V):
            m.d.comb += credits[v].take.eq(send & (pkt_vc == v))

        # ---- state updates
        nxt_vc = Signal(vw, name="pkt_vc_next")
        m.d.comb += nxt_vc.eq(Mux(pkt_vc == V - 1, 0, pkt_vc + 1) if V > 1 else 0)
        with m.If(accept):
            with m.If(dropping):
                with m.If(self.s_axis_tlast):
                    m.d.sync += dropping.eq(0)
            with m.Elif(first & bad_hdr):
                m.d.sync += dropping.eq(~self.s_axis_tlast)
            with m.Else():
                m.d.sync += [in_pkt.eq(~self.s_axis_tlast),
                             rem.eq(Mux(cur_rem > bpb, cur_rem - bpb, 0))]
                with m.If(self.s_axis_tlast):
                    m.d.sync += pkt_vc.eq(nxt_vc)
        err = Signal(name="err_now")
        m.d.comb += err.eq((accept & first & bad_hdr) | (send & bad_beat) | Cat(*[c.error for c in credits]).any())
        with m.If(err):
            m.d.sync += self.error.eq(1)
        return m


class AxisEgress(_AxisPort):
    """A router's ejection port -> AXI4-Stream master: one flit per beat, registered (beat in ``t + 1``).

    Parameters
    ----------
    n_terminals : int
        ``T``, the network's terminals, ``>= 1``.
    n_vcs : int
        ``V`` of the router (sizes the flit's ``vc`` field; ejection flits carry VC 0), ``>= 1``.
    data_width : int
        ``W``, ``tdata`` bits, a positive multiple of 8 (default 64).
    depth : int
        Beats buffered toward ``m_axis``, ``>= 1``. 1 (default) is spec-exact: the beat
        register, with the sink holding ``m_axis_tready`` high (§R3 ideal sink); more gives a
        FIFO for a sink that stalls (a flit still appears at ``t + 1`` when the FIFO is empty).
    port_encoding : {None, "onehot", "binary"}
        ``tuser`` port fields (:func:`tuser_layout`); None picks by ``T``.
    user_bits : int
        Low bits of the tuser ``user`` field carried from the ingress (default 0).
    flit_layout : amaranth.lib.data.StructLayout, optional
        The router's flit (``router.flit_layout``); default :func:`axis_flit_layout`.

    Attributes
    ----------
    ej_flit : View(flit_layout), in
        The flit sent on the ejection port this cycle (the router's ``out_flit_op[o]``).
    ej_valid : Signal(1), in
        ``ej_flit`` is a flit (``out_valid_op[o]``).
    m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tvalid, m_axis_tuser : out
        The master stream; ``tuser`` (length, src, dst, user) on the first beat, 0 on the others.
    m_axis_tready : Signal(1), in
        The sink takes the beat.
    m_route : View(route_layout(inter_bits)), out
        The head flit's routing header (``hops``, ``inter``, ``phase``, ``decided``, ``h1``) with
        the first beat, 0 on the others (for co-simulation checks; not part of AXI).
    ej_credit : Signal(1), out
        A beat was taken this cycle (``m_axis_tvalid & m_axis_tready``): a slot is free from the next
        cycle. The credit for the ejection port (router-spec §R3a; unused with ideal terminals).
    overflow : Signal(1), out
        Sticky: a flit arrived with the buffer full and no beat taken; it was dropped.
    error : Signal(1), out
        Sticky: ``overflow`` or a malformed flit stream (module docstring).
    """

    def __init__(self, n_terminals: int, n_vcs: int, data_width: int = DATA_WIDTH, *, depth: int = 1,
                 port_encoding: str | None = None, user_bits: int = 0, flit_layout=None):
        self._setup(n_terminals, n_vcs, data_width, port_encoding, user_bits, flit_layout)
        self.depth = check_int(self, "depth", "beats buffered toward m_axis", depth, 1)
        self.route_layout = route_layout(self.inter_bits)
        super().__init__({
            "ej_flit": In(self.flit_layout),
            "ej_valid": In(1),
            **self._axis_members("m"),
            "m_route": Out(self.route_layout),
            "ej_credit": Out(1),
            "overflow": Out(1),
            "error": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        T, D = self.n_terminals, self.depth
        bpb = self.data_width // 8
        f, tw = self.ej_flit, ptr_width(T)
        pl = data.View(self.payload, f.data)
        src = pl.src if self.src_in_data else f.src
        rec_fields = {"tdata": self.data_width, "tkeep": bpb, "tlast": 1, "first": 1, "len": LEN_BITS,
                      "src": tw, "dst": tw, "route": self.route_layout}
        if self.user_bits:
            rec_fields["user"] = self.user_bits
        rec_lay = data.StructLayout(rec_fields)

        # ---- framing of the incoming flits
        is_open = Signal(name="pkt_open")
        rem = Signal(LEN_BITS, name="rem_bytes")
        cur_rem = Signal(LEN_BITS, name="cur_rem")
        exp_tail = Signal(name="exp_tail")
        m.d.comb += [cur_rem.eq(Mux(f.head, pl.len, rem)), exp_tail.eq(cur_rem <= bpb)]
        bad_port = Const(0, 1)
        if T < 2 ** tw:
            bad_port = (f.dest >= T) | (src >= T)
        malformed = Signal(name="malformed")
        m.d.comb += malformed.eq(self.ej_valid & (
            (f.head & is_open) | (~f.head & ~is_open) | (f.tail != exp_tail) | (f.vc != 0)
            | (f.head & ((pl.len == 0) | bad_port))))
        with m.If(self.ej_valid):
            m.d.sync += [is_open.eq(~f.tail), rem.eq(Mux(cur_rem > bpb, cur_rem - bpb, 0))]

        wrec = Signal(rec_lay, name="wr_beat")
        m.d.comb += [
            wrec.tdata.eq(pl.tdata), wrec.tkeep.eq(_keep_of(cur_rem, bpb)), wrec.tlast.eq(f.tail),
            wrec.first.eq(f.head), wrec.len.eq(pl.len), wrec.src.eq(src), wrec.dst.eq(f.dest),
            wrec.route.hops.eq(f.hops), wrec.route.inter.eq(f.inter), wrec.route.phase.eq(f.phase),
            wrec.route.decided.eq(f.decided), wrec.route.h1.eq(f.h1),
        ]
        if self.user_bits:
            m.d.comb += wrec.user.eq(pl.user)

        # ---- the beat buffer: a register (depth 1) or a FIFO with an asynchronous read port
        level = Signal(range(D + 1), name="level")
        valid, pop, write, lost = (Signal(name=n) for n in ("out_valid", "pop", "write", "lost"))
        m.d.comb += [
            valid.eq(level != 0),
            pop.eq(valid & self.m_axis_tready),
            write.eq(self.ej_valid & ((level != D) | pop)),
            lost.eq(self.ej_valid & ~write),
            self.ej_credit.eq(pop),
        ]
        with m.If(write & ~pop):
            m.d.sync += level.eq(level + 1)
        with m.Elif(pop & ~write):
            m.d.sync += level.eq(level - 1)
        if D == 1:
            out = Signal(rec_lay, name="beat")
            with m.If(write):
                m.d.sync += out.eq(wrec)
        else:
            aw = ptr_width(D)
            m.submodules.fifo = mem = Memory(shape=rec_lay, depth=D, init=[])
            wp, rp = mem.write_port(), mem.read_port(domain="comb")
            wr_ptr, rd_ptr = Signal(aw, name="wr_ptr"), Signal(aw, name="rd_ptr")
            m.d.comb += [wp.addr.eq(wr_ptr), wp.data.eq(wrec), wp.en.eq(write), rp.addr.eq(rd_ptr)]
            with m.If(write):
                m.d.sync += wr_ptr.eq(Mux(wr_ptr == D - 1, 0, wr_ptr + 1))
            with m.If(pop):
                m.d.sync += rd_ptr.eq(Mux(rd_ptr == D - 1, 0, rd_ptr + 1))
            out = rp.data

        # ---- m_axis from the buffer head
        tu, tul = self.m_axis_tuser, self.tuser
        m.d.comb += [self.m_axis_tvalid.eq(valid), self.m_axis_tdata.eq(out.tdata),
                     self.m_axis_tkeep.eq(out.tkeep), self.m_axis_tlast.eq(out.tlast)]
        with m.If(out.first):
            m.d.comb += [tu.len.eq(out.len), self.m_route.eq(out.route)]
            for name in ("src", "dst"):
                idx = getattr(out, name)
                if tul.encoding == "onehot":
                    m.d.comb += getattr(tu, name).eq((Const(1, _PORT_BITS) << idx)[:_PORT_BITS])
                else:
                    m.d.comb += getattr(tu, name).eq(idx[:_PORT_BITS])
                    if tul.hi_bits:
                        m.d.comb += getattr(tu, f"{name}_hi").eq(idx[_PORT_BITS:])
            if self.user_bits:
                m.d.comb += tu.user.eq(out.user)

        with m.If(lost):
            m.d.sync += self.overflow.eq(1)
        with m.If(lost | malformed):
            m.d.sync += self.error.eq(1)
        return m


def connect_router_port(m: Module, router, port: int, *, ingress: AxisIngress | None = None,
                        egress: AxisEgress | None = None) -> None:
    """Wire AXI4-Stream terminal ports to terminal port ``port`` of a :class:`~radixnet.hdl.router.Router`.

    ``ingress`` drives ``in_flit_ip[port]``/``in_valid_ip[port]`` and takes ``credit_out_ip_ivc[port]``;
    ``egress`` takes ``out_flit_op[port]``/``out_valid_op[port]`` (an ejection port). Both must use the
    router's ``flit_layout`` (and the ingress its ``n_vcs``/``vc_depth``). The statements go into
    ``m.d.comb``; the ports and the router must be submodules of ``m`` (or of its parents).

    Parameters
    ----------
    m : amaranth.hdl.Module
        The module that holds the wiring.
    router : radixnet.hdl.router.Router
        The router.
    port : int
        A terminal port: an injection input (for ``ingress``) and/or an ejection output (for ``egress``).
    ingress : AxisIngress, optional
    egress : AxisEgress, optional
    """
    P = getattr(router, "n_ports", None)
    if not isinstance(P, int) or not hasattr(router, "eject_ports"):
        raise ValueError(f"connect_router_port: router must be a radixnet.hdl.router.Router, got {router!r}")
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port < P:
        raise ValueError(f"connect_router_port: port (router port) must be an int with 0 <= port < {P}, got {port!r}")
    for unit in (ingress, egress):
        if unit is not None and unit.flit_layout != router.flit_layout:
            raise ValueError(f"connect_router_port: {type(unit).__name__} flit_layout must be the router's "
                             f"(build the router with data_width = payload_layout(...).size and pass "
                             f"flit_layout=router.flit_layout)")
    if ingress is not None:
        if router.in_channels[port] >= 0:
            raise ValueError(f"connect_router_port: port {port} is a network input, not an injection port")
        if (ingress.n_vcs, ingress.vc_depth) != (router.n_vcs, router.vc_depth):
            raise ValueError(f"connect_router_port: ingress n_vcs/vc_depth ({ingress.n_vcs}, {ingress.vc_depth}) "
                             f"must be the router's ({router.n_vcs}, {router.vc_depth})")
        m.d.comb += [router.in_flit_ip[port].eq(ingress.inj_flit), router.in_valid_ip[port].eq(ingress.inj_valid),
                     ingress.inj_credit_vc.eq(router.credit_out_ip_ivc[port])]
    if egress is not None:
        if port not in router.eject_ports:
            raise ValueError(f"connect_router_port: port {port} is not an ejection port of the router "
                             f"(ejection ports: {router.eject_ports})")
        m.d.comb += [egress.ej_flit.eq(router.out_flit_op[port]), egress.ej_valid.eq(router.out_valid_op[port])]
