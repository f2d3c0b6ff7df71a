"""SharedStore: one memory for several workers, each searching its own mirror. PostgreSQL is
played here by an InMemoryStore without a vector index (as PostgresStore is set up without
pgvector); tests/integration/test_shared_memory_workers.py runs it on a real PostgreSQL server
with two Ray workers."""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore

from graphs import build_reflective_graph
from memory.agent_memory import AgentMemory
from memory.stores.shared_store import SharedStore, redacted
from memory.stores.sqlite_store import SqliteStore
from tests.unit.fakes import HashEmbeddings
from tests.unit.memory.records import reflection, workflow
from tests.unit.research_script import Script, run, wire

__all__ = ["wire"]
TASK = "find the birth year of ada lovelace"


def worker(shared, tmp_path, name: str, pull_interval_s: float = 0.0, scope=()) -> SharedStore:
    """One worker: its own home (its own machine), the same shared database."""
    local = SqliteStore.open(tmp_path / name, HashEmbeddings(256))
    return SharedStore(shared, local, pull_interval_s=pull_interval_s, scope=scope)


def test_a_lesson_saved_by_one_worker_is_found_by_the_other(tmp_path):
    shared = InMemoryStore()
    a, b = worker(shared, tmp_path, "a"), worker(shared, tmp_path, "b")
    AgentMemory(a).save_reflection(reflection(TASK, "cite the biography", rid="r1"))
    found = AgentMemory(b, min_relevance=0.2).relevant_reflections(TASK, k=3)
    assert [r.id for r in found] == ["r1"]
    assert shared.get(("reflections", "default"), "r1").value["reflection"] == (
        "cite the biography"
    )  # in the shared database itself, readable by any LangChain app
    AgentMemory(a).store.delete(("reflections", "default"), "r1")
    assert AgentMemory(b, min_relevance=0.2).relevant_reflections(TASK, k=3) == []


def test_workflows_are_shared_and_pulled_once(tmp_path):
    shared = InMemoryStore()
    a, b = worker(shared, tmp_path, "a"), worker(shared, tmp_path, "b")
    AgentMemory(a).put_workflows("research", [workflow("find_birth_year", "find a birth")])
    found = AgentMemory(b).relevant_workflows("when was a person born", k=1, website="research")
    assert [w.name for w in found] == ["find_birth_year"]
    assert b.pull(("workflows", "research")) == 0  # the mirror already equals the database


def test_another_workers_record_waits_for_the_pull_interval(tmp_path):
    shared = InMemoryStore()
    a, b = worker(shared, tmp_path, "a"), worker(shared, tmp_path, "b", pull_interval_s=3600)
    memory_b = AgentMemory(b, min_relevance=0.2)
    assert b.pull(("reflections", "default")) == 0  # pulled now: nothing yet
    AgentMemory(a).save_reflection(reflection(TASK, "cite the biography", rid="r1"))
    assert memory_b.relevant_reflections(TASK, k=3) == []  # within the interval: not pulled
    b.pull(("reflections", "default"))
    assert [r.id for r in memory_b.relevant_reflections(TASK, k=3)] == ["r1"]


def test_memories_of_different_scopes_share_a_database_apart(tmp_path):
    shared = InMemoryStore()
    carry = worker(shared, tmp_path, "a", scope=("stream", "carry"))
    other = worker(shared, tmp_path, "b", scope=("stream", "fresh"))
    AgentMemory(carry).save_reflection(reflection(TASK, "cite the biography", rid="r1"))
    assert shared.get(("stream", "carry", "reflections", "default"), "r1") is not None
    assert AgentMemory(other, min_relevance=0.2).relevant_reflections(TASK, k=3) == []
    assert AgentMemory(other).list_reflections() == []
    again = worker(shared, tmp_path, "c", scope=("stream", "carry"))
    assert [r.id for r in AgentMemory(again).list_reflections()] == ["r1"]
    assert again.get(("reflections", "default"), "r1").namespace == ("reflections", "default")
    assert again.list_namespaces() == [("reflections", "default")]


def test_a_refused_write_leaves_the_mirror_untouched(tmp_path):
    class Refusing(InMemoryStore):
        def batch(self, ops):
            raise ConnectionError("the database went away")

    a = worker(Refusing(), tmp_path, "a")
    with pytest.raises(ConnectionError):
        AgentMemory(a).save_reflection(reflection(TASK, "cite the biography", rid="r1"))
    assert a.local.get(("reflections", "default"), "r1") is None


def test_the_graph_of_one_worker_reads_the_lessons_of_another(wire, tmp_path):
    """The research graph compiled with worker B's store gets in its prompts the lesson
    worker A's run saved."""
    shared = InMemoryStore()
    model = wire(Script())
    run(build_reflective_graph(), wire.context(max_retries=0), store=worker(shared, tmp_path, "a"))
    saved = [i.value["reflection"] for i in shared.search(("reflections", "default"), limit=50)]
    assert saved
    model.calls.clear()
    b = worker(shared, tmp_path, "b")
    run(build_reflective_graph(), wire.context(max_retries=0), store=b)
    goal = next(c["prompt"] for c in model.calls if c["title"] == "GoalSetting")
    assert any(lesson[:40] in goal for lesson in saved)


def test_the_password_never_reaches_a_message():
    assert redacted("postgresql://bob:s3cret@db:5432/agent") == "postgresql://bob:***@db:5432/agent"
    assert redacted("postgresql://bob@db/agent") == "postgresql://bob@db/agent"
