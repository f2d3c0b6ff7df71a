"""The single-path baseline: the same pipeline without reflection or retries, for comparison."""

from __future__ import annotations

from langgraph.graph import END

from graphs.pipeline import ResearchBuilder, pipeline_builder
from graphs.routing import should_continue


def build_single_path_graph() -> ResearchBuilder:
    """goal_setting → decompose_query → execute_task → (next task | aggregate_results) → END"""
    builder = pipeline_builder()
    builder.add_conditional_edges(
        "execute_task",
        should_continue,
        {"continue": "update_task_index", "finish": "aggregate_results"},
    )
    builder.add_edge("aggregate_results", END)
    return builder


graph = build_single_path_graph().compile(name="single_path_agent")
