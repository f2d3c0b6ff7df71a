"""The self-reflective agent: plan, execute, reflect, retry or continue, aggregate."""

from __future__ import annotations

from langgraph.graph import END

from agents.research.reflect import reflect_on_task
from graphs.pipeline import TRANSIENT, ResearchBuilder, pipeline_builder
from graphs.routing import should_retry_or_continue


def build_reflective_graph() -> ResearchBuilder:
    """The uncompiled builder; compile it with your own checkpointer/store.

    goal_setting → decompose_query → execute_task → reflect_on_task
      ├ retry    → execute_task (same task, sees its previous attempt and the reflection)
      ├ continue → update_task_index → execute_task
      └ finish   → aggregate_results → END
    """
    builder = pipeline_builder()
    builder.add_node("reflect_on_task", reflect_on_task, retry_policy=TRANSIENT)
    builder.add_edge("execute_task", "reflect_on_task")
    builder.add_conditional_edges(
        "reflect_on_task",
        should_retry_or_continue,
        {"retry": "execute_task", "continue": "update_task_index", "finish": "aggregate_results"},
    )
    builder.add_edge("aggregate_results", END)
    return builder


# Compiled without a checkpointer: `langgraph dev` and embedding apps bring their own.
graph = build_reflective_graph().compile(name="reflective_agent")
