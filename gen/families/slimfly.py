"""Slim Fly: the McKay–Miller–Širáň (MMS) diameter-2 graphs (Besta & Hoefler, SC14).

Construction (Besta, Henriksson, Hoefler, *Slim Fly* talk, steps 1–7; seeds
``besta-hoefler-slimfly-slides.md``, and the δ = −1 sets from the SC14 paper
as given in the seeds README):

1. "Select a prime power q, q = 4w + δ; w ∈ ℕ, δ ∈ {−1, 0, 1}" — so q mod 4
   is 0, 1 or 3 (q = 3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 19, ...). A Slim Fly
   based on q has "Number of routers: 2q²" and "Network radix: (3q − δ)/2"
   (written ``k'`` here; the router radix is ``k' + p``).
2. "Construct a finite field F_q." For prime q, F_q = ℤ/qℤ with modular
   arithmetic; for a prime power q = p^m the field is ``galois.GF(q)`` (the
   default irreducible polynomial, a Conway polynomial), and a field element is
   written as its galois *integer representation* (the coefficients of its
   polynomial as base-p digits). Real field arithmetic is used throughout.
3. "Label the routers": {0, 1} × F_q × F_q. Router ``(s, x, y)`` has index
   ``s*q*q + x*q + y``; ``coords`` columns are ``("subgraph", "x", "y")``.
   (Subgraph 1 routers are written ``(1, m, c)`` below.)
4. "Find primitive element ξ": ``galois.primitive_root(q)`` for prime q and
   ``GF(q).primitive_element`` otherwise; both give the smallest primitive
   element in integer representation (so ξ = 2 for q = 5, as in the slides).
5. "Build generator sets" X (subgraph 0) and X' (subgraph 1), each of size
   (q − δ)/2:

   * δ = 1 (slides):  X = {1, ξ², …, ξ^(q−3)},  X' = {ξ, ξ³, …, ξ^(q−2)}.
   * δ = 0 (not in the seeds: the slides give only δ = 1 and the README
     δ = −1; these are the SC14 paper's §2.1.1 sets as recalled by the
     implementer, and the tests confirm diameter 2 and degree 3q/2 for
     q = 4, 8, 16): X = {1, ξ², …, ξ^(q−2)}, X' = {ξ, ξ³, …, ξ^(q−1)}. q is
     then a power of 2, so −a = a and both sets are trivially symmetric; note
     ξ^(q−1) = 1, so X and X' share 1.
   * δ = −1 (SC14 paper, seeds README): X = {1, ξ², …, ξ^(2w−2), ξ^(2w−1),
     ξ^(2w+1), …, ξ^(4w−3)},  X' = {ξ, ξ³, …, ξ^(2w−1), ξ^(2w), ξ^(2w+2), …,
     ξ^(4w−2)}.

   Both sets are checked to be closed under negation (so the graph is
   undirected) and to have (q − δ)/2 distinct non-zero elements.
6. "Intra-group connections": (0, x, y) ~ (0, x, y') iff y − y' ∈ X;
   (1, m, c) ~ (1, m, c') iff c − c' ∈ X'.
7. "Inter-group connections": (0, x, y) ~ (1, m, c) iff y = m·x + c.

Every router therefore has (q − δ)/2 intra-subgraph neighbours and q
inter-subgraph neighbours (one per m, resp. one per x): degree k' = (3q − δ)/2.
The diameter is 2 for every allowed q (MMS 1998; Hafner 2004 for δ ∈ {0, −1});
the tests verify it by BFS for q = 3 … 32 including prime powers.

Port layout (documented contract for routing tables and the RTL): on every
router, terminal ports ``0 .. p-1``; then network ports (numbered from 0 after
the terminal ports):

* ``0 .. h-1`` with h = (q − δ)/2: intra-subgraph neighbours. On a subgraph-0
  router (0, x, y), network port ``i`` faces (0, x, y + X[i]); on a subgraph-1
  router (1, m, c), port ``i`` faces (1, m, c + X'[i]); X and X' are listed in
  increasing integer representation (``slimfly_tables(q)["X"]``, ``["Xp"]``).
* ``h + j`` for j = 0 .. q−1: inter-subgraph neighbours. On (0, x, y), port
  ``h + m`` faces (1, m, y − m·x); on (1, m, c), port ``h + x`` faces
  (0, x, m·x + c).

Links are bidirectional: the input and the output with the same port number
face the same neighbour. Channel ``tag``: 0 = intra-subgraph 0 ("intra0"),
1 = intra-subgraph 1 ("intra1"), 2 = inter-subgraph ("inter"); ``lane`` is 0.
Terminal ``t`` sits on router ``t // p`` at port ``t % p``. The default
concentration is the slides' balanced p = ⌈k'/2⌉ (q = 19: 722 routers,
k' = 29, p = 15, 10,830 endpoints).

Symmetry (used for ``vertex_classes``): for u, v, t ∈ F_q the map
(0, x, y) ↦ (0, x + u, y + v·x + t), (1, m, c) ↦ (1, m + v, c + t − (m + v)·u)
preserves steps 6 and 7 (differences within a column are unchanged, and
y = m·x + c ⇔ y + v·x + t = (m + v)(x + u) + c + t − (m + v)·u), and these q³
automorphisms act transitively on each subgraph. So subgraph 0 and subgraph 1
are each inside one orbit; BFS from routers 0 and q² gives exact distance
metrics. Vertex-transitivity (one orbit) is not claimed here.

Examples
--------
>>> from radixnet.gen import build
>>> net = build("slimfly", q=5)
>>> net.num_routers, int(net.network_degree().max()), net.num_terminals
(50, 7, 200)
>>> net.params["delta"], net.params["p"]
(1, 4)
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..builder import NetworkBuilder
from ..cost import CostParams, Packaging, Placement, direct_placement
from ..family import Family, Knowledge, register
from ..network import Network
from ..params import Param, ParamError

__all__ = ["slimfly_tables", "slimfly_delta", "allowed_q", "build_slimfly", "slimfly_size",
           "slimfly_knowledge"]

TAG_NAMES = {0: "intra0", 1: "intra1", 2: "inter"}


def _is_prime_power(q: int) -> bool:
    if q < 2:
        return False
    n, f = q, 2
    while f * f <= n:
        if n % f == 0:
            while n % f == 0:
                n //= f
            return n == 1
        f += 1
    return True  # q itself is prime


def allowed_q(limit: int = 32) -> list[int]:
    """Prime powers ``q <= limit`` with ``q mod 4`` in {0, 1, 3} (those admitting an MMS graph)."""
    return [q for q in range(2, limit + 1) if _is_prime_power(q) and q % 4 != 2]


def slimfly_delta(q: int) -> int:
    """δ ∈ {−1, 0, 1} with q = 4w + δ (slides step 1); ``ValueError`` if q ≡ 2 (mod 4)."""
    d = {0: 0, 1: 1, 3: -1}.get(q % 4)
    if d is None:
        raise ValueError(f"q = {q} is 2 mod 4")
    return d


def _generator_exponents(q: int, delta: int) -> tuple[list[int], list[int]]:
    """Exponents e of ξ^e in X and X' (step 5; see the module docstring)."""
    if delta == 1:
        return list(range(0, q - 2, 2)), list(range(1, q - 1, 2))
    if delta == 0:
        return list(range(0, q - 1, 2)), list(range(1, q, 2))
    w = (q + 1) // 4
    ex = list(range(0, 2 * w - 1, 2)) + [2 * w - 1] + list(range(2 * w + 1, 4 * w - 2, 2))
    exp = list(range(1, 2 * w, 2)) + [2 * w] + list(range(2 * w + 2, 4 * w - 1, 2))
    return ex, exp


