"""The cost and power model (radixnet.gen.cost), its studies and ``radixnet cost`` (Kim et al. 2007 §4, §5.3)."""

import json
import math

import numpy as np
import pytest

from radixnet.cli import main
from radixnet.gen import ParamError, build
from radixnet.gen.cost import (
    COST_PARAMS,
    PACKAGINGS,
    CostParams,
    evaluate,
    floor_grid,
    kim_design,
    kim_network,
    mean_hops,
    ur_load_max,
)
from radixnet.studies.registry import STUDIES, run_study


# ------------------------------------------------------------------------------- the paper's link counts
def test_paper_link_counts_at_1k():
    """§4.3: "with N = 1K the folded Clos requires 2048 links while the flattened butterfly requires
    31 x 32 = 992 links", counted in the built networks."""
    clos = evaluate(kim_network("clos", 1024))
    fb = evaluate(kim_network("fbfly", 1024))
    assert (clos.channels, fb.channels) == (2048, 992)
    assert (clos.links, fb.links) == (1024, 496)
    assert fb.params["k"] == 32 and fb.params["n"] == 2          # the 32-ary 2-flat of §3.2
    assert clos.routers == 48 and fb.routers == 32


def test_table4_radix_and_dimensions():
    """Table 4's k' = n(k-1)+1 and n' = n-1 from the built networks (the printed 12 for the 2-ary 12-flat is
    an erratum: its own formula gives 13)."""
    for k, n, kp, npr in ((64, 2, 127, 1), (16, 3, 46, 2), (8, 4, 29, 3), (4, 6, 19, 5), (2, 12, 13, 11)):
        rep = evaluate(build("fbfly", k=k, n=n))
        assert (build("fbfly", k=k, n=n).max_radix, len(rep.by_tag)) == (kp, npr)
        assert rep.terminals == 4096


# ------------------------------------------------------------------------------------------ parameters
def test_defaults_are_the_papers_tables():
    p = CostParams()
    assert (p.router_cost, p.router_chip, p.router_development) == (390.0, 90.0, 300.0)
    assert (p.backplane_per_signal, p.cable_fixed, p.cable_per_m, p.optical_per_signal) == (1.95, 3.72, 0.81, 220.0)
    assert p.optical_beyond is None
    assert (p.radix, p.pairs_per_port, p.nodes_per_cabinet, p.density, p.cable_overhead) == (64, 3.0, 128, 75.0, 2.0)
    assert (p.cabinet_width, p.cabinet_depth, p.row_spacing) == (0.57, 1.44, 2.0)
    assert (p.p_switch, p.p_link_gg, p.p_link_gl, p.p_link_ll) == (40.0, 0.2, 0.16, 0.04)
    # §4.1: "a cable connecting nearby routers (routers within 2m) is about $5.34 per signal"
    assert p.cable_fixed + p.cable_per_m * 2 == pytest.approx(5.34)
    # the floor holds D nodes per m^2: 128 nodes per column pitch x (2 x depth)
    px, py = p.pitch
    assert py == pytest.approx(2.88) and 128 / (px * py) == pytest.approx(75.0) and px > 0.57
    assert {q.name for q in COST_PARAMS} == set(CostParams.__dataclass_fields__)


@pytest.mark.parametrize("kw, name", [
    ({"density": 80.0}, "density"), ({"cable_fixed": -1.0}, "cable_fixed"), ({"radix": 0}, "radix"),
    ({"router_pricing": "cheap"}, "router_pricing"), ({"cable_per_m": float("nan")}, "cable_per_m"),
    ({"nodes_per_cabinet": "128"}, "nodes_per_cabinet"),
])
def test_bad_parameters_name_themselves(kw, name):
    with pytest.raises(ParamError) as e:
        CostParams(**kw)
    assert e.value.name == name and "\n" not in str(e.value)


def test_from_values_converts_and_refuses_unknown():
    assert CostParams.from_values({"cable_per_m": "1.5", "radix": "32"}).radix == 32
    with pytest.raises(ParamError, match="unknown cost parameter"):
        CostParams.from_values({"nope": "1"})


