"""Formal checks of the RTL units (cosim/formal.py, docs/formal.md): every quick check passes under
yosys-smtbmc, deliberately broken units fail the same checks, covers are reached (and an unreachable
one fails), and the command line's exit statuses."""

import pytest
from amaranth import Const, Elaboratable, Module, Signal
from amaranth.hdl import Cover

from radixnet.cosim import formal
from radixnet.cosim.formal import CHECKS, Check, run_check
from radixnet.hdl import seq_alloc
from radixnet.hdl.arbiter import RoundRobinArbiter, ptr_width
from radixnet.hdl.credits import CreditCounter

_missing = formal.available()
if _missing:
    pytest.skip(f"{_missing} not found: make setup installs it", allow_module_level=True)

QUICK = [c for c in CHECKS if c.quick]
LONG = [c for c in CHECKS if not c.quick]


@pytest.mark.parametrize("check", QUICK, ids=[c.name for c in QUICK])
def test_check_passes(check, tmp_path):
    r = run_check(check, workdir=tmp_path)
    assert r.passed, f"{r.name}: {r.detail} (files in {r.workdir})"
    assert r.proven == check.induction


@pytest.mark.slow   # each tens of seconds
@pytest.mark.parametrize("check", LONG, ids=[c.name for c in LONG])
def test_long_check_passes(check, tmp_path):
    r = run_check(check, workdir=tmp_path)
    assert r.passed, f"{r.name}: {r.detail} (files in {r.workdir})"
    assert r.proven == check.induction


# ------------------------------------------------------------------ broken units fail
class DoubleGrant(Elaboratable):
    """A round-robin arbiter that also grants the lowest requester: two grants in some cycles."""

    def __init__(self, n):
        self.n = n
        self.req, self.update = Signal(n), Signal()
        self.gnt, self.ptr = Signal(n), Signal(ptr_width(n))

    def elaborate(self, platform):
        m = Module()
        m.submodules.inner = a = RoundRobinArbiter(self.n)
        lowest = self.req & (~self.req + 1)[:self.n]
        m.d.comb += [a.req.eq(self.req), a.update.eq(self.update), self.ptr.eq(a.ptr), self.gnt.eq(a.gnt | lowest)]
        return m


class FreeCredit(Elaboratable):
    """A credit counter that always reports a credit available, so a grant may take one it does not have."""

    def __init__(self, depth):
        self.inner = CreditCounter(depth, check=False)
        self.take, self.ret = Signal(), Signal()
        self.count, self.avail, self.error = Signal.like(self.inner.count), Signal(), Signal()

    def elaborate(self, platform):
        m = Module()
        m.submodules.inner = c = self.inner
        m.d.comb += [c.take.eq(self.take), c.ret.eq(self.ret), self.count.eq(c.count), self.error.eq(c.error),
                     self.avail.eq(1)]
        return m


def _fails(top, tmp_path, depth=8):
    r = run_check(Check("broken", lambda: top, depth, "", ""), workdir=tmp_path)
    assert not r.passed
    return r


def test_double_grant_fails(tmp_path):
    r = _fails(formal.arbiter_top(4, 1, unit=DoubleGrant(4)), tmp_path)
    assert r.detail.startswith("bmc:") and "Assert failed" in r.detail
    assert (tmp_path / "bmc.vcd").exists()   # the counterexample


def test_take_without_credit_fails(tmp_path):
    r = _fails(formal.credit_top(3, 1, unit=FreeCredit(3)), tmp_path)
    assert r.detail.startswith("bmc:") and "Assert failed" in r.detail


def test_frozen_output_arbiter_fails(tmp_path):
    """The router's fixed-priority fault (``frozen``) breaks the pointer rule and fairness of §R11.3."""
    r = _fails(formal.output_arbiter_top(3, 1, frozen=True), tmp_path)
    assert r.detail.startswith("bmc:")


def test_greedy_prefix_allocator_not_equivalent(tmp_path, monkeypatch):
    """The prefix structure's choices made on the start-of-cycle counts (greedy, through its choice seam)
    while the ripple one stays exact: the equivalence check finds an input that tells them apart."""
    real = seq_alloc._seen_count

    def greedy_prefix(m, counts, index, width, name):
        if getattr(counts[0], "name", "").startswith("excl"):   # the prefix network's counts
            counts = [Const(0, width)] * len(counts)
        return real(m, counts, index, width, name)

    monkeypatch.setattr(seq_alloc, "_seen_count", greedy_prefix)
    r = _fails(formal.seq_alloc_equiv_top(4, 3, 2, 1), tmp_path, depth=1)
    assert r.detail.startswith("bmc:") and "Assert failed" in r.detail


# ------------------------------------------------------------------ covers
def test_cover_reached(tmp_path):
    check = next(c for c in CHECKS if c.name == "credit")
    r = run_check(check, workdir=tmp_path)
    log = (tmp_path / "cover.log").read_text()
    assert r.passed and log.count("Reached cover statement") == 2


def test_unreachable_cover_fails(tmp_path):
    base = formal.credit_top(3, 1)

    class Top(Elaboratable):
        def elaborate(self, platform):
            m = Module()
            m.submodules.base = base
            m.submodules.extra = c = CreditCounter(3)
            m.d.comb += Cover(c.count == 7)   # beyond depth: never
            return m

    r = _fails(Top(), tmp_path)
    assert r.detail.startswith("cover:") and "Unreached cover" in r.detail


# ------------------------------------------------------------------ the flow and the command line
def test_lower_checks():
    text = ('  cell $check $5\n    parameter \\FLAVOR "assume"\n    parameter \\TRG_ENABLE 0\n'
            '    connect \\A $3\n    connect \\TRG { }\n    connect \\ARGS { }\n    connect \\EN 1\'1\n  end\n')
    assert formal.lower_checks(text) == "  cell $assume $5\n    connect \\A $3\n    connect \\EN 1'1\n  end\n"


def test_cli_list(capsys):
    assert formal.main(["--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in out] == [c.name for c in CHECKS]


@pytest.mark.parametrize("argv", [["--only", "nosuch"], ["--depth", "0"], ["--depth", "x"], ["--bogus"]])
def test_cli_bad_input(argv, capsys):
    assert formal.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("formal: ") and err.count("\n") == 1


def test_cli_runs_one(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(formal, "ROOT", tmp_path)
    assert formal.main(["--only", "credit", "--depth", "9"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("PASS  credit ") and "depth   9" in out[0]
    assert (tmp_path / "build" / "formal" / "credit" / "bmc.log").exists()
