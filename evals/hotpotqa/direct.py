"""The one-call baseline: the model answers a HotpotQA question over its 10 paragraphs at once,
in free text, asked for the short form HotpotQA's exact match expects. Lessons of earlier
attempts come after the paragraphs, right before the question, each with the checker's verdict
on its attempt (the wrong answer), as Reflexion shows its reflections: placed in the system
message, before 3,500 tokens of paragraphs, the 1.5B's retries solved none of 16 and gave the
same wrong answer again in 12, lessons naming the right one included; placed here, 2 of 3 spot
checks answered right (docs/evaluations.md)."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from agents.research.answer_text import clean_short_answer
from core.output_limits import OUTPUT_LIMITS, with_max_tokens
from evals.hotpotqa.dataset import Paragraph
from memory.reflections.schema import Reflection
from prompts.untrusted import data

DIRECT_SYSTEM = """Answer the question from the paragraphs. Reply with the answer only: a name, a
date, a number, yes or no, or a short phrase; no sentence, no explanation."""

DIRECT_USER = """<paragraphs>
{paragraphs}
</paragraphs>
{lessons}<question>{question}</question>"""

LESSONS = """<lessons>
Earlier attempts at this question or at one like it, the checker's verdict on each and what was
learned from it. An answer judged wrong is wrong: do not give it again unless the paragraphs
prove it.
{lessons}
</lessons>
"""

LESSON = "- verdict: {verdict}\n  lesson: {lesson}"


def lessons_section(reflections: Sequence[Reflection]) -> str:
    """The <lessons> section for `reflections` ("" when none): each lesson after the verdict on
    its attempt (Reflexion's feedback: which answer did not match). Texts are data."""
    items = [
        LESSON.format(
            verdict=data("; ".join(r.judgment.reasons) or r.outcome or "not given"),
            lesson=data(r.reflection),
        )
        for r in reflections
    ]
    return LESSONS.format(lessons="\n".join(items)) if items else ""


def paragraphs_text(paragraphs: Sequence[Paragraph]) -> str:
    return "\n".join(f"{p.title}: {p.text}" for p in paragraphs)


def direct_answer(
    model: BaseChatModel,
    question: str,
    paragraphs: Sequence[Paragraph],
    reflections: Sequence[Reflection] = (),
) -> str:
    """One call: the short answer, with `reflections` (past lessons) before the question."""
    user = DIRECT_USER.format(
        paragraphs=paragraphs_text(paragraphs),
        lessons=lessons_section(reflections),
        question=question,
    )
    reply = with_max_tokens(model, OUTPUT_LIMITS["short_answer"]).invoke(
        [SystemMessage(DIRECT_SYSTEM), HumanMessage(user)]
    )
    return clean_short_answer(reply.text)
