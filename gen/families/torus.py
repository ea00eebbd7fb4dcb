"""k-ary n-cube torus and mesh with per-dimension sizes (Dally & Towles ch. 5).

Router index ``i = sum_d x_d prod_{e<d} k_e`` (dimension 1 least significant).
Port layout: terminal ports ``0 .. c-1``, then for each dimension ``d`` the
``+`` port (``c + 2d``) and the ``-`` port (``c + 2d + 1``); input and output
of one port number face the same neighbour. A torus dimension of size 2 keeps
both ring channels (lane 1 on the wrap-around). Channel ``tag`` = dimension.
A mesh leaves the edge ports unused. The TTN paper's Table 1 compares 2D mesh
and 2D torus rows at 256 and 4096 nodes.
"""

from __future__ import annotations

import math

import numpy as np

from ..builder import NetworkBuilder
from ..family import Family, Knowledge, register
from ..params import Param


def _build(p: dict, wrap: bool):
    dims, c = p["dims"], p["c"]
    D, R = len(dims), math.prod(dims)
    idx = np.arange(R, dtype=np.int64)
    strides = np.cumprod([1] + dims[:-1]).astype(np.int64)
    coords = np.stack([(idx // strides[d]) % dims[d] for d in range(D)], axis=1)
    b = NetworkBuilder(p["_family"], {k: v for k, v in p.items() if k != "_family"}, R, c + 2 * D)
    b.terminals(np.repeat(idx, c))
    for d, k in enumerate(dims):
        x = coords[:, d]
        plus = np.where(x == k - 1, idx - (k - 1) * strides[d], idx + strides[d])
        has_plus = np.ones(R, bool) if wrap else x < k - 1
        lane = np.where(x == k - 1, 1, 0) if (wrap and k == 2) else 0
        u, v = idx[has_plus], plus[has_plus]
        lane = np.broadcast_to(lane, (R,))[has_plus]
        b.channels(u, v, tag=d, lane=lane, src_port=2 * d, dst_port=2 * d + 1)      # + direction
        b.channels(v, u, tag=d, lane=lane, src_port=2 * d + 1, dst_port=2 * d)      # - direction
    return b.build(coords=coords, coord_names=tuple(f"x{d + 1}" for d in range(D)),
                   tag_names={d: f"dim{d + 1}" for d in range(D)})


def _knowledge(net, wrap: bool) -> Knowledge:
    dims = net.params["dims"]
    R = math.prod(dims)
    k = Knowledge()
    if wrap:
        k.vertex_classes, k.vertex_transitive = [(0, R)], True
    else:
        # mesh: orbits under reflections; one representative per class of
        # folded coordinates min(x, k-1-x) (exact, product of reflections)
        coords = net.coords
        folded = np.minimum(coords, np.asarray(dims) - 1 - coords)
        _, first, counts = np.unique(folded, axis=0, return_index=True, return_counts=True)
        k.vertex_classes = [(int(f), int(n)) for f, n in zip(first, counts)]
    even = [d for d in dims if d % 2 == 0]
    if even:
        # cutting the largest even dimension in half (the minimum cut for k-ary n-cubes)
        kmax = max(even)
        per_ring = 2 if wrap else 1
        k.bisection_width = R // kmax * per_ring
        k.bisection_exact = len(set(dims)) == 1
        k.bisection_note = "cut across the largest dimension" + ("" if k.bisection_exact else " (bound)")
    return k


for _name, _wrap, _summary in (("torus", True, "k-ary n-cube torus, per-dimension sizes"),
                               ("mesh", False, "k-ary n-mesh, per-dimension sizes")):
    register(Family(
        name=_name,
        summary=_summary,
        params=(
            Param("dims", list, [8, 8], "routers per dimension, e.g. 16,16", minimum=2),
            Param("c", int, 1, "terminals per router", minimum=0),
        ),
        check=None,
        build=(lambda w, n: (lambda p: _build({**p, "_family": n}, w)))(_wrap, _name),
        size=lambda p: (math.prod(p["dims"]), 2 * len(p["dims"]) * math.prod(p["dims"])),
        knowledge=(lambda w: (lambda net: _knowledge(net, w)))(_wrap),
        reference="Dally & Towles, Principles and Practices of Interconnection Networks, ch. 5; TTN paper Table 1",
    ))
