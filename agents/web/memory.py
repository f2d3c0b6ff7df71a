"""The web agent's memory: reflections, workflows (AWM) and similar past runs (MMInA), and
recording each episode's trajectory for online workflow induction."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from browser.trajectory import TrajectoryStep
from memory.trajectories import Trajectory, TrajectoryLog, trajectory_from_web_steps

log = logging.getLogger(__name__)
TRAJECTORY_STEPS_SHOWN = 12  # actions per past run in the prompt; longer runs are cut


def similar_trajectories(
    task: str,
    *,
    home: str | Path,
    k: int,
    website: str | None = None,
    embeddings: Embeddings | None = None,
    min_relevance: float | None = None,
) -> list[Trajectory]:
    """The `k` recorded runs (successful or not) whose task is most similar to `task`.

    MMInA's procedural memory: both outcomes are useful (what worked, what did not). Similarity
    is cosine over embeddings when given, else shared words; the newest run wins ties. With
    embeddings, `min_relevance` (the relevance floor) drops runs whose cosine is below it, so
    runs of an unrelated task never reach the prompt.
    """
    if k <= 0:
        return []
    runs = TrajectoryLog(home).load(website, successful_only=False)
    runs = [r for r in runs if r.steps]
    if not runs:
        return []
    if embeddings is not None:
        query = embeddings.embed_query(task)
        vectors = embeddings.embed_documents([r.task for r in runs])
        scores = [_cosine(query, v) for v in vectors]
    else:
        words = set(task.lower().split())
        scores = [len(words & set(r.task.lower().split())) / (len(words) or 1) for r in runs]
    order = sorted(range(len(runs)), key=lambda i: (scores[i], i), reverse=True)
    if embeddings is not None and min_relevance is not None:
        order = [i for i in order if scores[i] >= min_relevance]
    return [runs[i] for i in order[:k]]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0


def format_past_trajectories(runs: Sequence[Trajectory]) -> str:
    """`<run_i>` blocks with the task, the actions taken and the outcome."""
    blocks = []
    for i, run in enumerate(runs):
        actions = [s.action for s in run.steps[:TRAJECTORY_STEPS_SHOWN]]
        if len(run.steps) > TRAJECTORY_STEPS_SHOWN:
            actions.append(f"... ({len(run.steps) - TRAJECTORY_STEPS_SHOWN} more)")
        outcome = "success" if run.success else "failure"
        blocks.append(
            f"<run_{i}>\n<task>{run.task}</task>\n<actions>\n" + "\n".join(actions)
            + f"\n</actions>\n<outcome>{outcome}</outcome>\n</run_{i}>"
        )  # fmt: skip
    return "\n".join(blocks)


def record_episode(
    home: str | Path,
    task: str,
    steps: Sequence[TrajectoryStep | dict[str, Any]],
    *,
    website: str,
    success: bool,
    judged_by: str,
    template_id: str | None = None,
) -> Trajectory:
    """Append the episode to <home>/trajectories/<website>.jsonl (success or not)."""
    trajectory = trajectory_from_web_steps(
        task, steps, website=website, success=success, template_id=template_id,
        judged_by=judged_by,
    )  # fmt: skip
    path = TrajectoryLog(home).record(trajectory)
    log.info("recorded web trajectory %s (%s) in %s", trajectory.id, judged_by, path)
    return trajectory
