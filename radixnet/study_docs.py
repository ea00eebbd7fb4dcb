"""docs/studies.md's generated parts, from the stored results of the studies' runs: ``make study-docs``.

A study's run (``radixnet study NAME --out DIR``) writes its points and its scored claims; ``--take NAME DIR``
copies the small result files into ``docs/study-results/NAME/`` (a simulated study's points gathered from its
sweeps into ``points.csv``, without the wall-clock seconds; and the figures the page shows into
``docs/figures/``) and regenerates the page's blocks from them. Each block sits between
``<!-- study:NAME:BLOCK:begin -->`` and ``<!-- study:NAME:BLOCK:end -->``; the prose around it (what a claim
means, why one is not reproduced) stays hand-written. ``--check`` rewrites nothing and exits 1 when a block
differs from what the stored results give (``tests/test_study_docs.py`` runs it, and reruns the studies
that compute in seconds against their stored results).

Usage::

    python -m radixnet.study_docs [--check] [--take NAME DIR]
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "studies.md"
RESULTS = ROOT / "docs" / "study-results"
FIGURES = ROOT / "docs" / "figures"

__all__ = ["STUDIES", "render_blocks", "update", "take", "main", "fmt_computed", "claims_table", "sweep_points",
           "POINT_FIELDS"]


def fmt_computed(v: Any) -> str:
    """A claim's ``computed`` value on one table line.

    >>> fmt_computed({"4096": 0.545, "8192": 0.356})
    '4096: 0.545; 8192: 0.356'
    >>> fmt_computed({"fbfly": {"mean": 0.706, "range": [0.569, 0.815]}})
    'fbfly: (mean: 0.706; range: 0.569, 0.815)'
    >>> fmt_computed([0.657, 0.849]), fmt_computed(True), fmt_computed(None)
    ('0.657, 0.849', 'yes', '-')
    """
    if isinstance(v, dict):
        return "; ".join(f"{k}: ({fmt_computed(x)})" if isinstance(x, dict) else f"{k}: {fmt_computed(x)}"
                         for k, x in v.items())
    if isinstance(v, (list, tuple)):
        return ", ".join(fmt_computed(x) for x in v)
    if isinstance(v, bool):
        return "yes" if v else "no"
    if v is None:
        return "-"
    return str(v).replace("|", "/")


def claims_table(claims: dict) -> list[str]:
    """The stored run's claims, as its ``claims.json`` scores them: claim, the paper's number, computed, holds."""
    lines = [f"<details><summary>The stored run's claims.json ({sum(c['holds'] for c in claims['claims'])} of "
             f"{len(claims['claims'])} hold)</summary>", "",
             "| claim | paper | computed | holds |", "|---|---|---|---|"]
    for c in claims["claims"]:
        lines.append(f"| {c['claim'].replace('|', '/')} | {fmt_computed(c.get('paper'))} | "
                     f"{fmt_computed(c['computed'])} | {'yes' if c['holds'] else '**no**'} |")
    return lines + ["", "</details>"]


def _csv_rows(d: Path, name: str) -> list[dict]:
    """The rows of a stored result's CSV file ``name`` in ``d``, as dicts of strings."""
    return list(csv.DictReader((d / name).read_text().splitlines()))


def _first_saturated(pts: list[dict]) -> float | None:
    """The lowest load of ``points.csv`` rows that saturated, or None."""
    return min((float(r["load"]) for r in pts if r["saturated"] == "true"), default=None)


def _per_node_pivot(field: str, spec: str, last: str) -> Callable[[Path], list[str]]:
    """Per network size, the four Kim topologies' ``field`` and the flattened butterfly's reduction against
    the folded Clos (``points.json`` of kim-cost or kim-power)."""
    cols = (("butterfly", "butterfly"), ("clos", "folded Clos"), ("hypercube", "hypercube"),
            ("fbfly", "flattened butterfly"))

    def render(d: Path) -> list[str]:
        pts = json.loads((d / "points.json").read_text())
        by = {(p["topology"], p["N"]): p[field] for p in pts}
        lines = ["| N | " + " | ".join(c for _, c in cols) + f" | {last} |", "|---" * (len(cols) + 2) + "|"]
        for n in json.loads((d / "claims.json").read_text())["sizes"]:   # the study's sizes (Kim's)
            vals = [by.get((t, n)) for t, _ in cols]
            red = 1 - by[("fbfly", n)] / by[("clos", n)]
            lines.append(f"| {n:,} | " + " | ".join("" if v is None else format(v, spec) for v in vals)
                         + f" | {100 * red:.1f}% |")
        return lines
    return render


