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
    dynamic communication performance (Fig. 7-13) and CLEX's Tables I-IV: :mod:`radixnet.studies.paper`.

Each study writes ``claims.json``: every claim of the paper it reproduces, the value computed here and
whether it holds. Points are stored as they finish; a study resumes where it stopped.

``run_study(..., scheduler=ADDRESS)`` runs every sweep of a study on one Dask cluster
(:mod:`radixnet.gen.cluster`): the client is made active around the study function, so the study
functions take no parameter for it. Studies without sweeps (``kim-fig5``, ``clex-tables`` and the cost
studies, :attr:`Study.sweeps` False) run in this process either way.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..gen import Param, ParamError, build, cluster
from ..gen.family import estimate
from ..gen.params import check_out_dir, replacing, validate
from ..gen.pool import PointStore
from ..gen.router_config import ROUTER_DEFAULTS
from ..gen.router_model import get_router_model
from ..golden.sim import BATCH_LIMIT, LIMITS, SimConfig, Simulator
from . import cost as cost_studies, paper as paper_studies
from .claims import claim
from .paper import STUDY_SPEEDUP
from .sweep import Sweep, parse_loads, plot, write_csvs

__all__ = ["STUDIES", "Study", "ListParam", "run_study", "check_study", "MAX_JOBS", "MAX_ITEMS", "MAX_COST_N",
           "STUDY_ARGS"]

#: Worker processes (or, with ``--scheduler``, points in flight) a study may ask for, as ``radixnet sweep``'s.
MAX_JOBS = 256
#: Items of a list parameter (``batches``, ``sizes``, ``patterns``) at most.
MAX_ITEMS = 64
#: Largest N a cost study prices (building one network of 2^17 nodes takes ~20 s, 2^20 several minutes).
MAX_COST_N = 1 << 16
#: Arguments of a study function that are not its parameters: the runner or the CLI passes them.
STUDY_ARGS = ("out", "jobs", "on_point", "router_model", "scheduler")


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
    #: The parameters ``run`` takes besides :data:`STUDY_ARGS` (``--set NAME=VALUE``), with type and bounds.
    params: tuple[Param, ...] = ()
    #: Cross-parameter check raising :class:`ParamError` (e.g. that the networks exist), before any work.
    check: Callable[[dict[str, Any]], None] | None = None


@dataclass(frozen=True)
class ListParam(Param):
    """A comma-separated list parameter: 1 to ``max_items`` distinct items, each of ``type`` (``int`` or
    ``str``) within ``minimum``/``maximum`` or among ``choices``. Converts to a tuple.

    Examples
    --------
    >>> ListParam("batches", int, (1, 4), "batch sizes", minimum=1).convert("1,4,16")
    (1, 4, 16)
    >>> ListParam("batches", int, (1, 4), "batch sizes", minimum=1).convert("")
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --batches: must be a comma-separated list of 1 to 64 distinct items, each an integer >= 1 (got '')
    """

    max_items: int = MAX_ITEMS

    def allowed(self) -> str:
        each = Param(self.name, self.type, None, "", self.minimum, self.maximum, self.choices).allowed()
        return f"a comma-separated list of 1 to {self._most()} distinct items, each {each}"

    def _most(self) -> int:
        return min(self.max_items, len(self.choices)) if self.choices is not None else self.max_items

    def convert(self, raw: Any) -> Any:
        if raw is None:
            return None
        bad = ParamError(self.name, f"must be {self.allowed()} (got {raw!r})")
        if isinstance(raw, str):
            items: list[Any] = [x.strip() for x in raw.split(",")]
        elif isinstance(raw, (list, tuple)):
            items = list(raw)
        else:
            raise bad
        if not items or len(items) > self._most() or any(x == "" for x in items):
            raise bad
        one = Param(self.name, self.type, None, "", self.minimum, self.maximum, self.choices)
        try:
            out = tuple(one.convert(x) for x in items)
        except ParamError:
            raise bad from None
        if len(set(out)) != len(out):
            raise bad
        return out


def _fig4_loads(loads: str) -> list[float]:
    pts = parse_loads(loads)
    return pts if 0.45 in [round(x, 9) for x in pts] else sorted(set(pts) | {0.45})


def _first_saturated(sweep: Sweep, routing: str) -> float | None:
    return sweep.saturation_load(routing)


