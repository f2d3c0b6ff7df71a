"""plan: the web agent writes the task's steps on the first page, before it acts; every decision
then does the step that is next (`plan_turn`), so the model grounds one step in the page instead
of working out from the task and the history what is left. Once every step is done, a decision
sees the task and the history again (to stop, or to answer); if it acts and the task goes on,
the plan left something out, and the agent plans once more from the page and the actions done
(MAX_PLANS in all).

Which step is next is counted, not asked: each action carried out that changed the page moves
one step on. A small model asked which steps are done says the text is typed before typing it.
Steps, like the workflows they follow, are untrusted text: prompts show them escaped.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from langchain_core.exceptions import OutputParserException
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import SystemMessage
from langgraph.runtime import Runtime
from pydantic import ValidationError

from agents.web import session as web_session
from agents.web.screenshot import page_text, turn_message, turn_png, wants_tree
from agents.web.tokens import TokenTally, estimate_tokens, tallied
from browser.trajectory import TrajectoryStep, format_trajectory, same_page
from core.local_seed import sample_round
from core.state import WebAgentState
from core.web_context import WebAgentContext
from prompts.untrusted import data
from prompts.web import (
    FIRST_STEP,
    LAST_STEP_DONE,
    NEXT_STEP,
    NO_MEMORY,
    PLAN_SCHEMA_TEXT,
    PLAN_SECTION,
    PLAN_SYSTEM,
    PLAN_TASK,
    REPLAN_TASK,
)

log = logging.getLogger(__name__)
MAX_STEPS = 8  # the grammar allows no longer plan: beyond this, steps are guesses
MAX_PLANS = 2  # the first plan and one more; then the agent acts on the task and history
STEP_CHARS = 160
PLAN_SCHEMA: dict[str, Any] = {
    "title": "WebPlan",
    "description": PLAN_SCHEMA_TEXT,
    "type": "object",
    "properties": {
        "steps": {
            "type": "array",
            "items": {"type": "string", "minLength": 3, "maxLength": STEP_CHARS},
            "minItems": 1,
            "maxItems": MAX_STEPS,
        }
    },
    "required": ["steps"],
    "additionalProperties": False,
}


async def plan(state: WebAgentState, runtime: Runtime[WebAgentContext]) -> dict[str, Any]:
    """Write the task's steps on the first page, or the steps left once the plan ran out (none
    when planning is off)."""
    ctx = runtime.context
    if not ctx.plan_steps:  # no plan, and none left to write
        return {"plan": [], "plan_from": 0, "plans": MAX_PLANS}
    history = [TrajectoryStep(**step) for step in state.get("steps") or []]
    try:
        model = ctx.chat("executor")
        steps, tokens = await make_plan(
            model,
            state["task"],
            state.get("observation", ""),
            state.get("memory") or {},
            done=history,
            screenshot=await turn_png(ctx, state),
            show_tree=wants_tree(ctx),
        )
    except BaseException as err:
        await web_session.close_unless_retried(err, runtime)
        raise
    plans = state.get("plans", 0) + 1
    return {"plan": steps, "plan_from": len(history), "plans": plans, "tokens": tokens}


def needs_plan(
    plans: int, plan: Sequence[str], plan_from: int, history: Sequence[TrajectoryStep], page: str
) -> bool:
    """Plan now: nothing planned yet; or, while plans are left, every step of the plan was done
    before the last action (a decision shown the task again acted instead of stopping) and the
    task goes on."""
    if plans == 0:
        return True
    since = list(history[plan_from:])
    if not plan or plans >= MAX_PLANS or not since:
        return False
    return steps_done(since[:-1], since[-1].observation) >= len(plan)


async def make_plan(
    model: BaseChatModel,
    task: str,
    observation: str,
    memory: dict[str, str],
    attempts: int = 2,
    done: Sequence[TrajectoryStep] = (),
    screenshot: bytes | None = None,
    show_tree: bool = True,
) -> tuple[list[str], int]:
    """The task's steps on this page, or with `done` actions the steps left (bounded attempts),
    and the tokens spent; no steps when the model gives none usable (the agent acts without a
    plan). The page is shown as decide shows it: `screenshot` attached, the tree left out
    without `show_tree`."""
    fields = {
        "task": data(task),
        "workflows": data(memory.get("workflows") or NO_MEMORY),
        "observation": data(page_text(observation, show_tree)),
    }
    prompt = (
        REPLAN_TASK.format(done=data(format_trajectory(list(done))), **fields)
        if done
        else PLAN_TASK.format(**fields)
    )
    messages = [SystemMessage(PLAN_SYSTEM), turn_message(prompt, screenshot)]
    runnable = model.with_structured_output(PLAN_SCHEMA)
    tally, spent = TokenTally(), 0
    for attempt in range(attempts):
        try:
            with sample_round(attempt):  # asked again: a new sample, not the same answer
                answer = await runnable.ainvoke(messages, config=tallied(tally))
                spent += tally.total or estimate_tokens(model, messages, str(answer))
                tally.total = 0
        except (OutputParserException, ValidationError, ValueError) as err:
            log.info("web agent: unusable plan: %s", str(err).splitlines()[0][:160])
            spent, tally.total = spent + tally.total, 0  # what the unusable answer cost
            continue
        raw = answer.get("steps") if isinstance(answer, dict) else None
        steps = clean_steps(raw, observation)
        if steps:
            log.info("web agent: plan %s", steps)
            return steps, spent
    log.warning("web agent: no usable plan in %d attempts; acting without one", attempts)
    return [], spent


def clean_steps(raw: object, observation: str = "") -> list[str]:
    """The plan's steps: strings, one line each, stripped, without blanks or repeats; none when
    a step copies a line of the page or its title (the default model sometimes listed the
    page's first lines, "Tab 0 (current): …", "URL: …", as its steps) or keeps a workflow's
    `{placeholder}`."""
    if not isinstance(raw, list):
        return []
    steps = [" ".join(str(s).split())[:STEP_CHARS] for s in raw if isinstance(s, str)]
    steps = list(dict.fromkeys(s for s in steps if s))[:MAX_STEPS]
    page = {_page_text(line) for line in observation.splitlines()}
    page |= set(_TAB_TITLE.findall(observation))  # "Click Option Task" is a title, not a step
    copied = any(s in page or _page_text(s) in page for s in steps)
    return [] if copied or any(_PLACEHOLDER.search(s) for s in steps) else steps


# A workflow's placeholder left in a step ("Type {username} into …"): the plan follows the
# workflow without this task's values, and the value would be typed as it is.
_PLACEHOLDER = re.compile(r"\{[\w-]+\}")
_TAB_TITLE = re.compile(r"^Tab \d+(?: \(current\))?: (.+)$", re.MULTILINE)


def _page_text(line: str) -> str:
    """A page line without its indentation and `[id]`, or a step as such a line would be."""
    return re.sub(r"^\s*(\[\d+\]\s*)?", "", line).strip()


def steps_done(history: Sequence[TrajectoryStep], observation: str) -> int:
    """How many plan steps the actions in `history` (those since the plan) did: each carried
    out action that changed the page (a workflow call's too: a plan follows its steps). On a
    page cut in the trajectory a change may lie past the cut, so typing counts there anyway."""
    done = 0
    for i, step in enumerate(history):
        after = history[i + 1].observation if i + 1 < len(history) else observation
        if not step.valid or not step.action:
            continue
        cut = step.observation.endswith("\n…")
        if not same_page(step.observation, after) or (cut and step.action.startswith("type ")):
            done += 1
    return done


def plan_section(steps: Sequence[str]) -> str:
    """decide's <plan> section (empty without a plan)."""
    if not steps:
        return ""
    return PLAN_SECTION.format(steps=data("\n".join(f"{i}. {s}" for i, s in enumerate(steps, 1))))


def plan_turn(steps: Sequence[str], done: int) -> str:
    """The words that open decide's closing: which step of the plan is next."""
    if not steps:
        return ""
    if done >= len(steps):
        return LAST_STEP_DONE
    if done == 0:
        return FIRST_STEP.format(step=data(steps[0]))
    return NEXT_STEP.format(done=done, number=done + 1, step=data(steps[done]))
