"""Hardening (bad input: one line, exit 2): hypothesis draws command lines for every subcommand and family, good
values and bad, and files with garbage, and runs each in-process through ``radixnet.cli.main``.

Every run must end with exit status 0 or 2 (1 only where documented: a simulation the watchdog stopped, an output
out of room), never with an exception (a traceback), with exactly one line on stderr when it is 1 or 2, and within
:data:`TIME_LIMIT` seconds. Sizes stay small or absurd (refused before any work), and ``--max-memory`` is at
most 1 GiB, so the run is bounded on any machine. ``rtl`` and ``cost`` draw good small configurations too (a
4-ary 2-flat at most: seconds of RTL). ``cosim``, ``cosim-matrix`` and ``mutate`` draw only command lines with
a bad value or option in them (a good one builds Verilator or runs pytest for minutes): each must be refused,
exit status 2 and one line, and the function where its work would start raises if reached
(:data:`WORK_STARTS`).

The default run draws a few examples of ``topo``, ``study``, ``clex``, ``rtl``, ``cosim``, ``cosim-matrix``,
``cost`` and ``mutate`` (derandomized); the derandomized draws of ``sim`` and ``sweep`` (seconds of simulation
per example) and the random variants, which draw many more of every command, are ``@pytest.mark.slow``.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import shlex
import shutil
import signal
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from radixnet.cli import main
from radixnet.gen import build, family_names
from radixnet.gen.export import FORMATS as EXPORT_FORMATS, export
from radixnet.gen.router_model import ROUTER_MODELS
from radixnet.gen.routing import ROUTINGS
from radixnet.golden.traffic import PATTERNS
from radixnet.studies.registry import STUDIES

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
    if rc == 1:  # documented: the watchdog stopped a simulation (a deadlock or livelock), or an output ran out of
        # room (full disk, quota, file size: gen.params.OUT_OF_ROOM), named in one line
        assert "watchdog" in err or "not delivered" in err or "cannot write" in err, f"{line}: exit 1\n{err}"
        assert err.endswith("\n") and err.count("\n") == 1, f"{line}: not one line\n{err}"
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
    for name, text in {**MATRICES, **CATALOGUES}.items():
        (WORK / name).write_text(text, encoding="utf-8")
    (WORK / NL_FILE).write_bytes(b"")  # names with a newline: every message must still be one line
    (WORK / NL_DIR).mkdir(exist_ok=True)


#: A file and a directory whose names hold a newline (a message naming one must stay one line).
NL_FILE, NL_DIR = "nl\nfile", "nl\ndir"
#: Output directories every command that writes one must refuse: empty, a file, unwritable, under a non-directory.
BAD_OUT = ["", "ring.el", "/proc/x", "/dev/null/x", NL_FILE]
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
def family_args(draw, family: str, clean: bool, families: dict | None = None) -> list[str]:
    """``--PARAM V`` of ``family``: its small base configuration (in ``families``, default :data:`FAMILIES`)
    with up to three parameters redrawn."""
    if family == "file":
        path = draw(st.sampled_from(GOOD_FILES)) if clean else draw(graph_file())
        args = ["--path", path] if draw(st.integers(0, 9)) != 9 or clean else []
        if draw(st.booleans()):
            args += ["--c", draw(_v([0, 1, 2], None, clean))]
        if draw(st.integers(0, 3)) == 0 and not clean:
            args += ["--format", draw(st.sampled_from(["auto", "edgelist", "graphml", "json", "booksim-anynet",
                                                       "csv", ""]))]
        return args
    base, values = (families or FAMILIES)[family]
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
        # subswitch runs table routings at speedup 1 only (router-spec §R12): drawn with the values that may be
        # refused
        anywhere = [m for m, x in ROUTER_MODELS.items() if x.allocation != "subswitch"]
        argv += ["--router-model", draw(_v(anywhere, ["nope", "subswitch"], clean))]
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


# ------------------------------------------------------------------ rtl, cosim, cosim-matrix, cost, mutate
def _spell(draw, tokens: list[str]) -> list[str]:
    """``--opt V`` as given, or now and then as ``--opt=V`` (one word)."""
    if len(tokens) == 2 and tokens[0].startswith("--") and draw(st.integers(0, 3)) == 0:
        return [f"{tokens[0]}={tokens[1]}"]
    return list(tokens)


@st.composite
def _with_bad(draw, items: list[list[str]], bad: list[list[str]]) -> list[str]:
    """``items`` (``[--opt, V]`` or ``[--flag]``) in any order with one of ``bad`` among them: an item of an
    option the bad one names is dropped, so that the bad value is the one argparse keeps."""
    wrong = draw(st.sampled_from(bad))
    named = {t.split("=", 1)[0] for t in wrong if t.startswith("--")}
    kept = [i for i in items if i[0] not in named]
    kept = list(draw(st.permutations(kept)))
    kept.insert(draw(st.integers(0, len(kept))), wrong)
    return [t for i in kept for t in _spell(draw, i)]


#: Topologies ``radixnet rtl`` writes in seconds (a 4-ary 2-flat at most; ``heavy``: a routing decided in logic
#: or ``--scheme flat``, a core per router, on the smaller ones).
RTL_FAMILIES = {"fbfly": ({"k": "2", "n": "2"}, {"k": [2, 3, 4], "n": [1, 2], "c": [1, 2]}),
                "hypercube": ({"n": "2"}, {"n": [1, 2, 3]}),
                "hyperx": ({"dims": "2,2"}, {"dims": ["3", "2,3"]}),
                "mesh": ({"dims": "2,2"}, {"dims": ["3", "2,3"]}),
                "torus": ({"dims": "3"}, {"dims": ["3", "2,3"]})}
RTL_HEAVY = {"fbfly": ({"k": "2", "n": "2"}, {"k": [2, 3], "n": [1, 2]}),
             "hypercube": ({"n": "2"}, {"n": [1, 2]}),
             "hyperx": ({"dims": "2,2"}, {"dims": ["3", "2,2"]})}
RTL_TABLE = ["sp", "dor", "hdor", "dest-tag", "min"]
RTL_DECIDED = ["min-ad", "val", "ugal", "ugal-s", "clos-ad", "2dfb-adaptive"]
RTL_OPTIONS = {"--vcs": [1, 2], "--depth": [1, 2, 4], "--data-width": [32, 64], "--vc-classes": [1, 2],
               "--threshold": [0, 4], "--router-model": ["single-cycle", "iq", "hiradix"], "--speedup": [1, 2],
               "--egress-depth": [0, 1, 2], "--seq-impl": ["prefix", "ripple"], "--seq-wavefront": [0, 1, 2],
               "--port-encoding": ["onehot", "binary"]}
RTL_BAD = {"--router-model": ["nope", ""], "--speedup": ["3", "0", "x", ""], "--seq-impl": ["nope"],
           "--port-encoding": ["nope", ""], "--data-width": ["0", "4097", "x", "-8"],
           "--vcs": ["0", "257", "x", "-1"], "--depth": ["0", "4097", "x"], "--vc-classes": ["0", "257", "x"],
           "--threshold": ["-1", "1000001", "x"], "--egress-depth": ["-1", "65537", "x"],
           "--seq-wavefront": ["-1", "4097", "x"]}


@st.composite
def rtl_argv(draw) -> list[str]:
    clean = _clean(draw)
    heavy = draw(st.integers(0, 3)) == 0
    families = RTL_HEAVY if heavy else RTL_FAMILIES
    family = draw(_v([*families, "file"], ["nosuch", "", "-h"], clean))
    head = draw(st.sampled_from([[family], [family], ["--topo", family], [f"--topo={family}"]]))
    argv = ["rtl", *head]
    if family in families or family == "file":
        argv += draw(family_args(family, clean, families))
    if heavy:
        argv += ["--routing", draw(_v(RTL_DECIDED, ["nope", ""], clean))]
        argv += ["--scheme", draw(_v(["shared", "flat"], ["nope"], clean))]
    elif draw(st.booleans()):
        argv += ["--routing", draw(_v(RTL_TABLE, ["nope", ""], clean))]
    for opt in draw(st.lists(st.sampled_from(sorted(RTL_OPTIONS)), max_size=3, unique=True)):
        argv += [opt, draw(_v(RTL_OPTIONS[opt], RTL_BAD.get(opt), clean))]
    flags = ["--axis", "--quiet"] + ([] if clean else ["--bogus", "--lint-mode"])  # --lint-mode: no value
    argv += draw(st.lists(st.sampled_from(flags), max_size=2, unique=True))
    argv += ["--out", draw(_v([str(WORK / f"rtl{next(_names)}")], BAD_OUT, clean))]
    return argv + ["--max-memory", draw(_v(SIZES, BAD_SIZES, clean))]


#: Families ``radixnet cost`` packages (the others, and ``file``, are refused in one line).
COST_FAMILIES = ["2dfb", "butterfly", "clos", "dragonfly", "fbfly", "hypercube", "hyperx", "slimfly"]
COST_GOOD = [f"{k}={v}" for k, vs in {
    "router_chip": ["0", "90", "45.5"], "radix": ["32", "64", "128"], "nodes_per_cabinet": ["64", "128"],
    "optical_beyond": ["5", "100"], "clos_routers": ["pods", "central"], "router_pricing": ["kim", "chip", "pins"],
    "cable_overhead": ["0", "2"], "density": ["10", "75"], "repeater_length": ["6", "1"],
    "pairs_per_port": ["1", "3"], "row_spacing": ["1", "2"]}.items() for v in vs]
COST_BAD = ["nosuch=1", "router_chip", "router_chip=", "router_chip=x", "router_chip=-1", "router_chip=nan",
            "router_chip=inf", "radix=0", "radix=1.5", "radix=99999999999999999999", "nodes_per_cabinet=0",
            "density=0", "density=1e-300", "cabinet_width=-1", "cable_overhead=1e308", "clos_routers=x",
            "router_pricing=", "=", "=1", "optical_beyond=-5", "row_spacing=nan"]


@st.composite
def cost_argv(draw) -> list[str]:
    clean = _clean(draw)
    family = draw(_v([*COST_FAMILIES, "torus", "file"], ["nosuch", "list", "--help"], clean))
    if family in ("list", "--help"):
        return ["cost", family]
    argv = ["cost", *draw(st.sampled_from([[family], [family], ["--topo", family]]))]
    if family != "nosuch":
        argv += draw(family_args(family, clean))
    if draw(st.booleans()):
        argv += ["--bandwidth", draw(_v(["port", "random-bisection"], ["x", "", "Port"], clean))]
    for item in draw(st.lists(_v(COST_GOOD, COST_BAD, clean), max_size=3)):
        argv += draw(st.sampled_from([["--cost", item], [f"--cost={item}"]]))
    argv += draw(st.lists(st.sampled_from(["--json"] + ([] if clean else ["--bogus"])), max_size=1))
    return argv + ["--max-memory", draw(_v(SIZES, BAD_SIZES, clean))]


COSIM_GOOD = {"--routing": ["sp", "min", "dor", "ugal", "val", "min-ad"], "--traffic": list(PATTERNS),
              "--router-model": ["single-cycle", "iq", "hiradix"], "--vcs": [1, 2, 4], "--vc-depth": [1, 2, 3],
              "--packet-length": [1, 2, 3], "--speedup": [1, 2], "--seed": [0, 4], "--egress-depth": [0, 1, 2],
              "--sink-stall": ["0", "0.3"], "--load": ["0.5", "0.9", "1"], "--cycles": [50, 200], "--batch": [1, 3],
              "--data-width": [32, 64], "--terminals": ["axis", "flit"], "--sim": ["verilator", "icarus"],
              "--fault": ["out_arb_fixed", "seq_stale_state", "eject_hops"], "--router": [-1, 0, 1],
              "--measure": [100, 2000], "--ugal-threshold": [0, 4], "--vc-classes": [1, 2],
              "--max-memory": SIZES}
#: What ``radixnet cosim`` must refuse before any work (a good co-simulation builds Verilator for minutes): each
#: ``cosim_argv`` holds one of them.
COSIM_BAD = [
    *[["--load", v] for v in ["0", "-0.5", "1.5", "nan", "inf", "x", ""]],
    *[["--cycles", v] for v in ["0", "-1", "100000001", "x", "1.5", "", "99999999999999999999"]],
    *[["--batch", v] for v in ["0", "100001", "x"]], ["--load", "0.5", "--batch", "2"],
    *[["--data-width", v] for v in ["0", "4097", "x", "-32"]], ["--data-width", "16", "--terminals", "axis"],
    *[["--build-dir", v] for v in BAD_OUT],
    ["--link-latency", "2"], ["--link-latency", "0"], ["--speedup", "3"], ["--speedup", "0"],
    *[["--router", v] for v in ["99999", "-2", "x"]], ["--router", "0", "--batch", "1"],
    ["--router", "0", "--terminals", "flit"], ["--router", "0", "--egress-depth", "2"],
    ["--router", "0", "--packet-length", "2"], ["--terminals", "nope"], ["--terminals", ""], ["--sim", "nope"],
    ["--fault", "nope"], ["--fault", ""], ["--topo", "nosuch"], ["--topo", ""], ["--routing", "nope"],
    ["--routing", "ugal", "--terminals", "axis"], ["--traffic", "nope"], ["--router-model", "nope"],
    *[[o, v] for o in ["--vcs", "--vc-depth", "--packet-length"] for v in ["0", "x", "99999999999999999999"]],
    ["--seed", "-1"], ["--sink-stall", "1"], ["--sink-stall", "nan"], ["--sink-stall", "-0.5"],
    ["--egress-depth", "-1"], ["--egress-depth", "65537"], ["--measure", "0"], ["--max-memory", "x"],
    ["--max-memory", "0"], ["--bogus"], ["junk"], ["--k", "1"], ["--k", "x"], ["--hotspot-fraction", "2"],
    ["--vc-classes", "0"], ["--waves", "--waves=1"]]


@st.composite
def cosim_argv(draw) -> list[str]:
    """``radixnet cosim`` with a small topology, options good and bad, and one of :data:`COSIM_BAD` at least."""
    family = draw(st.sampled_from([*FAMILIES, "file"]))
    params = draw(family_args(family, draw(st.booleans())))
    items = [["--topo", family], *[params[i:i + 2] for i in range(0, len(params) - 1, 2)]]
    for opt in draw(st.lists(st.sampled_from(sorted(COSIM_GOOD)), max_size=4, unique=True)):
        items.append([opt, draw(st.sampled_from([str(v) for v in COSIM_GOOD[opt]]))])
    if draw(st.booleans()):
        items.append(["--build-dir", str(WORK / "cosim-build")])
    items += [[f] for f in draw(st.lists(st.sampled_from(["--waves", "--allow-idle", "--json", "--quiet"]),
                                         max_size=2, unique=True))]
    return ["cosim", *draw(_with_bad(items, COSIM_BAD))]


def _toml(value) -> str:
    """``value`` (from JSON types) as a TOML value (a dict as an inline table)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if value == value else "nan"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(_toml, value)) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml(v)}" for k, v in value.items()) + "}"