def _slimfly_networks(d: Path) -> list[str]:
    """The ~10K case study's networks: size, routers, links, cost per node both ways, power, ports."""
    pts = [p for p in json.loads((d / "points.json").read_text()) if p["table"] == "near-10K"]
    names = {"fat tree": "fat tree", "flattened butterfly": "flattened butterfly", "dragonfly": "dragonfly",
             "slim fly": "Slim Fly"}
    lines = ["| network | N | routers | radix | links | $ / node (electrical) | $ / node (optical > 6 m) | "
             "W / node (Table 5) | router ports / node |", "|---|---|---|---|---|---|---|---|---|"]
    for topo in names:
        el = next(p for p in pts if p["topology"] == topo and p["variant"] == "electrical")
        op = next(p for p in pts if p["topology"] == topo and p["variant"] != "electrical")
        lines.append(f"| {names[topo]} | {el['N']:,} | {el['routers']:,} | {el['radix']} | {el['links']:,} | "
                     f"{el['cost_per_node']:,.2f} | {op['cost_per_node']:,.2f} | {el['power_per_node']:.2f} | "
                     f"{el['ports_per_node']:.2f} |")
    return lines


def _clex_tables(d: Path) -> list[str]:
    """Tables I-IV entry by entry, computed against the paper's value (``tables.csv`` of clex-tables)."""
    rows = _csv_rows(d, "tables.csv")
    cols = (("max rds", "max_rds", "paper_max_rds"), ("avg rds", "avg_rds_no_handshake", "paper_avg_rds"),
            ("max avg load", "max_avg_load", "paper_max_avg_load"), ("avg hops", "avg_hops", "paper_avg_hops"))
    lines = ["| table | k, levels, messages | level | " + " | ".join(f"{c} (paper)" for c, _, _ in cols) + " |",
             "|---" * (3 + len(cols)) + "|"]
    for r in rows:
        vals = [f"{float(r[a]):g} ({float(r[b]):g})" for _, a, b in cols]
        lines.append(f"| {r['table']} | {r['k']}, {r['levels']}, {r['messages']} | {r['level']} | "
                     + " | ".join(vals) + " |")
    return lines


def _fig12_networks(d: Path) -> list[str]:
    """Per flattened butterfly of one size, VAL's and MIN AD's first saturated load, maximum accepted load and
    zero-load latency (``fig12.csv`` of kim-fig12)."""
    rows = _csv_rows(d, "fig12.csv")
    by = {(r["routing"], r["k"], r["n"]): r for r in rows}
    nets = list(dict.fromkeys((r["k"], r["n"]) for r in rows))
    lines = ["| network | k', n' | VAL: first saturated / max accepted / zero-load latency | MIN AD: VCs × depth, "
             "first saturated / max accepted / zero-load latency |", "|---|---|---|---|"]

    def cell(r):
        return f"{float(r['first_saturated_load']):g} / {float(r['max_accepted']):.3f} / " \
               f"{float(r['zero_load_latency']):.2f}"
    for k, n in nets:
        v, a = by[("val", k, n)], by[("min-ad", k, n)]
        lines.append(f"| {k}-ary {n}-flat | {v['k_prime']}, {v['n_prime']} | {cell(v)} | "
                     f"{a['vcs']} × {a['vc_depth']}, {cell(a)} |")
    return lines


#: a simulated study's points as kept in ``points.csv``: where each comes from (the run's ``points.jsonl``
#: record, its ``result``); the wall-clock seconds are left out, so a rerun gives the same file
POINT_FIELDS = ("sweep", "routing", "load", "accepted_throughput", "avg_latency", "p99_latency", "max_latency",
                "avg_hops", "minimal_fraction", "saturated", "saturation_reasons")


