"""The flit: one ``data.StructLayout`` built from the network's parameters (router-spec §R4).

A flit is what crosses a link in one cycle. Every flit has the same layout; the
routing header fields (§R4) are meaningful in the **head** flit only and are
don't-care in body and tail flits (which follow their head's output port and
VC, §R5). Fields, from bit 0 up:

=========== ========================= ===================================================
field       bits                      meaning
=========== ========================= ===================================================
``head``    1                         first flit of its packet
``tail``    1                         last flit of its packet (both set for ``L = 1``)
``vc``      ``ptr_width(V)``          VC of the flit on this link, i.e. the input VC it is
                                      written into downstream: set by the upstream output
                                      (the output VC of its grant, §R5), by the source
                                      terminal (packet ``i`` -> VC ``i mod V``, §R3), and
                                      0 on an ejection link (the implicit VC, §R5)
``dest``    ``ptr_width(T)``          destination terminal (§R4 ``dest``)
``src``     ``ptr_width(T)``, opt.    source terminal (§R4 ``src``); only when
                                      ``src_bits > 0`` (no routing reads it: by default it
                                      travels in ``data`` with the packet id, see below)
``phase``   1                         0: toward the intermediate router, 1: toward the
                                      destination (§R4, §R7 ``val``/``ugal``)
``inter``   ``ptr_width(R)``          Valiant / UGAL / CLOS AD intermediate router (§R4)
``decided`` 1                         the source router committed min/non-min (§R4, §R7)
``h1``      1                         2DFB priority flag (§R4, §R7b)
``hops``    8 (:data:`HOPS_BITS`)     inter-router hops taken so far (§R4); the VC class
                                      of table routing is ``min(hops, classes - 1)`` (§R7a)
``data``    ``data_width``            payload; the co-simulation carries the packet id
                                      (and ``src``) here
=========== ========================= ===================================================

``ptr_width(n) = max(1, ceil(log2 n))``: no field is 0 bits wide, so no port of
a unit is (Verilator's ``LITENDIAN``/zero-width trouble never arises); e.g. the
``vc`` field of a ``V = 1`` router is one bit that is always 0.

§R4 also lists the **packet id**; it is not routing state, so the hardware
flit has no field for it: the co-simulation packs it into ``data``.

Examples
--------
>>> lay = flit_layout(dest_bits=8, vc_bits=1, data_width=64, inter_bits=6)
>>> list(lay.members)
['head', 'tail', 'vc', 'dest', 'phase', 'inter', 'decided', 'h1', 'hops', 'data']
>>> lay.size, lay["dest"].offset, lay["data"].offset
(92, 3, 28)
>>> from radixnet.gen import build
>>> w = flit_widths(build("slimfly", q=5), n_vcs=2)   # T = 200, R = 50
>>> (w.dest_bits, w.vc_bits, w.inter_bits, w.data_width, w.size)
(8, 1, 6, 64, 92)
>>> flit_layout(0, 1, 64)
Traceback (most recent call last):
...
ValueError: flit_layout: dest_bits (destination terminal field) must be an int with dest_bits >= 1, got 0
"""

from __future__ import annotations

from dataclasses import dataclass

from amaranth.lib import data

from ..gen.router_config import DATA_WIDTH
from .arbiter import ptr_width

__all__ = ["HOPS_BITS", "FlitWidths", "flit_layout", "flit_widths"]

#: Width of the ``hops`` field (router-spec §R4: 8 bits).
HOPS_BITS = 8


