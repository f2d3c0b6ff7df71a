"""The web agent's decision: a constrained structured answer turned into one validated action.

Shared by the web agent graph's `decide` node and the MiniWoB policy. The model fills
`{action_type, element_id, text}`; the element id is an enum of the ids on the current page,
so a small model cannot invent one. Given callable workflows (`actions=`), it is first asked to
choose one of them, `{action_type: <workflow>, args: {...}}` with arguments from enums, or
`step_by_step` (agents.web.workflow_choice); the decision's action is then the call text, e.g.
"login_user(username='ada')", or the primitive action of a second, ordinary decision.
A composed primitive is checked with `parse_action`; output that does not parse is still sent
to the environment, which records it as invalid with the reason (shown to the model next turn)
and ends the episode after 3 in a row. A model that gives
no usable answer at all gets `noop`, which the repeated-action limit ends after 3.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.outputs import ChatGeneration, LLMResult
from pydantic import ValidationError

from agents.web.workflow_actions import WorkflowAction
from agents.web.workflow_choice import (
    Options,
    call_options,
    choice_schema,
    compose_call,
    describe,
)
from browser.actions import ActionParseError, ActionType, parse_action
from browser.trajectory import TrajectoryStep, format_trajectory
from memory.budget import approximate_tokens
from prompts.untrusted import data
from prompts.web import (
    ACTION_CLOSING,
    CHOICE_CLOSING,
    FEEDBACK,
    NO_HISTORY,
    NO_MEMORY,
    WEB_DECIDE,
    WEB_SYSTEM,
)

log = logging.getLogger(__name__)
FALLBACK_ACTION = "noop"
MAX_IDS = 400  # a bigger enum makes the grammar slow; beyond it any id string is allowed
HISTORY_STEPS = 8  # the latest actions shown; older ones add little and cost context
_ID_LINE = re.compile(r"^\s*\[(\d+)\] (\S+)", re.MULTILINE)
# The document itself: acting on it does nothing, and small models pick the first id offered.
_NOT_TARGETS = {"RootWebArea", "WebArea"}
# Action types that act on an element, and those that take a text argument.
_ON_ELEMENT = {ActionType.CLICK, ActionType.HOVER, ActionType.TYPE}
_WITH_TEXT = {ActionType.TYPE, ActionType.PRESS, ActionType.SCROLL, ActionType.GOTO,
              ActionType.STOP, ActionType.TAB_FOCUS}  # fmt: skip


@dataclass(frozen=True)
class WebDecision:
    """What the decide step produced: the action text to send, and how it got there."""

    action: str
    raw: str  # the model's structured answer, as text
    valid: bool  # parse_action accepted `action`
    reason: str | None  # why it did not (None when valid)
    tokens: int


class _TokenTally(BaseCallbackHandler):
    """Sums usage_metadata of every chat answer (LangChain's own handler needs a model name)."""

    def __init__(self) -> None:
        self.total = 0

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        for generations in response.generations:
            for gen in generations:
                usage = getattr(getattr(gen, "message", None), "usage_metadata", None)
                if isinstance(gen, ChatGeneration) and usage:
                    self.total += int(usage.get("total_tokens", 0))


def page_ids(observation: str) -> list[str]:
    """The ids of the elements an action can target in an observation, in page order."""
    found = _ID_LINE.findall(observation)
    return list(dict.fromkeys(i for i, role in found if role not in _NOT_TARGETS))


def action_schema(ids: list[str]) -> dict[str, Any]:
    """JSON schema of one decision; `element_id` limited to the page's ids (or "")."""
    element: dict[str, Any] = {"type": "string", "maxLength": 12}
    if 0 < len(ids) <= MAX_IDS:
        element = {"type": "string", "enum": ["", *ids]}
    return {
        "title": "WebAction",
        "description": "The next browser action.",
        "type": "object",
        "properties": {
            "action_type": {"type": "string", "enum": [t.value for t in ActionType]},
            "element_id": element,
            "text": {"type": "string", "maxLength": 120},
        },
        "required": ["action_type", "element_id", "text"],
    }


def compose_action(answer: dict[str, Any]) -> str:
    """{action_type, element_id, text} → WebArena action text (not yet validated)."""
    kind = str(answer.get("action_type", "")).strip().lower()
    element = str(answer.get("element_id", "") or "").strip().strip("[]")
    text = str(answer.get("text", "") or "").strip()
    try:
        action_type = ActionType(kind)
    except ValueError:
        return kind or FALLBACK_ACTION  # the parser will say what is wrong with it
    if action_type is ActionType.TYPE:
        return f"type [{element}] [{text}]"
    if action_type in _ON_ELEMENT:
        return f"{kind} [{element}]"
    if action_type is ActionType.SCROLL:
        return f"scroll [{text or 'down'}]"
    if action_type in _WITH_TEXT:
        return f"{kind} [{text}]"
    return kind


def validate(action: str) -> tuple[bool, str | None]:
    try:
        parse_action(action)
    except ActionParseError as err:
        return False, err.reason
    return True, None


def format_history(steps: list[TrajectoryStep]) -> str:
    return format_trajectory(steps[-HISTORY_STEPS:]) if steps else NO_HISTORY


def build_messages(
    task: str,
    observation: str,
    history: list[TrajectoryStep],
    memory: dict[str, str],
    feedback: str | None = None,
    calls: str = "",
    closing: str = ACTION_CLOSING,
) -> list[SystemMessage | HumanMessage]:
    """System prompt + the turn: task, memory sections, workflow actions (`calls`), previous
    actions, feedback, page.

    Every inserted value is untrusted (page text, memories and workflows shaped by past pages, the
    model's own earlier output) and goes in escaped (prompts/untrusted.py), so none can close its
    section; memory sections are escaped whole, their inner `<ref_i>`/`<run_i>` tags included.
    Only the prompt text is escaped: ids and enums are read from the raw observation.
    """
    body = WEB_DECIDE.format(
        task=data(task),
        reflections=data(memory.get("reflections") or NO_MEMORY),
        workflows=data(memory.get("workflows") or NO_MEMORY),
        trajectories=data(memory.get("trajectories") or NO_MEMORY),
        workflow_actions=data(calls or NO_MEMORY),
        history=data(format_history(history)),
        feedback=FEEDBACK.format(reason=data(feedback)) if feedback else "",
        observation=data(observation),
        closing=closing,
    )
    return [SystemMessage(WEB_SYSTEM), HumanMessage(body)]


async def decide_action(
    model: BaseChatModel,
    task: str,
    observation: str,
    history: list[TrajectoryStep],
    memory: dict[str, str],
    *,
    feedback: str | None = None,
    attempts: int = 2,
    actions: Sequence[WorkflowAction] = (),
) -> WebDecision:
    """Ask `model` for the next action (bounded attempts); never raises on bad output.

    `actions`: callable workflows the model may choose instead of a primitive action.
    """
    # a workflow already called in this episode is not offered again: its steps are in the
    # history, and a small model asked the same choice would make the same call again
    called = {s.call.split("(")[0] for s in history if s.call}
    fresh = [a for a in actions if a.name not in called]
    options = call_options(fresh, task, observation) if fresh else {}
    calls = describe(fresh, options)
    messages = build_messages(task, observation, history, memory, feedback, calls)
    tally = _TokenTally()
    problems: list[str] = []
    if options:  # first the few high-level choices: a workflow call, or step by step
        asked = build_messages(task, observation, history, memory, feedback, calls, CHOICE_CLOSING)
        answer = await _ask(model, asked, choice_schema(options), attempts, tally, problems)
        if answer is not None and compose_call(answer, options) is not None:
            return _decision(model, asked, answer, options, tally)
    schema = action_schema(page_ids(observation))
    answer = await _ask(model, messages, schema, attempts, tally, problems)
    if answer is not None:
        return _decision(model, messages, answer, {}, tally)
    log.warning("web agent: no usable decision in %d attempts: %s", attempts, problems)
    tokens = tally.total or _estimate(model, messages, "")
    return WebDecision(FALLBACK_ACTION, "; ".join(problems), True, None, tokens)


async def _ask(
    model: BaseChatModel,
    messages: list[Any],
    schema: dict[str, Any],
    attempts: int,
    tally: _TokenTally,
    problems: list[str],
) -> dict[str, Any] | None:
    """The model's answer under `schema` (bounded attempts); None, with `problems` noted."""
    runnable = model.with_structured_output(schema)
    for _ in range(attempts):
        try:
            answer = await runnable.ainvoke(messages, config={"callbacks": [tally]})
        except (OutputParserException, ValidationError, ValueError) as err:
            problems.append(str(err).splitlines()[0][:160])
            continue
        if isinstance(answer, dict):
            return answer
        problems.append(f"not a JSON object: {answer!r:.120}")
    return None


def _decision(
    model: BaseChatModel,
    messages: list[Any],
    answer: dict[str, Any],
    options: Options,
    tally: _TokenTally,
) -> WebDecision:
    action, valid, reason = _compose(answer, options)
    tokens = tally.total or _estimate(model, messages, str(answer))
    return WebDecision(action, str(answer), valid, reason, tokens)


def _compose(answer: dict[str, Any], options: Options) -> tuple[str, bool, str | None]:
    """(action text, valid, reason): a workflow call or a primitive action."""
    call = compose_call(answer, options)
    if call is not None:
        return call[0], call[1] is None, call[1]
    action = compose_action(answer)
    return (action, *validate(action))


def _estimate(model: BaseChatModel, messages: list[Any], output: str) -> int:
    """Tokens counted with the model's tokenizer when it reports no usage (e.g. fakes)."""
    # Only the local model's own tokenizer is trusted here: LangChain's default one downloads.
    count = model.get_num_tokens if hasattr(model, "context_window") else approximate_tokens
    return sum(count(m.text) for m in messages) + (count(output) if output else 0)
