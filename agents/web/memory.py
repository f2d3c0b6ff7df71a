"""The web agent's memory, read and written through `runtime.store` (memory.agent_memory):
reflections, workflows (AWM) and similar past runs (MMInA) for the prompt, and each episode's
trajectory, from which online induction learns workflows."""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

from langchain_core.embeddings import Embeddings

from browser.trajectory import TrajectoryStep
from core.web_context import WebAgentContext
from memory.agent_memory import AgentMemory
from memory.labels import website_stem
from memory.reflections.manager import format_reflections
from memory.trajectories import Trajectory, trajectory_from_web_steps
from memory.workflows.format import format_workflows

log = logging.getLogger(__name__)
TRAJECTORY_STEPS_SHOWN = 12  # actions per past run in the prompt; longer runs are cut


def gather_memory(
    memory: AgentMemory,
    ctx: WebAgentContext,
    task: str,
    website: str | None,
    workflows: str | None,
) -> dict[str, str]:
    """Reflections, workflows and similar past runs for the prompt (looked up once per run),
    each past the relevance floor `ctx.min_relevance`; `workflows`, when given, replaces the
    workflows memory would supply."""
    lessons = memory.relevant_reflections(task, ctx.reflections_k)
    reflections = format_reflections(lessons)
    if workflows is None and ctx.use_workflows and ctx.workflows_k > 0:
        found = memory.relevant_workflows(
            task, ctx.workflows_k, website=website, verified_only=ctx.verified_workflows
        )
        workflows = format_workflows(found)
    runs = similar_trajectories(
        memory.trajectories(website, successful_only=False),
        task,
        k=ctx.trajectories_k,
        embeddings=ctx.models.embeddings(ctx.embedding_model),
        min_relevance=ctx.min_relevance,
    )
    return {
        "reflections": reflections,
        "workflows": workflows or "",
        "trajectories": format_past_trajectories(runs),
    }


def similar_trajectories(
    runs: Sequence[Trajectory],
    task: str,
    *,
    k: int,
    embeddings: Embeddings | None = None,
    min_relevance: float | None = None,
) -> list[Trajectory]:
    """The `k` recorded runs (successful or not) whose task is most similar to `task`.

    MMInA's procedural memory: both outcomes are useful (what worked, what did not). Similarity
    is cosine over embeddings when given, else shared words; the newest run wins ties. With
    embeddings, `min_relevance` (the relevance floor) drops runs whose cosine is below it, so
    runs of an unrelated task never reach the prompt. Runs without steps are left out.
    """
    runs = [r for r in runs if r.steps]
    if k <= 0 or not runs:
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
            f"<run_{i}>\n<task>{run.task}</task>\n<actions>\n"
            + "\n".join(actions)
            + f"\n</actions>\n<outcome>{outcome}</outcome>\n</run_{i}>"
        )
    return "\n".join(blocks)


def record_run(
    memory: AgentMemory,
    ctx: WebAgentContext,
    task: str,
    steps: Sequence[TrajectoryStep | dict[str, Any]],
    *,
    website: str,
    success: bool,
    judged_by: str,
) -> str | None:
    """Record the episode's trajectory (success or not); after a success, online induction
    ('rule' or 'llm') updates the website's workflows. Returns the trajectory id, or None when
    nothing was recorded: memory is frozen (`ctx.record_runs` off) or off (no store)."""
    if not ctx.record_runs or not memory.enabled:
        return None
    trajectory = trajectory_from_web_steps(
        task, steps, website=website, success=success, judged_by=judged_by
    )
    memory.record_trajectory(trajectory)
    log.info("recorded web trajectory %s (%s) of %s", trajectory.id, judged_by, website)
    if success and ctx.online_induction in ("rule", "llm"):
        from memory.workflows.online import induce_from_memory

        model = ctx.chat("reflector") if ctx.online_induction == "llm" else None
        # no model spec: the web agent's induction answers through the bounded JSON schema
        # whatever its model, as the AWM experiments' arms were run
        induce_from_memory(
            memory, website_stem(website), mode=ctx.online_induction, model=model, spec=None
        )
    return trajectory.id
