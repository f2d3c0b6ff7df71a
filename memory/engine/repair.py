"""`memory check` and `memory repair`: what is wrong with a store, and fixing it keeping every
readable record.

check: SQLite's own quick_check, every record's checksum, the index file against the checksum
recorded for it, temp files left by killed writers. It changes nothing. repair: a database
SQLite cannot read is moved into `quarantine-<time>/` (with its WAL) and every readable record
is copied into a new database, seqs and metadata kept (so consolidation state survives);
records failing their checksum are written to `quarantine-<time>/corrupt-records.jsonl` and
removed; index files are deleted and the index is rebuilt from the records; temp files go.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from memory.engine.backend import DB_NAME, MemoryBackend
from memory.engine.index_file import file_crc, stale_files
from memory.engine.records import RecordTable
from memory.engine.rows import COLUMNS
from memory.engine.salvage import Salvage, keep_rows, salvage
from memory.engine.sqlite_file import BUSY_CODES, store_error

KEEP_META = ("embedder", "dimension", "consolidated_seq:")  # what a rebuilt database inherits


class RepairTable(RecordTable):
    """The items table as repair sees it: rows exactly as stored (no decoding, no checks),
    copied with their seqs, and removed by seq."""

    def raw_rows(self, after: int, limit: int = 1000) -> list[tuple[Any, ...]]:
        """Rows with seq > `after`, oldest first."""
        with self._lock:
            return self._conn.execute(
                f"SELECT {COLUMNS} FROM items WHERE seq > ? ORDER BY seq LIMIT ?", (after, limit)
            ).fetchall()

    def restore_rows(self, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert rows as read from another copy of a store, seqs included."""
        marks = ", ".join("?" * len(rows[0])) if rows else ""
        with self._write():
            self._conn.executemany(f"INSERT INTO items ({COLUMNS}) VALUES ({marks})", rows)

    def delete_seqs(self, seqs: Sequence[int]) -> int:
        with self._write():
            cur = self._conn.executemany("DELETE FROM items WHERE seq = ?", [(s,) for s in seqs])
        return cur.rowcount


@dataclass
class FolderReport:
    """The state of one store folder; `problems` is empty when it is healthy."""

    folder: str
    database: str = "ok"
    records: int = 0
    corrupt: list[str] = field(default_factory=list)
    unreadable_seqs: int = 0
    index: str = "ok"
    leftovers: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    access: str = "read-write"  # or "read-only": readable, but nothing can be saved or repaired

    @property
    def problems(self) -> list[str]:
        found = [] if self.database in ("ok", "missing") else [f"database {self.database}"]
        if self.corrupt:
            found.append(f"{len(self.corrupt)} records fail their checksum")
        if self.index not in ("ok", "missing", "none"):
            found.append(f"index {self.index}")
        if self.leftovers:
            found.append(f"{len(self.leftovers)} leftover files")
        return found


def check_folder(folder: Path) -> FolderReport:
    """Inspect without changing anything. A folder that cannot be written (a read-only mount)
    is checked on a private copy: SQLite cannot open a WAL database where it cannot create the
    database's shared-memory file, which is no damage."""
    report = FolderReport(str(folder))
    db = folder / DB_NAME
    if not db.exists():
        report.database, report.index = "missing", "none"
        return report
    if os.access(folder, os.W_OK):
        _check_database(report, folder, db)
        return report
    report.access = "read-only"
    with tempfile.TemporaryDirectory() as tmp:
        _check_database(report, folder, _copy_with_wal(db, Path(tmp)))
    return report


def _check_database(report: FolderReport, folder: Path, db: Path) -> None:
    """Fill `report` from the database file `db` of the store in `folder`."""
    damage = _quick_check(db)
    if damage:
        report.database = f"damaged ({damage})"
        with tempfile.TemporaryDirectory() as tmp:
            found = salvage(_copy_with_wal(db, Path(tmp)))
        _count(report, found)
        report.index = "will be rebuilt"
        return
    records = RepairTable(db)
    try:
        _count(report, _scan(records))
        report.index = _index_state(folder, records)
        report.leftovers = [p.name for p in stale_files(folder, _index_path(folder, records))]
    finally:
        records.close()


