"""The compiled per-packet loops of the explicit packets terminals hold back (:class:`radixnet.golden.sim.HeldPackets`).

A terminal whose explicit packets (batch mode) outgrow the packet ring's quota holds its later packets back
(:meth:`radixnet.golden.sim.Simulator._admit`; a Bernoulli source instead stops drawing,
:mod:`radixnet.golden.sources`): each terminal's held packets are one ring-buffer row of
``cap`` entries per field, its first packet at column ``head[s]`` and ``count[s]`` packets in creation
order. The loops here append packets behind their terminal's, remove the first few of each terminal,
copy the rows into wider ones, and pick the new packets that join the ring. A sequential pass in
creation order places each packet where a numpy version needs a stable sort of the packets by terminal
(in a saturated 32-ary 2-flat under worst-case traffic, when Bernoulli sources held their backlog here,
those sorts and the rows' copies took longer than the cycle kernel).

:func:`held_put` and :func:`held_take` take the rows as one :class:`HeldRows` group, as the cycle
kernel takes its state (:mod:`radixnet.golden.kernel`); :func:`held_widen` copies one field at a time, so
that each old row can be freed before the next field's wider one is allocated. The caller allocates
every array, so the loops run without numba's runtime (``_nrt=False``).

Examples
--------
>>> import numpy as np
>>> q = HeldRows(head=np.array([3, 0]), count=np.array([1, 0]), seq=np.zeros((2, 4), np.int64),
...              created=np.zeros((2, 4), np.int32), dst=np.zeros((2, 4), np.int32),
...              inter=np.zeros((2, 4), np.int32))
>>> held_put(q, np.array([7, 8, 9]), np.array([1, 1, 2]), np.array([0, 1, 0]), np.array([5, 5, 6]),
...          np.array([0, 0, 0]))
>>> q.count.tolist(), q.seq[0].tolist()    # terminal 0's packets wrap around its row
([3, 1], [7, 9, 0, 0])
"""

from __future__ import annotations

from collections import namedtuple

from .kernel import wrap
from .native import compiled

__all__ = ["HeldRows", "held_put", "held_take", "held_widen", "within_quota"]

#: The held packets: per terminal ``s`` the column ``head[s]`` of its first packet and its ``count[s]``
#: packets, and the rows (terminals x capacity) of their fields, as
#: :data:`radixnet.golden.sim.HELD_DTYPES` lists them.
HeldRows = namedtuple("HeldRows", "head count seq created dst inter")


@compiled(cache=True, _nrt=False)
def held_put(q, seq, created, src, dst, inter):
    """Append packets, in the order given, each behind those its terminal ``src[i]`` holds.

    Parameters
    ----------
    q : HeldRows
        The rows; each terminal's row must have room for its packets (``count + new <= cap``).
    seq, created, src, dst, inter : ndarray
        The packets' sequence numbers, creation cycles, terminals, destinations and intermediate routers.
    """
    cap = q.seq.shape[1]
    for i in range(src.size):
        s = src[i]
        c = wrap(q.head[s] + q.count[s], cap)
        q.seq[s, c] = seq[i]
        q.created[s, c] = created[i]
        q.dst[s, c] = dst[i]
        q.inter[s, c] = inter[i]
        q.count[s] += 1


@compiled(cache=True, _nrt=False)
def held_take(q, m, seq, created, src, dst, inter):
    """Remove the first ``m[s]`` packets of each terminal ``s`` (``m <= count``) into the output arrays.

    The packets come out grouped by terminal, terminals in increasing order, each terminal's in creation
    order; the outputs have ``m.sum()`` entries.

    Parameters
    ----------
    q : HeldRows
        The rows (``head`` and ``count`` are updated).
    m : ndarray
        Packets to remove per terminal.
    seq, created, src, dst, inter : ndarray
        Filled with the removed packets' fields (``src``: their terminal).
    """
    cap = q.seq.shape[1]
    i = 0
    for s in range(m.size):
        h = q.head[s]
        for j in range(m[s]):
            c = wrap(h + j, cap)
            seq[i] = q.seq[s, c]
            created[i] = q.created[s, c]
            src[i] = s
            dst[i] = q.dst[s, c]
            inter[i] = q.inter[s, c]
            i += 1
        q.head[s] = wrap(h + m[s], cap)
        q.count[s] -= m[s]


@compiled(cache=True, _nrt=False)
def held_widen(head, count, old, new):
    """Copy one field's rows ``old`` to the first columns of the wider rows ``new``.

    Terminal ``s``'s ``count[s]`` held packets are copied from column ``head[s]`` on, wrapping around its
    row, so that they start at column 0 (the caller then sets ``head`` to 0).

    Parameters
    ----------
    head, count : ndarray
        Each terminal's first column and held packets in ``old``.
    old, new : ndarray
        One field's rows (terminals x capacity), ``new`` at least as wide as ``count``.
    """
    cap = old.shape[1]
    for s in range(count.size):
        h = head[s]
        n = count[s]
        first = min(n, cap - h)   # the packets from column h to the row's end, then those wrapped round
        for j in range(first):
            new[s, j] = old[s, h + j]
        for j in range(n - first):
            new[s, first + j] = old[s, j]


@compiled(cache=True, _nrt=False)
def within_quota(src, quota, out):
    """Mark each packet among the first ``quota[s]`` of its terminal ``s = src[i]``, in the order given.

    ``out[i]`` is True for those packets; ``quota`` is used up (decreased by the marked packets).

    >>> import numpy as np
    >>> out = np.zeros(5, np.bool_)
    >>> within_quota(np.array([2, 0, 2, 2, 0]), np.array([1, 0, 2]), out)
    >>> out.tolist()
    [True, True, True, False, False]
    """
    for i in range(src.size):
        s = src[i]
        out[i] = quota[s] > 0
        if out[i]:
            quota[s] -= 1
