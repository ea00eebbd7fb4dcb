"""The Network: one description of a topology that every other part consumes.

A :class:`Network` is plain arrays, reproducible from ``(family, params, seed)``:

* routers ``0 .. R-1``, router ``r`` has ``radix[r]`` ports ``0 .. radix[r]-1``;
  each port is an input *and* an output, either side of which may be unused
  (an indirect butterfly stage, or a unidirectional TTN higher-level link);
* unidirectional **channels** ``c``: ``src[c]/src_port[c] -> dst[c]/dst_port[c]``
  with a ``tag[c]`` (dimension or level, family-defined, documented per family)
  and a ``lane[c]`` (index among parallel links between the same pair of
  routers, e.g. the two channels of a 2-dilated flattened butterfly);
* **terminals** ``t``: injects into ``inj_router[t]/inj_port[t]`` and ejects
  from ``ej_router[t]/ej_port[t]`` (the same port for direct networks);
* optional integer ``coords[r]`` (one column per coordinate name) and labels.

Conventions every family follows: terminal ports come first on a router
(ports ``0 .. c-1``), network ports after them, in the family's documented
order; channels are sorted by ``(src, src_port)``.

Examples
--------
>>> from radixnet.gen import build
>>> net = build("fbfly", k=4, n=2)
>>> net.num_routers, net.num_terminals, net.num_channels
(4, 16, 12)
>>> int(net.radix.max())
7
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Network", "NetworkError"]

_INT_ARRAYS = ("radix", "src", "src_port", "dst", "dst_port", "tag", "lane",
               "inj_router", "inj_port", "ej_router", "ej_port")


class NetworkError(ValueError):
    """A Network whose arrays are inconsistent (a bug in a family builder)."""


@dataclass(eq=False)
class Network:
    """A topology as arrays.

    Parameters
    ----------
    family : str
        Family name (``"fbfly"``, ``"slimfly"``, ...).
    params : dict
        The validated parameters it was built from (JSON-serialisable).
    radix : ndarray of int, shape (R,)
        Ports per router.
    src, src_port, dst, dst_port : ndarray of int, shape (C,)
        Channel endpoints.
    tag : ndarray of int, shape (C,)
        Dimension/level of each channel (family-defined; ``-1`` if none).
    lane : ndarray of int, shape (C,)
        Parallel-link index between the same router pair (0 for single links).
    inj_router, inj_port, ej_router, ej_port : ndarray of int, shape (T,)
        Where each terminal injects and ejects.
    coords : ndarray of int, shape (R, D), optional
        Router coordinates; ``coord_names`` names the columns.
    coord_names : tuple of str
        Names of the coordinate columns.
    tag_names : dict
        Human meaning of the tag values, e.g. ``{0: "dim1"}``.
    seed : int or None
        Seed used by randomised families (``None`` if deterministic).
    """

    family: str
    params: dict
    radix: np.ndarray
    src: np.ndarray
    src_port: np.ndarray
    dst: np.ndarray
    dst_port: np.ndarray
    tag: np.ndarray
    lane: np.ndarray
    inj_router: np.ndarray
    inj_port: np.ndarray
    ej_router: np.ndarray
    ej_port: np.ndarray
    coords: np.ndarray | None = None
    coord_names: tuple = ()
    tag_names: dict = field(default_factory=dict)
    seed: int | None = None

    # ------------------------------------------------------------------ build
    def __post_init__(self) -> None:
        for name in _INT_ARRAYS:
            setattr(self, name, np.ascontiguousarray(getattr(self, name), dtype=np.int64))
        if self.coords is not None:
            self.coords = np.ascontiguousarray(self.coords, dtype=np.int64)
        key = self.src * (int(self.radix.max(initial=0)) + 1) + self.src_port
        if key.size and np.any(key[1:] < key[:-1]):
            order = np.argsort(key, kind="stable")
            for name in ("src", "src_port", "dst", "dst_port", "tag", "lane"):
                setattr(self, name, getattr(self, name)[order])
        self.coord_names = tuple(self.coord_names)
        self.tag_names = {int(k): str(v) for k, v in self.tag_names.items()}
        self.check()

    def check(self) -> None:
        """Raise :class:`NetworkError` unless every port is used at most once per side."""
        R = self.num_routers
        for side, (r, p) in {"output": (self.src, self.src_port), "input": (self.dst, self.dst_port),
                             "injection": (self.inj_router, self.inj_port),
                             "ejection": (self.ej_router, self.ej_port)}.items():
            if r.size and (r.min() < 0 or r.max() >= R):
                raise NetworkError(f"{side} router index out of range")
            if r.size and (p.min() < 0 or np.any(p >= self.radix[r])):
                raise NetworkError(f"{side} port index out of range")
        for side, pairs in {"output": [(self.src, self.src_port), (self.ej_router, self.ej_port)],
                            "input": [(self.dst, self.dst_port), (self.inj_router, self.inj_port)]}.items():
            keys = np.sort(np.concatenate([r * self.max_radix + p for r, p in pairs]))
            if np.any(keys[1:] == keys[:-1]):  # sort-based: much faster than np.unique on int64
                raise NetworkError(f"an {side} port is used twice")
        if self.coords is not None and self.coords.shape != (R, len(self.coord_names)):
            raise NetworkError("coords shape does not match routers x coord_names")

    # ------------------------------------------------------------- properties
    @property
    def num_routers(self) -> int:
        return int(self.radix.size)

    @property
    def num_channels(self) -> int:
        return int(self.src.size)

    @property
    def num_terminals(self) -> int:
        return int(self.inj_router.size)

    @property
    def max_radix(self) -> int:
        return int(self.radix.max()) if self.radix.size else 0

    @property
    def is_direct(self) -> bool:
        """True when every terminal injects and ejects at the same router port."""
        return bool(np.array_equal(self.inj_router, self.ej_router)
                    and np.array_equal(self.inj_port, self.ej_port))

    def port_table(self) -> dict[str, np.ndarray]:
        """Per (router, port) lookup tables, ``-1`` where unused.

        Returns
        -------
        dict
            ``out_channel[r, p]``, ``in_channel[r, p]``, ``out_terminal[r, p]``
            (terminal ejected there) and ``in_terminal[r, p]``.
        """
        shape = (self.num_routers, self.max_radix)
        out = {k: np.full(shape, -1, dtype=np.int64)
               for k in ("out_channel", "in_channel", "out_terminal", "in_terminal")}
        c = np.arange(self.num_channels)
        t = np.arange(self.num_terminals)
        out["out_channel"][self.src, self.src_port] = c
        out["in_channel"][self.dst, self.dst_port] = c
        out["out_terminal"][self.ej_router, self.ej_port] = t
        out["in_terminal"][self.inj_router, self.inj_port] = t
        return out

    def network_degree(self) -> np.ndarray:
        """Outgoing inter-router channels per router."""
        return np.bincount(self.src, minlength=self.num_routers)

    def terminals_per_router(self) -> np.ndarray:
        """Terminals injecting at each router."""
        return np.bincount(self.inj_router, minlength=self.num_routers)

    def adjacency(self):
        """Router adjacency as a ``scipy.sparse.csr_array`` (parallel links merged, entry = count)."""
        from scipy import sparse
        R = self.num_routers
        a = sparse.coo_array((np.ones(self.num_channels, dtype=np.int64), (self.src, self.dst)), shape=(R, R))
        return a.tocsr()

    def channel_reverse(self) -> np.ndarray:
        """Index of the channel running the opposite way on the same lane, ``-1`` if none."""
        R = np.int64(self.num_routers)
        L = np.int64(max(int(self.lane.max(initial=0)) + 1, 1))
        key_fwd = (self.src * R + self.dst) * L + self.lane
        key_rev = (self.dst * R + self.src) * L + self.lane
        order = np.argsort(key_fwd, kind="stable")
        pos = np.searchsorted(key_fwd[order], key_rev)
        pos = np.minimum(pos, max(order.size - 1, 0))
        found = order.size > 0
        rev = np.where(found & (key_fwd[order][pos] == key_rev), order[pos], -1) if found else pos
        return rev.astype(np.int64)

    @property
    def is_bidirectional(self) -> bool:
        """True when every channel has a partner in the opposite direction."""
        return bool(np.all(self.channel_reverse() >= 0))

    def digest(self) -> str:
        """SHA-256 over the arrays: equal digests mean identical Networks."""
        h = hashlib.sha256()
        for name in _INT_ARRAYS:
            h.update(name.encode())
            h.update(getattr(self, name).tobytes())
        return h.hexdigest()

    def same_structure(self, other: "Network") -> bool:
        """Identical routers, ports, channels (with tags/lanes) and terminal attachment."""
        return self.digest() == other.digest()

    # ------------------------------------------------------------ conversions
    def to_networkx(self, terminals: bool = False):
        """A ``networkx.MultiDiGraph``: router nodes ``r`` (with ``coords``),
        one edge per channel with ``src_port, dst_port, tag, lane, channel``.

        With ``terminals=True`` terminal nodes ``("t", i)`` and their links are added.
        """
        import networkx as nx
        g = nx.MultiDiGraph(family=self.family)
        for r in range(self.num_routers):
            attrs = {"radix": int(self.radix[r])}
            if self.coords is not None:
                attrs.update({n: int(v) for n, v in zip(self.coord_names, self.coords[r])})
            g.add_node(r, **attrs)
        for c in range(self.num_channels):
            g.add_edge(int(self.src[c]), int(self.dst[c]), key=c, channel=c, src_port=int(self.src_port[c]),
                       dst_port=int(self.dst_port[c]), tag=int(self.tag[c]), lane=int(self.lane[c]))
        if terminals:
            for t in range(self.num_terminals):
                g.add_node(("t", t), terminal=True)
                g.add_edge(("t", t), int(self.inj_router[t]), port=int(self.inj_port[t]))
                g.add_edge(int(self.ej_router[t]), ("t", t), port=int(self.ej_port[t]))
        return g

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary; :meth:`from_dict` inverts it exactly."""
        d: dict[str, Any] = {"format": "radixnet.network/1", "family": self.family,
                             "params": self.params, "seed": self.seed,
                             "coord_names": list(self.coord_names),
                             "tag_names": {str(k): v for k, v in self.tag_names.items()}}
        for name in _INT_ARRAYS:
            d[name] = getattr(self, name).tolist()
        d["coords"] = None if self.coords is None else self.coords.tolist()
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Network":
        if d.get("format") != "radixnet.network/1":
            raise NetworkError("not a radixnet network description (format radixnet.network/1)")
        kw = {name: np.asarray(d[name], dtype=np.int64) for name in _INT_ARRAYS}
        coords = None if d.get("coords") is None else np.asarray(d["coords"], dtype=np.int64).reshape(
            len(d["radix"]), len(d["coord_names"]))
        return cls(family=d["family"], params=d["params"], coords=coords, coord_names=tuple(d["coord_names"]),
                   tag_names={int(k): v for k, v in d.get("tag_names", {}).items()}, seed=d.get("seed"), **kw)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> "Network":
        return cls.from_dict(json.loads(text))

    def __repr__(self) -> str:
        return (f"Network({self.family} {self.params}: {self.num_routers} routers, "
                f"{self.num_terminals} terminals, {self.num_channels} channels)")