def _matrix_text(defaults: dict, configs: list[dict], fmt: str) -> str:
    if fmt == "json":
        return json.dumps({"defaults": defaults, "config": configs} if defaults else configs)
    lines = ["[defaults]", *[f"{json.dumps(k)} = {_toml(v)}" for k, v in defaults.items()], ""] if defaults else []
    for c in configs:
        lines += ["[[config]]", *[f"{json.dumps(k)} = {_toml(v)}" for k, v in c.items()], ""]
    return "\n".join(lines)


GOOD_MATRIX = [{"name": "a", "topo": "fbfly", "k": 2, "n": 2, "vcs": 2, "vc_depth": 3, "load": 0.9},
               {"name": "b", "k": 2, "n": 2, "router_model": "iq", "vc-depth": 3}]
#: Matrices for ``radixnet cosim-matrix``: the good ones, then one for each way a matrix is refused.
MATRICES = {
    "good.toml": _matrix_text({"cycles": 100}, GOOD_MATRIX, "toml"),
    "good.json": _matrix_text({}, GOOD_MATRIX, "json"),
    "topkey.toml": "x = 1\n[[config]]\nk = 2\n",
    "noconfig.toml": "[defaults]\ncycles = 100\n",
    "badkey.toml": "[[config]]\nnosuch = 1\n",
    "badvalue.toml": "[[config]]\nk = 1\n",
    "twonames.toml": '[[config]]\nname = "a"\n\n[[config]]\nname = "a"\nk = 3\n',
    "twice.toml": "[[config]]\nk = 2\n\n[[config]]\nk = 2\n",
    "namedefault.toml": '[defaults]\nname = "x"\n\n[[config]]\n',
    "flag.toml": '[[config]]\nallow_idle = "yes"\n',
    "json.toml": "[[config]]\njson = true\n",
    "spellings.toml": "[[config]]\nvc_depth = 2\nvc-depth = 3\n",
    "nan.toml": "[[config]]\nload = nan\n",
    "bigseed.toml": "[[config]]\nseed = 99999999999999999999999\n",
    "router.toml": "[[config]]\nrouter = 99\n",
    "clos.toml": '[[config]]\ntopo = "clos"\nk = 2\nn = 2\n',  # a family cosim took no parameters of (fixed)
    "nl\nscalar.json": "5",  # messages that quoted the name as it is, a newline in it (fixed)
    "nl\ntopkey.toml": "x = 1\n[[config]]\nk = 2\n",
    "deepvalue.json": '[{"k": ' + "[" * 40 + "]" * 40 + "}]",
    "scalar.json": "5",
    "defaults.json": '{"defaults": 5, "config": [{}]}',
    "entry.json": '{"config": [5]}',
    "name.json": json.dumps([{"name": "a\nb"}]),
    "many.json": json.dumps([{"seed": i} for i in range(1001)]),
}
BAD_MATRICES = [m for m in MATRICES if not m.startswith("good.")] + [
    "", "adir", "/nonexistent/x", "/dev/null", "empty.el", "ring.el", "png.el", "deep.json", "trunc.json",
    "list.json", "bad.json", "bad.graphml", "latin1.el", "utf16.el", NL_FILE, NL_DIR]
