"""One SQLite database file opened for memory: pragmas, write transactions and the meta table.

Why SQLite (WAL) rather than JSON Lines: each save is one small transaction (O(1), flat as the
store grows, one fsync), a writer killed mid-save leaves no partial record (the WAL frame is
discarded on recovery), many processes can append at once (SQLite serializes writers with a
file lock; `busy_timeout` makes them wait, not fail), lookups by id need no full load, and the
"last accessed" time is an in-place UPDATE instead of a rewrite.

Every statement goes through a guarded connection: SQLite's errors for a damaged, locked or
unwritable file become MemoryStoreError with one line naming the file and the fix, wherever
they surface (open, a read deep inside a search, a write), so no caller sees a raw traceback.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from memory.engine.errors import EmbedderMismatchError, MemoryStoreDamagedError, MemoryStoreError
from memory.engine.rows import SCHEMA
from memory.engine.sqlite_open import enter_wal, setting_up

# SQLite primary result codes (the low byte of an extended code)
_DAMAGED = {11, 26}  # SQLITE_CORRUPT, SQLITE_NOTADB
BUSY_CODES = {5, 6}  # SQLITE_BUSY, SQLITE_LOCKED
_UNUSABLE = {3, 8, 10, 13, 14, 23}  # PERM, READONLY, IOERR, FULL, CANTOPEN, AUTH
_SHORT_READ = 522  # SQLITE_IOERR_SHORT_READ: the file ends early, i.e. it was truncated
MMAP_BYTES = 1 << 31


def process_alive(pid: int) -> bool:
    """Whether a process with this id exists (a reused id only delays the cleanup)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


def repair_command(path: str) -> str:
    """The command line's command that repairs the store holding this database file (the
    program's own name is the caller's to know)."""
    db = Path(path)
    if db.parent.name == "memory":
        return f"memory repair --home {db.parent.parent}"
    return "memory repair"


def store_error(path: str, exc: sqlite3.DatabaseError) -> Exception:
    """The MemoryStoreError for SQLite's error, or the error itself if it is a usage error."""
    code = getattr(exc, "sqlite_errorcode", None) or 0
    if code & 0xFF in _DAMAGED or code == _SHORT_READ:
        return MemoryStoreDamagedError(
            f"memory store {path} is damaged ({exc}); run the command `{repair_command(path)}`"
            " to set the file aside and keep every readable record"
        )
    if code & 0xFF in BUSY_CODES:
        return MemoryStoreError(
            f"memory store {path} stayed locked by another process ({exc}); let the other run "
            "finish, then retry"
        )
    if code & 0xFF in _UNUSABLE or isinstance(exc, sqlite3.OperationalError) and not code:
        return MemoryStoreError(
            f"cannot use memory store {path} ({exc}); check that its folder exists and is "
            "writable and that the disk has space"
        )
    return exc


@contextmanager
def store_errors(path: str) -> Iterator[None]:
    try:
        yield
    except sqlite3.DatabaseError as exc:
        err = store_error(path, exc)
        if err is exc:
            raise
        raise err from exc


class _GuardedCursor(sqlite3.Cursor):
    """A cursor whose statements and fetches report store errors (see module docstring)."""

    @property
    def _path(self) -> str:
        return str(getattr(self.connection, "path", ""))

    def execute(self, sql: str, params: Any = (), /) -> Self:
        with store_errors(self._path):
            return super().execute(sql, params)

    def executemany(self, sql: str, params: Any, /) -> Self:
        with store_errors(self._path):
            return super().executemany(sql, params)

    def executescript(self, script: str, /) -> sqlite3.Cursor:
        with store_errors(self._path):
            return super().executescript(script)

    def fetchone(self) -> Any:
        with store_errors(self._path):
            return super().fetchone()

    def fetchall(self) -> list[Any]:
        with store_errors(self._path):
            return super().fetchall()


class _GuardedConnection(sqlite3.Connection):
    """Routes the shortcut methods through _GuardedCursor (they bypass cursor() in C)."""

    path = ""

    def cursor(self, factory: Any = None) -> Any:
        return super().cursor(factory or _GuardedCursor)

    def execute(self, sql: str, params: Any = (), /) -> Any:
        return self.cursor().execute(sql, params)

    def executemany(self, sql: str, params: Any, /) -> Any:
        return self.cursor().executemany(sql, params)

    def executescript(self, script: str, /) -> Any:
        return self.cursor().executescript(script)


class SqliteFile:
    """A WAL-mode connection shared by threads, with BEGIN IMMEDIATE writes and a meta table."""

    def __init__(self, path: str | Path = ":memory:", busy_timeout_s: float = 60.0) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise MemoryStoreError(
                    f"cannot create the memory folder {Path(self.path).parent} ({exc}); "
                    "choose another --home or fix the path"
                ) from exc
        with store_errors(self.path):
            conn = sqlite3.connect(
                self.path,
                timeout=busy_timeout_s,
                isolation_level=None,
                check_same_thread=False,
                factory=_GuardedConnection,
            )
        conn.path = self.path
        self._conn: _GuardedConnection = conn
        self._lock = threading.RLock()
        with self._lock, setting_up(self.path, busy_timeout_s):
            enter_wal(self._conn, busy_timeout_s)
            # FULL: a save that returned survives power loss, not just a process crash.
            self._conn.execute("PRAGMA synchronous=FULL")
            self._conn.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
            # Retrieval reads a few hundred scattered rows per query: through a memory map they
            # cost no read() call each (top-3 at 100k records: 4.0 -> 3.1 ms). SQLite caps the
            # map at its compile-time limit (2 GB by default) and reads the rest as before.
            self._conn.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
            with self._write():
                for statement in SCHEMA:
                    self._conn.execute(statement)
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

    def bind_embedder(self, name: str, dimension: int) -> None:
        """Record the embedder on first use; refuse a different one afterwards."""
        with self._write():
            old_name, old_dim = self._meta_get("embedder"), self._meta_get("dimension")
            if old_name is None:
                self._meta_set("embedder", name)
                self._meta_set("dimension", str(dimension))
                return
        if old_name != name or int(old_dim or 0) != dimension:
            raise EmbedderMismatchError(
                f"memory store {self.path} was built with embeddings {old_name!r} "
                f"({old_dim} dimensions) but was opened with {name!r} ({dimension} dimensions). "
                "Open it with the same embedding model, or re-embed it "
                "(the command `memory reembed --embedding-model SPEC`, or "
                "ReflectionManager.open(..., reembed=True))."
            )

    def rebind_embedder(self, name: str, dimension: int) -> None:
        with self._write():
            self._meta_set("embedder", name)
            self._meta_set("dimension", str(dimension))

    def install_file(self, tmp: Path, path: Path, key: str, value: str) -> None:
        """os.replace(tmp, path) and record `value` (its checksum) as meta `key`, under the
        write lock: processes installing files in turn leave the last file's checksum."""
        with self._write():
            os.replace(tmp, path)
            self._meta_set(key, value)

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