def sweep_points(out: Path) -> list[dict]:
    """Every simulated point of the run in ``out`` (one ``points.jsonl`` per sweep, in its subdirectory) up to
    its routing's first saturated load (the points every run simulates), as rows of :data:`POINT_FIELDS`,
    sorted by sweep, routing (in the sweep's order) and load."""
    rows = []
    for f in sorted(out.rglob("points.jsonl")):
        sweep = f.parent.relative_to(out).as_posix()
        cfg = f.parent / "config.json"   # the sweep's routings in its order (points.jsonl: as they finished)
        order = {r: i for i, r in enumerate(json.loads(cfg.read_text())["routings"] if cfg.exists() else [])}
        for line in f.read_text().splitlines():
            rec = json.loads(line)
            if rec.get("skipped") or rec["result"].get("accepted_throughput") is None:
                continue
            order.setdefault(rec["routing"], len(order) + 1000)
            res = rec["result"]
            rows.append({"sweep": sweep, "routing": rec["routing"], "load": rec["load"],
                         **{k: res.get(k) for k in POINT_FIELDS[3:-1]},
                         "saturation_reasons": " ".join(res.get("saturation_reasons") or []),
                         "_order": order[rec["routing"]]})
    sat: dict[tuple, float] = {}
    for r in rows:
        if r["saturated"]:
            key = (r["sweep"], r["routing"])
            sat[key] = min(sat.get(key, r["load"]), r["load"])
    # above the first saturated load, which loads ran depends on timing (the sweep's saturation short-cut)
    rows = [r for r in rows if r["load"] <= sat.get((r["sweep"], r["routing"]), r["load"])]
    rows.sort(key=lambda r: (r["sweep"], r["_order"], r["load"]))
    return [{k: v for k, v in r.items() if k != "_order"} for r in rows]


def _write_points(out: Path, dest: Path) -> None:
    import io
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=POINT_FIELDS, lineterminator="\n")
    w.writeheader()
    for r in sweep_points(out):
        w.writerow({k: ("true" if v is True else "false" if v is False else v) for k, v in r.items()})
    tmp = dest.with_suffix(".csv.tmp")
    tmp.write_text(buf.getvalue())
    tmp.replace(dest)


def _saturation_table(names: dict[str, str] | None = None) -> Callable[[Path], list[str]]:
    """Per sweep and routing: the first saturated load (Saturation rule of the page; "none" when no load
    saturated), the highest accepted throughput, the latency at the lowest load when it is not saturated,
    and the largest p99 and maximum latency before saturation (``points.csv``)."""

    def render(d: Path) -> list[str]:
        rows = _csv_rows(d, "points.csv")
        keys = list(dict.fromkeys((r["sweep"], r["routing"]) for r in rows))
        lines = ["| pattern | routing | first saturated | max accepted | zero-load latency | "
                 "before saturation: largest p99 / max latency |", "|---|---|---|---|---|---|"]
        for sw, rt in keys:
            pts = [r for r in rows if (r["sweep"], r["routing"]) == (sw, rt)]
            first = _first_saturated(pts)
            ok = [r for r in pts if first is None or float(r["load"]) < first]
            zl = pts[0]["avg_latency"] if pts[0]["saturated"] != "true" else None
            tail = (f"{max(float(r['p99_latency']) for r in ok):g} / {max(int(r['max_latency']) for r in ok)}"
                    if ok else "-")
            lines.append(f"| {(names or {}).get(sw, sw)} | {rt} | {'none' if first is None else f'{first:g}'} | "
                         f"{max(float(r['accepted_throughput']) for r in pts):.3f} | "
                         f"{'-' if zl is None else f'{float(zl):.2f}'} | {tail} |")
        return lines
    return render


