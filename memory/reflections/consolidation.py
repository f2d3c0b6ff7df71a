"""Consolidation (generative agents' "pause to reflect"): lessons about one kind of task become
insights.

When the summed importance of reflections saved since the last consolidation passes a threshold,
the recent lessons are grouped by similarity (distill.py: every member alike to every other),
and for each group with a lesson not yet distilled the chat model states up to 5 strategies for
that kind of task; each strategy is stored as a Reflection with kind="insight" that ordinary
retrieval returns. Records that state no lesson (a bare verdict, nothing) are never distilled,
and a model answer that is no strategy (a fact or answer about one task) is dropped. The batch
is marked done in the transaction that stores its insights (a compare-and-set on the store's
metadata), so each batch is consolidated exactly once, even across errors, crashes and
processes; while no group of alike lessons has anything new, the batch stays pending and the
model is not asked. Only trusted records (the agent's own, or imported with --trust) are
consolidated: an insight is stored as the agent's own advice, so untrusted text must never
become one.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Iterable
from typing import Any, Protocol

import numpy as np
from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from memory.engine.sqlite_file import process_alive
from memory.reflections.distill import MIN_MEMBERS, distil, similar_groups, teaches
from memory.reflections.schema import Reflection, embedding_text
from prompts.consolidate import IMPORTANCE
from prompts.untrusted import data


class MemoryToConsolidate(Protocol):
    """What consolidation needs of memory.reflections.manager.ReflectionManager (which calls it)."""

    prefix: str
    backend: Any
    consolidation_floor: float

    def list_reflections(self) -> list[Reflection]: ...

    def save_many(
        self, reflections: Iterable[Reflection], *, claim: tuple[str, str | None, str] | None = None
    ) -> list[str]: ...


log = logging.getLogger(__name__)
MAX_GROUPS = 3  # groups distilled per consolidation, newest first
RECENT_LIMIT = 50
# longer than any consolidation takes (a few model calls); a crashed holder blocks no longer
LEASE_S = 600.0


class ImportanceRating(BaseModel):
    score: int = Field(description="1 (mundane) to 10 (crucial).")


def score_importance(model: BaseChatModel, reflection: Reflection) -> float | None:
    """The LLM's 1-10 rating mapped onto 0-1 as (score - 1) / 9; None if it gave none."""
    rated = _ask(
        model,
        ImportanceRating,
        IMPORTANCE.format(task=data(reflection.task), reflection=data(reflection.reflection)),
    )
    score = getattr(rated, "score", None)
    if not isinstance(score, int):
        return None
    return (min(10, max(1, score)) - 1) / 9


def _ask(model: BaseChatModel, schema: type[BaseModel], prompt: str) -> BaseModel | None:
    from core.structured import ask_structured

    return ask_structured(model, schema, prompt)


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
    model about a batch that one is already working on. A batch whose answers held no strategy
    is marked done with nothing stored: asking again about the same lessons is not worth a call.
    """
    due, last, top = consolidation_due(manager, threshold)
    if not (due or force) or top <= int(last or 0):
        return []
    lease = _Lease(manager.backend.records, f"consolidating:{manager.prefix}")
    if not lease.take():
        return []  # another process is consolidating right now
    try:
        insights = _ask_for_insights(manager, model)
        if insights is None:
            return []  # nothing to ask, or no usable answer: the batch stays pending
        claim = (f"consolidated_seq:{manager.prefix}", last, str(top))
        stored = manager.save_many(insights, claim=claim)
    finally:
        lease.release()
    if insights and not stored:
        log.info("consolidation: another process consolidated this batch first")
        return []
    log.info("consolidation: %d insights stored", len(insights))
    return insights


def lesson_groups(manager: MemoryToConsolidate) -> list[list[Reflection]]:
    """Groups of alike recent lessons (distill.similar_groups) with at least one lesson that
    no insight was distilled from yet, newest first, at most MAX_GROUPS."""
    records = manager.list_reflections()
    distilled = {s for r in records if r.kind == "insight" for s in r.sources}
    own = [r for r in records if r.kind != "insight" and r.trusted and teaches(r)]
    recent = own[-RECENT_LIMIT:]
    if len(recent) < MIN_MEMBERS:
        return []
    vectors = manager.backend.embed_texts([embedding_text(r) for r in recent])
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    vectors = vectors / np.where(norms > 0, norms, 1.0)
    groups = [
        [recent[i] for i in found] for found in similar_groups(vectors, manager.consolidation_floor)
    ]
    return [g for g in groups if any(r.id not in distilled for r in g)][:MAX_GROUPS]


def _ask_for_insights(
    manager: MemoryToConsolidate, model: BaseChatModel
) -> list[Reflection] | None:
    """The strategies of each new group (nothing stored); None when there was nothing to ask
    about (no group, or only untrusted records are new) or the model gave no usable answer."""
    groups = lesson_groups(manager)
    if not groups:
        return None
    answers = [distil(model, group) for group in groups]
    if all(a is None for a in answers):
        log.warning("consolidation: the model gave no usable answer; the batch stays pending")
        return None
    return [insight for a in answers for insight in a or []]


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
