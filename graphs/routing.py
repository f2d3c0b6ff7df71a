"""Pure routing decisions, unit-tested on hand-built states."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime

from graphs.context import Context
from graphs.state import ReflectiveAgentState

Route = Literal["retry", "continue", "finish"]


def next_retry_count(*, needs_retry: bool, retry_count: int, max_retries: int) -> int:
    """The counter after a verdict: +1 for a granted retry, else 0 (the next task starts fresh).

    A pass resets it, and so do exhausted retries (the original left it at its maximum).
    """
    if needs_retry and retry_count < max_retries:
        return retry_count + 1
    return 0


def decide(
    *, needs_retry: bool, retry_count: int, max_retries: int, index: int, n_tasks: int
) -> Route:
    """After a reflection: retry the task, continue to the next one, or finish.

    `retry_count` comes from `next_retry_count`: it already counts the retry being granted, and
    is 0 when none is, so `max_retries=N` allows exactly N retries (N+1 attempts) per task —
    the original allowed one fewer.
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