MATRIX_GOOD_KV = {"k": [2, 3], "n": [1, 2], "vcs": [1, 2], "vc_depth": [2, 3], "load": [0.5, 0.9],
                  "cycles": [100, 200], "seed": [0, 4], "router_model": ["iq", "single-cycle"],
                  "packet_length": [1, 2], "allow_idle": [True, False], "routing": ["sp", "min"]}
MATRIX_BAD_KV = [("k", 1), ("k", "x"), ("nosuch", 1), ("load", 1.5), ("load", "nan"), ("cycles", 0),
                 ("allow_idle", "yes"), ("allow_idle", 1), ("topo", "nosuch"), ("topo", 5), ("json", True),
                 ("quiet", True), ("help", True), ("name", ""), ("name", "a\nb"), ("name", 5), ("vcs", [1, 2]),
                 ("vcs", []), ("vcs", True), ("vc_depth", {"a": 1}), ("seed", -1), ("routing", "nope"),
                 ("sim", "nope"), ("build_dir", ""), ("build_dir", "ring.el"), ("router", 99), ("fault", "nope"),
                 ("link_latency", 2), ("vc-depth", 0), ("measure", 0), ("load", float("inf")), ("topo", "clos")]


@st.composite
def matrix_file(draw, bad: bool) -> str:
    """A ``--matrix`` path: bad (one of :data:`BAD_MATRICES`, or a drawn one with a bad setting in an entry), or
    any (a good one, or a drawn one that may be good or not)."""
    kind = draw(st.sampled_from(["fixed", "renamed", "drawn"] if bad else ["fixed", "drawn", "drawn"]))
    if kind == "fixed":
        return draw(st.sampled_from(BAD_MATRICES if bad else ["good.toml", "good.json"]))
    suffix = draw(st.sampled_from(["", " x", chr(10) + "x"]))
    if kind == "renamed":  # a bad matrix of MATRICES under another name
        fixed = draw(st.sampled_from([m for m in MATRICES if not m.startswith("good.")]))
        name = f"matrix{next(_names)}{suffix}{Path(fixed).suffix}"
        (WORK / name).write_text(MATRICES[fixed], encoding="utf-8")
        return name
    entry = st.dictionaries(st.sampled_from(sorted(MATRIX_GOOD_KV)), st.integers(0, 1), max_size=3).map(
        lambda d: {k: MATRIX_GOOD_KV[k][i] for k, i in d.items()})
    configs = draw(st.lists(entry, min_size=1, max_size=3))
    configs = [{"name": f"e{i}", **c} for i, c in enumerate(configs)]  # two alike would be refused as the same
    defaults = draw(st.dictionaries(st.sampled_from(["cycles", "seed", "vc_depth"]), st.sampled_from([2, 100]),
                                    max_size=1))
    if bad:
        key, value = draw(st.sampled_from(MATRIX_BAD_KV))
        configs[draw(st.integers(0, len(configs) - 1))][key] = value
    fmt = draw(st.sampled_from(["toml", "json"]))
    name = f"matrix{next(_names)}{suffix}.{fmt}"
    (WORK / name).write_text(_matrix_text(defaults, configs, fmt), encoding="utf-8")
    return str(WORK / name)


