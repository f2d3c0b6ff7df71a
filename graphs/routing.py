"""Pure routing decisions, unit-tested on hand-built states."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime

from core.context import Context
from core.state import ReflectiveAgentState, WebAgentState

Route = Literal["retry", "continue", "finish"]


def decide(
    *, needs_retry: bool, retry_count: int, max_retries: int, index: int, n_tasks: int
) -> Route:
    """After a reflection: retry the task, continue to the next one, or finish.

    `retry_count` comes from `agents.research.tasks.next_retry_count`: it already counts the
    retry being granted, and is 0 when none is, so `max_retries=N` allows exactly N retries
    (N+1 attempts) per task — the original allowed one fewer.
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


def route_after_act(state: WebAgentState) -> Literal["observe", "finish"]:
    """The web agent: finish once the episode ended (stop, a limit, the task itself); else look."""
    return "finish" if state.get("done_reason") else "observe"
