"""pytest plugin of the mutation runner (:mod:`radixnet.cosim.mutate`), loaded with ``-p radixnet.cosim.mutate_probe``.

It does three things in the pytest process that runs a mutant's checks, all driven by environment
variables the runner sets (without them it does nothing):

* ``RADIXNET_MUTATE_ROOT``: refuses to run (a usage error) unless ``radixnet`` and its subpackages
  are imported from that directory, the mutated copy, and not from the working tree;
* ``RADIXNET_MUTATE_CACHE``: every co-simulation build goes into this one cache directory, whatever
  build root the test asked for (``radixnet.cosim.run.build_design`` is wrapped), so that designs the
  mutant does not change are built once for the whole run (the cache is keyed by the Verilog's
  hash) and mutants never collide; ``RADIXNET_MUTATE_SEED`` (optional) names another cache
  (the repository's ``build/cosim``) whose finished builds of the same Verilog are linked instead of
  built again;
* ``RADIXNET_MUTATE_LOG``: appends one JSON line per design a test built or reused, ``{"test",
  "design", "build_s"}``, where ``design`` is the build directory's name (top, simulator and the
  Verilog's hash). Comparing these names with the unmutated run's tells whether a mutant changed the
  Verilog of any configuration the checks build;
* ``RADIXNET_MUTATE_MEMO`` with ``RADIXNET_MUTATE_MEMO_MODE``: ``write`` (the unmutated run) stores
  every co-simulation's verdict under a hash of everything that determines it -- the Verilog, the top,
  the testbench module, the simulator and the job (stimulus and expected trace); ``read`` (a mutant
  of ``hdl/`` only, whose testbenches and golden model are the unmutated ones) returns the stored
  verdict for the same hash instead of building and simulating the same design again. Verilator's
  simulation is deterministic, so the verdict is the one the run would produce.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path


def _check_imports(root: str) -> None:
    import importlib

    import pytest

    for name in ("radixnet", "radixnet.hdl", "radixnet.cosim", "radixnet.golden", "radixnet.gen"):
        mod = importlib.import_module(name)
        where = Path(os.path.abspath(mod.__file__))
        if Path(root) not in where.parents:
            raise pytest.UsageError(f"mutate_probe: {name} imported from {where}, not from the copy {root}")


def _wrap_build(cache: Path, seed: Path | None, log: Path) -> None:
    from radixnet.cosim import run

    original = run.build_design

    def build_design(verilog, top, sim, waves, root, verbose, progress=None):
        cache.mkdir(parents=True, exist_ok=True)
        key = run.build_key(verilog, sim, waves)[1]
        name = f"{top}-{sim}-{key}"
        link = cache / name
        if link.is_symlink() and not (link / "built.ok").exists():   # the seeded build went away: build here
            try:
                link.unlink()
            except FileNotFoundError:
                pass
        if seed is not None:
            if not (cache / name).exists() and (seed / name / "built.ok").exists():
                try:
                    (cache / name).symlink_to(seed / name, target_is_directory=True)
                except FileExistsError:
                    pass
        bdir, build_s = original(verilog, top, sim, waves, cache, verbose, progress)
        test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
        with open(log, "a") as f:
            f.write(json.dumps({"test": test, "design": Path(bdir).name, "build_s": round(build_s, 1)}) + "\n")
        return bdir, build_s

    run.build_design = build_design


def _memo_key(verilog: str, top: str, tb: str, spec: dict, sim: str, waves: bool) -> str:
    h = hashlib.sha1()
    for part in (top, tb, sim, str(waves), verilog, json.dumps(spec, sort_keys=True, default=str)):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def _wrap_replay(memo: Path, mode: str, log: Path) -> None:
    from radixnet.cosim import run

    original = run.replay

    def replay(verilog, top_name, tb, spec, *, sim="verilator", waves=False, build_root="build/cosim",
               verbose=False, progress=None):
        key = _memo_key(verilog, top_name, tb, spec, sim, waves)
        entry = memo / f"{key}.json"
        if mode == "read" and entry.exists():
            stored = json.loads(entry.read_text())
            test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0]
            with open(log, "a") as f:
                f.write(json.dumps({"test": test, "design": stored["design"], "build_s": 0.0, "memo": True}) + "\n")
            return dict(stored["verdict"], build_s=0.0, sim_s=0.0)
        verdict = original(verilog, top_name, tb, spec, sim=sim, waves=waves, build_root=build_root, verbose=verbose,
                           progress=progress)
        if mode == "write":
            memo.mkdir(parents=True, exist_ok=True)
            tmp = entry.with_suffix(".tmp")
            tmp.write_text(json.dumps({"design": Path(verdict["build_dir"]).name, "verdict": verdict}, default=str))
            tmp.replace(entry)
        return verdict

    run.replay = replay


def pytest_configure(config):
    root = os.environ.get("RADIXNET_MUTATE_ROOT")
    if root:
        _check_imports(root)
    cache = os.environ.get("RADIXNET_MUTATE_CACHE")
    log = os.environ.get("RADIXNET_MUTATE_LOG")
    if cache and log:
        seed = os.environ.get("RADIXNET_MUTATE_SEED")
        _wrap_build(Path(cache), Path(seed) if seed else None, Path(log))
        memo = os.environ.get("RADIXNET_MUTATE_MEMO")
        if memo:
            _wrap_replay(Path(memo), os.environ.get("RADIXNET_MUTATE_MEMO_MODE", "read"), Path(log))
