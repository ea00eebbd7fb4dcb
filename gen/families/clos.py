"""Folded Clos / fat tree: the k-ary n-tree and the radix-r, L-level folded Clos.

Two parameterisations of one construction:

* ``--k K --n N``: the k-ary n-tree (Petrini & Vanneschi 1997): ``k^n``
  terminals, ``n`` levels of ``k^(n-1)`` routers of radix ``2k``; the top
  level uses only its ``k`` down ports.
* ``--radix r --levels L [--terminals N]``: the folded Clos of radix-r routers
  used by Kim, Dally, Abts (ISCA 2007): non-top routers have ``m = r/2`` down
  and ``m`` up ports, top routers use all ``r`` ports downward (so there are
  half as many). ``N`` defaults to the maximum ``2 m^L``. Kim §3.3: "the
  folded-Clos network is a 3-stage network using radix-64 routers" for 1024
  nodes, and §4.3: "with N = 1K network, the folded Clos requires 2048 links"
  (``radix=64, levels=2, terminals=1024``: 32 leaves with 32 terminals and 32
  uplinks, 16 spines with 64 down ports, 2048 unidirectional channels).

Structure
---------
With ``m`` down ports per non-top router and ``L`` levels, the bottom ``L-1``
levels form ``P`` *pods*, each an m-ary (L-1)-tree; levels ``0 .. L-2`` hold
``P m^(L-2)`` routers each, router ``w = pod * m^(L-2) + u`` (``u`` has L-2
base-m digits; the pod is digit L-2 of ``w``). Terminal ``t`` attaches to
leaf ``t // m`` on port ``t % m``; ``N = P m^(L-1)``.

* Inside a pod (levels l -> l+1, l <= L-3): up port ``j`` of router ``(l, w)``
  goes to router ``(l+1, w with digit l replaced by j)`` and arrives on its
  down port ``w_l`` (Petrini & Vanneschi: routers of adjacent levels are joined
  iff their rows agree except in digit l).
* Top level: ``m^(L-2)`` planes (one per ``u``) of ``S = P m / T`` spines with
  ``T`` down ports each (``T = k`` for the k-ary n-tree, ``T = r`` for the
  radix form); top router ``s * m^(L-2) + u``. Up port ``j`` of the pod-top
  router ``(L-2, pod, u)`` goes to spine ``s = j mod S`` of plane ``u`` on lane
  ``j // S`` and arrives on down port ``pod * (T/P) + j // S``. Every pod-top
  router thus reaches every spine of its plane over ``T/P`` parallel lanes.
  For the k-ary n-tree (P = T = k, S = k, one lane) this is again the digit rule
  with the pod digit, i.e. the P&V tree exactly.

With ``N`` below the maximum, ``P = N / m^(L-1)`` pods must be an even divisor
of ``r`` (so every pod-top router meets every spine of its plane equally
often and all spine ports are used); other ``N`` are refused with the list of
allowed values. (For L = 2 a pod is a single leaf: N = 1024, r = 64 gives P = 32.)
With no shape parameter at all the family builds Kim's 1K folded Clos
(``radix=64, levels=2, terminals=1024``).

Port layout (contract for routing tables and RTL)
-------------------------------------------------
Every router has radix ``2m`` (``2k`` for the k-ary n-tree). Ports ``0 .. m-1``
face down (terminals on leaves), ports ``m .. 2m-1`` face up; top routers use
ports ``0 .. T-1`` downward and leave the rest unused (k-ary n-tree). Input and
output with the same port number face the same neighbour.
Routers are numbered level by level, level 0 (leaves) first;
``coords = (level, index within the level)``.

Channel ``tag`` = level of the lower end (``l`` for channels between levels
``l`` and ``l+1``); every link is bidirectional (an up and a down channel with
the same lane).
"""

from __future__ import annotations

import numpy as np

