"""Butterfly, k-ary n-fly (Dally & Towles ch. 4; Kim, Dally, Abts, ISCA 2007 §2.1, Fig. 1(a,c)).

A k-ary n-fly connects ``N = k^n`` terminals through ``n`` stages of
``k^(n-1)`` radix-k routers (k inputs and k outputs each). It is an
*indirect* network: every terminal injects at stage 0 and ejects at stage
n-1, and channels run one way only, stage i -> stage i+1 (Kim §2.1: "lines
denote unidirectional links in the butterfly"). Kim §3.3 compares a
1024-node butterfly "built using 2 stages of radix-32 routers" (k=32, n=2),
routed "destination-based" (Table 1).

Numbering
---------
Router ``r = s * k^(n-1) + w`` is stage ``s`` (0..n-1), row ``w``
(0..k^(n-1)-1, written with n-1 base-k digits ``w_(n-2) .. w_0``);
``coords = (stage, row)``. Terminal ``t`` (n base-k digits
``t_(n-1) .. t_0``) injects at stage-0 router row ``t // k``, input port
``t % k``, and ejects at stage-(n-1) router row ``t // k``, output port
``t % k``.

Port layout (contract for routing tables and RTL)
-------------------------------------------------
Every router has radix ``k``; port ``p`` is input ``p`` and output ``p``
(each side may carry a terminal or a channel, never both):

* stage 0: input ``p`` = injection of terminal ``k*w + p``; output ``p`` = channel;
* middle stages: input and output ``p`` = channels;
* stage n-1: input ``p`` = channel; output ``p`` = ejection of terminal ``k*w + p``.

Because a stage-0 input port is both a terminal port and (as output) a network
port, this layout cannot be expressed by the NetworkBuilder's "terminal ports
first" numbering; the Network is assembled directly.

Wiring (digit swap)
-------------------
Output ``p`` of stage-``i`` router row ``w`` (i < n-1) goes to the stage-(i+1)
router whose row is ``w`` with digit ``d = n-2-i`` replaced by ``p``, and
enters it on input port ``w_d`` (the digit it replaced). So stage 0 sets the
most significant row digit and the last inter-stage column the least
significant one; for k=4, n=2 router row 0 of stage 0 feeds rows 0..3 of
stage 1, as in Kim Fig. 1(a) (channel (R0,R1) local to row 0).

Destination-tag routing: a packet for terminal ``t`` leaves stage ``i`` on
output port ``t_(n-1-i)`` (digit n-1-i of the destination, most significant
first); after stage n-2 the row equals ``t // k`` and stage n-1 ejects on port
``t_0``. Every terminal pair is joined by exactly one path of n-1
inter-router channels. Contracting each row (stages merged) and dropping
row-local channels gives the k-ary n-flat of Kim §2.1.

Channel ``tag`` = stage of the channel's source (0..n-2); ``lane`` = 0.
"""

from __future__ import annotations

import math

import numpy as np

from ..cost import CostParams, Packaging, Placement, cab_digits, floor_grid
from ..family import Family, Knowledge, register
from ..network import Network
from ..params import Param, ParamError
from ..routing import RouteTable, cap_classes

__all__ = ["butterfly_route_port"]