def _latency_at(sweep: Sweep, routing: str, load: float) -> float | None:
    rec = sweep.done.get((routing, round(load, 9)))
    return None if rec is None else rec["result"].get("avg_latency")


def kim_fig4(out: Path, k: int = 32, jobs: int | None = None, loads: str = "0.05:1.0:0.05",
             on_point=None, router_model: str = ROUTER_DEFAULTS["router_model"],
             router: str = paper_studies.KIM_ROUTER.name) -> dict[str, Any]:
    net = build("fbfly", k=k, n=2)
    pts = _fig4_loads(loads)
    claims = []
    sweeps = {}
    for traffic, routings in (("uniform", ["min-ad", "val", "ugal", "ugal-s", "clos-ad"]),
                              ("worst-case", ["min", "val", "ugal", "ugal-s", "clos-ad"])):
        cfg = SimConfig(net, traffic=traffic, seed=1, router_model=router_model)
        sw = paper_studies.study_sweep(cfg, routings, pts, out / traffic, router, jobs=jobs, on_point=on_point)
        sw.write_config({"study": "kim-fig4", "router": router})
        sw.run()
        write_csvs(sw)
        plot(sw)
        sweeps[traffic] = sw
    ur, wc = sweeps["uniform"], sweeps["worst-case"]

    def sat(sw, r):
        s = _first_saturated(sw, r)
        return 1.0 if s is None else s

    # each claim against Kim §3.2's number, within the load grid's step (docs/studies.md, "Scoring")
    for r in ("min-ad", "ugal", "ugal-s", "clos-ad"):
        claims.append(claim(f"UR: {r} achieves 100% throughput (Fig. 4(a); first saturated load above 0.9)",
                             sat(ur, r), sat(ur, r) > 0.9, paper="100 %"))
    claims.append(claim("UR: VAL achieves only half of network capacity (first saturated load 0.45 to 0.6)",
                         sat(ur, "val"), 0.45 <= sat(ur, "val") <= 0.6, paper="50 %"))
    above = min((x for x in pts if x >= 1.0 / k), default=1.0)   # the grid's first load above 1/k
    claims.append(claim(f"WC: MIN is limited to 1/{k} (saturated at the grid's first load above 1/{k}, {above:g})",
                         sat(wc, "min"), sat(wc, "min") <= above + 1e-9, paper=f"1/{k}"))
    for r in ("val", "ugal", "ugal-s", "clos-ad"):
        claims.append(claim(f"WC: {r} achieves 50% throughput (first saturated load above 0.45, at most 0.6)",
                             sat(wc, r), 0.45 < sat(wc, r) <= 0.6, paper="50 %"))
    la, lb = _latency_at(wc, "clos-ad", 0.45), _latency_at(wc, "ugal-s", 0.45)
    ratio = None if la is None or lb is None else round(la / lb, 3)
    claims.append(claim("WC at 0.45: CLOS AD has nearly half the latency of UGAL-S (ratio 0.45 to 0.55)",
                         {"clos-ad": la, "ugal-s": lb, "ratio": ratio},
                         ratio is not None and 0.45 <= ratio <= 0.55, paper="nearly half"))
    return {"network": f"{k}-ary 2-flat", "router": paper_studies.STUDY_ROUTERS[router].doc, "claims": claims}


#: Fields every record of kim-fig5's ``points.jsonl`` has.
FIG5_KEYS = ("k", "routing", "batch", "normalized")


