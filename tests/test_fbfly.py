"""Flattened butterfly against Kim, Dally, Abts (ISCA 2007) and the 2DFB paper."""

import math

import numpy as np
import pytest

from radixnet.gen import ParamError, build
from radixnet.gen.families.fbfly import effective_radix, size_for_radix
from radixnet.gen.metrics import static_metrics

# Kim Table 4 (N = 4K): k, n -> k', n'. The last row prints k' = 12, but the
# paper's own formula k' = n(k-1)+1 (§2.1) gives 13 for a 2-ary 12-flat; see
# docs/topologies.md ("Paper errata").
KIM_TABLE4 = [(64, 2, 127, 1), (16, 3, 46, 2), (8, 4, 29, 3), (4, 6, 19, 5), (2, 12, 12, 11)]


@pytest.mark.parametrize("k,n,kp_paper,np_paper", KIM_TABLE4)
def test_kim_table4(k, n, kp_paper, np_paper):
    net = build("fbfly", k=k, n=n)
    assert net.num_terminals == 4096
    assert net.num_routers == 4096 // k
    assert net.max_radix == effective_radix(k, n)
    dims = len(net.coord_names)
    assert dims == np_paper
    if (k, n) == (2, 12):
        assert net.max_radix == kp_paper + 1  # erratum in Table 4
    else:
        assert net.max_radix == kp_paper


def test_eq1_fig1d_router4_neighbours():
    """Fig. 1(d), 2-ary 4-flat: R4' connects to R5' (dim 1), R6' (dim 2), R0' (dim 3)."""
    net = build("fbfly", k=2, n=4)
    out = net.src == 4
    by_dim = dict(zip(net.tag[out].tolist(), net.dst[out].tolist()))
    assert by_dim == {0: 5, 1: 6, 2: 0}


def test_eq1_every_neighbour_differs_in_exactly_the_channel_dimension():
    net = build("fbfly", k=3, n=4)
    diff = net.coords[net.src] != net.coords[net.dst]
    assert np.all(diff.sum(1) == 1)
    assert np.array_equal(np.argmax(diff, 1), net.tag)
    # complete graph per dimension: each router has k-1 neighbours per dimension
    assert np.all(np.bincount(net.src * 3 + net.tag) == 2)


def test_1k_channels_vs_folded_clos():
    """§4.3: the 32-ary 2-flat needs 31 x 32 = 992 inter-router channels."""
    assert build("fbfly", k=32, n=2).num_channels == 31 * 32


def test_sizing_for_fixed_radix():
    """§5.1.2 worked examples: radix 64 → k'=63 for 1K, k'=61 for 64K."""
    for N, kp in ((1024, 63), (65536, 61)):
        k, n = size_for_radix(64, N)
        assert effective_radix(k, n) == kp
        assert math.floor(64 / n) ** n >= N
        net = build("fbfly", radix=64, N=N)
        assert net.num_terminals >= N and net.max_radix == 64
        assert np.all(net.network_degree() == (n - 1) * (k - 1))  # spare ports unused


def test_redundant_spare_ports_fig14a():
    """Fig. 14(a): a 4-ary 2-flat on radix-8 routers doubles one channel per router."""
    plain = build("fbfly", k=4, n=2)
    red = build("fbfly", k=4, n=2, radix=8, spare="redundant")
    assert red.num_channels == plain.num_channels + 4
    assert np.all(red.network_degree() == 4)
    extra = red.lane == 1
    pairs = {tuple(sorted(p)) for p in zip(red.src[extra].tolist(), red.dst[extra].tolist())}
    assert len(pairs) == 2 and len({r for p in pairs for r in p}) == 4  # a perfect matching
    # all spare ports of a 2-dim flat: every channel doubled once per round
    full = build("fbfly", k=4, n=3, radix=effective_radix(4, 3) + 6, spare="redundant")
    assert full.num_channels == 2 * build("fbfly", k=4, n=3).num_channels
    with pytest.raises(ParamError, match="--spare"):
        build("fbfly", k=3, n=2, radix=6, spare="redundant")
    with pytest.raises(ParamError, match="--radix"):
        build("fbfly", k=4, n=2, radix=6)


def test_special_cases_are_the_identical_hyperx():
    assert build("fbfly", k=4, n=3).same_structure(build("hyperx", dims=[4, 4], c=4))
    assert build("2dfb", k=8, n=2).same_structure(build("hyperx", dims=[8, 8], mult=[2], c=8))
    assert build("hypercube", n=5).same_structure(build("hyperx", dims=[2] * 5))
    assert build("fbfly", k=2, n=6, c=1).same_structure(build("hypercube", n=5))


@pytest.mark.parametrize("k,n", [(8, 1), (8, 2)])
def test_2dfb_diameter_and_bisection(k, n):
    """2DFB paper: diameter ceil(log_k N) - 1 and bisection N/2 (8-ary 1-dim N=64, 8-ary 2-dim N=512)."""
    net = build("2dfb", k=k, n=n)
    N = net.num_terminals
    m = static_metrics(net)
    assert m["diameter"] == math.ceil(round(math.log(N, k), 9)) - 1
    assert m["bisection_width"] == N // 2 and m["bisection_exact"]
    # every inter-router channel doubled, terminal links single
    assert np.all(np.bincount(net.lane) == net.num_channels // 2)
    assert np.all(np.bincount(net.inj_router) == k)
