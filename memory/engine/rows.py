"""The items table's vocabulary: its schema, the row types, checksums and namespace filters."""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any, NamedTuple

# Statements, not a script: SqliteFile runs them in one BEGIN IMMEDIATE transaction, so openers
# of a new store queue for the write lock instead of upgrading read snapshots into a deadlock.
SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS items (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    text TEXT,
    embedding BLOB,
    importance REAL NOT NULL DEFAULT 0.5,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    last_accessed REAL NOT NULL,
    checksum INTEGER NOT NULL,
    UNIQUE (namespace, key)
)""",
    "CREATE INDEX IF NOT EXISTS items_ns ON items (namespace)",
    # rows without a vector are rare: this tiny index makes "how many vectors" a cheap count
    "CREATE INDEX IF NOT EXISTS items_novec ON items (seq) WHERE embedding IS NULL",
)
COLUMNS = (
    "seq, namespace, key, value, text, embedding, importance, created_at, updated_at, "
    "last_accessed, checksum"
)


@dataclass
class Item:
    """One stored record. `namespace` is the dotted form of a LangGraph namespace tuple."""

    seq: int
    namespace: str
    key: str
    value: dict[str, Any]
    text: str | None
    embedding: bytes | None
    importance: float
    created_at: float
    updated_at: float
    last_accessed: float


class Light(NamedTuple):
    """What ranking needs of a record, without its value or vector (cheap to fetch; a tuple
    because hundreds are built per search and a frozen dataclass costs ~10x more to make)."""

    seq: int
    namespace: str
    importance: float
    last_accessed: float
    kind: str | None


@dataclass
class NewItem:
    """What a writer supplies; seq and timestamps are assigned by the store."""

    namespace: str
    key: str
    value: dict[str, Any]
    text: str | None = None
    embedding: bytes | None = None
    importance: float = 0.5


# (meta key, value expected now, value to set): a compare-and-set on the store's metadata
Claim = tuple[str, str | None, str]


def under(prefix: str) -> tuple[str, tuple[Any, ...]]:
    """SQL filter for items in namespace `prefix` or below it ('' = everything)."""
    if not prefix:
        return "1 = 1", ()
    return "(namespace = ? OR substr(namespace, 1, ?) = ?)", (prefix, len(prefix) + 1, prefix + ".")


def checksum(namespace: str, key: str, value: str, embedding: bytes | None) -> int:
    crc = zlib.crc32(f"{namespace}\x1f{key}\x1f{value}".encode())
    return zlib.crc32(embedding or b"", crc)
