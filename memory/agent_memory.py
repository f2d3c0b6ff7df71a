"""AgentMemory: the one way nodes read and write memory, through LangGraph's `runtime.store`.

    memory = AgentMemory(runtime.store, "default", min_relevance=0.25)
    memory.save_reflection(reflection)           # upsert by reflection.id
    memory.relevant_reflections("who wrote X?", k=3)
    memory.record_trajectory(trajectory)         # upsert by trajectory.id
    memory.relevant_workflows("who wrote X?", k=3, website="shop")

Namespaces (any BaseStore: InMemoryStore, `langgraph dev`'s store, the project's SqliteStore):
  ("reflections", *namespace parts)  key = reflection id, value = Reflection as JSON + "text"
  ("trajectories", website slug)     key = trajectory id, value = Trajectory as JSON (not indexed)
  ("workflows", website slug)        key = workflow name, value = workflow_value(w)
  ("workflow_updates",)              one record per induction: what it added, kept, dropped

Retrieval is vector search in the store; an item reaches a prompt only when its cosine
similarity to the query is at least `min_relevance` (the relevance floor), and the survivors are
ranked by the generative-agent score (relevance + recency + importance). A store without a
vector index (`InMemoryStore()`) is searched with `embeddings` (memory/unindexed.py); given
none, retrieval is off with a MemoryOffWarning. With `store=None` memory is off: nothing is
saved and nothing retrieved.
An empty namespace is detected by listing one item before any query is embedded, so an empty
store never loads the embedding model.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import Any

from langgraph.store.base import BaseStore, SearchItem

from memory.labels import (
    GENERAL,
    TRAJECTORIES,
    WORKFLOW_UPDATES,
    WORKFLOWS,
    now_iso,
    slugify,
    website_stem,
)
from memory.reflections.lessons import is_lesson, same_task, strategy
from memory.reflections.manager import namespace_path
from memory.reflections.provenance import ReflectionProvenance
from memory.reflections.schema import Reflection, embedding_text, stamped
from memory.reflections.scoring import ScoreWeights, score
from memory.trajectories import Trajectory
from memory.unindexed import EmbeddingsSource, UnindexedSearch, every_item
from memory.workflows.types import Workflow, merged, workflow_from_value, workflow_value

log = logging.getLogger(__name__)

# what a reflection is found by: task and lesson as ONE text (as the project's store and the
# relevance floor's calibration embed it; per-field vectors would match on a short task alone)
REFLECTION_FIELDS = ["text"]
WORKFLOW_FIELDS = ["search_text"]  # name + description, as AWM embedded them
POOL = 5  # candidates fetched per wanted item, before the floor and the re-ranking


class AgentMemory:
    """Reflections, trajectories and workflows of one memory namespace in a BaseStore."""

    def __init__(
        self,
        store: BaseStore | None,
        namespace: str = "default",
        *,
        min_relevance: float = 0.0,
        weights: ScoreWeights | None = None,
        thread_id: str | None = None,
        embeddings: EmbeddingsSource | None = None,
    ) -> None:
        self.store = store
        self.thread_id = thread_id  # the run's thread, recorded in what it saves
        self.namespace = namespace
        self.reflections_ns = namespace_path(namespace)
        self.min_relevance = min_relevance
        self.weights = weights or ScoreWeights()
        self.clock = time.time
        self._unindexed = UnindexedSearch(embeddings)  # for a store without a vector index

    @property
    def enabled(self) -> bool:
        return self.store is not None

    # -- reflections ---------------------------------------------------------------------------

    def save_reflection(self, reflection: Reflection, **meta: Any) -> str:
        """Store (or replace: same id, same item) a reflection; returns its id. `meta` (e.g.
        the run, task and attempt it came from) is stored beside the reflection's fields; a
        reflection without a recorded provenance is this run's (its thread and `run_id`)."""
        run = ReflectionProvenance.of_run(
            meta.get("thread_id") or self.thread_id, meta.get("run_id")
        )
        reflection = stamped(reflection, run)
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

    def relevant_reflections(
        self, text: str, k: int, *, outcomes: Collection[str] | None = None
    ) -> list[Reflection]:
        """Up to k lessons above the relevance floor, best generative score first; with
        `outcomes` (e.g. {"success"}), only lessons learned from those. A record that states no
        lesson (unjudged, a bare verdict, nothing; an insight that names one task's
        particulars) is kept, as its attempt's judgment, but never returned here. A lesson
        learned on another task than `text` comes as its strategy only, and not at all when it
        has none (memory/reflections/lessons.py `strategy`)."""
        hits = self._candidates(self.reflections_ns, text, k)
        hits = [
            h
            for h in hits
            if _teaches(h.value) and (outcomes is None or h.value.get("outcome") in outcomes)
        ]
        found = (_reflection(h.value) for h in self._best(hits, len(hits)))
        lessons = [lesson for r in found if r is not None and (lesson := _for_task(r, text))]
        return _distinct(lessons)[:k]

    def consolidate(self, chat_model: Any) -> int:
        """Generative-agent consolidation into insights, when enough new importance piled up.

        Only the project's store supports it (it works on the SQLite records directly, see
        memory/reflections/consolidation.py); with other stores this does nothing. Returns
        how many insights were made.
        """
        make = getattr(self.store, "reflection_manager", None)
        if make is None:
            return 0
        return len(make(self.namespace, chat_model).maybe_consolidate())

    def list_reflections(self) -> list[Reflection]:
        if self.store is None:
            return []
        items = every_item(self.store, self.reflections_ns)
        return [r for i in items if (r := _reflection(i.value)) is not None]

    # -- trajectories --------------------------------------------------------------------------

    def record_trajectory(self, trajectory: Trajectory) -> None:
        """Store (or replace, by id) one attempt's trajectory; it is data, never embedded."""
        if self.store is not None:
            ns = (TRAJECTORIES, website_stem(trajectory.website))
            self.store.put(ns, trajectory.id, trajectory.to_dict(), index=False)

    def trajectories(
        self, website: str | None, *, successful_only: bool = True
    ) -> list[Trajectory]:
        """The recorded runs of `website` (of every website when None), oldest first."""
        if self.store is None:
            return []
        ns = (TRAJECTORIES, website_stem(website)) if website else (TRAJECTORIES,)
        wanted = {"success": True} if successful_only else None
        items = every_item(self.store, ns, wanted)
        # a store lists in its own order (PostgreSQL's is not insertion order): the run's
        # own timestamp decides, so "the first run of a template" means the same everywhere
        runs = [Trajectory.from_dict(dict(i.value)) for i in items]
        return sorted(runs, key=lambda t: t.created)

    def trajectory(self, website: str, trajectory_id: str) -> Trajectory | None:
        """One recorded run of `website` by id (None: no such run, or memory is off)."""
        if self.store is None:
            return None
        item = self.store.get((TRAJECTORIES, website_stem(website)), trajectory_id)
        return None if item is None else Trajectory.from_dict(dict(item.value))

    # -- workflows -----------------------------------------------------------------------------

    def put_workflows(self, website: str, workflows: Iterable[Workflow]) -> int:
        """Add or replace (by name) workflows of one website; returns how many were written."""
        if self.store is None:
            return 0
        ns, n = (WORKFLOWS, website_stem(website)), 0
        for workflow in workflows:
            self.store.put(ns, workflow.name, workflow_value(workflow), index=WORKFLOW_FIELDS)
            n += 1
        return n

    def merge_workflows(self, website: str, workflows: Iterable[Workflow]) -> tuple[int, int]:
        """Add workflows, and replace same-named ones keeping what they were learned from
        (memory.workflows.types.merged); returns (added, updated)."""
        if self.store is None:
            return 0, 0
        current = {w.name: w for w in self.workflows(website)}
        fresh = [merged(w, current.get(w.name)) for w in workflows]
        updated = sum(w.name in current for w in fresh)
        self.put_workflows(website, fresh)
        return len(fresh) - updated, updated

    def workflows(self, website: str | None) -> list[Workflow]:
        """The workflows of `website` (of every website when None)."""
        if self.store is None:
            return []
        ns = (WORKFLOWS, website_stem(website)) if website else (WORKFLOWS,)
        items = every_item(self.store, ns)
        return [workflow_from_value(dict(i.value), i.namespace) for i in items]

    def delete_workflow(self, name: str, website: str | None) -> int:
        """Delete the workflows named `name` (in one website or every one); how many were."""
        if self.store is None:
            return 0
        gone = [w for w in self.workflows(website) if w.name == slugify(name)]
        for w in gone:
            self.store.delete((WORKFLOWS, website_stem(w.website)), w.name)
        return len(gone)

    def log_workflow_update(self, entry: dict[str, Any]) -> None:
        """Remember one induction over this memory (what it added, kept and dropped)."""
        record = {"at": now_iso(), **entry}
        log.info("workflow memory updated: %s", record)
        if self.store is not None:
            key = f"{time.time_ns():020d}-{uuid.uuid4().hex[:8]}"  # sorts as it was logged
            self.store.put((WORKFLOW_UPDATES,), key, record, index=False)

    def workflow_updates(self) -> list[dict[str, Any]]:
        """Every induction logged here, oldest first."""
        if self.store is None:
            return []
        items = every_item(self.store, (WORKFLOW_UPDATES,))
        return [dict(i.value) for i in sorted(items, key=lambda i: i.key)]

    def forget_workflows_from(self, website: str, trajectory_id: str) -> list[str]:
        """Delete the workflows of `website` induced from the run `trajectory_id` (it was
        judged a failure after it taught them); returns their names."""
        if self.store is None:
            return []
        ns = (WORKFLOWS, website_stem(website))
        names = [w.name for w in self.workflows(website) if trajectory_id in w.provenance.sources]
        for name in names:
            self.store.delete(ns, name)
        return names

    def relevant_workflows(
        self,
        text: str,
        k: int,
        *,
        website: str | None = None,
        verified_only: bool = False,
        also: Sequence[str] = (),
        where: Callable[[Workflow], bool] | None = None,
    ) -> list[Workflow]:
        """Up to k workflows above the relevance floor, best generative score first: those of
        `website` and the general ones when it names a website that has any, else any; with
        `verified_only`, only those whose replay where they were learned succeeded; with
        `where`, only those it accepts. A workflow near any of the `also` texts (another
        rendering of `text`) is a candidate too, at its best similarity."""
        spaces: list[tuple[str, ...]] = [(WORKFLOWS,)]
        if website and self.store is not None:
            stems = dict.fromkeys((website_stem(website), GENERAL))
            own: list[tuple[str, ...]] = [(WORKFLOWS, stem) for stem in stems]
            if any(self.store.search(ns, limit=1) for ns in own):
                spaces = own
        best: dict[tuple[tuple[str, ...], str], SearchItem] = {}
        for query in dict.fromkeys((text, *also)):
            for h in (h for ns in spaces for h in self._candidates(ns, query, k)):
                seen = best.get((h.namespace, h.key))
                if seen is None or (h.score or 0.0) > (seen.score or 0.0):
                    best[(h.namespace, h.key)] = h

        def fits(w: Workflow) -> bool:
            return (w.provenance.verified or not verified_only) and (where is None or where(w))

        hits = [h for h in best.values() if fits(workflow_from_value(dict(h.value)))]
        return [workflow_from_value(dict(h.value)) for h in self._best(hits, k)]

    # -- retrieval -----------------------------------------------------------------------------

    def _candidates(self, namespace: tuple[str, ...], text: str, k: int) -> list[SearchItem]:
        """Items of `namespace` nearest to `text` that pass the relevance floor (unranked)."""
        if self.store is None or k <= 0 or not text.strip():
            return []
        if not self.store.search(namespace, limit=1):  # empty: embed nothing
            return []
        hits = self.store.search(namespace, query=text, limit=k * POOL)
        if hits and all(h.score is None for h in hits):
            fields = WORKFLOW_FIELDS if namespace[0] == WORKFLOWS else REFLECTION_FIELDS
            hits = self._unindexed.search(self.store, namespace, text, fields, k * POOL)
        return [h for h in hits if h.score is not None and h.score >= self.min_relevance]

    def _best(self, hits: list[SearchItem], k: int) -> list[SearchItem]:
        """The k best by generative score (relevance + recency + importance)."""
        now = self.clock()

        def rank(h: SearchItem) -> float:
            importance = h.value.get("importance", 0.5)
            if not isinstance(importance, int | float):
                importance = 0.5
            parts = score(h.score or 0.0, h.updated_at.timestamp(), importance, now, self.weights)
            return parts.score

        return sorted(hits, key=rank, reverse=True)[:k]


