"""Workflow retrieval: random or semantic (FAISS inner product on normalized vectors), top-k.

The semantic index embeds name + description (as AWM did) and returns the NEAREST first (AWM
sorted distances the wrong way). A WorkflowIndex belongs to whoever searches repeatedly (the
workflow file store keeps one) and rebuilds itself only when a workflow file changes; vectors
persist in <home>/workflows/index.npz keyed by text, so a new index re-embeds only what
changed. A `rerank` hook lets generative-agent scoring (relevance + recency + importance)
re-order the candidates.
"""

from __future__ import annotations

import hashlib
import logging
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from langchain_core.embeddings import Embeddings

from memory.labels import GENERAL, website_stem
from memory.workflows.files import WorkflowFiles
from memory.workflows.format import format_workflows
from memory.workflows.types import Workflow

log = logging.getLogger(__name__)

MODES = ("random", "semantic", "first")


@dataclass
class ScoredWorkflow:
    workflow: Workflow
    score: float  # cosine similarity for semantic; 0.0 for random/first


Reranker = Callable[[str, list[ScoredWorkflow]], list[ScoredWorkflow]]


def _embedder_name(embeddings: Embeddings) -> str:
    return str(getattr(embeddings, "name", None) or type(embeddings).__name__)


def _normalize(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


class WorkflowIndex:
    """FAISS IndexFlatIP over one home's workflows; refreshes itself when files change."""

    def __init__(self, files: WorkflowFiles, embeddings: Embeddings) -> None:
        self.files = files
        self.embeddings = embeddings
        self._signature: tuple[tuple[str, int, int], ...] | None = None
        self._workflows: list[Workflow] = []
        self._index: object | None = None

    def _key(self, text: str) -> str:
        return hashlib.sha1(f"{_embedder_name(self.embeddings)}\n{text}".encode()).hexdigest()

    def _vectors(self, texts: list[str]) -> np.ndarray:
        cache_path = self.files.dir / "index.npz"
        cached: dict[str, np.ndarray] = {}
        if cache_path.exists():
            data = np.load(cache_path, allow_pickle=False)
            cached = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))
        keys = [self._key(t) for t in texts]
        missing = [t for t, k in zip(texts, keys, strict=True) if k not in cached]
        if missing:
            fresh = self.embeddings.embed_documents(missing)
            for t, v in zip(missing, fresh, strict=True):
                cached[self._key(t)] = np.asarray(v, dtype="float32")
            kept = {k: cached[k] for k in keys}  # drop vectors of deleted workflows
            np.savez(cache_path, keys=np.array(list(kept)), vectors=np.stack(list(kept.values())))
        return _normalize(np.stack([cached[k] for k in keys]).astype("float32"))

    def refresh(self) -> None:
        signature = self.files.signature()
        if signature == self._signature:
            return
        import faiss

        self._workflows = list(self.files.load())
        self._index = None
        if self._workflows:
            matrix = self._vectors([w.search_text() for w in self._workflows])
            index = faiss.IndexFlatIP(matrix.shape[1])
            index.add(matrix)
            self._index = index
        self._signature = signature

    def search(self, query: str, k: int, website: str | None = None) -> list[ScoredWorkflow]:
        """Top-k by cosine similarity, nearest first; `website` keeps that site + general."""
        self.refresh()
        if self._index is None or k <= 0:
            return []
        q = _normalize(np.asarray([self.embeddings.embed_query(query)], dtype="float32"))
        allowed = _allowed_positions(self._workflows, website)
        n = len(self._workflows) if website else min(k, len(self._workflows))
        scores, ids = self._index.search(q, n)  # type: ignore[attr-defined]
        hits = [
            ScoredWorkflow(self._workflows[i], float(s))
            for s, i in zip(scores[0], ids[0], strict=True)
            if i >= 0 and i in allowed
        ]
        hits.sort(key=lambda h: -h.score)  # FAISS already orders; keep it explicit
        return hits[:k]


