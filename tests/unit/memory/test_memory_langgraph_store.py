"""SqliteStore: LangGraph's BaseStore over the reflection store, shared with ReflectionManager."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from core.embeddings import HashingEmbeddings
from memory.reflections.manager import ReflectionManager
from memory.reflections.schema import Reflection, ReflectionJudgment
from memory.stores.sqlite_store import SqliteStore


@pytest.fixture
def store(tmp_path):
    s = SqliteStore.open(tmp_path, HashingEmbeddings())
    yield s
    s.close()


def test_put_get_delete_and_namespaces(store):
    store.put(("proj", "alice"), "k1", {"text": "likes flights to Paris", "n": 1})
    store.put(("proj", "bob"), "k2", {"text": "codes in python", "n": 2})
    item = store.get(("proj", "alice"), "k1")
    assert item.value == {"text": "likes flights to Paris", "n": 1}
    assert item.namespace == ("proj", "alice") and item.created_at <= item.updated_at
    assert store.list_namespaces(prefix=("proj",)) == [("proj", "alice"), ("proj", "bob")]
    assert store.list_namespaces(max_depth=1) == [("proj",)]
    store.put(("proj", "alice"), "k1", {"text": "now prefers trains", "n": 3})
    assert store.get(("proj", "alice"), "k1").value["n"] == 3
    store.delete(("proj", "alice"), "k1")
    assert store.get(("proj", "alice"), "k1") is None


def test_search_by_query_filter_and_prefix(store):
    store.put(("u", "a"), "flight", {"text": "booked flights to Paris", "n": 1})
    store.put(("u", "a"), "code", {"text": "wrote python code", "n": 2})
    store.put(("u", "b"), "other", {"text": "flights to Rome", "n": 3})
    hits = store.search(("u", "a"), query="cheap flights")
    assert [h.key for h in hits][0] == "flight" and hits[0].score > hits[-1].score
    assert {h.key for h in store.search(("u",), query="flights", limit=5)} >= {"flight", "other"}
    assert [h.key for h in store.search(("u",), filter={"n": {"$gte": 2}})] == ["code", "other"]
    assert [h.key for h in store.search(("u",), limit=1, offset=1)] == ["code"]


def test_reflections_are_shared_both_ways(tmp_path, store):
    manager = ReflectionManager(backend=store.backend)
    j = ReflectionJudgment(needs_retry=False, confidence=0.9, reasons=[])
    manager.save_reflection(
        Reflection(id="r1", task="book a flight", reflection="dates first", judgment=j)
    )
    (hit,) = store.search(("reflections", "default"), query="flight")
    assert hit.key == "r1" and hit.value["reflection"] == "dates first"
    other_app = Reflection(id="r2", task="flight refund", reflection="keep receipts", judgment=j)
    store.put(("reflections", "default"), "r2", other_app.model_dump(mode="json"))
    assert {r.id for r in manager.get_relevant_reflections("flight", k=5)} == {"r1", "r2"}


def test_async_api(store):
    async def go():
        await store.aput(("a",), "k", {"text": "async flights"})
        got = await store.aget(("a",), "k")
        found = await store.asearch(("a",), query="flights")
        return got, found

    got, found = asyncio.run(go())
    assert got.value == {"text": "async flights"} and found[0].key == "k"


@dataclass
class Ctx:
    user: str = "alice"


class State(TypedDict):
    note: str
    recalled: list[str]


def test_a_graph_uses_it_as_runtime_store(store):
    def remember(state: State, runtime: Runtime[Ctx]) -> dict:
        ns = ("memories", runtime.context.user)
        runtime.store.put(ns, "n1", {"text": state["note"]})
        return {"recalled": [i.value["text"] for i in runtime.store.search(ns, query="flight")]}

    graph = (
        StateGraph(State, context_schema=Ctx)
        .add_node("remember", remember)
        .add_edge(START, "remember")
        .add_edge("remember", END)
        .compile(store=store)
    )
    out = graph.invoke({"note": "prefers window seats on flights"}, context=Ctx())
    assert out["recalled"] == ["prefers window seats on flights"]
    assert store.get(("memories", "alice"), "n1") is not None
