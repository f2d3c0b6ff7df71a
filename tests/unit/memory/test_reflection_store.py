"""Reflection memory: seed API, persistence, index upkeep, corruption, embedder checks, scoring."""

from __future__ import annotations

import sqlite3
import warnings

import pytest

from core.embeddings import CachedEmbeddings, HashingEmbeddings
from memory.engine.backend import DB_NAME, MEMORY_DIR
from memory.engine.errors import CorruptRecordWarning, EmbedderMismatchError
from memory.reflections.manager import ReflectionManager, format_reflections
from memory.reflections.schema import Reflection, ReflectionJudgment
from memory.reflections.scoring import ScoreWeights

HOUR = 3600.0


def refl(task: str, text: str = "lesson", importance: float = 0.5, **kw) -> Reflection:
    judgment = ReflectionJudgment(needs_retry=False, confidence=0.8, reasons=["r"])
    return Reflection(task=task, reflection=text, judgment=judgment, importance=importance, **kw)


def test_in_process_manager_keeps_the_seed_api():
    m = ReflectionManager()
    a = m.save_reflection(refl("book a flight to Paris", "Pick the dates before searching."))
    m.save_reflection(refl("write a python function", "Run the tests first."))
    assert m.get_reflection(a).task == "book a flight to Paris"
    assert m.get_reflection("missing") is None
    top = m.get_relevant_reflections("cheap flight Paris", k=3)
    assert [r.id for r in top] == [a]  # unrelated reflections (relevance 0) are not returned
    assert len(m.list_reflections()) == 2
    text = m.format_reflections(top)
    assert text == format_reflections(top)
    assert text.startswith("<ref_0>\n<task>book a flight to Paris</task>\n<reflection>")
    assert text.endswith("</reflection>\n</ref_0>")


def test_persists_across_reopen_and_lists_oldest_first(tmp_path):
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    ids = [m.save_reflection(refl(f"flight search {i}")) for i in range(5)]
    m.close()
    again = ReflectionManager.open(tmp_path, HashingEmbeddings())
    assert [r.id for r in again.list_reflections()] == ids
    assert len(again.get_relevant_reflections("flight search", k=3)) == 3
    assert (tmp_path / MEMORY_DIR / DB_NAME).exists()


def test_namespaces_are_separate(tmp_path):
    alice = ReflectionManager.open(tmp_path, HashingEmbeddings(), namespace="proj/alice")
    bob = ReflectionManager(backend=alice.backend, namespace="proj/bob")
    alice.save_reflection(refl("flight booking"))
    assert bob.get_relevant_reflections("flight booking") == []
    assert bob.list_reflections() == []
    with pytest.raises(ValueError, match="namespace"):
        ReflectionManager(namespace="bad.name")


def test_delete_and_clear(tmp_path):
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    a = m.save_reflection(refl("flight one"))
    m.save_reflection(refl("flight two"))
    assert m.delete_reflection(a) and not m.delete_reflection(a)
    assert [r.task for r in m.get_relevant_reflections("flight", k=5)] == ["flight two"]
    assert m.clear() == 1 and m.list_reflections() == []


def test_index_is_rebuilt_when_missing_and_caught_up_when_stale(tmp_path):
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    m.save_many([refl(f"task number {i} flight") for i in range(1200)])  # > save threshold
    index_files = list((tmp_path / MEMORY_DIR).glob("index.*.faiss"))
    assert len(index_files) == 1, "a large new tail is persisted as an index file"
    covered = m.backend.index.covered_seq
    m.save_reflection(refl("a later flight"))  # the file is now stale by one record
    m.close()
    index_files[0].unlink()  # missing → rebuilt from the records
    again = ReflectionManager.open(tmp_path, HashingEmbeddings())
    assert again.backend.index.ntotal == 1201 and again.backend.index.covered_seq > covered
    assert any(r.task == "a later flight" for r in again.get_relevant_reflections("later", k=3))


def test_garbage_index_file_is_ignored_and_rebuilt(tmp_path):
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    m.save_reflection(refl("flight"))
    m.flush()
    (index,) = (tmp_path / MEMORY_DIR).glob("index.*.faiss")
    m.close()
    index.write_bytes(b"not a faiss index")
    again = ReflectionManager.open(tmp_path, HashingEmbeddings())
    assert again.backend.index.ntotal == 1
    assert again.get_relevant_reflections("flight")[0].task == "flight"


def test_corrupted_record_is_skipped_with_a_warning(tmp_path):
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    good = m.save_reflection(refl("flight good"))
    bad = m.save_reflection(refl("flight bad"))
    m.close()
    db = sqlite3.connect(tmp_path / MEMORY_DIR / DB_NAME)  # bit rot in the newest record
    db.execute("UPDATE items SET value = substr(value, 1, 20) WHERE key = ?", (bad,))
    db.commit()
    db.close()
    with pytest.warns(CorruptRecordWarning, match="corrupt"):
        again = ReflectionManager.open(tmp_path, HashingEmbeddings())
        assert [r.id for r in again.list_reflections()] == [good]
        assert [r.id for r in again.get_relevant_reflections("flight", k=3)] == [good]


