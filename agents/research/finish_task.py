"""finish_task: a task's last attempt handed back to the parent, keyed by task index (only a
task's final attempt lands in the run's results, so failed attempts never reach the answer)."""

from __future__ import annotations

from agents.research.sources import hits
from core.state import TaskReport, TaskState, TaskVerdict
from prompts.research import NO_RESULT

# an attempt's verdict -> the task's, when it was the last attempt
_FINAL_VERDICTS: dict[str, TaskVerdict] = {"pass": "pass", "retry": "fail", "unjudged": "unjudged"}


def finish_task(state: TaskState) -> dict:
    """Hand the task's last attempt back to the parent, keyed by task index."""
    index = state["task_index"]
    report: TaskReport = {
        "task": state["task"],
        "attempts": state.get("attempt", 0),
        "retries": max(0, state.get("attempt", 0) - 1),
        "verdict": "skipped" if state.get("skipped") else _final_verdict(state.get("verdict")),
    }
    return {
        "results": {index: state.get("result") or NO_RESULT},
        "task_reports": {index: report},
        "task_steps": {index: state.get("trajectory") or []},
        "read": hits(state.get("task_evidence", "")),
    }


def _final_verdict(verdict: str | None) -> TaskVerdict:
    """The task's verdict from its last attempt's: a retry asked for and not granted means the
    retries ran out; an attempt not judged is done."""
    return _FINAL_VERDICTS.get(verdict or "", "done")
