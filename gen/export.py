"""Write a Network in other tools' formats.

``json``
    :meth:`Network.to_json` (exact round trip with :meth:`Network.from_json`).
``graphml``
    Router nodes (with coordinates and ``terminals``), one directed edge per
    channel with ``src_port``, ``dst_port``, ``tag``, ``lane``.
``edgelist``
    One line ``u v`` per physical bidirectional link (parallel lanes repeat
    the line); header comments give the family, parameters and terminals per
    router. Read back by the ``file`` family. Networks with unidirectional
    channels are refused (use graphml).
``booksim-anynet``
    BookSim2's ``anynet`` file: one line per router, ``router R node T ...
    router S ...``; BookSim makes each listed router link bidirectional and
    keeps one channel per router pair, so parallel lanes are written once
    (a note is printed). Networks with unidirectional channels are refused.
"""

from __future__ import annotations

import json
import sys

import numpy as np

from .network import Network
from .params import ParamError

FORMATS = ("graphml", "edgelist", "booksim-anynet", "json")


def export(net: Network, fmt: str, path: str) -> None:
    """Write ``net`` to ``path`` in ``fmt`` (one of :data:`FORMATS`)."""
    if fmt not in FORMATS:
        raise ParamError("export", f"format must be one of {', '.join(FORMATS)} (got {fmt!r})")
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(render(net, fmt))
    except OSError as e:
        raise ParamError("export", f"cannot write {path}: {e.strerror}") from None


def render(net: Network, fmt: str) -> str:
    if fmt == "json":
        return net.to_json()
    if fmt == "graphml":
        return _graphml(net)
    rev = net.channel_reverse()
    if np.any(rev < 0):
        raise ParamError("export", f"{fmt} describes bidirectional links only; this {net.family} network has "
                                   f"{int(np.count_nonzero(rev < 0))} unidirectional channels (use graphml or json)")
    fwd = np.flatnonzero(net.src < net.dst)
    if fmt == "edgelist":
        head = [f"# radixnet {net.family} {json.dumps(net.params)}",
                f"# routers {net.num_routers}; terminals per router: "
                + (str(int(net.terminals_per_router()[0])) if np.all(net.terminals_per_router()
                                                                   == net.terminals_per_router()[0]) else "varies"),
                "# u v  (one line per bidirectional link; repeated lines are parallel links)"]
        return "\n".join(head + [f"{net.src[c]} {net.dst[c]}" for c in fwd]) + "\n"
    # booksim-anynet
    lines = []
    tpr = [[] for _ in range(net.num_routers)]
    for t, r in enumerate(net.inj_router):
        tpr[r].append(t)
    nbrs = [set() for _ in range(net.num_routers)]
    for c in fwd:
        nbrs[net.src[c]].add(int(net.dst[c]))
    if np.any(net.lane > 0):
        print("radixnet: note: booksim-anynet keeps one channel per router pair; parallel lanes written once",
              file=sys.stderr)
    for r in range(net.num_routers):
        parts = [f"router {r}"] + [f"node {t}" for t in tpr[r]] + [f"router {s}" for s in sorted(nbrs[r])]
        lines.append(" ".join(parts))
    return "\n".join(lines) + "\n"


def _graphml(net: Network) -> str:
    import io

    import networkx as nx
    g = net.to_networkx()
    tpr = net.terminals_per_router()
    for r in g.nodes:
        g.nodes[r]["terminals"] = int(tpr[r])
    g.graph.update({"family": net.family, "params": json.dumps(net.params)})
    buf = io.BytesIO()
    nx.write_graphml(g, buf)
    return buf.getvalue().decode()