def _check_bits(name: str, what: str, value, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise ValueError(f"flit_layout: {name} ({what}) must be an int with {name} >= {lo}, got {value!r}")
    return value


def flit_layout(dest_bits: int, vc_bits: int, data_width: int, *, inter_bits: int = 1,
                src_bits: int = 0) -> data.StructLayout:
    """The flit layout of router-spec §R4 from field widths (see the module docstring for each field).

    Parameters
    ----------
    dest_bits : int
        Width of ``dest`` (destination terminal), ``>= 1``; ``ptr_width(T)`` for ``T`` terminals.
    vc_bits : int
        Width of ``vc``, ``>= 1``; ``ptr_width(V)``.
    data_width : int
        Width of the payload ``data``, ``>= 1``.
    inter_bits : int
        Width of ``inter`` (intermediate router), ``>= 1``; ``ptr_width(R)`` for ``R`` routers.
    src_bits : int
        Width of an optional ``src`` field (source terminal); 0 (default) leaves it out.

    Returns
    -------
    amaranth.lib.data.StructLayout
        Fields ``head, tail, vc, dest, [src], phase, inter, decided, h1, hops, data`` from bit 0 up.
    """
    _check_bits("dest_bits", "destination terminal field", dest_bits, 1)
    _check_bits("vc_bits", "VC field", vc_bits, 1)
    _check_bits("data_width", "payload field", data_width, 1)
    _check_bits("inter_bits", "intermediate router field", inter_bits, 1)
    _check_bits("src_bits", "source terminal field, 0 to omit it", src_bits, 0)
    fields = {"head": 1, "tail": 1, "vc": vc_bits, "dest": dest_bits}
    if src_bits:
        fields["src"] = src_bits
    fields.update({"phase": 1, "inter": inter_bits, "decided": 1, "h1": 1, "hops": HOPS_BITS,
                   "data": data_width})
    return data.StructLayout(fields)


@dataclass(frozen=True)
class FlitWidths:
    """Field widths of the flit of one network (router-spec §R4).

    Parameters
    ----------
    dest_bits : int
        ``dest``: ``ptr_width(T)``, ``T`` the network's terminals.
    vc_bits : int
        ``vc``: ``ptr_width(V)``.
    inter_bits : int
        ``inter``: ``ptr_width(R)``, ``R`` the network's routers.
    data_width : int
        ``data``: the payload.
    src_bits : int
        ``src``: ``ptr_width(T)`` when requested, else 0 (field omitted).
    """

    dest_bits: int
    vc_bits: int
    inter_bits: int
    data_width: int
    src_bits: int = 0

    def layout(self) -> data.StructLayout:
        """The :func:`flit_layout` with these widths."""
        return flit_layout(self.dest_bits, self.vc_bits, self.data_width,
                           inter_bits=self.inter_bits, src_bits=self.src_bits)

    @property
    def size(self) -> int:
        """Bits of one flit."""
        return self.layout().size


def flit_widths(network, n_vcs: int, data_width: int = DATA_WIDTH, *, with_src: bool = False) -> FlitWidths:
    """Field widths of the flit for a :class:`radixnet.gen.Network` with ``n_vcs`` VCs per port.

    Parameters
    ----------
    network : radixnet.gen.Network
        The topology: ``num_terminals`` sizes ``dest`` (and ``src``), ``num_routers`` sizes ``inter``.
    n_vcs : int
        ``V``, VCs per port (sizes ``vc``), ``>= 1``.
    data_width : int
        Payload bits, ``>= 1`` (default 64).
    with_src : bool
        Give the flit its own ``src`` field (default: the source rides in ``data``).

    Returns
    -------
    FlitWidths
        The widths; ``.layout()`` builds the ``StructLayout``.
    """
    for attr in ("num_terminals", "num_routers"):
        if not isinstance(getattr(network, attr, None), int) or getattr(network, attr) < 1:
            raise ValueError(f"flit_widths: network (the topology) must be a radixnet.gen.Network with "
                             f"terminals and routers, got {network!r}")
    if isinstance(n_vcs, bool) or not isinstance(n_vcs, int) or n_vcs < 1:
        raise ValueError(f"flit_widths: n_vcs (VCs per port) must be an int with n_vcs >= 1, got {n_vcs!r}")
    if isinstance(data_width, bool) or not isinstance(data_width, int) or data_width < 1:
        raise ValueError(f"flit_widths: data_width (payload bits) must be an int with data_width >= 1, "
                         f"got {data_width!r}")
    if not isinstance(with_src, bool):
        raise ValueError(f"flit_widths: with_src (give the flit a src field) must be a bool, got {with_src!r}")
    t = ptr_width(network.num_terminals)
    return FlitWidths(dest_bits=t, vc_bits=ptr_width(n_vcs), inter_bits=ptr_width(network.num_routers),
                      data_width=data_width, src_bits=t if with_src else 0)
