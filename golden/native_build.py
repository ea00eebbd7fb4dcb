"""Build the golden model's native kernels (:mod:`radixnet.golden.native`): ``make kernels``.

Compiles the signatures each compiled function is called with from Python ahead of time with
``numba.pycc`` into ``golden/__pycache__/native_kernels*.so``, then writes ``native_kernels.json``
(the stamp and the exports). The signatures come from ``golden/native_signatures.json`` when it was
recorded from the golden sources of this tree; otherwise (or with ``--record``) :func:`workload` runs
under numba's JIT first, the signatures are read from the dispatchers and the file is rewritten
(commit it with the change that made it stale; ``tests/test_native.py`` fails while it is). About 100
CPU seconds with the file (101 s measured on an idle machine, cold caches);
longer without it (the workload's JIT compiles the same code first).

Where the time went, and what changed it (measured on 2 cores, pycc, this tree's signatures): numba's front
end on the cycle kernel's inlined copies of the allocator and the routing decision (numba's
``inline="always"`` copies the callee's typed IR into every caller and types it again), not LLVM: with
``NUMBA_OPT=1`` the build took 326 CPU seconds (no faster); with every compiled function called rather than
inlined, 77 s, but the kernels ran 1.9-2.5x slower (32-ary 2-flat ``min``, 2,108 against 1,106 cycles/s under
``iq`` at 0.8; 9,038 against 3,564 under ``single-cycle`` at 0.3). One call site of the allocator for the
three modes made it 147 s with a warm JIT cache, but 416 s on a fresh machine (the callees compiled too).
Now ``inline="always"`` is LLVM's (numba's ``forceinline``, :func:`native.jit_dispatcher`): each function is
compiled once and LLVM inlines its body into every caller before optimising, so the machine code is as
fast as before (best of three runs each, idle machine, 32-ary 2-flat: ``single-cycle`` ``min`` 0.3 8,725
against 8,423 cycles/s, ``iq`` 0.8 2,081 against 2,046, ``hiradix`` 0.5 2,599 against 2,635, ``ugal-s`` 0.5
4,521 against 4,581) and the fresh-machine build took 134 s instead of 416. The functions the exports call
are compiled by numba's dispatchers, which also build a CPython wrapper and a C wrapper for each (a sixth
of the build, profiled): the build sets ``no_cpython_wrapper`` and ``no_cfunc_wrapper``
(:data:`native.BUILD_OPTIONS`, in their cache keys), 101 s. The signatures recorded are
those Python called, in a process whose JIT cache a child running the workload first has warmed (a
function's dispatcher compiles signatures for compiled callers too when the cache is cold, which the module
does not need, and a call from Python that then finds one is not seen): the same set from a cold cache and
a warm one (20 functions, 21 signatures).

Usage::

    .venv/bin/python -m radixnet.golden.native_build [--check] [--record]

``--check`` builds nothing: exit 0 when the built module is current, 1 when it is missing or stale.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from . import native


def workload() -> None:
    """Small runs that call every compiled function the way the simulator, the traffic patterns and the
    tests call them: every HyperX routing under the three router models, single- and multi-flit packets,
    egress FIFOs and stalling sinks, saturated sources (catch-up, held packets), batches, traces, every
    traffic pattern, table routings on other families, ``run_load``, a hand-placed flit and the sinks' hash."""
    from ..gen import build
    from . import kernel
    from .sim import HeldPackets, SimConfig, Simulator
    from .traffic import PATTERNS

    def run(fam, fk, load=0.5, steps=2, trace=False, **kw):
        sim = Simulator(SimConfig(build(fam, **fk), seed=1, window=100, **{"speedup": 2, **kw}), trace=trace)
        for _ in range(steps):
            sim.step(100, load)
        return sim

    for rt in ("min", "min-ad", "val", "ugal", "ugal-s", "clos-ad"):
        for model in ("single-cycle", "iq", "hiradix"):
            for L, E, S in ((1, 0, 2), (3, 2, 1)):
                run("fbfly", {"k": 3, "n": 2}, 0.4, routing=rt, router_model=model, packet_length=L, egress_depth=E,
                    sink_stall=0.3 if E else 0.0, speedup=S)
    for model in ("single-cycle", "iq", "hiradix"):
        run("fbfly", {"k": 4, "n": 2}, 0.9, steps=6, traffic="worst-case", router_model=model)   # saturated
        run("2dfb", {"k": 3, "n": 2}, 0.6, routing="2dfb-adaptive", router_model=model, trace=True)
    for fam, fk, rt in (("torus", {}, "dor"), ("clos", {}, "clos-adaptive"), ("dragonfly", {"p": 2}, "sp"),
                        ("dragonfly", {"p": 2}, "ugal-l")):
        run(fam, fk, 0.4, routing=rt, trace=True)
    for name in PATTERNS:
        fam = "2dfb" if name.startswith("2dfb") else "fbfly"
        fk = {"k": 4, "n": 2}
        run(fam, fk, 0.5, steps=1, traffic=name)
    sim = Simulator(SimConfig(build("fbfly", k=2, n=2), seed=1, window=100, measure=200, max_warmup=2, speedup=2))
    sim.run_load(0.5)
    sim = Simulator(SimConfig(build("fbfly", k=2, n=2), seed=1, window=100, speedup=2))
    sim.run_batch(8)
    held = HeldPackets(2)
    for _ in range(2):   # held rows that grow twice: widened (held_widen)
        z = np.zeros(100, np.int64)
        held.put(np.arange(100), z, z, z, z)
    sim = Simulator(SimConfig(build("fbfly", k=2, n=2), seed=1, window=100, speedup=2))
    sim.place_flit(0, 0, 0, 0)
    kernel.mix32(1)
    kernel.sink_ready(1, 2, 3, 4)   # the sinks' hash, compiled, beside the testbenches' Python (tests/test_egress.py)


