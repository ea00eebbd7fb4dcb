"""The router's parameters in one table (radixnet.gen.router_config): one default each, the same router from
`radixnet sim` and `radixnet rtl`, and a parameter added to the table reaching every tool."""

import inspect
import json
import subprocess
import sys
import textwrap

import pytest

from radixnet.cli import sim_config
from radixnet.cosim_cli import parse_cosim
from radixnet.gen import ParamError, build
from radixnet.gen.router_config import ROUTER_DEFAULTS, ROUTER_PARAMS, RouterConfig, router_config
from radixnet.golden.sim import SimConfig
from radixnet.hdl.rtlgen import main as rtlgen_main


def test_router_config_validates_each_value():
    cfg = router_config(vcs="4", router_model="hiradix")
    assert (cfg.vcs, cfg.router_model, cfg.speedup) == (4, "hiradix", ROUTER_DEFAULTS["speedup"])
    assert cfg.replace(speedup=2).speedup == 2 and cfg.speedup == ROUTER_DEFAULTS["speedup"]   # frozen
    with pytest.raises(ParamError, match="--router-model: must be one of"):
        router_config(router_model="wormhole")
    with pytest.raises(ParamError, match="--group: must be an integer in"):
        cfg.replace(group=0)
    with pytest.raises(ParamError, match="--depth: not a router parameter"):
        router_config(depth=4)
    assert RouterConfig().as_dict() == ROUTER_DEFAULTS


def test_each_default_comes_from_the_table():
    """The golden model's fields, the RTL's and the co-simulation's keyword defaults are the table's."""
    from radixnet.cosim.golden_trace import golden_config
    from radixnet.cosim.run import check_network, cosim_network
    from radixnet.hdl.network import NetworkTop
    from radixnet.hdl.router import Router
    from radixnet.hdl.rtlgen import generate
    from radixnet.hdl.switch import AxisSwitchTop

    fields = SimConfig.__dataclass_fields__
    assert all(fields[p.name].default == p.default for p in ROUTER_PARAMS)
    for fn in (Router.__init__, NetworkTop.__init__, AxisSwitchTop.__init__):
        sig = inspect.signature(fn).parameters
        for name, default in ROUTER_DEFAULTS.items():
            if name in sig and name not in ("vcs", "vc_depth"):   # required there
                assert sig[name].default == default, (fn.__qualname__, name)
    for fn in (cosim_network, check_network, golden_config, generate):   # a RouterConfig, single values by keyword
        sig = inspect.signature(fn).parameters
        assert sig["config"].default is None and inspect.Parameter.VAR_KEYWORD in {q.kind for q in sig.values()}
        assert not set(sig) & set(ROUTER_DEFAULTS), fn.__qualname__


def _default(parser, dest):
    return next(a.default for a in parser._actions if a.dest == dest)


def test_one_default_for_routing_traffic_and_width():
    """The routing, the traffic and the RTL's payload width have one default each, which every tool and entry
    point takes; the co-simulation's buffers are its one documented departure (DEFAULT_VC_DEPTH)."""
    from radixnet.cli import Parser, add_sim_args
    from radixnet.cosim import DEFAULT_CYCLES, DEFAULT_LOAD, DEFAULT_VC_DEPTH
    from radixnet.cosim.golden_trace import golden_config, golden_packets
    from radixnet.cosim.run import check_network, cosim_network
    from radixnet.cosim_cli import cosim_parser
    from radixnet.gen import get_family
    from radixnet.gen.router_config import DATA_WIDTH
    from radixnet.gen.routing import DEFAULT_ROUTING
    from radixnet.golden.traffic import DEFAULT_TRAFFIC
    from radixnet.hdl.rtlgen import arg_parser, generate
    from radixnet.sweep_cli import _parser as sweep_parser

    sim = Parser(prog="t")
    add_sim_args(sim, "fbfly")
    parsers = {"sim": sim, "sweep": sweep_parser("fbfly"), "cosim": cosim_parser("fbfly")}
    for name, p in parsers.items():
        assert (_default(p, "routing"), _default(p, "traffic")) == (DEFAULT_ROUTING, DEFAULT_TRAFFIC), name
    rtl = arg_parser("rtl", get_family("fbfly"))
    assert _default(rtl, "routing") == DEFAULT_ROUTING
    assert _default(rtl, "data_width") == _default(parsers["cosim"], "data_width") == DATA_WIDTH
    assert _default(parsers["cosim"], "vc_depth") == DEFAULT_VC_DEPTH
    assert _default(parsers["cosim"], "cycles") == DEFAULT_CYCLES
    for fn in (cosim_network, golden_packets):
        sig = inspect.signature(fn).parameters
        assert (sig["load"].default, sig["cycles"].default) == (DEFAULT_LOAD, DEFAULT_CYCLES), fn.__qualname__
    fields = SimConfig.__dataclass_fields__
    assert (fields["routing"].default, fields["traffic"].default) == (DEFAULT_ROUTING, DEFAULT_TRAFFIC)
    for fn in (cosim_network, check_network, golden_config, generate):
        sig = inspect.signature(fn).parameters
        assert sig["routing"].default == DEFAULT_ROUTING, fn.__qualname__
        assert sig.get("traffic", sig["routing"]).default in (DEFAULT_TRAFFIC, DEFAULT_ROUTING)
        assert sig.get("data_width", sig["routing"]).default in (DATA_WIDTH, DEFAULT_ROUTING)
    # the co-simulation's API and its command line run the same configuration when given nothing
    net = build("fbfly", k=2, n=2)
    _, cfg = parse_cosim(["--topo", "fbfly", "--k", "2", "--n", "2"])
    api = check_network(net)[0]
    assert (api.routing, api.traffic, api.router) == (cfg.routing, cfg.traffic, cfg.router)


