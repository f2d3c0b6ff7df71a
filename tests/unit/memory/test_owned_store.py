"""One caller's view of a shared store (memory/stores/owned.py): what a served run of alice
saves lies under ("alice", ...), where the auth handler puts her store API requests too, and
bob's runs neither find nor overwrite it."""

from __future__ import annotations

import asyncio

from langgraph.store.memory import InMemoryStore

from memory.agent_memory import AgentMemory
from memory.stores.owned import OwnedStore
from tests.unit.fakes import HashEmbeddings
from tests.unit.memory.records import reflection


def _store() -> InMemoryStore:
    return InMemoryStore(index={"embed": HashEmbeddings(64), "dims": 64, "fields": ["text"]})


def test_each_owner_sees_only_their_own_items():
    shared = _store()
    alice, bob = OwnedStore(shared, "alice"), OwnedStore(shared, "bob")
    alice.put(("reflections", "default"), "r1", {"text": "Search titles first."})
    assert shared.get(("alice", "reflections", "default"), "r1") is not None
    item = alice.get(("reflections", "default"), "r1")
    assert item is not None and item.namespace == ("reflections", "default")
    assert bob.get(("reflections", "default"), "r1") is None
    assert bob.search(("reflections",), query="titles") == []
    (hit,) = alice.search(("reflections",), query="titles")
    assert hit.namespace == ("reflections", "default") and hit.score is not None
    bob.put(("reflections", "default"), "r1", {"text": "overwritten?"})
    assert alice.get(("reflections", "default"), "r1").value["text"] == "Search titles first."
    assert alice.list_namespaces() == [("reflections", "default")]
    assert asyncio.run(bob.aget(("reflections", "default"), "r1")).value["text"] == "overwritten?"


def test_a_runs_memory_through_an_owned_view():
    shared = _store()
    lesson = reflection("Who wrote Ada's notes?", "Next time, search the notes by their title.")
    AgentMemory(OwnedStore(shared, "alice")).save_reflection(lesson)
    assert AgentMemory(OwnedStore(shared, "alice")).relevant_reflections(lesson.task, k=3)
    assert AgentMemory(OwnedStore(shared, "bob")).relevant_reflections(lesson.task, k=3) == []
    assert shared.search(("alice", "reflections", "default"))
    assert not shared.search(("reflections",))
