"""The TTN paper's Table 1 and its routing's hop counts (Fig. 4), shared by tests/test_ttn.py and
tests/test_routing_families.py (the routed distances, computed independently of radixnet.gen.routing)."""

import numpy as np

from radixnet.gen.families.ttn import outlets

# Table 1 of the paper: name -> (degree, diameter, average distance, arc connectivity,
# bisection width, wiring complexity)
TABLE1 = {
    ("mesh", 16): (4, 30, 10.67, 2, 16, 480), ("torus", 16): (4, 16, 8.00, 4, 32, 512),
    ("tesh", 2, 2, 0): (4, 21, 10.47, 2, 8, 448), ("tesh", 2, 2, 1): (4, 19, 9.53, 2, 16, 512),
    ("tesh", 2, 2, 2): (4, 16, 7.80, 2, 32, 640),
    ("ttn", 2, 2, 0): (6, 15, 7.44, 4, 8, 576), ("ttn", 2, 2, 1): (6, 13, 6.34, 4, 16, 640),
    ("mesh", 64): (4, 126, 42.67, 2, 64, 8064), ("torus", 64): (4, 64, 32.00, 4, 128, 8192),
    ("tesh", 2, 3, 0): (4, 32, 17.80, 2, 8, 8192), ("tesh", 2, 3, 1): (4, 28, 14.53, 2, 16, 10240),
    ("ttn", 2, 3, 0): (6, 24, 12.60, 4, 8, 10240), ("ttn", 2, 3, 1): (6, 20, 10.59, 4, 16, 12288),
}


def paper_dor_hops(f, m, L, q):
    """Hops of the paper's routing (Fig. 4) from every router of BM 0 to every router.

    Top-down: for level L..2, y then x: go to the outlet of that level, dimension
    and direction (t <= 2^m/2 -> positive, else negative; q = 0 has only +), cross
    t subnetworks transiting in->out inside each, and at the end route inside the
    BM (y then x, minimal). Among lanes the outlet nearest the packet is used
    (the paper's get_group_number).
    """
    bm = "torus" if f == "ttn" else "mesh"
    k = 2 ** m
    k2, N = k * k, k ** (2 * L)

    def bmd(a, b):
        dr, dc = np.abs(a // k - b // k), np.abs(a % k - b % k)
        if bm == "torus":
            dr, dc = np.minimum(dr, k - dr), np.minimum(dc, k - dc)
        return dr + dc

    outs = outlets(m, L, q, bm)
    dst = np.tile(np.arange(N), k2)
    cur = np.repeat(np.arange(k2), N)
    hops = np.zeros(cur.size, np.int64)
    for lv in range(L, 1, -1):
        for di, dim in ((1, "y"), (0, "x")):
            t = (dst // k ** (2 * (lv - 1) + di)) % k  # the source BM is BM 0
            pos = (t <= k // 2) | (q == 0)
            n = np.where(pos, t, k - t)
            for s in (1, -1):
                roles = [o for o in outs if (o.level, o.dim, o.sign) == (lv, dim, s)]
                if not roles:
                    continue
                on = np.array([o.out_node[0] * k + o.out_node[1] for o in roles])
                inn = np.array([o.in_node[0] * k + o.in_node[1] for o in roles])
                d_out = np.stack([bmd(cur, x) for x in on], 1)
                g = np.argmin(d_out, 1)
                sel = (n > 0) & (pos == (s == 1))
                cost = d_out[np.arange(cur.size), g] + n + (n - 1) * bmd(inn[g], on[g])
                hops += np.where(sel, cost, 0)
                cur = np.where(sel, inn[g], cur)
    hops += bmd(cur, dst % k2)
    return hops.reshape(k2, N)
