"""Consolidation (seed 003's "pause to reflect"): turn many recent reflections into a few insights.

When the summed importance of reflections saved since the last consolidation passes a threshold,
the chat model names up to 3 salient high-level questions about them; for each question the
most relevant memories are retrieved and the model states up to 5 insights, each stored as a
Reflection with kind="insight" that ordinary retrieval returns. A compare-and-set on the store's
metadata makes exactly one process consolidate a given batch.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from memory.schema import Reflection, ReflectionJudgment


class ReflectionManager(Protocol):
    """What consolidation needs of memory.reflections.ReflectionManager (which calls it)."""

    prefix: str
    backend: Any

    def list_reflections(self) -> list[Reflection]: ...

    def get_relevant_reflections(
        self, query: str, k: int = 3, *, kinds: Iterable[str] | None = None
    ) -> list[Reflection]: ...

    def save_many(self, reflections: Iterable[Reflection]) -> list[str]: ...


log = logging.getLogger(__name__)
MAX_QUESTIONS = 3
MAX_INSIGHTS = 5
RECENT_LIMIT = 50

QUESTIONS_PROMPT = """<memories>
{memories}
</memories>
<instructions>
Given only the memories above, what are the {n} most salient high-level questions we can answer
about how to do such tasks well? Return them as a JSON list of questions.
</instructions>"""

INSIGHTS_PROMPT = """<question>{question}</question>
<memories>
{memories}
</memories>
<instructions>
What at most {n} high-level insights can you infer from the memories above that answer the
question? Each insight is one self-contained sentence of advice for future tasks.
</instructions>"""


IMPORTANCE_PROMPT = """<memory>
<task>{task}</task>
<reflection>{reflection}</reflection>
</memory>
<instructions>
On a scale of 1 to 10, where 1 is purely mundane (a routine step that went as expected) and 10
is extremely poignant (a lesson that changes how such tasks must be done), rate how important
this lesson is for future tasks. Answer with the integer only.
</instructions>"""


class ImportanceRating(BaseModel):
    score: int = Field(description="1 (mundane) to 10 (crucial).")


def score_importance(model: BaseChatModel, reflection: Reflection) -> float | None:
    """The LLM's 1-10 rating mapped onto 0-1 as (score - 1) / 9; None if it gave none."""
    rated = _ask(
        model,
        ImportanceRating,
        IMPORTANCE_PROMPT.format(task=reflection.task, reflection=reflection.reflection),
    )
    score = getattr(rated, "score", None)
    if not isinstance(score, int):
        return None
    return (min(10, max(1, score)) - 1) / 9


class SalientQuestions(BaseModel):
    # min_length becomes minItems in the grammar: a small model cannot answer with nothing
    questions: list[str] = Field(description="Up to 3 high-level questions.", min_length=1)


class Insights(BaseModel):
    insights: list[str] = Field(description="Up to 5 one-sentence insights.", min_length=1)


def _ask(model: BaseChatModel, schema: type[BaseModel], prompt: str) -> BaseModel | None:
    from core.structured import ask_structured

    return ask_structured(model, schema, prompt)


def _numbered(reflections: list[Reflection]) -> str:
    return "\n".join(f"{i}. {r.task}: {r.reflection}" for i, r in enumerate(reflections, 1))


def consolidation_due(manager: ReflectionManager, threshold: float) -> tuple[bool, str | None, int]:
    """(due?, the last consolidated seq as stored, the newest seq to cover)."""
    meta_key = f"consolidated_seq:{manager.prefix}"
    last = manager.backend.records.meta(meta_key)
    total, top = manager.backend.records.importance_after(
        manager.prefix, int(last or 0), skip_kind="insight"
    )
    return total >= threshold, last, top


def consolidate(
    manager: ReflectionManager, model: BaseChatModel, threshold: float, *, force: bool = False
) -> list[Reflection]:
    """Run one consolidation if due (or forced); returns the insights stored."""
    due, last, top = consolidation_due(manager, threshold)
    if not (due or force) or top <= int(last or 0):
        return []
    meta_key = f"consolidated_seq:{manager.prefix}"
    if not manager.backend.records.claim(meta_key, last, str(top)):
        return []  # another process took this batch
    recent = [r for r in manager.list_reflections() if r.kind != "insight"][-RECENT_LIMIT:]
    asked = _ask(
        model,
        SalientQuestions,
        QUESTIONS_PROMPT.format(memories=_numbered(recent), n=MAX_QUESTIONS),
    )
    questions = [q.strip() for q in getattr(asked, "questions", []) if q.strip()][:MAX_QUESTIONS]
    if not questions:
        log.warning("consolidation: the model named no questions; nothing stored")
        return []
    stored: list[Reflection] = []
    for question in questions:
        # a question that matches nothing lexically is still about the recent batch
        evidence = (
            manager.get_relevant_reflections(question, k=10, kinds=["reflection"]) or recent[-10:]
        )
        found = _ask(
            model,
            Insights,
            INSIGHTS_PROMPT.format(question=question, memories=_numbered(evidence), n=MAX_INSIGHTS),
        )
        texts = [t.strip() for t in getattr(found, "insights", []) if t.strip()][:MAX_INSIGHTS]
        stored += [_insight(question, text, evidence) for text in texts]
    manager.save_many(stored)
    log.info("consolidation: %d questions, %d insights stored", len(questions), len(stored))
    return stored


def _insight(question: str, text: str, evidence: list[Reflection]) -> Reflection:
    return Reflection(
        task=question,
        reflection=text,
        judgment=ReflectionJudgment(
            needs_retry=False, confidence=1.0, reasons=["consolidated from past reflections"]
        ),
        importance=max([r.importance for r in evidence] or [0.5]),
        kind="insight",
        sources=[r.id for r in evidence],
    )
