"""Hostile environments end in one line, never a traceback or a hang: a ``--scheduler`` that is not a Dask
scheduler, a process memory limit below the plan, a full disk or an unwritable output, a large ``rtl``
request, a torn last line in a study's own results store.

Each case runs the CLI in a subprocess and checks the exit status (2: refused before any work, 1: a run that
failed midway), one line on stderr naming the parameter, and no "Traceback".
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SMALL = ["--topo", "fbfly", "--k", "4", "--n", "2"]


def run(args: list[str], *, address_space: int | None = None, stdout=subprocess.PIPE, timeout: float = 60,
        cwd: Path = ROOT, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """``radixnet ARGS`` in a subprocess (after ``prefix``), under an ``RLIMIT_AS`` of ``address_space`` bytes
    when given."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return subprocess.run([*prefix, sys.executable, "-m", "radixnet", *args], stdout=stdout, stderr=subprocess.PIPE,
                          text=True, cwd=cwd, timeout=timeout, preexec_fn=limit if address_space else None)


def one_line(r: subprocess.CompletedProcess, status: int, needle: str) -> str:
    """Assert exit ``status`` and exactly one stderr line holding ``needle``, without a traceback."""
    lines = r.stderr.strip().splitlines()
    assert r.returncode == status, (r.returncode, r.stderr[-3000:])
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    assert len(lines) == 1 and needle in lines[0], r.stderr[-3000:]
    return lines[0]


# ------------------------------------------------------------------ --scheduler: servers that are not Dask's
class Server:
    """A loopback TCP server in a thread: ``reply`` bytes to each connection then close, or (None) accept
    and never answer."""

    def __init__(self, reply: bytes | None) -> None:
        self.reply, self.held = reply, []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            if self.reply is None:
                self.held.append(conn)
            else:
                with conn:
                    conn.sendall(self.reply)

    def close(self) -> None:
        self.sock.close()
        for c in self.held:
            c.close()


@pytest.mark.parametrize("reply, needle", [
    (b"HTTP/1.0 200 OK\r\n\r\nhello", "is not a Dask scheduler (its first answer begins b'HTTP/1.0'"),
    (None, "accepted the connection but sent no Dask greeting within 10 s"),
], ids=["http", "silent"])
def test_scheduler_that_is_not_dask_is_refused(tmp_path, reply, needle):
    server = Server(reply)
    try:
        t0 = time.monotonic()
        r = run(["sweep", *SMALL, "--loads", "0.2", "--out", str(tmp_path / "s"), "--scheduler",
                 f"127.0.0.1:{server.port}"], timeout=60)
        assert time.monotonic() - t0 < 30
    finally:
        server.close()
    line = one_line(r, 2, needle)
    assert line.startswith("radixnet: error: --scheduler: ")
    assert not (tmp_path / "s").exists()


def test_scheduler_tls_without_settings_is_refused(tmp_path):
    env_free = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    r = subprocess.run([sys.executable, "-m", "radixnet", "study", "kim-fig4", "--out", str(tmp_path / "s"),
                        "--scheduler", "tls://127.0.0.1:1", "--quiet"], capture_output=True, text=True, cwd=ROOT,
                       timeout=60, env=env_free)
    one_line(r, 2, "--scheduler: tls://127.0.0.1:1: tls:// needs the Dask configuration's client TLS settings")
    assert not (tmp_path / "s").exists()


# ------------------------------------------------------------------ the memory guard under the process's own limits
MiB = 1 << 20


def test_sim_past_the_address_space_limit_is_refused_before_any_work():
    # the estimate is about 621 MiB; under ulimit -v 300 MiB it used to die in a MemoryError traceback
    r = run(["sim", "--topo", "fbfly", "--k", "16", "--n", "3", "--load", "0.3", "--measure", "200"],
            address_space=300 * MiB)
    line = one_line(r, 2, "--max-memory: this simulation needs about 621 MiB")
    assert "(ulimit -v 300 MiB less " in line and line.endswith("raise ulimit -v")


@pytest.mark.parametrize("limit", [150, 300])
@pytest.mark.parametrize("args", [["topo", "fbfly", "--k", "4", "--n", "2", "--metrics"],
                                  ["sim", *SMALL, "--load", "0.3", "--measure", "200"]],
                         ids=["topo", "sim"])
def test_small_commands_under_an_address_space_limit_end_in_one_line(args, limit):
    """Fine, or one line: numpy and scipy need about 100 MiB of address space each with their OpenBLAS (which
    spun forever on a buffer it could not allocate as it loaded)."""
    r = run(args, address_space=limit * MiB, timeout=120)
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    if r.returncode != 0:
        one_line(r, r.returncode, "out of memory" if r.returncode == 1 else "--max-memory")
    elif limit == 300:
        assert r.stdout.strip()


