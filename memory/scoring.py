"""Generative-agent retrieval score (seed 003): relevance + recency + importance, weighted."""

from __future__ import annotations

from dataclasses import dataclass

SECONDS_PER_HOUR = 3600.0


@dataclass(frozen=True)
class ScoreWeights:
    """score = relevance*w_rel + recency*w_rec + importance*w_imp, recency = decay ** hours.

    Defaults follow the paper and MISSION section 4: every weight 1, decay 0.99 per hour since
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
