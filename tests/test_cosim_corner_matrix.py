"""The corner matrix (``cosim/matrices/corners.toml``) and the corners line of ``radixnet cosim``.

The matrix's nine runs must cover every pair of corner values (router model, speedup, allocator, packet
length, sinks); every entry must pass ``radixnet cosim``'s checks (the RTL's refusals among them) before a run.
"""

from __future__ import annotations

import itertools
from pathlib import Path

from radixnet.cosim import matrix as mx
from radixnet.cosim_cli import matrix_entry

CORNERS = Path(__file__).resolve().parents[1] / "cosim" / "matrices" / "corners.toml"
SEQ = {"ugal-s", "clos-ad", "2dfb-adaptive"}


def corner(c: dict) -> dict:
    r = c.get("routing", "sp")
    return {"model": c.get("router_model", "single-cycle"), "speedup": c.get("speedup", 1),
            "allocator": "sequential" if r in SEQ else ("greedy" if r in {"ugal", "min-ad", "val"} else "table"),
            "length": 1 if c.get("packet_length", 1) == 1 else "multi",
            "sinks": "stalling" if c.get("sink_stall", 0) > 0 else "ideal"}


def test_every_entry_is_accepted_before_any_run():
    entries = mx.load_matrix(CORNERS, matrix_entry)
    assert len(entries) == 9 and len({e.name for e in entries}) == 9


def test_every_pair_of_corner_values_meets():
    _, configs = mx.read_matrix(CORNERS)
    seen = [corner(c) for c in configs]
    values = {k: {s[k] for s in seen} for k in seen[0]}
    assert values["model"] == {"single-cycle", "iq", "hiradix"} and values["speedup"] == {1, 2}
    assert values["allocator"] == {"table", "greedy", "sequential"} and len(values["length"]) == 2
    assert values["sinks"] == {"ideal", "stalling"}
    for a, b in itertools.combinations(values, 2):
        for x, y in itertools.product(values[a], values[b]):
            assert any(s[a] == x and s[b] == y for s in seen), f"{a}={x} never meets {b}={y}"


def test_cosim_prints_the_corners_it_did_not_exercise():
    from radixnet.cosim_cli import corners, parse_cosim

    _, cfg = parse_cosim(["--topo", "fbfly", "--k", "2", "--n", "2", "--router-model", "hiradix", "--speedup", "2"])
    line = corners(cfg)
    here, missing = line.split("; not exercised: ")
    assert "model hiradix" in here and "speedup 2" in here and "single-flit" in here
    assert "model iq" in missing and "speedup 1" in missing and "sequential allocator" in missing
    assert "multi-flit" in missing and "stalling sinks" in missing and "corners.toml" in missing