from ..builder import NetworkBuilder
from ..cost import CostParams, Packaging, Placement, floor_grid, pack_groups
from ..family import Family, Knowledge, register
from ..network import Network
from ..params import Param, ParamError
from ..routing import RouteTable, check_acyclic, compile_table

__all__ = ["clos_shape"]


def clos_shape(p: dict) -> dict:
    """Derived shape of a validated parameter dict.

    Returns ``m`` (down ports of non-top routers), ``L`` (levels), ``P`` (pods),
    ``T`` (down ports used on a top router), ``S`` (spines per plane),
    ``lanes`` (links per pod-top router/spine pair), ``N`` and the router counts.

    >>> s = clos_shape({"k": None, "n": None, "radix": 64, "levels": 2, "terminals": 1024})
    >>> s["per_level"], s["top"], s["lanes"]
    (32, 16, 2)
    """
    if p.get("k") is not None:
        m, L = p["k"], p["n"]
        P, T = m, m
    else:
        m, L = p["radix"] // 2, p["levels"]
        P, T = p["terminals"] // m ** (L - 1), 2 * m
    planes = m ** (L - 2)
    S = P * m // T
    return {"m": m, "L": L, "P": P, "T": T, "S": S, "lanes": T // P, "planes": planes,
            "per_level": P * planes, "top": planes * S, "N": P * m ** (L - 1),
            "routers": (L - 1) * P * planes + planes * S}


def _check(p: dict) -> None:
    tree = p["k"] is not None or p["n"] is not None
    folded = p["radix"] is not None or p["levels"] is not None
    if tree and folded:
        raise ParamError("k", "give either --k and --n (k-ary n-tree) or --radix and --levels "
                              "(folded Clos of radix-r routers), not both")
    if tree:
        if p["k"] is None or p["n"] is None:
            raise ParamError("k" if p["k"] is None else "n", "the k-ary n-tree needs both --k and --n")
        N = p["k"] ** p["n"]
        if p["terminals"] is not None and p["terminals"] != N:
            raise ParamError("terminals", f"a {p['k']}-ary {p['n']}-tree has N = k^n = {N} terminals "
                                          f"(got {p['terminals']})")
        p["terminals"] = N
        return
    if not tree and not folded:                      # default: Kim's 1K folded Clos (§3.3, §4.3)
        p["radix"], p["levels"] = 64, 2
        if p["terminals"] is None:
            p["terminals"] = 1024
    if p["radix"] is None or p["levels"] is None:
        raise ParamError("radix" if p["radix"] is None else "levels",
                         "give --radix and --levels (or --k and --n for a k-ary n-tree)")
    r, L = p["radix"], p["levels"]
    if r % 2:
        raise ParamError("radix", f"must be even: non-top routers have r/2 down and r/2 up ports (got {r})")
    m = r // 2
    top = 2 * m ** L
    if p["terminals"] is None:
        p["terminals"] = top
        return
    N = p["terminals"]
    pod = m ** (L - 1)
    allowed = [P * pod for P in range(2, r + 1, 2) if r % P == 0]
    if N not in allowed:
        shown = ", ".join(str(a) for a in allowed)
        raise ParamError("terminals", f"a {L}-level folded Clos of radix-{r} routers supports N = P*(r/2)^(L-1) "
                                      f"with P pods an even divisor of r: one of {shown} (got {N})")


def _size(p: dict) -> tuple[int, int]:
    s = clos_shape(p)
    return s["routers"], 2 * (s["L"] - 1) * s["N"]


