"""Workflows as callable actions (AWM's action variant): a workflow becomes `name(arg=…)`.

An induced workflow whose steps are WebArena actions with their targets named
(`click [25]  # button 'Login'`, or Mind2Web's `[button]  Login -> CLICK`) becomes one
high-level action of the web agent; its `{placeholders}` are the call's arguments.

    from agents.web.workflow_actions import callable_workflows, perform
    actions = callable_workflows(workflows)          # memory Workflow objects -> WorkflowAction
    decision = await decide_action(model, task, obs.text, history, memory, actions=actions)
    # the grammar offers each action with its arguments as enums of strings from the task
    # and the page (agents.web.workflow_args); decision.action is then e.g.
    # "login_user(username='ada', password='x')" or an ordinary "click [12]"
    done = await perform(env, decision.action, actions, should_stop=None)

`perform` expands a call into primitive steps (browser.macro): each step's target is matched by
role and name in the current observation before acting, and the first mismatch or rejected step
hands control back to step-by-step acting (the env records the reason as an invalid step, which
the next prompt shows). Every primitive step carries the call in `TrajectoryStep.call`.
A workflow with a step that cannot be located on a page (an element action without a target,
or a BrowserGym call like `click('12')`) is not callable; it still helps as prompt text.
Workflows with placeholders come from `memory.workflows.params.parameterize`.
"""

from __future__ import annotations

import ast
import logging
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from agents.web.workflow_args import Param
from browser.actions import ActionParseError, parse_action
from browser.macro import MacroEnv, MacroResult, MacroStep, Target, run_macro
from core.state import WebAgentState
from core.web_context import WebAgentContext
from memory.workflows.format import parse_workflows
from memory.workflows.params import parse_step
from memory.workflows.types import Workflow

log = logging.getLogger(__name__)
# Mind2Web's operations without a value; TYPE and SELECT type theirs (SELECT types the option's
# label: the env's `type` picks it in a <select>).
_MIND2WEB_ACTIONS = {"CLICK": "click [0]", "HOVER": "hover [0]", "ENTER": "press [Enter]"}

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_MIND2WEB = re.compile(
    r"^\[(?P<role>[^\]]+)\]\s+(?P<name>.*?)\s*->\s*(?P<op>CLICK|TYPE|SELECT|HOVER|ENTER)"
    r"(?::\s*(?P<value>.*))?$"
)
_ACTION_TAG = re.compile(r"<action>\s*(.*?)\s*</action>", re.S)
_ON_ELEMENT = {"click", "hover", "type"}
_CALL = re.compile(r"^\s*[A-Za-z_]\w*\s*\(.*\)\s*$", re.S)


@dataclass(frozen=True)
class WorkflowAction:
    """One callable workflow: its name, description, parameters and step templates."""

    name: str
    description: str
    params: tuple[Param, ...]
    steps: tuple[MacroStep, ...]

    @property
    def signature(self) -> str:
        return f"{self.name}({', '.join(p.name for p in self.params)})"

    def bind(self, args: Mapping[str, str]) -> list[MacroStep]:
        """The steps with every {placeholder} replaced; KeyError names a missing argument."""

        def fill(text: str) -> str:
            return _PLACEHOLDER.sub(lambda m: args[m.group(1)], text)

        return [
            MacroStep(
                fill(s.action), Target(s.target.role, fill(s.target.name)) if s.target else None
            )
            for s in self.steps
        ]


@dataclass(frozen=True)
class WorkflowCall:
    name: str
    args: dict[str, str]

    @property
    def text(self) -> str:
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.args.items())})"


def _step(text: str) -> MacroStep | None:
    """A workflow step as a macro step; None when it cannot be located on a page."""
    tagged = _ACTION_TAG.search(text)
    line = (tagged.group(1) if tagged else text).strip()
    m2w = _MIND2WEB.match(line)
    if m2w:
        op, value = m2w["op"], (m2w["value"] or "").strip()
        typed = f"type [0] [{value}] [0]"
        action = _MIND2WEB_ACTIONS.get(op) or typed
        return MacroStep(action, Target(m2w["role"].strip(), m2w["name"].strip()))
    parsed = parse_step(line)
    action = parsed.action
    probe = _PLACEHOLDER.sub("x", action)
    try:
        parse_action(probe)
    except ActionParseError:
        return None
    if parsed.kind in _ON_ELEMENT:
        if parsed.role is None or parsed.name is None:
            return None
        return MacroStep(action, Target(parsed.role, parsed.name))
    return MacroStep(action)


