"""The golden model's native kernels (radixnet.golden.native): built by `make kernels` (make setup, and
before make test), used by a process that finds them current, bit-identical to numba's JIT, and a call
they were not built for switches the process to the JIT instead of failing."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def python(code: str, mode: str | None = None, timeout: int = 600, env: dict | None = None
           ) -> subprocess.CompletedProcess:
    env = dict(os.environ, **(env or {}))
    env.pop("RADIXNET_KERNELS", None)
    if mode is not None:
        env["RADIXNET_KERNELS"] = mode
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)


def test_native_module_is_current():
    """`make test` builds the module first (make kernels); a stale or missing one is a failure here, not a
    silent fall back to the JIT."""
    p = subprocess.run([sys.executable, "-m", "radixnet.golden.native_build", "--check"], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr + "\n(run `make kernels`)"


def test_signatures_recorded_from_these_sources():
    """golden/native_signatures.json was recorded from this tree's golden sources: otherwise `make kernels` on a
    fresh clone runs the whole workload under the JIT first (twice the set-up time)."""
    p = subprocess.run([sys.executable, "-c", "from radixnet.golden import native_build as b; "
                        "print(b.load_signatures() is not None)"], capture_output=True, text=True, timeout=300)
    assert p.stdout.strip() == "True", (p.stdout + p.stderr + "\n(golden sources changed since the signatures "
                                        "were recorded: python -m radixnet.golden.native_build --record, then "
                                        "commit golden/native_signatures.json)")


SIM = """
import sys, json
from radixnet.gen import build
from radixnet.golden import native
from radixnet.golden.sim import SimConfig, Simulator, PacketStats
out = {}
for model in ("single-cycle", "iq"):
    for traffic, load in (("uniform", 0.3), ("worst-case", 0.8)):
        sim = Simulator(SimConfig(build("fbfly", k=8, n=2), routing="min", traffic=traffic, vcs=2, vc_depth=16,
                                  speedup=2, router_model=model, seed=1, window=250))
        for _ in range(4):
            sim.step(250, load, sinks=(PacketStats(),))
        sim.run_batch(2)
print(json.dumps({"mode": native.STATE.mode, "misses": native.STATE.misses,
                  "numba": "numba" in sys.modules, "llvmlite": "llvmlite" in sys.modules}))
"""


def test_native_process_never_imports_numba():
    """The benchmark's configurations (min routing, uniform and saturated worst case, both router models, a
    batch after them) run on the native module alone: no call misses a built signature, and neither numba
    nor llvmlite is imported (their ~120 MB are what the module saves, docs/performance.md)."""
    p = python(SIM, "native")
    assert p.returncode == 0, p.stderr[-2000:]
    r = json.loads(p.stdout.splitlines()[-1])
    assert r == {"mode": "native", "misses": [], "numba": False, "llvmlite": False}


#: the golden digests of this tree (benchmarks/golden_digest.py --save), checked on every test run
PINNED = ROOT / "tests" / "data" / "golden_digests.json"

DIGESTS = f"""
import json, runpy
from radixnet.golden import native
gd = runpy.run_path({str(ROOT / 'benchmarks' / 'golden_digest.py')!r})
print(json.dumps([native.STATE.mode, gd["digests"](), gd["n_digests"]()]))
"""


def digests(mode: str) -> tuple[str, dict, int]:
    p = python(DIGESTS, mode, timeout=3600)
    assert p.returncode == 0, p.stderr[-2000:]
    return json.loads(p.stdout.splitlines()[-1])


def test_golden_digests_pinned():
    """The golden digests (benchmarks/golden_digest.py: every HyperX routing under the router models, packet
    lengths, speedups, egress, table routings, the subswitch model, traces and run_load verdicts) under the
    native module equal the ones pinned in tests/data/golden_digests.json, and every case gave one: a change
    to the golden model that changes a result fails here until the spec says so and the file is re-pinned."""
    mode, now, n = digests("native")
    assert mode == "native" and len(now) == n > 130
    pinned = json.loads(PINNED.read_text())
    diff = sorted(k for k in set(now) | set(pinned) if now.get(k) != pinned.get(k))
    assert diff == [], (f"{len(diff)} digests differ, the first: {diff[:3]} (if the change is meant: "
                        "python benchmarks/golden_digest.py --save tests/data/golden_digests.json)")


# slow (about 6 minutes on a cold numba cache: the JIT compiles every kernel in the subprocess);
# test_golden_digests_pinned checks the native module against the pinned digests by default
@pytest.mark.slow
def test_native_matches_jit_bit_for_bit():
    """The golden digests are the same under the native module and under numba's JIT."""
    runs = {mode: digests(mode) for mode in ("native", "jit")}
    assert runs["native"][0] == "native" and runs["jit"][0] == "jit"
    assert len(runs["jit"][1]) == runs["jit"][2] > 130
    diff = [k for k in runs["jit"][1] if runs["native"][1].get(k) != runs["jit"][1][k]]
    assert diff == []