#: What ``radixnet cosim-matrix`` must refuse before any run besides a bad matrix; ``-`` drops a required option.
MATRIX_ARGS_BAD = [
    *[["--out", v] for v in BAD_OUT], ["-", "--out"], ["-", "--matrix"],
    *[["--jobs", v] for v in ["0", "x", "257", "", "-1", "1.5", "99999999999999999999"]],
    *[["--scheduler", v] for v in ["", "http://h:1", "host", "tcp://:1", "tcp://h:99999", "tcp://h:x", "tcp://u@h:1",
                                   "tcp://h:1/x", "[::1:80", "tcp://h:0"]],
    ["--bogus"], ["junk"], ["--quiet=1"]]


@st.composite
def cosim_matrix_argv(draw) -> list[str]:
    """``radixnet cosim-matrix`` with a bad matrix or a bad option (a good one runs co-simulations)."""
    bad_matrix = draw(st.booleans())
    items = [["--matrix", draw(matrix_file(bad_matrix))], ["--out", str(WORK / f"verdicts{next(_names)}")]]
    if draw(st.booleans()):
        items.append(["--jobs", draw(st.sampled_from(["1", "2", "256"]))])
    if draw(st.booleans()):
        items.append(["--scheduler", draw(st.sampled_from(["tcp://127.0.0.1:1", "127.0.0.1:8786", "tls://h:1"]))])
    if draw(st.booleans()):
        items.append(["--quiet"])
    if bad_matrix:
        argv = [t for i in draw(st.permutations(items)) for t in _spell(draw, i)]
    else:
        wrong = draw(st.sampled_from(MATRIX_ARGS_BAD))
        if wrong[0] == "-":
            items = [i for i in items if i[0] != wrong[1]]
            argv = [t for i in draw(st.permutations(items)) for t in _spell(draw, i)]
        else:
            argv = draw(_with_bad(items, [wrong]))
    return ["cosim-matrix", *argv]