def _params(steps: Sequence[MacroStep]) -> tuple[Param, ...]:
    roles: dict[str, str | None] = {}
    for s in steps:
        if s.target is not None:
            whole = re.fullmatch(r"\{([^{}]+)\}", s.target.name)
            if whole:
                roles.setdefault(whole.group(1), s.target.role)
        for name in _PLACEHOLDER.findall(s.action + (s.target.name if s.target else "")):
            roles.setdefault(name, None)
    return tuple(Param(name, role) for name, role in roles.items())


def as_action(workflow: Workflow) -> WorkflowAction | None:
    """The workflow as a callable action, or None when a step cannot be located on a page."""
    steps = [_step(s) for s in workflow.steps]
    if not steps or any(s is None for s in steps):
        return None
    ready = tuple(s for s in steps if s is not None)
    name = workflow.name if re.match(r"^[A-Za-z_]", workflow.name) else f"wf_{workflow.name}"
    return WorkflowAction(name, workflow.description, _params(ready), ready)


def callable_workflows(workflows: Iterable[Workflow]) -> list[WorkflowAction]:
    """The workflows that can run as actions (first of each name kept)."""
    out: dict[str, WorkflowAction] = {}
    for workflow in workflows:
        action = as_action(workflow)
        if action is None:
            log.debug("workflow %s is not callable: a step has no locatable target", workflow.name)
        elif action.name not in out:
            out[action.name] = action
    return list(out.values())


def actions_from_text(text: str) -> list[WorkflowAction]:
    """The callable workflows in a workflows text (e.g. the prompt's <workflows> section)."""
    return callable_workflows(parse_workflows(text, where="<workflows>").workflows) if text else []


def prompt_actions(ctx: WebAgentContext, state: WebAgentState) -> list[WorkflowAction]:
    """The run's prompt workflows that can run as actions (none unless ctx.workflow_actions)."""
    if not ctx.workflow_actions:
        return []
    return actions_from_text((state.get("memory") or {}).get("workflows", ""))


def parse_call(text: str, actions: Sequence[WorkflowAction]) -> WorkflowCall | None:
    """`name(arg='v', …)` naming one of `actions` -> WorkflowCall; None for anything else.

    Raises ValueError when it is a call of a known workflow with bad or missing arguments.
    """
    if not _CALL.match(text):
        return None
    known = {a.name: a for a in actions}
    action = known.get(text.strip().split("(")[0].strip())
    if action is None:
        return None
    try:
        node = ast.parse(text.strip(), mode="eval").body  # parsed, never evaluated
    except SyntaxError as err:
        raise ValueError(f"{action.signature}: not a call ({err.msg})") from None
    if not isinstance(node, ast.Call):
        raise ValueError(f"{action.signature}: not a call")
    args: dict[str, str] = {}
    for kw in node.keywords:
        if kw.arg is None or not isinstance(kw.value, ast.Constant):
            raise ValueError(f"{action.signature}: arguments must be name='text'")
        args[kw.arg] = str(kw.value.value)
    missing = [p.name for p in action.params if p.name not in args]
    if missing or node.args:
        raise ValueError(f"{action.signature}: give every argument by name (missing {missing})")
    return WorkflowCall(action.name, {p.name: args[p.name] for p in action.params})


async def perform(
    env: MacroEnv,
    action_text: str,
    actions: Sequence[WorkflowAction],
    *,
    should_stop: Callable[[], Awaitable[bool]] | None = None,
) -> MacroResult | None:
    """Carry out a workflow call (None when `action_text` is an ordinary action: one env.step).

    A malformed call is recorded as an invalid step with the reason.
    """
    try:
        call = parse_call(action_text, actions)
    except ValueError as err:
        env.reject(action_text, str(err))
        return MacroResult(False, 0, str(err))
    if call is None:
        await env.step(action_text)
        return None
    action = next(a for a in actions if a.name == call.name)
    return await run_macro(env, call.text, action.bind(call.args), should_stop=should_stop)
