"""Workflow retrieval from a store: semantic (nearest first), random or in stored order; top-k.

Semantic search is the store's vector search over name + description (as AWM embedded them,
memory.agent_memory.WORKFLOW_FIELDS), nearest first (AWM sorted distances the wrong way). A
`rerank` hook lets generative-agent scoring (relevance + recency + importance) re-order the
candidates.
"""

from __future__ import annotations

import logging
import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from langgraph.store.base import BaseStore

from memory.labels import GENERAL, WORKFLOWS, website_stem
from memory.unindexed import LIST_LIMIT, every_item
from memory.workflows.format import format_workflows
from memory.workflows.types import Workflow, workflow_from_value

log = logging.getLogger(__name__)

MODES = ("random", "semantic", "first")


@dataclass
class ScoredWorkflow:
    workflow: Workflow
    score: float  # cosine similarity for semantic; 0.0 for random/first


Reranker = Callable[[str, list[ScoredWorkflow]], list[ScoredWorkflow]]


def _allowed_positions(workflows: list[Workflow], website: str | None) -> set[int]:
    if not website:
        return set(range(len(workflows)))
    stems = {website_stem(website), GENERAL}
    chosen = {i for i, w in enumerate(workflows) if website_stem(w.website) in stems}
    return chosen or set(range(len(workflows)))  # no site match: any workflow may still help


def retrieve(
    query: str,
    *,
    store: BaseStore,
    k: int = 3,
    mode: str = "semantic",
    website: str | None = None,
    rerank: Reranker | None = None,
    rng: random.Random | None = None,
    min_relevance: float | None = None,
) -> list[ScoredWorkflow]:
    """Top-k workflows for `query` by `mode` ('semantic', 'random' or 'first' = stored order);
    `website` keeps that site's and general workflows (any, when it has none).

    `min_relevance` (semantic mode) drops workflows whose cosine similarity to the query is
    below it, so workflows about something else never reach a prompt.
    """
    if mode not in MODES:
        raise ValueError(f"unknown retrieval mode {mode!r}; use one of {', '.join(MODES)}")
    pool = k * 3 if rerank else k
    if mode == "semantic":
        found = store.search((WORKFLOWS,), query=query, limit=LIST_LIMIT if website else pool)
        workflows = [workflow_from_value(dict(i.value), i.namespace) for i in found]
        hits = [ScoredWorkflow(w, i.score or 0.0) for w, i in zip(workflows, found, strict=True)]
        hits = [h for n, h in enumerate(hits) if n in _allowed_positions(workflows, website)]
        if min_relevance is not None:
            hits = [h for h in hits if h.score >= min_relevance]
    else:
        listed = every_item(store, (WORKFLOWS,))
        workflows = [workflow_from_value(dict(i.value), i.namespace) for i in listed]
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
    store: BaseStore,
    k: int = 3,
    semantic: bool = True,
    website: str | None = None,
    min_relevance: float | None = None,
) -> str:
    """Formatted workflows most relevant to `query` for a prompt; "" when there are none.

    Semantic (nearest first), else the first k in stored order.
    """
    if k <= 0:
        return ""
    mode = "semantic" if semantic else "first"
    hits = retrieve(
        query, store=store, k=k, mode=mode, website=website, min_relevance=min_relevance
    )
    return format_workflows(h.workflow for h in hits)
