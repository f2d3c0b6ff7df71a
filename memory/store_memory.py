"""The research agent's memory through LangGraph's Store: reflections, trajectories, workflows.

    memory = StoreMemory(runtime.store, "default", min_relevance=0.25)
    memory.save_reflection(reflection)           # upsert by reflection.id
    memory.relevant_reflections("who wrote X?", k=3)
    memory.record_trajectory(trajectory)         # upsert by trajectory.id
    memory.relevant_workflows("who wrote X?", k=3)

Namespaces (any BaseStore: InMemoryStore, `langgraph dev`'s store, the project's ProjectStore):
  ("reflections", *namespace parts)  key = reflection id, value = Reflection as JSON + "text"
  ("trajectories", website)          key = trajectory id, value = Trajectory as JSON (not indexed)
  ("workflows", website)             key = workflow name, value = workflow_value(w)

Retrieval is vector search in the store; an item reaches a prompt only when its cosine
similarity to the query is at least `min_relevance` (the relevance floor), and the survivors are
ranked by the generative-agent score (relevance + recency + importance). A store without a
vector index returns unscored items: retrieval is then off (logged once per StoreMemory).
With `store=None` memory is off: nothing is saved and nothing retrieved.
An empty namespace is detected by listing one item before any query is embedded, so an empty
store never loads the embedding model.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from typing import Any

from langgraph.store.base import BaseStore, SearchItem

from memory.reflections import embedding_text, namespace_path
from memory.schema import Reflection
from memory.scoring import ScoreWeights, score
from memory.trajectories import Trajectory
from memory.workflow_types import Provenance, Workflow

log = logging.getLogger(__name__)

REFLECTIONS, TRAJECTORIES, WORKFLOWS = "reflections", "trajectories", "workflows"
# what a reflection is found by: task and lesson as ONE text (as the project's store and the
# relevance floor's calibration embed it; per-field vectors would match on a short task alone)
REFLECTION_FIELDS = ["text"]
WORKFLOW_FIELDS = ["search_text"]  # name + description, as AWM embedded them
POOL = 5  # candidates fetched per wanted item, before the floor and the re-ranking
LIST_LIMIT = 10_000


def workflow_value(workflow: Workflow) -> dict[str, Any]:
    """A workflow as a Store value (JSON): its fields, provenance and the text search embeds."""
    return {
        **workflow.to_json(),
        "provenance": workflow.provenance.to_dict(),
        "search_text": workflow.search_text(),
    }


def workflow_from_value(value: dict[str, Any]) -> Workflow:
    return Workflow(
        name=str(value["name"]),
        description=str(value.get("description", "")),
        steps=[str(s) for s in value.get("steps", [])],
        provenance=Provenance.from_dict(dict(value.get("provenance") or {})),
    )


class StoreMemory:
    """Reflections, trajectories and workflows of one memory namespace in a BaseStore."""

    def __init__(
        self,
        store: BaseStore | None,
        namespace: str = "default",
        *,
        min_relevance: float = 0.0,
        weights: ScoreWeights | None = None,
    ) -> None:
        self.store = store
        self.namespace = namespace
        self.reflections_ns = namespace_path(namespace)
        self.min_relevance = min_relevance
        self.weights = weights or ScoreWeights()
        self.clock = time.time
        self._warned_unindexed = False

    @property
    def enabled(self) -> bool:
        return self.store is not None

    # -- reflections ---------------------------------------------------------------------------

    def save_reflection(self, reflection: Reflection, **meta: Any) -> str:
        """Store (or replace: same id, same item) a reflection; returns its id. `meta` (e.g.
        the run, task and attempt it came from) is stored beside the reflection's fields."""
        if self.store is not None:
            value = {**meta, **reflection.model_dump(mode="json")}
            value["text"] = embedding_text(reflection)
            self.store.put(self.reflections_ns, reflection.id, value, index=REFLECTION_FIELDS)
        return reflection.id

    def get_reflection(self, reflection_id: str) -> Reflection | None:
        if self.store is None:
            return None
        item = self.store.get(self.reflections_ns, reflection_id)
        return _reflection(item.value) if item else None

    def relevant_reflections(self, text: str, k: int) -> list[Reflection]:
        """Up to k reflections above the relevance floor, best generative score first."""
        hits = self._ranked(self.reflections_ns, text, k, unjudged=False)
        return [r for h in hits if (r := _reflection(h.value)) is not None]

    def consolidate(self, chat_model: Any) -> int:
        """Generative-agent consolidation into insights, when enough new importance piled up.

        Only the project's store supports it (it works on the SQLite records directly, see
        memory/consolidation.py); with other stores this does nothing. Returns insights made.
        """
        make = getattr(self.store, "reflection_manager", None)
        if make is None:
            return 0
        return len(make(self.namespace, chat_model).maybe_consolidate())

    def list_reflections(self) -> list[Reflection]:
        if self.store is None:
            return []
        items = self.store.search(self.reflections_ns, limit=LIST_LIMIT)
        return [r for i in items if (r := _reflection(i.value)) is not None]

    # -- trajectories --------------------------------------------------------------------------

    def record_trajectory(self, trajectory: Trajectory) -> None:
        """Store (or replace, by id) one attempt's trajectory; it is data, never embedded."""
        if self.store is not None:
            ns = (TRAJECTORIES, trajectory.website)
            self.store.put(ns, trajectory.id, trajectory.to_dict(), index=False)

    def trajectories(self, website: str, *, successful_only: bool = True) -> list[Trajectory]:
        if self.store is None:
            return []
        wanted = {"success": True} if successful_only else None
        items = self.store.search((TRAJECTORIES, website), filter=wanted, limit=LIST_LIMIT)
        return [Trajectory.from_dict(dict(i.value)) for i in items]

    # -- workflows -----------------------------------------------------------------------------

    def put_workflows(self, website: str, workflows: Iterable[Workflow]) -> int:
        """Add or replace (by name) workflows of one website; returns how many were written."""
        if self.store is None:
            return 0
        n = 0
        for workflow in workflows:
            self.store.put(
                (WORKFLOWS, website), workflow.name, workflow_value(workflow), index=WORKFLOW_FIELDS
            )
            n += 1
        return n

    def workflows(self, website: str) -> list[Workflow]:
        if self.store is None:
            return []
        items = self.store.search((WORKFLOWS, website), limit=LIST_LIMIT)
        return [workflow_from_value(dict(i.value)) for i in items]

    def relevant_workflows(self, text: str, k: int) -> list[Workflow]:
        """Up to k workflows (any website) above the relevance floor, nearest first."""
        return [workflow_from_value(dict(h.value)) for h in self._ranked((WORKFLOWS,), text, k)]

    # -- retrieval -----------------------------------------------------------------------------

    def _ranked(
        self, namespace: tuple[str, ...], text: str, k: int, *, unjudged: bool = True
    ) -> list[SearchItem]:
        """Up to k items above the floor, best score first; `unjudged=False` leaves out
        reflections whose verdict is 'unjudged' (their text is no lesson)."""
        if self.store is None or k <= 0 or not text.strip():
            return []
        if not self.store.search(namespace, limit=1):  # empty: embed nothing
            return []
        hits = self.store.search(namespace, query=text, limit=k * POOL)
        if hits and all(h.score is None for h in hits):
            if not self._warned_unindexed:
                log.info("the store has no vector index: memory retrieval is off for this run")
                self._warned_unindexed = True
            return []
        kept = [h for h in hits if h.score is not None and h.score >= self.min_relevance]
        if not unjudged:
            kept = [h for h in kept if _verdict(h.value) != "unjudged"]
        now = self.clock()

        def rank(h: SearchItem) -> float:
            importance = h.value.get("importance", 0.5)
            if not isinstance(importance, int | float):
                importance = 0.5
            parts = score(h.score or 0.0, h.updated_at.timestamp(), importance, now, self.weights)
            return parts.score

        return sorted(kept, key=rank, reverse=True)[:k]


def _verdict(value: dict[str, Any]) -> str | None:
    judgment = value.get("judgment")
    return judgment.get("verdict") if isinstance(judgment, dict) else None


def _reflection(value: dict[str, Any]) -> Reflection | None:
    """The stored value as a Reflection; None (logged) for a foreign item in the namespace."""
    try:
        return Reflection.model_validate(value)
    except ValueError as exc:
        log.warning("skipping a store item that is not a reflection: %s", exc)
        return None