# ------------------------------------------------------------------------------------------- the model
def test_fbfly_1k_priced_by_hand():
    """The 32-ary 2-flat: 4 routers per cabinet, 8 cabinets in one row; every price recomputed here."""
    p = CostParams()
    px = p.pitch[0]
    net = build("fbfly", k=32, n=2)
    want = 32 * 390.0 + 2048 * 3 * 1.95                    # routers (one radix-64 chip each), terminal links
    watts = 32 * 40.0 * 63 / 64 + 2048 * 3 * 0.04           # cores by bandwidth, terminal links on the backplane
    for s, d in zip(net.src.tolist(), net.dst.tolist()):
        a, b = s // 4, d // 4
        if a == b:
            want += 3 * 1.95
            watts += 3 * 0.04
        else:
            length = abs(a - b) * px + 2.0
            want += 3 * (3.72 + 0.81 * length + 3.72 * (math.ceil(length / 6.0 - 1e-9) - 1))
            watts += 3 * 0.2
    rep = evaluate(net, p)
    assert rep.total_cost == pytest.approx(want)
    assert rep.power["total"] == pytest.approx(watts)
    assert rep.floor["cols"] == 8 and rep.floor["rows"] == 1


def test_one_cabinet_is_all_backplane_and_direct_vs_indirect_serdes():
    fb = evaluate(build("fbfly", k=4, n=2))                 # 16 nodes, one cabinet
    assert all(r["medium"] == "backplane" for r in fb.links_by_class)
    sig = sum(r["signals"] for r in fb.links_by_class)
    assert fb.power["links"] == pytest.approx(sig * 0.04)  # dedicated local SerDes (direct network)
    bf = evaluate(build("butterfly", k=4, n=2))             # indirect: the same SerDes drives local links
    sig = sum(r["signals"] for r in bf.links_by_class)
    assert bf.power["links"] == pytest.approx(sig * 0.16)


def test_monotone_in_prices_and_lengths():
    net = build("fbfly", k=16, n=3)
    base = evaluate(net)
    assert evaluate(net, CostParams(cable_per_m=1.62)).total_cost > base.total_cost
    assert evaluate(net, CostParams(optical_beyond=0.0)).total_cost > base.total_cost
    assert evaluate(net, CostParams(repeater_cost=0.0)).total_cost <= base.total_cost
    assert evaluate(net, CostParams(p_link_gg=0.4)).power_per_node > base.power_per_node
    # more nodes per cabinet: more links on a backplane, none longer
    big = evaluate(net, CostParams(nodes_per_cabinet=256, density=70.0))
    assert sum(r["channels"] for r in big.links_by_class if r["medium"] == "backplane") > \
        sum(r["channels"] for r in base.links_by_class if r["medium"] == "backplane")
    # cost per node never falls as the §4.3 networks grow
    for t in ("fbfly", "clos", "hypercube"):
        costs = [evaluate(kim_network(t, n), bandwidth="random-bisection" if t == "hypercube" else "port")
                 .cost_per_node for n in (128, 256, 512, 1024, 2048, 4096)]
        assert all(a <= b + 1e-9 for a, b in zip(costs, costs[1:])), (t, costs)


def test_router_pricing_variants():
    net = build("fbfly", k=4, n=6)                          # radix-19 routers
    kim, chip, pins = (evaluate(net, CostParams(router_pricing=x)).router_cost for x in ("kim", "chip", "pins"))
    assert kim == chip == 1024 * 390.0 and pins == pytest.approx(1024 * 390.0 * 19 / 64)
    hc = build("hypercube", n=6)                            # footnote 10: priced by its pins under "kim"
    assert evaluate(hc).router_cost == pytest.approx(evaluate(hc, CostParams(router_pricing="pins")).router_cost)
    big = build("fbfly", k=64, n=2)                         # radix 127: two chips
    assert evaluate(big).router_cost == 64 * 2 * 390.0


def test_random_bisection_width():
    hc = build("hypercube", n=10)
    u = ur_load_max(hc)
    h, exact = mean_hops(hc)
    assert exact and u == pytest.approx(hc.num_terminals * h / hc.num_channels)   # edge-transitive: max = mean
    assert u == pytest.approx(512 / 1023)
    rep = evaluate(hc, bandwidth="random-bisection")
    assert rep.channel_pairs == pytest.approx(3 * u)
    assert evaluate(hc).router_cost > rep.router_cost
    with pytest.raises(ParamError, match="HyperX"):
        evaluate(build("clos"), bandwidth="random-bisection")


