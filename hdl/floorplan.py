"""Floorplans of a two-level ``hiradix`` core: Kim's tiles as placement regions, a ``--pre-place`` script of
nextpnr-ecp5 (the native build's Python API, ``make nextpnr-native``).

``python -m radixnet.hdl.timing_report --nextpnr native --floorplan KIND`` runs this file inside nextpnr after
packing. It reads every cell's unit off the names of the nets it drives (:func:`unit_of`):

- ``IN<g>``: input group ``g`` (input units, RI, the request register: ``_ip_<p>``, ``g = p // G``);
- ``LO<g>``: group ``g``'s local output arbiters and candidates (``_grp_<g>``), the request relay beside them
  (``rq_*_ip_<p>_lo``) and LO's verdict register (``lo_keep_*``), router-spec §R11.6, §R11.8, §R11.10;
- ``OUT<c>``: output group ``c`` (GO, the credits, the output register: ``_op_<o>``, ``c = o // G``), with the
  candidate relay beside GO (``lo_*_grp_<g>_op_<o>_at_go``, §R11.10).

A cell whose nets carry no name takes the unit most of the cells it drives have (three rounds), and nextpnr's
clusters (a LUT with the flip-flop it feeds, LUT5-7 and carry chains, a LUT-RAM with its write port) go whole to
their members' majority unit. The kinds (:data:`KINDS`):

- ``tiles``: every unit's cells in a region: the die in ``P / G`` bands, one per group, each band cut into the
  group's ``IN``, ``LO`` and ``OUT`` regions in proportion to their LUT4s, the regions overlapping by
  :data:`MARGIN` tiles;
- ``inputs``: the ``IN`` regions of ``tiles`` alone: each group's input units, RI and request register in its
  band, everything else (LO, GO, the relays, the crossbar) left to the placer;
- ``control``: the control cells alone (the datapath -- input buffers, front registers, crossbar, output
  registers: :data:`DATAPATH` -- left to the placer), the bands in a box in the middle of the die at half the
  regions' capacity.

Examples
--------
>>> [unit_of(n, 4) for n in ("core.rq_ooh_ip_5", "rq_ooh_ip_5_lo", "lo_e1_grp_1_op_11", "lo_e1_grp_1_op_11_at_go")]
['IN1', 'LO1', 'LO1', 'OUT2']
>>> [unit_of(n, 4) for n in ("g_lane_op_9", "lo_keep_ip_6_s0_reg", "core.crossbar.data_in_ip__3", "$abc$123")]
['OUT2', 'LO1', 'IN0', None]
>>> unit_of("core.crossbar.data_in_ip__3", 4, datapath=True)
'-'
>>> bands({"IN": 3000, "LO": 1000, "OUT": 1500}, 4, box=(2, 2, 124, 93), margin=0)["LO1"]
[69, 25, 90, 47]
"""

from __future__ import annotations

import collections
import json
import os
import re

__all__ = ["KINDS", "DATAPATH", "MARGIN", "unit_of", "bands", "apply"]

#: the floorplans (``none``: no script)
KINDS = ("none", "tiles", "inputs", "control")
#: net-name parts of the datapath, which ``control`` leaves to the placer
DATAPATH = ("input_ip", "crossbar", "data_in_ip", "out_flit", "front0_ivc", "front1_ivc", "kind_ivc", "buf_ivc",
            "side_ivc", "side2_ivc")
#: tiles by which ``tiles``'s regions overlap their neighbours (the legaliser's room)
MARGIN = 3
#: the LFE5U-85's logic tiles (x, y), first and last
DIE = (2, 2, 124, 93)

_GRP, _IP, _OP = (re.compile(rf"_{k}_+(\d+)") for k in ("grp", "ip", "op"))


