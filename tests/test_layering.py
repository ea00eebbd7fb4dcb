"""The packages depend downward only: gen <- golden and hdl <- cosim, the experiment harness (studies) and the
CLI on top. Importing every module of a package in a fresh interpreter loads nothing from a package above it."""

import subprocess
import sys

import pytest

#: package -> the packages it must not load
ABOVE = {
    "gen": ("golden", "hdl", "cosim", "studies"),
    "golden": ("hdl", "cosim", "studies"),
    "hdl": ("golden", "cosim", "studies"),
    "cosim": ("studies",),
}

CODE = """
import importlib, pkgutil, sys
import radixnet.{pkg} as pkg
for m in pkgutil.walk_packages(pkg.__path__, "radixnet.{pkg}."):
    importlib.import_module(m.name)
print(" ".join(sorted({{n.split(".")[1] for n in sys.modules if n.startswith("radixnet.") and n.count(".") >= 1}})))
"""


@pytest.mark.parametrize("pkg", sorted(ABOVE))
def test_package_loads_nothing_above_it(pkg):
    p = subprocess.run([sys.executable, "-c", CODE.format(pkg=pkg)], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    loaded = set(p.stdout.split())
    assert pkg in loaded
    assert not loaded & set(ABOVE[pkg]), f"radixnet.{pkg} loads {sorted(loaded & set(ABOVE[pkg]))}"
