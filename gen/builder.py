"""Incremental construction of a :class:`~radixnet.gen.network.Network`.

Families describe *what* is connected; the builder numbers the ports so that
every family follows the same convention: on each router the terminal ports
come first, then the network ports in the order the links were added (per
router, outputs and inputs are numbered independently, so a bidirectional
link uses the same port number on both sides only when added symmetrically,
which :meth:`NetworkBuilder.link` does).

Examples
--------
>>> b = NetworkBuilder("demo", {}, routers=2)
>>> b.terminals([0, 1])
>>> b.link(0, 1, tag=0)
>>> net = b.build()
>>> net.src_port.tolist(), net.dst_port.tolist()
([1, 1], [1, 1])
"""

from __future__ import annotations

import numpy as np

from .network import Network

__all__ = ["NetworkBuilder", "rank_within"]


class NetworkBuilder:
    """Collect terminals and channels, then number ports and build the Network.

    Parameters
    ----------
    family : str
        Family name stored in the Network.
    params : dict
        Validated parameters stored in the Network.
    routers : int
        Number of routers.
    radix : int or array, optional
        Ports per router; defaults to the ports actually used. A radix larger
        than needed leaves spare (unused) ports.
    """

    def __init__(self, family: str, params: dict, routers: int, radix=None) -> None:
        self.family, self.params, self.R = family, dict(params), int(routers)
        self._radix = radix
        self._term_inj: list[np.ndarray] = []
        self._term_ej: list[np.ndarray] = []
        self._ch: list[tuple[np.ndarray, ...]] = []  # (src, dst, tag, lane) arrays

    def terminals(self, inj_routers, ej_routers=None) -> None:
        """Attach terminals (in order) injecting at ``inj_routers`` and ejecting at ``ej_routers``."""
        inj = np.asarray(inj_routers, dtype=np.int64).ravel()
        ej = inj if ej_routers is None else np.asarray(ej_routers, dtype=np.int64).ravel()
        self._term_inj.append(inj)
        self._term_ej.append(ej)

    def channels(self, src, dst, tag=-1, lane=0, src_port=None, dst_port=None) -> None:
        """Add unidirectional channels ``src[i] -> dst[i]`` (arrays broadcast).

        ``src_port``/``dst_port``, if given, are *network* port indices (0 is
        the first port after the router's terminal ports); give them for all
        channels of a Network or for none.
        """
        explicit = src_port is not None
        if explicit != (dst_port is not None):
            raise ValueError("builder: give both src_port and dst_port or neither")
        arrs = [src, dst, tag, lane] + ([src_port, dst_port] if explicit else [])
        arrs = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in arrs))
        self._ch.append(tuple(a.ravel().copy() for a in arrs))

    def link(self, u, v, tag=-1, lane=0) -> None:
        """Add bidirectional links ``u[i] <-> v[i]`` as two channels each.

        The forward and reverse channel of a link are added together so that
        each side gets matching output/input port numbers.
        """
        u, v, tag, lane = np.broadcast_arrays(*(np.asarray(x, dtype=np.int64) for x in (u, v, tag, lane)))
        u, v, tag, lane = (a.ravel() for a in (u, v, tag, lane))
        # interleave u->v and v->u so per-router port order follows link order
        self.channels(np.stack([u, v], 1).ravel(), np.stack([v, u], 1).ravel(),
                      np.repeat(tag, 2), np.repeat(lane, 2))

    def build(self, *, coords=None, coord_names=(), tag_names=None, seed=None) -> Network:
        R = self.R
        inj = np.concatenate(self._term_inj) if self._term_inj else np.zeros(0, np.int64)
        ej = np.concatenate(self._term_ej) if self._term_ej else np.zeros(0, np.int64)
        explicit = {len(c) == 6 for c in self._ch}
        if len(explicit) > 1:
            raise ValueError("builder: explicit ports given for some channels only")
        explicit_ports = explicit == {True}
        cat = [np.concatenate([c[i] for c in self._ch]) if self._ch else np.zeros(0, np.int64)
               for i in range(6 if explicit_ports else 4)]
        src, dst, tag, lane = cat[:4]
        # Terminal ports first: a router's terminal ports are numbered by the
        # order of its terminals; inputs and outputs are numbered separately.
        inj_port = rank_within(inj, R)
        ej_port = rank_within(ej, R)
        n_inj = np.bincount(inj, minlength=R)
        n_ej = np.bincount(ej, minlength=R)
        base = np.maximum(n_inj, n_ej)
        if explicit_ports:
            src_port, dst_port = base[src] + cat[4], base[dst] + cat[5]
        else:
            src_port = base[src] + rank_within(src, R)
            dst_port = base[dst] + rank_within(dst, R)
        used = base.copy()
        if src.size:
            np.maximum.at(used, src, src_port + 1)
            np.maximum.at(used, dst, dst_port + 1)
        if self._radix is None:
            radix = used
        else:
            radix = np.broadcast_to(np.asarray(self._radix, dtype=np.int64), (R,)).copy()
            if np.any(radix < used):
                raise ValueError("builder: declared radix smaller than the ports used")
        return Network(self.family, self.params, radix, src, src_port, dst, dst_port, tag, lane,
                       inj, inj_port, ej, ej_port, coords=coords, coord_names=coord_names,
                       tag_names=tag_names or {}, seed=seed)


def rank_within(keys: np.ndarray, R: int) -> np.ndarray:
    """For each element, how many earlier elements share its key (stable order)."""
    if keys.size == 0:
        return np.zeros(0, np.int64)
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.searchsorted(sorted_keys, sorted_keys, side="left")
    rank = np.empty_like(order)
    rank[order] = np.arange(keys.size) - starts
    return rank