def kim_fig5(out: Path, k: int = 32, jobs: int | None = None, batches=(1, 2, 4, 8, 16, 32, 64, 128, 256),
             on_point=None, router_model: str = ROUTER_DEFAULTS["router_model"],
             router: str = paper_studies.KIM_ROUTER.name) -> dict[str, Any]:
    net = build("fbfly", k=k, n=2)
    routings = ["val", "ugal", "ugal-s", "clos-ad"]
    out.mkdir(parents=True, exist_ok=True)
    # the sweep's store: a torn last line (an interrupted write) is cut off before anything is appended
    store = PointStore(out / "points.jsonl", keys=FIG5_KEYS, what="kim-fig5 batch point")
    done: dict[tuple[str, int], float] = {}
    for rec in store.read():
        if rec["k"] == k and rec.get("router_model", "single-cycle") == router_model \
                and rec.get("router", paper_studies.RADIXNET_ROUTER.name) == router \
                and isinstance(rec["batch"], int) and isinstance(rec["normalized"], (int, float)):
            done[(rec["routing"], rec["batch"])] = rec["normalized"]
    base = SimConfig(net, traffic="worst-case", seed=2, router_model=router_model)
    common, per = paper_studies.STUDY_ROUTERS[router].fields(base, routings)
    for b in batches:
        for r in routings:
            if (r, b) in done:
                continue
            res = Simulator(dataclasses.replace(base, routing=r, **common, **per.get(r, {}))).run_batch(b)
            rec = {"k": k, "router_model": router_model, "router": router, "routing": r, "batch": b, **res}
            store.append(rec)  # one line, fsync'd
            done[(r, b)] = res["normalized"]
            if on_point:
                on_point(rec)
    with replacing(out / "fig5.csv") as tmp, open(tmp, "w", newline="") as f:  # never half a file
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
        with replacing(out / f"fig5.{ext}") as tmp:  # never half a file (a full disk)
            fig.savefig(tmp, dpi=120)
    plt.close(fig)
    small = min(b for b in batches if b >= 4)
    vals = {r: done[(r, small)] for r in routings}
    big = max(batches)
    claims = [
        claim(f"batch {small}: UGAL is worst", vals, vals["ugal"] == max(vals.values())),
        claim(f"batch {small}: CLOS AD is best", vals, vals["clos-ad"] == min(vals.values())),
        claim(f"batch {big}: all approach 1/throughput = 2", {r: done[(r, big)] for r in routings},
               all(1.8 <= done[(r, big)] <= 3.0 for r in routings)),
    ]
    return {"network": f"{k}-ary 2-flat", "router": paper_studies.STUDY_ROUTERS[router].doc, "claims": claims,
            **({"warnings": store.warnings} if store.warnings else {})}


def dfb_fig4(out: Path, n: int = 1, jobs: int | None = None, loads: str = "0.1:1.0:0.1",
             on_point=None, router_model: str = ROUTER_DEFAULTS["router_model"]) -> dict[str, Any]:
    net = build("2dfb", k=8, n=n)
    claims = []
    for traffic in ("2dfb-benign", "2dfb-adversarial", "2dfb-random"):
        sw = Sweep(SimConfig(net, traffic=traffic, seed=1, router_model=router_model, speedup=STUDY_SPEEDUP),
                   ["min", "2dfb-adaptive"],
                   parse_loads(loads), out / traffic, jobs=jobs, on_point=on_point)
        sw.write_config({"study": "2dfb-fig4"})
        sw.run()
        write_csvs(sw)
        plot(sw)
        s = sw.saturation_load("2dfb-adaptive")
        claims.append(claim(f"{traffic}: adaptive 2DFB close to 100%: first saturated load",
                             1.0 if s is None else s, s is None or s >= 0.9))
        if traffic == "2dfb-adversarial":
            m = sw.saturation_load("min")
            # scored against the paper's 50% within the load grid's step; the model's bound is 2/k (docs/studies.md)
            claims.append(claim("adversarial: minimal limited to 50% (paper; first saturated load within 0.1 of "
                                 "0.5; the model's bound, by the paper's description, is 2/k = 0.25)",
                                 m, m is not None and abs(m - 0.5) <= 0.1 + 1e-9))
    return {"network": f"8-ary {n}-dim 2DFB", "claims": claims}


# ------------------------------------------------------------------ each study's parameters and their checks
def _lim(name: str, help: str, default: Any, lo: int | None = None, hi: int | None = None) -> Param:
    """An integer parameter; bounds default to the simulator's (``LIMITS[name]``)."""
    a, b = LIMITS.get(name, (lo, hi))
    return Param(name, int, default, help, minimum=a if lo is None else lo, maximum=b if hi is None else hi)


def _loads(default: str | None) -> Param:
    return Param("loads", str, default, "offered loads, start:stop:step or a comma list, each in (0, 1]")


