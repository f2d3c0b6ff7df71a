"""Pure routing decisions, unit-tested on hand-built states."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.state import ReflectiveAgentState

Route = Literal["retry", "continue", "finish"]


def decide(*, needs_retry: bool, retry_count: int, max_retries: int, index: int, n_tasks: int) -> Route:
    """After a reflection: retry the task, continue to the next one, or finish.

    `retry_count` already counts the retry being asked for (the reflector increments it on a
    failed verdict), so `retry_count <= max_retries` allows exactly `max_retries` retries —
    the original's `<` allowed one fewer.
    """
    if needs_retry and 0 < retry_count <= max_retries:
        return "retry"
    return "continue" if index < n_tasks - 1 else "finish"


def should_retry_or_continue(state: ReflectiveAgentState, runtime: Runtime[Context]) -> Route:
    return decide(
        needs_retry=state.get("needs_retry", False),
        retry_count=state.get("retry_count", 0),
        max_retries=runtime.context.max_retries,
        index=state.get("current_task_index", 0),
        n_tasks=len(state.get("tasks") or []),
    )


def should_continue(state: ReflectiveAgentState) -> Literal["continue", "finish"]:
    """The single-path graph: next task or finish, no judgment."""
    index, n_tasks = state.get("current_task_index", 0), len(state.get("tasks") or [])
    return "continue" if index < n_tasks - 1 else "finish"
