"""What a research run leaves in memory: the ids of its records (derived, so a retried node or
a resumed run writes the same item again) and the shape of a failure lesson."""

from __future__ import annotations

import uuid

from pydantic import BaseModel, Field

from core.structured import told
from prompts.research import FAILURE_LESSON_SCHEMA


def memory_id(thread_id: str | None, run_id: str, task_index: int, attempt: int) -> str:
    """The id of what one attempt leaves in memory (its reflection, its trajectory).

    Derived, not random, so a retried node or a resumed run writes the same item again
    (an upsert) instead of a duplicate.
    """
    key = f"{thread_id or '-'}/{run_id}/{task_index}/{attempt}"
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"reflective-agent:{key}"))


class FailureLesson(BaseModel):
    """What the reflector says after the evidence overruled its verdict."""

    model_config = told(FAILURE_LESSON_SCHEMA)
    reflection: str = Field(description=FAILURE_LESSON_SCHEMA["reflection"])
    strategy: str = Field(default="", description=FAILURE_LESSON_SCHEMA["strategy"])


def lesson_text(reflection: str, strategy: str) -> str:
    """The record's lesson: the task's own sentences, then the strategy, each closed by a full
    stop so the strategy stays a sentence of its own."""
    parts = (p.strip() for p in (reflection, strategy))
    return " ".join(p if p[-1] in ".!?" else p + "." for p in parts if p)
