"""The grammar of a decision that may call a workflow: one workflow call, or step by step.

When workflows are callable the model first makes a small choice (`workflow_choice_schema`):
`oneOf` one object per callable workflow, `{"action_type": <its name>, "args": {<placeholder>:
<enum of candidates>}}`, and `{"action_type": "step_by_step"}`; only on step_by_step is it asked
for a primitive action. A small model picks among a few high-level actions far more reliably
than it writes many low-level steps, and every argument comes from a closed list. A workflow
with a placeholder no candidate can fill right now is left out of this decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.web.workflow_actions import WorkflowAction, WorkflowCall
from agents.web.workflow_args import candidates
from prompts.web import WORKFLOW_ACTION_LINE

STEP_BY_STEP = "step_by_step"  # the choice that declines every workflow
# name -> placeholder -> allowed values (most likely first)
Options = dict[str, dict[str, list[str]]]


def call_options(actions: Sequence[WorkflowAction], task: str, observation: str) -> Options:
    """The workflows callable on this page, with the candidate values of each argument."""
    options: Options = {}
    for action in actions:
        values = {
            p.name: candidates(p, task, observation, template=action.description)
            for p in action.params
        }
        if all(values.values()):
            options[action.name] = values
    return options


def with_calls(primitive: dict[str, Any], options: Options) -> dict[str, Any]:
    """`primitive` (workflow_choice_schema passes the step_by_step object) as `oneOf` one branch per
    callable workflow and itself (or its own `oneOf` branches) last; unchanged when nothing is
    callable."""
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
    branches = primitive.get("oneOf") or [branch]  # a primitive action's own branches, spliced
    return {
        "title": primitive["title"],
        "description": primitive["description"],
        "oneOf": [*calls, *branches],
    }


def workflow_choice_schema(options: Options) -> dict[str, Any]:
    """The first, small decision when workflows are callable: one of them, or step by step."""
    step_by_step = {
        "title": "WebChoice",
        "description": "Call one workflow action, or act step by step.",
        "type": "object",
        "properties": {"action_type": {"type": "string", "enum": [STEP_BY_STEP]}},
        "required": ["action_type"],
    }
    return with_calls(step_by_step, options)


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
