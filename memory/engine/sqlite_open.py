"""Setting up a store's SQLite file when several connections open it at once.

A new file starts in rollback-journal mode. While one connection switches it to WAL, the others
read it either in the old mode or already in WAL, and they can hold the locks each needs until
the busy timeout ends, each waiting the whole timeout ("database is locked";
tests/unit/memory/test_sqlite_open_together.py). Openers therefore take turns to set the file
up (WAL mode, schema) under an flock on the store's folder. The folder, not the database:
closing any other descriptor of a SQLite file drops the locks SQLite holds on it in this
process. The kernel releases the flock if its holder dies.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory.engine.errors import MemoryStoreError

log = logging.getLogger(__name__)


def _attempts(timeout_s: float) -> Iterator[None]:
    """One try now, then one after each pause (5 ms growing to 250 ms) until `timeout_s`."""
    deadline, pause = time.monotonic() + timeout_s, 0.005
    yield
    while time.monotonic() + pause <= deadline:
        time.sleep(pause)
        yield
        pause = min(pause * 2, 0.25)


@contextmanager
def setting_up(path: str, timeout_s: float) -> Iterator[None]:
    """Hold the store folder's flock while the block sets up the file at `path`. Where the
    folder cannot be locked (no read permission on it; NFS refuses an flock on a folder), the
    block runs unlocked, as it would without this: enter_wal's retries and the busy timeout
    remain."""
    fd = _folder(path)
    if fd is None:
        yield
        return
    try:
        if _took(fd, timeout_s) is False:
            raise MemoryStoreError(
                f"memory store {path} stayed locked by another process setting it up; let the "
                "other run finish, then retry"
            )
        yield
    finally:
        os.close(fd)  # closing it releases the flock


def _folder(path: str) -> int | None:
    if path == ":memory:":
        return None
    try:
        return os.open(Path(path).parent, os.O_RDONLY)
    except OSError as exc:
        log.debug("memory store %s: its folder cannot be locked (%s)", path, exc)
        return None


def _took(fd: int, timeout_s: float) -> bool | None:
    """True once the flock is held, False if it stayed taken, None where flock is refused."""
    for _ in _attempts(timeout_s):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        except OSError as exc:  # ENOLCK, EBADF, EOPNOTSUPP: a file system without it
            log.debug("no flock on this file system (%s): the store is set up unlocked", exc)
            return None
    return False


def enter_wal(conn: sqlite3.Connection, timeout_s: float) -> None:
    """WAL mode, retrying while another connection switches too: SQLite answers one of two
    switchers "database is locked" at once, without waiting its busy timeout (on a file system
    where the folder's flock does not reach other machines' openers)."""
    for _ in _attempts(timeout_s):
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except MemoryStoreError as exc:
            if "database is locked" not in str(exc.__cause__ or ""):
                raise
            locked = exc
    raise locked
