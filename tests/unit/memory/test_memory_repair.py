"""`memory check` / `memory repair` on real damage: garbage, truncation, a bad page, bit rot in a
record, a changed index file. Repair keeps every readable record and the store opens again."""

from __future__ import annotations

import json
import os
import sqlite3

import pytest

from core.embeddings import HashingEmbeddings
from memory.engine.backend import DB_NAME, MEMORY_DIR
from memory.engine.repair import check_folder, repair_folder
from memory.reflections.manager import ReflectionManager
from memory.reflections.schema import Reflection, ReflectionJudgment

N = 600


@pytest.fixture
def store(tmp_path):
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    j = ReflectionJudgment(needs_retry=False, confidence=0.5, reasons=[])
    m.save_many(
        [
            Reflection(id=f"r{i}", task=f"task {i}", reflection="lesson " * 30, judgment=j)
            for i in range(N)
        ]
    )
    m.backend.records.set_meta(f"consolidated_seq:{m.prefix}", "77")
    m.close()
    return tmp_path / MEMORY_DIR


def reopened(folder) -> ReflectionManager:
    return ReflectionManager.open(folder.parent, HashingEmbeddings())


def test_a_healthy_store_has_no_problems(store):
    report = check_folder(store)
    assert report.problems == [] and report.records == N and report.index == "ok"


def test_garbage_is_quarantined_and_an_empty_store_replaces_it(store):
    (store / DB_NAME).write_bytes(b"garbage " * 5000)
    assert check_folder(store).database.startswith("damaged")
    report = repair_folder(store, HashingEmbeddings())
    assert report.problems == [] and report.records == 0
    (quarantine,) = store.glob("quarantine-*")
    assert (quarantine / DB_NAME).read_bytes().startswith(b"garbage")
    assert reopened(store).list_reflections() == []


@pytest.mark.parametrize("damage", ["truncated", "bad page"])
def test_every_readable_record_is_kept(store, damage):
    db = store / DB_NAME
    if damage == "truncated":
        os.truncate(db, os.path.getsize(db) // 2)
    else:
        with open(db, "r+b") as fh:
            fh.seek(4096 * 30)
            fh.write(os.urandom(4096))
    before = check_folder(store)
    assert before.database.startswith("damaged") and 0 < before.records < N
    report = repair_folder(store, HashingEmbeddings())
    assert report.problems == [] and report.records == before.records
    assert any(a.startswith("kept") for a in report.actions)
    m = reopened(store)
    kept = m.list_reflections()
    assert len(kept) == before.records
    assert all(r.task == f"task {r.id[1:]}" for r in kept), "kept records are the originals"
    lost = N - len(kept)
    assert lost < (N // 2 + 20 if damage == "truncated" else 20), "only the damaged part is lost"
    assert m.backend.index.ntotal == len(kept)
    assert m.backend.records.meta(f"consolidated_seq:{m.prefix}") == "77"
    assert m.get_relevant_reflections(kept[-1].task + "\n" + kept[-1].reflection, k=1)


def test_a_record_failing_its_checksum_is_set_aside(store):
    db = sqlite3.connect(store / DB_NAME)
    db.execute("UPDATE items SET value = replace(value, 'task 5', 'task 6') WHERE key = 'r5'")
    db.commit()
    db.close()
    assert check_folder(store).corrupt == ["seq=6 key='r5'"]
    report = repair_folder(store, HashingEmbeddings())
    assert report.problems == [] and report.records == N - 1
    (quarantine,) = store.glob("quarantine-*")
    (line,) = (quarantine / "corrupt-records.jsonl").read_text().splitlines()
    assert json.loads(line)["key"] == "r5"


def test_a_changed_index_is_reported_and_rebuilt(store):
    (index,) = store.glob("index.*.faiss")
    data = bytearray(index.read_bytes())
    data[-10] ^= 0xFF
    index.write_bytes(bytes(data))
    (store / f".{index.name}.999999999.tmp").write_bytes(b"partial")
    before = check_folder(store)
    assert before.index.startswith("changed") and len(before.leftovers) == 1
    after = repair_folder(store, HashingEmbeddings())
    assert after.problems == [] and after.index == "ok"


def test_a_file_another_process_holds_locked_is_busy_not_damaged(tmp_path):
    """Held under an exclusive lock (a rollback-journal file, as a store is for a moment while
    it is made), the file is not damaged: the check says so in one line, so repair sets
    nothing aside."""
    from memory.engine.errors import MemoryStoreDamagedError, MemoryStoreError
    from memory.engine.repair import _quick_check

    db = tmp_path / DB_NAME
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("CREATE TABLE t (x)")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(MemoryStoreError, match="stayed locked") as raised:
            _quick_check(db, timeout_s=0.1)
        assert not isinstance(raised.value, MemoryStoreDamagedError)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert _quick_check(db) == ""  # the lock gone, the file is sound
