"""Any topology read from a file: an edge list, GraphML, radixnet's JSON or BookSim's anynet file.

``radixnet topo file --path FILE [--c C] [--format auto|edgelist|graphml|json|booksim-anynet]``.
Every format ``radixnet topo ... --export`` writes is read back (see *Round trips*).

Formats
-------
* **Edge list**: one link per line, ``u v``; ``#`` starts a comment (to the end
  of the line), blank lines are skipped. Tokens after the second are
  **ignored** (weights, or the ``{}`` / ``{'weight': 1}`` data dicts that
  ``networkx.write_edgelist`` appends). A line with fewer than two tokens is an
  error naming its line number. The header radixnet's export writes
  (``# routers R; terminals per router: C``, or runs ``C*N ...``) gives the
  terminals per router.
* **GraphML** (``networkx.read_graphml``): an undirected graph's edges are
  links; a directed graph's edges are channels (radixnet's export: one edge per
  channel), and a channel and its reverse make one link. A multigraph's
  parallel edges are kept. The node attributes ``terminals`` (terminals
  injecting there) and ``ejecting`` (terminals ejecting there, when not the
  same) that radixnet's export writes give the terminals; other attributes are
  ignored.
* **JSON**: :meth:`Network.to_json` (``--export json``), read exactly: ports,
  tags, lanes, terminals and coordinates as written, unless ``--c`` is given.
* **booksim-anynet**: BookSim2's ``anynet`` file, ``router R node T ... router
  S ...`` per line; each listed router pair is one bidirectional link, each
  ``node`` a terminal of the line's router.
* ``--format auto`` picks GraphML for a ``.graphml`` or ``.xml`` suffix (any
  case), JSON for ``.json``, else looks at the text: ``<`` first is GraphML,
  ``{`` or ``[`` JSON, a first line of the anynet grammar (``router R node T
  ...``) booksim-anynet, anything else an edge list.

Text is UTF-8, or UTF-16/UTF-32 with a byte-order mark (or UTF-16 without one,
recognised by its NUL bytes); a file that is none of these is refused.

Meaning
-------
Each undirected edge becomes a bidirectional link (two channels); an edge
repeated (``u v`` twice, or ``u v`` and ``v u``) becomes parallel lanes
0, 1, ...; a directed edge without a reverse partner is a unidirectional
channel. An undirected self-loop, an empty graph and a disconnected graph
(not even weakly connected) are refused (:class:`~radixnet.gen.params.ParamError`
naming ``--path``); a directed self-loop is a channel from a router to itself
(as CLEX's).

Terminals: ``--c`` per router when given; otherwise what the file records
(see *Formats*), else one per router.

Node labels: if every label is an integer, routers ``0 .. R-1`` are the
labels in increasing numeric order and ``coords`` has one column ``id``
holding the original label (so ``0 .. R-1`` labels map to themselves);
otherwise labels are sorted as strings and no coords are stored (use
:func:`read_graph` to recover the mapping).

Port layout (contract, all formats but JSON read exactly): ports ``0 .. c-1``
terminals; then one port per link, ordered by neighbour router index and, for
parallel links, by lane; then the unidirectional channels, ordered by the
router at their other end. Input and output with the same port number face the
same neighbour on a link. Channel ``tag`` is ``-1`` (no dimension or level).

Round trips
-----------
``topo file`` on a file ``--export`` wrote gives the same routers and the same
channels between them (as a multiset; ``booksim-anynet`` keeps one link per
router pair), the same terminals per router, and for JSON the identical arrays.

Resources: the file is read only if parsing it fits the memory limit
(:data:`PARSE_BYTES` per byte of file against :func:`radixnet.gen.resources.memory_limit`).
``size()`` and ``build()`` reuse the parse done by the parameter check (cached
per path, modification time and file size).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass

import numpy as np

from ..builder import NetworkBuilder
from ..family import Family, register
from ..network import Network, NetworkError
from ..params import REQUIRED, Param, ParamError
from ..resources import check_memory

__all__ = ["GraphData", "read_graph", "write_edgelist", "FORMATS", "PARSE_BYTES", "decode_text"]

#: Formats ``--format`` takes (``auto`` picks one of the others).
FORMATS = ("auto", "edgelist", "graphml", "json", "booksim-anynet")

#: Bytes of memory parsing takes per byte of file, by format (measured: 32 for an edge list of integers
#: in Python lists, 22 for networkx's GraphML reader, 8 for JSON; rounded up).
PARSE_BYTES = {"edgelist": 48, "booksim-anynet": 48, "graphml": 32, "json": 16}


@dataclass(frozen=True)
class GraphData:
    """A parsed file.

    Attributes
    ----------
    labels : ndarray
        ``labels[i]`` is router ``i``'s original label (int64, or objects for string labels).
    u, v : ndarray of int64
        The edges (router indices); channels ``u -> v`` when ``directed``.
    integer_labels : bool
        Whether every label is an integer.
    directed : bool
        Edges are channels (a channel with a reverse partner makes a link), not links.
    inj, ej : ndarray of int64, optional
        Terminals injecting / ejecting at each router, when the file records them.
    network : Network, optional
        The network exactly as written (JSON).
    """

    labels: np.ndarray
    u: np.ndarray
    v: np.ndarray
    integer_labels: bool
    directed: bool = False
    inj: np.ndarray | None = None
    ej: np.ndarray | None = None
    network: Network | None = None

    @property
    def num_routers(self) -> int:
        return int(self.labels.size)

    @property
    def num_edges(self) -> int:
        return int(self.u.size)

    @property
    def num_channels(self) -> int:
        """Channels of the network: one per directed edge, two per undirected one."""
        return self.num_edges if self.directed else 2 * self.num_edges


_CACHE: dict[tuple, GraphData] = {}

_BOMS = ((b"\xef\xbb\xbf", "utf-8"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
         (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def decode_text(data: bytes, path: str = "the file") -> str:
    """Decode a text file: UTF-8, or UTF-16/32 with a byte-order mark, or UTF-16 without one.

    Parameters
    ----------
    data : bytes
        The file's content.
    path : str
        Its name, for the message.

    Returns
    -------
    str
        The text, without a byte-order mark.

    Raises
    ------
    ParamError
        Naming ``--path``: bytes that are not text in any of these encodings.

    Examples
    --------
    >>> decode_text("0 1\\n".encode("utf-16"))
    '0 1\\n'
    >>> decode_text(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00")
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --path: the file is not a text file (binary data: NUL bytes)
    """
    enc = None
    for bom, name in _BOMS:
        if data.startswith(bom):
            enc, data = name, data[len(bom):]
            break
    if enc is None:
        head = data[:4096]
        if b"\x00" in head:
            even, odd = head[0::2], head[1::2]
            if odd and odd.count(0) * 2 >= len(odd) and b"\x00" not in even:
                enc = "utf-16-le"
            elif even and even.count(0) * 2 >= len(even) and b"\x00" not in odd:
                enc = "utf-16-be"
            else:
                raise ParamError("path", f"{path} is not a text file (binary data: NUL bytes)")
        else:
            enc = "utf-8"
    try:
        text = data.decode(enc)
    except UnicodeDecodeError as e:
        raise ParamError("path", f"{path} is not a text file (byte {e.start} is not valid {enc})") from None
    if "\x00" in text:
        raise ParamError("path", f"{path} is not a text file (binary data: NUL characters)")
    return text


_ANYNET = re.compile(r"^router\s+\S+(\s+(router|node)\s+\S+)*\s*$")


def _sniff(path: str, data: bytes) -> str:
    low = path.lower()
    if low.endswith((".graphml", ".xml")):
        return "graphml"
    if low.endswith(".json"):
        return "json"
    head = data[:65536]
    for bom, name in _BOMS:
        if head.startswith(bom):
            head = head[len(bom):].decode(name, errors="ignore").encode("utf-8", errors="ignore")
            break
    text = head.decode("utf-8", errors="ignore").lstrip()
    if text.startswith("<"):
        return "graphml"
    if text.startswith(("{", "[")):
        return "json"
    lines = [ln for ln in (x.split("#", 1)[0].strip() for x in text.splitlines()[:50]) if ln]
    if lines and _ANYNET.match(lines[0]) and (len(lines[0].split()) >= 4 or (
            all(_ANYNET.match(ln) for ln in lines) and any(len(ln.split()) >= 4 for ln in lines))):
        return "booksim-anynet"
    return "edgelist"


# ------------------------------------------------------------------ parsers: (us, vs, where, nodes, extra)
def _read_edgelist(path: str, text: str) -> dict:
    us, vs, lines = [], [], []
    terminals = None
    for no, line in enumerate(text.splitlines(), 1):
        body, _, comment = line.partition("#")
        if comment and terminals is None:
            m = re.match(r"\s*routers (\d+); terminals per router: ((\d+)|(\d+\*\d+( \d+\*\d+)*))\s*$", comment)
            if m:
                terminals = (int(m.group(1)), m.group(2))
        tok = body.split(None, 2)
        if not tok:
            continue
        if len(tok) < 2:
            raise ParamError("path", f"{path}, line {no}: expected 'u v' (two node labels), got {_short(line)}")
        us.append(tok[0])
        vs.append(tok[1])
        lines.append(no)
    return {"us": us, "vs": vs, "where": lines, "nodes": [], "directed": False, "per_router": terminals}


def _read_anynet(path: str, text: str) -> dict:
    us, vs, lines, nodes, term_router = [], [], [], [], []
    for no, line in enumerate(text.splitlines(), 1):
        tok = line.split("#", 1)[0].split()
        if not tok:
            continue
        if tok[0] != "router" or len(tok) % 2 or any(t not in ("router", "node") for t in tok[0::2]):
            raise ParamError("path", f"{path}, line {no}: expected 'router R [node T | router S] ...' "
                                     f"(booksim anynet), got {_short(line)}")
        r = tok[1]
        nodes.append(r)
        for kind, x in zip(tok[2::2], tok[3::2]):
            if kind == "router":
                us.append(r)
                vs.append(x)
                lines.append(no)
            else:
                term_router.append(r)
    return {"us": us, "vs": vs, "where": lines, "nodes": nodes, "directed": False, "anynet": True,
            "term_router": term_router}


def _read_graphml(path: str, data: bytes) -> dict:
    import networkx as nx
    try:
        g = nx.parse_graphml(data)
    except Exception as e:  # ElementTree.ParseError, NetworkXError, KeyError on bad keys, ValueError ...
        raise ParamError("path", f"{path}: not a readable GraphML file ({type(e).__name__}: {_short(str(e))})") from None
    import xml.etree.ElementTree as ET
    graphs = sum(1 for el in ET.fromstring(data) if el.tag.rsplit("}", 1)[-1] == "graph")
    if graphs > 1:   # networkx reads the first one only
        raise ParamError("path", f"{path}: holds {graphs} graphs; give a GraphML file with one network")
    edges = list(g.edges())
    nodes = list(g.nodes)
    out = {"us": [str(a) for a, _ in edges], "vs": [str(b) for _, b in edges], "where": [None] * len(edges),
           "nodes": [str(n) for n in nodes], "directed": g.is_directed()}
    attrs = g.nodes
    for key in ("terminals", "ejecting"):  # radixnet's export: terminal counts per router
        if any(key in attrs[n] for n in nodes):
            try:
                counts = [int(attrs[n].get(key, 0)) for n in nodes]
            except (TypeError, ValueError):
                raise ParamError("path", f"{path}: node attribute {key!r} must be an integer count") from None
            if any(c < 0 for c in counts):
                raise ParamError("path", f"{path}: node attribute {key!r} must be >= 0")
            out["node_" + key] = counts
    return out


def _read_json(path: str, text: str) -> Network:
    try:
        d = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ParamError("path", f"{path}: not a JSON file ({_short(str(e))})") from None
    if not isinstance(d, dict):
        raise ParamError("path", f"{path}: not a radixnet network (JSON with format radixnet.network/1)")
    try:
        return Network.from_dict(d)
    except NetworkError as e:
        raise ParamError("path", f"{path}: {e}") from None
    except (KeyError, TypeError, ValueError, OverflowError, IndexError, AttributeError) as e:
        raise ParamError("path", f"{path}: not a valid radixnet network ({type(e).__name__}: "
                                 f"{_short(str(e))})") from None


def _short(s: str, n: int = 60) -> str:
    s = s.strip()
    return repr(s if len(s) <= n else s[:n] + "...")


def read_graph(path: str, fmt: str = "auto") -> GraphData:
    """Parse and check ``path``; raise :class:`ParamError` (``--path: ...``) on any problem.

    Parameters
    ----------
    path : str
        The file.
    fmt : str
        One of :data:`FORMATS`.

    Examples
    --------
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
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        raise ParamError("path", f"cannot read {path!r}: {getattr(e, 'strerror', None) or e}") from None
    if not os.path.isfile(path):
        raise ParamError("path", f"{path!r} is not a regular file")
    key = (os.path.realpath(path), fmt, st.st_mtime_ns, st.st_size)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    check_memory({"parsing": max(PARSE_BYTES.values()) * st.st_size}, what=f"reading {path} ({st.st_size:,} bytes)",
                 hint="give a smaller file")
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ParamError("path", f"cannot read {path!r}: {e.strerror or e}") from None
    kind = _sniff(path, data) if fmt == "auto" else fmt
    if kind == "graphml":
        parsed = _read_graphml(path, data)
    else:
        text = decode_text(data, path)
        del data
        if kind == "json":
            data = _graph_of_network(path, _read_json(path, text))
            _CACHE.clear()
            _CACHE[key] = data
            return data
        parsed = (_read_anynet if kind == "booksim-anynet" else _read_edgelist)(path, text)
    data = _graph_data(path, kind, parsed)
    _CACHE.clear()
    _CACHE[key] = data
    return data


def _graph_of_network(path: str, net: Network) -> GraphData:
    R = net.num_routers
    if R == 0:
        raise ParamError("path", f"{path}: the graph is empty (no routers)")
    _check_connected(path, R, net.src, net.dst, np.arange(R))
    return GraphData(np.arange(R, dtype=np.int64), net.src.copy(), net.dst.copy(), True, directed=True,
                     inj=np.bincount(net.inj_router, minlength=R), ej=np.bincount(net.ej_router, minlength=R),
                     network=net)


def _graph_data(path: str, kind: str, p: dict) -> GraphData:
    us, vs, where, nodes = p["us"], p["vs"], p["where"], p["nodes"]
    if not us and not nodes:
        raise ParamError("path", f"{path}: the graph is empty (no {'nodes' if kind == 'graphml' else 'edges'})")
    everything = us + vs + nodes + p.get("term_router", [])
    try:
        ints = [int(x) for x in everything]
        arr = np.array(ints, dtype=np.int64)
        integer = True
    except (ValueError, OverflowError):
        integer = False
    if integer:
        labels, inv = np.unique(arr, return_inverse=True)
        inv = inv.ravel().astype(np.int64)
    else:  # sorted as strings; object arrays: one long label does not widen every other
        uniq = sorted(set(everything))
        index = {s: i for i, s in enumerate(uniq)}
        inv = np.fromiter((index[s] for s in everything), dtype=np.int64, count=len(everything))
        labels = np.empty(len(uniq), dtype=object)
        labels[:] = uniq
    E = len(us)
    R = labels.size
    u, v = inv[:E], inv[E:2 * E]
    directed = p["directed"]
    loops = np.flatnonzero(u == v)
    if loops.size and not directed:
        e0 = int(loops[0])
        at = f"line {where[e0]}" if where[e0] is not None else f"edge {us[e0]!r}-{vs[e0]!r}"
        raise ParamError("path", f"{path}, {at}: self-loop on node {us[e0]!r} is not allowed")
    if p.get("anynet"):  # BookSim keeps one bidirectional channel per router pair
        a, b = np.minimum(u, v), np.maximum(u, v)
        pairs = np.unique(a * np.int64(R) + b)
        u, v = pairs // R, pairs % R
    inj = ej = None
    if "term_router" in p:
        start = 2 * E + len(nodes)
        inj = np.bincount(inv[start:], minlength=R).astype(np.int64)
    at_node = inv[2 * E:2 * E + len(nodes)]
    for key in ("node_terminals", "node_ejecting"):
        if key in p:
            counts = np.zeros(R, np.int64)
            np.add.at(counts, at_node, np.asarray(p[key], dtype=np.int64))
            if key == "node_terminals":
                inj = counts
            else:
                ej = counts
                inj = np.zeros(R, np.int64) if inj is None else inj
    if p.get("per_router") is not None and p["per_router"][0] == R:  # radixnet's export header
        spec = p["per_router"][1]
        if "*" in spec:
            runs = [tuple(int(x) for x in t.split("*")) for t in spec.split()]
            if sum(n for _, n in runs) == R:
                inj = np.repeat([c for c, _ in runs], [n for _, n in runs]).astype(np.int64)
        else:
            inj = np.full(R, int(spec), np.int64)
    _check_connected(path, R, u, v, labels)
    return GraphData(labels, u, v, integer, directed=directed, inj=inj, ej=ej)


def _check_connected(path: str, R: int, u: np.ndarray, v: np.ndarray, labels: np.ndarray) -> None:
    if R <= 1:
        return
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components
    adj = sparse.coo_array((np.ones(u.size, np.int8), (u, v)), shape=(R, R))
    ncomp, comp = connected_components(adj, directed=False)
    if ncomp > 1:
        lone = labels[int(np.flatnonzero(comp != comp[0])[0])]
        raise ParamError("path", f"{path}: the graph is disconnected ({ncomp} components; node {lone} "
                                 f"is not connected to node {labels[0]})")


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
    return g.num_routers, g.num_channels


def _terminals(p: dict, routers: int) -> int:
    if p["c"] is not None:
        return routers * p["c"]
    g = read_graph(p["path"], p["format"])
    return int(g.inj.sum()) if g.inj is not None else routers


def _lanes(key: np.ndarray) -> np.ndarray:
    """Rank of each element among the equal keys before it (``key`` sorted)."""
    return np.arange(key.size) - np.searchsorted(key, key, side="left")


def _build(p: dict) -> Network:
    g = read_graph(p["path"], p["format"])
    R = g.num_routers
    if g.network is not None and p["c"] is None:  # JSON: the network exactly as written
        n = g.network
        return Network("file", p, n.radix, n.src, n.src_port, n.dst, n.dst_port, n.tag, n.lane, n.inj_router,
                       n.inj_port, n.ej_router, n.ej_port, coords=n.coords, coord_names=n.coord_names,
                       tag_names=n.tag_names, seed=n.seed)
    b = NetworkBuilder("file", p, R)
    if p["c"] is not None:
        inj = ej = np.full(R, p["c"], np.int64)
    else:
        inj = g.inj if g.inj is not None else np.ones(R, np.int64)
        ej = g.ej if g.ej is not None else inj
    if np.array_equal(inj, ej):
        b.terminals(np.repeat(np.arange(R, dtype=np.int64), inj))
    elif inj.sum() == ej.sum():
        b.terminals(np.repeat(np.arange(R, dtype=np.int64), inj), np.repeat(np.arange(R, dtype=np.int64), ej))
    else:
        raise ParamError("path", f"{p['path']}: {int(inj.sum())} terminals inject but {int(ej.sum())} eject "
                                 f"(node attributes 'terminals' and 'ejecting'); give --c instead")
    if g.directed:
        links_a, links_b, one_s, one_d = _pair_channels(g.u, g.v, R)
    else:
        links_a, links_b = np.minimum(g.u, g.v), np.maximum(g.u, g.v)
        one_s = one_d = np.zeros(0, np.int64)
    # links sorted by (min, max): each router meets its neighbours in increasing order
    order = np.lexsort((links_b, links_a))
    a, b_ = links_a[order], links_b[order]
    nlink = np.zeros(0, np.int64)
    if a.size:
        key = a * np.int64(R) + b_
        b.link(a, b_, tag=-1, lane=_lanes(key))
        nlink = key
    if one_s.size:  # unidirectional channels after the links, lanes after the link lanes of their pair
        order = np.lexsort((one_d, one_s))
        s, d = one_s[order], one_d[order]
        key = np.minimum(s, d) * np.int64(R) + np.maximum(s, d)
        skey = s * np.int64(R) + d
        before = np.searchsorted(nlink, key, side="right") - np.searchsorted(nlink, key, side="left")
        b.channels(s, d, tag=-1, lane=before + _lanes(skey))
    coords, names = (g.labels.astype(np.int64).reshape(R, 1), ("id",)) if g.integer_labels else (None, ())
    return b.build(coords=coords, coord_names=names, tag_names={-1: "link"})


def _pair_channels(u: np.ndarray, v: np.ndarray, R: int):
    """Split directed channels into links (a channel and a reverse partner) and unpaired channels.

    Returns
    -------
    (a, b, s, d) : ndarrays
        Links ``a[i] <-> b[i]`` (``a < b``) and unidirectional channels ``s[j] -> d[j]`` (self-loops among them).
    """
    R64 = np.int64(R)
    loop = u == v
    uu, vv = u[~loop], v[~loop]
    lo, hi = np.minimum(uu, vv), np.maximum(uu, vv)
    pair = lo * R64 + hi
    up = uu < vv                                       # direction lo -> hi
    keys, inv = np.unique(pair, return_inverse=True)
    n_up = np.bincount(inv.ravel(), weights=up, minlength=keys.size).astype(np.int64)
    n_dn = np.bincount(inv.ravel(), minlength=keys.size) - n_up
    nl = np.minimum(n_up, n_dn)
    a, b = np.repeat(keys // R64, nl), np.repeat(keys % R64, nl)
    xu, xd = n_up - nl, n_dn - nl                      # unpaired, per direction
    s = np.concatenate([np.repeat(keys // R64, xu), np.repeat(keys % R64, xd), u[loop]])
    d = np.concatenate([np.repeat(keys % R64, xu), np.repeat(keys // R64, xd), v[loop]])
    return a, b, s, d


register(Family(
    name="file",
    summary="any topology from a file: edge list, GraphML, radixnet JSON or BookSim anynet (every --export format)",
    params=(
        Param("path", str, REQUIRED, "edge list ('u v' per line, '#' comments), .graphml, radixnet .json or "
                                     "booksim anynet file"),
        Param("c", int, None, "terminals (endpoints) per router (default: what the file records, else 1)",
              minimum=0),
        Param("format", str, "auto", "file format (auto: by suffix, then by content)", choices=FORMATS),
    ),
    check=_check,
    build=_build,
    size=_size,
    terminals=_terminals,
    reference="radixnet: a graph read from a file makes 'any topology' literal",
))
