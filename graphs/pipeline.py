"""What both research graphs share: plan → fan tasks out → aggregate, and the task subgraph's
state; each graph supplies its own per-task loop."""

from __future__ import annotations

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.types import RetryPolicy

from agents.research.aggregate import aggregate_results
from agents.research.decompose import decompose_query
from agents.research.execute import execute_task
from agents.research.goal import goal_setting, shape_response
from agents.research.tasks import finish_task, schedule_tasks
from core.context import Context
from core.state import InputState, ReflectiveAgentState, TaskInput, TaskOutput, TaskState
from graphs.routing import route_tasks

ResearchBuilder = StateGraph[ReflectiveAgentState, Context, InputState, ReflectiveAgentState]
TaskBuilder = StateGraph[TaskState, Context, TaskInput, TaskState]
# Transient provider errors (timeouts, rate limits) are retried; bad output is handled in nodes.
TRANSIENT = RetryPolicy(max_attempts=3)


def task_builder() -> TaskBuilder:
    """A task subgraph with execute_task and finish_task (→ END); each graph wires the rest."""
    builder = StateGraph(TaskState, context_schema=Context, input_schema=TaskInput)
    builder.add_node("execute_task", execute_task, retry_policy=TRANSIENT)
    builder.add_node("finish_task", finish_task)
    builder.add_edge(START, "execute_task")
    builder.add_edge("finish_task", END)
    return builder


def task_node(task_graph: TaskBuilder):
    """The parent's run_task node: runs one task's subgraph and hands back only its outputs.

    A function around the compiled subgraph (rather than the subgraph as the node) so the
    subgraph has no output schema: its stream updates then show every key its nodes write
    (task index, attempt, result, verdict, retry counter), while the parent receives only
    TaskOutput's keys (parallel tasks must not all write the parent's query or goal).
    """
    compiled = task_graph.compile(name="task")

    def run_task(state: TaskInput, config: RunnableConfig) -> TaskOutput:
        out = compiled.invoke(state, config)
        return {
            "results": out["results"],
            "task_reports": out["task_reports"],
            "reflection_ids": out.get("reflection_ids") or [],
        }

    return run_task


def pipeline_builder(run_task: TaskBuilder) -> ResearchBuilder:
    """goal_setting → (decompose_query ∥ shape_response) → schedule_tasks ⇉ run_task (one
    subgraph per task, in parallel) → schedule_tasks … → aggregate_results → END.

    No output schema: stream updates carry every state key (goal, tasks, the tasks running,
    each task's report with its attempts and retries), and invoke returns the whole state.
    """
    builder = StateGraph(ReflectiveAgentState, context_schema=Context, input_schema=InputState)
    builder.add_node("goal_setting", goal_setting, retry_policy=TRANSIENT)
    builder.add_node("decompose_query", decompose_query, retry_policy=TRANSIENT)
    builder.add_node("shape_response", shape_response, retry_policy=TRANSIENT)
    builder.add_node("schedule_tasks", schedule_tasks)
    builder.add_node("run_task", task_node(run_task))
    builder.add_node("aggregate_results", aggregate_results, retry_policy=TRANSIENT)
    builder.add_edge(START, "goal_setting")
    builder.add_edge("goal_setting", "decompose_query")
    builder.add_edge("goal_setting", "shape_response")
    builder.add_edge("decompose_query", "schedule_tasks")
    builder.add_edge("shape_response", "schedule_tasks")
    builder.add_conditional_edges("schedule_tasks", route_tasks, ["run_task", "aggregate_results"])
    builder.add_edge("run_task", "schedule_tasks")
    builder.add_edge("aggregate_results", END)
    return builder
