"""Load sweeps: many ``(routing, offered load)`` points of one configuration, resumable, in parallel.

A sweep directory holds

``config.json``
    The sweep configuration of the latest run (routings, loads, seed, each routing's fingerprint).
``points.jsonl``
    One JSON object per finished point, appended (flushed and fsynced) the moment the point finishes,
    so an interrupted sweep loses nothing but the points that were running. Each record has the key
    fields ``routing``, ``load``, ``seed``, the configuration ``fingerprint`` (:func:`fingerprint`),
    ``skipped`` and the full ``result`` of :meth:`Simulator.run_load`.
``<routing>.csv``, ``latency.png``, ``latency.svg``, ``throughput.png``
    Written when every point is done (:func:`write_csvs`, :func:`plot`).

A run skips the points its directory already holds for the same fingerprint and seed, and refuses a
directory holding points of another configuration (:class:`Sweep`).

**Saturation short-cut.** Once a point of a routing is saturated, the higher loads of that routing that
have not started are recorded as ``{"saturated": true, "skipped": true}`` without being simulated. Points
run in parallel and are started in increasing load order, so a higher load that was already running when
the saturated result came back is simulated and recorded normally: which loads are skipped then depends
on timing. ``skip_saturated=False`` (``--simulate-all``) simulates every load, and a run's
``points.jsonl`` holds the same results however many processes or cluster workers ran it.

**Where points run.** In this process (``jobs=1``), in a local pool of spawned worker processes
(:class:`radixnet.gen.pool.LocalPool`), or, with ``scheduler``, as tasks on a Dask distributed cluster
(:class:`radixnet.gen.cluster.DaskPool`). One loop drives both pools, and this process alone writes
``points.jsonl``, so the records, resuming and the short-cut are the same wherever the points ran.

Examples
--------
>>> parse_loads("0.1:0.5:0.1")
[0.1, 0.2, 0.3, 0.4, 0.5]
>>> parse_loads("0.9,0.25,0.5")
[0.25, 0.5, 0.9]
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
from pathlib import Path
from typing import Any, Callable, Iterable

from ..gen import ParamError
from ..gen.params import check_out_dir, replacing
from ..gen.pool import LOAD_DIGITS, LocalPool, PointStore, json_default
from ..gen.router_config import ROUTER_DEFAULTS
from ..golden.sim import MEASUREMENT, SimConfig, SimulationError, Simulator

__all__ = ["CSV_COLUMNS", "FINGERPRINT_FIELDS", "MAX_LOADS", "Sweep", "draw_walls", "fingerprint", "parse_loads", "plot",
           "run_point", "summary_rows", "write_csvs"]

#: Columns of ``<routing>.csv``, in order (``skipped`` marks points of the saturation short-cut).
CSV_COLUMNS = ("offered_load", "accepted_throughput", "avg_latency", "p50_latency", "p99_latency", "max_latency",
               "avg_hops", "minimal_fraction", "saturated", "cycles", "wall_seconds", "skipped",
               "saturation_reasons", "throughput_deficit", "throughput_noise")

#: SimConfig fields that, with the topology, make a point's configuration fingerprint.
FINGERPRINT_FIELDS = ("traffic", "traffic_opts", "vcs", "vc_depth", "speedup", "packet_length", "link_latency",
                      "ugal_threshold", "measure")

#: Points of ``--loads`` at most.
MAX_LOADS = 100_000


def parse_loads(spec: str) -> list[float]:
    """Parse ``--loads``: ``start:stop:step`` or a comma-separated list, each load in (0, 1].

    Parameters
    ----------
    spec : str
        ``start:stop:step`` (``stop`` included when it lands on the grid, to 1e-9) or ``a,b,c``.

    Returns
    -------
    list of float
        The loads, ascending, without duplicates, rounded to 1e-9.

    Raises
    ------
    ParamError
        Naming ``--loads`` and what is allowed.
    """
    allowed = "start:stop:step or a comma-separated list, each load in (0, 1]"
    text = str(spec).strip()

    def num(x: str) -> float:
        try:
            v = float(x)
        except ValueError:
            raise ParamError("loads", f"must be {allowed} (got {spec!r})") from None
        if not math.isfinite(v):
            raise ParamError("loads", f"must be {allowed} (got {spec!r})")
        return v

    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise ParamError("loads", f"must be {allowed} (got {spec!r})")
        start, stop, step = (num(x) for x in parts)
        if step <= 0:
            raise ParamError("loads", f"step must be > 0 (got {parts[2]!r})")
        if stop < start:
            raise ParamError("loads", f"stop must be >= start (got {spec!r})")
        span = (stop - start) / step + 1e-9
        if not span < MAX_LOADS:  # n + 1 points; also catches an overflow to inf
            raise ParamError("loads", f"at most {MAX_LOADS} loads (got {spec!r}: "
                                      f"{'more than 10^308' if not math.isfinite(span) else math.floor(span) + 1})")
        n = math.floor(span)
        loads = [round(start + i * step, LOAD_DIGITS) for i in range(n + 1)]
    else:
        parts = text.split(",") if text else []
        if len(parts) > MAX_LOADS:
            raise ParamError("loads", f"at most {MAX_LOADS} loads (got {len(parts)})")
        loads = [round(num(x), LOAD_DIGITS) for x in parts]
    if not loads:
        raise ParamError("loads", f"must be {allowed} (got {spec!r})")
    bad = [x for x in loads if not 0 < x <= 1]
    if bad:
        raise ParamError("loads", f"each load must be in (0, 1] flits/terminal/cycle (got {bad[0]:g})")
    return sorted(set(loads))


def fingerprint(cfg: SimConfig) -> dict[str, Any]:
    """The configuration of a point, apart from its routing, load and seed.

    Parameters
    ----------
    cfg : SimConfig
        A validated configuration (``vcs`` and ``vc_depth`` resolved).

    Returns
    -------
    dict
        ``topo``, ``params``, :data:`FINGERPRINT_FIELDS`, ``measurement`` (the saturation rule,
        :data:`radixnet.golden.sim.MEASUREMENT`), ``router_model`` (unless single-cycle),
        ``egress_depth``/``sink_stall`` (unless 0), ``group`` (``subswitch``), ``seq_wavefront`` (unless 0) and
        every other router parameter not at its default (``vc_classes``, ``threshold``, ...), in JSON-normal form
        (as read back from ``points.jsonl``), so that fingerprints compare with ``==``.
    """
    fp = {"topo": cfg.net.family, "params": cfg.net.params}
    fp.update({k: getattr(cfg, k) for k in FINGERPRINT_FIELDS})
    fp["measurement"] = MEASUREMENT  # points measured under another saturation rule are not mixed in
    if cfg.model.name != "single-cycle":  # named only when not the default, so older stores still resume
        fp["router_model"] = cfg.model.name
    if cfg.egress_depth:  # the same for the egress backpressure (router-spec §R3a)
        fp.update(egress_depth=cfg.egress_depth, sink_stall=cfg.sink_stall)
    if cfg.model.allocation == "subswitch":   # the sub-switch size (router-spec §R12)
        fp["group"] = cfg.group
    if cfg.seq_wavefront:   # the decision line (router-spec §R11.2a)
        fp["seq_wavefront"] = cfg.seq_wavefront
    # every other router parameter (radixnet.gen.router_config) when it is not at its default: one added there
    # reaches the fingerprint, and stores made before it resume
    for name, value in cfg.router.as_dict().items():
        if name not in fp and value != ROUTER_DEFAULTS[name]:
            fp[name] = value
    return json.loads(json.dumps(fp, default=json_default))


def _diff(a: dict, b: dict) -> str:
    """The first field in which two fingerprints differ, as ``name old → new``."""
    for k in list(a) + [k for k in b if k not in a]:
        if a.get(k) != b.get(k):
            return f"{k} {json.dumps(a.get(k))} -> {json.dumps(b.get(k))}"
    return "none"


def run_point(cfg: SimConfig, load: float) -> dict[str, Any]:
    """Simulate one point (in a worker process or in-process).

    Parameters
    ----------
    cfg : SimConfig
        The configuration, with the routing of the point.
    load : float
        Offered load, flits/terminal/cycle.

    Returns
    -------
    dict
        :meth:`Simulator.run_load`'s result, or ``{"error": message}`` when the watchdog stopped the run.
    """
    try:
        return Simulator(cfg).run_load(load)
    except SimulationError as e:
        return {"offered_load": load, "error": str(e)}


class Sweep:
    """A sweep over routings × loads of one configuration, stored in a directory.

    Parameters
    ----------
    base : SimConfig
        The configuration of every point but its routing and load. ``vcs`` and ``vc_depth`` left None
        take each routing's default (:meth:`SimConfig.validate`); given, they apply to every routing.
    routings : iterable of str
        The routings, in display order.
    loads : iterable of float
        Offered loads (see :func:`parse_loads`).
    out : path-like
        The sweep directory (created when missing).
    jobs : int, optional
        Worker processes (default ``os.cpu_count()``); 1 runs every point in this process. With a
        ``scheduler``: the points in flight at most (default twice the cluster's worker threads).
    on_point : callable, optional
        Called as ``on_point(record)`` for each point of this run once it is recorded.
    scheduler : str or distributed.Client, optional
        Run the points on a Dask cluster (:mod:`radixnet.gen.cluster`): a scheduler address, connected
        to in :meth:`run` and closed after it, or a connected client. Default: the client
        :func:`radixnet.gen.cluster.use_client` made active, else none (local processes).
    skip_saturated : bool, optional
        The saturation short-cut (default True); False simulates every load (and re-runs the loads an
        earlier run of the directory skipped).
    per_routing : dict, optional
        Fields of ``base`` set for one routing only (routing -> {field: value}), e.g. its ``vcs``.

    Raises
    ------
    ParamError
        A routing the configuration does not allow; ``--out`` not a directory, or holding points of a
        different configuration; ``--jobs`` < 1; a malformed ``--scheduler`` address.
    """

    def __init__(self, base: SimConfig, routings: Iterable[str], loads: Iterable[float], out: str | os.PathLike,
                 jobs: int | None = None, on_point: Callable[[dict], None] | None = None,
                 scheduler: Any = None, skip_saturated: bool = True,
                 per_routing: dict[str, dict[str, Any]] | None = None) -> None:
        self.base = base
        self.per_routing = {r: dict(f) for r, f in (per_routing or {}).items()}
        #: record loads above a routing's first saturated load as skipped instead of simulating them
        self.skip_saturated = bool(skip_saturated)
        self.routings = list(dict.fromkeys(routings))
        if not self.routings:
            raise ParamError("routing", "give at least one routing")
        self.cfgs = {r: self.config(r) for r in self.routings}
        self.fingerprints = {r: fingerprint(c) for r, c in self.cfgs.items()}
        self.loads = sorted({round(float(x), LOAD_DIGITS) for x in loads})
        if not self.loads or not all(0 < x <= 1 for x in self.loads):
            raise ParamError("loads", f"each load must be in (0, 1] flits/terminal/cycle (got {self.loads})")
        self.jobs = (os.cpu_count() or 1) if jobs is None else jobs
        if isinstance(self.jobs, bool) or not isinstance(self.jobs, int) or self.jobs < 1:
            raise ParamError("jobs", f"must be an integer >= 1 (got {jobs})")
        for r, c in self.cfgs.items():  # every point checked here, in the parent, before any file or worker
            for x in self.loads:
                c.check_load(x)
        self.seed = base.seed
        self.out = check_out_dir(out, "out")  # empty, a file, not writable: refused before any file is written
        self.on_point = on_point
        from ..gen.cluster import active_client, parse_address
        #: where the points run: None (this machine), a scheduler address or a distributed.Client
        self.scheduler = active_client() if scheduler is None else (
            parse_address(scheduler) if isinstance(scheduler, str) else scheduler)
        self._max_in_flight = jobs  # with a scheduler: None means twice the cluster's worker threads
        self.store = PointStore(self.out / "points.jsonl")
        #: points the watchdog stopped in this run (not recorded; they run again next time)
        self.errors: list[str] = []
        #: (routing, load) -> record, for this seed and configuration (earlier runs and this one)
        self.done: dict[tuple[str, float], dict[str, Any]] = {}
        self._check_existing()

    def config(self, routing: str) -> SimConfig:
        """The validated configuration of ``routing``'s points."""
        return dataclasses.replace(self.base, routing=routing, traffic_opts=dict(self.base.traffic_opts),
                                   **self.per_routing.get(routing, {})).validate()

    # --------------------------------------------------------------- planning
    def _expected(self, routing: str) -> dict[str, Any] | None:
        if routing not in self.fingerprints:  # a routing of an earlier run into the same directory
            try:
                self.fingerprints[routing] = fingerprint(self.config(routing))
            except ParamError:
                self.fingerprints[routing] = None
        return self.fingerprints[routing]

    def _check_existing(self) -> None:
        for rec in self.store.read():
            want = self._expected(rec["routing"])
            if rec["fingerprint"] != want:
                why = _diff(rec["fingerprint"], want) if want else f"routing {rec['routing']}"
                raise ParamError("out", f"{self.out} holds points of a different configuration ({why}); "
                                        f"choose another --out")
            if rec.get("skipped") and not self.skip_saturated:
                continue   # simulated this time
            if rec["seed"] == self.seed and rec["routing"] in self.cfgs:
                self.done[(rec["routing"], rec["load"])] = rec

    def pending(self) -> list[tuple[str, float]]:
        """Points of this sweep not yet in ``points.jsonl``, in the order they start (load, then routing).

        Returns
        -------
        list of (str, float)
        """
        idx = {r: i for i, r in enumerate(self.routings)}
        todo = [(r, x) for r in self.routings for x in self.loads if (r, x) not in self.done]
        return sorted(todo, key=lambda p: (p[1], idx[p[0]]))

    def saturation_load(self, routing: str) -> float | None:
        """The lowest simulated load of ``routing`` that saturated, or None."""
        sat = [x for (r, x), rec in self.done.items()
               if r == routing and rec["result"].get("saturated") and not rec.get("skipped")]
        return min(sat) if sat else None

    # ---------------------------------------------------------------- running
    def scheduler_address(self) -> str | None:
        """The address of the Dask scheduler the points run on, or None (this machine)."""
        if self.scheduler is None or isinstance(self.scheduler, str):
            return self.scheduler
        return self.scheduler.scheduler.address

    def write_config(self, extra: dict[str, Any] | None = None) -> None:
        """Write ``config.json``: routings, loads, seed, jobs, each routing's fingerprint, and with a Dask
        cluster its ``scheduler`` (``jobs`` is then the points in flight at most, null for the default).

        Parameters
        ----------
        extra : dict, optional
            More fields (e.g. the command line).
        """
        self.out.mkdir(parents=True, exist_ok=True)
        cfg = {"routings": self.routings, "loads": self.loads, "seed": self.seed, "jobs": self.jobs,
               "skip_saturated": self.skip_saturated, "fingerprints": self.fingerprints_of_run(), **(extra or {})}
        if self.scheduler is not None:
            cfg.update(jobs=self._max_in_flight, scheduler=self.scheduler_address())
        tmp = self.out / "config.json.tmp"
        tmp.write_text(json.dumps(cfg, indent=2, default=json_default) + "\n", encoding="utf-8")
        os.replace(tmp, self.out / "config.json")

    def fingerprints_of_run(self) -> dict[str, Any]:
        """The fingerprint of each routing of this run."""
        return {r: self.fingerprints[r] for r in self.routings}

    def _record(self, routing: str, load: float, result: dict[str, Any], skipped: bool = False) -> None:
        if "error" in result:
            self.errors.append(f"{routing} load {load:g}: {result['error']}")
            if self.on_point:
                self.on_point({"routing": routing, "load": load, "seed": self.seed, "skipped": False,
                               "result": result})
            return
        rec = {"routing": routing, "load": load, "seed": self.seed, "fingerprint": self.fingerprints[routing],
               "skipped": skipped, "result": result}
        self.store.append(rec)
        self.done[(routing, load)] = rec
        if self.on_point:
            self.on_point(rec)

    def _skip_if_saturated(self, routing: str, load: float) -> bool:
        if not self.skip_saturated:
            return False
        sat = self.saturation_load(routing)
        if sat is not None and load > sat:
            self._record(routing, load, {"offered_load": load, "saturated": True, "skipped": True,
                                         "saturated_at": sat}, skipped=True)
            return True
        return False

    def run(self) -> dict[tuple[str, float], dict[str, Any]]:
        """Run every pending point; each is appended to ``points.jsonl`` as soon as it finishes.

        Returns
        -------
        dict
            ``(routing, load) -> record`` for every point of this sweep's seed and configuration in the
            directory (earlier runs included). Points the watchdog stopped, and points lost with their
            workers on a cluster (:class:`radixnet.gen.cluster.WorkerLost`), are in :attr:`errors`
            instead.

        Raises
        ------
        ParamError
            ``--scheduler``: no Dask scheduler at the address (before any point runs).
        radixnet.gen.cluster.SchedulerLost
            The Dask scheduler was lost during the run; the points recorded stay.
        KeyboardInterrupt
            Ctrl-C: the points in flight are stopped (local workers terminated, cluster tasks cancelled);
            those recorded stay.
        """
        self.out.mkdir(parents=True, exist_ok=True)
        queue = self.pending()
        if self.scheduler is None and (self.jobs == 1 or len(queue) <= 1):
            for r, x in queue:
                if not self._skip_if_saturated(r, x):
                    self._record(r, x, run_point(self.cfgs[r], x))
            return self.done
        if not queue:
            return self.done
        pool = self._pool(len(queue))
        running: set[tuple[str, float]] = set()  # points in flight: each is recorded once, at its first answer
        try:
            while queue or running:
                while queue and len(running) < pool.slots():
                    r, x = queue.pop(0)
                    if not self._skip_if_saturated(r, x):
                        pool.submit((r, x), run_point, self.cfgs[r], x)
                        running.add((r, x))
                if not running:
                    continue
                for (r, x), result in sorted(pool.completed(), key=lambda p: p[0][::-1]):
                    if (r, x) not in running:  # a second answer for a point already recorded
                        continue
                    running.discard((r, x))
                    if isinstance(result, BaseException):  # cluster.WorkerLost: given up, runs again next time
                        result = {"offered_load": x, "error": str(result)}
                    self._record(r, x, result)
        except BaseException:
            pool.abort()
            raise
        pool.close()
        return self.done

    def _pool(self, points: int) -> Any:
        """The pool for ``points`` points: local processes, or the Dask cluster of :attr:`scheduler`."""
        if self.scheduler is None:
            return LocalPool(min(self.jobs, points), self.jobs)
        from ..gen.cluster import DaskPool, connect
        if isinstance(self.scheduler, str):
            return DaskPool(connect(self.scheduler), self._max_in_flight, close_client=True)
        return DaskPool(self.scheduler, self._max_in_flight)

    # ---------------------------------------------------------------- results
    def rows(self, routing: str) -> list[dict[str, Any]]:
        """CSV rows of ``routing`` (every point of the directory for this configuration and seed), by load."""
        recs = sorted((rec for (r, _), rec in self.done.items() if r == routing), key=lambda rec: rec["load"])
        rows = []
        for rec in recs:
            res = rec["result"]
            row = {c: res.get(c) for c in CSV_COLUMNS}
            row["offered_load"] = rec["load"]
            row["skipped"] = bool(rec.get("skipped"))
            rows.append(row)
        return rows


def write_csvs(sweep: Sweep) -> list[Path]:
    """Write ``<routing>.csv`` for every routing of the sweep (columns :data:`CSV_COLUMNS`).

    Parameters
    ----------
    sweep : Sweep

    Returns
    -------
    list of Path
        The files written. Empty cells are values a saturated or skipped point does not have.
    """
    paths = []
    for r in sweep.routings:
        path = sweep.out / f"{r}.csv"
        with replacing(path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as fh:  # never half a file
            w = csv.writer(fh)
            w.writerow(CSV_COLUMNS)
            for row in sweep.rows(r):
                w.writerow(["" if row[c] is None else str(row[c]).lower() if isinstance(row[c], bool)
                            else "+".join(row[c]) if isinstance(row[c], list) else row[c] for c in CSV_COLUMNS])
        paths.append(path)
    return paths


def _title(sweep: Sweep) -> str:
    fp = next(iter(sweep.fingerprints_of_run().values()))
    params = " ".join(f"{k}={v}" for k, v in fp["params"].items() if v is not None)
    opts = " ".join(f"{k}={v}" for k, v in fp["traffic_opts"].items())
    return f"{fp['topo']} {params}, {fp['traffic']}{' ' + opts if opts else ''} traffic"


def draw_walls(ax, walls) -> None:
    """Draw each ``(x, colour, marker)`` of ``walls`` as a dotted vertical line in the curve's colour, its
    marker on the top edge (a wall shows where a curve ends even with no point below it); the y axis starts
    at 0."""
    ax.set_ylim(bottom=0)
    top = ax.get_ylim()[1]
    for x, colour, marker in walls:
        ax.axvline(x, color=colour, ls=":", lw=1.2)
        ax.plot([x], [top], marker=marker, color=colour, ms=7, clip_on=False, ls="none")
    ax.set_ylim(0, top)


def plot(sweep: Sweep) -> list[Path]:
    """Write ``latency.png``/``.svg`` (unsaturated points; a dotted wall, in the routing's colour, at each
    routing's first saturated load) and ``throughput.png``/``.svg`` (every simulated point, saturated ones
    crossed); every routing has its own marker and dash, so curves that coincide stay distinguishable.

    Parameters
    ----------
    sweep : Sweep

    Returns
    -------
    list of Path
        The files written.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    title = _title(sweep)
    lat = Figure(figsize=(6.4, 4.4))
    FigureCanvasAgg(lat)
    ax = lat.add_subplot()
    thr = Figure(figsize=(6.4, 4.4))
    FigureCanvasAgg(thr)
    bx = thr.add_subplot()
    markers, styles = "osD^vP*Xh<>", ("-", "--", "-.", ":")
    walls = []
    for i, r in enumerate(sweep.routings):
        rows = sweep.rows(r)
        # a distinct marker and dash per routing, hollow markers shrinking with i: curves that coincide
        # (UGAL under UGAL-S) stay visible
        look = dict(marker=markers[i % len(markers)], ls=styles[i % len(styles)], ms=7 - 3 * i / max(len(sweep.routings), 1),
                    mfc="none", lw=1.2)
        ok = [row for row in rows if not row["saturated"] and row["avg_latency"] is not None]
        sat = sweep.saturation_load(r)
        label = r if sat is None else f"{r} (saturated at {sat:g})"
        line, = ax.plot([row["offered_load"] for row in ok], [row["avg_latency"] for row in ok], label=label, **look)
        if sat is not None:   # the wall: where the routing saturates, in its colour, even with no point below it
            walls.append((sat, line.get_color(), look["marker"]))
        sim = [row for row in rows if not row["skipped"] and row["accepted_throughput"] is not None]
        bx.plot([row["offered_load"] for row in sim], [row["accepted_throughput"] for row in sim], label=label,
                **look)
        over = [row for row in sim if row["saturated"]]
        bx.plot([row["offered_load"] for row in over], [row["accepted_throughput"] for row in over], ls="none",
                marker="x", color=line.get_color(), ms=5)
    ax.set(xlabel="offered load (flits/terminal/cycle)", ylabel="average latency (cycles)", title=title, xlim=(0, 1))
    draw_walls(ax, walls)
    bx.plot([0, 1], [0, 1], ls=":", color="grey", lw=1)
    bx.set(xlabel="offered load (flits/terminal/cycle)", ylabel="accepted throughput (flits/terminal/cycle)",
           title=title, xlim=(0, 1), ylim=(0, 1))
    for a in (ax, bx):
        a.grid(True, alpha=0.3)
        a.legend()
    bx.text(0.99, 0.01, "x: saturated points", transform=bx.transAxes, ha="right", va="bottom", fontsize=8)
    ax.text(0.99, 0.99, "dotted walls: first saturated load", transform=ax.transAxes, ha="right", va="top",
            fontsize=8)
    paths = [sweep.out / "latency.png", sweep.out / "latency.svg", sweep.out / "throughput.png",
             sweep.out / "throughput.svg"]
    for fig, path, dpi in ((lat, paths[0], 120), (lat, paths[1], None), (thr, paths[2], 120), (thr, paths[3], None)):
        with replacing(path) as tmp:  # never half a file (a full disk)
            fig.savefig(tmp, bbox_inches="tight", **({"dpi": dpi} if dpi else {}))
    return paths


def summary_rows(sweep: Sweep) -> list[dict[str, Any]]:
    """Per routing: points, saturation load (first saturated offered load or ``"none"``), zero-load latency.

    The zero-load latency is the average latency at the lowest load of the routing, if that point is not
    saturated.

    Parameters
    ----------
    sweep : Sweep

    Returns
    -------
    list of dict
        ``routing``, ``points``, ``saturation_load``, ``zero_load_latency``, ``at_load``.
    """
    out = []
    for r in sweep.routings:
        rows = sweep.rows(r)
        sat = next((row["offered_load"] for row in rows if row["saturated"]), None)
        first = rows[0] if rows else None
        out.append({"routing": r, "points": len(rows), "saturation_load": "none" if sat is None else sat,
                    "zero_load_latency": first["avg_latency"] if first else None,
                    "at_load": first["offered_load"] if first else None})
    return out

