"""Studies: one command regenerates a paper's figure as CSV, JSON and plots, then checks its claims.

``kim-fig4``
    Kim et al. ISCA 2007 §3.2, Fig. 4: latency vs offered load on the 32-ary 2-flat (N = 1024,
    single-flit packets, 32 flits of buffering per port) for (a) uniform random and (b) the worst case
    pattern, for MIN (AD), VAL, UGAL, UGAL-S and CLOS AD. Two sweep directories (``uniform/``,
    ``worst-case/``) with CSVs and plots.
``kim-fig5``
    Kim Fig. 5: time to deliver a batch of worst-case traffic, normalised to the batch size, against
    the batch size, for VAL, UGAL, UGAL-S and CLOS AD.
``2dfb-fig4``
    Thamarakuzhi & Chandy Fig. 4 / Fig. 5: throughput of minimal and priority-flag adaptive routing on
    the 8-ary 1-dim 2DFB (``--n 2``: 8-ary 2-dim) under benign, adversarial and random traffic
    (the adaptive-Clos comparison is in ``2dfb-fig5``).
``kim-fig6``, ``kim-fig12``, ``kim-fig14``, ``2dfb-fig5``, ``slimfly-perf``, ``ttn-dynamic``, ``clex-tables``
    Kim Fig. 6, 12 and 14, the 2DFB's Fig. 5-7, the Slim Fly talk's performance results, the TTN paper's
    dynamic communication performance (Fig. 7-13) and CLEX's Tables I-IV: :mod:`radixnet.golden.paper_studies`.

Each study writes ``claims.json``: every claim of the paper it reproduces, the value computed here and
whether it holds. Points are stored as they finish; a study resumes where it stopped.

``run_study(..., scheduler=ADDRESS)`` runs every sweep of a study on one Dask cluster
(:mod:`radixnet.golden.cluster`): the client is made active around the study function, so the study
functions take no parameter for it. Studies without sweeps (``kim-fig5``, ``clex-tables`` and the cost
studies, :attr:`Study.sweeps` False) run in this process either way.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..gen import ParamError, build
from ..gen.params import check_out_dir
from ..gen.router_model import get_router_model
from . import cluster, cost_studies, paper_studies
from .sim import SimConfig, Simulator
from .sweep import Sweep, parse_loads, plot, write_csvs

__all__ = ["STUDIES", "Study", "run_study"]


@dataclass(frozen=True)
class Study:
    """A paper figure as a study: ``run(out, **kw)`` writes it and returns its claims; ``points(**kw)`` is
    the number of simulation points it runs (for the progress display, ``i of N``); ``sweeps``: its points
    run in sweeps (:class:`Sweep`), so a Dask cluster can run them (``--scheduler``)."""

    name: str
    doc: str
    run: Callable[..., dict[str, Any]]
    points: Callable[..., int]
    sweeps: bool = True


def _fig4_loads(loads: str) -> list[float]:
    pts = parse_loads(loads)
    return pts if 0.45 in [round(x, 9) for x in pts] else sorted(set(pts) | {0.45})


def _claim(text: str, value: Any, holds: bool) -> dict[str, Any]:
    return {"claim": text, "computed": value, "holds": bool(holds)}


def _first_saturated(sweep: Sweep, routing: str) -> float | None:
    return sweep.saturation_load(routing)


def _latency_at(sweep: Sweep, routing: str, load: float) -> float | None:
    rec = sweep.done.get((routing, round(load, 9)))
    return None if rec is None else rec["result"].get("avg_latency")


def kim_fig4(out: Path, k: int = 32, jobs: int | None = None, loads: str = "0.05:1.0:0.05",
             on_point=None, router_model: str = "single-cycle") -> dict[str, Any]:
    net = build("fbfly", k=k, n=2)
    pts = _fig4_loads(loads)
    claims = []
    sweeps = {}
    for traffic, routings in (("uniform", ["min-ad", "val", "ugal", "ugal-s", "clos-ad"]),
                              ("worst-case", ["min", "val", "ugal", "ugal-s", "clos-ad"])):
        sw = Sweep(SimConfig(net, traffic=traffic, seed=1, router_model=router_model), routings, pts,
                   out / traffic, jobs=jobs, on_point=on_point)
        sw.write_config({"study": "kim-fig4"})
        sw.run()
        write_csvs(sw)
        plot(sw)
        sweeps[traffic] = sw
    ur, wc = sweeps["uniform"], sweeps["worst-case"]

    def sat(sw, r):
        s = _first_saturated(sw, r)
        return 1.0 if s is None else s

    for r in ("min-ad", "ugal", "ugal-s", "clos-ad"):
        claims.append(_claim(f"UR: {r} reaches >= 0.9 of capacity (Fig. 4(a)): first saturated load",
                             sat(ur, r), sat(ur, r) > 0.9))
    claims.append(_claim("UR: VAL reaches about half of capacity: first saturated load", sat(ur, "val"),
                         0.45 <= sat(ur, "val") <= 0.6))
    claims.append(_claim(f"WC: MIN limited to 1/{k}: first saturated load", sat(wc, "min"),
                         sat(wc, "min") <= 2.0 / k + 0.05))
    for r in ("val", "ugal", "ugal-s", "clos-ad"):
        claims.append(_claim(f"WC: {r} carries about 0.5: first saturated load", sat(wc, r),
                             0.45 < sat(wc, r) <= 0.6))
    la, lb = _latency_at(wc, "clos-ad", 0.45), _latency_at(wc, "ugal-s", 0.45)
    claims.append(_claim("WC at 0.45: CLOS AD latency well below UGAL-S's (Kim: nearly half)",
                         {"clos-ad": la, "ugal-s": lb}, la is not None and (lb is None or la < 0.8 * lb)))
    return {"network": f"{k}-ary 2-flat", "claims": claims}


def kim_fig5(out: Path, k: int = 32, jobs: int | None = None, batches=(1, 2, 4, 8, 16, 32, 64, 128, 256),
             on_point=None, router_model: str = "single-cycle") -> dict[str, Any]:
    net = build("fbfly", k=k, n=2)
    routings = ["val", "ugal", "ugal-s", "clos-ad"]
    out.mkdir(parents=True, exist_ok=True)
    store = out / "points.jsonl"
    done: dict[tuple[str, int], float] = {}
    if store.exists():
        for line in store.read_text().splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut off by an interruption: that point runs again
            if rec.get("k") == k and rec.get("router_model", "single-cycle") == router_model:
                done[(rec["routing"], rec["batch"])] = rec["normalized"]
    with open(store, "a", encoding="utf-8") as fh:
        for b in batches:
            for r in routings:
                if (r, b) in done:
                    continue
                res = Simulator(SimConfig(net, routing=r, traffic="worst-case", seed=2,
                                          router_model=router_model)).run_batch(b)
                rec = {"k": k, "router_model": router_model, "routing": r, "batch": b, **res}
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
                done[(r, b)] = res["normalized"]
                if on_point:
                    on_point(rec)
    with open(out / "fig5.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["batch"] + routings)
        for b in batches:
            w.writerow([b] + [done[(r, b)] for r in routings])
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    for r in routings:
        ax.plot(batches, [done[(r, b)] for b in batches], marker="o", label=r)
    ax.set_xscale("log", base=2)
    ax.axhline(2.0, color="grey", lw=0.8, ls="--", label="1/throughput (0.5)")
    ax.set_xlabel("batch size (packets per terminal)")
    ax.set_ylabel("cycles to deliver / batch size")
    ax.set_title(f"{k}-ary 2-flat, worst-case batch (Kim Fig. 5)")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(out / f"fig5.{ext}", dpi=120)
    plt.close(fig)
    small = min(b for b in batches if b >= 4)
    vals = {r: done[(r, small)] for r in routings}
    big = max(batches)
    claims = [
        _claim(f"batch {small}: UGAL is worst", vals, vals["ugal"] == max(vals.values())),
        _claim(f"batch {small}: CLOS AD is best", vals, vals["clos-ad"] == min(vals.values())),
        _claim(f"batch {big}: all approach 1/throughput = 2", {r: done[(r, big)] for r in routings},
               all(1.8 <= done[(r, big)] <= 3.0 for r in routings)),
    ]
    return {"network": f"{k}-ary 2-flat", "claims": claims}


def dfb_fig4(out: Path, n: int = 1, jobs: int | None = None, loads: str = "0.1:1.0:0.1",
             on_point=None, router_model: str = "single-cycle") -> dict[str, Any]:
    net = build("2dfb", k=8, n=n)
    claims = []
    for traffic in ("2dfb-benign", "2dfb-adversarial", "2dfb-random"):
        sw = Sweep(SimConfig(net, traffic=traffic, seed=1, router_model=router_model), ["min", "2dfb-adaptive"],
                   parse_loads(loads), out / traffic, jobs=jobs, on_point=on_point)
        sw.write_config({"study": "2dfb-fig4"})
        sw.run()
        write_csvs(sw)
        plot(sw)
        s = sw.saturation_load("2dfb-adaptive")
        claims.append(_claim(f"{traffic}: adaptive 2DFB close to 100%: first saturated load",
                             1.0 if s is None else s, s is None or s >= 0.9))
        if traffic == "2dfb-adversarial":
            m = sw.saturation_load("min")
            claims.append(_claim("adversarial: minimal limited (paper: 50%; the model gives 2/k = 0.25)",
                                 m, m is not None and m <= 0.35))
    return {"network": f"8-ary {n}-dim 2DFB", "claims": claims}


STUDIES: dict[str, Study] = {
    "kim-fig4": Study("kim-fig4", "Kim 2007 Fig. 4: latency vs load, UR and worst case, five routings",
                      kim_fig4, lambda loads="0.05:1.0:0.05", **_: 10 * len(_fig4_loads(loads))),
    "kim-fig5": Study("kim-fig5", "Kim 2007 Fig. 5: normalised batch latency vs batch size", kim_fig5,
                      lambda batches=(1, 2, 4, 8, 16, 32, 64, 128, 256), **_: 4 * len(batches), sweeps=False),
    "2dfb-fig4": Study("2dfb-fig4", "Thamarakuzhi & Chandy Fig. 4/5: 2DFB throughput, min vs adaptive",
                       dfb_fig4, lambda loads="0.1:1.0:0.1", **_: 6 * len(parse_loads(loads))),
    "kim-fig6": Study("kim-fig6", "Kim 2007 Fig. 6: fbfly vs butterfly, folded Clos, hypercube (Table 1), UR and WC",
                      paper_studies.kim_fig6, paper_studies.fig6_points),
    "kim-fig14": Study("kim-fig14", "Kim 2007 Fig. 14: the spare port, (a) redundant channels, (b) N = 16 -> 20",
                       paper_studies.kim_fig14, paper_studies.fig14_points),
    "kim-fig12": Study("kim-fig12", "Kim 2007 Fig. 12: N = 4K flattened butterflies of Table 4, VAL and MIN AD",
                       paper_studies.kim_fig12, paper_studies.fig12_points),
    "2dfb-fig5": Study("2dfb-fig5", "Thamarakuzhi & Chandy Fig. 5/7 (--n 1: 4/6): 2DFB vs adaptive Clos, throughput "
                       "and delay", paper_studies.dfb_fig5, paper_studies.dfb_fig5_points),
    "slimfly-perf": Study("slimfly-perf", "Slim Fly slides: MIN/VAL/UGAL-L/UGAL-G vs dragonfly and fat tree, "
                          "uniform, shift, worst case", paper_studies.slimfly_perf, paper_studies.slimfly_points),
    "ttn-dynamic": Study("ttn-dynamic", "Rahman 2009 Fig. 7-13: TTN vs TESH vs mesh vs torus, 7 patterns, 4 VCs, "
                         "16 flits", paper_studies.ttn_dynamic, paper_studies.ttn_points),
    "clex-tables": Study("clex-tables", "Lenzen & Wattenhofer Tables I-IV and the 3D-torus comparison (round model)",
                         paper_studies.clex_tables, lambda **_: 4, sweeps=False),
    # pure computation (radixnet.gen.cost): no simulation points
    "kim-cost": Study("kim-cost", "Kim 2007 Fig. 10, 11, 13, Table 4: link cost, cable length, cost per node",
                      cost_studies.kim_cost, lambda **_: 0, sweeps=False),
    "kim-power": Study("kim-power", "Kim 2007 Table 5, Fig. 15: power per node", cost_studies.kim_power,
                       lambda **_: 0, sweeps=False),
    "slimfly-cost": Study("slimfly-cost", "Slim Fly slides: cost and power vs dragonfly, fat tree, fbfly at ~10K",
                          cost_studies.slimfly_cost, lambda **_: 0, sweeps=False),
}


def run_study(name: str, out: str | os.PathLike, scheduler: str | None = None, **kw: Any) -> dict[str, Any]:
    """Run a study into ``out``; write and return ``claims.json`` (which names the router model, §R10).

    Parameters
    ----------
    name : str
        A key of :data:`STUDIES`.
    out : path-like
        The output directory (resumed when it holds points).
    scheduler : str, optional
        A Dask scheduler's address: the study's sweeps run on that cluster (:func:`cluster.scheduler`;
        ``jobs`` is then the points in flight at most). Ignored by studies without sweeps
        (:attr:`Study.sweeps`).
    **kw
        The study function's parameters (``jobs``, ``on_point``, ``router_model``, ...).

    Returns
    -------
    dict
        The claims and what was run.

    Raises
    ------
    ParamError
        An unknown study, router model or ``--out``; a malformed or unreachable ``--scheduler``, before any
        point runs.
    """
    if name not in STUDIES:
        raise ParamError("study", f"must be one of {', '.join(STUDIES)} (got {name!r})")
    kw["router_model"] = get_router_model(kw.get("router_model", "single-cycle")).name
    outp = check_out_dir(out, "out")  # an empty string, a file, a place that cannot be written: before any work
    with cluster.scheduler(scheduler if STUDIES[name].sweeps else None):
        result = STUDIES[name].run(outp, **kw)
    result["study"] = name
    result["router_model"] = kw["router_model"]
    outp.mkdir(parents=True, exist_ok=True)
    (outp / "claims.json").write_text(json.dumps(result, indent=2))
    return result