def signatures() -> dict[str, list]:
    """Per compiled function (qualified name), its Python-called signatures as ``(key, signature)``: those
    its dispatcher compiled for a call from Python (``py_called``, :func:`native.jit_dispatcher`), not the
    ones it compiled for a compiled caller, which a cold JIT cache adds and a warm one does not."""
    out: dict[str, list] = {}
    for d in native.registry:
        q = native.qualname(d.py_func)
        for sig in d.nopython_signatures:
            if tuple(sig.args) not in d.py_called:
                continue
            key = tuple(native.type_key(a) for a in sig.args)
            if None not in key and ret_key(sig.return_type) is not None:
                out.setdefault(q, []).append((key, sig))
    return out


def ret_key(ty):
    """:func:`native.type_key` of a return type, ``"none"`` for a function that returns nothing."""
    from numba.core import types
    return "none" if ty == types.none else native.type_key(ty)


#: The signatures the workload records, kept with the sources (``make kernels`` compiles them without running
#: the workload under the JIT when the kernel sources are the ones they were recorded from).
SIGNATURES = Path(__file__).resolve().parent / "native_signatures.json"


def sources_hash() -> str:
    """The hash of the golden model's sources (every ``golden/*.py`` but the native machinery's) and the key
    version: what the signatures the workload records depend on (the kernels' arguments and their types)."""
    import hashlib
    h = hashlib.sha256(f"keys {native.KEY_VERSION}".encode())
    paths = [p for p in sorted((native.ROOT / "golden").glob("*.py")) if not p.name.startswith("native")]
    native.hash_files(h, [p.name for p in paths], paths)
    return h.hexdigest()


def key_type(key):
    """The numba type of a :func:`native.type_key` key (its inverse)."""
    from numba import from_dtype
    from numba.core import types
    if key == "none":
        return types.none
    if isinstance(key, str):
        return from_dtype(np.dtype(key))
    if key[0] == "A":
        _, dt, ndim, layout, readonly, aligned = key
        return types.Array(from_dtype(np.dtype(dt)), ndim, layout, readonly=readonly, aligned=aligned)
    if key[0] == "N":
        mod, _, name = key[1].rpartition(".")
        cls = getattr(__import__(mod, fromlist=[name]), name)
        return types.BaseTuple.from_types([key_type(k) for k in key[2]], cls)
    if key[0] == "T":
        return types.BaseTuple.from_types([key_type(k) for k in key[1]])
    raise ValueError(f"no numba type for the key {key!r}")


def save_signatures(sigs: dict[str, list]) -> None:
    """Write :data:`SIGNATURES` (argument and return keys per function) for these sources."""
    data = {"sources": sources_hash(),
            "functions": {q: [[list(key), ret_key(sig.return_type)] for key, sig in lst]
                          for q, lst in sorted(sigs.items())}}
    tmp = SIGNATURES.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(SIGNATURES)


def signatures_current() -> bool:
    """Whether :data:`SIGNATURES` was recorded from these sources (read without importing a kernel module)."""
    try:
        return json.loads(SIGNATURES.read_text()).get("sources") == sources_hash()
    except (OSError, ValueError):
        return False


def load_signatures() -> dict[str, list] | None:
    """The signatures of :data:`SIGNATURES` as ``(key, signature)`` per function, or None when the file is
    missing or was recorded from other kernel sources."""
    from numba.core.typing import signature
    try:
        data = json.loads(SIGNATURES.read_text())
    except (OSError, ValueError):
        return None
    if data.get("sources") != sources_hash():
        return None
    out: dict[str, list] = {}
    for q, lst in data["functions"].items():
        for key, ret in lst:
            key = native.as_tuples(key)
            out.setdefault(q, []).append((key, signature(key_type(native.as_tuples(ret)),
                                                         *[key_type(k) for k in key])))
    return out