CATALOGUES = {
    "cat-good.toml": '[[mutant]]\nid = "x"\nfile = "hdl/router.py"\nfind = "a"\nreplace = "b"\nclass = "c"\n'
                     'desc = "d"\n',
    "cat-none.toml": "x = 1\n",
    "cat-scalar.toml": "mutant = 5\n",
    "cat-list.toml": "mutant = [1, 2]\n",
    "cat-lacks.toml": '[[mutant]]\nid = "a"\n',
    "cat-dup.toml": ('[[mutant]]\nid = "a"\nfile = "f"\nfind = "x"\nreplace = "y"\nclass = "c"\ndesc = "d"\n' * 2),
    "cat-id.toml": '[[mutant]]\nid = "a b"\nfile = "f"\nfind = "x"\nreplace = "y"\nclass = "c"\ndesc = "d"\n',
    "cat-same.toml": '[[mutant]]\nid = "a"\nfile = "f"\nfind = "x"\nreplace = "x"\nclass = "c"\ndesc = "d"\n',
    "cat-empty.toml": '[[mutant]]\nid = "a"\nfile = "f"\nfind = ""\nreplace = "x"\nclass = "c"\ndesc = "d"\n',
    "cat-nonstr.toml": '[[mutant]]\nid = 5\nfile = "f"\nfind = "x"\nreplace = "y"\nclass = "c"\ndesc = "d"\n',
    "checks.txt": "tests/test_mutate.py\n",
}
#: What ``radixnet mutate`` must refuse before any file or check (a good run snapshots the tree and runs pytest).
MUTATE_BAD = [
    *[["--jobs", v] for v in ["0", "-1", "257", "x", "", "1.5", "99999999999999999999"]],
    *[["--timeout", v] for v in ["0", "-1", "nan", "inf", "-inf", "x", "", "1e9", "1e400"]],
    *[["--only", v] for v in ["", ",", " , ", "nosuch", "rr_ptr_stuck,nosuch", "a\nb"]],
    ["--cosim-only", "--checks", "tests/test_mutate.py"],
    *[["--checks", v] for v in ["", ";", " ; ;", "@", "@/nonexistent/x", "@adir", "@empty.el", "@comments.el",
                                "@png.el", "@/dev/null", "@latin1.el", "@utf16.el", "@" + NL_DIR]],
    *[["--catalogue", v] for v in ["", "adir", "/nonexistent/x", "/dev/null", "empty.el", "ring.el", "png.el",
                                   "deep.json", "long.el", *[c for c in CATALOGUES if c.startswith("cat-")
                                                             and c != "cat-good.toml"]]],
    *[["--repo", v] for v in ["/nonexistent", "", "adir", "ring.el", "/", NL_DIR]],
    *[[o, v] for o in ["--out", "--cache"] for v in BAD_OUT],
    ["--bogus"], ["junk"], ["--fresh=1"], ["--jobs"]]


