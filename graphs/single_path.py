"""The single-path baseline: the same pipeline without reflection or retries, for comparison."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from agents.aggregate import aggregate_results
from agents.decompose import decompose_query
from agents.execute import execute_task
from agents.goal import goal_setting
from agents.tasks import update_task_index
from graphs.context import Context
from graphs.reflective import TRANSIENT
from graphs.routing import should_continue
from graphs.state import InputState, OutputState, ReflectiveAgentState


def build_single_path_graph() -> StateGraph:
    builder = StateGraph(
        ReflectiveAgentState,
        context_schema=Context,
        input_schema=InputState,
        output_schema=OutputState,
    )
    builder.add_node("goal_setting", goal_setting, retry_policy=TRANSIENT)
    builder.add_node("decompose_query", decompose_query, retry_policy=TRANSIENT)
    builder.add_node("execute_task", execute_task, retry_policy=TRANSIENT)
    builder.add_node("update_task_index", update_task_index)
    builder.add_node("aggregate_results", aggregate_results, retry_policy=TRANSIENT)

    builder.add_edge(START, "goal_setting")
    builder.add_edge("goal_setting", "decompose_query")
    builder.add_edge("decompose_query", "execute_task")
    builder.add_conditional_edges(
        "execute_task",
        should_continue,
        {"continue": "update_task_index", "finish": "aggregate_results"},
    )
    builder.add_edge("update_task_index", "execute_task")
    builder.add_edge("aggregate_results", END)
    return builder


graph = build_single_path_graph().compile(name="single_path_agent")
