"""Setting up a store's SQLite file when several connections open it at once.

A new file starts in rollback-journal mode. While one connection switches it to WAL, the others
read it either in the old mode or already in WAL, and they can hold the locks each needs until
the busy timeout ends: four threads opening one new store at once failed about one round in
300 on a loaded 2-core machine, each waiting the whole timeout ("database is locked"). Openers
therefore take turns to set the file up (WAL mode, schema) under an flock on the store's folder.
The folder, not the database: closing any other descriptor of a SQLite file drops the locks
SQLite holds on it in this process. The kernel releases the flock if its holder dies.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memory.engine.errors import MemoryStoreError


def attempts(timeout_s: float) -> Iterator[None]:
    """One try now, then one after each pause (5 ms growing to 250 ms) until `timeout_s`."""
    deadline, pause = time.monotonic() + timeout_s, 0.005
    yield
    while time.monotonic() + pause <= deadline:
        time.sleep(pause)
        yield
        pause = min(pause * 2, 0.25)


@contextmanager
def setting_up(path: str, timeout_s: float) -> Iterator[None]:
    """Hold the store folder's flock while the block sets up the file at `path`."""
    if path == ":memory:":
        yield
        return
    try:
        fd = os.open(Path(path).parent, os.O_RDONLY)
    except OSError as exc:
        raise MemoryStoreError(
            f"cannot use memory store {path} ({exc}); check that its folder exists and is readable"
        ) from exc
    try:
        if not _took(fd, timeout_s):
            raise MemoryStoreError(
                f"memory store {path} stayed locked by another process setting it up; let the "
                "other run finish, then retry"
            )
        yield
    finally:
        os.close(fd)  # closing it releases the flock


def _took(fd: int, timeout_s: float) -> bool:
    for _ in attempts(timeout_s):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
    return False


def enter_wal(conn: sqlite3.Connection, timeout_s: float) -> None:
    """WAL mode, retrying while another connection switches too: SQLite answers one of two
    switchers "database is locked" at once, without waiting its busy timeout (on a file system
    where the folder's flock does not reach other machines' openers)."""
    for _ in attempts(timeout_s):
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            return
        except MemoryStoreError as exc:
            if "database is locked" not in str(exc.__cause__ or ""):
                raise
            locked = exc
    raise locked
