"""Pure routing decisions, unit-tested on hand-built states."""

from __future__ import annotations

from typing import Literal

from langgraph.runtime import Runtime
from langgraph.types import Send

from agents.research.tasks import task_input
from core.context import Context
from core.state import ReflectiveAgentState, TaskState, WebAgentState

Route = Literal["retry", "finish"]


def decide(*, needs_retry: bool, attempt: int, max_retries: int) -> Route:
    """After a reflection: retry the task or finish it.

    `attempt` counts the attempts made (1 after the first), so `max_retries=N` allows exactly
    N retries (N+1 attempts) per task — the original allowed one fewer.
    """
    return "retry" if needs_retry and attempt <= max_retries else "finish"


def should_retry_or_continue(state: TaskState, runtime: Runtime[Context]) -> Route:
    """The seed's router, per task: retry this task, or hand it back (the scheduler continues
    with the next tasks or finishes)."""
    return decide(
        needs_retry=state.get("needs_retry", False),
        attempt=state.get("attempt", 1),
        max_retries=runtime.context.max_retries,
    )


def route_tasks(state: ReflectiveAgentState) -> list[Send] | Literal["aggregate_results"]:
    """Fan the scheduled tasks out, one `run_task` subgraph each; none left: aggregate."""
    current = state.get("current_tasks") or []
    if not current:
        return "aggregate_results"
    return [Send("run_task", task_input(state, i)) for i in current]


def route_after_act(state: WebAgentState) -> Literal["observe", "finish"]:
    """The web agent: finish once the episode ended (stop, a limit, the task itself); else look."""
    return "finish" if state.get("done_reason") else "observe"
