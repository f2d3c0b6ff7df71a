"""ReflectionManager: save, get, retrieve top-k and format reflections over the storage engine.

`ReflectionManager()` keeps everything in process (hashing embeddings; for unit tests);
`ReflectionManager.open(home, embeddings)` persists under `home/memory/`; the project's store
hands out one over its own engine (`SqliteStore.reflection_manager`), which is how the CLI
administers memory. Retrieval ranks by the generative-agent score (memory/reflections/scoring.py)
and refreshes last access.
"""

from __future__ import annotations

import logging
import time
import warnings
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from pydantic import ValidationError

from core.embeddings import HashingEmbeddings
from memory.engine.backend import MEMORY_DIR, Hit, MemoryBackend
from memory.engine.rows import Claim, Item, NewItem
from memory.reflections.distill import CONSOLIDATION_FLOOR
from memory.reflections.provenance import ReflectionProvenance
from memory.reflections.schema import Reflection, embedding_text, stamped
from memory.reflections.scoring import ScoredReflection, ScoreWeights, score, totals
from prompts.memory import LEARNED_FROM, LEARNED_FROM_LINE, QUOTED_MEMORY, REFLECTION
from prompts.untrusted import data

log = logging.getLogger(__name__)
ROOT = "reflections"


def format_reflections(reflections: Iterable[Reflection]) -> str:
    """The prompt form: the agent's own lessons as <ref_i><task>…</task><reflection>…
    </reflection></ref_i>, with <learned_from> (worked before / failed before) between them
    when the lesson's outcome is known; untrusted records (e.g. imported) after them, each as a
    <quoted_memory_i> that names its provenance and is never a lesson (reflections/provenance.py).
    Texts arrive escaped (prompts.untrusted.data) from the nodes; the label is escaped here."""
    given = list(reflections)
    own = [r for r in given if r.trusted]
    quoted = [r for r in given if not r.trusted]
    blocks = [
        REFLECTION.format(i=i, task=r.task, reflection=r.reflection, learned_from=_learned_from(r))
        for i, r in enumerate(own)
    ]
    blocks += [
        QUOTED_MEMORY.format(
            i=i, source=data(r.provenance.describe()), task=data(r.task), text=data(r.reflection)
        )
        for i, r in enumerate(quoted)
    ]
    return "\n".join(blocks)


def _learned_from(reflection: Reflection) -> str:
    """The <learned_from> line of a lesson whose outcome is known ("" for the others)."""
    if reflection.outcome is None:
        return ""
    return LEARNED_FROM_LINE.format(learned=LEARNED_FROM[reflection.outcome])


def namespace_path(namespace: str) -> tuple[str, ...]:
    """'proj/alice' -> ('reflections', 'proj', 'alice'): the LangGraph Store namespace."""
    parts = tuple(p for p in namespace.split("/") if p)
    if not parts or any("." in p for p in parts):
        raise ValueError(
            f"bad memory namespace {namespace!r}: use names like 'default' or "
            "'project/user' without dots"
        )
    return (ROOT, *parts)


def _iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat()


