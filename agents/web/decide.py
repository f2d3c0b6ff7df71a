"""decide: the web agent asks the executor model for one action, constrained and validated.

The model fills `{action_type, element_id, text}`; the element id is an enum of the ids on the
current page (agents.web.action_schema), so a small model cannot invent one. Given callable
workflows, it is first asked to choose one of them, `{action_type: <workflow>, args: {...}}`
with arguments from enums, or `step_by_step` (agents.web.workflow_choice); the decision's action
is then the call text, e.g. "login_user(username='ada')", or the primitive action of a second,
ordinary decision. A composed primitive is checked with `parse_action`; output that does not
parse is still sent to the environment, which records it as invalid with the reason (shown to
the model next turn) and ends the episode after 3 in a row; an action carried out that left
the page as it was is said so, and not offered again next turn (agents.web.feedback). A model
that gives no usable answer at all gets `noop`, which the repeated-action limit ends after 3.
`decide_action` is the same decision outside the graph (the MiniWoB policy).

The node is retried by MODEL_RETRY (model calls fail transiently), so it closes the run's
browser only when LangGraph will not run it again (agents.web.session.close_unless_retried).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from pydantic import ValidationError

from agents.web import session as web_session
from agents.web.action_schema import (
    EDITABLE,
    FALLBACK_ACTION,
    action_schema,
    compose_action,
    page_ids,
    validate,
)
from agents.web.feedback import feedback_section, spent_actions
from agents.web.plan import plan_section, plan_turn, steps_done
from agents.web.screenshot import page_text, turn_message, turn_png, wants_tree
from agents.web.tokens import TokenTally, estimate_tokens, tallied
from agents.web.workflow_actions import WorkflowAction, prompt_actions
from agents.web.workflow_choice import (
    Options,
    call_options,
    compose_call,
    describe,
    workflow_choice_schema,
)
from browser.trajectory import TrajectoryStep, format_trajectory
from core.local_seed import sample_round
from core.state import WebAgentState
from core.web_context import WebAgentContext
from prompts.untrusted import data
from prompts.web import (
    ACTION_CLOSING,
    CHOICE_CLOSING,
    NO_HISTORY,
    NO_MEMORY,
    PLAN_HISTORY,
    WEB_DECIDE,
    WEB_SYSTEM,
)

log = logging.getLogger(__name__)
HISTORY_STEPS = 8  # the latest actions shown; older ones add little and cost context


@dataclass(frozen=True)
class WebDecision:
    """What the decide step produced: the action text to send, and how it got there."""

    action: str
    raw: str  # the model's structured answer, as text
    valid: bool  # parse_action accepted `action`
    reason: str | None  # why it did not (None when valid)
    tokens: int


async def decide(state: WebAgentState, runtime: Runtime[WebAgentContext]) -> dict[str, Any]:
    """Ask the executor model for one action, constrained to the page's ids and validated."""
    history = [TrajectoryStep(**step) for step in state.get("steps") or []]
    last = history[-1] if history else None
    feedback = last.reason if last is not None and not last.valid else None
    ctx = runtime.context
    try:
        model = ctx.chat("executor")
        decision = await decide_action(
            model,
            state["task"],
            state.get("observation", ""),
            history,
            state.get("memory") or {},
            feedback=feedback,
            actions=prompt_actions(ctx, state),
            screenshot=await turn_png(ctx, state),
            show_tree=wants_tree(ctx),
            plan=state.get("plan") or (),
            plan_from=state.get("plan_from", 0),
        )
    except BaseException as err:
        await web_session.close_unless_retried(err, runtime)
        raise
    if not decision.valid:
        log.info("web agent: invalid action %r (%s)", decision.action, decision.reason)
    return {"pending_action": decision.action, "tokens": decision.tokens}


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
    screenshot: bytes | None = None,
    show_tree: bool = True,
    plan: Sequence[str] = (),
    by_step: bool = True,
    plan_from: int = 0,
) -> list[SystemMessage | HumanMessage]:
    """System prompt + the turn: task, plan, memory sections, workflow actions (`calls`),
    previous actions, feedback, page, and the closing, opened by the plan's next step.

    With a `plan` and `by_step`, a decision does the plan's next step: that step stands in
    <task>, and the whole task and the previous actions are left out, the plan standing for
    them (their words pull a small model back to the element the task names, though the
    closing names another step). Once every step is done, the decision sees the task and the
    history again (to stop, or to answer).

    Every inserted value is untrusted (page text, memories and workflows shaped by past pages, the
    model's own earlier output) and goes in escaped (prompts.untrusted.data), so none can close its
    section; memory sections are escaped whole, their inner `<ref_i>`/`<run_i>` tags included.
    Only the prompt text is escaped: ids and enums are read from the raw observation. A
    `screenshot` follows the text as an image content part; without `show_tree` the page
    section keeps only the tabs and URL.
    """
    done = steps_done(history[plan_from:], observation) if plan else 0
    step = plan[done] if by_step and done < len(plan) else None  # the task's words distract
    body = WEB_DECIDE.format(
        task=data(step or task),
        plan=plan_section(plan),
        reflections=data(memory.get("reflections") or NO_MEMORY),
        workflows=data(memory.get("workflows") or NO_MEMORY),
        trajectories=data(memory.get("trajectories") or NO_MEMORY),
        workflow_actions=data(calls or NO_MEMORY),
        history=PLAN_HISTORY if step else data(format_history(history)),
        feedback=feedback_section(feedback, history, observation),
        observation=data(page_text(observation, show_tree)),
        closing=plan_turn(plan, done) + closing if plan else closing,
    )
    return [SystemMessage(WEB_SYSTEM), turn_message(body, screenshot)]


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
    screenshot: bytes | None = None,
    show_tree: bool = True,
    plan: Sequence[str] = (),
    plan_from: int = 0,
) -> WebDecision:
    """Ask `model` for the next action (bounded attempts); never raises on bad output.

    `actions`: callable workflows the model may choose instead of a primitive action.
    `plan`: the task's steps (agents.web.plan), written when `history` had `plan_from` steps;
    the decision does the one that is next.
    `screenshot`: the viewport's PNG, sent as an image part; `show_tree` False leaves the
    tree out of the prompt (the screenshot stands for the page).
    """
    options, calls = _callable(actions, history, task, observation)
    turn = partial(  # this turn's prompt, with a closing (and whether to do the plan's step)
        build_messages,
        *(task, observation, history, memory, feedback, calls),
        screenshot=screenshot,
        show_tree=show_tree,
        plan=plan,
        plan_from=plan_from,
    )
    messages = turn(closing=ACTION_CLOSING)
    tally = TokenTally()
    problems: list[str] = []
    if options:  # first the few high-level choices: a workflow call, or step by step
        asked = turn(closing=CHOICE_CLOSING, by_step=False)  # a workflow does the whole task
        choice = workflow_choice_schema(options)
        answer = await _ask(model, asked, choice, attempts, tally, problems)
        if answer is not None and compose_call(answer, options) is not None:
            return _decision(model, asked, answer, options, tally)
    schema = action_schema(
        page_ids(observation), spent_actions(history, observation), page_ids(observation, EDITABLE)
    )
    answer = await _ask(model, messages, schema, attempts, tally, problems)
    if answer is not None:
        return _decision(model, messages, answer, {}, tally)
    log.warning("web agent: no usable decision in %d attempts: %s", attempts, problems)
    tokens = tally.total or estimate_tokens(model, messages, "")
    return WebDecision(FALLBACK_ACTION, "; ".join(problems), True, None, tokens)