def repair_folder(folder: Path, embeddings: Embeddings) -> FolderReport:
    """Fix what check_folder finds; returns the report of the repaired store with its actions."""
    before = check_folder(folder)
    quarantine = folder / f"quarantine-{time.strftime('%Y%m%d-%H%M%S')}"
    actions: list[str] = []
    if before.database.startswith("damaged"):
        actions += _rebuild_database(folder, quarantine)
    elif before.corrupt:
        actions += _set_aside_corrupt(folder, quarantine)
    for path in folder.glob("index.*.faiss"):
        path.unlink()
    for name in before.leftovers:
        (folder / name).unlink(missing_ok=True)
    if before.leftovers:
        actions.append(f"removed {len(before.leftovers)} leftover files")
    backend = MemoryBackend.open(folder, embeddings)  # rebuilds the index from the records
    backend.close()
    actions.append(f"rebuilt the index ({backend.index.ntotal} vectors)")
    after = check_folder(folder)
    after.actions = actions
    return after


def _quick_check(db: Path, timeout_s: float = 5.0) -> str:
    """'' if SQLite finds the file sound, else what it says is wrong. A file another process
    holds locked is not damaged: that is a MemoryStoreError (retry later), never a reason to
    set a sound store aside."""
    try:
        conn = sqlite3.connect(db, timeout=timeout_s)
        try:
            rows = conn.execute("PRAGMA quick_check").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        if (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF in BUSY_CODES:
            raise store_error(str(db), exc) from exc
        return str(exc)
    return "" if rows == [("ok",)] else "; ".join(str(r[0]) for r in rows[:3])


def _copy_with_wal(db: Path, into: Path) -> Path:
    """Copy the database and its WAL (which holds committed records) side by side."""
    into.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal"):
        src = db.with_name(db.name + suffix)
        if src.exists():
            shutil.copy2(src, into / src.name)
    return into / db.name


def _scan(records: RepairTable) -> Salvage:
    found, last = Salvage(), 0
    while rows := records.raw_rows(last):
        keep_rows(rows, found)
        last = rows[-1][0]
    return found


def _count(report: FolderReport, found: Salvage) -> None:
    report.records = len(found.rows)
    report.corrupt = [f"seq={r[0]} key={r[2]!r}" for r in found.corrupt]
    report.unreadable_seqs = found.unreadable_seqs


def _index_path(folder: Path, records: RepairTable) -> Path:
    return folder / f"index.{records.store_id}.faiss"


def _index_state(folder: Path, records: RepairTable) -> str:
    path = _index_path(folder, records)
    if not path.exists():
        return "missing"
    recorded = records.meta(f"index_crc:{path.name}")
    if recorded is None:
        return "has no recorded checksum"
    return "ok" if file_crc(path) == recorded else "changed or damaged (checksum differs)"


def _rebuild_database(folder: Path, quarantine: Path) -> list[str]:
    db = folder / DB_NAME
    quarantine.mkdir(parents=True)
    for suffix in ("", "-wal", "-shm"):
        src = db.with_name(db.name + suffix)
        if src.exists():
            shutil.move(src, quarantine / src.name)
    with tempfile.TemporaryDirectory() as tmp:
        found = salvage(_copy_with_wal(quarantine / DB_NAME, Path(tmp)))
    records = RepairTable(db)
    try:
        for key, value in found.meta.items():
            if key.startswith(KEEP_META):
                records.set_meta(key, value)
        for start in range(0, len(found.rows), 5000):
            records.restore_rows(found.rows[start : start + 5000])
    finally:
        records.close()
    _write_corrupt(quarantine, found.corrupt)
    return [
        f"moved the damaged database to {quarantine}",
        f"kept {len(found.rows)} readable records in a new database",
        f"set aside {len(found.corrupt)} records failing their checksum, "
        f"{found.unreadable_seqs} seqs unreadable",
    ]


def _set_aside_corrupt(folder: Path, quarantine: Path) -> list[str]:
    records = RepairTable(folder / DB_NAME)
    try:
        found = _scan(records)
        quarantine.mkdir(parents=True)
        _write_corrupt(quarantine, found.corrupt)
        records.delete_seqs([r[0] for r in found.corrupt])
    finally:
        records.close()
    return [f"moved {len(found.corrupt)} records failing their checksum to {quarantine}"]


def _write_corrupt(quarantine: Path, rows: Iterable[tuple[Any, ...]]) -> None:
    """The raw fields of each bad record, for a person to inspect (vectors left out)."""
    lines = [
        json.dumps({"seq": r[0], "namespace": r[1], "key": r[2], "value": r[3], "text": r[4]})
        for r in rows
    ]
    if lines:
        (quarantine / "corrupt-records.jsonl").write_text("\n".join(lines) + "\n")
