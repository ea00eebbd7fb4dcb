"""Topology families; importing this package registers them all."""

from importlib import import_module

_MODULES = ["hyperx", "fbfly", "dfb2", "hypercube", "torus", "slimfly", "clex", "ttn", "butterfly", "clos",
            "dragonfly", "graphfile"]

for _m in _MODULES:
    import_module(f"{__name__}.{_m}")
