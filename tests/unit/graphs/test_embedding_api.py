"""The graphs embedded in other apps: as a Runnable (invoke/ainvoke/stream/batch) and a subgraph."""

from __future__ import annotations

import asyncio

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from core.state import STATE_KEYS
from graphs import Context, reflective_graph, single_path_graph
from tests.unit.research_script import Script, wire  # noqa: F401  (fixture)


def test_runnable_interface(wire):  # noqa: F811
    wire(Script([False] * 50))
    ctx = wire.context(max_retries=1, workflows_k=0)
    out = reflective_graph.invoke({"query": "Who was Ada Lovelace?"}, context=ctx)
    # what a caller needs, not the run's workings (those stream, and output_keys asks for them)
    assert set(out) == {"query", "messages", "answer", "final_output", "citations", "stopped"}
    assert out["final_output"].startswith("FINAL")
    assert out["citations"] == []  # "FINAL" is a name no passage read holds: never cited
    whole = reflective_graph.invoke({"query": "Ada?"}, context=ctx, output_keys=STATE_KEYS)
    assert set(whole) >= {"optimized_goal", "tasks", "results", "task_reports", "reflection_ids"}

    out = asyncio.run(single_path_graph.ainvoke({"query": "Who was Ada Lovelace?"}, context=ctx))
    assert out["final_output"].startswith("FINAL")

    nodes = [
        n for chunk in reflective_graph.stream({"query": "q about Ada"}, context=ctx) for n in chunk
    ]
    assert nodes[0] == "goal_setting"
    assert nodes[-3:] == ["aggregate_results", "check_answer", "reflect_on_answer"]

    outs = reflective_graph.batch([{"query": "Ada one"}, {"query": "Ada two"}], context=ctx)
    assert len(outs) == 2 and all(o["final_output"] for o in outs)


class Parent(TypedDict, total=False):
    query: str
    final_output: str
    reviewed: bool


def test_as_a_subgraph_node_in_a_parent_graph(wire):  # noqa: F811
    wire(Script([False] * 50))
    ctx = wire.context(max_retries=1, workflows_k=0)
    parent = StateGraph(Parent, context_schema=Context)
    parent.add_node("research", reflective_graph)  # shared keys: query in, final_output out
    parent.add_node("review", lambda s: {"reviewed": bool(s.get("final_output"))})
    parent.add_edge(START, "research")
    parent.add_edge("research", "review")
    parent.add_edge("review", END)
    out = parent.compile().invoke({"query": "Who was Ada Lovelace?"}, context=ctx)
    assert out["reviewed"] is True and out["final_output"].startswith("FINAL")
