"""Any topology read from a file: an undirected edge list or GraphML.

``radixnet topo file --path FILE [--c C] [--format auto|edgelist|graphml]``.

Formats
-------
* **Edge list**: one link per line, ``u v``; ``#`` starts a comment (to the end
  of the line), blank lines are skipped. Tokens after the second are
  **ignored** (weights, or the ``{}`` / ``{'weight': 1}`` data dicts that
  ``networkx.write_edgelist`` appends). A line with fewer than two tokens is an
  error naming its line number.
* **GraphML** (``networkx.read_graphml``): undirected graphs only; a multigraph's
  parallel edges are kept; node and edge attributes are ignored.
* ``--format auto`` picks GraphML for a ``.graphml`` suffix (any case), else edge list.

Meaning
-------
Each undirected edge becomes a bidirectional link (two channels); an edge
repeated (``u v`` twice, or ``u v`` and ``v u``) becomes parallel lanes
0, 1, ...; self-loops, an empty graph and a disconnected graph are refused
(:class:`~radixnet.gen.params.ParamError` naming ``--path``).

Node labels: if every label is an integer, routers ``0 .. R-1`` are the
labels in increasing numeric order and ``coords`` has one column ``id``
holding the original label (so ``0 .. R-1`` labels map to themselves);
otherwise labels are sorted as strings and no coords are stored (use
:func:`read_graph` to recover the mapping).

Port layout (contract): ports ``0 .. c-1`` terminals; then one port per link,
ordered by neighbour router index and, for parallel links, by lane. Input and
output with the same port number face the same neighbour. Channel ``tag`` is
``-1`` (no dimension or level).

``size()`` and ``build()`` reuse the parse done by the parameter check (cached
per path, modification time and file size).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..builder import NetworkBuilder
from ..family import Family, register
from ..network import Network
from ..params import REQUIRED, Param, ParamError

__all__ = ["GraphData", "read_graph", "write_edgelist"]


@dataclass(frozen=True)
class GraphData:
    """A parsed file: ``labels[i]`` is router ``i``'s original label; ``u, v`` the edges (router indices)."""

    labels: np.ndarray
    u: np.ndarray
    v: np.ndarray
    integer_labels: bool

    @property
    def num_routers(self) -> int:
        return int(self.labels.size)

    @property
    def num_edges(self) -> int:
        return int(self.u.size)


_CACHE: dict[tuple, GraphData] = {}


def _fmt_for(path: str, fmt: str) -> str:
    if fmt != "auto":
        return fmt
    return "graphml" if path.lower().endswith(".graphml") else "edgelist"


