"""The corner where two grants of one input meet a sequential decision and wormhole holds, in the default suite.

Speedup 2 (§R8b), the sequential allocator (§R6; under ``iq`` in VA, §R10.1) and multi-flit packets together:
an input's second grant is searched among the VCs after its first in round-robin order (``later_than``), and
a tail that releases an output VC in the cycle a later head takes it leaves the VC held (the hold wins). Each
alone is exercised elsewhere; bugs in their combination passed every other default test and were caught only
by this configuration (``radixnet cosim --topo fbfly --k 4 --n 2 --routing ugal-s --speedup 2
--packet-length 3``), so it runs by default under every router model the RTL builds it for: on the 2-ary
3-flat (four routers of radix 4, the network of the sequential cases in ``tests/helpers/cosim.py``), and on
the command line's 4-ary 2-flat under ``make test-slow`` (four routers of radix 7: a cold build of 2.5-3.5
minutes each, most of the default run's budget).
"""

from __future__ import annotations

import shutil

import pytest

from helpers.cosim import assert_match, run

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")

#: the command line's defaults for this configuration (radixnet.cosim_cli: DEFAULT_VC_DEPTH, two VCs per class, flit terminals)
CORNER = dict(routing="ugal-s", speedup=2, packet_length=3, load=0.6, vcs=4, vc_depth=2, cycles=200, seed=2,
              terminals="flit")


@pytest.mark.parametrize("params", [{"k": 2, "n": 3}, pytest.param({"k": 4, "n": 2}, marks=pytest.mark.slow)],
                         ids=["2-ary-3-flat", "4-ary-2-flat"])
@pytest.mark.parametrize("router_model", ["single-cycle", "iq"])
def test_sequential_speedup2_multiflit(router_model, params):
    v = run("fbfly", params, router_model=router_model, **CORNER)
    assert_match(v)
    assert v["stall_cycles"] > 0