_MEASURE = _lim("measure", "measured cycles per point", 2000)
_JOBS = Param("jobs", int, None, "worker processes (with --scheduler: points in flight)", minimum=1, maximum=MAX_JOBS)
_KIM_K = Param("k", int, 32, "routers per dimension of the k-ary 2-flat (N = k^2)", minimum=2, maximum=256)
_ROUTER = Param("router", str, paper_studies.KIM_ROUTER.name,
                "the routers: " + "; ".join(f"{r.name}: {r.doc}" for r in paper_studies.STUDY_ROUTERS.values()),
                choices=tuple(paper_studies.STUDY_ROUTERS))
_COST_SIZES = (ListParam("sizes", int, cost_studies.KIM_SIZES, "network sizes N", minimum=2, maximum=MAX_COST_N),
               ListParam("butterfly_sizes", int, cost_studies.BUTTERFLY_SIZES, "butterfly sizes N (k^n)",
                         minimum=2, maximum=MAX_COST_N))


def _check_loads(v: dict[str, Any]) -> None:
    if v.get("loads") is not None:
        parse_loads(v["loads"])  # a ParamError naming --loads


def _check_fig4(v: dict[str, Any]) -> None:
    _check_loads(v)
    estimate("fbfly", k=v["k"], n=2)


def _check_fig5(v: dict[str, Any]) -> None:
    estimate("fbfly", k=v["k"], n=2)
    if max(v["batches"]) < 4:  # the claims compare the routings at the smallest batch of at least 4
        raise ParamError("batches", f"must include a batch >= 4, where the claims compare the routings "
                                    f"(got {','.join(map(str, v['batches']))})")


def _check_dfb_fig4(v: dict[str, Any]) -> None:
    _check_loads(v)
    estimate("2dfb", k=8, n=v["n"])


def _check_fig6(v: dict[str, Any]) -> None:
    _check_loads(v)
    k = v["k"]
    if k & (k - 1):  # N = k^2 terminals, log2 N hypercube dimensions
        raise ParamError("k", f"kim-fig6 needs a power of two in [4, 256] (got {k})")


def _check_fig12(v: dict[str, Any]) -> None:
    _check_loads(v)
    N = v["N"]
    cfgs = paper_studies.fig12_configs(N)
    if len(cfgs) < 2:
        raise ParamError("N", f"kim-fig12 needs an N with at least two k-ary n-flats, k^n = N, n >= 2 (got {N}: "
                              f"{len(cfgs)}); e.g. 64, 256, 729, 4096")
    most = max(2, max(n - 1 for _, n in cfgs))  # VAL's 2 VCs, MIN AD's n' on the highest-dimensional flat
    if v["storage"] < most:  # every VC needs a flit of its own
        raise ParamError("storage", f"must be >= {most} for N = {N}: the flits per channel are divided among up to "
                                    f"{most} VCs, at least one each (got {v['storage']})")


def _check_dfb_fig5(v: dict[str, Any]) -> None:
    _check_loads(v)
    estimate("2dfb", k=v["k"], n=v["n"])
    estimate("clos", k=v["k"], n=v["n"] + 1)


def _check_slimfly(v: dict[str, Any]) -> None:
    _check_loads(v)
    estimate("slimfly", q=v["q"])  # a prime power with q mod 4 in {0, 1, 3}
    for spec in paper_studies.slimfly_partners(v["q"]).values():
        estimate(spec["family"], **spec["params"])


def _check_ttn(v: dict[str, Any]) -> None:
    m, L = v["m"], v["L"]
    if m * L > 8:  # 2^(2mL) nodes in each of the four networks
        raise ParamError("L", f"ttn-dynamic needs m * L <= 8 (at most 65,536 nodes; got m = {m}, L = {L})")
    pats = v["patterns"] or paper_studies.TTN_PATTERNS
    for q in ({0, 1} if "uniform" in pats else {1}):
        estimate("ttn", m=m, L=L, q=q)
    parse_loads(paper_studies._ttn_loads(L, m) if v["loads"] is None else v["loads"])


_BATCHES = ListParam("batches", int, (1, 2, 4, 8, 16, 32, 64, 128, 256), "batch sizes, packets per terminal",
                     minimum=1, maximum=BATCH_LIMIT)

