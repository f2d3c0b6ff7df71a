"""Generative-agent retrieval score: relevance + recency + importance, weighted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from memory.reflections.schema import Reflection

SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True)
class ScoreWeights:
    """score = relevance*w_rel + recency*w_rec + importance*w_imp, recency = decay ** hours.

    Defaults follow the generative-agents paper: every weight 1, decay 0.99 per hour since
    the memory was last accessed (retrieval refreshes it).
    """

    relevance: float = 1.0
    recency: float = 1.0
    importance: float = 1.0
    decay: float = 0.99

    def __post_init__(self) -> None:
        if not 0.0 < self.decay <= 1.0:
            raise ValueError(f"decay must be in (0, 1], got {self.decay}")
        if min(self.relevance, self.recency, self.importance) < 0:
            raise ValueError("score weights must be >= 0")


@dataclass(frozen=True)
class ScoreParts:
    """One memory's score and the parts it was built from, for display and tests."""

    score: float
    relevance: float
    recency: float
    importance: float


@dataclass
class ScoredReflection:
    """A retrieved reflection with its score parts (relevance, recency, importance)."""

    reflection: Reflection
    parts: ScoreParts

    @property
    def score(self) -> float:
        return self.parts.score


def recency(last_accessed: float, now: float, decay: float = 0.99) -> float:
    hours = max(0.0, now - last_accessed) / SECONDS_PER_HOUR
    return float(decay**hours)


def score(
    relevance: float, last_accessed: float, importance: float, now: float, weights: ScoreWeights
) -> ScoreParts:
    """Relevance is cosine similarity clipped to [0, 1]; importance is already 0-1."""
    rel = min(1.0, max(0.0, relevance))
    rec = recency(last_accessed, now, weights.decay)
    imp = min(1.0, max(0.0, importance))
    total = weights.relevance * rel + weights.recency * rec + weights.importance * imp
    return ScoreParts(total, rel, rec, imp)


def totals(
    relevance: Sequence[float] | np.ndarray,
    last_accessed: Sequence[float] | np.ndarray,
    importance: Sequence[float] | np.ndarray,
    now: float,
    weights: ScoreWeights,
) -> np.ndarray:
    """score(...).score for many memories at once (ranking hundreds of candidates per query)."""
    rel = np.clip(np.asarray(relevance, dtype=np.float64), 0.0, 1.0)
    hours = np.maximum(0.0, now - np.asarray(last_accessed, dtype=np.float64)) / SECONDS_PER_HOUR
    imp = np.clip(np.asarray(importance, dtype=np.float64), 0.0, 1.0)
    rec = weights.decay**hours
    return weights.relevance * rel + weights.recency * rec + weights.importance * imp
