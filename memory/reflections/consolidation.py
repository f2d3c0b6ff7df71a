"""Consolidation (generative agents' "pause to reflect"): many recent reflections become insights.

When the summed importance of reflections saved since the last consolidation passes a threshold,
the chat model names up to 3 salient high-level questions about them; for each question the
most relevant memories are retrieved and the model states up to 5 insights, each stored as a
Reflection with kind="insight" that ordinary retrieval returns. The batch is marked done in the
transaction that stores its insights (a compare-and-set on the store's metadata), so each batch
is consolidated exactly once, even across errors, crashes and processes. Only trusted records
(the agent's own, or imported with --trust) are consolidated: an insight is stored as the
agent's own advice, so untrusted text must never become one.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Iterable
from typing import Any, Protocol

from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from memory.engine.sqlite_file import process_alive
from memory.reflections.provenance import ReflectionProvenance
from memory.reflections.schema import Reflection, ReflectionJudgment
from prompts.untrusted import data


class MemoryToConsolidate(Protocol):
    """What consolidation needs of memory.reflections.manager.ReflectionManager (which calls it)."""

    prefix: str
    backend: Any

    def list_reflections(self) -> list[Reflection]: ...

    def get_relevant_reflections(
        self, query: str, k: int = 3, *, kinds: Iterable[str] | None = None
    ) -> list[Reflection]: ...

    def save_many(
        self, reflections: Iterable[Reflection], *, claim: tuple[str, str | None, str] | None = None
    ) -> list[str]: ...


log = logging.getLogger(__name__)
MAX_QUESTIONS = 3
MAX_INSIGHTS = 5
RECENT_LIMIT = 50
# longer than any consolidation takes (a few model calls); a crashed holder blocks no longer
LEASE_S = 600.0

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
        IMPORTANCE_PROMPT.format(
            task=data(reflection.task), reflection=data(reflection.reflection)
        ),
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
    # memories are data: escaped so none can close <memories> or open an instruction
    return "\n".join(
        f"{i}. {data(r.task)}: {data(r.reflection)}" for i, r in enumerate(reflections, 1)
    )


def consolidation_due(
    manager: MemoryToConsolidate, threshold: float
) -> tuple[bool, str | None, int]:
    """(due?, the last consolidated seq as stored, the newest seq to cover)."""
    meta_key = f"consolidated_seq:{manager.prefix}"
    last = manager.backend.records.meta(meta_key)
    total, top = manager.backend.records.importance_after(
        manager.prefix, int(last or 0), skip_kind="insight"
    )
    return total >= threshold, last, top


def consolidate(
    manager: MemoryToConsolidate, model: BaseChatModel, threshold: float, *, force: bool = False
) -> list[Reflection]:
    """Run one consolidation if due (or forced); returns the insights stored.

    Exactly once per batch: the batch is marked done in the same transaction that stores its
    insights, so a model error or a crash leaves it pending (retried later) and two processes
    can never both store insights for it. A lease keeps a second process from asking the
    model about a batch that one is already working on.
    """
    due, last, top = consolidation_due(manager, threshold)
    if not (due or force) or top <= int(last or 0):
        return []
    lease = _Lease(manager.backend.records, f"consolidating:{manager.prefix}")
    if not lease.take():
        return []  # another process is consolidating right now
    try:
        insights = _ask_for_insights(manager, model)
        if not insights:
            return []  # nothing to store: the batch stays pending and is tried again later
        claim = (f"consolidated_seq:{manager.prefix}", last, str(top))
        stored = manager.save_many(insights, claim=claim)
    finally:
        lease.release()
    if not stored:
        log.info("consolidation: another process consolidated this batch first")
        return []
    log.info("consolidation: %d insights stored", len(insights))
    return insights


def _ask_for_insights(manager: MemoryToConsolidate, model: BaseChatModel) -> list[Reflection]:
    """Questions about the recent reflections, then insights per question (nothing stored)."""
    own = [r for r in manager.list_reflections() if r.kind != "insight" and r.trusted]
    recent = own[-RECENT_LIMIT:]
    if not recent:
        return []  # only untrusted records are new: nothing the agent may distil
    asked = _ask(
        model,
        SalientQuestions,
        QUESTIONS_PROMPT.format(memories=_numbered(recent), n=MAX_QUESTIONS),
    )
    questions = [q.strip() for q in getattr(asked, "questions", []) if q.strip()][:MAX_QUESTIONS]
    if not questions:
        log.warning("consolidation: the model named no questions; the batch stays pending")
        return []
    insights: list[Reflection] = []
    for question in questions:
        # a question that matches nothing lexically is still about the recent batch
        related = manager.get_relevant_reflections(question, k=10, kinds=["reflection"])
        evidence = [r for r in related if r.trusted] or recent[-10:]
        found = _ask(
            model,
            Insights,
            INSIGHTS_PROMPT.format(question=question, memories=_numbered(evidence), n=MAX_INSIGHTS),
        )
        texts = [t.strip() for t in getattr(found, "insights", []) if t.strip()][:MAX_INSIGHTS]
        insights += [_insight(question, text, evidence) for text in texts]
    return insights


class _Lease:
    """A claim in the store's metadata: "expiry host pid". It stops counting when it expires or
    when its holder is a process on this host that no longer exists (killed mid-work)."""

    def __init__(self, records: Any, key: str, seconds: float = LEASE_S) -> None:
        self.records, self.key, self.seconds = records, key, seconds
        self.value: str | None = None

    def _held(self, value: str | None) -> bool:
        parts = (value or "").split()
        if len(parts) != 3 or float(parts[0]) <= time.time():
            return False
        return parts[1] != socket.gethostname() or process_alive(int(parts[2]))

    def take(self) -> bool:
        held = self.records.meta(self.key)
        if self._held(held):
            return False
        mine = f"{time.time() + self.seconds:.6f} {socket.gethostname()} {os.getpid()}"
        if not self.records.claim(self.key, held, mine):
            return False
        self.value = mine
        return True

    def release(self) -> None:
        if self.value is not None:
            self.records.claim(self.key, self.value, "")
            self.value = None


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
        provenance=ReflectionProvenance.of_consolidation([r.id for r in evidence]),
    )