def _verdict(value: dict[str, Any]) -> str | None:
    judgment = value.get("judgment")
    return judgment.get("verdict") if isinstance(judgment, dict) else None


def _for_task(reflection: Reflection, task: str) -> Reflection | None:
    """`reflection` as a lesson for `task`: whole on its own task, else only its strategy
    (None when it has none)."""
    if same_task(reflection.task, task) or reflection.kind == "insight":
        return reflection
    lesson = strategy(reflection.reflection)
    return reflection.model_copy(update={"reflection": lesson}) if lesson else None


def _distinct(lessons: list[Reflection]) -> list[Reflection]:
    """Each lesson once, the best-scored copy: a strategy learned on several tasks is stored
    with each, and would otherwise fill every slot of a prompt with the same sentence."""
    seen: set[str] = set()
    out = []
    for lesson in lessons:
        key = " ".join(lesson.reflection.lower().split())
        if key not in seen:
            seen.add(key)
            out.append(lesson)
    return out


def _teaches(value: dict[str, Any]) -> bool:
    """A stored record whose text is a lesson (memory/reflections/lessons.py `is_lesson`)."""
    text, kind = value.get("reflection"), value.get("kind") or "reflection"
    return isinstance(text, str) and is_lesson(text, kind=str(kind), verdict=_verdict(value))


def _reflection(value: dict[str, Any]) -> Reflection | None:
    """The stored value as a Reflection; None (logged) for a foreign item in the namespace."""
    try:
        return Reflection.model_validate(value)
    except ValueError as exc:
        log.warning("skipping a store item that is not a reflection: %s", exc)
        return None
