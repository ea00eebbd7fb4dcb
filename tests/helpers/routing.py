"""Small instances of every family and helpers that drain a simulation, shared by
tests/test_routing_families.py and tests/test_router_model.py."""

import atexit
import shutil
import tempfile
from pathlib import Path

from radixnet.gen import build, family_names
from radixnet.gen.export import export
from radixnet.gen.routing import ROUTINGS, accepted_routings


def drain(sim, load, cycles, limit=400):
    """Inject for ``cycles`` cycles, then run without injection until every packet has left."""
    recs = []
    sim.on_ejected = recs.append
    sim.step(cycles, load)
    for _ in range(limit):
        if sim.collected == sim.next_seq:
            break
        sim.step(100)
    return recs


SMALL = {
    "fbfly": {"k": 3, "n": 3}, "hyperx": {"dims": [3, 2]}, "2dfb": {"k": 3, "n": 2}, "hypercube": {"n": 3},
    "torus": {"dims": [3, 4]}, "mesh": {"dims": [3, 3]}, "slimfly": {"q": 5}, "clex": {"k": 3, "levels": 2},
    "ttn": {"m": 1, "L": 2, "q": 0}, "tesh": {"m": 1, "L": 2, "q": 1}, "butterfly": {"k": 3, "n": 3},
    "clos": {"k": 3, "n": 3}, "dragonfly": {"p": 2},
}
_FILE_DIR = Path(tempfile.mkdtemp(prefix="radixnet-routing-families-"))
atexit.register(shutil.rmtree, _FILE_DIR, True)
_EDGES = _FILE_DIR / "ring.edges"
export(build("torus", dims=[5]), "edgelist", str(_EDGES))
SMALL["file"] = {"path": str(_EDGES)}


def family_net(family):
    return build(family, **SMALL[family])


def routing_pairs(accepted):
    out = []
    for fam in family_names():
        ok = set(accepted_routings(family_net(fam)))
        out += [(fam, r) for r in ROUTINGS if (r in ok) == accepted]
    return out
