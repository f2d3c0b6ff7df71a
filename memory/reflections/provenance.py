"""Where a reflection came from, and what memory from outside is allowed to do.

    ReflectionProvenance.of_run(thread_id, run_id)   # a lesson this agent wrote in a run
    imported(reflection, "/path/file.jsonl", trusted=False)   # schema.py: `memory import`
    ReflectionProvenance.of_consolidation(ids)   # an insight distilled from those records

Memory written from outside is a door into every later prompt (memory poisoning), so an
imported record is untrusted unless the user says otherwise (`memory import --trust`): its
importance and confidence are capped (so it neither outranks the agent's own lessons nor
reads as certain), consolidation never distils it into an insight, and it reaches a prompt
only as quoted data labelled with where it came from, never as one of the agent's lessons
(memory/reflections/manager.py `format_reflections`). Records stored before provenance was
kept read `unrecorded` and count as the agent's own.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

UNTRUSTED_MAX_IMPORTANCE = 0.2  # below a failed attempt's own lesson (0.8) and a pass (0.4)
UNTRUSTED_MAX_CONFIDENCE = 0.5  # never a certain verdict


def _none(value: object) -> bool:
    return value is None


def _empty(value: object) -> bool:
    return not value


Origin = Literal["run", "import", "consolidation", "unrecorded"]


class ReflectionProvenance(BaseModel):
    """The origin of one record and whether prompts may treat it as the agent's own lesson."""

    origin: Origin = Field(
        default="unrecorded",
        description="run (written by this agent), import (memory import), consolidation "
        "(an insight), unrecorded (stored before provenance was kept).",
    )
    trusted: bool = Field(
        default=True, description="False: quoted as data in prompts, never as a lesson."
    )
    thread_id: str | None = Field(
        default=None, exclude_if=_none, description="The run's thread (run)."
    )
    run_id: str | None = Field(default=None, exclude_if=_none, description="The run (run).")
    file: str | None = Field(
        default=None, exclude_if=_none, description="The file it was imported from."
    )
    at: str | None = Field(default=None, exclude_if=_none, description="When it was imported.")
    sources: list[str] = Field(
        default_factory=list, exclude_if=_empty, description="The records it came from."
    )
    claimed_importance: float | None = Field(
        default=None,
        exclude_if=_none,
        description="The importance the import file gave, before the cap.",
    )
    claimed_confidence: float | None = Field(
        default=None,
        exclude_if=_none,
        description="The confidence the import file gave, before the cap.",
    )

    @classmethod
    def of_run(
        cls, thread_id: str | None = None, run_id: str | None = None
    ) -> ReflectionProvenance:
        return cls(origin="run", thread_id=thread_id, run_id=run_id)

    @classmethod
    def of_consolidation(cls, sources: list[str]) -> ReflectionProvenance:
        return cls(origin="consolidation", sources=list(sources))

    def short(self) -> str:
        """A few characters for a listing: run:THREAD, import:FILE-NAME!, insight:N, …
        (`!` marks an untrusted record)."""
        if self.origin == "run":
            return f"run:{self.thread_id}" if self.thread_id else "run"
        if self.origin == "import":
            name = (self.file or "?").replace("\\", "/").rsplit("/", 1)[-1]
            return f"import:{name}" + ("" if self.trusted else "!")
        if self.origin == "consolidation":
            return f"insight:{len(self.sources)}"
        return "unrecorded"

    def describe(self) -> str:
        """One short line for `memory list` and for the label a prompt shows."""
        if self.origin == "run":
            parts = [f"thread {self.thread_id}" if self.thread_id else ""]
            parts.append(f"run {self.run_id}" if self.run_id else "")
            where = ", ".join(p for p in parts if p)
            return f"this agent's run ({where})" if where else "this agent's run"
        if self.origin == "import":
            trust = "trusted by the user" if self.trusted else "untrusted"
            return f"imported from {self.file or '?'} ({trust})"
        if self.origin == "consolidation":
            return f"consolidated from {len(self.sources)} records"
        return "unrecorded (stored before provenance was kept)"
