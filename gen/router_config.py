"""The router's parameters, each once: its name, type, default, bounds and one line of doc.

:data:`ROUTER_PARAMS` is the one table of what a router is made of beside its topology and routing: the
golden model (:class:`radixnet.golden.sim.SimConfig`), the RTL generator (:func:`radixnet.hdl.rtlgen.generate`,
``radixnet rtl``), the co-simulation (``radixnet cosim``) and the sweep's point fingerprint all read their
defaults, bounds and help from it, so ``radixnet sim`` and ``radixnet rtl`` given the same options describe the
same router, and a parameter added here reaches every one of them (``tests/test_router_config.py``).
:class:`RouterConfig` is the frozen, validated record of one router's values.

The defaults, and why:

* ``speedup`` 1: the router the RTL builds and the timing report clocks (one crossbar port per input, router-spec
  §R1). Studies that reproduce Kim et al. (§3.2 asks for "sufficient switch speedup") set 2 themselves.
* ``vcs`` and ``vc_depth`` derived (``None``): per routing, two VCs per VC class for Kim's HyperX routings and one
  per class for route tables (:func:`radixnet.gen.routing.default_vcs`); 32 flits of buffering per port, Kim's
  setting (``32 // vcs`` per VC).
* ``router_model`` ``single-cycle``: the reference model every other is measured against (router-spec §R10).

Examples
--------
>>> RouterConfig().speedup
1
>>> router_config(speedup="2", router_model="hiradix").speedup
2
>>> router_config(speedup=0)
Traceback (most recent call last):
...
radixnet.gen.params.ParamError: --speedup: must be an integer in [1, 16] (got 0)
>>> ROUTER_LIMITS["vcs"]
(1, 256)
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .params import Param, ParamError, validate
from .router_model import ROUTER_MODELS

__all__ = ["DATA_WIDTH", "ROUTER_PARAMS", "ROUTER_DEFAULTS", "ROUTER_LIMITS", "RouterConfig", "router_config", "router_param",
           "default_help", "derive", "with_router_fields", "decision_threshold"]

#: Payload bits of the RTL's flits when none are given (``--data-width``; with ``--axis`` the AXI4-Stream ``tdata``
#: width): ``radixnet rtl``, ``radixnet cosim`` and the HDL units' constructors. Not a field of
#: :class:`RouterConfig`: the golden model carries no payload, so the width changes no cycle of a run.
DATA_WIDTH = 64

#: Every router parameter: name (the CLI's ``--name``), type, default (``None``: derived, as the help says),
#: one line of doc, bounds or choices. The RTL builds a subset of some ranges (``speedup`` 1 or 2, four of the
#: router models); it refuses the rest in one line.
ROUTER_PARAMS: tuple[Param, ...] = (
    Param("router_model", str, "single-cycle", "router pipeline (docs/router-spec.md §R10)",
          choices=tuple(ROUTER_MODELS)),
    Param("vcs", int, None, "VCs per port, a multiple of the routing's VC classes (default: the routing's, "
                            "radixnet.gen.routing.default_vcs: two per class for Kim's HyperX routings, dor and "
                            "dest-tag, one for the other route tables)", minimum=1, maximum=256),
    Param("vc_depth", int, None, "flits per VC buffer (default: 32 per port / vcs)", minimum=1, maximum=4096),
    Param("speedup", int, 1, "router speedup S: flits an input may send and an output accept per cycle (§R1, §R8b)",
          minimum=1, maximum=16),
    Param("vc_classes", int, None, "table routings (sp, dor, hdor, dest-tag, clos-adaptive, val/ugal on tables): "
                                   "VC classes (default: the routing's, deadlock-free; fewer are refused with a "
                                   "cycle named)", minimum=1, maximum=256),
    Param("ugal_threshold", int, 4, "UGAL/CLOS AD bias toward minimal, flit-hops (§R7)", minimum=0,
          maximum=1_000_000),
    Param("threshold", int, 4, "2dfb-adaptive only: T_h, queue length in flits (§R7b)", minimum=0,
          maximum=1_000_000),
    Param("egress_depth", int, 0, "each terminal's egress FIFO in flits, the ejection port's credits (§R3a); "
                                  "0: ideal sinks", minimum=0, maximum=65_536),
    Param("group", int, 4, "--router-model subswitch: ports per row and column group (§R12); hiradix-local, "
          "hiradix-staged, hiradix-decoupled: inputs per local output arbiter (§R11.6)", minimum=1,
          maximum=4096),
    Param("seq_wavefront", int, 0, "--router-model hiradix --routing ugal-s on a HyperX family: decide at the "
                                   "source in each injection port's decision line, g decisions per pipeline "
                                   "stage (§R11.2a); 0: in RI's cycle", minimum=0, maximum=4096),
    Param("buffer_fronts", int, 2, "the hiradix models' RTL: the oldest flits per VC held in registers before the "
                                   "buffer's RAM (§R11.1a); the same cycles, so the golden model ignores it",
          minimum=2, maximum=3),
    Param("buffer_ram", str, "lut", "the hiradix models' RTL: what holds the flits behind the front registers, a "
                                    "LUT-RAM or a block RAM read a cycle ahead (§R11.1a); the golden model ignores it",
          choices=("lut", "block")),
)


def router_param(name: str) -> Param:
    """The :class:`~radixnet.gen.params.Param` of router parameter ``name``.

    >>> router_param("speedup").default
    1
    """
    for p in ROUTER_PARAMS:
        if p.name == name:
            return p
    raise KeyError(name)


def default_help(p: Param) -> str:
    """``--help`` of a router parameter: its doc, its default and what it allows.

    >>> default_help(router_param("group"))
    '--router-model subswitch: ports per row and column group (§R12); hiradix-local, hiradix-staged, hiradix-decoupled: inputs per local output arbiter (§R11.6) [default 4; an integer in [1, 4096]]'
    """
    if p.default is None:
        return f"{p.help} [{p.allowed()}]"
    return f"{p.help} [default {p.default}; {p.allowed()}]"


def _as_dict(self) -> dict[str, Any]:
    """The values, by name, in :data:`ROUTER_PARAMS`' order."""
    return {p.name: getattr(self, p.name) for p in ROUTER_PARAMS}


