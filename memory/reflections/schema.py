"""The reflection record: what the reflector says about one attempt at one task."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field

from memory.reflections.provenance import (
    UNTRUSTED_MAX_CONFIDENCE,
    UNTRUSTED_MAX_IMPORTANCE,
    ReflectionProvenance,
)


class ReflectionJudgment(BaseModel):
    """The verdict. `needs_retry=True` means the result is NOT good enough.

    (The original inverted it.)
    """

    needs_retry: bool = Field(
        description="True if the result is not good enough and must be redone."
    )
    confidence: float = Field(ge=0.0, le=1.0, description="Confidence in this verdict, 0 to 1.")
    reasons: list[str] = Field(default_factory=list, description="Short reasons for the verdict.")
    verdict: str | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # a record saved without a verdict round-trips unchanged
        description="'pass', 'retry', or 'unjudged' (the reflector's output was unusable: not "
        "a real verdict, never counted as a success); None in records from before it existed.",
    )


Outcome = Literal["success", "failure"]


class Reflection(BaseModel):
    """A lesson learned from one attempt; stored and retrieved by the ReflectionManager."""

    id: str = Field(default_factory=lambda: str(uuid.uuid4()))
    task: str
    reflection: str = Field(
        description="2-3 sentences: what went right or wrong, what to do next time."
    )
    judgment: ReflectionJudgment
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    last_accessed_at: str | None = None
    kind: str = Field(default="reflection", description="'reflection' or 'insight' (consolidated).")
    sources: list[str] = Field(
        default_factory=list, description="For an insight: ids of the reflections it came from."
    )
    outcome: Outcome | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # a record saved without one round-trips unchanged
        description="What the lesson was learned from: 'success' (what worked) or 'failure' "
        "(what to do differently next time); None in records from before it existed, in "
        "unjudged ones, and in insights distilled from both.",
    )
    provenance: ReflectionProvenance = Field(
        default_factory=ReflectionProvenance,
        description="Where it came from (run, import, consolidation) and whether prompts may "
        "treat it as the agent's own lesson (memory/reflections/provenance.py).",
    )

    @property
    def trusted(self) -> bool:
        return self.provenance.trusted


def embedding_text(reflection: Reflection) -> str:
    """What a reflection is found by: its task and lesson as one text."""
    return f"{reflection.task}\n{reflection.reflection}"


def imported(reflection: Reflection, file: str, *, trusted: bool) -> Reflection:
    """`reflection` as `memory import` stores it: the file's own provenance claim replaced by
    the import's; untrusted, its importance and confidence capped (the claims are kept)."""
    judgment = reflection.judgment
    provenance = ReflectionProvenance(
        origin="import",
        trusted=trusted,
        file=file,
        at=datetime.now(UTC).isoformat(),
        sources=list(reflection.sources),
    )
    if trusted:
        return reflection.model_copy(update={"provenance": provenance})
    provenance.claimed_importance = reflection.importance
    provenance.claimed_confidence = judgment.confidence
    capped = judgment.model_copy(
        update={"confidence": min(judgment.confidence, UNTRUSTED_MAX_CONFIDENCE)}
    )
    return reflection.model_copy(
        update={
            "provenance": provenance,
            "importance": min(reflection.importance, UNTRUSTED_MAX_IMPORTANCE),
            "judgment": capped,
        }
    )


def stamped(reflection: Reflection, provenance: ReflectionProvenance) -> Reflection:
    """`reflection` with `provenance` when it has none recorded yet (a record being saved)."""
    if reflection.provenance.origin != "unrecorded":
        return reflection
    return reflection.model_copy(update={"provenance": provenance})
