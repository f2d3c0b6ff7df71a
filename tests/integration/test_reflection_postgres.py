"""Shared memory through LangGraph's PostgresStore on a real local PostgreSQL server."""

from __future__ import annotations

import pytest

from core.embeddings import HashingEmbeddings
from memory.engine.backend import MEMORY_DIR
from memory.reflections.schema import Reflection, ReflectionJudgment
from memory.stores.postgres import SharedReflectionManager, postgres_store

pytestmark = pytest.mark.integration


def refl(id_: str, task: str) -> Reflection:
    j = ReflectionJudgment(needs_retry=False, confidence=0.8, reasons=["r"])
    return Reflection(id=id_, task=task, reflection="a lesson about " + task, judgment=j)


def worker(shared, tmp_path, name: str, namespace: str = "team/alpha") -> SharedReflectionManager:
    """One worker = its own home (its own machine), the same PostgreSQL."""
    from memory.engine.backend import MemoryBackend

    backend = MemoryBackend.open(tmp_path / name / MEMORY_DIR, HashingEmbeddings())
    return SharedReflectionManager(
        shared, backend=backend, namespace=namespace, pull_interval_s=0.0
    )


def test_postgres_store_keeps_records(pg_url):
    with postgres_store(pg_url) as store:
        store.put(("notes", "u1"), "k", {"text": "hello"})
        assert store.get(("notes", "u1"), "k").value == {"text": "hello"}
        assert [i.key for i in store.search(("notes",))] == ["k"]
        store.delete(("notes", "u1"), "k")
        assert store.get(("notes", "u1"), "k") is None


def test_workers_share_reflections_through_postgres(pg_url, tmp_path):
    with postgres_store(pg_url) as shared:
        a = worker(shared, tmp_path, "a")
        b = worker(shared, tmp_path, "b")
        a.save_reflection(refl("r1", "book a flight"))
        a.save_many([refl(f"bulk{i}", f"compare hotel prices {i}") for i in range(30)])
        assert [r.id for r in b.get_relevant_reflections("book a flight", k=1)] == ["r1"]
        assert b.count() == 31
        # the record is in PostgreSQL itself, readable by any LangChain app
        assert shared.get(("reflections", "team", "alpha"), "r1").value["task"] == "book a flight"
        b.delete_reflection("r1")
        assert "r1" not in [r.id for r in a.get_relevant_reflections("book a flight", k=3)]
        assert a.get_reflection("r1") is None
        # another namespace sees none of it
        other = worker(shared, tmp_path, "c", namespace="team/beta")
        assert other.count() == 0
        # a worker that starts later gets everything on open
        late = worker(shared, tmp_path, "d")
        assert late.count() == 30
        assert a.clear() == 30 and late.pull() == 30 and late.count() == 0


def test_a_worker_consolidates_once_and_shares_the_insights(pg_url, tmp_path):
    from tests.integration.store_fault_child import scripted_model

    with postgres_store(pg_url) as shared:
        a = worker(shared, tmp_path, "a", namespace="team/gamma")
        b = worker(shared, tmp_path, "b", namespace="team/gamma")
        a.save_many([refl(f"c{i}", f"flight booking {i}") for i in range(3)])
        a.chat_model = scripted_model(None)
        insights = a.maybe_consolidate(force=True)
        assert len(insights) == 4 and a.maybe_consolidate(force=True) == []
        kinds = [i.value["kind"] for i in shared.search(("reflections", "team", "gamma"), limit=50)]
        assert kinds.count("insight") == 4, "the insights are in PostgreSQL"
        b.pull()  # (searches pull by themselves; listing does not)
        assert len(b.list_reflections(kind="insight")) == 4, "and every worker sees them"
