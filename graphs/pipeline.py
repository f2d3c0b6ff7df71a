"""What both research graphs share: the state schemas and the plan → execute → aggregate nodes."""

from __future__ import annotations

from langgraph.graph import START, StateGraph
from langgraph.types import RetryPolicy

from agents.research.aggregate import aggregate_results
from agents.research.decompose import decompose_query
from agents.research.execute import execute_task
from agents.research.goal import goal_setting
from agents.research.tasks import update_task_index
from core.context import Context
from core.state import InputState, OutputState, ReflectiveAgentState

# The research graphs' builder type: state, context, input and output schemas.
ResearchBuilder = StateGraph[ReflectiveAgentState, Context, InputState, OutputState]
# Transient provider errors (timeouts, rate limits) are retried; bad output is handled in nodes.
TRANSIENT = RetryPolicy(max_attempts=3)


def pipeline_builder() -> ResearchBuilder:
    """A builder with goal_setting → decompose_query → execute_task wired, plus the
    update_task_index and aggregate_results nodes; each graph adds its own routing."""
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
    builder.add_edge("update_task_index", "execute_task")
    return builder
