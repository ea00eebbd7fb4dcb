"""2-dilated flattened butterfly (Thamarakuzhi & Chandy).

A k-ary n-dim 2DFB is the flattened butterfly with n dimensions of k routers,
k terminals per router, and every inter-router channel doubled (two parallel
channels, lanes 0 and 1, per ordered router pair); terminal links are single.
The 8-ary 1-dim 2DFB (N = 64) is the 64-port switch of eight switching
elements. Built as the HyperX ``dims=[k]*n, mult=[2]*n, c=k``.
"""

from __future__ import annotations

from ..cost import Packaging
from ..family import Family, register
from ..params import Param
from .hyperx import build_hyperx, hyperx_knowledge, hyperx_size, place_hyperx


def _check(p: dict) -> None:
    if p["c"] is None:
        p["c"] = p["k"]


register(Family(
    name="2dfb",
    summary="2-dilated flattened butterfly: every inter-router channel doubled (Thamarakuzhi & Chandy)",
    params=(
        Param("k", int, 8, "routers per dimension (and terminals per router by default)", minimum=2),
        Param("n", int, 1, "dimensions (8-ary 1-dim: N = 64; 8-ary 2-dim: N = 512)", minimum=1, maximum=64),
        Param("c", int, None, "terminals per router (default k)", minimum=0),
    ),
    check=_check,
    build=lambda p: build_hyperx("2dfb", p, [p["k"]] * p["n"], [2] * p["n"], p["c"]),
    size=lambda p: hyperx_size([p["k"]] * p["n"], [2] * p["n"], p["c"]),
    knowledge=lambda net: hyperx_knowledge([net.params["k"]] * net.params["n"], [2] * net.params["n"]),
    packaging=Packaging('2dfb', True, 'as the flattened butterfly, every channel doubled',
                        place_hyperx),
    reference="Thamarakuzhi & Chandy, Adaptive Load Balanced Routing for 2-Dilated Flattened Butterfly, §II",
))
