"""HyperX / generalized hypercube (Bhuyan & Agrawal 1984; Ahn et al. 2009).

Routers sit on a grid ``dims = [s_1, ..., s_D]``; router index
``i = sum_d x_d * prod_{e<d} s_e`` (dimension 1 is the least significant
digit, as in Kim et al. Eq. 1). In each dimension a router is linked to every
router that differs from it in that digit only (a complete graph per
dimension), with ``mult[d]`` parallel links, and carries ``c`` terminals.

Port layout (documented contract used by routing tables and the RTL):
terminal ports ``0 .. c-1``; then, dimension by dimension, for each other
digit value ``m`` in increasing order, ``mult[d]`` ports (one per lane). The
input and output with the same port number connect to the same neighbour.
Channel ``tag`` = dimension index (0 for dimension 1).

The flattened butterfly (Kim et al. §2.1–2.3: "a k-ary n-flat ... is similar
to a generalized hypercube"), the 2-dilated flattened butterfly and the binary
hypercube are special cases built by this module, so they are the identical
Network.
"""

from __future__ import annotations

import math

import numpy as np

from ..builder import NetworkBuilder
from ..cost import CostParams, Packaging, Placement, direct_placement
from ..family import Family, Knowledge, register
from ..network import Network
from ..params import Param, ParamError

__all__ = ["build_hyperx", "hyperx_knowledge", "hyperx_size"]


def build_hyperx(family: str, params: dict, dims, mult, conc: int, radix: int | None = None) -> Network:
    """Build a HyperX network.

    Parameters
    ----------
    family, params : str, dict
        Recorded in the Network.
    dims : list of int
        Routers per dimension (each >= 2).
    mult : list of int
        Parallel links per router pair in each dimension.
    conc : int
        Terminals per router.
    radix : int, optional
        Router radix if larger than needed (spare ports are left unused).
    """
    dims = [int(s) for s in dims]
    mult = [int(m) for m in mult]
    D = len(dims)
    R = math.prod(dims)
    idx = np.arange(R, dtype=np.int64)
    strides = np.cumprod([1] + dims[:-1]).astype(np.int64)
    coords = np.stack([(idx // strides[d]) % dims[d] for d in range(D)], axis=1) if D else np.zeros((R, 0), np.int64)
    b = NetworkBuilder(family, params, R, radix)
    b.terminals(np.repeat(idx, conc))
    base = 0
    for d, (s, m) in enumerate(zip(dims, mult)):
        a = coords[:, d]
        # every (router, other digit value, lane)
        other = np.arange(s, dtype=np.int64)
        src = np.repeat(idx, s * m)
        digit_src = np.repeat(a, s * m)
        mval = np.tile(np.repeat(other, m), R)
        lane = np.tile(np.arange(m, dtype=np.int64), R * s)
        keep = mval != digit_src
        src, digit_src, mval, lane = src[keep], digit_src[keep], mval[keep], lane[keep]
        dst = src + (mval - digit_src) * strides[d]  # Kim et al. Eq. (1)
        # port among the (s-1) other digits: rank of mval skipping own digit
        rank_out = mval - (mval > digit_src)
        rank_in = digit_src - (digit_src > mval)  # at dst, the neighbour is our digit
        b.channels(src, dst, tag=d, lane=lane, src_port=base + rank_out * m + lane,
                   dst_port=base + rank_in * m + lane)
        base += (s - 1) * m
    names = tuple(f"x{d + 1}" for d in range(D))
    return b.build(coords=coords, coord_names=names, tag_names={d: f"dim{d + 1}" for d in range(D)})


def hyperx_size(dims, mult, conc) -> tuple[int, int]:
    R = math.prod(int(s) for s in dims)
    return R, R * sum((s - 1) * m for s, m in zip(dims, mult))


def hyperx_knowledge(dims, mult) -> Knowledge:
    """HyperX is vertex-transitive (a Cartesian product of complete multigraphs).

    Bisection: cutting dimension ``d`` in half cuts ``R/s_d * (s_d/2)^2 * m_d``
    links. Exact for one dimension (a balanced cut of K_s cuts (s/2)^2 pairs)
    and for equal even dimensions with equal multiplicity (Hamming graph,
    bisection s^(D+1)/4 by the edge-isoperimetric theorem of Lindsey 1964);
    otherwise the best single-dimension cut is reported as an upper bound.
    """
    R = math.prod(dims)
    cuts = [R // s * (s // 2) ** 2 * m for s, m in zip(dims, mult) if s % 2 == 0]
    k = Knowledge(vertex_classes=[(0, R)], vertex_transitive=True)
    if cuts:
        k.bisection_width = min(cuts)
        uniform = len(set(dims)) == 1 and len(set(mult)) == 1
        k.bisection_exact = len(dims) == 1 or uniform
        k.bisection_note = ("complete graph per dimension" if len(dims) == 1 else
                            "Hamming graph, Lindsey 1964" if uniform else "best single-dimension cut (bound)")
    return k


def _check(p: dict) -> None:
    dims = p["dims"]
    mult = p["mult"] if p["mult"] is not None else [1] * len(dims)
    if len(mult) == 1 and len(dims) > 1:
        mult = mult * len(dims)
    if len(mult) != len(dims):
        raise ParamError("mult", f"needs one value per dimension ({len(dims)}) or a single value (got {len(mult)})")
    p["mult"] = mult


# ---------------------------------------------------------------- packaging for the cost model (Kim §4.2)
def hyperx_dims(net: Network) -> list[int]:
    p = net.params
    if net.family == "fbfly":
        return [p["k"]] * (p["n"] - 1)
    if net.family == "2dfb":
        return [p["k"]] * p["n"]
    if net.family == "hypercube":
        return [2] * p["n"]
    return list(p["dims"])


def place_hyperx(net: Network, params: CostParams) -> Placement:
    dims = hyperx_dims(net)
    if not dims:
        return direct_placement(net, params)
    return direct_placement(net, params, group=dims[0], digits=dims[1:])


register(Family(
    name="hyperx",
    summary="HyperX / generalized hypercube: complete graph per dimension, per-dimension multiplicity",
    params=(
        Param("dims", list, [4, 4], "routers per dimension, e.g. 8,8,16", minimum=2),
        Param("mult", list, None, "parallel links per router pair, one per dimension or one for all (default 1)",
              minimum=1),
        Param("c", int, 1, "terminals per router (concentration)", minimum=0),
    ),
    check=_check,
    build=lambda p: build_hyperx("hyperx", p, p["dims"], p["mult"], p["c"]),
    size=lambda p: hyperx_size(p["dims"], p["mult"], p["c"]),
    knowledge=lambda net: hyperx_knowledge(net.params["dims"], net.params["mult"]),
    packaging=Packaging('hyperx', True, 'as the flattened butterfly (a HyperX is one with per-dimension sizes and multiplicities, Kim §2.3)',
                        place_hyperx),
    reference="Kim et al. 2007 §2.3 (generalized hypercube); Ahn et al. SC09 (HyperX)",
))