def unit_of(net: str, group: int, *, datapath: bool = False) -> str | None:
    """The unit (``IN<g>``, ``LO<g>``, ``OUT<c>``) a net's name places its driver in, None for a name Yosys
    or nextpnr made up, ``"-"`` for a datapath net when ``datapath`` (left free)."""
    n = net.lstrip("\\").removeprefix("core.")
    if n.startswith("$"):
        return None
    if datapath and any(x in n for x in DATAPATH):
        return "-"
    mo, mg, mi = _OP.search(n), _GRP.search(n), _IP.search(n)
    if mo and "_at_go" in n:   # the candidate relay, beside GO
        return f"OUT{int(mo.group(1)) // group}"
    if mg:
        return f"LO{int(mg.group(1))}"
    if mi and (n.startswith("lo_keep_") or re.search(r"_ip_+\d+_lo(_|\[|$)", n)):   # beside LO
        return f"LO{int(mi.group(1)) // group}"
    first = min(((m.start(), k, int(m.group(1))) for k, m in (("IN", mi), ("OUT", mo)) if m), default=None)
    return None if first is None else f"{first[1]}{first[2] // group}"


def bands(need: dict[str, int], groups: int, *, box=DIE, margin: int = MARGIN) -> dict[str, list[int]]:
    """Regions ``[x0, y0, x1, y1]`` of ``groups`` bands in ``box``: band ``g`` holds ``IN<g>``, ``LO<g>``,
    ``OUT<g>`` left to right, each as wide as its share of ``need`` (LUT4s of one group's unit), grown by
    ``margin`` tiles on every side (within the die)."""
    x0, y0, x1, y1 = box
    h, width = (y1 - y0 + 1) // groups, x1 - x0 + 1
    total = sum(need.values())
    w = {k: max(3, round(need[k] / total * width)) for k in ("IN", "LO")}
    w["OUT"] = width - w["IN"] - w["LO"]
    out = {}
    for g in range(groups):
        x = x0
        for k in ("IN", "LO", "OUT"):
            r = (x - margin, y0 + g * h - margin, x + w[k] - 1 + margin, y0 + (g + 1) * h - 1 + margin)
            out[f"{k}{g}"] = [max(DIE[0], r[0]), max(DIE[1], r[1]), min(DIE[2], r[2]), min(DIE[3], r[3])]
            x += w[k]
    return out


def _clusters(cells: dict) -> dict[str, list[str]]:
    """nextpnr's clusters (not in its Python API) from the ports that join them (ecp5/pack.cc): a flip-flop
    and the LUT on its data input, LUT5-7 (``F1``, ``FXA``/``FXB``), carry chains (``FCI``), a LUT-RAM with
    its write port (every user of a ``TRELLIS_RAMW``'s outputs)."""
    parent = {n: n for n in cells}

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[ra] = rb

    for name, c in cells.items():
        ports = {pn: p for pn, p in c.ports}
        di = ports.get("DI")
        if c.type == "TRELLIS_FF" and di is not None and di.net is not None:
            d = di.net.driver
            if d.cell is not None and d.cell.type == "TRELLIS_COMB" and d.port == "F":
                union(name, d.cell.name)
        for pn in ("F1", "FCI", "FXA", "FXB", "WAD0", "WAD1", "WAD2", "WAD3", "WD0", "WD1", "WCK", "WRE"):
            p = ports.get(pn)
            if p is not None and p.net is not None:
                d = p.net.driver
                if d.cell is not None and d.cell.type in ("TRELLIS_COMB", "TRELLIS_RAMW"):
                    union(name, d.cell.name)
        if c.type == "TRELLIS_RAMW":
            for _, p in c.ports:
                if p.net is not None and str(p.type).endswith("PORT_OUT"):
                    for u in p.net.users:
                        union(name, u.cell.name)
    members = collections.defaultdict(list)
    for n in cells:
        members[find(n)].append(n)
    return members


