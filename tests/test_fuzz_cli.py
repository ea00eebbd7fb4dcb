"""Hardening (bad input: one line, exit 2): hypothesis draws command lines for every subcommand and family, good
values and bad, and files with garbage, and runs each in-process through ``radixnet.cli.main``.

Every run must end with exit status 0 or 2 (1 only where documented: a simulation the watchdog stopped), never
with an exception (a traceback), with exactly one line on stderr when it is 2, and within
:data:`TIME_LIMIT` seconds. Sizes stay small or absurd (refused before any work), and ``--max-memory`` is at
most 1 GiB, so the run is bounded on any machine. ``rtl`` and ``cosim`` are left out: they build RTL.

The default run draws a few examples of ``topo``, ``study`` and ``clex`` (derandomized, under a minute); the
derandomized draws of ``sim`` and ``sweep`` (seconds of simulation per example) and the random variants, which
draw many more of every command, are ``@pytest.mark.slow``.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import os
import shlex
import shutil
import signal
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from radixnet.cli import main
from radixnet.gen import build, family_names
from radixnet.gen.export import FORMATS as EXPORT_FORMATS, export
from radixnet.gen.router_model import ROUTER_MODELS
from radixnet.gen.routing import ROUTINGS
from radixnet.golden.studies import STUDIES
from radixnet.golden.traffic import PATTERNS

#: Seconds one command line may take.
TIME_LIMIT = 30

#: The scratch directory of this module's runs (made by the ``workdir`` fixture, removed after).
WORK = Path(tempfile.gettempdir())
_names = itertools.count()


class Overtime(BaseException):
    """Raised by the alarm; a BaseException so that no ``except Exception`` in the code under test hides it."""


def run_cli(argv: list[str], limit: int = TIME_LIMIT) -> tuple[int, str, str]:
    """``radixnet argv`` in this process: (exit status, stdout, stderr), within ``limit`` seconds (0: any)."""
    out, err = io.StringIO(), io.StringIO()

    def alarm(signum, frame):
        raise Overtime()

    here = os.getcwd()
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(limit)
    try:
        os.chdir(WORK)  # relative paths (and an --out of "") land in the scratch directory
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as e:  # argparse's --help
                rc = e.code if isinstance(e.code, int) else (0 if e.code is None else 2)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        os.chdir(here)
    return rc, out.getvalue(), err.getvalue()


def check(argv: list[str]) -> tuple[int, str, str]:
    """Run ``argv`` and assert the hardening contract (see the module docstring)."""
    line = "radixnet " + shlex.join(argv)
    try:
        rc, out, err = run_cli(argv)
    except Overtime:
        pytest.fail(f"{line}: still running after {TIME_LIMIT} s")
    except Exception as e:  # noqa: BLE001 - any exception escaping main() is a traceback for the user
        raise AssertionError(f"{line}: traceback, {type(e).__name__}: {e}") from e
    assert "Traceback" not in err, f"{line}\n{err}"
    if rc == 1:  # documented: the watchdog stopped a simulation (a deadlock or livelock), named in one line
        assert "watchdog" in err or "not delivered" in err, f"{line}: exit 1\n{err}"
        return rc, out, err
    assert rc in (0, 2), f"{line}: exit {rc}\n{err}"
    if rc == 2:
        assert err.endswith("\n") and err.count("\n") == 1, f"{line}: not one line\n{err}"
        assert "error" in err, f"{line}\n{err}"
    return rc, out, err


@pytest.fixture(scope="module", autouse=True)
def workdir():
    """Corpus files in a scratch directory, the working directory of every run (see :func:`run_cli`)."""
    global WORK
    WORK = Path(tempfile.mkdtemp(prefix="radixnet-fuzz-"))
    _write_corpus()
    # the first simulation loads the compiled kernel (or compiles it): not a fuzzed command's time
    assert run_cli(["sim", "--topo", "fbfly", "--k", "2", "--n", "2", "--load", "0.1", "--measure", "50"], 0)[0] == 0
    yield WORK
    shutil.rmtree(WORK, ignore_errors=True)


# ------------------------------------------------------------------ files: good, garbage and odd
def _write_corpus() -> None:
    torus = build("torus", dims=[3, 3])
    fly = build("butterfly", k=2, n=2)  # unidirectional: graphml and json only
    for fmt in EXPORT_FORMATS:
        export(torus, fmt, str(WORK / f"torus.{fmt}"))
    for fmt in ("graphml", "json"):
        export(fly, fmt, str(WORK / f"fly.{fmt}"))
    files = {
        "ring.el": b"0 1\n1 2\n2 3\n3 0\n",
        "named.el": b"# labels\na b\nb c\nc a w=1\n",
        "utf16.el": "0 1\n1 2\n2 0\n".encode("utf-16"),
        "utf16be.el": b"\xfe\xff" + "0 1\n1 2\n".encode("utf-16-be"),
        "utf16nobom.el": "0 1\n1 2\n".encode("utf-16-le"),
        "utf8bom.el": b"\xef\xbb\xbf0 1\n1 2\n",
        "latin1.el": "é 1\n1 ü\n".encode("latin-1"),
        "png.el": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        "empty.el": b"",
        "comments.el": b"# nothing\n\n   \n",
        "one.el": b"0\n",
        "loop.el": b"0 0\n",
        "disconnected.el": b"0 1\n2 3\n",
        "bigint.el": b"99999999999999999999 1\n1 -5\n",
        "long.el": b"a" * 100_000 + b" b\nb c\n",
        "star.el": b"".join(b"0 %d\n" % i for i in range(1, 300)),
        "bad.graphml": b"<graphml><oops>",
        "notgraphml.xml": b"<?xml version='1.0'?><html><body/></html>",
        "bad.json": b"{\"format\": \"radixnet.network/1\", \"radix\": [1, 2]}",
        "list.json": b"[1, 2, 3]",
        "trunc.json": b"{\"format\": \"radixnet.netw",
        "deep.json": b"[" * 100_000,
        "anynet.txt": b"router 0 node 0 router 1\nrouter 1 node 1 router 2\nrouter 2 node 2\n",
        "badanynet.txt": b"router 0 node 0 router 1\nrouter x y z\n",
    }
    for name, data in files.items():
        (WORK / name).write_bytes(data)
    (WORK / "adir").mkdir(exist_ok=True)


GOOD_FILES = ["ring.el", "named.el", "utf16.el", "utf16be.el", "utf16nobom.el", "utf8bom.el", "star.el",
              "anynet.txt", "torus.graphml", "torus.json", "torus.edgelist", "torus.booksim-anynet", "fly.graphml",
              "fly.json"]
CORPUS = ["ring.el", "named.el", "utf16.el", "utf16be.el", "utf16nobom.el", "utf8bom.el", "latin1.el", "png.el",
          "empty.el", "comments.el", "one.el", "loop.el", "disconnected.el", "bigint.el", "long.el", "star.el",
          "bad.graphml", "notgraphml.xml", "bad.json", "list.json", "trunc.json", "deep.json", "anynet.txt",
          "badanynet.txt", "adir", "/dev/null", "/nonexistent/x", "", "/proc/self/status",
          *[f"torus.{f}" for f in EXPORT_FORMATS], "fly.graphml", "fly.json"]


@st.composite
def graph_file(draw) -> str:
    """A path: one of the corpus, or a new file of random bytes, or of random text lines."""
    kind = draw(st.sampled_from(["corpus", "corpus", "bytes", "text"]))
    if kind == "corpus":
        return draw(st.sampled_from(CORPUS))
    path = WORK / f"drawn{next(_names)}{draw(st.sampled_from(['.el', '.graphml', '.json', '.txt', '']))}"
    if kind == "bytes":
        path.write_bytes(draw(st.binary(max_size=300)))
    else:
        tokens = st.one_of(st.integers(-3, 12).map(str), st.sampled_from(["router", "node", "#", "a", "{", "<x>"]),
                           st.text(max_size=4))
        lines = draw(st.lists(st.lists(tokens, max_size=4).map(" ".join), max_size=12))
        path.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
    return str(path)


# ------------------------------------------------------------------ values
BAD_INT = ["-1", "0", "x", "", "1.5", "nan", "1e9", "99999999999999999999", "0x", "--", " 3", "2,3"]
ABSURD = ["1000000", "1000000000", "1099511627776", "123456789012345678901234567890"]
BAD_LIST = ["", "x", "1,,", "0,4", "-2,3", "1000000,1000000", ",".join(["2"] * 30), "4x4", "3.5"]
SIZES = ["1G", "256M", "64M"]
BAD_SIZES = ["0", "-1", "x", "1e30T", "100000T", "", "nanG", "512K"]


def _v(good, bad=None, clean: bool = True):
    """Values: ``good`` only when ``clean``, else ``good`` four times in five and ``bad`` (default: bad
    and absurd integers) otherwise. ``good`` and ``bad`` are lists or strategies."""
    g = good if isinstance(good, st.SearchStrategy) else st.sampled_from([str(x) for x in good])
    if clean:
        return g
    bad = BAD_INT + ABSURD if bad is None else bad
    b = bad if isinstance(bad, st.SearchStrategy) else st.sampled_from([str(x) for x in bad])
    return st.one_of(g, g, g, g, b)


def _clean(draw) -> bool:
    """Whether this command line is drawn from good values only (about half of them)."""
    return draw(st.integers(0, 1)) == 0


#: Small configurations of every family (as a user would type them) and the values each parameter may take.
FAMILIES = {
    "fbfly": ({"k": "4", "n": "2"}, {"k": [2, 3, 4], "n": [1, 2, 3], "c": [0, 1, 2], "radix": [3, 8],
                                      "spare": ["none", "redundant"], "N": [16, 64]}),
    "hyperx": ({"dims": "3,4"}, {"dims": ["4", "2,3", "3,2,2"], "mult": ["1", "1,2", "2"], "c": [0, 1, 3]}),
    "2dfb": ({"k": "4"}, {"k": [2, 3, 4], "n": [1, 2], "c": [0, 1, 2]}),
    "hypercube": ({"n": "3"}, {"n": [1, 2, 4], "c": [0, 1, 2]}),
    "torus": ({"dims": "4,4"}, {"dims": ["3", "4,4", "2,3,2"], "c": [0, 1, 2]}),
    "mesh": ({"dims": "3,4"}, {"dims": ["3", "4,4", "2,3,2"], "c": [0, 1, 2]}),
    "slimfly": ({"q": "5"}, {"q": [3, 4, 5, 6, 7], "delta": [-1, 0, 1], "p": [0, 1, 3]}),
    "clex": ({}, {"k": [2, 3, 4], "levels": [1, 2], "n": [4, 9, 16], "c": [0, 1, 2], "loops": ["true", "false"]}),
    "ttn": ({"m": "1"}, {"m": [1], "L": [2, 3], "q": [0, 1], "c": [0, 1]}),
    "tesh": ({"m": "1"}, {"m": [1], "L": [2, 3], "q": [0, 1], "c": [0, 1]}),
    "butterfly": ({"k": "2"}, {"k": [2, 3], "n": [1, 2, 3]}),
    "clos": ({"k": "2", "n": "2"}, {"k": [2, 3], "n": [2, 3], "radix": [4, 6], "levels": [2, 3],
                                   "terminals": [4, 8, 16]}),
    "dragonfly": ({"p": "1"}, {"p": [1, 2], "a": [2, 3], "h": [1, 2], "g": [2, 3, 5]}),
}


def _value(name, good, clean):
    if name in ("dims", "mult"):
        return _v(good, BAD_LIST, clean)
    if name in ("spare", "loops"):
        return _v(good, ["x", ""], clean)
    return _v(good, None, clean)


@st.composite
def family_args(draw, family: str, clean: bool) -> list[str]:
    """``--PARAM V`` of ``family``: its small base configuration with up to three parameters redrawn."""
    if family == "file":
        path = draw(st.sampled_from(GOOD_FILES)) if clean else draw(graph_file())
        args = ["--path", path] if draw(st.integers(0, 9)) != 9 or clean else []
        if draw(st.booleans()):
            args += ["--c", draw(_v([0, 1, 2], None, clean))]
        if draw(st.integers(0, 3)) == 0 and not clean:
            args += ["--format", draw(st.sampled_from(["auto", "edgelist", "graphml", "json", "booksim-anynet",
                                                       "csv", ""]))]
        return args
    base, values = FAMILIES[family]
    params = dict(base)
    for name in draw(st.lists(st.sampled_from(sorted(values)), max_size=3, unique=True)):
        params[name] = draw(_value(name, values[name], clean))
    return [x for k, v in params.items() for x in ("--" + k, v)]


# ------------------------------------------------------------------ command lines
@st.composite
def topo_argv(draw) -> list[str]:
    clean = _clean(draw)
    family = draw(_v([*family_names(), "file"], ["nosuch", "list", "--help"], clean))
    if family in ("nosuch", "list", "--help"):
        return ["topo", family]
    argv = ["topo", family, *draw(family_args(family, clean))]
    flags = ["--metrics", "--json", "--sample", "--seed", "--export"] + ([] if clean else ["--colour"])
    for flag in draw(st.lists(st.sampled_from(flags), max_size=3, unique=True)):
        if flag == "--sample":
            argv += [flag, draw(_v([1, 3, 100], None, clean))]
        elif flag == "--seed":
            argv += [flag, draw(_v([0, 7], None, clean))]
        elif flag == "--export":
            fmt = draw(_v(list(EXPORT_FORMATS), ["svg", ""], clean))
            target = draw(_v([f"out{next(_names)}.x"], ["", "adir", "/proc/x/y", "/dev/full"], clean))
            argv += [flag, fmt, target]
        else:
            argv.append(flag)
    return argv + ["--max-memory", draw(_v(SIZES, BAD_SIZES, clean))]


SIM_OPTIONS = {"--vcs": [1, 2, 4, 8], "--vc-depth": [1, 2, 4, 16], "--packet-length": [1, 2, 4], "--speedup": [1, 2],
               "--link-latency": [1, 2, 5], "--ugal-threshold": [0, 4], "--vc-classes": [1, 2, 3], "--threshold": [0, 4],
               "--seed": [0, 1, 12345], "--hotspots": [1, 2], "--hotspot-fraction": ["0.1", "0.5"],
               "--shift": [1, 3], "--offset": [1, 2]}
SIM_BAD = {"--hotspot-fraction": ["2", "-1", "nan", "x"]}


@st.composite
def sim_args(draw, clean: bool, multi_routing: bool = False) -> list[str]:
    """The arguments ``sim`` and ``sweep`` share: a small topology, a routing, traffic and router options."""
    family = draw(_v([*FAMILIES, "file"], ["nosuch"], clean))
    argv = ["--topo", family]
    if family != "nosuch":
        argv += draw(family_args(family, clean))
    routing = _v(list(ROUTINGS), ["nope", ""], clean)
    if draw(st.integers(0, 3)) != 3:
        names = draw(st.lists(routing, min_size=1, max_size=3 if multi_routing else 1))
        argv += ["--routing", ",".join(names)]
    if draw(st.booleans()):
        argv += ["--traffic", draw(_v(list(PATTERNS), ["nope"], clean))]
    if draw(st.integers(0, 3)) == 0:
        argv += ["--router-model", draw(_v(list(ROUTER_MODELS), ["nope"], clean))]
    for opt in draw(st.lists(st.sampled_from(sorted(SIM_OPTIONS)), max_size=3, unique=True)):
        argv += [opt, draw(_v(SIM_OPTIONS[opt], SIM_BAD.get(opt), clean))]
    argv += ["--measure", draw(_v([50, 200], None, clean))]
    return argv + ["--max-memory", draw(_v(SIZES, BAD_SIZES, clean))]


@st.composite
def sim_argv(draw) -> list[str]:
    clean = _clean(draw)
    argv = ["sim", *draw(sim_args(clean))]
    mode = draw(_v(["load", "load", "batch"], ["both", "neither"], clean))
    if mode in ("load", "both"):
        argv += ["--load", draw(_v(["0.3", "0.05", "0.7", "1"], ["0", "-0.5", "1.5", "nan", "inf", "x", "1e-300"],
                                   clean))]
    if mode in ("batch", "both"):
        argv += ["--batch", draw(_v([1, 2, 5], None, clean))]
    if draw(st.integers(0, 4)) == 0:  # a trace at a low load (saturated, every packet is a line: 300 MB)
        argv += ["--trace", draw(_v([f"trace{next(_names)}.jsonl"], ["", "adir", "/proc/x/y"], clean))]
        if "--load" in argv:
            argv[argv.index("--load") + 1] = "0.05"
    if draw(st.booleans()):
        argv.append("--json")
    return argv


@st.composite
def sweep_argv(draw) -> list[str]:
    clean = _clean(draw)
    argv = ["sweep", *draw(sim_args(clean, multi_routing=True))]
    argv += ["--loads", draw(_v(["0.1,0.3", "0.2", "0.1:0.3:0.1"],
                                ["0", "x", "", "0.1:0.2:1e-6", "1:0:0.1", ":", "0.5,nan", "0.1:0.2:0"], clean))]
    if draw(st.integers(0, 9)) != 9 or clean:
        argv += ["--out", draw(_v([f"sweep{next(_names)}"], ["", "adir", "ring.el", "/proc/x"], clean))]
    argv += ["--jobs", draw(_v(["1"], ["0", "x", "257", "100000"], clean))]
    argv += draw(st.lists(st.sampled_from(["--no-plot", "--no-plot", "--quiet"] + ([] if clean else ["--bogus"])),
                          max_size=2, unique=True))
    return argv


#: One of these makes a ``study`` command line bad before any work (a study's real run takes minutes).
STUDY_BAD = [["--router-model", "nope"], ["--k", "1"], ["--k", "x"], ["--n", "0"], ["--n", "x"], ["--jobs", "x"],
             ["--out", ""], ["--out", "/proc/x"], ["--out", "ring.el"], ["--bogus"], ["--k", "99999999999999999999"]]


@st.composite
def study_argv(draw) -> list[str]:
    name = draw(st.sampled_from([*STUDIES, "nope", "list", "--help", "-h"]))
    if name in ("list", "--help", "-h"):
        return ["study", name]
    opts = [["--out", f"study{next(_names)}"], ["--jobs", "1"], ["--router-model", "iq"], ["--n", "2"], ["--k", "4"]]
    chosen = draw(st.lists(st.sampled_from(opts), max_size=2, unique_by=lambda o: o[0]))
    if name in STUDIES:  # a good study name: one bad argument at least (not overridden), in any position
        bad = draw(st.sampled_from(STUDY_BAD))
        chosen = [o for o in chosen if o[0] != bad[0]]
        chosen.insert(draw(st.integers(0, len(chosen))), bad)
    return ["study", name, *[x for o in chosen for x in o]]


CLEX_GOOD = {"--k": [2, 3, 4, 8], "--levels": [1, 2, 3], "--messages": [1, 3, 5], "--seed": [0, 9],
             "--destinations": ["permutation", "uniform"], "--copies": ["1", "1.5"], "--threads": [1, 2]}
#: Values each clex option must refuse (valid values stay small: a large CLEX is a long run).
CLEX_BAD = {"--k": ["1", "4097", "x", ""], "--levels": ["0", "32", "x"], "--messages": ["0", "-1", "x"],
            "--seed": ["-1", "x"], "--destinations": ["x"], "--copies": ["nan", "5000", "0.5", "x"],
            "--threads": ["0", "x"]}


@st.composite
def clex_argv(draw) -> list[str]:
    clean = _clean(draw)
    argv = ["clex", "--k", "4", "--levels", "2", "--messages", "3"]
    for opt in draw(st.lists(st.sampled_from(sorted(CLEX_GOOD)), max_size=3, unique=True)):
        argv += [opt, draw(_v(CLEX_GOOD[opt], CLEX_BAD[opt], clean))]
    argv += draw(st.lists(st.sampled_from(["--light", "--torus", "--all-to-all", "--json"]
                                          + ([] if clean else ["--bogus"])), max_size=2, unique=True))
    return argv


TOP = [[], ["--version"], ["-V"], ["--help"], ["nope"], ["topo"], ["sim", "--help"], ["sweep", "--help"],
       ["clex", "--help"], ["study"], ["topo", "fbfly", "--help"], ["sim", "--topo"], ["sim", "--topo", "nosuch"],
       ["sweep"], ["sim", "--load"]]


# ------------------------------------------------------------------ the tests
FAST = dict(deadline=None, database=None, derandomize=True, print_blob=True,
            suppress_health_check=list(HealthCheck))
SLOW = dict(FAST, derandomize=False)


def _fuzz(strategy, examples: int, slow: bool = False):
    @settings(max_examples=examples, **(SLOW if slow else FAST))
    @given(argv=strategy)
    def test(argv):
        check(argv)
    return pytest.mark.slow(test) if slow else test


test_fuzz_topo = _fuzz(topo_argv(), 600)
test_fuzz_sim = pytest.mark.slow(_fuzz(sim_argv(), 400))       # derandomized, 24 s
test_fuzz_sweep = pytest.mark.slow(_fuzz(sweep_argv(), 100))   # derandomized, 29 s
test_fuzz_study = _fuzz(study_argv(), 60)
test_fuzz_clex = _fuzz(clex_argv(), 150)
test_fuzz_topo_slow = _fuzz(topo_argv(), 5000, slow=True)
test_fuzz_sim_slow = _fuzz(sim_argv(), 3000, slow=True)
test_fuzz_sweep_slow = _fuzz(sweep_argv(), 600, slow=True)
test_fuzz_study_slow = _fuzz(study_argv(), 400, slow=True)
test_fuzz_clex_slow = _fuzz(clex_argv(), 1000, slow=True)

@pytest.mark.parametrize("argv", TOP, ids=lambda a: " ".join(a) or "(none)")
def test_top_level(argv):
    rc, out, err = check(argv)
    if argv and argv[0] in ("--version", "-V"):
        assert rc == 0 and out.startswith("radixnet ")


@pytest.mark.parametrize("path", CORPUS)
@pytest.mark.parametrize("cmd", ["topo", "sim"])
def test_every_corpus_file(cmd, path):
    argv = (["topo", "file", "--path", path, "--metrics"] if cmd == "topo"
            else ["sim", "--topo", "file", "--path", path, "--load", "0.3", "--measure", "50"])
    check(argv + ["--max-memory", "1G"])