def _read_edgelist(path: str) -> tuple[list, list, list, list]:
    us, vs, lines = [], [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for no, line in enumerate(f, 1):
            tok = line.split("#", 1)[0].split(None, 2)
            if not tok:
                continue
            if len(tok) < 2:
                raise ParamError("path", f"{path}, line {no}: expected 'u v' (two node labels), got {line.strip()!r}")
            us.append(tok[0])
            vs.append(tok[1])
            lines.append(no)
    return us, vs, lines, []


def _read_graphml(path: str) -> tuple[list, list, list, list]:
    import networkx as nx
    try:
        g = nx.read_graphml(path)
    except Exception as e:  # ElementTree.ParseError, NetworkXError, KeyError on bad keys ...
        raise ParamError("path", f"{path}: not a readable GraphML file ({type(e).__name__}: {e})") from None
    if g.is_directed():
        raise ParamError("path", f"{path}: directed GraphML is not supported; write the graph with "
                                 f"edgedefault=\"undirected\" (each edge becomes a bidirectional link)")
    edges = list(g.edges())
    return [str(a) for a, _ in edges], [str(b) for _, b in edges], [None] * len(edges), [str(n) for n in g.nodes]


def read_graph(path: str, fmt: str = "auto") -> GraphData:
    """Parse and check ``path``; raise :class:`ParamError` (``--path: ...``) on any problem.

    >>> import tempfile, os
    >>> d = tempfile.mkdtemp(); f = os.path.join(d, "ring.txt")
    >>> with open(f, "w") as fh:
    ...     _ = fh.write("# a 4-ring\\n10 20\\n20 30\\n30 40 1.5\\n40 10\\n")
    >>> g = read_graph(f)
    >>> g.labels.tolist(), g.u.tolist(), g.v.tolist()
    ([10, 20, 30, 40], [0, 1, 2, 3], [1, 2, 3, 0])
    """
    try:
        st = os.stat(path)
    except OSError as e:
        raise ParamError("path", f"cannot read {path!r}: {e.strerror or e}") from None
    if not os.path.isfile(path):
        raise ParamError("path", f"{path!r} is not a regular file")
    fmt = _fmt_for(path, fmt)
    key = (os.path.realpath(path), fmt, st.st_mtime_ns, st.st_size)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    try:
        us, vs, lines, nodes = (_read_graphml if fmt == "graphml" else _read_edgelist)(path)
    except OSError as e:
        raise ParamError("path", f"cannot read {path!r}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise ParamError("path", f"{path}: not a text file ({e})") from None
    if not us and not nodes:
        raise ParamError("path", f"{path}: the graph is empty (no {'nodes' if fmt == 'graphml' else 'edges'})")
    everything = us + vs + nodes
    try:
        ints = np.array([int(x) for x in everything], dtype=np.int64)
        integer = True
    except (ValueError, OverflowError):
        integer = False
    arr = ints if integer else np.array(everything, dtype=str)
    labels, inv = np.unique(arr, return_inverse=True)
    inv = inv.ravel().astype(np.int64)
    E = len(us)
    u, v = inv[:E], inv[E:2 * E]
    loops = np.flatnonzero(u == v)
    if loops.size:
        e0 = int(loops[0])
        where = f"line {lines[e0]}" if lines[e0] is not None else f"edge {us[e0]!r}-{vs[e0]!r}"
        raise ParamError("path", f"{path}, {where}: self-loop on node {us[e0]!r} is not allowed")
    R = labels.size
    if R > 1:
        from scipy import sparse
        from scipy.sparse.csgraph import connected_components
        adj = sparse.coo_array((np.ones(E, np.int8), (u, v)), shape=(R, R))
        ncomp, comp = connected_components(adj, directed=False)
        if ncomp > 1:
            lone = labels[int(np.flatnonzero(comp != comp[0])[0])]
            raise ParamError("path", f"{path}: the graph is disconnected ({ncomp} components; node {lone} "
                                     f"is not connected to node {labels[0]})")
    data = GraphData(labels, u, v, integer)
    _CACHE.clear()
    _CACHE[key] = data
    return data


def write_edgelist(net: Network, path: str) -> None:
    """Write a bidirectional Network's router graph as an edge list (one line per link and lane).

    Reading it back with ``build("file", path=path, c=...)`` gives the same router adjacency.
    """
    if not net.is_bidirectional:
        raise ValueError(f"{net.family}: only networks whose channels all come in pairs can be written "
                         f"as an undirected edge list")
    keep = net.src < net.dst
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# radixnet {net.family} {net.params}: {net.num_routers} routers\n")
        np.savetxt(f, np.stack([net.src[keep], net.dst[keep]], axis=1), fmt="%d")


def _check(p: dict) -> None:
    read_graph(p["path"], p["format"])


def _size(p: dict) -> tuple[int, int]:
    g = read_graph(p["path"], p["format"])
    return g.num_routers, 2 * g.num_edges


def _build(p: dict) -> Network:
    g = read_graph(p["path"], p["format"])
    R = g.num_routers
    a, b_ = np.minimum(g.u, g.v), np.maximum(g.u, g.v)
    order = np.lexsort((b_, a))
    a, b_ = a[order], b_[order]
    key = a * np.int64(R) + b_
    lane = np.arange(key.size) - np.searchsorted(key, key, side="left")
    b = NetworkBuilder("file", p, R)
    b.terminals(np.repeat(np.arange(R, dtype=np.int64), p["c"]))
    # links sorted by (min, max): each router meets its neighbours in increasing order
    b.link(a, b_, tag=-1, lane=lane)
    coords, names = (g.labels.reshape(R, 1), ("id",)) if g.integer_labels else (None, ())
    return b.build(coords=coords, coord_names=names, tag_names={-1: "link"})


register(Family(
    name="file",
    summary="any topology from an edge-list or GraphML file (undirected edges -> bidirectional links)",
    params=(
        Param("path", str, REQUIRED, "edge list ('u v' per line, '#' comments) or .graphml file"),
        Param("c", int, 1, "terminals (endpoints) per router", minimum=0),
        Param("format", str, "auto", "file format (auto: .graphml suffix -> graphml)",
              choices=("auto", "edgelist", "graphml")),
    ),
    check=_check,
    build=_build,
    size=_size,
    reference="radixnet: a graph read from a file makes 'any topology' literal",
))
