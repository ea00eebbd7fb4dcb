"""Every docstring example in the package and every example in docs/*.md and README.md runs."""

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import radixnet

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(m.name for m in pkgutil.walk_packages(radixnet.__path__ + [], "radixnet.")
                 if m.name != "radixnet.__main__")
for sub in ("gen", "golden", "hdl", "studies"):
    pkg = importlib.import_module(f"radixnet.{sub}")
    MODULES += sorted(m.name for m in pkgutil.walk_packages(pkg.__path__, f"radixnet.{sub}."))
MODULES += ["radixnet.gen", "radixnet.golden", "radixnet.hdl", "radixnet.studies"]
DOCS = sorted(str(p.relative_to(ROOT)) for p in [ROOT / "README.md", *(ROOT / "docs").glob("**/*.md")]
              if p.exists())
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", sorted(set(MODULES)))
def test_module_doctests(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=FLAGS)
    assert result.failed == 0


@pytest.mark.parametrize("path", DOCS)
def test_doc_examples(path):
    result = doctest.testfile(str(ROOT / path), module_relative=False, optionflags=FLAGS)
    assert result.failed == 0