def _slimfly_perf(d: Path) -> list[str]:
    """Per network and routing, each pattern's first saturated load and maximum accepted throughput, with the
    uniform zero-load latency (``perf.csv`` of slimfly-perf)."""
    rows = _csv_rows(d, "perf.csv")
    nets = {"slimfly": "Slim Fly", "dragonfly": "dragonfly", "fattree": "fat tree"}
    pats = list(dict.fromkeys(r["pattern"] for r in rows))
    by = {(r["pattern"], r["network"], r["routing"]): r for r in rows}
    size = {r["network"]: r["endpoints"] for r in rows}
    names = {"uniform": "UR", "shift": "shift", "sf-worst-case": "worst case"}
    lines = ["| network (endpoints), routing | " + " | ".join(
        f"{names.get(p, p)}: first saturated / max accepted" + (" / zero-load latency" if p == "uniform" else "")
        for p in pats) + " |", "|---" * (1 + len(pats)) + "|"]
    for net, rt in dict.fromkeys((r["network"], r["routing"]) for r in rows):
        cells = []
        for p in pats:
            r = by.get((p, net, rt))
            if r is None:
                cells.append("")
                continue
            c = f"{r['first_saturated_load'] or 'none'} / {float(r['max_accepted']):.3f}"
            cells.append(c + (f" / {float(r['zero_load_latency']):.2f}" if p == "uniform" else ""))
        label = "adaptive" if rt == "clos-adaptive" else rt.upper()
        lines.append(f"| {nets.get(net, net)} ({size[net]}), {label} | " + " | ".join(cells) + " |")
    return lines


def _latency_cells(pts: list[dict], loads: tuple[float, ...], scale: float = 1) -> str:
    """Average latency at each of ``loads`` ("saturated at L" from the first saturated load L on); the rows'
    loads are ``1 / scale`` of the table's (flits per cycle against a fraction of the terminal's rate)."""
    sat = _first_saturated(pts)
    sat = None if sat is None else round(sat * scale, 9)
    by = {round(float(r["load"]) * scale, 9): r for r in pts}
    cells = []
    for x in loads:
        if sat is not None and x >= sat - 1e-9:
            cells.append(f"saturated at {sat:g}")
            break
        r = by.get(round(x, 9))
        cells.append("-" if r is None or not r["avg_latency"] else f"{float(r['avg_latency']):.2f}")
    return " / ".join(cells)


def _2dfb_fig5(d: Path) -> list[str]:
    """Per pattern: minimal routing's first saturated load and maximum accepted throughput, and the Adaptive
    2DFB's and the adaptive Clos's latency at 0.1, 0.5 and 0.9 (``points.csv`` of 2dfb-fig5), loads and
    throughputs as fractions of the terminal's rate (``claims.json``'s ``link_rate``: the points' flits per
    cycle times it)."""
    rows = _csv_rows(d, "points.csv")
    rate = json.loads((d / "claims.json").read_text()).get("link_rate", 1)
    loads = (0.1, 0.5, 0.9)
    lines = ["| pattern | 2DFB minimal: first saturated / max accepted | Adaptive 2DFB: latency at "
             + " / ".join(map(str, loads)) + " | Adaptive Clos: latency at " + " / ".join(map(str, loads)) + " |",
             "|---|---|---|---|"]
    for pat in dict.fromkeys(r["sweep"].split("/")[0] for r in rows):
        def pts(net, rt):
            return [r for r in rows if r["sweep"] == f"{pat}/{net}" and r["routing"] == rt]
        mn = pts("2dfb", "min")
        sat = _first_saturated(mn)
        clos = pts("clos", "clos-adaptive")
        lines.append(f"| {pat.removeprefix('2dfb-')} | {'none' if sat is None else f'{sat * rate:g}'} / "
                     f"{max(float(r['accepted_throughput']) for r in mn) * rate:.3f} | "
                     f"{_latency_cells(pts('2dfb', '2dfb-adaptive'), loads, rate)} | "
                     f"{_latency_cells(clos, loads, rate) if clos else 'no Clos counterpart'} |")
    return lines


def _kim_fig5(d: Path) -> list[str]:
    """Cycles to deliver a worst-case batch over its size, per batch size and routing (``fig5.csv``)."""
    rows = list(csv.reader((d / "fig5.csv").read_text().splitlines()))
    head, body = rows[0], rows[1:]
    lines = ["| batch (packets per terminal) | " + " | ".join(r.upper() for r in head[1:]) + " |",
             "|---" * len(head) + "|"]
    return lines + [f"| {r[0]} | " + " | ".join(f"{float(x):.2f}" for x in r[1:]) + " |" for r in body]


