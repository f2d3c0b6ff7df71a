"""Memory ids derive from (thread, run, task, attempt): a retried node or a resumed run upserts."""

from __future__ import annotations

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.base import PutOp
from langgraph.store.memory import InMemoryStore

from agents.research.records import memory_id
from core.state import STATE_KEYS
from graphs import build_reflective_graph
from tests.unit.fakes import HashEmbeddings
from tests.unit.research_script import Script


def test_memory_ids_are_stable_and_distinct():
    assert memory_id("t", "r", 0, 1) == memory_id("t", "r", 0, 1)
    ids = {
        memory_id(t, r, i, a)
        for t in ("t", None)
        for r in ("r", "s")
        for i in (0, 1)
        for a in (1, 2)
    }
    assert len(ids) == 16


class FlakyAfterSave(InMemoryStore):
    """Acknowledges a reflection save, then fails the node once with a transient error."""

    failed = False

    def batch(self, ops):
        ops = list(ops)
        results = super().batch(ops)
        saving = any(isinstance(o, PutOp) and o.namespace[0] == "reflections" for o in ops)
        if saving and not self.failed:
            self.failed = True
            raise ConnectionError("the connection dropped after the write")  # retried
        return results


def test_a_node_retried_after_its_save_upserts_the_same_reflection(wire):
    wire(Script())
    store = FlakyAfterSave(index={"dims": 256, "embed": HashEmbeddings(256)})
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=store)
    state = graph.invoke(
        {"query": "Who was Ada Lovelace?"},
        {"configurable": {"thread_id": "flaky"}},
        context=wire.context(max_retries=1),
        output_keys=STATE_KEYS,
    )
    assert store.failed  # the fault happened, and the node ran again
    items = store.search(("reflections", "default"), limit=20)
    assert len(items) == len(state["reflection_ids"]) == 3  # one per attempt, none twice
