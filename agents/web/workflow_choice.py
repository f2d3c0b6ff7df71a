"""The grammar of a decision that may call a workflow: a primitive action OR one workflow call.

The decision schema becomes `oneOf` the primitive action object and one object per callable
workflow, `{"action_type": <its name>, "args": {<placeholder>: <enum of candidates>}}`, so the
model picks the action and every argument from closed lists. A workflow with a placeholder no
candidate can fill right now is left out of this decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.web.workflow_actions import WorkflowAction, WorkflowCall
from agents.web.workflow_args import candidates
from prompts.web import WORKFLOW_ACTION_LINE

# name -> placeholder -> allowed values (most likely first)
Options = dict[str, dict[str, list[str]]]


def call_options(actions: Sequence[WorkflowAction], task: str, observation: str) -> Options:
    """The workflows callable on this page, with the candidate values of each argument."""
    options: Options = {}
    for action in actions:
        values = {p.name: candidates(p, task, observation) for p in action.params}
        if all(values.values()):
            options[action.name] = values
    return options


def with_calls(primitive: dict[str, Any], options: Options) -> dict[str, Any]:
    """The primitive decision schema extended with one branch per callable workflow."""
    if not options:
        return primitive
    calls = [
        {
            "type": "object",
            "properties": {
                "action_type": {"type": "string", "enum": [name]},
                "args": {
                    "type": "object",
                    "properties": {p: {"type": "string", "enum": v} for p, v in args.items()},
                    "required": list(args),
                },
            },
            "required": ["action_type", "args"],
        }
        for name, args in options.items()
    ]
    branch = {k: v for k, v in primitive.items() if k not in ("title", "description")}
    return {"title": primitive["title"], "description": primitive["description"],
            "oneOf": [*calls, branch]}  # fmt: skip


def compose_call(answer: dict[str, Any], options: Options) -> tuple[str, str | None] | None:
    """(call text, problem or None) when the answer names a workflow; None otherwise."""
    name = str(answer.get("action_type", "")).strip()
    if name not in options:
        return None
    given = answer.get("args")
    given = given if isinstance(given, dict) else {}
    args = {p: str(given.get(p, "")) for p in options[name]}
    text = WorkflowCall(name, args).text
    wrong = [p for p, v in args.items() if v not in options[name][p]]
    if wrong:
        allowed = "; ".join(f"{p}: {', '.join(map(repr, options[name][p][:5]))}" for p in wrong)
        return text, f"{name}: argument(s) {', '.join(wrong)} must be one of {allowed}"
    return text, None


def describe(actions: Sequence[WorkflowAction], options: Options) -> str:
    """The <workflow_actions> lines for the workflows callable now ("" when none)."""
    return "\n".join(
        WORKFLOW_ACTION_LINE.format(
            signature=a.signature, description=a.description, steps=len(a.steps)
        )
        for a in actions
        if a.name in options
    )
