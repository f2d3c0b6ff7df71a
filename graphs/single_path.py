"""The single-path baseline: the same pipeline without reflection or retries, for comparison."""

from __future__ import annotations

from graphs.pipeline import ResearchBuilder, TaskBuilder, pipeline_builder, task_builder


def build_single_path_task_graph() -> TaskBuilder:
    """One task: execute_task → finish_task (one attempt, not judged)."""
    builder = task_builder()
    builder.add_edge("execute_task", "finish_task")
    return builder


def build_single_path_graph() -> ResearchBuilder:
    """The reflective graph's shape with execute_task → finish_task per task."""
    return pipeline_builder(build_single_path_task_graph())


graph = build_single_path_graph().compile(name="single_path_agent")
