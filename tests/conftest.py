"""Checks every test of the suite gets.

A test process runs the golden model's ahead-of-time kernels (:mod:`radixnet.golden.native`) until a call
with argument types the build did not record switches it to numba's JIT for good: on a machine whose numba
cache is cold that costs minutes of compilation, paid by whichever test of the worker comes next. A test that
makes the switch fails (at teardown) naming the calls that missed: the workload of
:mod:`radixnet.golden.native_build` should record them, or the test run them as Python
(:func:`radixnet.golden.native.as_python`).
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _native_kernels_stay_native():
    from radixnet.golden import native

    before = native.STATE.mode
    yield
    if before == "native" and native.STATE.mode == "jit":
        pytest.fail("the test switched the golden kernels from the native module to the JIT (minutes of numba "
                    f"compilation on a fresh machine): {'; '.join(native.STATE.misses) or native.STATE.reason}",
                    pytrace=False)