@st.composite
def mutate_argv(draw) -> list[str]:
    """``radixnet mutate`` with good options and one of :data:`MUTATE_BAD` at least; ``--out`` and ``--cache``
    (good ones) are in the scratch directory."""
    from radixnet.cosim.mutate import CATALOGUE, load_catalogue, repo_root
    ids = [m.id for m in load_catalogue()]
    items = [["--out", str(WORK / f"mutate{next(_names)}")], ["--cache", str(WORK / "mutate-cache")]]
    good = {"--only": draw(st.lists(st.sampled_from(ids), min_size=1, max_size=3).map(",".join)),
            "--jobs": draw(st.sampled_from(["1", "2", "4"])),
            "--checks": draw(st.sampled_from(["tests/test_mutate.py", "a; b", "@checks.txt"])),
            "--catalogue": draw(st.sampled_from([str(CATALOGUE), "cat-good.toml"])),
            "--timeout": draw(st.sampled_from(["60", "0.5", "1800"])), "--repo": str(repo_root())}
    for opt in draw(st.lists(st.sampled_from(sorted(good)), max_size=3, unique=True)):
        items.append([opt, good[opt]])
    items += [[f] for f in draw(st.lists(st.sampled_from(["--fresh", "--keep-builds", "--no-seed", "--list",
                                                          "--cosim-only"]), max_size=2, unique=True))]
    return ["mutate", *draw(_with_bad(items, MUTATE_BAD))]