def _allowed_positions(workflows: list[Workflow], website: str | None) -> set[int]:
    if not website:
        return set(range(len(workflows)))
    stems = {website_stem(website), GENERAL}
    chosen = {i for i, w in enumerate(workflows) if website_stem(w.website) in stems}
    return chosen or set(range(len(workflows)))  # no site match: any workflow may still help


def retrieve(
    query: str,
    *,
    home: str | Path,
    k: int = 3,
    mode: str = "semantic",
    embeddings: Embeddings | None = None,
    website: str | None = None,
    rerank: Reranker | None = None,
    rng: random.Random | None = None,
    min_relevance: float | None = None,
    index: WorkflowIndex | None = None,
) -> list[ScoredWorkflow]:
    """Top-k workflows for `query` by `mode` ('semantic', 'random' or 'first' = file order).

    `min_relevance` (semantic mode) drops workflows whose cosine similarity to the query is
    below it, so workflows about something else never reach a prompt. A caller that searches
    again and again passes its own `index` (of the same home), which then builds only once.
    """
    if mode not in MODES:
        raise ValueError(f"unknown retrieval mode {mode!r}; use one of {', '.join(MODES)}")
    pool = k * 3 if rerank else k
    if mode == "semantic":
        if embeddings is None:
            raise ValueError("semantic retrieval needs embeddings (core.models.Models.embeddings)")
        index = index or WorkflowIndex(WorkflowFiles(home), embeddings)
        hits = index.search(query, pool, website)
        if min_relevance is not None:
            hits = [h for h in hits if h.score >= min_relevance]
    else:
        workflows = WorkflowFiles(home).load()
        allowed = _allowed_positions(workflows, website)
        candidates = [w for i, w in enumerate(workflows) if i in allowed]
        if mode == "random":
            candidates = (rng or random.Random()).sample(candidates, min(pool, len(candidates)))
        hits = [ScoredWorkflow(w, 0.0) for w in candidates[:pool]]
    if rerank:
        hits = rerank(query, hits)
    return hits[:k]


def generative_rerank(
    *,
    relevance_weight: float = 1.0,
    recency_weight: float = 1.0,
    importance_weight: float = 1.0,
    decay_per_hour: float = 0.995,
    importance: Callable[[Workflow], float] | None = None,
    now: datetime | None = None,
) -> Reranker:
    """Generative-agent scoring: weighted relevance + recency (of `updated`) + importance.

    Default importance grows with the number of source trajectories (more evidence, capped at 1).
    """

    def _importance(w: Workflow) -> float:
        return min(1.0, len(w.provenance.sources) / 5) if importance is None else importance(w)

    def _recency(w: Workflow) -> float:
        try:
            updated = datetime.fromisoformat(w.provenance.updated)
        except ValueError:
            return 0.0
        hours = max(0.0, ((now or datetime.now(UTC)) - updated).total_seconds() / 3600)
        return math.pow(decay_per_hour, hours)

    def _rerank(query: str, hits: list[ScoredWorkflow]) -> list[ScoredWorkflow]:
        rescored = [
            ScoredWorkflow(
                h.workflow,
                relevance_weight * max(0.0, h.score)
                + recency_weight * _recency(h.workflow)
                + importance_weight * _importance(h.workflow),
            )
            for h in hits
        ]
        return sorted(rescored, key=lambda h: -h.score)

    return _rerank


def relevant_workflows_text(
    query: str,
    *,
    home: str | Path,
    k: int = 3,
    embeddings: Embeddings | None,
    website: str | None = None,
    min_relevance: float | None = None,
) -> str:
    """Formatted workflows most relevant to `query` for a prompt; "" when there are none.

    Semantic (nearest first) when `embeddings` is given, else the first k; the query is
    embedded once.
    """
    if k <= 0:
        return ""
    mode = "semantic" if embeddings is not None else "first"
    hits = retrieve(
        query,
        home=home,
        k=k,
        mode=mode,
        embeddings=embeddings,
        website=website,
        min_relevance=min_relevance,
    )
    return format_workflows(h.workflow for h in hits)
