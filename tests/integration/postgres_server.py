"""A throwaway PostgreSQL 15 server on 127.0.0.1 for tests: initdb, start on a free port, stop.

As root, the server runs as the `postgres` system user (PostgreSQL refuses to run as root), in
a fresh directory that user owns. The server listens only on 127.0.0.1, trusts local logins,
and is stopped (fast) and deleted at the end.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PG_BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)


def pg_bin() -> Path | None:
    for d in PG_BIN_DIRS:
        if (d / "initdb").exists() and (d / "pg_ctl").exists():
            return d
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_server_user(cmd: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return cmd
    if shutil.which("runuser") is None:
        raise RuntimeError("running as root needs `runuser` to start PostgreSQL as postgres")
    return ["runuser", "-u", "postgres", "--", *cmd]


def _run(cmd: list[str], bindir: Path) -> subprocess.CompletedProcess[str]:
    """Run a PostgreSQL program from `bindir` as the server's user."""
    full = [str(bindir / cmd[0]), *cmd[1:]]
    return subprocess.run(
        _as_server_user(full), check=True, capture_output=True, text=True, timeout=120
    )


@contextmanager
def running_postgres() -> Iterator[str]:
    """Yield a connection string to a fresh server; always stop and remove it."""
    bindir = pg_bin()
    if bindir is None:
        raise RuntimeError("PostgreSQL is not installed: apt-get install postgresql")
    root = Path(tempfile.mkdtemp(prefix="pgtest-"))
    data, sock = root / "data", root / "sock"
    sock.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
        shutil.chown(sock, "postgres", "postgres")
    port = _free_port()
    log = root / "server.log"

    try:
        _run(
            [
                "initdb",
                "-D",
                str(data),
                "-U",
                "postgres",
                "--auth=trust",
                "--no-sync",
                "-E",
                "UTF8",
            ],
            bindir,
        )
        options = f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off"
        _run(
            ["pg_ctl", "-D", str(data), "-l", str(log), "-w", "-t", "60", "-o", options, "start"],
            bindir,
        )
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    except subprocess.CalledProcessError as exc:
        tail = log.read_text()[-2000:] if log.exists() else ""
        raise RuntimeError(f"PostgreSQL failed: {exc.stderr or exc.stdout}\n{tail}") from exc
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                _as_server_user(
                    [str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"]
                ),
                capture_output=True,
                timeout=120,
                check=False,
            )
        shutil.rmtree(root, ignore_errors=True)
