"""Reading what can still be read from a damaged SQLite memory file, row by row.

SQLite refuses a truncated file as a whole ("database disk image is malformed" on every
statement), so a working copy is first padded back to the size its header declares: the pages
that were cut off read as damaged, the rest as before. Rows are then read in chunks by seq;
where a chunk hits a damaged page, the seqs after it are probed one at a time until chunks
read again. Every row read is checked against its checksum; rows that fail are returned apart.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memory.engine.rows import COLUMNS, checksum

CHUNK = 256
GIVE_UP_AFTER = 10_000  # consecutive unreadable seqs past the last known one


@dataclass
class Salvage:
    """Rows read from a damaged file: intact ones, ones failing their checksum, metadata."""

    rows: list[tuple[Any, ...]] = field(default_factory=list)
    corrupt: list[tuple[Any, ...]] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    unreadable_seqs: int = 0


def pad_truncated(path: Path) -> None:
    """Grow a truncated SQLite file back to the page count in its header (zero pages)."""
    with open(path, "r+b") as fh:
        header = fh.read(100)
        if len(header) < 100 or not header.startswith(b"SQLite format 3\x00"):
            return
        page_size = int.from_bytes(header[16:18], "big")
        page_size = 65536 if page_size == 1 else page_size
        pages = int.from_bytes(header[28:32], "big")
        size = fh.seek(0, 2)
        whole = -(-size // page_size) * page_size
        fh.truncate(max(whole, pages * page_size))


def _try(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[Any] | None:
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.DatabaseError:
        return None


def _known_top(conn: sqlite3.Connection) -> int:
    """The largest seq the file knows of, from whichever place is still readable."""
    tops = [
        _try(conn, "SELECT seq FROM sqlite_sequence WHERE name = 'items'"),
        _try(conn, "SELECT max(seq) FROM items"),
    ]
    return max((int(r[0][0] or 0) for r in tops if r), default=0)


def salvage(copy: Path) -> Salvage:
    """Every readable row of a damaged memory file (works on `copy`, which it may modify)."""
    pad_truncated(copy)
    out = Salvage()
    conn = sqlite3.connect(copy, isolation_level=None)
    try:
        meta = _try(conn, "SELECT key, value FROM meta") or []
        out.meta = {str(k): str(v) for k, v in meta}
        _read_rows(conn, _known_top(conn), out)
    finally:
        conn.close()
    return out


def _read_rows(conn: sqlite3.Connection, top: int, out: Salvage) -> None:
    chunk_sql = f"SELECT {COLUMNS} FROM items WHERE seq > ? ORDER BY seq LIMIT {CHUNK}"
    one_sql = f"SELECT {COLUMNS} FROM items WHERE seq = ?"
    last = misses = 0
    while last < top or (top == 0 and misses < GIVE_UP_AFTER):  # top 0: nothing says where rows end
        rows = _try(conn, chunk_sql, (last,))
        if rows == []:
            return
        if rows:
            keep_rows(rows, out)
            last, misses = rows[-1][0], 0
            continue
        end = min(last + CHUNK, top) if top else last + CHUNK
        for seq in range(last + 1, end + 1):  # step over the damaged stretch
            found = _try(conn, one_sql, (seq,))
            if found is None:
                out.unreadable_seqs += 1
            keep_rows(found or [], out)
        misses += end - last
        last = end


def keep_rows(rows: list[Any], out: Salvage) -> None:
    """Sort rows into intact (checksum and JSON fine) and corrupt."""
    for row in rows:
        _, ns, key, value, _, emb, *_, crc = row
        try:
            ok = checksum(ns, key, value, emb) == crc and isinstance(json.loads(value), dict)
        except (ValueError, TypeError):
            ok = False
        (out.rows if ok else out.corrupt).append(tuple(row))
