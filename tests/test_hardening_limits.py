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
        cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``radixnet ARGS`` in a subprocess, under an ``RLIMIT_AS`` of ``address_space`` bytes when given."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return subprocess.run([sys.executable, "-m", "radixnet", *args], stdout=stdout, stderr=subprocess.PIPE,
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
