"""Snapshots of each graph's mermaid drawing catch accidental rewiring; exports compile bare."""

from pathlib import Path

import pytest

from graphs import reflective_graph, single_path_graph, web_graph

SNAPSHOTS = Path(__file__).parent / "snapshots"


@pytest.mark.parametrize(
    ("graph", "name"),
    [(reflective_graph, "reflective_agent"), (single_path_graph, "single_path_agent")],
)
def test_mermaid_snapshot(graph, name):
    expected = (SNAPSHOTS / f"{name}.mmd").read_text()
    assert graph.get_graph().draw_mermaid() == expected, (
        f"{name} was rewired; if intended, regenerate tests/unit/graphs/snapshots/{name}.mmd"
    )


def _task_graph(graph):
    return dict(graph.get_subgraphs())["run_task"]


@pytest.mark.parametrize(
    ("graph", "name"),
    [
        (_task_graph(reflective_graph), "reflective_task"),
        (_task_graph(single_path_graph), "single_path_task"),
        (web_graph, "web_agent"),
    ],
)
def test_inner_mermaid_snapshot(graph, name):
    """The per-task subgraphs (execute → reflect → retry loop, or execute only) and the web
    agent: the outer drawings show `run_task` as one box, so its wiring is pinned here."""
    expected = (SNAPSHOTS / f"{name}.mmd").read_text()
    assert graph.get_graph().draw_mermaid() == expected, (
        f"{name} was rewired; if intended, regenerate tests/unit/graphs/snapshots/{name}.mmd"
    )


def test_exported_graphs_have_no_checkpointer():
    # langgraph dev and embedding apps bring their own persistence
    assert reflective_graph.checkpointer is None and single_path_graph.checkpointer is None
    assert reflective_graph.name == "reflective_agent"


def test_reflective_graph_draws_every_node_and_the_executor_agent():
    nodes = set(reflective_graph.get_graph(xray=True).nodes)
    assert {
        "goal_setting",
        "decompose_query",
        "schedule_tasks",
        "run_task:execute_task:model",  # the executor agent, drawn inside execute_task
        "run_task:execute_task:tools",
        "run_task:reflect_on_task",
        "run_task:finish_task",
        "aggregate_results",
    } <= nodes


def test_task_subgraph_and_executor_agent_are_visible():
    assert [name for name, _ in reflective_graph.get_subgraphs(recurse=True)] == [
        "run_task",
        "run_task|execute_task",
    ]
