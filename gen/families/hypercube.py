"""Binary n-cube: 2^n routers, one link per dimension; the HyperX ``dims=[2]*n``.

Kim et al. §3.3 compare a 10-dimensional hypercube of 1024 nodes (e-cube routing).
"""

from __future__ import annotations

from ..cost import Packaging
from ..family import Family, register
from ..params import Param
from .hyperx import build_hyperx, hyperx_knowledge, hyperx_size, place_hyperx
from .torus import compile_dor

register(Family(
    name="hypercube",
    summary="binary n-cube (generalized hypercube with 2 routers per dimension)",
    params=(
        Param("n", int, 4, "dimensions (2^n routers)", minimum=1, maximum=22),
        Param("c", int, 1, "terminals per router", minimum=0),
    ),
    build=lambda p: build_hyperx("hypercube", p, [2] * p["n"], [1] * p["n"], p["c"]),
    size=lambda p: hyperx_size([2] * p["n"], [1] * p["n"], p["c"]),
    knowledge=lambda net: hyperx_knowledge([2] * net.params["n"], [1] * net.params["n"]),
    tables={"dor": compile_dor},   # e-cube: dimension order, one class
    packaging=Packaging('hypercube', True, '128 single-node routers per cabinet, higher dimensions halving the floor: cables of E/2, E/4, ... (Kim §4.2, Fig. 9(b))',
                        place_hyperx, pin_priced=True),
    reference="Kim et al. 2007 §3.3, Table 1 (hypercube, e-cube)",
))
