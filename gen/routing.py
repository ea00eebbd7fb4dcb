"""Routing relations and the tables compiled from them (docs/router-spec.md §R5–R7).

A routing is separate from the topology: :class:`Routing` names the rule, its
VC classes and the allocator it needs; :func:`compile_hyperx` turns a
HyperX-family Network (fbfly, hyperx, 2dfb, hypercube) into the port tables
the golden kernel and the RTL route computation read. Routing relations for
the other families arrive with issue 5.

Examples
--------
>>> from radixnet.gen import build
>>> r = get_routing("ugal-s")
>>> r.classes(build("fbfly", k=4, n=3)), r.allocator
(2, 'sequential')
>>> get_routing("min-ad").classes(build("fbfly", k=4, n=4))
3
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .network import Network
from .params import ParamError

__all__ = ["Routing", "ROUTINGS", "get_routing", "HyperXTables", "compile_hyperx", "HYPERX_FAMILIES"]

HYPERX_FAMILIES = ("fbfly", "hyperx", "2dfb", "hypercube")

# kernel codes
MIN, MIN_AD, VAL, UGAL, CLOS_AD = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class Routing:
    """A routing algorithm (Kim et al. §3.1; docs/router-spec.md §R7).

    Parameters
    ----------
    name : str
        CLI name.
    code : int
        Kernel algorithm code.
    allocator : str
        ``"greedy"`` or ``"sequential"`` (§R6).
    n_classes : int or None
        VC classes; ``None`` means one per dimension (``min-ad``: n').
    intermediate : bool
        Packets carry a random intermediate router drawn at creation.
    doc : str
        One line.
    """

    name: str
    code: int
    allocator: str
    n_classes: int | None
    intermediate: bool
    doc: str

    def classes(self, net: Network) -> int:
        return self.n_classes if self.n_classes is not None else max(1, len(net.coord_names))


ROUTINGS: dict[str, Routing] = {r.name: r for r in (
    Routing("min", MIN, "greedy", 1, False, "dimension-order minimal routing"),
    Routing("min-ad", MIN_AD, "greedy", None, False,
            "minimal adaptive: productive channel with the shortest queue; VC by hops remaining (Kim §3.1)"),
    Routing("val", VAL, "greedy", 2, True, "Valiant: DOR to a random intermediate router, then DOR (2 VCs)"),
    Routing("ugal", UGAL, "greedy", 2, True, "UGAL: minimal vs Valiant by queue x hops, greedy allocator"),
    Routing("ugal-s", UGAL, "sequential", 2, True, "UGAL with the sequential allocator (Kim §3.1)"),
    Routing("clos-ad", CLOS_AD, "sequential", 2, False,
            "adaptive Clos: least-loaded intermediate in the flattened Clos, sequential allocator"),
)}


def get_routing(name: str) -> Routing:
    try:
        return ROUTINGS[name]
    except KeyError:
        raise ParamError("routing", f"must be one of {', '.join(ROUTINGS)} (got {name!r})") from None


@dataclass
class HyperXTables:
    """Port tables of a HyperX-family Network for dimension-ordered routing.

    Attributes
    ----------
    dims : ndarray (D,)
        Routers per dimension.
    coords : ndarray (R, D)
        Router coordinates.
    port_to : ndarray (R, D, max(dims))
        Output port from router r in dimension d to digit m (lane 0); -1 for r's own digit.
    eject_port : ndarray (T,)
        Port of terminal t on its router.
    term_router : ndarray (T,)
        Router of terminal t.
    """

    dims: np.ndarray
    coords: np.ndarray
    port_to: np.ndarray
    eject_port: np.ndarray
    term_router: np.ndarray


def compile_hyperx(net: Network) -> HyperXTables:
    """Compile the dimension port tables (lane 0 of every dimension)."""
    if net.family not in HYPERX_FAMILIES or net.coords is None:
        raise ParamError("topo", f"this routing needs a flattened-butterfly/HyperX network "
                                 f"({', '.join(HYPERX_FAMILIES)}); got {net.family}")
    if not net.is_direct:
        raise ParamError("topo", "routing tables need a direct network")
    coords = net.coords
    D = coords.shape[1]
    dims = coords.max(0) + 1 if D else np.zeros(0, np.int64)
    kmax = int(dims.max()) if D else 1
    R = net.num_routers
    port_to = np.full((R, max(D, 1), kmax), -1, dtype=np.int64)
    sel = net.lane == 0
    s, d, tag, port = net.src[sel], net.dst[sel], net.tag[sel], net.src_port[sel]
    port_to[s, tag, coords[d, tag]] = port
    return HyperXTables(dims=dims.astype(np.int64), coords=coords, port_to=port_to,
                        eject_port=net.ej_port.copy(), term_router=net.ej_router.copy())
