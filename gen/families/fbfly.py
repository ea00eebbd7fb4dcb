"""Flattened butterfly, k-ary n-flat (Kim, Dally, Abts, ISCA 2007).

§2.1: a k-ary n-flat has N/k routers of radix k' = n(k-1)+1 connected in
n' = n-1 dimensions; in dimension d router i links to
j = i + [m - (floor(i/k^(d-1)) mod k)] k^(d-1) for m = 0..k-1, j != i (Eq. 1).
It is the HyperX with ``dims = [k]*(n-1)`` and ``c = k`` terminals per router,
and is built by :func:`~radixnet.gen.families.hyperx.build_hyperx` so the two
give the identical Network.

Options:

* ``c``: another concentration (default k).
* ``radix`` with ``spare=redundant``: the ports a radix-``radix`` router has
  beyond k' double channels to neighbours (§5.1.2, Fig. 14(a)). Extra port
  ``r`` (0-based) pairs the routers of each dimension-``(r mod n')+1`` group by
  round ``floor(r/n')`` of the circle-method one-factorisation of K_k (router
  digit ``k-1`` is the fixed point), so every router gains exactly one extra
  channel per spare port; these channels have lane 1 and sit after the
  regular network ports.
* ``radix`` and ``N`` without ``k``/``n``: §5.1.2 sizing — the smallest n'
  with floor(radix/(n'+1))^(n'+1) >= N, k = floor(radix/(n'+1)), n = n'+1.
"""

from __future__ import annotations

import numpy as np

from ..cost import Packaging
from ..family import Family, Knowledge, register
from ..params import Param, ParamError
from .hyperx import build_hyperx, hyperx_knowledge, hyperx_size, place_hyperx

__all__ = ["size_for_radix", "effective_radix"]


def effective_radix(k: int, n: int, c: int | None = None) -> int:
    """k' = n(k-1)+1 for concentration k (§2.1); (n-1)(k-1)+c in general."""
    c = k if c is None else c
    return (n - 1) * (k - 1) + c


def size_for_radix(radix: int, N: int) -> tuple[int, int]:
    """§5.1.2: (k, n) of the smallest flattened butterfly of radix-``radix`` routers with >= N terminals.

    >>> size_for_radix(64, 1024)     # "n' = 1 only requires k' = 63 to scale to 1K"
    (32, 2)
    >>> size_for_radix(64, 65536)    # "n' = 3 only requires k' = 61 to scale to 64K"
    (16, 4)
    """
    for nprime in range(1, 64):
        k = radix // (nprime + 1)
        if k < 2:
            break
        if k ** (nprime + 1) >= N:
            return k, nprime + 1
    raise ParamError("N", f"no flattened butterfly of radix-{radix} routers reaches {N} terminals")


def _check(p: dict) -> None:
    if p["N"] is not None:
        if p["k"] is not None or p["n"] is not None:
            raise ParamError("N", "sizes the network from --radix (Kim §5.1.2); give --radix and --N, "
                                  "or --k and --n, not both")
        if p["radix"] is None:
            raise ParamError("N", "sizing by --N needs --radix (Kim §5.1.2), or give --k and --n instead")
        p["k"], p["n"] = size_for_radix(p["radix"], p["N"])
    p["k"] = 4 if p["k"] is None else p["k"]
    p["n"] = 2 if p["n"] is None else p["n"]
    if p["c"] is None:
        p["c"] = p["k"]
    need = effective_radix(p["k"], p["n"], p["c"])
    if p["radix"] is None:
        p["radix"] = need
    if p["radix"] < need:
        raise ParamError("radix", f"must be >= k' = {need} for a {p['k']}-ary {p['n']}-flat (got {p['radix']})")
    spare = p["radix"] - need
    if p["spare"] == "redundant" and spare:
        nprime, k = p["n"] - 1, p["k"]
        if nprime == 0:
            raise ParamError("spare", "redundant channels need at least one dimension (n >= 2)")
        if k % 2:
            raise ParamError("spare", f"redundant channels pair routers, so k must be even (got k={k})")
        if spare > nprime * (k - 1):
            raise ParamError("radix", f"at most {nprime * (k - 1)} spare ports can double channels "
                                      f"(radix <= {need + nprime * (k - 1)}; got {p['radix']})")