def test_unbuilt_signature_switches_to_jit():
    """A call with argument types the module was not built for (int32 arrays here) runs under the JIT and
    gives the JIT's result; the process stays on the JIT and says why."""
    code = """
import json, numpy as np
from radixnet.golden import native
from radixnet.golden.held import within_quota
before = native.STATE.mode
out = np.zeros(3, np.int32)
within_quota(np.array([2, 0, 2, 2, 0], np.int32), np.array([1, 0, 2], np.int32), out)
print(json.dumps([before, native.STATE.mode, out.tolist(), len(native.STATE.misses), native.STATE.reason]))
"""
    p = python(code, "native")
    assert p.returncode == 0, p.stderr[-2000:]
    before, after, out, misses, reason = json.loads(p.stdout.splitlines()[-1])
    p = python(code, "jit")
    assert p.returncode == 0, p.stderr[-2000:]
    assert (before, after, misses) == ("native", "jit", 1)
    assert "within_quota" in reason
    assert out == json.loads(p.stdout.splitlines()[-1])[2]


@pytest.mark.parametrize("value, message", [
    ("fast", "RADIXNET_KERNELS='fast': allowed are auto, jit, native"),
])
def test_bad_mode_is_one_line_error(value, message):
    env = dict(os.environ, RADIXNET_KERNELS=value)
    p = subprocess.run([sys.executable, "-m", "radixnet", "sim", "--k", "2", "--n", "2", "--measure", "100",
                        "--quiet"], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 2
    assert p.stderr.strip() == f"radixnet: error: {message}"


def test_stale_module_is_not_used(tmp_path, monkeypatch):
    """A module whose stamp is not this tree's (a kernel source edited since `make kernels`) is not loaded:
    the process runs the JIT and says why; with RADIXNET_KERNELS=native that is an error."""
    from radixnet.golden import native
    meta = json.loads(native.NATIVE_META.read_text())
    meta["stamp"] = "0" * 64
    fake = tmp_path / native.NATIVE_META.name
    fake.write_text(json.dumps(meta))
    monkeypatch.setattr(native, "NATIVE_META", fake)
    monkeypatch.setattr(native, "STATE", native.State())
    monkeypatch.setenv("RADIXNET_KERNELS", "auto")
    native.load_native()
    assert native.STATE.mode == "jit" and "other sources" in native.STATE.reason and not native.STATE.error
    monkeypatch.setattr(native, "STATE", native.State())
    monkeypatch.setenv("RADIXNET_KERNELS", "native")
    native.load_native()
    assert native.STATE.error == "RADIXNET_KERNELS=native: the native module was built from other sources " \
                                 "(make kernels)"


def test_inline_always_is_inlined_by_llvm():
    """``inline="always"`` is LLVM's (numba's ``forceinline``, ``native.jit_dispatcher``): the linkable copy of
    a function declared so carries ``alwaysinline`` and its caller calls it nowhere; a plain njit function is
    not marked."""
    code = ("from radixnet.golden import kernel, native\n"
            "import numba, re\n"
            "assert native.STATE.mode == 'jit'\n"
            "kernel.sink_ready(7, 3, 11, 0)\n"
            "kernel.mix32(5)\n"
            "ir = next(iter(kernel.sink_ready.inspect_llvm().values()))\n"
            "print('calls', len(re.findall(r'call [^\\n]*6kernel5mix32', ir)))\n"
            "def marks(d):\n"
            "    lib = next(iter(d.overloads.values())).library\n"
            "    return sum(any(b'alwaysinline' in a for a in f.attributes)\n"
            "               for f in lib._get_module_for_linking().functions\n"
            "               if not f.is_declaration and f.name.startswith('_ZN'))\n"
            "print('marked', marks(kernel.mix32))\n"
            "def other(x):\n"
            "    return (x * 0x7FEB352D) & 0xFFFFFFFF\n"
            "plain = numba.njit(other)\n"
            "plain(5)\n"
            "print('plain', marks(plain))\n")
    with tempfile.TemporaryDirectory() as cache:   # compiled here, not loaded (numba inspects no cached code)
        p = python(code, mode="jit", env={"NUMBA_CACHE_DIR": cache})
    assert p.returncode == 0, p.stderr
    counts = dict(line.split() for line in p.stdout.split("\n") if line)
    assert counts["calls"] == "0" and int(counts["marked"]) >= 1 and counts["plain"] == "0", counts


def test_recorded_signatures_are_the_python_calls():
    """The native build exports what Python calls: a function compiled only for a compiled caller (which a
    cold JIT cache compiles, a warm one loads inside its caller) is not recorded, so `--record` lists the same
    signatures from a cold cache and a warm one."""
    code = ("from radixnet.golden import native\n"
            "def callee(x):\n"
            "    return x + 1\n"
            "g = native.jit_dispatcher(callee, {'cache': False})\n"
            "def caller(x):\n"
            "    return g(x) * 2\n"
            "f = native.jit_dispatcher(caller, {'cache': False})\n"
            "assert f(3) == 8 and f(2.5) == 7.0 and f(4) == 10\n"
            "print(sorted(map(str, f.py_called)), len(g.nopython_signatures), sorted(map(str, g.py_called)))\n")
    p = python(code, mode="jit")
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[0] == "['(float64,)', '(int64,)'] 2 []", p.stdout
