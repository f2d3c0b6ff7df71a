"""update_task_index: move to the next task; every task starts with a fresh retry counter."""

from __future__ import annotations

from graphs.state import ReflectiveAgentState


def update_task_index(state: ReflectiveAgentState) -> dict:
    return {
        "current_task_index": state.get("current_task_index", 0) + 1,
        "retry_count": 0,
        "needs_retry": False,
    }
