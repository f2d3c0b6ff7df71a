"""The durable record layer of memory: one SQLite file (WAL mode) with every item and its vector.

The file itself (pragmas, transactions, metadata) is memory/sqlite_file.py. `seq`
(AUTOINCREMENT) is assigned inside the serialized write, so commit order equals seq order: a
reader that has seen every seq <= N has seen every committed record up to N, which is what the
FAISS index tracks.
Each row carries a CRC32 of its content; a row that fails it is skipped with a warning.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from memory.record_scans import RecordScans
from memory.record_types import (
    COLUMNS,
    Claim,
    CorruptRecordWarning,
    EmbedderMismatchError,
    Item,
    MemoryStoreDamagedError,
    MemoryStoreError,
    NewItem,
    checksum,
    under,
)

__all__ = [
    "CorruptRecordWarning",
    "EmbedderMismatchError",
    "Item",
    "MemoryStoreDamagedError",
    "MemoryStoreError",
    "NewItem",
    "RecordStore",
    "checksum",
]


class RecordStore(RecordScans):
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

    def restore_rows(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert rows exactly as read from another copy of a store, seqs included (repair)."""
        marks = ", ".join("?" * len(rows[0])) if rows else ""
        with self._write():
            self._conn.executemany(f"INSERT INTO items ({COLUMNS}) VALUES ({marks})", rows)

    def delete_seqs(self, seqs: Sequence[int]) -> int:
        with self._write():
            cur = self._conn.executemany("DELETE FROM items WHERE seq = ?", [(s,) for s in seqs])
        return cur.rowcount

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

    # -- reads ---------------------------------------------------------------------------------

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