@pytest.mark.parametrize("N", [128, 512, 1024, 2048, 4096, 8192, 16384, 32768])
def test_kim_fbfly_designs_fit_radix_64_and_carry_uniform_traffic(N):
    fam, kw = kim_design("fbfly", N)
    net = build(fam, **kw)
    assert net.num_terminals == N and net.max_radix <= 64
    assert ur_load_max(net) <= N / (N - 1) + 1e-12           # the random bisection held (§4.3)
    dims = kw.get("dims", [kw.get("k")] * (kw.get("n", 2) - 1))
    assert len(dims) == (1 if N <= 1024 else 2 if N <= 8192 else 3)   # §5.1.2: the smallest n'


def test_kim_clos_and_butterfly_designs():
    assert kim_design("clos", 1024)[1]["levels"] == 2
    assert kim_design("clos", 2048)[1]["levels"] == 3        # Kim: 1K -> 2K adds a stage
    assert kim_design("clos", 2048, clos_levels="fewest")[1]["levels"] == 2
    assert kim_design("butterfly", 32768) == ("butterfly", {"k": 32, "n": 3})
    with pytest.raises(ParamError):
        kim_design("butterfly", 2048)
    with pytest.raises(ParamError):
        kim_design("hypercube", 1000)


@pytest.mark.parametrize("fam, kw", [("fbfly", {"k": 16, "n": 3}), ("hyperx", {"dims": [8, 4], "c": 8}),
                                     ("2dfb", {"k": 8, "n": 2}), ("hypercube", {"n": 9}),
                                     ("butterfly", {"k": 16, "n": 2}), ("clos", {"radix": 16, "levels": 3}),
                                     ("clos", {"k": 8, "n": 3}), ("slimfly", {"q": 7}), ("dragonfly", {"p": 4})])
def test_every_packaging_places_everything(fam, kw):
    net = build(fam, **kw)
    p = CostParams()
    for layout in ("pods", "central"):
        q = CostParams(clos_routers=layout)
        pl = PACKAGINGS[fam].place(net, q)
        assert pl.router_cab.min() >= 0 and pl.term_cab.min() >= 0
        nodes = np.bincount(pl.term_cab)
        assert nodes.max() <= p.nodes_per_cabinet
        assert pl.xy.shape == (pl.node_cabinets + pl.router_cabinets, 2)
        assert len({tuple(x) for x in pl.xy.round(6).tolist()}) == len(pl.xy)   # one cabinet per slot
    rep = evaluate(net)
    assert sum(r["channels"] for r in rep.links_by_class) == net.num_channels + 2 * net.num_terminals
    assert rep.cost_per_node > 0 and rep.power_per_node > 0


def test_fbfly_dimension1_in_a_cabinet_pair():
    """§4.2 / footnote 9: a 16-ary dimension-1 subsystem of 256 nodes is a cabinet pair, so dimension 1 runs on
    the backplane or to the neighbouring cabinet; dimension 2 crosses the floor."""
    rep = evaluate(build("fbfly", k=16, n=3))
    d1, d2 = rep.by_tag
    assert d1["global"] == 0 and d1["backplane"] + d1["neighbour"] == d1["channels"]
    assert d2["global"] == d2["channels"]


def test_floor_grid_centre_and_structure():
    node, rtr, cols, rows = floor_grid(8, CostParams(), central=1)
    assert (cols, rows) == (9, 1) and rtr[0][0] == pytest.approx(4.5 * CostParams().pitch[0])
    node, _, cols, rows = floor_grid(256, CostParams(), digits=[2] * 8)
    assert cols & (cols - 1) == 0 and cols * rows == 256      # whole hypercube dimensions per row


def test_families_without_packaging_refused():
    with pytest.raises(ParamError, match="no packaging"):
        evaluate(build("torus", dims=[4, 4]))
    with pytest.raises(ParamError):
        evaluate(build("fbfly", k=4, n=2, c=0))


# ---------------------------------------------------------------------------------------------- studies
def _well_formed(res, out):
    claims = json.loads((out / "claims.json").read_text())
    assert claims["claims"] == json.loads(json.dumps(res["claims"]))
    for c in claims["claims"]:
        assert set(c) >= {"claim", "computed", "holds"} and isinstance(c["holds"], bool) and c["claim"]
    return {c["claim"]: c for c in claims["claims"]}


