"""The self-reflective agent: plan, run tasks (execute, reflect, retry) in parallel, aggregate."""

from __future__ import annotations

from agents.research.reflect import reflect_on_task
from graphs.pipeline import TRANSIENT, ResearchBuilder, TaskBuilder, pipeline_builder, task_builder
from graphs.routing import should_retry_or_continue


def build_task_graph() -> TaskBuilder:
    """One task: execute_task → reflect_on_task
    ├ retry  → execute_task (sees its previous attempt and the reflection on it)
    └ finish → finish_task (hands the last attempt back to the parent)
    """
    builder = task_builder()
    builder.add_node("reflect_on_task", reflect_on_task, retry_policy=TRANSIENT)
    builder.add_edge("execute_task", "reflect_on_task")
    builder.add_conditional_edges(
        "reflect_on_task",
        should_retry_or_continue,
        {"retry": "execute_task", "finish": "finish_task"},
    )
    return builder


def build_reflective_graph() -> ResearchBuilder:
    """The uncompiled builder; compile it with your own checkpointer/store.

    goal_setting → decompose_query ∥ shape_response → schedule_tasks → run_task × ready tasks
    (each its own execute → reflect → retry loop) → schedule_tasks … → aggregate_results.
    The seed's update_task_index is schedule_tasks: it picks every task whose dependencies are
    done, and the seed's should_retry_or_continue routes inside each task.
    """
    return pipeline_builder(build_task_graph())


# Compiled without a checkpointer or store: `langgraph dev` and embedding apps bring their own.
graph = build_reflective_graph().compile(name="reflective_agent")
