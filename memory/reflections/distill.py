"""Distilling insights: lessons about one kind of task, grouped, become general strategies.

Consolidation (consolidation.py) asks the model about one group at a time, and a group holds
only lessons that are all alike: every member is at least `floor` similar to every other one
(complete linkage), not merely to the record the group started from. Unrelated lessons are
never shown to the model together, so an insight cannot mix their questions. What the model
answers is kept only when it is a strategy: a lesson (lessons.py) that names nothing
particular to one task, since a name, title or year is an answer to one question.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
from langchain_core.language_models import BaseChatModel
from pydantic import BaseModel, Field

from memory.reflections.lessons import is_lesson, particulars
from memory.reflections.provenance import ReflectionProvenance
from memory.reflections.schema import Outcome, Reflection, ReflectionJudgment
from prompts.consolidate import INSIGHTS
from prompts.memory import LEARNED_FROM
from prompts.untrusted import data

log = logging.getLogger(__name__)
MAX_INSIGHTS = 5
MIN_MEMBERS = 2  # one lesson alone is no pattern: it stays a lesson
MAX_MEMBERS = 10
# all-MiniLM-L6-v2 on HotpotQA lessons: one question's subtasks score 0.6-0.9, the same kind
# of task across questions 0.4-0.5, unrelated pairs 0.2 (median); a stricter floor than the
# prompt's relevance floor (0.27), since a mixed group makes advice that is wrong for all
CONSOLIDATION_FLOOR = 0.45


class Insights(BaseModel):
    task_kind: str = Field(description="The kind of task, in general words.")
    # min_length becomes minItems in the grammar: a small model cannot answer with nothing
    insights: list[str] = Field(description="Up to 5 one-sentence strategies.", min_length=1)


def teaches(reflection: Reflection) -> bool:
    """A judged record whose text states a lesson (not a verdict, not a placeholder)."""
    return is_lesson(
        reflection.reflection, kind=reflection.kind, verdict=reflection.judgment.verdict
    )


def general(text: str) -> bool:
    """A strategy for a kind of task: a lesson that names nothing particular to one task."""
    return is_lesson(text, kind="insight")


def similar_groups(
    vectors: np.ndarray, floor: float, min_size: int = MIN_MEMBERS, max_size: int = MAX_MEMBERS
) -> list[list[int]]:
    """Groups of row indices (unit vectors) in which every pair is at least `floor` similar.

    Greedy complete linkage, the newest row (last) seeding first: a candidate joins only if it
    is similar enough to every member so far, nearest to the seed first. Each row is in at most
    one group; groups smaller than `min_size` are dropped.
    """
    sims = vectors @ vectors.T if len(vectors) else np.zeros((0, 0))
    free = set(range(len(vectors)))
    groups: list[list[int]] = []
    for seed in reversed(range(len(vectors))):
        if seed not in free:
            continue
        free.discard(seed)
        members = [seed]
        for j in sorted(free, key=lambda j: (-sims[seed, j], -j)):
            if len(members) < max_size and all(sims[j, m] >= floor for m in members):
                members.append(j)
        if len(members) >= min_size:
            groups.append(sorted(members))
            free -= set(members)
    return groups


def numbered(reflections: Sequence[Reflection]) -> str:
    """One line per memory, labelled with what it was learned from when that is known;
    memories are data: escaped so none can close <memories> or open an instruction."""
    return "\n".join(
        f"{i}. {_label(r)}{data(r.task)}: {data(r.reflection)}"
        for i, r in enumerate(reflections, 1)
    )


def _label(reflection: Reflection) -> str:
    return f"({LEARNED_FROM[reflection.outcome]}) " if reflection.outcome else ""


def shared_outcome(group: Sequence[Reflection]) -> Outcome | None:
    """The outcome every member was learned from; None when they differ or one is unknown."""
    outcomes = {r.outcome for r in group}
    return outcomes.pop() if len(outcomes) == 1 else None


def distil(model: BaseChatModel, group: Sequence[Reflection]) -> list[Reflection] | None:
    """The group's strategies as insights; None when the model gave no usable answer."""
    from core.structured import ask_structured

    prompt = INSIGHTS.format(memories=numbered(group), n=MAX_INSIGHTS)
    found = ask_structured(model, Insights, prompt)
    if not isinstance(found, Insights):
        return None
    kind = found.task_kind.strip()
    if not kind or particulars(kind):
        kind = group[-1].task  # no general name: keyed by the newest member's own task
    texts = [t.strip() for t in found.insights if t.strip()]
    kept = [t for t in texts if general(t)][:MAX_INSIGHTS]
    if len(kept) < len(texts):
        log.info(
            "consolidation: %d of %d insights were no strategy", len(texts) - len(kept), len(texts)
        )
    return [insight(kind, text, group) for text in kept]


def insight(task_kind: str, text: str, group: Sequence[Reflection]) -> Reflection:
    ids = [r.id for r in group]
    return Reflection(
        task=task_kind,
        reflection=text,
        judgment=ReflectionJudgment(
            needs_retry=False, confidence=1.0, reasons=["consolidated from past reflections"]
        ),
        importance=max([r.importance for r in group] or [0.5]),
        kind="insight",
        sources=ids,
        outcome=shared_outcome(group),
        provenance=ReflectionProvenance.of_consolidation(ids),
    )