def _build(p: dict) -> Network:
    s = clos_shape(p)
    m, L, P, T, S, planes, per = s["m"], s["L"], s["P"], s["T"], s["S"], s["planes"], s["per_level"]
    R = s["routers"]
    b = NetworkBuilder("clos", p, R, 2 * m)
    N = s["N"]
    b.terminals(np.arange(N, dtype=np.int64) // m)
    w = np.repeat(np.arange(per, dtype=np.int64), m)     # (router, up port) pairs of one level
    j = np.tile(np.arange(m, dtype=np.int64), per)
    for level in range(L - 1):
        # network port numbers exclude the leaf's m terminal ports
        up = j if level == 0 else m + j
        child = level * per + w
        if level < L - 2:
            stride = np.int64(m) ** level
            digit = (w // stride) % m
            parent = (level + 1) * per + w + (j - digit) * stride
            pport = digit                                  # parent's down port (its network port, base 0)
            lane = 0
        else:
            u = w % planes
            pod = w // planes
            spine = j % S
            lane = j // S
            parent = (L - 1) * per + spine * planes + u
            pport = pod * (T // P) + lane
        b.channels(child, parent, tag=level, lane=lane, src_port=up, dst_port=pport)
        b.channels(parent, child, tag=level, lane=lane, src_port=pport, dst_port=up)
    idx = np.arange(R, dtype=np.int64)
    lev = np.minimum(idx // per, L - 1)
    coords = np.stack([lev, idx - lev * per], axis=1)
    return b.build(coords=coords, coord_names=("level", "index"),
                   tag_names={lv: f"level{lv}-level{lv + 1}" for lv in range(L - 1)})


def _knowledge(net: Network) -> Knowledge:
    """Each level is one automorphism orbit (permute pods; permute the values of
    a row digit in every pod and plane at once; permute spines of a plane).

    Bisection: the tree is rearrangeably non-blocking (every level has as many
    up as down channels; recursively a Clos C(m middle switches, m inputs),
    Slepian-Duguid), so the N/2 terminals of one side can send a permutation to
    the other side over channel-disjoint paths: any balanced cut has >= N/2
    channels in each direction. Splitting the pods in halves (each spine on
    either side) cuts exactly N/2, so N/2 is exact when the pod count is even.
    """
    s = clos_shape(net.params)
    per, L = s["per_level"], s["L"]
    classes = [(lv * per, per) for lv in range(L - 1)] + [((L - 1) * per, s["top"])]
    kn = Knowledge(vertex_classes=classes, vertex_transitive=False,
                   extra={"levels": L, "pods": s["P"], "spines_per_plane": s["S"], "lanes_to_spine": s["lanes"],
                          "max_inter_router_hops": 2 * (L - 1)})
    if s["P"] % 2 == 0:
        kn.bisection_width = s["N"] // 2
        kn.bisection_exact = True
        kn.bisection_note = ("full-bisection fat tree: pod-halves cut gives N/2, rearrangeability "
                             "(Slepian-Duguid) gives >= N/2")
    return kn


# ---------------------------------------------------------------- route tables (router-spec §R7d)
def clos_up_ports(net: Network) -> np.ndarray:
    """Up ports of every router of a folded Clos, in port order, padded with -1: shape (R, max up ports).

    A port is *up* when its output channel leads to a router of a higher level (``coords[:, 0]``,
    :mod:`radixnet.gen.families.clos`).
    """
    if net.family != "clos":
        raise ParamError("routing", f"clos-adaptive routes on the folded Clos (clos family); got {net.family}")
    lev = net.coords[:, 0]
    up = lev[net.dst] > lev[net.src]
    R = net.num_routers
    n_up = np.bincount(net.src[up], minlength=R)
    out = np.full((R, max(1, int(n_up.max(initial=0)))), -1, np.int64)
    s, p = net.src[up], net.src_port[up]
    order = np.lexsort((p, s))
    s, p = s[order], p[order]
    rank = np.arange(s.size) - np.searchsorted(s, s, side="left")
    out[s, rank] = p
    return out


def compile_clos_adaptive(net: Network, classes: int | None = None) -> tuple[RouteTable, np.ndarray]:
    """The tables of ``clos-adaptive`` (router-spec §R7d): the down phase's table and the up ports.

    Thamarakuzhi & Chandy §IV compare against "Adaptive Clos" (Kim, Dally, Abts, SC06): "In the forward
    phase any of the output queue in the forward path is adaptively selected by considering the number of
    packets in each output queue. In the reverse phase routing is deterministic as there exists only a
    single path to the destination." The forward (up) phase lasts while the ``sp`` table's hop goes up
    (the destination is not below the router); the kernel then picks the up port with the shortest queue.
    The backward (down) phase follows the table. Up*/down* routes never turn up after going down, so one VC
    class suffices; :func:`check_clos_adaptive` checks the dependency graph of every choice.

    Returns
    -------
    (RouteTable, ndarray)
        The table (one class, ``routing="clos-adaptive"``) and :func:`clos_up_ports`.
    """
    up = clos_up_ports(net)
    t = compile_table(net, 1 if classes is None else classes)
    t.routing = "clos-adaptive"
    return t, up


def clos_adaptive_dependencies(net: Network, table: RouteTable, up: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Channel-dependency graph of ``clos-adaptive`` over every route it may choose (one VC class).

    From router x toward destination router d the routing may take every up port of x when the table's
    hop goes up, else the table's (down) hop. Walks the reachable (channel, destination) states and adds
    an edge from each channel to every channel the routing may take next.
    """
    pt = net.port_table()["out_channel"]
    src_r, dst_r = np.unique(net.inj_router), np.unique(net.ej_router)
    is_up = np.zeros(pt.shape, bool)
    rr, cc = np.nonzero(up >= 0)
    is_up[rr, up[rr, cc]] = True
    K = table.classes

    def choices(x, di):
        """Channels the routing may take at routers x toward dst_r[di] (list of (index, channel))."""
        d = dst_r[di]
        port = table.next_port[x, d]
        going_up = is_up[x, np.maximum(port, 0)] & (port >= 0)
        res = [(np.flatnonzero(~going_up), pt[x[~going_up], port[~going_up]])]
        for i in range(up.shape[1]):
            u = up[x, i]
            ok = going_up & (u >= 0)
            res.append((np.flatnonzero(ok), pt[x[ok], u[ok]]))
        return res

    C, Dn = net.num_channels, dst_r.size
    seen = np.zeros((C, Dn), bool)
    S, Di = np.meshgrid(src_r, np.arange(Dn), indexing="ij")
    x, di = S.ravel(), Di.ravel()
    keep = x != dst_r[di]
    x, di = x[keep], di[keep]
    fc, fd = [], []
    for idx, ch in choices(x, di):
        fc.append(ch), fd.append(di[idx])
    c, di = np.concatenate(fc), np.concatenate(fd)
    seen[c, di] = True
    us, vs = [], []
    while c.size:
        x = net.dst[c]
        go = x != dst_r[di]
        c, di, x = c[go], di[go], x[go]
        nc, nd = [], []
        for idx, ch in choices(x, di):
            us.append(c[idx] * K), vs.append(ch * K)
            nc.append(ch), nd.append(di[idx])
        c, di = np.concatenate(nc), np.concatenate(nd)
        new = ~seen[c, di]
        c, di = c[new], di[new]
        key = np.unique(c * Dn + di)
        c, di = key // Dn, key % Dn
        seen[c, di] = True
    u = np.concatenate(us) if us else np.zeros(0, np.int64)
    v = np.concatenate(vs) if vs else np.zeros(0, np.int64)
    N = C * K
    key = np.unique(u * N + v)
    return key // N, key % N, N


def check_clos_adaptive(net: Network, table: RouteTable, up: np.ndarray) -> int:
    """Raise :class:`DeadlockError` naming a cycle if ``clos-adaptive``'s dependency graph is cyclic."""
    u, v, n = clos_adaptive_dependencies(net, table, up)
    return check_acyclic(net, u, v, n, table.classes, table.routing)


# ---------------------------------------------------------------- packaging for the cost model (Kim §4.2)
def place_clos(net: Network, params: CostParams) -> Placement:
    s = clos_shape(net.params)
    m, L, P, planes, per = s["m"], s["L"], s["P"], s["planes"], s["per_level"]
    R = net.num_routers
    npc = params.nodes_per_cabinet
    cap = params.router_cabinet_routers
    leaves_per_cab = max(1, npc // m)
    if m > npc:
        raise ParamError("nodes_per_cabinet", f"a leaf's {m} nodes do not fit a cabinet of {npc}")
    router_cab = np.full(R, -1, dtype=np.int64)
    idx = np.arange(R)
    level = np.minimum(idx // per, L - 1)
    within = idx - level * per
    # node cabinets hold leaves in order (a pod's leaves are consecutive); in the pods layout each pod's
    # router cabinets are inserted amid the pod's node cabinets
    pods_layout = params.clos_routers == "pods" and L >= 3
    leaves_per_pod = m ** (L - 2)
    leaf_cab0 = np.arange(per) // leaves_per_cab
    n_leaf_cabs = int(leaf_cab0.max()) + 1
    remap = np.arange(n_leaf_cabs)
    seq_cab = n_leaf_cabs
    if pods_layout:
        pod_of_cab = (np.arange(n_leaf_cabs) * leaves_per_cab) // leaves_per_pod
        seq = 0
        for pod in range(P):
            cabs = np.flatnonzero(pod_of_cab == pod)
            mids = idx[(level >= 1) & (level <= L - 2) & (within // planes == pod)]
            pod_rcabs = pack_groups([mids], cap)
            half = cabs.size // 2
            remap[cabs[:half]] = seq + np.arange(half)
            seq += half
            for rc in pod_rcabs:
                router_cab[rc] = seq
                seq += 1
            remap[cabs[half:]] = seq + np.arange(cabs.size - half)
            seq += cabs.size - half
        seq_cab = seq
    leaf_cab = remap[leaf_cab0]
    router_cab[:per] = leaf_cab
    # central routers, grouped by plane u (a plane's spines and, in the central layout, the routers below them)
    upper = idx[level >= (L - 1 if pods_layout else 1)]
    u = within[upper] % planes
    groups = []
    for plane in range(planes):
        sel = upper[u == plane]
        groups.append(sel[np.lexsort((within[sel], level[sel]))])
    rcabs = pack_groups(groups, cap)
    for i, c in enumerate(rcabs):
        router_cab[c] = seq_cab + i
    node_xy, rtr_xy, cols, rows = floor_grid(seq_cab, params, None, central=len(rcabs))
    xy = np.concatenate([node_xy, rtr_xy]) if len(rcabs) else node_xy
    term_cab = router_cab[net.inj_router]
    return Placement(router_cab, term_cab, xy, seq_cab, len(rcabs), cols, rows)


register(Family(
    name="clos",
    summary="folded Clos / fat tree: k-ary n-tree (--k --n) or L levels of radix-r routers (--radix --levels)",
    params=(
        Param("k", int, None, "k-ary n-tree: down (and up) ports per router", minimum=2),
        Param("n", int, None, "k-ary n-tree: levels (k^n terminals)", minimum=2, maximum=64),
        Param("radix", int, None, "folded Clos: router radix r (even; r/2 down, r/2 up; top r down)", minimum=4),
        Param("levels", int, None, "folded Clos: router levels L", minimum=2, maximum=64),
        Param("terminals", int, None, "terminals N (default: the maximum, 2*(r/2)^L or k^n)", minimum=2),
    ),
    check=_check,
    build=_build,
    size=_size,
    terminals=lambda p, routers: p["terminals"],
    knowledge=_knowledge,
    packaging=Packaging('clos', False, "leaves with their nodes, top-level routers in router cabinets in the middle of the floor, each pod's other routers amid the pod (Kim §4.2, Fig. 9(a); clos_routers)",
                        place_clos),
    reference="Petrini & Vanneschi 1997 (k-ary n-trees); Kim, Dally, Abts ISCA 2007 §3.3, §4.3 (1K folded Clos)",
))