def apply(ctx, kind: str, log=print, dump: str | None = None) -> dict[str, int]:
    """Constrain ``ctx``'s cells to the regions of floorplan ``kind``; returns the cells per region. ``dump``: a
    JSON file to write the regions and each constrained cell's region into."""
    if kind not in KINDS[1:]:
        raise ValueError(f"floorplan must be one of {', '.join(KINDS[1:])}, got {kind!r}")
    cells = {name: c for name, c in ctx.cells}
    outs = {name: [p.net for _, p in c.ports if p.net is not None and str(p.type).endswith("PORT_OUT")]
            for name, c in cells.items()}
    ports = max([int(m.group(1)) for n in ctx.nets for m in [_IP.search(n[0])] if m] + [0]) + 1
    grps = max([int(m.group(1)) for n in ctx.nets for m in [_GRP.search(n[0])] if m] + [0]) + 1
    group = max(1, ports // grps)
    unit = {}
    for name in cells:
        votes = collections.Counter(u for net in outs[name]
                                    for u in [unit_of(net.name, group, datapath=kind == "control")] if u)
        if votes:
            unit[name] = votes.most_common(1)[0][0]
    for _ in range(3):   # unnamed logic: the unit of most of the cells it drives
        new = {}
        for name in cells:
            if name not in unit:
                votes = collections.Counter(unit[u.cell.name] for net in outs[name] for u in net.users
                                            if u.cell is not None and u.cell.name in unit)
                if votes:
                    new[name] = votes.most_common(1)[0][0]
        unit.update(new)
    chosen = {}
    luts = collections.Counter()
    for root, ms in _clusters(cells).items():
        votes = collections.Counter(unit[m] for m in ms if m in unit)
        u = votes.most_common(1)[0][0] if votes else "-"
        if u == "-":
            continue
        for m in ms:
            luts[u.rstrip("0123456789")] += cells[m].type == "TRELLIS_COMB"
            if kind != "inputs" or u.startswith("IN"):
                chosen[m] = u
    n_groups = ports // group
    need = {k: -(-luts[k] // n_groups) for k in ("IN", "LO", "OUT")}
    if kind in ("tiles", "inputs"):
        regions = {r: b for r, b in bands(need, n_groups).items() if kind == "tiles" or r.startswith("IN")}
    else:   # the control cells' bands in a box at half their regions' capacity (8 LUT4 a tile)
        tiles = sum(need.values()) * n_groups * 2 / 8 * 12 / 11   # block-RAM rows hold no logic
        h = min((DIE[3] - DIE[1] + 1) // n_groups, max(8, round(tiles ** 0.5 / n_groups)))
        w = min(DIE[2] - DIE[0] + 1, -(-int(tiles) // (h * n_groups)))
        x0, y0 = DIE[0] + (DIE[2] - DIE[0] + 1 - w) // 2, DIE[1] + (DIE[3] - DIE[1] + 1 - h * n_groups) // 2
        regions = bands(need, n_groups, box=(x0, y0, x0 + w - 1, y0 + h * n_groups - 1), margin=0)
    for r, box in regions.items():
        ctx.createRectangularRegion(r, *box)
    count = collections.Counter()
    for m, u in chosen.items():
        if not cells[m].bel:
            ctx.constrainCellToRegion(m, u)
            count[u] += 1
    log(f"floorplan {kind}: {sum(count.values())} of {len(cells)} cells in {len(regions)} regions, "
        f"G = {group}, LUT4 per group IN/LO/OUT {need['IN']}/{need['LO']}/{need['OUT']}")
    if dump:
        with open(dump, "w") as f:
            json.dump({"regions": regions, "cells": {m: u for m, u in chosen.items() if not cells[m].bel}}, f)
    return dict(count)


if "ctx" in globals():   # run by nextpnr-ecp5 --pre-place
    apply(globals()["ctx"], os.environ.get("RADIXNET_FLOORPLAN", "tiles"),
          dump=os.environ.get("RADIXNET_FLOORPLAN_DUMP"))