def _replace(self, **values) -> "RouterConfig":
    """A copy with ``values`` changed, validated (:func:`router_config`)."""
    return router_config(**{**self.as_dict(), **values})


def derive() -> None:
    """(Re)build what is derived from :data:`ROUTER_PARAMS`: :data:`ROUTER_DEFAULTS`, :data:`ROUTER_LIMITS` and
    :class:`RouterConfig` (at import; a test that extends the table calls it before importing the rest)."""
    global ROUTER_DEFAULTS, ROUTER_LIMITS, RouterConfig
    #: name -> default (``None``: derived from the routing and the other values)
    ROUTER_DEFAULTS = {p.name: p.default for p in ROUTER_PARAMS}
    #: name -> inclusive (low, high) of the integer parameters
    ROUTER_LIMITS = {p.name: (int(p.minimum), int(p.maximum)) for p in ROUTER_PARAMS if p.type is int}
    # one router's parameters, frozen: one field per entry of the table, with its default
    RouterConfig = dataclasses.make_dataclass(
        "RouterConfig", [(p.name, Any, dataclasses.field(default=p.default)) for p in ROUTER_PARAMS], frozen=True,
        namespace={"as_dict": _as_dict, "replace": _replace, "__module__": __name__,
                   "__doc__": "One router's parameters (:data:`ROUTER_PARAMS`), frozen: build a checked one with "
                              ":func:`router_config`; ``as_dict()`` gives the values by name, "
                              "``replace(**values)`` a validated copy."})


ROUTER_DEFAULTS: dict[str, Any]
ROUTER_LIMITS: dict[str, tuple[int, int]]
RouterConfig: type
derive()


def with_router_fields(after: str):
    """Class decorator, applied before ``@dataclass``: a field per router parameter the class does not declare,
    with its default from :data:`ROUTER_PARAMS`, placed after the field ``after`` (the golden model's
    :class:`~radixnet.golden.sim.SimConfig`: a parameter added to the table is a field of it)."""
    def deco(cls):
        own = dict(cls.__dict__.get("__annotations__", {}))
        if after not in own:
            raise TypeError(f"with_router_fields: {cls.__name__} has no field {after!r}")
        ann = {}
        for name, kind in own.items():
            ann[name] = kind
            if name == after:
                for p in ROUTER_PARAMS:
                    if p.name not in own:
                        ann[p.name] = "Any"
                        setattr(cls, p.name, p.default)
        cls.__annotations__ = ann
        return cls
    return deco


def decision_threshold(cfg: Any, routing: str) -> int:
    """The one bias the RTL's decision units take, of a configuration with ``threshold`` and ``ugal_threshold``
    (a :class:`RouterConfig` or the golden model's ``SimConfig``): ``T_h`` for ``2dfb-adaptive``, UGAL's and
    CLOS AD's ``θ`` otherwise.

    >>> decision_threshold(RouterConfig(threshold=2, ugal_threshold=7), "ugal-s")
    7
    """
    return cfg.threshold if routing == "2dfb-adaptive" else cfg.ugal_threshold


def router_config(**values) -> "RouterConfig":
    """A validated :class:`RouterConfig`: each value converted and checked against its
    :class:`~radixnet.gen.params.Param` (``None``: the default).

    Raises
    ------
    ParamError
        An unknown name, or a value of the wrong type or out of range: one line naming the parameter.
    """
    unknown = sorted(set(values) - set(ROUTER_DEFAULTS))
    if unknown:
        raise ParamError(unknown[0], "not a router parameter (one of "
                                     + ", ".join("--" + n.replace("_", "-") for n in ROUTER_DEFAULTS) + ")")
    return RouterConfig(**validate(ROUTER_PARAMS, {k: v for k, v in values.items() if v is not None}))
