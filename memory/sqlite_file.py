"""One SQLite database file opened for memory: pragmas, write transactions and the meta table.

Why SQLite (WAL) rather than JSON Lines: each save is one small transaction (O(1), flat as the
store grows, one fsync), a writer killed mid-save leaves no partial record (the WAL frame is
discarded on recovery), many processes can append at once (SQLite serializes writers with a
file lock; `busy_timeout` makes them wait, not fail), lookups by id need no full load, and the
"last accessed" time is an in-place UPDATE instead of a rewrite.
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from pathlib import Path

from memory.record_types import SCHEMA


class SqliteFile:
    """A WAL-mode connection shared by threads, with BEGIN IMMEDIATE writes and a meta table."""

    def __init__(self, path: str | Path = ":memory:", busy_timeout_s: float = 60.0) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(
            self.path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False
        )
        self._lock = threading.RLock()
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            # FULL: a save that returned survives power loss, not just a process crash.
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
            self._conn.executescript(SCHEMA)  # executescript commits by itself: keep it outside
            with self._write():
                if self._meta_get("store_id") is None:
                    self._meta_set("store_id", uuid.uuid4().hex)

    def _write(self) -> _WriteTxn:
        return _WriteTxn(self._conn, self._lock)

    def _meta_get(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _meta_set(self, key: str, value: str) -> None:
        self._conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def meta(self, key: str) -> str | None:
        with self._lock:
            return self._meta_get(key)

    def set_meta(self, key: str, value: str) -> None:
        with self._write():
            self._meta_set(key, value)

    @property
    def store_id(self) -> str:
        return self.meta("store_id") or ""

    def claim(self, key: str, expected: str | None, new: str) -> bool:
        """Compare-and-set a meta value, so only one process runs a one-off job."""
        with self._write():
            if self._meta_get(key) != expected:
                return False
            self._meta_set(key, new)
            return True

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class _WriteTxn:
    """BEGIN IMMEDIATE … COMMIT: take the write lock up front so writers queue, not deadlock."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock) -> None:
        self._conn, self._lock = conn, lock
        self._depth_owner = False

    def __enter__(self) -> None:
        self._lock.acquire()
        if not self._conn.in_transaction:
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth_owner = True

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        try:
            if self._depth_owner:
                self._conn.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self._lock.release()
