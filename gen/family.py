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
from .params import REQUIRED, Param, ParamError, validate
from .resources import check_memory, memory_budget, network_memory

__all__ = ["Family", "Knowledge", "Size", "register", "get_family", "family_names", "build", "estimate",
           "MAX_ROUTERS", "MAX_CHANNELS"]

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
    terminals : callable(params, routers) -> int, optional
        Terminals of the network, for the memory estimate; default ``c`` per router when the family
        has a ``c`` parameter, else one per router.
    tables : dict of str to callable(Network, classes=None) -> RouteTable
        The family's own deterministic route tables (router-spec §R7d), by routing name (``dor``, ``hdor``,
        ``dest-tag``): their compilers live with the family (:func:`radixnet.gen.routing.table_compiler`).
    packaging : radixnet.gen.cost.Packaging, optional
        How the family's routers go into cabinets for the cost model (Kim §4.2); None: ``radixnet cost``
        refuses the family (:data:`radixnet.gen.cost.NO_PACKAGING`).
    """

    name: str
    summary: str
    params: tuple[Param, ...]
    build: Callable[[dict[str, Any]], Network]
    size: Callable[[dict[str, Any]], tuple[int, int]]
    check: Callable[[dict[str, Any]], None] | None = None
    knowledge: Callable[[Network], Knowledge] | None = None
    reference: str = ""
    terminals: Callable[[dict[str, Any], int], int] | None = None
    tables: dict[str, Callable[..., Any]] = field(default_factory=dict)
    packaging: Any = None

    def count_terminals(self, params: dict[str, Any], routers: int) -> int:
        """Terminals of the network of ``params``, without building it.

        Parameters
        ----------
        params : dict
            Validated parameters.
        routers : int
            Its routers (from ``size``).

        Returns
        -------
        int
        """
        if self.terminals is not None:
            return int(self.terminals(params, routers))
        c = params.get("c")
        return int(routers) * (int(c) if isinstance(c, int) and not isinstance(c, bool) else 1)

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


@dataclass(frozen=True)
class Size:
    """The size of a network, known before it is built (:func:`estimate`).

    Attributes
    ----------
    params : dict
        The validated parameters.
    routers, channels, terminals : int
        The counts.
    """

    params: dict[str, Any]
    routers: int
    channels: int
    terminals: int

    def memory(self) -> dict[str, int]:
        """Bytes of building it: ``peak`` and ``kept`` (:func:`radixnet.gen.resources.network_memory`)."""
        return network_memory(self.routers, self.channels, self.terminals)

    def describe(self) -> str:
        """``"4 routers, 12 channels, 400,000,000 terminals"``."""
        return f"{self.routers:,} routers, {self.channels:,} channels, {self.terminals:,} terminals"


def estimate(name: str, *, allow_huge: bool = False, max_memory: int | None = None, **values: Any) -> Size:
    """Validate parameters and size the network without building it.

    Refuses counts above :data:`MAX_ROUTERS` / :data:`MAX_CHANNELS` (unless ``allow_huge``), naming the
    parameter that makes the network large, and a network whose construction needs more memory than
    ``max_memory`` (default :func:`radixnet.gen.resources.memory_limit`).

    Parameters
    ----------
    name : str
        The family.
    allow_huge : bool
        Skip the router and channel count limits (not the memory limit).
    max_memory : int, optional
        Bytes building may plan to use (``--max-memory``); a graph file is read under the same limit.
    **values
        The family's parameters (raw: strings from the CLI or Python values).

    Returns
    -------
    Size
        The validated parameters and the counts.

    Raises
    ------
    ParamError
        A bad parameter; a size past the limits (naming a parameter the family has); ``--max-memory``.

    Examples
    --------
    >>> s = estimate("fbfly", k=4, n=2)
    >>> s.routers, s.channels, s.terminals
    (4, 12, 16)
    >>> estimate("torus", dims=[4000, 4000])
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --dims: torus with --dims 4000,4000 has 16,000,000 routers and 64,000,000 channels; at most 4,000,000 routers and 64,000,000 channels are allowed
    """
    fam = get_family(name)
    with memory_budget(max_memory):  # a graph file is read under the same limit
        params = fam.validate(values)
        routers, channels = (int(x) for x in fam.size(params))
        if not allow_huge and (routers > MAX_ROUTERS or channels > MAX_CHANNELS):
            given = " ".join(f"--{k.replace('_', '-')} {_show(v)}" for k, v in values.items() if v is not None)
            raise ParamError(_largest_param(fam, values, routers + channels),
                             f"{name} with {given or 'the default parameters'} has {_count(routers)} routers and "
                             f"{_count(channels)} channels; at most {MAX_ROUTERS:,} routers and {MAX_CHANNELS:,} "
                             f"channels are allowed")
        size = Size(params, routers, channels, fam.count_terminals(params, routers))
        check_memory({"network": size.memory()["peak"]}, max_memory, what=f"building {name} ({size.describe()})",
                     hint="give smaller parameters")
    return size


def _show(v: Any) -> str:
    """A parameter value for a one-line message: a long list by its first entries and its length.

    >>> _show([2] * 50001)
    '2,2,2,2,2,2,2,2,... (50,001 entries)'
    """
    if isinstance(v, (list, tuple)):
        head = ",".join(map(str, v[:8]))
        return head if len(v) <= 8 else f"{head},... ({len(v):,} entries)"
    text = str(v)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text):,} characters)"


def _count(n: int) -> str:
    """A count for a message, ``1,234`` or, past 30 digits, its order of magnitude (Python refuses to print an
    integer of more than 4,300 digits).

    >>> _count(16_000_000), _count(2 ** 50001)
    ('16,000,000', 'about 10^15052')
    """
    return f"{n:,}" if n.bit_length() <= 100 else f"about 10^{int(n.bit_length() * 0.30102999566)}"


def _largest_param(fam: Family, values: dict[str, Any], total: int) -> str:
    """The given parameter whose default shrinks the network most (the one to name in a size error)."""
    best, name = total, None
    for p in fam.params:
        if values.get(p.name) is None or p.default is REQUIRED or p.type not in (int, list):
            continue
        try:
            rest = fam.validate({k: v for k, v in values.items() if k != p.name})
            smaller = sum(int(x) for x in fam.size(rest))
        except (ParamError, ValueError, TypeError, OverflowError):
            continue
        if smaller < best:
            best, name = smaller, p.name
    if name is None:  # nothing given shrinks it: the first integer parameter given, else the first
        given = [p.name for p in fam.params if values.get(p.name) is not None and p.type in (int, list)]
        name = given[0] if given else fam.params[0].name
    return name


def build(name: str, *, allow_huge: bool = False, max_memory: int | None = None, **values: Any) -> Network:
    """Validate parameters, refuse impossible sizes, and build a Network.

    Parameters
    ----------
    name : str
        The family.
    allow_huge : bool
        Skip the :data:`MAX_ROUTERS` / :data:`MAX_CHANNELS` limits (not the memory limit).
    max_memory : int, optional
        Bytes building may plan to use (:func:`estimate`); default half of this machine's RAM.
    **values
        The family's parameters.

    Examples
    --------
    >>> build("hypercube", n=3).num_channels
    24
    >>> build("fbfly", k=1)
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --k: must be an integer >= 2 (got 1)
    >>> build("fbfly", c=100_000_000, max_memory=8 << 30)
    Traceback (most recent call last):
    ...
    radixnet.gen.params.ParamError: --max-memory: building fbfly (4 routers, 12 channels, 400,000,000 terminals) needs about 29.8 GiB (network 29.8 GiB), more than the limit of 8 GiB (--max-memory); give smaller parameters or raise --max-memory
    """
    size = estimate(name, allow_huge=allow_huge, max_memory=max_memory, **values)
    with memory_budget(max_memory):
        return get_family(name).build(size.params)


def knowledge(net: Network) -> Knowledge:
    """The family's structural knowledge for ``net`` (empty if none)."""
    _load()
    fam = _REGISTRY.get(net.family)
    if fam is None or fam.knowledge is None:
        return Knowledge()
    return fam.knowledge(net)
