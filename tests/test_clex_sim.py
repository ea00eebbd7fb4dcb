"""CLEX message-level simulation (Lenzen & Wattenhofer §II-C, §II-D, §III): radixnet.golden.clex and `radixnet clex`.

Small instances only (k = 3..16, levels 1..4); the paper-size runs are benchmarks/clex_speed.py and
docs/clex-sim.md.
"""

import json
import math
from collections import Counter

import numpy as np
import pytest

import radixnet.cli as cli
from radixnet.clex_cli import cmd_clex
from radixnet.gen import ParamError, build
from radixnet.golden import clex as C


def _run(k, L, M, **kw):
    r = C.simulate(k, L, M, **kw)
    assert r.delivered
    return r


def _strip(d):
    d = dict(d)
    d.pop("wall_seconds")
    d.pop("threads")
    return d


# ---------------------------------------------------------------- delivery and structure

@pytest.mark.parametrize("k,L,M,kw", [
    (8, 2, 7, {}), (8, 3, 7, {}), (8, 3, 2, {"light": True}), (4, 4, 3, {}), (5, 2, 9, {}),
    (8, 1, 5, {}), (3, 3, 20, {}), (3, 3, 20, {"light": True}), (6, 3, 4, {"destinations": "uniform"}),
    (8, 2, 3, {"light": True, "copies": 3}),
])
def test_every_message_is_delivered(k, L, M, kw):
    r = _run(k, L, M, seed=11, **kw)
    N = k ** L * M
    assert r.total_messages == N
    one = r.table[0]
    # every message takes part in 2^(L-1) instances of A(1) (Theorem 2.6's recursion) ...
    assert one.remaining[0] == N * 2 ** (L - 1)
    # ... and the count of undelivered messages falls with every phase to zero (Fig. 3)
    assert all(a > b for a, b in zip(one.remaining, one.remaining[1:]))
    assert sum(one.phase_instances) == one.instances
    assert len(one.phase_instances) == one.max_phases
    # §III-A: phase 1 takes 1 round, every further phase 2, request/acknowledgement 2 more (dense only)
    if one.max_phases == 1:
        assert one.max_rounds == 1
    else:
        assert one.max_rounds == 2 * one.max_phases - 1 + (0 if kw.get("light") else 2)
    # the top level is one instance holding every message: average load = messages per node
    assert r.table[-1].max_avg_load == M


def test_schedule_is_the_recursion_of_a_l():
    # A(l) = step 1 A(l-1), step 2 (one level-l hop), step 3 A(l-1)
    ops = C._ops(3)
    assert ops == [("enter", 3), ("enter", 2), ("a1", 1), ("hop", 2), ("exit", 2), ("a1", 1),
                   ("hop", 3), ("exit", 3), ("enter", 2), ("a1", 1), ("hop", 2), ("exit", 2), ("a1", 1)]
    assert [sum(o == ("hop", l) for o in C._ops(4)) for l in (2, 3, 4)] == [4, 2, 1]