def test_kim_cost_study_small(tmp_path):
    out = tmp_path / "kc"
    res = run_study("kim-cost", out, sizes=(256, 512, 1024, 2048, 4096), butterfly_sizes=(256, 1024, 2025, 4096))
    claims = _well_formed(res, out)
    for f in ("points.csv", "points.json", "fig13.csv", "fig10a.png", "fig10a.svg", "fig10b.png", "fig11.svg",
              "fig13.png"):
        assert (out / f).exists(), f
    link = [c for k, c in claims.items() if "2048 links" in k][0]
    assert link["holds"] and link["computed"] == 2048
    assert [c for k, c in claims.items() if "31 x 32" in k][0]["holds"]
    assert [c for k, c in claims.items() if k.startswith("Table 4 / §2.1")][0]["holds"]
    assert not [c for k, c in claims.items() if k.startswith("Table 4: the printed")][0]["holds"]  # the erratum
    rows = json.loads((out / "points.json").read_text())
    assert {r["topology"] for r in rows} >= {"fbfly", "clos", "hypercube", "butterfly", "clos-central"}


def test_kim_power_study_small(tmp_path):
    out = tmp_path / "kp"
    res = run_study("kim-power", out, sizes=(512, 1024, 4096, 8192), butterfly_sizes=(1024, 4096))
    claims = _well_formed(res, out)
    assert (out / "fig15.png").exists() and (out / "fig15.svg").exists()
    # Table 5's own ratios are inputs, listed apart from the claims
    assert not [k for k in claims if "20% less power" in k]
    assert list(res["table5_ratios"].values()) == [0.2, 5.0]
    one_k = [c for k, c in claims.items() if "N = 1K" in k][0]
    assert one_k["holds"] and one_k["computed"]["fbfly"] < one_k["computed"]["butterfly"]


def test_slimfly_cost_study(tmp_path):
    out = tmp_path / "sf"
    res = run_study("slimfly-cost", out)
    claims = _well_formed(res, out)
    assert (out / "slimfly-cost.png").exists() and (out / "points.csv").exists()
    dfk = [c for k, c in claims.items() if "dragonfly = dragonfly {'p': 7}" in k][0]
    assert dfk["holds"] and dfk["computed"] == {"N": 9702, "routers": 1386, "radix": 27}
    assert [c for k, c in claims.items() if "9,009" in k][0]["holds"]
    assert [c for k, c in claims.items() if "50% fewer routers" in k][0]["holds"]
    fit = res["slides_power_per_port_fit"]
    assert 2.5 < fit["watts_per_port"] < 3.1


def test_cost_studies_registered_without_simulation():
    for name in ("kim-cost", "kim-power", "slimfly-cost"):
        assert name in STUDIES and STUDIES[name].points() == 0


# -------------------------------------------------------------------------------------------------- CLI
def test_cli_json(capsys):
    assert main(["cost", "fbfly", "--k", "32", "--n", "2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["channels"] == 992 and d["terminals"] == 1024
    assert d["cost_per_node"] == pytest.approx(evaluate(build("fbfly", k=32, n=2)).cost_per_node)
    assert {r["kind"] for r in d["links_by_class"]} == {"terminal", "network"}
    assert main(["cost", "hypercube", "--n", "10", "--bandwidth", "random-bisection", "--cost",
                 "router_pricing=chip", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["channel_pairs"] == pytest.approx(1.5, abs=0.01) and d["model"]["params"]["router_pricing"] == "chip"


def test_cli_text_and_list(capsys):
    assert main(["cost", "dragonfly", "--p", "2"]) == 0
    text = capsys.readouterr().out
    assert "cost per node" in text and "power per node" in text and "links (unidirectional channels)" in text
    assert main(["cost", "list"]) == 0
    text = capsys.readouterr().out
    assert all(f in text for f in PACKAGINGS) and "p_link_ll" in text


@pytest.mark.parametrize("argv", [
    ["cost", "torus", "--dims", "4,4"], ["cost", "nosuch"], ["cost", "fbfly", "--k", "1"],
    ["cost", "fbfly", "--cost", "nope=1"], ["cost", "fbfly", "--cost", "density"],
    ["cost", "fbfly", "--cost", "density=99"], ["cost", "clos", "--bandwidth", "random-bisection"],
    ["cost", "fbfly", "--bandwidth", "wide"], ["cost", "fbfly", "--c", "0"], ["cost", "slimfly", "--q", "6"],
    ["cost", "hypercube", "--n", "18", "--max-memory", "100M"], ["cost", "fbfly", "--max-memory", "x"],
])
def test_cli_bad_input_one_line(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_refusal_names_packaged_families(capsys):
    assert main(["cost", "ttn"]) == 2
    err = capsys.readouterr().err
    assert "no packaging" in err and all(f in err for f in PACKAGINGS)