def _build(p: dict):
    k, n = p["k"], p["n"]
    nprime = n - 1
    spare = p["radix"] - effective_radix(k, n, p["c"])
    if p["spare"] != "redundant" or spare == 0:
        return build_hyperx("fbfly", p, [k] * nprime, [1] * nprime, p["c"], radix=p["radix"])
    # Build the plain flat, then add one matching per spare port (Fig. 14(a)).
    from ..builder import NetworkBuilder
    base_net = build_hyperx("fbfly", p, [k] * nprime, [1] * nprime, p["c"])
    R = base_net.num_routers
    b = NetworkBuilder("fbfly", p, R, p["radix"])
    b.terminals(base_net.inj_router)
    c = p["c"]
    b.channels(base_net.src, base_net.dst, base_net.tag, base_net.lane,
               base_net.src_port - c, base_net.dst_port - c)
    regular = nprime * (k - 1)
    idx = np.arange(R, dtype=np.int64)
    for r in range(spare):
        d, t = r % nprime, r // nprime
        stride = k ** d
        a = (idx // stride) % k
        partner = _circle_partner(a, t, k)
        dst = idx + (partner - a) * stride
        b.channels(idx, dst, tag=d, lane=1, src_port=regular + r, dst_port=regular + r)
    return b.build(coords=base_net.coords, coord_names=base_net.coord_names, tag_names=base_net.tag_names)


def _circle_partner(a: np.ndarray, t: int, k: int) -> np.ndarray:
    """Partner of digit ``a`` in round ``t`` of the circle-method 1-factorisation of K_k (k even)."""
    m = k - 1
    partner = (2 * t - a) % m
    partner = np.where(a == m, t, partner)
    partner = np.where(a == t, m, partner)
    return partner


def _knowledge(net) -> Knowledge:
    p = net.params
    if p["spare"] == "redundant" and p["radix"] > effective_radix(p["k"], p["n"], p["c"]):
        return Knowledge()
    return hyperx_knowledge([p["k"]] * (p["n"] - 1), [1] * (p["n"] - 1))


register(Family(
    name="fbfly",
    summary="flattened butterfly k-ary n-flat (Kim et al. 2007), optional spare-port redundancy and sizing",
    params=(
        Param("k", int, None, "routers per dimension and terminals per router (default 4)", minimum=2),
        Param("n", int, None, "butterfly stages; n' = n-1 dimensions (default 2)", minimum=1, maximum=64),
        Param("c", int, None, "terminals per router (default k)", minimum=0),
        Param("radix", int, None, "router radix (default k'); spare ports per --spare", minimum=1),
        Param("spare", str, "none", "use of spare ports", choices=("none", "redundant")),
        Param("N", int, None, "terminals; with --radix and no --k/--n, sizes the network (§5.1.2)", minimum=2),
    ),
    check=_check,
    build=_build,
    size=lambda p: (lambda R, C: (R, C + R * (p["radix"] - effective_radix(p["k"], p["n"], p["c"]))))(
        *hyperx_size([p["k"]] * (p["n"] - 1), [1] * (p["n"] - 1), p["c"])),
    knowledge=_knowledge,
    packaging=Packaging('fbfly', True, 'routers in index order with their nodes, a dimension-1 subsystem in a cabinet or cabinets of its own, higher dimensions across the floor (Kim §4.2, Fig. 8)',
                        place_hyperx),
    reference="Kim, Dally, Abts, ISCA 2007, §2.1 Eq. (1), §5.1.2, Fig. 14(a)",
))