@functools.lru_cache(maxsize=16)
def _tables(q: int) -> dict:
    if not _is_prime_power(q) or q % 4 == 2:
        raise ValueError(f"q = {q} is not a prime power with q mod 4 in {{0, 1, 3}}")
    import galois
    delta = slimfly_delta(q)
    if galois.is_prime(q):
        # F_q = Z/qZ (slides step 2); galois.primitive_root = GF(q).primitive_element
        a = np.arange(q, dtype=np.int64)
        add = (a[:, None] + a[None, :]) % q
        mul = (a[:, None] * a[None, :]) % q
        xi = int(galois.primitive_root(q))
        poly = ""  # prime field: no irreducible polynomial
    else:
        GF = galois.GF(q)
        e = GF(np.arange(q))
        add = np.asarray((e[:, None] + e[None, :]).view(np.ndarray), dtype=np.int64)
        mul = np.asarray((e[:, None] * e[None, :]).view(np.ndarray), dtype=np.int64)
        xi = int(GF.primitive_element)
        poly = str(GF.irreducible_poly)
    neg = np.argmax(add == 0, axis=1).astype(np.int64)  # add[a, neg[a]] == 0
    # powers of xi by repeated field multiplication
    powers = np.empty(q - 1, dtype=np.int64)
    powers[0] = 1
    for i in range(1, q - 1):
        powers[i] = mul[powers[i - 1], xi]
    if np.unique(powers).size != q - 1:  # pragma: no cover - galois guarantees primitivity
        raise AssertionError(f"{xi} is not primitive in GF({q})")
    ex, exp = _generator_exponents(q, delta)
    X = np.unique(powers[np.asarray(ex) % (q - 1)])
    Xp = np.unique(powers[np.asarray(exp) % (q - 1)])
    h = (q - delta) // 2
    for name, S in (("X", X), ("X'", Xp)):
        if S.size != h or np.any(S == 0):
            raise AssertionError(f"GF({q}): generator set {name} has {S.size} elements, expected {h}")
        if not np.array_equal(np.sort(neg[S]), S):
            raise AssertionError(f"GF({q}): generator set {name} is not closed under negation")
    for t in (add, mul, neg, X, Xp, powers):
        t.setflags(write=False)
    return {"q": q, "delta": delta, "xi": xi, "irreducible_poly": poly, "add": add, "mul": mul, "neg": neg,
            "X": X, "Xp": Xp, "powers": powers}


