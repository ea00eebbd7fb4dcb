"""The Makefile's front door: `make help` names every target, and the set-up and test targets are the two
commands the README and CI run."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_help_lists_every_target():
    targets = set(re.findall(r"^([a-z][a-z-]*):", (ROOT / "Makefile").read_text(), re.M))
    out = subprocess.run(["make", "-s", "-C", str(ROOT), "help"], capture_output=True, text=True, timeout=60).stdout
    listed = {line.split()[1] for line in out.splitlines() if line.startswith("make ")}
    assert targets and targets == listed, (sorted(targets - listed), sorted(listed - targets))


def test_ci_runs_the_readme_commands():
    readme = (ROOT / "README.md").read_text().split("\n")[:40]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.startswith(("#", "set ", "cd "))]
    assert ci == ["make setup", "make test"]
    assert any(line.startswith("make setup") for line in readme) and any(line.startswith("make test")
                                                                        for line in readme)


def test_the_venv_link_is_not_tracked():
    """`make setup` leaves `.venv` as a link into ~/.cache/radixnet/venvs named after the clone's path. Tracked, a
    second clone on the same machine would check out the first one's link, and its `make setup` would re-point the
    first clone's editable install at itself."""
    if not (ROOT / ".git").exists():
        return
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--", ".venv", "build"], capture_output=True,
                             text=True, timeout=60).stdout.split()
    assert tracked == []