def test_cgroup_limits_are_read_up_the_hierarchy(tmp_path):
    from radixnet.gen.resources import cgroup_memory_limit
    proc = tmp_path / "cgroup"
    v2 = tmp_path / "v2"
    (v2 / "a" / "b").mkdir(parents=True)
    proc.write_text("0::/a/b\n")
    (v2 / "a" / "b" / "memory.max").write_text("max\n")
    assert cgroup_memory_limit(v2, proc) is None
    (v2 / "a" / "memory.max").write_text(f"{512 * MiB}\n")  # a parent's limit holds its children too
    assert cgroup_memory_limit(v2, proc) == 512 * MiB
    (v2 / "a" / "b" / "memory.max").write_text(f"{256 * MiB}\n")
    assert cgroup_memory_limit(v2, proc) == 256 * MiB
    v1 = tmp_path / "v1"
    (v1 / "memory" / "job").mkdir(parents=True)
    proc.write_text("4:memory:/job\n1:cpu:/job\n")
    (v1 / "memory" / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # v1's "no limit"
    assert cgroup_memory_limit(v1, proc) is None
    (v1 / "memory" / "job" / "memory.limit_in_bytes").write_text(f"{MiB}\n")
    assert cgroup_memory_limit(v1, proc) == MiB


def test_a_cgroup_limit_plays_the_ram(monkeypatch):
    from radixnet.gen import ParamError, resources
    monkeypatch.setattr(resources, "cgroup_memory_limit", lambda: 256 * MiB)
    monkeypatch.setattr(resources, "ram_bytes", lambda: 16 << 30)
    lim = resources.effective_limit()
    assert lim.bytes == 128 * MiB and lim.source == "0.5 of the cgroup's memory.max of 256 MiB"
    lim = resources.effective_limit(1 << 30)  # --max-memory past the cgroup's limit: the cgroup's
    assert lim.bytes == 256 * MiB and lim.raise_it == "raise the cgroup's memory.max"
    with pytest.raises(ParamError, match=r"--max-memory: building fbfly needs about 1 GiB .* more than the limit "
                                         r"of 256 MiB \(the cgroup's memory.max of 256 MiB\); make it smaller or "
                                         r"raise the cgroup's memory.max"):
        resources.check_memory({"network": 1 << 30}, max_memory=1 << 30, what="building fbfly")


# ------------------------------------------------------------------ full disks and unwritable outputs
@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB tmpfs (root only: skipped otherwise)."""
    d = tmp_path / "full"
    d.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(d)],
                                           capture_output=True).returncode != 0:
        pytest.skip("mounting a tmpfs needs root")
    yield d
    subprocess.run(["umount", "-l", str(d)], capture_output=True)


def leftovers(d: Path) -> list[str]:
    """Temporary files left in ``d`` and below (never any)."""
    return [str(p) for p in d.rglob("*") if ".tmp" in p.name]


@pytest.mark.parametrize("args", [["topo", "fbfly", "--k", "4", "--n", "2"], ["topo", "list"],
                                  ["sim", *SMALL, "--load", "0.3", "--measure", "200", "--json"]],
                         ids=["topo", "topo-list", "sim"])
def test_standard_output_on_a_full_device(args):
    with open("/dev/full", "w") as full:
        r = run(args, stdout=full)
    one_line(r, 1, "cannot write standard output: No space left on device")


def test_out_in_a_directory_without_write_permission(tmp_path):
    prefix: tuple[str, ...] = ()
    if os.geteuid() == 0:  # root as an owner without the capability to override permissions
        prefix = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--")
        if subprocess.run([*prefix, "true"], capture_output=True).returncode != 0:
            pytest.skip("root writes into a mode-500 directory and setpriv cannot drop that")
    ro = tmp_path / "ro"
    ro.mkdir(mode=0o500)
    one_line(run(["sweep", *SMALL, "--loads", "0.2", "--out", str(ro / "s")], prefix=prefix), 2,
             "--out: cannot create directory")
    one_line(run(["rtl", "fbfly", "--k", "2", "--n", "2", "--out", str(ro)], prefix=prefix), 2,
             "--out: cannot write into")
    one_line(run(["study", "kim-cost", "--out", str(ro), "--quiet"], prefix=prefix), 2, "--out: cannot write into")
    one_line(run(["topo", "fbfly", "--export", "json", str(ro / "x.json")], prefix=prefix), 2,
             "--export: cannot write")
    assert os.listdir(ro) == []


def test_out_on_a_read_only_file_system(full_disk):
    subprocess.run(["mount", "-o", "remount,ro", str(full_disk)], check=True)
    one_line(run(["sweep", *SMALL, "--loads", "0.2", "--out", str(full_disk / "s")]), 2,
             "--out: cannot create directory")
    one_line(run(["study", "kim-cost", "--out", str(full_disk / "c"), "--quiet"]), 2, "--out: cannot create")
    one_line(run(["topo", "fbfly", "--export", "json", str(full_disk / "x.json")]), 2, "--export: cannot write")


@pytest.mark.parametrize("args, needle", [
    (["sweep", *SMALL, "--loads", "0.1,0.2,0.3", "--measure", "200", "--quiet", "--out", "{d}/s"],
     "radixnet sweep: error: --out: cannot write into {d}/s: No space left on device"),
    (["rtl", "fbfly", "--k", "4", "--n", "2", "--quiet", "--out", "{d}/r"],
     "radixnet rtl: error: --out: cannot write into {d}/r: No space left on device"),
    (["study", "kim-cost", "--quiet", "--out", "{d}/c"],
     "radixnet study kim-cost: error: --out: cannot write into {d}/c: No space left on device"),
], ids=["sweep", "rtl", "kim-cost"])
def test_outputs_on_a_full_disk_end_in_one_line(full_disk, args, needle):
    d = str(full_disk)
    one_line(run([a.format(d=d) for a in args], timeout=120), 1, needle.format(d=d))
    assert leftovers(full_disk) == []
    # a module written is whole (each written to a temporary and renamed)
    assert all(v.read_text().rstrip().endswith("endmodule") for v in full_disk.rglob("*.v"))


def test_export_on_a_full_disk_leaves_no_truncated_file(full_disk):
    target = full_disk / "x.json"
    one_line(run(["topo", "fbfly", "--k", "16", "--n", "3", "--export", "json", str(target)]), 1,
             f"--export: cannot write {target}: No space left on device")
    assert os.listdir(full_disk) == []
    target.write_text("an earlier export\n")  # and one already there stays whole
    one_line(run(["topo", "fbfly", "--k", "16", "--n", "3", "--export", "json", str(target)]), 1, "--export")
    assert os.listdir(full_disk) == ["x.json"] and target.read_text() == "an earlier export\n"


# ------------------------------------------------------------------ kim-fig5's own results store
def test_kim_fig5_resumes_after_a_torn_last_line(tmp_path):
    import json
    out = tmp_path / "f5"
    args = ["study", "kim-fig5", "--k", "4", "--set", "batches=4,8", "--set", "router=radixnet", "--out", str(out),
            "--quiet"]   # radixnet's study router: every claim holds at k = 4 (exit 0)
    r = run(args, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    store = out / "points.jsonl"
    lines = store.read_text().splitlines(keepends=True)
    assert len(lines) == 8
    store.write_text("".join(lines[:6]) + lines[6][:40])  # an interrupted write: the last line torn, one missing
    r = run(args, timeout=120)
    one_line(r, 0, f"radixnet study kim-fig5: warning: {store}: dropped an incomplete last line")
    recs = [json.loads(line) for line in store.read_text().splitlines()]  # every line whole (none glued on)
    assert sorted((x["routing"], x["batch"]) for x in recs) == sorted((r, b) for b in (4, 8)
                                                                      for r in ("val", "ugal", "ugal-s", "clos-ad"))


# ------------------------------------------------------------------ rtl at legal but large sizes
def test_rtl_past_the_memory_limit_is_refused_before_any_work(tmp_path):
    out = tmp_path / "r"
    t0 = time.monotonic()
    line = one_line(run(["rtl", "--topo", "slimfly", "--q", "19", "--max-memory", "4G", "--out", str(out)]), 2,
                    "--max-memory: generating the RTL of slimfly (722 routers of radix 44, 10,830 terminals)")
    assert "more than the limit of 4 GiB (--max-memory)" in line
    assert time.monotonic() - t0 < 30 and not out.exists()
    one_line(run(["rtl", "fbfly", "--max-memory", "12x"]), 2, "--max-memory must be a size")


def test_rtl_estimate_and_progress_lines(tmp_path, capsys, monkeypatch):
    from radixnet import rtl_cli
    from radixnet.cli import main
    monkeypatch.setattr(rtl_cli, "ANNOUNCE_SECONDS", 0.0)  # announce even a small build
    out = tmp_path / "r"
    assert main(["rtl", "--topo", "fbfly", "--k", "4", "--n", "2", "--vcs", "2", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("radixnet rtl: fbfly (4 routers of radix 7, 16 terminals, V=2): 1 core, about ")
    assert [x.split(",")[0] for x in lines if x.startswith("radixnet rtl: routers ")] == \
        [f"radixnet rtl: routers {r}/4" for r in (1, 2, 3, 4)]  # a line per tenth of the routers (a pipe)
    est = float(lines[0].split("about ")[1].split(" MB")[0]) * 1e6
    written = sum(p.stat().st_size for p in out.iterdir())
    assert 0.67 < est / written < 1.5, (est, written)
