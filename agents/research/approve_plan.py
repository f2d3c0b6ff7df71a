"""approve_plan: with `Context.approve_plan`, a person accepts, edits or cancels the plan before
any task runs; without it, the plan passes unchanged.

The run pauses with a LangGraph interrupt whose value is the plan (what Studio shows and the
CLI prints):

    {"goal": ..., "tasks": [...], "depends_on": [[...], ...], "query": ..., "resume_with": ...}

and continues with `Command(resume=...)`:

    {"tasks": ["...", ...]}        run this plan (`depends_on` may come with it; a plan of as
                                   many tasks keeps the planner's, another has none)
    {"cancel": true}               end the run here, with no answer (`stopped`: "cancelled")

An answer that is neither is asked for again, the reason in the value's "error". The pause is
in the checkpoint, so it survives a process restart.

The value also carries the Agent Inbox fields (`action_request`, `config`, `description`) that
Agent Chat UI reads to show the plan with Accept, Edit and Ignore buttons, and the answers that
page sends are understood: a list of one `{"type": "accept" | "edit" | "ignore", "args": ...}`
(an edit's tasks arrive as text: a JSON list, or one task per line; ignore cancels).
"""

from __future__ import annotations

import json
import re
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import interrupt

from agents.research.reply import said
from core.context import Context
from core.state import MAX_TASKS, ReflectiveAgentState

CANCELLED = "The plan was cancelled: the run ended without an answer."
RESUME_WITH = '{"tasks": ["...", ...]} to run that plan, or {"cancel": true} to end the run'


def approve_plan(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    """The plan as a person approved or edited it, or the run cancelled."""
    if state.get("stopped") or not (state.get("approval") or runtime.context.approve_plan):
        return {}  # no approval asked, or a run stopped at a cap: the plan stands as made
    error = None
    while True:  # each interrupt() after the first asks again (LangGraph matches them in order)
        answer = interrupt(plan_request(state, error))
        try:
            return decide_plan(answer, state)
        except ValueError as exc:
            error = str(exc)


def plan_request(state: ReflectiveAgentState, error: str | None = None) -> dict[str, Any]:
    """The interrupt's value: the plan, how to answer, and what was wrong with the last answer."""
    request: dict[str, Any] = {
        "query": state.get("query", ""),
        "goal": state.get("optimized_goal", ""),
        "tasks": list(state.get("tasks") or []),
        "depends_on": [list(d) for d in state.get("depends_on") or []],
        "resume_with": RESUME_WITH,
    }
    if error:
        request["error"] = error
    return {**request, **_inbox_fields(request)}


def _inbox_fields(request: dict[str, Any]) -> dict[str, Any]:
    """What Agent Chat UI's inbox view reads: the action and its arguments, the buttons it may
    show, and the plan as Markdown."""
    steps = "\n".join(f"{n}. {task}" for n, task in enumerate(request["tasks"], 1))
    error = f"\n\n**Not taken:** {request['error']}" if request.get("error") else ""
    return {
        "action_request": {"action": "approve_plan", "args": {"tasks": request["tasks"]}},
        "config": {
            "allow_accept": True,
            "allow_edit": True,
            "allow_respond": False,
            "allow_ignore": True,
        },
        "description": f"**Plan for:** {request['query']}\n\n{steps}\n\n"
        f"Accept to run it, edit its tasks, or ignore to cancel the run.{error}",
    }


def decide_plan(answer: Any, state: ReflectiveAgentState) -> dict:
    """The state update for a resume value; ValueError says what is wrong with it."""
    answer = _from_inbox(answer, state)
    if not isinstance(answer, dict):
        raise ValueError(f"expected an object: {RESUME_WITH}; got {answer!r:.200}")
    if answer.get("cancel") is True:
        cancelled = said(state, CANCELLED)
        return {"stopped": "cancelled", "answer": "", "final_output": "", "messages": [cancelled]}
    tasks = answer.get("tasks")
    if not isinstance(tasks, list) or not all(isinstance(t, str) and t.strip() for t in tasks):
        raise ValueError(f"'tasks' must be a list of non-empty strings: {RESUME_WITH}")
    if not 1 <= len(tasks) <= MAX_TASKS:
        raise ValueError(f"a plan has 1 to {MAX_TASKS} tasks, got {len(tasks)}")
    tasks = [" ".join(t.split()) for t in tasks]
    return {"tasks": tasks, "depends_on": _depends_on(answer, state, len(tasks)), "stopped": None}


def _depends_on(answer: dict, state: ReflectiveAgentState, n: int) -> list[list[int]]:
    """The given dependencies (0-based, earlier tasks only), else the planner's when the plan
    kept its length, else none."""
    given = answer.get("depends_on")
    if given is None:
        planned = [list(d) for d in state.get("depends_on") or []]
        return planned if len(planned) == n else [[] for _ in range(n)]
    if not isinstance(given, list) or len(given) != n:
        raise ValueError(f"'depends_on' must hold one list per task ({n})")
    for i, deps in enumerate(given):
        if not isinstance(deps, list) or not all(isinstance(d, int) and 0 <= d < i for d in deps):
            raise ValueError(f"'depends_on'[{i}] must list earlier tasks' indices (0..{i - 1})")
    return [sorted(set(d)) for d in given]


_INBOX_TYPES = ("accept", "edit", "ignore", "response")
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")


def _from_inbox(answer: Any, state: ReflectiveAgentState) -> Any:
    """An Agent Inbox response (a list of one, or the dict alone) as this node's own answer;
    any other value as it came."""
    if isinstance(answer, list) and len(answer) == 1 and isinstance(answer[0], dict):
        answer = answer[0]
    if not isinstance(answer, dict) or answer.get("type") not in _INBOX_TYPES:
        return answer
    kind, args = answer["type"], answer.get("args")
    if kind == "ignore":
        return {"cancel": True}
    if kind == "response":
        raise ValueError("a reply in words is not a plan: accept, edit its tasks, or ignore")
    shown = args.get("args") if isinstance(args, dict) else None
    given = shown.get("tasks") if isinstance(shown, dict) else None
    if given is None:  # accepted as shown
        return {"tasks": list(state.get("tasks") or [])}
    return {"tasks": _tasks_text(given) if isinstance(given, str) else given}


def _tasks_text(text: str) -> list[str]:
    """Tasks edited as text: a JSON list, else one task per line (list marks dropped)."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, list):
        return value
    lines = (_LIST_MARK.sub("", line).strip() for line in text.splitlines())
    return [line for line in lines if line]
