"""The golden model's compiled code indexes arrays only in bounds, never with a negative number.

The compiled functions are lowered without negative-index wraparound (:func:`radixnet.golden.native.
no_wraparound`, DEVELOPERS.md): ``a[-1]`` would read before the array instead of its last element. These
tests prove that no run of the covered configurations indexes out of bounds: in a fresh process with
its own numba cache, ``NUMBA_BOUNDSCHECK=1`` makes every access check its index against ``[0, n)``
(numba checks after the wraparound step, which is then gone, so a negative index is refused too) and
an out-of-bounds access raises IndexError.

The kernel compiled with bounds checks takes minutes, so the full run is ``-m slow``
(``make test-slow``); the default suite checks that the lowering is what the tests assume.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from radixnet.golden import native

#: Every routing of the HyperX kernel under both router models, multi-flit packets, speedup 2, egress
#: FIFOs with stalling sinks, traces, the 2DFB's priority routing, table routings (torus, Clos,
#: dragonfly) and the sequential allocator (UGAL-S, CLOS AD): (family, parameters, SimConfig keywords,
#: load, trace).
CASES = [("fbfly", {"k": 4, "n": 2}, dict(routing=rt, router_model=m, packet_length=L, egress_depth=E,
                                          sink_stall=0.3 if E else 0.0, speedup=S, traffic=tr), load, L == 4)
         for rt in ("min", "min-ad", "val", "ugal", "ugal-s", "clos-ad")
         for m in ("single-cycle", "iq")
         for L, E, S in ((1, 0, 1), (4, 0, 2), (3, 2, 1))
         for tr, load in (("uniform", 0.5), ("worst-case", 0.9))] + [
    ("2dfb", {"k": 3, "n": 2}, dict(routing="2dfb-adaptive", router_model="iq", packet_length=2), 0.9, True),
    ("2dfb", {"k": 8, "n": 1}, dict(routing="2dfb-adaptive"), 0.6, True),
    ("torus", {}, dict(routing="dor", router_model="iq"), 0.3, True),
    ("clos", {}, dict(routing="clos-adaptive"), 0.5, False),
    ("dragonfly", {"p": 2}, dict(routing="sp", router_model="iq", packet_length=3), 0.5, True),
]

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    from radixnet.gen import build
    from radixnet.golden import native
    from radixnet.golden.sim import SimConfig, Simulator
    assert native.STATE.mode == "jit", native.STATE.reason
    probe = native.jit_dispatcher(lambda a, i: a[i], dict())
    try:
        probe(np.arange(3), -1)
        sys.exit("a negative index was not refused: bounds checks are off or wraparound is on")
    except IndexError:
        pass
    cases = {cases!r}
    for fam, fk, kw, load, trace in cases:
        sim = Simulator(SimConfig(build(fam, **fk), seed=5, window=100, **{"speedup": 2, **kw}), trace=trace)
        sim.step({cycles}, load)
        sim.step({cycles}, 0.0)   # drain: queues empty, lists shrink back
    print("ok", len(cases))
""")


def bounds_checked(cases, cycles: int, tmp_path) -> subprocess.CompletedProcess:
    env = dict(os.environ, RADIXNET_KERNELS="jit", NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    return subprocess.run([sys.executable, "-c", SCRIPT.format(cases=cases, cycles=cycles)], capture_output=True,
                          text=True, env=env, timeout=3600)


def test_lowering_has_no_wraparound():
    """A compiled negative index is not wrapped (it would read before the array): bounds checks refuse it."""
    f = native.jit_dispatcher(lambda a, i: a[i], {"boundscheck": True})
    assert f(np.arange(3), 2) == 2
    with pytest.raises(IndexError):
        f(np.arange(3), -1)


@pytest.mark.slow
def test_kernel_indexes_in_bounds(tmp_path):
    """Every covered configuration, loaded and drained, under numba's bounds checks (minutes: the kernel
    compiles with a check on every access)."""
    p = bounds_checked(CASES, 300, tmp_path)
    assert p.returncode == 0 and p.stdout.startswith("ok"), p.stdout[-2000:] + p.stderr[-4000:]
