"""Reflections between attempts (Reflexion's loop, on the product's reflection memory).

After an attempt whose outcome a checker decided (MiniWoB's reward, HotpotQA's exact match),
the reflector model writes a short lesson, saved with the checker's verdict into the
arm's reflection memory, where the next attempts retrieve it like any other reflection.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Annotated, Protocol

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field, StringConstraints

from core.local_seed import sample_round
from core.output_limits import OUTPUT_LIMITS
from core.structured import ask_structured
from evals.common.episode_reflection import (
    CONTEXT_SECTION,
    EARLIER_SECTION,
    EPISODE_REFLECTION,
    ON_FAILURE,
    ON_SUCCESS,
    WEB_THINGS,
)
from memory.reflections.lessons import same_lesson
from memory.reflections.schema import Reflection, ReflectionJudgment
from prompts.untrusted import data

log = logging.getLogger(__name__)
MAX_ATTEMPT_CHARS = 1500  # actions or an answer, not page dumps
MAX_CONTEXT_CHARS = 16_000  # HotpotQA's 10 paragraphs whole (the longest dev context is 13,189)
# A lesson that says an earlier one again is asked for anew, in a new sample, this many times in
# all: shown its earlier lessons, a small reflector copies them
# (docs/results/hotpotqa-reflexion-history.md).
LESSON_ROUNDS = 2


class EpisodeLesson(BaseModel):
    # a blank lesson is malformed output: ask_structured asks again (a new sample)
    reflection: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)] = Field(
        description="2-3 sentences of lessons for the next attempt."
    )


class ReflectionSink(Protocol):
    """Where lessons go: an AgentMemory, the arm's memory in the store its graph reads."""

    def save_reflection(self, reflection: Reflection) -> str: ...


class ReflectionFailed(RuntimeError):
    """The reflector gave no usable lesson; nothing was saved (the arm learns nothing here)."""


def reflect_on_attempt(
    model: BaseChatModel,
    manager: ReflectionSink,
    *,
    task: str,
    attempt: Sequence[str] | str,
    success: bool,
    feedback: str,
    context: str = "",
    rid: str | None = None,
    earlier: Sequence[str] = (),
    concrete: str = WEB_THINGS,
) -> str:
    """Write and save the lesson of one judged attempt; returns the reflection id. `context`
    is what the attempt read (HotpotQA's paragraphs), shown to the reflector when given; `rid`
    names the lesson (the same id again replaces it: a rerun of a cut job adds no second);
    `earlier` holds the lessons of this task's earlier failures, which the attempt had read;
    `concrete` names the things a lesson should name (evals/common/episode_reflection.py)."""
    text = attempt if isinstance(attempt, str) else "\n".join(a for a in attempt if a)
    outcome = ("success" if success else "failure") + (f": {feedback}" if feedback else "")
    # Escaped (prompts.untrusted.data): a page's or an answer's text cannot close <attempt>.
    shown = CONTEXT_SECTION.format(context=data(context[:MAX_CONTEXT_CHARS])) if context else ""
    before = "\n".join(f"- {data(lesson)}" for lesson in earlier)
    prompt = EPISODE_REFLECTION.format(
        context=shown,
        task=data(task),
        earlier=EARLIER_SECTION.format(lessons=before) if before else "",
        attempt=data(text[:MAX_ATTEMPT_CHARS] or "(no action taken)"),
        outcome=data(outcome),
        instruction=(ON_SUCCESS if success else ON_FAILURE).format(concrete=concrete),
    )
    text = _new_lesson(model, prompt, earlier, task)
    reflection = Reflection(
        task=task,
        reflection=text,
        # The checker's verdict, not the model's: it is certain.
        judgment=ReflectionJudgment(needs_retry=not success, confidence=1.0, reasons=[outcome]),
        importance=0.4 if success else 0.8,  # failures teach more (as reflect_on_task rates)
        outcome="success" if success else "failure",  # what the lesson was learned from
    )
    if rid:
        reflection.id = rid
    return manager.save_reflection(reflection)


def _new_lesson(model: BaseChatModel, prompt: str, earlier: Sequence[str], task: str) -> str:
    """The reflector's lesson, asked again in a new sample round while it only says an earlier
    lesson again (the answerer would read the same words twice and learn nothing new); after
    LESSON_ROUNDS repeats, none (ReflectionFailed: the retry runs on the earlier lessons)."""
    for n in range(LESSON_ROUNDS):
        with sample_round(n):  # round 0 samples as a plain call does
            lesson = ask_structured(
                model, EpisodeLesson, prompt, max_tokens=OUTPUT_LIMITS["reflect"]
            )
        if lesson is None or not lesson.reflection.strip():
            raise ReflectionFailed(f"no usable lesson from the reflector for {task[:60]!r}")
        if not any(same_lesson(lesson.reflection, e) for e in earlier):
            return lesson.reflection.strip()
        log.info("the reflector wrote an earlier lesson again (round %d) for %r", n, task[:60])
    raise ReflectionFailed(
        f"the reflector wrote an earlier lesson again {LESSON_ROUNDS} times for {task[:60]!r}"
    )
