"""The compiled pass of the streaming packet statistics (:class:`radixnet.golden.sim.PacketStats`).

A kernel call's ejection records (a few hundred thousand packets per window of a loaded 1024-terminal
network) go through one pass here instead of a dozen numpy passes (a mask, the latencies, four sums, the
maximum, a bincount), each allocating an array of the records' length: numpy's passes measured 3% of a
run at load 0.8. The caller allocates every array, so the pass runs without numba's runtime (``_nrt=False``).

Examples
--------
>>> import numpy as np
>>> hist, out = np.zeros(8, np.int64), np.zeros(5, np.int64)
>>> created, ejected = np.array([0, 1, 2, 3], np.int32), np.array([4, 9, 5, 20], np.int32)   # the records' types
>>> hops, minimal = np.array([1, 2, 2, 3], np.int16), np.array([1, 0, 1, 1], bool)
>>> latency_tally(created, ejected, hops, minimal, 1, 3, hist, out)
9
>>> hist = np.zeros(9, np.int64)
>>> latency_tally(created, ejected, hops, minimal, 1, 3, hist, out)
0
>>> out.tolist(), hist.tolist()   # created 1 and 2 counted: n, latency sum, hops sum, minimal, last ejected
([2, 11, 4, 1, 9], [0, 0, 0, 1, 0, 0, 0, 0, 1])
"""

from __future__ import annotations

from .native import compiled

__all__ = ["latency_tally"]


@compiled(cache=True, _nrt=False)
def latency_tally(created, ejected, hops, minimal, lo, hi, hist, out):
    """Add the packets created in cycles ``[lo, hi)`` to the latency histogram ``hist`` (latency
    ``ejected - created``, one bin per cycle) and their count, latency sum, hops sum, minimal count and
    last ejection cycle to ``out[0:5]`` (``out[4]`` is a maximum). When a latency does not fit in ``hist``,
    nothing is added and the histogram size it needs is returned (the caller widens it and calls again);
    else 0."""
    top = 0
    for i in range(created.size):
        c = created[i]
        if c >= lo and c < hi and ejected[i] - c >= top:
            top = ejected[i] - c + 1
    if top > hist.size:
        return top
    n = 0
    lat_sum = 0
    hops_sum = 0
    min_sum = 0
    last = out[4]
    for i in range(created.size):
        c = created[i]
        if c < lo or c >= hi:
            continue
        e = ejected[i]
        lat = e - c
        n += 1
        lat_sum += lat
        hops_sum += hops[i]
        min_sum += minimal[i]
        hist[lat] += 1
        if e > last:
            last = e
    out[0] += n
    out[1] += lat_sum
    out[2] += hops_sum
    out[3] += min_sum
    out[4] = last
    return 0
