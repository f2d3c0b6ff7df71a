"""The one-call baseline: the model answers a HotpotQA question over its 10 paragraphs at once,
in free text, asked for the short form HotpotQA's exact match expects. Lessons of earlier
attempts come after the paragraphs, right before the question, each with the checker's verdict
on its attempt (the wrong answer), as Reflexion shows its reflections: placed in the system
message, before 3,500 tokens of paragraphs, the 1.5B's retries solved none of 16 and gave the
same wrong answer again in 12, lessons naming the right one included; placed here, 2 of 3 spot
checks answered right (docs/results/hotpotqa-reflexion-history.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda

from agents.research.answer_text import clean_short_answer
from core.context import Context
from core.models import Models
from core.output_limits import OUTPUT_LIMITS, with_max_tokens
from evals.common.memory_store import project_store
from evals.hotpotqa.candidates import candidate_answers
from evals.hotpotqa.dataset import Paragraph
from evals.hotpotqa.short_answer import chosen_answer
from memory.agent_memory import AgentMemory
from memory.reflections.schema import Reflection
from memory.stores.shared_store import SharedMemory
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


def direct_answer_fn(
    model: str,
    home: str,
    reflections: bool,
    callbacks: Sequence[Any],
    embedding_model: str,
    models: Models,
    graph_name: str,
    shared: SharedMemory | None = None,
):
    """The AnswerFn of `direct` (one call over the question's 10 paragraphs, with past
    reflections when memory is on: Reflexion's chain of thought with context) and
    `direct-candidates` (that call choosing among the paragraphs' candidate spans)."""
    config: RunnableConfig = {"callbacks": list(callbacks)}
    # the graphs' memory settings: the relevance floor keeps unrelated lessons out
    ctx = Context(home=home, embedding_model=embedding_model, models=models)

    def answer_fn(question: str, paragraphs: Sequence[Any]) -> tuple[str, list[str]]:
        lessons: list[Reflection] = []
        with project_store(
            home, ctx.embedding_model, models, on=reflections, shared=shared
        ) as store:
            if store is not None:
                memory = AgentMemory(store, min_relevance=ctx.min_relevance)
                lessons = memory.relevant_reflections(question, ctx.reflections_k)
        chat = models.chat(model)
        answer_one: RunnableLambda[str, str]
        if graph_name == "direct":
            answer_one = RunnableLambda(lambda q: direct_answer(chat, q, paragraphs, lessons))
        else:
            section = lessons_section(lessons)  # none: the text is the paragraphs alone
            text = paragraphs_text(paragraphs) + (f"\n{section}" if section else "")
            candidates = candidate_answers(question, paragraphs)
            answer_one = RunnableLambda(lambda q: chosen_answer(chat, q, text, candidates))
        # Run as a runnable with the config, so its model call reaches the callbacks too.
        answer = answer_one.invoke(question, config=config)
        return answer, [answer]

    return answer_fn