def test_different_embedder_is_a_clear_error_and_reembed_fixes_it(tmp_path):
    ReflectionManager.open(tmp_path, HashingEmbeddings(64)).save_reflection(refl("flight"))
    with pytest.raises(EmbedderMismatchError, match=r"64 dimensions.*32 dimensions.*reembed"):
        ReflectionManager.open(tmp_path, HashingEmbeddings(32))
    m = ReflectionManager.open(tmp_path, HashingEmbeddings(32), reembed=True)
    assert m.backend.dimension == 32
    assert m.get_relevant_reflections("flight")[0].task == "flight"
    ReflectionManager.open(tmp_path, HashingEmbeddings(32))  # now the recorded embedder


def test_embedding_of_wrong_length_is_a_clear_error():
    class Liar(HashingEmbeddings):
        def embed_documents(self, texts):
            return [[1.0, 0.0] for _ in texts]

    m = ReflectionManager(Liar(16))
    with pytest.raises(ValueError, match="2 dimensions but the store holds 16"):
        m.save_reflection(refl("anything"))


def test_recency_changes_the_ranking_and_retrieval_refreshes_it(tmp_path):
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    old = m.save_reflection(refl("flight booking tips"))
    new = m.save_reflection(refl("flight booking tricks"))
    db = m.backend.records
    seq_old = db.get(m.prefix, old).seq
    db.touch([seq_old], when=db.get(m.prefix, old).last_accessed - 200 * HOUR)
    top = m.search("flight booking", k=2)
    assert [s.reflection.id for s in top] == [new, old]
    assert top[1].parts.recency == pytest.approx(0.99**200, rel=1e-3)
    # the retrieval above refreshed both, so they now tie on recency and relevance
    again = m.search("flight booking", k=2, touch=False)
    assert again[1].parts.recency == pytest.approx(1.0, abs=1e-3)
    # with the recency weight at zero, old age does not matter at all
    db.touch([seq_old], when=db.get(m.prefix, old).last_accessed - 200 * HOUR)
    m.weights = ScoreWeights(recency=0.0)
    scores = [s.parts.score for s in m.search("flight booking", k=2)]
    assert scores == pytest.approx([top[0].parts.score - 1.0] * 2, abs=1e-5)


def test_importance_changes_the_ranking():
    m = ReflectionManager()
    close = m.save_reflection(refl("flight booking paris hotel", importance=0.0))
    far = m.save_reflection(refl("flight booking", importance=1.0))
    query = "flight booking paris hotel"
    assert m.get_relevant_reflections(query, k=1)[0].id == far
    m.weights = ScoreWeights(importance=0.0)
    assert m.get_relevant_reflections(query, k=1)[0].id == close


def test_score_is_the_weighted_sum():
    m = ReflectionManager(weights=ScoreWeights(relevance=2.0, recency=0.5, importance=3.0))
    m.save_reflection(refl("flight", importance=0.4))
    (hit,) = m.search("flight", k=1)
    p = hit.parts
    assert 0.5 < p.relevance <= 1.0  # "flight" vs the embedded "flight\nlesson"
    assert p.score == pytest.approx(2.0 * p.relevance + 0.5 * p.recency + 3.0 * 0.4)


def test_ranking_many_at_once_equals_scoring_one_by_one():
    from memory.reflections.scoring import score, totals

    w = ScoreWeights(relevance=2.0, recency=0.5, importance=3.0, decay=0.9)
    rows = [(1.3, 0.0, 0.2), (-0.1, 7200.0, 1.4), (0.5, 86_400.0, 0.7)]  # clipped ends included
    one = [score(r, at, imp, 90_000.0, w).score for r, at, imp in rows]
    assert totals(*zip(*rows, strict=True), 90_000.0, w).tolist() == pytest.approx(one)


def test_cached_embeddings_embed_each_text_once():
    class Counting(HashingEmbeddings):
        calls: list[str] = []

        def embed_documents(self, texts):
            self.calls.extend(texts)
            return super().embed_documents(texts)

    inner = Counting(32)
    cached = CachedEmbeddings(inner, name="counting")
    cached.embed_documents(["a b c", "d e f", "a b c"])
    cached.embed_query("a b c")
    assert inner.calls == ["a b c", "d e f"]
    assert cached.name == "counting" and cached.dimension == 32


def test_importing_records_is_all_or_nothing_and_in_one_transaction(tmp_path):
    m = ReflectionManager.open(tmp_path, HashingEmbeddings())
    m.save_many([refl(f"flight {i}") for i in range(50)])
    assert m.count() == 50
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing corrupt was written
        assert len(ReflectionManager.open(tmp_path, HashingEmbeddings()).list_reflections()) == 50


def test_the_project_store_gives_each_namespace_a_manager_over_one_engine(tmp_path):
    from memory.stores.project_store import open_project_store

    with open_project_store(tmp_path, "hashing") as store:
        a = store.reflection_manager("default")
        b = store.reflection_manager("proj/bob")
        assert b is not a and b.backend is a.backend  # one store, two namespaces
        a.save_reflection(refl("flight"))
        assert b.list_reflections() == [] and len(a.list_reflections()) == 1
    with open_project_store(tmp_path, "hashing") as store:  # a later opening reads it back
        assert len(store.reflection_manager("default").list_reflections()) == 1
