"""Bulk reads of the record store: vectors for the index, ranking fields, importance sums.

These scan many rows at once for the FAISS index (memory/backend.py), retrieval ranking and
consolidation; item reads and writes are memory/record_store.py's. A row whose checksum fails
is left out with one CorruptRecordWarning per row and process.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memory.record_types import COLUMNS, CorruptRecordWarning, Light, checksum, under
from memory.sqlite_file import SqliteFile


class RecordScans(SqliteFile):
    """The scanning half of RecordStore (see module docstring)."""

    def __init__(self, path: str | Path = ":memory:", busy_timeout_s: float = 60.0) -> None:
        super().__init__(path, busy_timeout_s)
        self._warned: set[int] = set()

    def _warn_corrupt(self, seq: int, key: str, reason: str) -> None:
        if seq not in self._warned:
            self._warned.add(seq)
            warnings.warn(
                f"memory store {self.path}: record seq={seq} key={key!r} is corrupt ({reason}); "
                "skipping it (`memory repair` sets such records aside)",
                CorruptRecordWarning,
                stacklevel=4,
            )

    def light(self, seqs: Sequence[int], with_kind: bool = False) -> dict[int, Light]:
        """Ranking fields of these records (no value decoding, no vector): fast for many.

        The value's "kind" is read only `with_kind`: parsing each JSON value costs more than
        the rest of the query.
        """
        kind = "CASE WHEN json_valid(value) THEN json_extract(value, '$.kind') END"
        kind = kind if with_kind else "NULL"
        out: dict[int, Light] = {}
        for start in range(0, len(seqs), 500):
            chunk = list(seqs[start : start + 500])
            marks = ",".join("?" * len(chunk))
            with self._lock:
                rows = self._conn.execute(
                    f"SELECT seq, namespace, importance, last_accessed, {kind} "
                    f"FROM items WHERE seq IN ({marks})",
                    chunk,
                ).fetchall()
            out.update((r[0], Light._make(r)) for r in rows)
        return out

    def vector_count(self) -> int:
        """How many records carry a vector (a small partial index keeps this cheap)."""
        with self._lock:
            total = self._conn.execute("SELECT count(*) FROM items").fetchone()[0]
            bare = self._conn.execute(
                "SELECT count(*) FROM items WHERE embedding IS NULL"
            ).fetchone()[0]
        return int(total) - int(bare)

    def vector_seqs(self) -> np.ndarray:
        """The seqs of every record that carries a vector."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT seq FROM items WHERE embedding IS NOT NULL ORDER BY seq"
            ).fetchall()
        return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))

    def max_seq(self) -> int:
        with self._lock:
            row = self._conn.execute("SELECT max(seq) FROM items").fetchone()
        return int(row[0] or 0)

    def vectors_after(self, seq: int, batch: int = 50_000) -> Iterator[tuple[np.ndarray, bytes]]:
        """(seqs, concatenated float32 bytes) of embedded rows with seq > `seq`, in batches."""
        last = seq
        while True:
            with self._lock:
                rows = self._conn.execute(
                    "SELECT seq, namespace, key, value, embedding, checksum FROM items "
                    "WHERE seq > ? AND embedding IS NOT NULL ORDER BY seq LIMIT ?",
                    (last, batch),
                ).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            good = [r for r in rows if checksum(r[1], r[2], r[3], r[4]) == r[5]]
            for bad in (r for r in rows if checksum(r[1], r[2], r[3], r[4]) != r[5]):
                self._warn_corrupt(bad[0], bad[2], "checksum mismatch")
            yield np.array([r[0] for r in good], dtype=np.int64), b"".join(r[4] for r in good)

    def importance_after(self, prefix: str, seq: int, skip_kind: str = "") -> tuple[float, int]:
        """(summed importance, max seq) of items in `prefix` newer than `seq`, except one kind."""
        where, params = under(prefix)
        with self._lock:
            row = self._conn.execute(
                "SELECT coalesce(sum(importance), 0), coalesce(max(seq), ?) FROM items "
                f"WHERE seq > ? AND {where} AND json_valid(value) "
                "AND json_extract(value, '$.kind') IS NOT ?",
                (seq, seq, *params, skip_kind),
            ).fetchone()
        return float(row[0]), int(row[1])

    def raw_rows(self, after: int, limit: int = 1000) -> list[tuple[Any, ...]]:
        """Rows with seq > `after` exactly as stored (no decoding, no checks): for repairs."""
        with self._lock:
            return self._conn.execute(
                f"SELECT {COLUMNS} FROM items WHERE seq > ? ORDER BY seq LIMIT ?", (after, limit)
            ).fetchall()