@pytest.mark.parametrize("k,L,l", [(3, 3, 2), (3, 3, 3), (4, 2, 2), (2, 4, 3), (5, 3, 3)])
def test_steps_1_and_2_use_the_edges_of_definition_2_3(k, L, l):
    """Step 1 picks gateways whose level-l edges lead to the target's copy; step 2 uses those edges, balanced."""
    net = build("clex", k=k, levels=L)
    out = {}
    for s, d, t in zip(net.src.tolist(), net.dst.tolist(), net.tag.tolist()):
        out.setdefault((s, t), []).append(d)
    n = k ** L
    rng = np.random.default_rng(0)
    N = 40 * n
    S = np.zeros((N, L + 1), dtype=np.int32)
    S[:, 0] = np.sort(rng.integers(0, n, N))
    Kl = k ** (l - 1)
    # targets of A(l) inside the current level-l copy
    S[:, l] = (S[:, 0] // (Kl * k)) * (Kl * k) + rng.integers(0, Kl * k, N)
    C._enter(S, l, k, np.uint64(7), 0, 4)
    g, t = S[:, 0 + l - 1].astype(np.int64), S[:, l].astype(np.int64)
    cur = S[:, 0].astype(np.int64)
    assert np.all(g // Kl == cur // Kl)                      # same level-(l-1) copy as the message
    for gi, ti in zip(g[:500].tolist(), t[:500].tolist()):   # all its level-l edges lead to the target's copy
        assert {d // Kl for d in out[(gi, l)]} == {ti // Kl}
    # step 2 from the gateways
    S[:, 0] = g
    order = np.argsort(S[:, 0] // k, kind="stable")
    S = S[order]
    old = S[:, 0].astype(np.int64).copy()
    starts = np.searchsorted(S[:, 0] // k, np.arange(n // k + 1)).astype(np.int64)
    st = np.zeros((4, 3), dtype=np.int64)
    C._hop(S, starts, l, k, np.uint64(7), 1, 4, st)
    assert st[:, 2].sum() == 0
    new = S[:, 0].astype(np.int64)
    used = Counter(zip(old.tolist(), new.tolist()))
    for (a, b), c in used.items():
        assert b in out[(a, l)]                                # a real level-l channel
    for a, m in Counter(old.tolist()).items():                 # balanced: floor or ceil of m/k per edge
        per_edge = Counter()
        for d in out[(a, l)]:
            per_edge[d] += 0
        for (x, b), c in used.items():
            if x == a:
                per_edge[b] += c
        mult = Counter(out[(a, l)])                             # parallel channels share a target node
        for b, c in per_edge.items():
            assert m // k * mult[b] <= c <= -(-m // k) * mult[b]
    assert st[:, 0].max() == max(-(-m // k) for m in Counter(old.tolist()).values())


# ---------------------------------------------------------------- the paper's statements

@pytest.mark.parametrize("k,L,M,light", [(8, 3, 7, False), (8, 3, 1, True), (4, 4, 3, False), (3, 4, 5, True),
                                         (16, 3, 14, False)])
def test_upper_levels_hops_are_forced(k, L, M, light):
    """Tables I-IV: avg hops 2 and 1 on levels 2 and 3 of C(1/3, 3), 4, 2, 1 on levels 2-4 of C(1/4, 4).

    A(l+1) calls A(l) twice and every call of A(l), l >= 2, moves each message over exactly one level-l
    edge (loops {v, v} are edges, §II-A), so level l carries exactly 2^(L-l) hops per message."""
    r = _run(k, L, M, seed=3, light=light)
    assert [lv.avg_hops for lv in r.table[1:]] == [2.0 ** (L - l) for l in range(2, L + 1)]
    one = r.table[0]
    assert one.avg_hops >= 2 ** (L - 1)                       # at least one (direct) hop per A(1) call
    if not light:
        assert one.avg_hops <= 2 * 2 ** (L - 1)               # request/ack: a relayed message makes 2 hops


def test_permutation_makes_level_l_minus_1_loads_exact():
    """Every node sends and receives exactly `messages`, so every copy of C(s, L-1) holds that many per node."""
    r = _run(8, 3, 7, seed=2)
    assert r.table[1].max_avg_load == 7.0
    u = _run(8, 3, 7, seed=2, destinations="uniform")
    assert u.table[1].max_avg_load > 7.0


def test_rounds_grow_with_messages_per_node():
    rs = {M: _run(8, 2, M, seed=5) for M in (1, 4, 16, 64)}
    a1 = [rs[M].table[0].avg_rounds for M in (1, 4, 16, 64)]
    assert a1 == sorted(a1) and a1[0] < a1[-1]
    for M, r in rs.items():
        # some gateway of a clique gets >= M messages (pigeonhole over the k gateways), k edges per round
        assert r.table[1].max_rounds >= math.ceil(M / 8)
        assert r.table[0].max_avg_load >= M
    assert rs[64].table[1].max_rounds >= 8
    assert rs[1].table[1].max_rounds <= 2


def test_light_mode_costs_hops_not_handshakes():
    dense = _run(8, 3, 2, seed=9)
    light = _run(8, 3, 2, seed=9, light=True)
    more = _run(8, 3, 2, seed=9, light=True, copies=3)
    assert dense.table[0].avg_rounds > dense.table[0].avg_rounds_no_handshake
    assert light.table[0].avg_rounds == light.table[0].avg_rounds_no_handshake
    assert more.table[0].avg_hops > light.table[0].avg_hops


def test_determinism_per_seed_and_thread_count():
    a = _strip(_run(8, 3, 7, seed=5).to_dict())
    b = _strip(_run(8, 3, 7, seed=5).to_dict())
    one = _strip(_run(8, 3, 7, seed=5, threads=1).to_dict())
    c = _strip(_run(8, 3, 7, seed=6).to_dict())
    assert a == b == one
    assert a != c


def test_copy_schedule_terminates_in_seven_rounds_per_paper():
    # §III-A: 1 + 2 log* 32 = 1 + 2 log* 64 = 7 with natural logarithms
    def log_star(x):
        return 1 if x <= 2 else 1 + log_star(math.log(x))
    assert 1 + 2 * log_star(32) == 1 + 2 * log_star(64) == 7
    for k in (8, 32, 64):
        s = C.copy_schedule(k, 20)
        assert s[0] == 1 and np.all(np.diff(s) >= 0) and s[-1] <= max(1, math.sqrt(math.log(k)))


# ---------------------------------------------------------------- torus comparison and all-to-all

def test_torus_comparison_is_finite():
    r = _run(8, 3, 7, seed=1)
    t = C.torus_comparison(r)
    for key in ("hop_factor", "hop_factor_no_handshake", "bandwidth_factor", "propagation_ratio",
                "hop_factor_exact", "bandwidth_factor_exact", "matching_light_load"):
        assert math.isfinite(t[key]) and t[key] > 0, key
    assert t["hop_factor"] == pytest.approx(1.5 * 8 / sum(lv.avg_rounds for lv in r.table))
    assert t["bandwidth_factor"] == pytest.approx(1.5 * 8 / sum(lv.avg_hops for lv in r.table))
    assert t["hop_factor_no_handshake"] > t["hop_factor"]
    assert t["torus_dims"] == [8, 8, 8] and t["torus_mean_distance_exact"] == 6.0


def _paper_like(k, L, M, rounds, hops):
    table = [C.LevelStats(l + 1, 1, 1, rounds[l], rounds[l], M, hops[l]) for l in range(L)]
    return C.ClexResult(k, L, k ** L, M, 0, False, "permutation", 1.0, k ** L * M, True, table, 0.0, 1)


def test_torus_formulas_reproduce_the_papers_arithmetic():
    """§III-A/B formulas, fed the paper's own table values, give the paper's factors (formula check only)."""
    t1 = C.torus_comparison(_paper_like(32, 4, 28, [13.69, 4.11, 2.05, 1.03], [10.63, 4, 2, 1]))
    assert round(t1["hop_factor"], 1) == 7.3 and round(t1["bandwidth_factor"], 1) == 8.6
    assert round(t1["propagation_ratio"], 1) == 2.5
    t2 = C.torus_comparison(_paper_like(64, 3, 57, [6.90, 2.03, 1.01], [5.34, 2, 1]))
    # the paper prints 3 * 64^3 in the numerator: a typo for 3 * 64 = 3 n^(1/3)
    assert round(t2["hop_factor"], 1) == 9.7 and round(t2["bandwidth_factor"], 1) == 11.5
    assert t2["propagation_ratio"] == pytest.approx(1.95, abs=0.005)    # the paper: "2 ≈ 1.01 + 2.03/4 + 6.90/4²"
    assert t1["matching_light_load"] < 4 and t2["matching_light_load"] < 5   # "4 > 28/8.6 and 5 > 57/11.5"


@pytest.mark.parametrize("k,L", [(3, 3), (4, 2), (2, 4), (4, 3)])
def test_all_to_all_flood_reaches_every_node_once_one_edge_per_level(k, L):
    f = C.flood_clex(k, L)
    a = C.clex_all_to_all(k, L)
    assert f["every_node_once"]
    assert f["max_nonloop_edges_per_level"] == [1] * L
    assert f["sends_max"] == a["sends_per_node"]
    assert f["per_link_max"] == a["per_link"]
    # independent flood over the built network's channels, used backwards (links are bidirectional, §II-A)
    net = build("clex", k=k, levels=L)
    into = {}
    for s, d, t in zip(net.src.tolist(), net.dst.tolist(), net.tag.tolist()):
        into.setdefault((d, t), []).append(s)
    n = k ** L
    sends = Counter()
    for v in range(n):
        hold = [v]
        for l in range(L, 1, -1):
            nxt = []
            for x in hold:
                tails = sorted(set(into[(x, l)]))
                assert len(tails) == k
                nxt += tails
                sends[l] += sum(y != x for y in tails)
            hold = nxt
        final = [x - x % k + b for x in hold for b in range(k)]
        sends[1] += len(final) - len(hold)
        assert sorted(final) == list(range(n))
    assert [sends[l] / n for l in range(1, L + 1)] == pytest.approx(f["sends_nonloop_mean"])


def test_all_to_all_competitive_ratios():
    a = C.clex_all_to_all(16, 3, weights=[5.3, 2, 1])
    assert 2.5 < a["ratio_uniform"] < 3.5          # "bandwidth-optimal up to factor 1/s"
    assert a["ratio_weighted"] <= 2                # "at least 2-competitive"
    t = C.torus_all_to_all(C.torus_dims(64 ** 3))
    assert 3 <= t["ratio"] < 3.1                   # "bandwidth-optimal up to factor three"
    assert t["paper_hops"] == 2 * t["mean_hops"]
    assert C.torus_dims(32 ** 4) == (64, 128, 128)
    with pytest.raises(ParamError):
        C.clex_all_to_all(4, 2, weights=[1.0])
    with pytest.raises(ParamError):
        C.flood_clex(16, 4)


# ---------------------------------------------------------------- CLI

def test_cli_json(capsys):
    assert cmd_clex(["--k", "8", "--levels", "3", "--messages", "3", "--seed", "4", "--json", "--torus",
                     "--all-to-all"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("graph", "k", "levels", "n", "messages", "seed", "light", "destinations", "total_messages",
                "delivered", "table", "torus", "all_to_all"):
        assert key in out, key
    assert out["graph"] == "C(1/3, 3)" and out["delivered"] is True and out["n"] == 512
    assert [t["level"] for t in out["table"]] == [1, 2, 3]
    for t in out["table"]:
        assert {"max_rounds", "avg_rounds", "avg_rounds_no_handshake", "max_avg_load", "avg_hops"} <= set(t)
    assert math.isfinite(out["torus"]["hop_factor"]) and math.isfinite(out["torus"]["bandwidth_factor"])
    direct = _strip(C.simulate(8, 3, 3, seed=4).to_dict())
    assert _strip({k: v for k, v in out.items() if k in direct or k in ("wall_seconds", "threads")}) == direct


def test_cli_text(capsys):
    assert cmd_clex(["--k", "4", "--levels", "2", "--messages", "2", "--light", "--torus"]) == 0
    text = capsys.readouterr().out
    assert "lvl" in text and "max avg load" in text and "3D-torus comparison" in text
    assert "light" in text and "all delivered" in text


@pytest.mark.parametrize("argv,name", [
    (["--k", "1"], "k"), (["--k", "x"], "k"), (["--levels", "0"], "levels"), (["--messages", "0"], "messages"),
    (["--destinations", "foo"], "destinations"), (["--copies", "0.5"], "copies"), (["--threads", "0"], "threads"),
    (["--seed", "-1"], "seed"), (["--k", "2", "--levels", "31"], "levels"),
    (["--k", "64", "--levels", "4", "--messages", "200"], "messages"),
])
def test_cli_bad_values_raise_param_error(argv, name):
    with pytest.raises(ParamError) as e:
        cmd_clex(argv)
    assert e.value.name == name and str(e.value).startswith(f"--{name}:")


@pytest.mark.parametrize("argv", [["--bogus"], ["--k"], ["extra"]])
def test_cli_bad_syntax_raises_usage_error(argv):
    with pytest.raises(cli.UsageError, match="^radixnet clex: error: "):
        cmd_clex(argv)


def test_cli_exit_status_2(monkeypatch, capsys):
    monkeypatch.setitem(cli.COMMANDS, "clex", lambda argv: cmd_clex(argv))
    assert cli.main(["clex", "--k", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--k" in err
    assert cli.main(["clex", "--nope"]) == 2
    assert cli.main(["clex", "--k", "4", "--levels", "2", "--messages", "1", "--json"]) == 0