STUDIES: dict[str, Study] = {
    "kim-fig4": Study("kim-fig4", "Kim 2007 Fig. 4: latency vs load, UR and worst case, five routings",
                      kim_fig4, lambda loads="0.05:1.0:0.05", **_: 10 * len(_fig4_loads(loads)),
                      params=(_KIM_K, _loads("0.05:1.0:0.05"), _ROUTER), check=_check_fig4),
    "kim-fig5": Study("kim-fig5", "Kim 2007 Fig. 5: normalised batch latency vs batch size", kim_fig5,
                      lambda batches=_BATCHES.default, **_: 4 * len(batches), sweeps=False,
                      params=(_KIM_K, _BATCHES, _ROUTER), check=_check_fig5),
    "2dfb-fig4": Study("2dfb-fig4", "Thamarakuzhi & Chandy Fig. 4/5: 2DFB throughput, min vs adaptive",
                       dfb_fig4, lambda loads="0.1:1.0:0.1", **_: 6 * len(parse_loads(loads)),
                       params=(Param("n", int, 1, "dimensions of the 8-ary 2DFB", minimum=1, maximum=4),
                               _loads("0.1:1.0:0.1")), check=_check_dfb_fig4),
    "kim-fig6": Study("kim-fig6", "Kim 2007 Fig. 6: fbfly vs butterfly, folded Clos, hypercube (Table 1), UR and WC",
                      paper_studies.kim_fig6, paper_studies.fig6_points,
                      params=(Param("k", int, 32, "k of N = k^2, a power of two", minimum=4, maximum=256),
                              _loads("0.05:1.0:0.05"), _MEASURE,
                              _lim("speedup", "router speedup (default: the study router's)", None), _ROUTER),
                      check=_check_fig6),
    "kim-fig14": Study("kim-fig14", "Kim 2007 Fig. 14: the spare port, (a) redundant channels, (b) N = 16 -> 20",
                       paper_studies.kim_fig14, paper_studies.fig14_points,
                       params=(_loads("0.1:1.0:0.1"), _MEASURE, _ROUTER), check=_check_loads),
    "kim-fig12": Study("kim-fig12", "Kim 2007 Fig. 12: N = 4K flattened butterflies of Table 4, VAL and MIN AD",
                       paper_studies.kim_fig12, paper_studies.fig12_points,
                       params=(Param("N", int, 4096, "terminals of every k-ary n-flat", minimum=4, maximum=1 << 16),
                               _loads("0.05:1.0:0.05"),
                               Param("storage", int, 64, "flits per physical channel, divided among its VCs",
                                     minimum=2, maximum=2 * LIMITS["vc_depth"][1]), _MEASURE, _ROUTER),
                       check=_check_fig12),
    "2dfb-fig5": Study("2dfb-fig5", "Thamarakuzhi & Chandy Fig. 5/7 (--n 1: 4/6): 2DFB vs adaptive Clos, throughput "
                       "and delay", paper_studies.dfb_fig5, paper_studies.dfb_fig5_points,
                       params=(Param("n", int, 2, "dimensions of the k-ary 2DFB", minimum=1, maximum=4),
                               _loads("0.1:1.0:0.1"), Param("k", int, 8, "routers per dimension", minimum=2, maximum=64),
                               _MEASURE,
                               Param("rate", int, paper_studies.DFB_LINK_RATE, "the inter-switch links' rate in "
                                     "terminal link rates (§IV: 2 Gb/s against 1 Gb/s); loads are fractions of the "
                                     "terminal's rate", minimum=1, maximum=8),
                               Param("packet", int, paper_studies.DFB_PACKET, "flits per packet (§IV: 121 bytes, "
                                     "16-byte flits)", minimum=1, maximum=LIMITS["packet_length"][1])),
                       check=_check_dfb_fig5),
    "slimfly-perf": Study("slimfly-perf", "Slim Fly slides: MIN/VAL/UGAL-L/UGAL-G vs dragonfly and fat tree, "
                          "uniform, shift, worst case", paper_studies.slimfly_perf, paper_studies.slimfly_points,
                          params=(Param("q", int, 19, "Slim Fly q: a prime power with q mod 4 in {0, 1, 3}",
                                        minimum=3, maximum=32), _loads("0.05:1.0:0.05"), _MEASURE),
                          check=_check_slimfly),
    "ttn-dynamic": Study("ttn-dynamic", "Rahman 2009 Fig. 7-13: TTN vs TESH vs mesh vs torus, 7 patterns, 4 VCs, "
                         "16 flits", paper_studies.ttn_dynamic, paper_studies.ttn_points,
                         params=(Param("L", int, 3, "levels of hierarchy", minimum=2, maximum=8),
                                 Param("m", int, 2, "basic module of 2^m x 2^m nodes", minimum=1, maximum=4),
                                 _loads(None),
                                 ListParam("patterns", str, None, "traffic patterns (default: all)",
                                           choices=tuple(paper_studies.TTN_PATTERNS)), _MEASURE),
                         check=_check_ttn),
    "clex-tables": Study("clex-tables", "Lenzen & Wattenhofer Tables I-IV and the 3D-torus comparison (round model)",
                         paper_studies.clex_tables, lambda **_: 4, sweeps=False,
                         params=(Param("k", int, None, "clique size (default: the paper's four experiments)",
                                       minimum=2, maximum=64), _lim("seed", "random seed", 1))),
    # pure computation (radixnet.gen.cost): no simulation points
    "kim-cost": Study("kim-cost", "Kim 2007 Fig. 10, 11, 13, Table 4: link cost, cable length, cost per node",
                      cost_studies.kim_cost, lambda **_: 0, sweeps=False, params=_COST_SIZES),
    "kim-power": Study("kim-power", "Kim 2007 Table 5, Fig. 15: power per node", cost_studies.kim_power,
                       lambda **_: 0, sweeps=False, params=_COST_SIZES),
    "slimfly-cost": Study("slimfly-cost", "Slim Fly slides: cost and power vs dragonfly, fat tree, fbfly at ~10K",
                          cost_studies.slimfly_cost, lambda **_: 0, sweeps=False),
}