def butterfly_route_port(k: int, n: int, stage, dest):
    """Destination-tag routing: output port taken at ``stage`` toward terminal ``dest``.

    >>> [int(butterfly_route_port(2, 3, s, 0b110)) for s in range(3)]
    [1, 1, 0]
    """
    stage = np.asarray(stage, dtype=np.int64)
    dest = np.asarray(dest, dtype=np.int64)
    return (dest // np.int64(k) ** (n - 1 - stage)) % k


def _build(p: dict) -> Network:
    k, n = p["k"], p["n"]
    K = k ** (n - 1)                       # routers per stage
    R, N = n * K, k ** n
    t = np.arange(N, dtype=np.int64)
    inj_router, inj_port = t // k, t % k
    ej_router, ej_port = (n - 1) * K + t // k, t % k
    srcs, sports, dsts, dports, tags = [], [], [], [], []
    w = np.repeat(np.arange(K, dtype=np.int64), k)      # row, port-major within the router
    port = np.tile(np.arange(k, dtype=np.int64), K)
    for i in range(n - 1):
        d = n - 2 - i
        stride = np.int64(k) ** d
        digit = (w // stride) % k
        srcs.append(i * K + w)
        sports.append(port)
        dsts.append((i + 1) * K + w + (port - digit) * stride)
        dports.append(digit)
        tags.append(np.full(w.size, i, np.int64))
    cat = (lambda xs: np.concatenate(xs) if xs else np.zeros(0, np.int64))
    src, src_port, dst, dst_port, tag = (cat(x) for x in (srcs, sports, dsts, dports, tags))
    idx = np.arange(R, dtype=np.int64)
    coords = np.stack([idx // K, idx % K], axis=1)
    return Network("butterfly", dict(p), np.full(R, k, np.int64), src, src_port, dst, dst_port, tag,
                   np.zeros(src.size, np.int64), inj_router, inj_port, ej_router, ej_port,
                   coords=coords, coord_names=("stage", "row"),
                   tag_names={i: f"stage{i}->stage{i + 1}" for i in range(n - 1)})


def _knowledge(net: Network) -> Knowledge:
    """Routers of one stage form one automorphism orbit (permuting the values of
    each row digit, in every stage at once, preserves the digit-swap wiring).

    Bisection (bound): put rows with most significant digit < k/2 (all stages)
    and their terminals on one side; only the stage 0 -> 1 channels change that
    digit, so N/4 channels cross in each direction (N/2 in total).
    """
    k, n = net.params["k"], net.params["n"]
    K = k ** (n - 1)
    kn = Knowledge(vertex_classes=[(s * K, K) for s in range(n)], vertex_transitive=(n == 1),
                   extra={"stages": n, "inter_router_hops": n - 1})
    if n >= 2 and k % 2 == 0:
        kn.bisection_width = k ** n // 4
        kn.bisection_exact = False
        kn.bisection_note = ("row-half cut (top row digit < k/2): N/4 channels each direction, "
                             "N/2 in total (upper bound)")
    return kn


# ---------------------------------------------------------------- route tables (router-spec §R7d)
def compile_dest_tag(net: Network, classes: int | None = None) -> RouteTable:
    """Destination-tag routing on the butterfly (router-spec §R7d; Dally & Towles ch. 4, Kim et al. §2.1).

    A k-ary n-fly packet for terminal ``t`` leaves stage ``i`` on output port ``t_(n-1-i)``, digit
    ``n-1-i`` of ``t`` in base k (most significant first,
    :func:`radixnet.gen.families.butterfly.butterfly_route_port`): the unique path of ``n - 1``
    inter-router channels. Only digits ``n-1 .. 1`` are used between routers, and they are the row of
    the destination router, so the port is a function of the destination *router*: entry
    ``next_port[r, d]`` for a stage-``i`` router ``r`` that reaches ``d`` (``-1`` where it cannot). All
    channels run from stage i to i + 1, so one VC class makes the channel-dependency graph acyclic.

    Examples
    --------
    >>> from radixnet.gen import build
    >>> net = build("butterfly", k=2, n=3)                  # routers 0-3 stage 0, 8-11 stage 2
    >>> t = compile_dest_tag(net)
    >>> t.classes, t.next_port[0, 8 + 3].item(), t.dist[0, 8 + 3].item()   # row 3 = digits 1,1: ports 1, 1
    (1, 1, 2)
    """

    if net.family != "butterfly":
        raise ParamError("routing", f"dest-tag is destination-tag routing on the butterfly (got {net.family})")
    k, n = net.params["k"], net.params["n"]
    R = net.num_routers
    stage, row = net.coords[:, 0], net.coords[:, 1]
    rr, dd = np.meshgrid(np.arange(R), np.arange(R), indexing="ij")
    s, w, ds, dw = stage[rr], row[rr], stage[dd], row[dd]
    # r reaches d iff d is in the last stage and r's row already carries d's row digits set before stage s:
    # stage i sets digit n-2-i, so digits n-2 .. n-1-s agree and digits below n-1-s are r's own (Kim §2.1)
    low = np.int64(k) ** np.maximum(n - 1 - s, 0)
    reach = (ds == n - 1) & (s < n - 1) & ((w - w % low) == (dw - dw % low))
    port = butterfly_route_port(k, n, np.minimum(s, n - 1), dw * k)
    nxt = np.where(reach, port, -1).astype(np.int32)
    cls, Kc = cap_classes(np.where(reach, 0, -1), 1, classes, "dest-tag")
    table = RouteTable(nxt, np.zeros((R, R), np.int32), Kc, net.ej_port.copy(), net.ej_router.copy(), cls,
                       "dest-tag")
    table.dist = np.where(reach, ds - s, 0).astype(np.int32)
    return table


# ---------------------------------------------------------------- packaging for the cost model (Kim §4.2)
def place_butterfly(net: Network, params: CostParams) -> Placement:
    k, n = int(net.params["k"]), int(net.params["n"])
    rows = k ** (n - 1)
    row = np.arange(net.num_routers) % rows
    npc = params.nodes_per_cabinet
    if k <= npc:
        per = npc // k
        row_cab = np.arange(rows) // per
        digits = cab_digits([k] * (n - 1), per)
    else:
        per = 1
        row_cab = np.arange(rows) * -(-k // npc)
        digits = None
    router_cab = row_cab[row]
    t = np.arange(net.num_terminals)
    term_cab = row_cab[t // k] + ((t % k) // npc if k > npc else 0)
    C = int(max(router_cab.max(initial=0), term_cab.max(initial=0))) + 1
    node_xy, _, cols, rows_ = floor_grid(C, params, digits if digits and math.prod(digits) == C else None)
    return Placement(router_cab, term_cab, node_xy, C, 0, cols, rows_)


register(Family(
    name="butterfly",
    summary="butterfly k-ary n-fly: n stages of k^(n-1) radix-k routers, unidirectional, destination-tag",
    params=(
        Param("k", int, 4, "router radix (k inputs and k outputs) and digit base", minimum=2),
        Param("n", int, 2, "stages; N = k^n terminals", minimum=1, maximum=64),
    ),
    build=_build,
    size=lambda p: (p["n"] * p["k"] ** (p["n"] - 1), (p["n"] - 1) * p["k"] ** p["n"]),
    terminals=lambda p, routers: p["k"] ** p["n"],
    knowledge=_knowledge,
    tables={"dest-tag": compile_dest_tag},
    packaging=Packaging('butterfly', False, "router row w of every stage with the nodes of row w: the flattened butterfly's cable lengths (Kim §4.2)",
                        place_butterfly, pin_priced=True),
    reference="Dally & Towles ch. 4; Kim, Dally, Abts ISCA 2007 §2.1 Fig. 1(a,c), §3.3 (2 stages of radix-32)",
))