def _callable(
    actions: Sequence[WorkflowAction], history: list[TrajectoryStep], task: str, page: str
) -> tuple[Options, str]:
    """The workflow calls to offer (their arguments' options) and their prompt lines. One already
    called in this episode is not offered again: its steps are in the history, and a small
    model asked the same choice would make the same call again."""
    called = {s.call.split("(")[0] for s in history if s.call}
    fresh = [a for a in actions if a.name not in called]
    options = call_options(fresh, task, page) if fresh else {}
    return options, describe(fresh, options)


async def _ask(
    model: BaseChatModel,
    messages: list[Any],
    schema: dict[str, Any],
    attempts: int,
    tally: TokenTally,
    problems: list[str],
) -> dict[str, Any] | None:
    """The model's answer under `schema` (bounded attempts); None, with `problems` noted."""
    runnable = model.with_structured_output(schema)
    for attempt in range(attempts):
        try:
            with sample_round(attempt):  # asked again: a new sample, not the same answer
                answer = await runnable.ainvoke(messages, config=tallied(tally))
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
    tally: TokenTally,
) -> WebDecision:
    action, valid, reason = _compose(answer, options)
    tokens = tally.total or estimate_tokens(model, messages, str(answer))
    return WebDecision(action, str(answer), valid, reason, tokens)


def _compose(answer: dict[str, Any], options: Options) -> tuple[str, bool, str | None]:
    """(action text, valid, reason): a workflow call or a primitive action."""
    call = compose_call(answer, options)
    if call is not None:
        return call[0], call[1] is None, call[1]
    action = compose_action(answer)
    return (action, *validate(action))