@pytest.mark.parametrize("routing", ["sp", "ugal", "min-ad"])
def test_sim_and_rtl_describe_the_same_router(tmp_path, routing):
    """The same options give `radixnet sim` and `radixnet rtl` the same router: VCs, buffers, speedup, model."""
    from radixnet.cli import Parser, add_sim_args

    opts = ["--k", "3", "--n", "2", "--routing", routing]
    p = Parser(prog="t")
    add_sim_args(p, "fbfly")
    golden = sim_config(p.parse_args(["--topo", "fbfly", *opts])).router
    assert rtlgen_main(["fbfly", *opts, "--out", str(tmp_path)]) == 0
    rtl = json.loads((tmp_path / "manifest.json").read_text())["router"]
    assert rtl == golden.as_dict(), (rtl, golden)
    assert (rtl["speedup"], rtl["vc_depth"] * rtl["vcs"]) == (1, 32)


#: run in a fresh interpreter: the table gains a parameter before any other module reads it
ADDED = textwrap.dedent("""
    import contextlib, io, json, sys, tempfile
    import radixnet.gen.router_config as rc
    from radixnet.gen.params import Param
    rc.ROUTER_PARAMS = rc.ROUTER_PARAMS + (Param("probe", int, 3, "a parameter added by the test", minimum=0,
                                                 maximum=9),)
    rc.derive()
    from radixnet.cli import main
    from radixnet.cosim.run import check_network
    from radixnet.cosim_cli import parse_cosim
    from radixnet.gen import build
    from radixnet.golden.sim import SimConfig
    from radixnet.studies.sweep import fingerprint
    from radixnet.hdl.rtlgen import main as rtlgen_main

    def helps(argv):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf), contextlib.suppress(SystemExit):
            main(argv)
        return buf.getvalue()

    net = build("fbfly", k=2, n=2)
    out = {
        "sim_help": "--probe" in helps(["sim", "--topo", "fbfly", "--help"]),
        "cosim_help": "--probe" in helps(["cosim", "--topo", "fbfly", "--help"]),
        "rtl_help": "--probe" in helps(["rtl", "fbfly", "--help"]),
        "sim_default": SimConfig(net).probe,
        "sim_value": SimConfig(net, probe=7).validate().router.probe,
        "fingerprint": [fingerprint(SimConfig(net, probe=v).validate()).get("probe") for v in (3, 7)],
        "cosim": parse_cosim(["--topo", "fbfly", "--k", "2", "--n", "2", "--probe", "7"])[1].probe,
        # the co-simulation's entry point: a keyword, or the RouterConfig of the command line's configuration
        "cosim_api": [check_network(net, probe=7)[0].probe,
                      check_network(net, parse_cosim(["--topo", "fbfly", "--k", "2", "--n", "2", "--probe", "7"])[1]
                                    .router)[0].router.probe],
    }
    with tempfile.TemporaryDirectory() as d:
        assert rtlgen_main(["fbfly", "--k", "2", "--n", "2", "--probe", "7", "--out", d]) == 0
        out["rtl_manifest"] = json.load(open(d + "/manifest.json"))["router"]["probe"]
    with contextlib.redirect_stderr(io.StringIO()) as err:
        out["refused"] = [main(["sim", "--topo", "fbfly", "--k", "2", "--n", "2", "--load", "0.1", "--probe", "12"]),
                          err.getvalue().strip()]
    print(json.dumps(out))
""")


def test_a_parameter_added_to_the_table_reaches_every_tool():
    """One Param appended to ROUTER_PARAMS is an option of sim, cosim and rtl with its help, a field of the golden
    model's configuration with its default, recorded in the RTL manifest, part of the sweep's fingerprint when
    not at its default, and refused out of range in one line (exit 2)."""
    p = subprocess.run([sys.executable, "-c", ADDED], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["sim_help"] and got["cosim_help"] and got["rtl_help"]
    assert (got["sim_default"], got["sim_value"], got["cosim"], got["rtl_manifest"]) == (3, 7, 7, 7)
    assert got["cosim_api"] == [7, 7]
    assert got["fingerprint"] == [None, 7]
    rc, line = got["refused"]
    assert rc == 2 and "--probe" in line and "[0, 9]" in line and len(line.splitlines()) == 1, line


def test_cosim_takes_the_tables_speedup_default():
    args, cfg = parse_cosim(["--topo", "fbfly", "--k", "2", "--n", "2"])
    assert cfg.speedup == ROUTER_DEFAULTS["speedup"] == args.speedup


def test_fingerprint_tells_thresholds_and_classes_apart():
    """A sweep's stored points are not resumed under another T_h or VC-class count (both were left out once)."""
    from radixnet.studies.sweep import fingerprint

    dfb = build("2dfb", k=3, n=1)
    base = fingerprint(SimConfig(dfb, routing="2dfb-adaptive").validate())
    assert "threshold" not in base   # at its default: stores made before still resume
    assert fingerprint(SimConfig(dfb, routing="2dfb-adaptive", threshold=6).validate())["threshold"] == 6
    torus = build("torus", dims=[4, 4])
    assert fingerprint(SimConfig(torus, routing="sp", vc_classes=3).validate())["vc_classes"] == 3