def check_study(name: str, values: dict[str, Any]) -> dict[str, Any]:
    """Convert and check a study's parameters against its declaration (:attr:`Study.params`), before any work.

    Parameters
    ----------
    name : str
        A key of :data:`STUDIES`.
    values : dict
        Parameter values: strings (``--set NAME=VALUE``) or Python values; ``jobs`` may be among them.

    Returns
    -------
    dict
        Every declared parameter (defaults filled in) and ``jobs``, converted.

    Raises
    ------
    ParamError
        An unknown study or parameter, a value of the wrong type or out of bounds, or a combination the study
        cannot run (a network that does not exist, a grid without the points its claims compare).

    Examples
    --------
    >>> check_study("kim-fig12", {"N": "729"})["N"]
    729
    >>> check_study("kim-fig12", {"N": "-1"})
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --N: must be an integer in [4, 65536] (got -1)
    """
    if name not in STUDIES:
        raise ParamError("study", f"must be one of {', '.join(STUDIES)} (got {name!r})")
    st = STUDIES[name]
    given = dict(values)
    jobs = _JOBS.convert(given.pop("jobs", None))
    names = [p.name for p in st.params]
    for key in given:
        if key not in names:
            raise ParamError(key, f"unknown parameter of study {name} (it takes {', '.join(names) or 'none'})")
    out = validate(st.params, given, st.check)
    out["jobs"] = jobs
    return out


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
        An unknown study, router model or ``--out``; a parameter out of the study's bounds
        (:func:`check_study`); a malformed or unreachable ``--scheduler``, before any point runs.
    """
    if name not in STUDIES:
        raise ParamError("study", f"must be one of {', '.join(STUDIES)} (got {name!r})")
    kw["router_model"] = get_router_model(kw.get("router_model", "single-cycle")).name
    kw.update(check_study(name, {k: v for k, v in kw.items() if k not in STUDY_ARGS or k == "jobs"}))
    outp = check_out_dir(out, "out")  # an empty string, a file, a place that cannot be written: before any work
    with cluster.scheduler(scheduler if STUDIES[name].sweeps else None):
        result = STUDIES[name].run(outp, **kw)
    result["study"] = name
    result["router_model"] = kw["router_model"]
    outp.mkdir(parents=True, exist_ok=True)
    tmp = outp / f".claims.json.{os.getpid()}.tmp"  # a temporary name, then renamed: never half a file
    try:
        tmp.write_text(json.dumps(result, indent=2))
        os.replace(tmp, outp / "claims.json")
    finally:
        tmp.unlink(missing_ok=True)
    return result
