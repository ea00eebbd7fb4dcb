"""The Network description: ports, conversions, determinism, validation."""

import json

import numpy as np
import pytest

from radixnet.gen import Network, NetworkError, ParamError, build, family_names
from radixnet.gen.builder import NetworkBuilder


def test_terminal_ports_come_first_and_ports_are_used_once():
    net = build("hyperx", dims=[3, 4], mult=[1, 2], c=3)
    pt = net.port_table()
    assert np.all(net.inj_port < 3) and np.all(net.src_port >= 3)
    used_out = (pt["out_channel"] >= 0) | (pt["out_terminal"] >= 0)
    assert used_out.sum() == net.num_channels + net.num_terminals
    # every router uses exactly c + sum((s-1)*m) ports
    assert np.all(used_out.sum(1) == 3 + 2 * 1 + 3 * 2)


def test_input_and_output_of_a_port_face_the_same_neighbour():
    for net in (build("hyperx", dims=[4, 3], mult=[2, 1]), build("torus", dims=[4, 3]), build("mesh", dims=[3, 3])):
        rev = net.channel_reverse()
        assert np.all(rev >= 0)
        # channel c leaves src via port p; its reverse arrives at src via port p
        assert np.array_equal(net.dst_port[rev], net.src_port)


def test_json_round_trip_is_exact():
    net = build("torus", dims=[3, 5], c=2)
    back = Network.from_json(json.loads(json.dumps(json.loads(net.to_json()))) and net.to_json())
    assert back.same_structure(net)
    assert back.params == net.params and back.coord_names == net.coord_names
    assert np.array_equal(back.coords, net.coords)


def test_to_networkx_has_one_edge_per_channel():
    net = build("2dfb", k=4, n=1)
    g = net.to_networkx(terminals=True)
    assert g.number_of_edges() == net.num_channels + 2 * net.num_terminals
    assert g.number_of_edges(0, 1) == 2  # dilated: two parallel channels


def test_builds_are_deterministic():
    for name in family_names():
        if name == "file":
            continue
        a, b = build(name), build(name)
        assert a.digest() == b.digest(), name


def test_inconsistent_networks_are_rejected():
    b = NetworkBuilder("bad", {}, routers=2, radix=1)
    b.terminals([0, 1])
    b.link(0, 1)
    with pytest.raises(ValueError):
        b.build()
    z = np.zeros(1, dtype=np.int64)
    with pytest.raises(NetworkError):
        Network("bad", {}, np.array([2]), z, z, z, z, z, z, np.array([0, 0]), np.array([0, 0]),
                np.array([0, 0]), np.array([0, 1]))


def test_refuses_absurd_sizes_before_building():
    with pytest.raises(ParamError, match="at most"):
        build("hyperx", dims=[1000, 1000, 1000])