def _fig14_networks(d: Path) -> list[str]:
    """The three networks of Fig. 14: size, routers, channels, cost, MIN's first saturated uniform load and its
    accepted worst-case throughput at offered 1.0 (``fig14.csv`` and ``claims.json`` of kim-fig14)."""
    rows = [r for r in _csv_rows(d, "fig14.csv") if r["traffic"] == "uniform"]
    wc = json.loads((d / "claims.json").read_text())["worst_case_capacity"]
    lines = ["| network | N | routers × radix | channels | $ per node | MIN, uniform: first saturated | MIN, worst "
             "case: accepted at offered 1.0 |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['network']} | {r['N']} | {r['routers']} × {r['radix']} | {r['channels']} | "
                     f"{float(r['cost_per_node']):.2f} | {r['first_saturated_load'] or 'none'} | "
                     f"{wc[r['network']]:g} |")
    return lines


def _fig6_networks(d: Path) -> list[str]:
    """Per network of Fig. 6 (and the evidence networks): each pattern's first saturated load and maximum accepted
    throughput, with the uniform zero-load latency (``fig6.csv`` of kim-fig6)."""
    rows = _csv_rows(d, "fig6.csv")
    lines = ["| network | routing | UR: first saturated / max accepted / zero-load latency | "
             "WC: first saturated / max accepted |", "|---|---|---|---|"]
    keys = list(dict.fromkeys((r["network"], r["routing"]) for r in rows))
    by = {(r["pattern"], r["network"], r["routing"]): r for r in rows}
    for net, rt in keys:
        u, w = by.get(("uniform", net, rt)), by.get(("worst-case", net, rt))
        label = (u or w)["label"]
        ur = "" if u is None else (f"{u['first_saturated_load'] or 'none'} / {float(u['max_accepted']):.3f} / "
                                   f"{float(u['zero_load_latency']):.2f}")
        wc = "" if w is None else f"{w['first_saturated_load'] or 'none'} / {float(w['max_accepted']):.4g}"
        lines.append(f"| {label} | `{rt}` | {ur} | {wc} |")
    return lines


def _ttn_dynamic(d: Path) -> list[str]:
    """Per pattern and q, each network's latency at the lowest load (its hops there) and maximum accepted
    throughput (``dynamic.csv`` of ttn-dynamic)."""
    rows = _csv_rows(d, "dynamic.csv")
    nets = list(dict.fromkeys(r["network"] for r in rows))
    by = {(r["pattern"], r["q"], r["network"]): r for r in rows}
    names = {"ttn": "TTN", "tesh": "TESH"}
    lines = [f"| pattern, q ({rows[0]['nodes']} nodes) | " + " | ".join(names.get(n, n) for n in nets) + " |",
             "|---" * (1 + len(nets)) + "|"]
    for pat, q in dict.fromkeys((r["pattern"], r["q"]) for r in rows):
        cells = []
        for n in nets:
            r = by.get((pat, q, n))
            cells.append("" if r is None else f"{float(r['zero_load_latency']):.1f} "
                         f"({float(r['avg_hops_lowest_load']):.1f}) / {float(r['max_accepted']):.3g}")
        lines.append(f"| {pat}, {q} | " + " | ".join(cells) + " |")
    return lines


