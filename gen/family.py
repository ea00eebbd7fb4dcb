"""Topology families and their registry.

A :class:`Family` bundles a parameter schema (validated in one place, see
:mod:`radixnet.gen.params`), a size estimate used to refuse impossible or
absurdly large requests *before* any work, a builder returning a
:class:`~radixnet.gen.network.Network`, and optional structural knowledge the
metrics use (vertex classes of a symmetric graph, an exact bisection formula).

Families live one per module in :mod:`radixnet.gen.families` and register with
:func:`register`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .network import Network
from .params import Param, ParamError, validate

__all__ = ["Family", "Knowledge", "register", "get_family", "family_names", "build", "MAX_ROUTERS",
           "MAX_CHANNELS"]

#: Largest network built without ``allow_huge`` (refused before work starts).
MAX_ROUTERS = 4_000_000
MAX_CHANNELS = 64_000_000


@dataclass
class Knowledge:
    """What a family knows about its Network that generic metrics would compute slowly.

    Attributes
    ----------
    vertex_classes : list of (router, weight), optional
        Representatives of the automorphism orbits of routers (with orbit
        sizes); BFS from one router per class gives exact distance metrics.
    vertex_transitive : bool
        All routers alike (implies arc connectivity = degree, Mader 1971).
    bisection_width : int, optional
        Channels cut (one direction) by a minimum balanced bisection of the
        terminals, when a formula gives it.
    bisection_exact : bool
        Whether ``bisection_width`` is exact (True) or a bound.
    bisection_note : str
        Where the figure comes from.
    extra : dict
        Family-specific metrics added to the report (e.g. wiring complexity).
    """

    vertex_classes: list[tuple[int, int]] | None = None
    vertex_transitive: bool = False
    bisection_width: int | None = None
    bisection_exact: bool = False
    bisection_note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Family:
    """A topology family.

    Parameters
    ----------
    name : str
        CLI name (``radixnet topo NAME``).
    summary : str
        One line for ``radixnet topo list``.
    params : tuple of Param
        The parameter schema.
    build : callable(params) -> Network
        Builds from validated parameters.
    size : callable(params) -> (routers, channels)
        Cheap size estimate, checked against :data:`MAX_ROUTERS`/:data:`MAX_CHANNELS`.
    check : callable(params), optional
        Cross-parameter check raising :class:`ParamError`; may fill derived values.
    knowledge : callable(Network) -> Knowledge, optional
        Structural facts for metrics.
    reference : str
        Paper and section the construction follows.
    """

    name: str
    summary: str
    params: tuple[Param, ...]
    build: Callable[[dict[str, Any]], Network]
    size: Callable[[dict[str, Any]], tuple[int, int]]
    check: Callable[[dict[str, Any]], None] | None = None
    knowledge: Callable[[Network], Knowledge] | None = None
    reference: str = ""

    def validate(self, values: dict[str, Any]) -> dict[str, Any]:
        return validate(self.params, values, self.check)


_REGISTRY: dict[str, Family] = {}


def register(family: Family) -> Family:
    if family.name in _REGISTRY:
        raise ValueError(f"family {family.name} registered twice")
    _REGISTRY[family.name] = family
    return family


def _load() -> None:
    from . import families  # noqa: F401  (modules register on import)


def family_names() -> list[str]:
    _load()
    return sorted(_REGISTRY)


def get_family(name: str) -> Family:
    _load()
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ParamError("topo", f"unknown family {name!r} (one of {', '.join(sorted(_REGISTRY))})") from None


def build(name: str, *, allow_huge: bool = False, **values: Any) -> Network:
    """Validate parameters, refuse impossible sizes, and build a Network.

    Examples
    --------
    >>> build("hypercube", n=3).num_channels
    24
    >>> build("fbfly", k=1)
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --k: must be an integer >= 2 (got 1)
    """
    fam = get_family(name)
    params = fam.validate(values)
    routers, channels = fam.size(params)
    if not allow_huge and (routers > MAX_ROUTERS or channels > MAX_CHANNELS):
        raise ParamError("size", f"{name} with these parameters has {routers:,} routers and {channels:,} channels; "
                                 f"at most {MAX_ROUTERS:,} routers and {MAX_CHANNELS:,} channels are allowed")
    return fam.build(params)


def knowledge(net: Network) -> Knowledge:
    """The family's structural knowledge for ``net`` (empty if none)."""
    _load()
    fam = _REGISTRY.get(net.family)
    if fam is None or fam.knowledge is None:
        return Knowledge()
    return fam.knowledge(net)