def slimfly_tables(q: int) -> dict:
    """Field tables and generator sets of the Slim Fly MMS graph for ``q``.

    Returns
    -------
    dict
        ``q``, ``delta``, ``xi`` (primitive element, integer representation),
        ``irreducible_poly`` (``""`` for a prime field), ``add``/``mul`` (q×q
        tables), ``neg`` (additive inverses), ``X``/``Xp`` (generator sets in
        increasing integer representation: the port order), ``powers``
        (``powers[i] = ξ^i``). Arrays are read-only.

    Examples
    --------
    >>> t = slimfly_tables(5)
    >>> t["xi"], t["X"].tolist(), t["Xp"].tolist()
    (2, [1, 4], [2, 3])
    """
    return _tables(int(q))


def build_slimfly(params: dict) -> Network:
    """Build the Slim Fly for validated ``params`` (``q``, ``delta``, ``p``)."""
    q, p = int(params["q"]), int(params["p"])
    t = _tables(q)
    add, mul, neg, X, Xp = t["add"], t["mul"], t["neg"], t["X"], t["Xp"]
    h = X.size
    qq = q * q
    R = 2 * qq
    idx = np.arange(R, dtype=np.int64)
    b = NetworkBuilder("slimfly", params, R, radix=p + h + q)
    b.terminals(np.repeat(idx, p))
    a = np.arange(qq, dtype=np.int64)
    xs, ys = a // q, a % q                        # (x, y) of subgraph-0 routers / (m, c) of subgraph 1
    # steps 6: intra-subgraph links, port i faces +S[i]; the neighbour sees us at -S[i]
    for s, S in ((0, X), (1, Xp)):
        pos = np.full(q, -1, dtype=np.int64)
        pos[S] = np.arange(h)
        src = s * qq + a[:, None]
        dst = s * qq + xs[:, None] * q + add[ys[:, None], S[None, :]]
        b.channels(src, dst, tag=s, lane=0, src_port=np.arange(h)[None, :], dst_port=pos[neg[S]][None, :])
    # step 7: (0, x, y) ~ (1, m, y - m x); port h+m on the left, h+x on the right
    m = np.arange(q, dtype=np.int64)[None, :]
    c = add[ys[:, None], neg[mul[m, xs[:, None]]]]
    u = a[:, None]
    v = qq + m * q + c
    b.channels(u, v, tag=2, lane=0, src_port=h + m, dst_port=h + xs[:, None])
    b.channels(v, u, tag=2, lane=0, src_port=h + xs[:, None], dst_port=h + m)
    coords = np.stack([idx // qq, (idx // q) % q, idx % q], axis=1)
    return b.build(coords=coords, coord_names=("subgraph", "x", "y"), tag_names=TAG_NAMES)


def slimfly_size(params: dict) -> tuple[int, int]:
    """``(2q², 2q²·k')`` without building."""
    q = int(params["q"])
    k = (3 * q - slimfly_delta(q)) // 2
    return 2 * q * q, 2 * q * q * k


def slimfly_knowledge(net: Network) -> Knowledge:
    """Vertex classes (the two subgraphs, see the module docstring) and MMS facts.

    ``extra``: ``delta``, ``network_degree`` k', ``diameter`` 2 (MMS/Hafner;
    verified by the tests), ``moore_bound`` k'² + 1 for diameter 2 and
    ``moore_ratio`` = routers / Moore bound, ``xi``, ``irreducible_poly``,
    ``X``, ``Xp``.
    """
    q = int(net.params["q"])
    t = _tables(q)
    k = (3 * q - t["delta"]) // 2
    moore = 1 + k + k * (k - 1)
    return Knowledge(
        vertex_classes=[(0, q * q), (q * q, q * q)],
        vertex_transitive=False,
        extra={"delta": t["delta"], "network_degree": k, "diameter": 2, "moore_bound": moore,
               "moore_ratio": 2 * q * q / moore, "xi": t["xi"], "irreducible_poly": t["irreducible_poly"],
               "X": t["X"].tolist(), "Xp": t["Xp"].tolist()},
    )


def _allowed_text() -> str:
    return ("a prime power q with q mod 4 in {0, 1, 3}: " + ", ".join(map(str, allowed_q(32))) + ", ...")


def _check(p: dict) -> None:
    q = p["q"]
    if not _is_prime_power(q):
        raise ParamError("q", f"must be {_allowed_text()} (got {q}, not a prime power)")
    if q % 4 == 2:
        raise ParamError("q", f"must be {_allowed_text()} (got {q} = 4w + 2, which has no MMS graph)")
    delta = slimfly_delta(q)
    if p["delta"] is not None and p["delta"] != delta:
        w = (q - delta) // 4
        raise ParamError("delta", f"q = {q} = 4*{w} {'+' if delta >= 0 else '-'} {abs(delta)} fixes delta = "
                                  f"{delta} (got {p['delta']}); omit --delta or give {delta}")
    p["delta"] = delta
    if p["p"] is None:
        p["p"] = math.ceil((3 * q - delta) / 2 / 2)


# ---------------------------------------------------------------- worst-case traffic (Slim Fly talk)
def worst_case_partners(net: Network, routers: np.ndarray, seed: int) -> np.ndarray:
    """The routers of the Slim Fly talk's worst-case traffic for minimal routing (Besta & Hoefler, SC14 §5), as
    a partner per router (-1 for a router not in ``routers``, the routers with terminals): paths
    ``R1-R2-R3-R4`` in which R2 is the only common neighbour of R1 and R3 and R3 the only one of R2 and R4,
    grouped greedily in an order drawn from ``seed`` (the best of 64), R1 paired with R3 and R2 with R4; the
    routers left over paired with each other (at distance 2 where possible), an odd one out with itself. The
    traffic pattern ``sf-worst-case`` (:mod:`radixnet.golden.traffic`) sends slot ``j`` of a router to slot
    ``j`` of its partner.
    """
    from scipy.sparse import csgraph

    A = net.adjacency()
    A = (A + A.T).tocsr()
    A.data[:] = 1
    dist = csgraph.shortest_path(A, unweighted=True)
    common = (A @ A).toarray()
    unique2 = (dist == 2) & (common == 1)
    nbrs = [A.indices[A.indptr[r]:A.indptr[r + 1]] for r in range(net.num_routers)]
    has_t = np.zeros(net.num_routers, bool)
    has_t[routers] = True
    rng = np.random.default_rng(seed)

    def cover(order):
        used = ~has_t.copy()
        quads = []
        for r1 in order:
            if used[r1]:
                continue
            found = None
            for r2 in nbrs[r1]:
                if used[r2] or found:
                    continue
                for r3 in nbrs[r2]:
                    if used[r3] or r3 == r1 or not unique2[r1, r3] or found:
                        continue
                    for r4 in nbrs[r3]:
                        if not used[r4] and r4 not in (r1, r2) and unique2[r2, r4]:
                            found = (r1, r2, r3, r4)
                            break
            if found:
                quads.append(found)
                used[list(found)] = True
        return quads

    best = None
    for _ in range(64):
        quads = cover(rng.permutation(routers))
        if best is None or len(quads) > len(best):
            best = quads
        if 4 * len(best) >= routers.size - 3:
            break
    partner = np.full(net.num_routers, -1, np.int64)
    for r1, r2, r3, r4 in best:
        partner[[r1, r3, r2, r4]] = [r3, r1, r4, r2]
    rest = [int(r) for r in routers if partner[r] < 0]
    while len(rest) >= 2:
        a = rest.pop(0)
        b = next((x for x in rest if dist[a, x] == 2), rest[0])
        rest.remove(b)
        partner[a], partner[b] = b, a
    if rest:                        # an odd router out sends to itself (its own terminals, next slot)
        partner[rest[0]] = rest[0]
    return partner


# ---------------------------------------------------------------- packaging for the cost model (Kim §4.2)
def place_slimfly(net: Network, params: CostParams) -> Placement:
    q = int(net.params["q"])
    idx = np.arange(net.num_routers)
    s, x, y = idx // (q * q), (idx // q) % q, idx % q
    order = np.lexsort((y, s, x))  # column pairs: (0, x, .) then (1, x, .)
    return direct_placement(net, params, order=order, group=2 * q)


register(Family(
    name="slimfly",
    summary="Slim Fly (MMS graph): 2q^2 routers, degree (3q-delta)/2, diameter 2",
    params=(
        Param("q", int, 5, "prime power with q mod 4 in {0,1,3}: 3, 4, 5, 7, 8, 9, 11, 13, ...",
              maximum=2**31),
        Param("delta", int, None, "q = 4w + delta; derived from q (give it only to assert it)",
              choices=(-1, 0, 1)),
        Param("p", int, None, "endpoints per router (default ceil(k'/2), k' = (3q - delta)/2)", minimum=0),
    ),
    check=_check,
    build=build_slimfly,
    size=slimfly_size,
    terminals=lambda p, routers: p["p"] * routers,
    knowledge=slimfly_knowledge,
    packaging=Packaging('slimfly', True, 'routers by column pair (0,x,.) and (1,x,.), a pair in cabinets of its own (assumed; the slides give no packaging)',
                        place_slimfly),
    reference="Besta & Hoefler SC14 (Slim Fly), talk steps 1-7; McKay-Miller-Siran 1998; Hafner 2004",
))