def _kim_entries() -> dict[str, dict]:
    """The Kim studies under each study router (radixnet.studies.paper.STUDY_ROUTERS): Kim's own as the study's
    primary result (``NAME``, with the page's figures), radixnet's as a second series (``NAME-radixnet``);
    kim-fig14 under Kim's alone (radixnet's gives the same numbers)."""
    kinds = {   # study -> (result files, sweeps, figures of the primary run, blocks)
        "kim-fig4": (("claims.json",), True, {"uniform/latency.png": "kim-fig4a-uniform.png",
                                              "worst-case/latency.png": "kim-fig4b-worst-case.png",
                                              "uniform/throughput.png": "kim-fig4a-uniform-throughput.png"},
                     {"saturation": _saturation_table()}),
        "kim-fig5": (("claims.json", "fig5.csv"), False, {"fig5.png": "kim-fig5-batch.png"},
                     {"batches": _kim_fig5}),
        "kim-fig6": (("claims.json", "fig6.csv"), True, {"fig6a-uniform.png": "kim-fig6a-uniform.png",
                                                         "fig6b-worst-case.png": "kim-fig6b-worst-case.png"},
                     {"networks": _fig6_networks}),
        "kim-fig12": (("claims.json", "fig12.csv"), False, {"fig12a-val.png": "kim-fig12a-val.png",
                                                            "fig12b-min-ad.png": "kim-fig12b-min-ad.png"},
                      {"networks": _fig12_networks}),
        "kim-fig14": (("claims.json", "fig14.csv"), True, {"fig14-worst-case.png": "kim-fig14-worst-case.png"},
                      {"networks": _fig14_networks}),
    }
    out = {}
    for study, (files, sweeps, figures, blocks) in kinds.items():
        for router in ("kim",) if study == "kim-fig14" else ("kim", "radixnet"):
            primary = router == "kim"
            out[study if primary else f"{study}-{router}"] = {
                "study": study, "router": router, "files": files, "sweeps": sweeps,
                "figures": figures if primary else {}, "blocks": dict(blocks)}
    return out


#: per study: the result files kept (``docs/study-results/NAME/``), the figures the page shows (the run's
#: file -> ``docs/figures/``), and the page's blocks (name -> renderer of the stored directory)
STUDIES: dict[str, dict] = {
    "kim-cost": {"files": ("claims.json", "points.json", "points.csv", "fig13.json"),
                 "figures": {"fig11.png": "kim-fig11-cost.png", "fig10a.png": "kim-fig10a-link-cost.png",
                             "fig10b.png": "kim-fig10b-cable-length.png", "fig13.png": "kim-fig13-dimensions.png"},
                 "blocks": {"cost": _per_node_pivot("cost_per_node", ".2f", "fbfly cheaper than Clos by")}},
    "kim-power": {"files": ("claims.json", "points.json", "points.csv"),
                  "figures": {"fig15.png": "kim-fig15-power.png"},
                  "blocks": {"power": _per_node_pivot("power_per_node", ".2f", "fbfly below Clos by")}},
    "slimfly-cost": {"files": ("claims.json", "points.json", "points.csv"),
                     "figures": {"slimfly-cost.png": "slimfly-cost.png"},
                     "blocks": {"networks": _slimfly_networks}},
    "clex-tables": {"files": ("claims.json", "tables.csv", "tables.json", "factors.csv"),
                    "figures": {"fig3.png": "clex-fig3.png"},
                    "blocks": {"tables": _clex_tables}},
    "slimfly-perf": {"files": ("claims.json", "perf.csv"), "sweeps": True,
                     "figures": {"perf-uniform.png": "slimfly-perf-uniform.png"},
                     "blocks": {"networks": _slimfly_perf}},
    "2dfb-fig5": {"files": ("claims.json", "fig5.csv"), "sweeps": True,
                  "figures": {"delay-2dfb-random.png": "2dfb-fig5-random.png",
                              "delay-2dfb-adversarial.png": "2dfb-fig5-adversarial.png"},
                  "blocks": {"patterns": _2dfb_fig5}, "expect": {"link_rate": 2, "packet_length": 8}},
    # the same study at the terminal's rate with single-flit packets (--set rate=1 packet=1), a second series
    "2dfb-fig5-terminal": {"study": "2dfb-fig5", "files": ("claims.json", "fig5.csv"), "sweeps": True,
                           "figures": {}, "blocks": {"patterns": _2dfb_fig5},
                           "expect": {"link_rate": 1, "packet_length": 1}},
    **_kim_entries(),
    "ttn-dynamic": {"files": ("claims.json", "dynamic.csv"), "sweeps": True,
                    "figures": {"fig7b-uniform.png": "ttn-fig7b-uniform.png"},
                    "blocks": {"patterns": _ttn_dynamic}},
    "2dfb-fig4": {"files": ("claims.json",), "sweeps": True,
                  "figures": {"2dfb-adversarial/latency.png": "2dfb-adversarial.png"},
                  "blocks": {"saturation": _saturation_table()}},
}
for _s in STUDIES.values():
    _s["blocks"]["claims"] = lambda d: claims_table(json.loads((d / "claims.json").read_text()))


