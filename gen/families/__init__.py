"""Topology families; importing this package registers them all."""

from importlib import import_module

_MODULES = ["hyperx", "fbfly", "dfb2", "hypercube", "torus", "slimfly", "clex", "ttn", "butterfly", "clos",
            "dragonfly", "graphfile"]

for _m in _MODULES:
    try:
        import_module(f"{__name__}.{_m}")
    except ModuleNotFoundError as e:  # a family still being written; never hides a broken one
        if e.name != f"{__name__}.{_m}":
            raise
