"""The task counters: update_task_index moves to the next task, next_retry_count counts retries;
every task starts with a fresh retry counter."""

from __future__ import annotations

from core.state import ReflectiveAgentState


def update_task_index(state: ReflectiveAgentState) -> dict:
    return {
        "current_task_index": state.get("current_task_index", 0) + 1,
        "retry_count": 0,
        "needs_retry": False,
    }


def next_retry_count(*, needs_retry: bool, retry_count: int, max_retries: int) -> int:
    """The counter after a verdict: +1 for a granted retry, else 0 (the next task starts fresh).

    A pass resets it, and so do exhausted retries (the original left it at its maximum).
    """
    if needs_retry and retry_count < max_retries:
        return retry_count + 1
    return 0