def warm_jit_cache() -> None:
    """Run :func:`workload` under the JIT in a child process, so that every function it calls is in numba's
    cache before this process records: here each function Python calls is then compiled for (loaded for) that
    call, and none first for a compiled caller -- a call from Python that finds a signature already compiled
    for a caller is not seen (``py_called``), so recording in a process that compiles (a cold cache) would
    miss it."""
    import subprocess
    subprocess.run([sys.executable, "-m", __spec__.name, "--warm"], check=True,
                   env={**os.environ, native.MODE_ENV: "jit"})


def build(record: bool = False) -> None:
    """Compile the signatures of :data:`SIGNATURES` (or, when it is missing, stale or ``record`` is set, run
    :func:`workload` under the JIT and record what it called); the module replaces the old one by a rename, so
    a process that has the old one loaded keeps it intact."""
    if not record and signatures_current():   # nothing calls the compiled functions from Python: no wrappers
        native.BUILD_OPTIONS.update(no_cpython_wrapper=True, no_cfunc_wrapper=True)
    # the JIT, for the functions declared from now on (this module imports no kernel module before this)
    native.use_jit("make kernels: the build runs the JIT")
    from numba.pycc import CC
    t0 = time.perf_counter()
    native.NATIVE_META.unlink(missing_ok=True)   # a module without its metadata is never used
    sigs = None if record else load_signatures()
    if sigs is None:
        warm_jit_cache()
        workload()
        sigs = signatures()
        save_signatures(sigs)
        print(f"kernels: workload under the JIT {time.perf_counter() - t0:.0f} s, "
              f"{sum(map(len, sigs.values()))} signatures of {len(sigs)} functions (recorded in "
              f"{SIGNATURES.name})", flush=True)
    else:
        import importlib
        for q in sigs:   # the modules that declare them (the workload would have imported them)
            importlib.import_module(q.rsplit(".", 1)[0])
        print(f"kernels: {sum(map(len, sigs.values()))} signatures of {len(sigs)} functions from "
              f"{SIGNATURES.name}", flush=True)
    stamp = native.stamp()
    cc = CC(native.NATIVE_NAME)
    # numpy's headers before Python's: Debian's /usr/include/python3.11 holds a ``numpy`` link to the system
    # numpy's (1.x) headers when python3-numpy is installed, and a module built on them fails to load under the
    # venv's numpy 2 ("_ARRAY_API not found")
    import numpy
    tc = cc._toolchain
    tc._py_include_dirs = [numpy.get_include(), *tc._py_include_dirs]
    native.NATIVE_DIR.mkdir(exist_ok=True)
    tmpdir = Path(tempfile.mkdtemp(prefix=".build-", dir=native.NATIVE_DIR))
    cc.output_dir = str(tmpdir)
    cc.use_nrt = False          # as the kernels' _nrt=False: no reference counting around array arguments
    cc.target_cpu = "host"      # as the JIT: this CPU's features (the stamp names the CPU)
    cc.verbose = False
    exports: dict[str, list] = {}
    by_func = {native.qualname(d.py_func): d for d in native.registry}
    for q, lst in sigs.items():
        for i, (key, sig) in enumerate(lst):
            name = f"{q.rsplit('.', 2)[-2]}__{q.rsplit('.', 1)[-1]}__{i}"
            cc.export(name, sig.return_type(*sig.args))(by_func[q].py_func)
            exports.setdefault(q, []).append((key, name))
    t1 = time.perf_counter()
    try:
        with native.no_wraparound():   # as the JIT compiles them
            cc.compile()
        out = native.NATIVE_DIR / os.path.basename(cc.output_file)
        os.replace(tmpdir / out.name, out)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    meta = {"stamp": stamp, "file": out.name, "exports": exports,
            "built": time.strftime("%Y-%m-%d %H:%M:%S"), "numba": __import__("numba").__version__}
    tmp = native.NATIVE_META.with_suffix(".tmp")
    tmp.write_text(json.dumps(meta, indent=1))
    tmp.replace(native.NATIVE_META)
    print(f"kernels: {out} compiled in {time.perf_counter() - t1:.0f} s", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 0 if the built module is current, else 1")
    ap.add_argument("--record", action="store_true",
                    help=f"run the workload under the JIT and record its signatures in {SIGNATURES.name} first")
    ap.add_argument("--warm", action="store_true", help=argparse.SUPPRESS)   # warm_jit_cache's child
    args = ap.parse_args(argv)
    if args.warm:
        native.use_jit("make kernels: the workload warms the JIT cache")
        workload()
        return 0
    if args.check:
        ok = native.current_meta()[0] is not None
        print("kernels: native module current" if ok else "kernels: native module missing or stale")
        return 0 if ok else 1
    build(record=args.record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