TOP = [[], ["--version"], ["-V"], ["--help"], ["nope"], ["topo"], ["sim", "--help"], ["sweep", "--help"],
       ["clex", "--help"], ["study"], ["topo", "fbfly", "--help"], ["sim", "--topo"], ["sim", "--topo", "nosuch"],
       ["sweep"], ["sim", "--load"], ["rtl"], ["rtl", "--help"], ["rtl", "fbfly", "--help"], ["cosim", "--help"],
       ["cosim-matrix", "--help"], ["cosim-matrix"], ["cost"], ["cost", "list"], ["cost", "fbfly", "--help"],
       ["mutate", "--help"]]


# ------------------------------------------------------------------ the tests
FAST = dict(deadline=None, database=None, derandomize=True, print_blob=True,
            suppress_health_check=list(HealthCheck))
SLOW = dict(FAST, derandomize=False)


class Reached(Exception):
    """Raised where a command line that must be refused would have started its work (:func:`_fuzz`)."""


#: Where the work of a command whose every drawn line must be refused starts (a co-simulation builds
#: Verilator for minutes; mutate snapshots the tree and runs pytest): reaching one fails the example at once.
WORK_STARTS = {"cosim": ("radixnet.cosim_cli.run_cosim",),
               "cosim-matrix": ("radixnet.cosim.matrix.MatrixRun", "radixnet.gen.cluster.connect"),
               "mutate": ("radixnet.cosim.mutate.snapshot", "radixnet.cosim.mutate.run_checks")}


def _fuzz(strategy, examples: int, slow: bool = False, refused: str | None = None, explicit=()):
    """A test of ``examples`` command lines of ``strategy`` (``slow``: random, marked ``slow``; else derandomized).
    ``refused``: the command (a key of :data:`WORK_STARTS`) whose every line must be refused, exit status 2 and
    one line, before its work starts. ``explicit``: command lines run every time (bugs found by the fuzz)."""
    def test(argv):
        if refused is None:
            check(argv)
            return
        with contextlib.ExitStack() as stack:
            for target in WORK_STARTS[refused]:
                stack.enter_context(mock.patch(target, side_effect=Reached(f"{target} reached")))
            rc, _, err = check(argv)
        assert rc == 2, f"radixnet {shlex.join(argv)}: exit {rc}, not refused\n{err}"

    for argv in explicit:
        test = example(argv=argv)(test)
    test = settings(max_examples=examples, **(SLOW if slow else FAST))(given(argv=strategy)(test))
    return pytest.mark.slow(test) if slow else test


