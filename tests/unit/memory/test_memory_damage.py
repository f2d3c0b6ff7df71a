"""A damaged, locked or unusable store is one MemoryStoreError line naming the file and the fix."""

from __future__ import annotations

import os
import sqlite3

import pytest

from core.embeddings import HashingEmbeddings
from memory.engine.backend import DB_NAME, MEMORY_DIR
from memory.engine.errors import MemoryStoreDamagedError, MemoryStoreError
from memory.engine.records import RecordTable
from memory.reflections.manager import ReflectionManager
from memory.reflections.schema import Reflection, ReflectionJudgment


def filled(home, n: int = 400) -> str:
    m = ReflectionManager.open(home, HashingEmbeddings())
    j = ReflectionJudgment(needs_retry=False, confidence=0.5, reasons=[])
    m.save_many(
        [Reflection(task=f"task {i}", reflection="lesson " * 40, judgment=j) for i in range(n)]
    )
    m.close()
    return str(home / MEMORY_DIR / DB_NAME)


def assert_one_line_naming(exc: Exception, db: str, fix: str) -> None:
    text = str(exc)
    assert "\n" not in text and db in text and fix in text, text


def test_a_file_that_is_not_a_database(tmp_path):
    db = tmp_path / MEMORY_DIR / DB_NAME
    db.parent.mkdir()
    db.write_bytes(b"this is not sqlite " * 200)
    with pytest.raises(MemoryStoreDamagedError) as err:
        ReflectionManager.open(tmp_path, HashingEmbeddings())
    assert_one_line_naming(err.value, str(db), f"memory repair --home {tmp_path}")


def test_a_truncated_database(tmp_path):
    db = filled(tmp_path)
    os.truncate(db, os.path.getsize(db) // 2)
    with pytest.raises(MemoryStoreDamagedError) as err:
        ReflectionManager.open(tmp_path, HashingEmbeddings())
    assert_one_line_naming(err.value, db, "memory repair")


def test_damage_found_deep_inside_a_read_is_the_same_error(tmp_path):
    db = filled(tmp_path)
    with open(db, "r+b") as fh:  # a page of the table (written after its first rows) goes bad
        fh.seek(4096 * 20)
        fh.write(b"\xff" * 4096)
    records = RecordTable(db)  # opens fine: the schema and metadata pages are intact
    with pytest.raises(MemoryStoreDamagedError) as err:
        records.items("")
    assert_one_line_naming(err.value, db, "memory repair")


def test_a_lock_held_too_long_and_an_impossible_folder(tmp_path):
    db = tmp_path / DB_NAME
    RecordTable(db).close()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    with pytest.raises(MemoryStoreError, match="stayed locked by another process") as err:
        RecordTable(db, busy_timeout_s=0.2).set_meta("x", "y")
    assert_one_line_naming(err.value, str(db), "retry")
    holder.execute("ROLLBACK")
    (tmp_path / "file").write_text("")
    with pytest.raises(MemoryStoreError, match="cannot create the memory folder"):
        RecordTable(tmp_path / "file" / "memory" / DB_NAME)


def test_usage_errors_are_not_disguised(tmp_path):
    store = RecordTable(tmp_path / DB_NAME)
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        store._conn.execute("SELECT * FROM nowhere")
