"""The items table of memory's SQLite file: every item with its vector, keyed by namespace and key.

The file itself (pragmas, transactions, metadata) is memory/engine/sqlite_file.py. `seq`
(AUTOINCREMENT) is assigned inside the serialized write, so commit order equals seq order: a
reader that has seen every seq <= N has seen every committed record up to N, which is what the
FAISS index tracks. Each row carries a CRC32 of its content; a row that fails it is left out
with one CorruptRecordWarning per row and process.
"""

from __future__ import annotations

import json
import time
import warnings
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from memory.engine.errors import CorruptRecordWarning
from memory.engine.rows import COLUMNS, Claim, Item, Light, NewItem, checksum, under
from memory.engine.sqlite_file import SqliteFile


class RecordTable(SqliteFile):
    """Items keyed by (namespace, key); append-mostly; safe for many threads and processes."""

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

    """Items keyed by (namespace, key); append-mostly; safe for many threads and processes."""

    # -- writes --------------------------------------------------------------------------------

    def put_many(self, items: Sequence[NewItem], now: float | None = None) -> list[int]:
        """Insert or replace items in ONE transaction; returns their new seqs in order."""
        now = time.time() if now is None else now
        seqs: list[int] = []
        with self._write():
            for it in items:
                value = json.dumps(it.value, ensure_ascii=False, sort_keys=True)
                old = self._conn.execute(
                    "SELECT created_at FROM items WHERE namespace = ? AND key = ?",
                    (it.namespace, it.key),
                ).fetchone()
                if old is not None:  # a replaced item gets a new seq so the index sees it again
                    self._conn.execute(
                        "DELETE FROM items WHERE namespace = ? AND key = ?", (it.namespace, it.key)
                    )
                created = old[0] if old else now
                cur = self._conn.execute(
                    "INSERT INTO items (namespace, key, value, text, embedding, importance, "
                    "created_at, updated_at, last_accessed, checksum) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        it.namespace,
                        it.key,
                        value,
                        it.text,
                        it.embedding,
                        float(it.importance),
                        created,
                        now,
                        now,
                        checksum(it.namespace, it.key, value, it.embedding),
                    ),
                )
                seqs.append(int(cur.lastrowid or 0))
        return seqs

    def put_many_claiming(
        self, items: Sequence[NewItem], claim: Claim, now: float | None = None
    ) -> list[int] | None:
        """put_many and a compare-and-set of a meta value in ONE transaction, so a job's output
        and its "done" mark are stored together or not at all; None if the claim was lost."""
        key, expected, new = claim
        with self._write():
            if self._meta_get(key) != expected:
                return None
            seqs = self.put_many(items, now)
            self._meta_set(key, new)
        return seqs

    def bulk_insert(self, items: Sequence[NewItem], now: float | None = None) -> None:
        """Fast load of NEW keys in one transaction (benchmarks, migrations); a duplicate key
        aborts the whole batch with sqlite3.IntegrityError instead of replacing."""
        now = time.time() if now is None else now

        def rows() -> Iterator[tuple[Any, ...]]:
            for it in items:
                value = json.dumps(it.value, ensure_ascii=False, sort_keys=True)
                yield (
                    it.namespace,
                    it.key,
                    value,
                    it.text,
                    it.embedding,
                    float(it.importance),
                    now,
                    now,
                    now,
                    checksum(it.namespace, it.key, value, it.embedding),
                )

        with self._write():
            self._conn.executemany(
                "INSERT INTO items (namespace, key, value, text, embedding, importance, "
                "created_at, updated_at, last_accessed, checksum) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                rows(),
            )

    def delete(self, namespace: str, key: str) -> bool:
        with self._write():
            cur = self._conn.execute(
                "DELETE FROM items WHERE namespace = ? AND key = ?", (namespace, key)
            )
        return cur.rowcount > 0

    def clear(self, prefix: str) -> int:
        where, params = under(prefix)
        with self._write():
            cur = self._conn.execute(f"DELETE FROM items WHERE {where}", params)
        return cur.rowcount

    def touch(self, seqs: Iterable[int], when: float | None = None) -> None:
        """Refresh last access in place: no record is rewritten."""
        when = time.time() if when is None else when
        rows = [(when, s) for s in seqs]
        if not rows:
            return
        with self._lock:
            # An access time may be lost to a power cut (never to a process crash: WAL), so it
            # skips the fsync that saves pay for; retrieval stays a read-speed operation.
            self._conn.execute("PRAGMA synchronous=NORMAL")
            try:
                with self._write():
                    self._conn.executemany("UPDATE items SET last_accessed = ? WHERE seq = ?", rows)
            finally:
                self._conn.execute("PRAGMA synchronous=FULL")

    def set_embeddings(self, rows: Sequence[tuple[int, bytes]]) -> None:
        """Replace vectors (re-embedding); checksums are recomputed from the stored content."""
        with self._write():
            for seq, emb in rows:
                ns, key, value = self._conn.execute(
                    "SELECT namespace, key, value FROM items WHERE seq = ?", (seq,)
                ).fetchone()
                self._conn.execute(
                    "UPDATE items SET embedding = ?, checksum = ? WHERE seq = ?",
                    (emb, checksum(ns, key, value, emb), seq),
                )

    # -- reads of items ----------------------------------------------------------------------------

    def _decode(self, row: tuple[Any, ...]) -> Item | None:
        seq, ns, key, value, text, emb, imp, created, updated, accessed, crc = row
        try:
            if checksum(ns, key, value, emb) != crc:
                raise ValueError("checksum mismatch")
            decoded = json.loads(value)
        except ValueError as exc:
            self._warn_corrupt(seq, key, str(exc))
            return None
        return Item(seq, ns, key, decoded, text, emb, imp, created, updated, accessed)

    def _select(self, where: str, params: Sequence[Any]) -> list[Item]:
        with self._lock:
            rows = self._conn.execute(f"SELECT {COLUMNS} FROM items {where}", params).fetchall()
        return [it for it in map(self._decode, rows) if it is not None]

    def get(self, namespace: str, key: str) -> Item | None:
        found = self._select("WHERE namespace = ? AND key = ?", (namespace, key))
        return found[0] if found else None

    def by_seqs(self, seqs: Sequence[int]) -> dict[int, Item]:
        out: dict[int, Item] = {}
        for start in range(0, len(seqs), 500):  # stay under SQLite's bound-parameter limit
            chunk = list(seqs[start : start + 500])
            marks = ",".join("?" * len(chunk))
            out.update((it.seq, it) for it in self._select(f"WHERE seq IN ({marks})", chunk))
        return out

    def items(self, prefix: str, limit: int = -1, offset: int = 0) -> list[Item]:
        """Items in `prefix` or below it, oldest first."""
        where, params = under(prefix)
        return self._select(
            f"WHERE {where} ORDER BY seq LIMIT ? OFFSET ?", (*params, limit, offset)
        )

    def namespaces(self) -> list[str]:
        with self._lock:
            rows = self._conn.execute("SELECT DISTINCT namespace FROM items").fetchall()
        return sorted(r[0] for r in rows)

    def count(self, prefix: str | None = None) -> int:
        where, params = under(prefix or "")
        with self._lock:
            row = self._conn.execute(f"SELECT count(*) FROM items WHERE {where}", params).fetchone()
        return int(row[0])

    # -- scans: many rows at once (the index, ranking, consolidation) ------------------------------

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