test_fuzz_topo = _fuzz(topo_argv(), 600)
test_fuzz_sim = pytest.mark.slow(_fuzz(sim_argv(), 400))       # derandomized, 24 s
test_fuzz_sweep = pytest.mark.slow(_fuzz(sweep_argv(), 100))   # derandomized, 29 s
test_fuzz_study = _fuzz(study_argv(), 60)
test_fuzz_clex = _fuzz(clex_argv(), 150)
test_fuzz_rtl = _fuzz(rtl_argv(), 12)
#: Found by the fuzz: a traceback (cosim's parser for clos, whose --terminals clashed with cosim's own), fixed.
#: And two lines: a name with a newline quoted as it is (check_out_dir's messages; two of read_matrix's), fixed.
COSIM_FOUND = [["cosim", "--load=0", "--topo=clos", "--k=2", "--n=2"], ["cosim", "--topo", "clos", "--help"],
               ["cosim", "--build-dir=nl\nfile", "--topo=fbfly", "--k=4", "--n=2"]]
MATRIX_FOUND = [["cosim-matrix", "--matrix", "clos.toml", "--out", "verdicts"],
                ["cosim-matrix", "--matrix", "nl\nscalar.json", "--out", "verdicts"],
                ["cosim-matrix", "--matrix", "nl\ntopkey.toml", "--out", "verdicts"],
                ["cosim-matrix", "--matrix", "good.toml", "--out", NL_FILE]]
#: Found by the fuzz: --list printed the catalogue past a bad value (exit 0), and --cosim-only took the place of
#: an empty --checks (the run started); both refused now.
MUTATE_FOUND = [["mutate", "--jobs=0", "--out=mutate", "--fresh", "--list"], ["mutate", "--list", "--out", "/proc/x"],
                ["mutate", "--checks=", "--out=mutate", "--fresh", "--cosim-only"]]
test_fuzz_cosim = _fuzz(cosim_argv(), 200, refused="cosim", explicit=COSIM_FOUND)
test_fuzz_cosim_matrix = _fuzz(cosim_matrix_argv(), 200, refused="cosim-matrix", explicit=MATRIX_FOUND)
test_fuzz_cost = _fuzz(cost_argv(), 200)
test_fuzz_mutate = _fuzz(mutate_argv(), 150, refused="mutate", explicit=MUTATE_FOUND)
# The random variants (-m slow): 10,000 command lines over the ten commands, topo 3,500, sim 2,000, sweep 500,
# study 400, clex 900, rtl 300, cosim 1,200, cosim-matrix 600, cost 600, mutate 600 (rtl and sweep: seconds per
# line); besides them, -m slow runs the derandomized sim and sweep draws above.
test_fuzz_topo_slow = _fuzz(topo_argv(), 3500, slow=True)
test_fuzz_sim_slow = _fuzz(sim_argv(), 2000, slow=True)
test_fuzz_sweep_slow = _fuzz(sweep_argv(), 500, slow=True)
test_fuzz_study_slow = _fuzz(study_argv(), 400, slow=True)
test_fuzz_clex_slow = _fuzz(clex_argv(), 900, slow=True)
test_fuzz_rtl_slow = _fuzz(rtl_argv(), 300, slow=True)
test_fuzz_cosim_slow = _fuzz(cosim_argv(), 1200, slow=True, refused="cosim", explicit=COSIM_FOUND)
test_fuzz_cosim_matrix_slow = _fuzz(cosim_matrix_argv(), 600, slow=True, refused="cosim-matrix",
                                    explicit=MATRIX_FOUND)
test_fuzz_cost_slow = _fuzz(cost_argv(), 600, slow=True)
test_fuzz_mutate_slow = _fuzz(mutate_argv(), 600, slow=True, refused="mutate", explicit=MUTATE_FOUND)


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