def markers(name: str, block: str) -> tuple[str, str]:
    return f"<!-- study:{name}:{block}:begin -->", f"<!-- study:{name}:{block}:end -->"


def render_blocks(text: str, results: Path = RESULTS) -> tuple[str, list[str]]:
    """``text`` (the page) with every block of a study that has stored results regenerated, and the blocks
    that changed (``NAME:BLOCK``). A block the page lacks is an error: the page names where each goes."""
    changed = []
    for name, spec in STUDIES.items():
        d = results / name
        if not (d / "claims.json").exists():
            continue
        for block, render in spec["blocks"].items():
            begin, end = markers(name, block)
            i, j = text.find(begin), text.find(end)
            if i < 0 or j < i:
                raise ValueError(f"{DOC.name}: no {begin} ... {end} block")
            new = begin + "\n" + "\n".join(render(d)) + "\n" + end
            if text[i:j + len(end)] != new:
                changed.append(f"{name}:{block}")
                text = text[:i] + new + text[j + len(end):]
    return text, changed


def update(check: bool = False, doc: Path = DOC, results: Path = RESULTS) -> list[str]:
    """Regenerate the page's blocks (``check``: only report); returns the blocks that differed."""
    text = doc.read_text()
    new, changed = render_blocks(text, results)
    if changed and not check:
        tmp = doc.with_suffix(".md.tmp")
        tmp.write_text(new)
        tmp.replace(doc)
    return changed


def take(name: str, out: Path, results: Path = RESULTS, figures: Path = FIGURES) -> None:
    """Keep study ``name``'s run in ``out``: its result files and the page's figures."""
    if name not in STUDIES:
        raise ValueError(f"study_docs: NAME must be one of {', '.join(STUDIES)} (got {name!r})")
    spec = STUDIES[name]
    missing = [f for f in spec["files"] if not (out / f).exists()]
    if missing:
        raise ValueError(f"study_docs: {out} is not a run of {name} (missing {', '.join(missing)})")
    claims = json.loads((out / "claims.json").read_text())
    wrong = {k: claims.get(k) for k, v in spec.get("expect", {}).items() if claims.get(k) != v}
    if wrong:
        raise ValueError(f"study_docs: {out} is not a run of {name} (it has {wrong}; {name} keeps "
                         + ", ".join(f"{k} = {v}" for k, v in spec["expect"].items()) + ")")
    if spec.get("sweeps") and not any(out.rglob("points.jsonl")):
        raise ValueError(f"study_docs: {out} is not a run of {name} (no sweep's points.jsonl)")
    if "router" in spec:   # a study run under each study router: the run must be this entry's
        from .studies.paper import STUDY_ROUTERS
        want = STUDY_ROUTERS[spec["router"]].doc
        got = claims.get("router")
        if got is None or not (got == want or got.startswith(want + ";")):   # the doc, then what the study adds
            raise ValueError(f"study_docs: {out} is not a run of {name} (its routers: {got}; {name} keeps "
                             f"--set router={spec['router']}: {want})")
    d = results / name
    d.mkdir(parents=True, exist_ok=True)
    for f in spec["files"]:
        shutil.copyfile(out / f, d / f)
    if spec.get("sweeps"):   # the simulated points without their wall-clock seconds
        _write_points(out, d / "points.csv")
    for src, dst in spec["figures"].items():
        if (out / src).exists():
            shutil.copyfile(out / src, figures / dst)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m radixnet.study_docs", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 when a block is stale")
    ap.add_argument("--take", nargs=2, metavar=("NAME", "DIR"), help="keep the run of study NAME in DIR first")
    a = ap.parse_args(argv)
    try:
        if a.take:
            take(a.take[0], Path(a.take[1]))
        changed = update(check=a.check)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    if a.check and changed:
        print(f"study_docs: {DOC.relative_to(ROOT)} differs from the stored results in {', '.join(changed)} "
              "(python -m radixnet.study_docs)", file=sys.stderr)
        return 1
    print(f"study_docs: {len(changed)} block(s) {'stale' if a.check else 'regenerated'}"
          + (f": {', '.join(changed)}" if changed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
