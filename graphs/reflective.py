"""The self-reflective agent: plan, execute, reflect, retry or continue, aggregate."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy

from agents.aggregate import aggregate_results
from agents.decompose import decompose_query
from agents.execute import execute_task
from agents.goal import goal_setting
from agents.reflect import reflect_on_task
from agents.tasks import update_task_index
from graphs.context import Context
from graphs.routing import should_retry_or_continue
from graphs.state import InputState, OutputState, ReflectiveAgentState

# Transient provider errors (timeouts, rate limits) are retried; bad output is handled in nodes.
TRANSIENT = RetryPolicy(max_attempts=3)


def build_reflective_graph() -> StateGraph:
    """The uncompiled builder; compile it with your own checkpointer/store."""
    builder = StateGraph(
        ReflectiveAgentState,
        context_schema=Context,
        input_schema=InputState,
        output_schema=OutputState,
    )
    builder.add_node("goal_setting", goal_setting, retry_policy=TRANSIENT)
    builder.add_node("decompose_query", decompose_query, retry_policy=TRANSIENT)
    builder.add_node("execute_task", execute_task, retry_policy=TRANSIENT)
    builder.add_node("reflect_on_task", reflect_on_task, retry_policy=TRANSIENT)
    builder.add_node("update_task_index", update_task_index)
    builder.add_node("aggregate_results", aggregate_results, retry_policy=TRANSIENT)

    builder.add_edge(START, "goal_setting")
    builder.add_edge("goal_setting", "decompose_query")
    builder.add_edge("decompose_query", "execute_task")
    builder.add_edge("execute_task", "reflect_on_task")
    builder.add_conditional_edges(
        "reflect_on_task",
        should_retry_or_continue,
        {"retry": "execute_task", "continue": "update_task_index", "finish": "aggregate_results"},
    )
    builder.add_edge("update_task_index", "execute_task")
    builder.add_edge("aggregate_results", END)
    return builder


# Compiled without a checkpointer: `langgraph dev` and embedding apps bring their own.
graph = build_reflective_graph().compile(name="reflective_agent")
