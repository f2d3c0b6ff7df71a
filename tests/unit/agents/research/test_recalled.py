"""A run names the memories that reached its prompts (`recalled`): those of earlier runs, so
what memory did to an answer can be traced (the carried stream's Kent Baer question), and none
when memory gave nothing; a new run on the same thread starts its own list."""

from __future__ import annotations

from langgraph.checkpoint.memory import InMemorySaver

from agents.research.memory_context import from_before
from core.state import STATE_KEYS
from graphs import build_reflective_graph
from memory.agent_memory import AgentMemory
from tests.unit.research_script import QUESTION, Script, wire

__all__ = ["wire"]


def test_a_run_names_the_memories_of_earlier_runs_in_its_prompts(wire):
    model = wire(Script())
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
    ctx = wire.context(min_relevance=-1.0)
    memory = AgentMemory(wire.store)
    first = graph.invoke(
        {"query": QUESTION},
        {"configurable": {"thread_id": "a"}},
        context=ctx,
        output_keys=STATE_KEYS,
    )
    # an empty store at the start: what reached its later prompts, this run made itself (its
    # tasks' lessons, a workflow learned from its first task)
    assert first["recalled"] and not from_before(memory, first["recalled"], first["reflection_ids"])

    model.calls.clear()
    second = graph.invoke(
        {"query": QUESTION},
        {"configurable": {"thread_id": "b"}},
        context=ctx,
        output_keys=STATE_KEYS,
    )
    earlier = from_before(memory, second["recalled"], second["reflection_ids"])
    lessons = [i for i in earlier if not i.startswith("workflow:")]
    assert lessons and set(lessons) <= set(first["reflection_ids"])
    assert len(second["recalled"]) == len(set(second["recalled"]))  # each once
    texts = {i.key: i.value["reflection"] for i in wire.store.search(("reflections", "default"))}
    prompts = "\n".join(c["prompt"] for c in model.calls)
    assert all(texts[i] in prompts for i in lessons)

    # the same thread again, with nothing of memory shown: the last run's list is gone
    off = wire.context(reflections_k=0, workflows_k=0)
    again = graph.invoke(
        {"query": QUESTION},
        {"configurable": {"thread_id": "b"}},
        context=off,
        output_keys=STATE_KEYS,
    )
    assert again["recalled"] == []