class ReflectionManager:
    """save_reflection / get_reflection / get_relevant_reflections / format_reflections."""

    def __init__(
        self,
        embeddings: Embeddings | None = None,
        *,
        backend: MemoryBackend | None = None,
        namespace: str = "default",
        weights: ScoreWeights | None = None,
        min_relevance: float = 0.0,
        chat_model: BaseChatModel | None = None,
        consolidation_threshold: float = 5.0,
        consolidation_floor: float | None = None,
    ) -> None:
        self.backend = backend or MemoryBackend.in_memory(embeddings or HashingEmbeddings())
        self.namespace = namespace
        self.prefix = ".".join(namespace_path(namespace))
        self.weights = weights or ScoreWeights()
        self.min_relevance = min_relevance
        self.chat_model = chat_model
        self.consolidation_threshold = consolidation_threshold
        # how alike every two lessons distilled together must be (consolidation.py)
        self.consolidation_floor = (
            CONSOLIDATION_FLOOR if consolidation_floor is None else consolidation_floor
        )
        self.clock = time.time

    @classmethod
    def open(
        cls,
        home: str | Path,
        embeddings: Embeddings,
        namespace: str = "default",
        *,
        reembed: bool = False,
        **options: Any,
    ) -> ReflectionManager:
        """A manager persisted under `home/memory/` (SQLite records + FAISS index)."""
        backend = MemoryBackend.open(Path(home) / MEMORY_DIR, embeddings, reembed=reembed)
        return cls(backend=backend, namespace=namespace, **options)

    # -- save, get, retrieve, format ---------------------------------------------------------------

    def save_reflection(self, reflection: Reflection) -> str:
        """Store durably (one transaction) and index; consolidates when enough is new.

        With a chat model, a reflection whose importance was not set explicitly is rated by the
        model (1-10 → 0-1) first, as in the generative-agents paper. A reflection without a
        recorded provenance is this agent's own (a run's).
        """
        reflection = stamped(reflection, ReflectionProvenance.of_run())
        if self.chat_model is not None and "importance" not in reflection.model_fields_set:
            from memory.reflections.consolidation import score_importance

            rated = score_importance(self.chat_model, reflection)
            if rated is not None:
                reflection = reflection.model_copy(update={"importance": rated})
        self.save_many([reflection])
        if self.chat_model is not None and reflection.kind != "insight":
            try:
                self.maybe_consolidate()
            except Exception as exc:  # a side job: the save itself succeeded and stays
                log.warning(
                    "memory consolidation failed (%s: %s); its batch stays pending and is "
                    "retried after a later save",
                    type(exc).__name__,
                    exc,
                )
        return reflection.id

    def save_many(
        self, reflections: Iterable[Reflection], *, claim: Claim | None = None
    ) -> list[str]:
        """Store several reflections in ONE transaction (import, consolidation).

        With `claim`, the store's metadata compare-and-set is part of that transaction: the
        reflections are stored only if the claim holds, else nothing is and [] is returned.
        """
        batch = list(reflections)
        stored = self.backend.put_many(
            [
                NewItem(
                    self.prefix,
                    r.id,
                    r.model_dump(mode="json"),
                    text=embedding_text(r),
                    importance=r.importance,
                )
                for r in batch
            ],
            claim,
        )
        return [] if stored is None else [r.id for r in batch]

    def get_reflection(self, reflection_id: str) -> Reflection | None:
        item = self.backend.records.get(self.prefix, reflection_id)
        return self._to_reflection(item) if item else None

    def get_relevant_reflections(
        self, query: str, k: int = 3, *, kinds: Iterable[str] | None = None
    ) -> list[Reflection]:
        """Top k by relevance + recency + importance; their last access becomes now."""
        return [s.reflection for s in self.search(query, k, kinds=kinds)]

    def format_reflections(self, reflections: Iterable[Reflection]) -> str:
        return format_reflections(reflections)

    # -- ranked search, listing, deletion, consolidation -------------------------------------------

    def search(
        self, query: str, k: int = 3, *, kinds: Iterable[str] | None = None, touch: bool = True
    ) -> list[ScoredReflection]:
        """Ranked results with score parts, best first."""
        if k <= 0 or not query.strip():
            return []
        wanted = set(kinds) if kinds else None
        now = self.clock()
        hits = [
            hit
            for hit in self.backend.search(
                self.prefix, query, max(k * 20, 200), with_kind=wanted is not None
            )
            if hit.relevance > self.min_relevance
            and (not wanted or (hit.light.kind or "reflection") in wanted)
        ]
        ranked = self._ranked(hits, now)
        best: list[ScoredReflection] = []
        seqs: list[int] = []
        for start in range(0, len(ranked), k):  # load only what may be returned
            for item, hit in self.backend.load(ranked[start : start + k]):
                reflection = self._to_reflection(item)
                if reflection is not None and len(best) < k:
                    li = hit.light
                    parts = score(hit.relevance, li.last_accessed, li.importance, now, self.weights)
                    best.append(ScoredReflection(reflection, parts))
                    seqs.append(item.seq)
            if len(best) == k:
                break
        if touch and seqs:
            self.backend.records.touch(seqs, now)
        return best

    def _ranked(self, hits: list[Hit], now: float) -> list[Hit]:
        """Best score first; among equal scores the newer record first."""
        cols = np.array(
            [(h.relevance, h.light.last_accessed, h.light.importance) for h in hits], dtype=float
        ).reshape(-1, 3)
        total = totals(cols[:, 0], cols[:, 1], cols[:, 2], now, self.weights)
        order = np.lexsort((-np.array([h.light.seq for h in hits]), -total))
        return [hits[i] for i in order]

    def list_reflections(self, kind: str | None = None) -> list[Reflection]:
        """Every reflection in this namespace, oldest first."""
        found = [self._to_reflection(it) for it in self.backend.records.items(self.prefix)]
        return [r for r in found if r is not None and (kind is None or r.kind == kind)]

    def delete_reflection(self, reflection_id: str) -> bool:
        return self.backend.records.delete(self.prefix, reflection_id)

    def clear(self) -> int:
        """Delete every reflection in this namespace; returns how many."""
        return self.backend.records.clear(self.prefix)

    def count(self) -> int:
        return self.backend.records.count(self.prefix)

    def maybe_consolidate(self, force: bool = False) -> list[Reflection]:
        """Synthesize insights when the importance of new reflections passes the threshold."""
        from memory.reflections.consolidation import consolidate

        if self.chat_model is None:
            raise ValueError("consolidation needs a chat model: pass chat_model= to the manager")
        return consolidate(self, self.chat_model, self.consolidation_threshold, force=force)

    def flush(self) -> None:
        self.backend.flush()

    def close(self) -> None:
        self.backend.close()

    def _to_reflection(self, item: Item) -> Reflection | None:
        """The item as a Reflection; None (with a warning) for foreign items put via the Store."""
        data = dict(item.value)
        data["importance"] = item.importance
        data["last_accessed_at"] = _iso(item.last_accessed)
        try:
            return Reflection.model_validate(data)
        except ValidationError as exc:
            warnings.warn(
                f"memory item {item.key!r} in {item.namespace!r} is not a reflection "
                f"({exc.error_count()} errors); skipping it",
                stacklevel=3,
            )
            return None
