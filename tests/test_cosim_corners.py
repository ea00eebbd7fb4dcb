"""The corner where two grants of one input meet a sequential decision and wormhole holds, in the default suite.

Speedup 2 (§R8b), the sequential allocator (§R6; under ``iq`` in VA, §R10.1) and multi-flit packets together:
an input's second grant is searched among the VCs after its first in round-robin order (``later_than``), and
a tail that releases an output VC in the cycle a later head takes it leaves the VC held (the hold wins). Each
alone is exercised elsewhere; bugs in their combination passed every other default test and were caught only
by this configuration (``radixnet cosim --topo fbfly --k 4 --n 2 --routing ugal-s --speedup 2
--packet-length 3``), so it runs by default under every router model the RTL builds it for.
"""

from __future__ import annotations

import shutil

import pytest

from helpers.cosim import assert_match, run

pytestmark = pytest.mark.skipif(shutil.which("verilator") is None, reason="verilator not installed (make setup)")

#: the command line's defaults for this configuration (radixnet.cosim_cli: DEFAULT_VC_DEPTH, two VCs per class, flit terminals)
CORNER = dict(routing="ugal-s", speedup=2, packet_length=3, load=0.6, vcs=4, vc_depth=2, cycles=200, seed=2,
              terminals="flit")


@pytest.mark.parametrize("router_model", ["single-cycle", "iq"])
def test_sequential_speedup2_multiflit(router_model):
    v = run("fbfly", {"k": 4, "n": 2}, router_model=router_model, **CORNER)
    assert_match(v)
    assert v["stall_cycles"] > 0
