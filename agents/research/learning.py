"""Online workflow induction from the agent's own runs (Agent Workflow Memory): judged
attempts and judged runs leave their trajectories in the store, and judged successes become
workflows that later prompts retrieve. Unjudged ones are kept as such and never taught from.

Two trajectories, as AWM's episodes are one task's actions: a task's attempt (its tool
steps: a workflow for the executor when it acts more than once) and the whole run (every
task's final steps in plan order, under the request: a plan-level workflow, how a question
like it was researched, for the planner). A run is judged by check_answer: its research and
one direct reading of the evidence agreed (success) or not (failure).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from core.context import Context
from core.run_budget import CapReached
from memory.agent_memory import AgentMemory
from memory.workflows.forms import question_form

log = logging.getLogger(__name__)
WEBSITE = "research"  # tool-level workflows of the research agent share one website


def record_attempt(
    memory: AgentMemory,
    ctx: Context,
    *,
    task: str,
    steps: list[dict[str, Any]],
    verdict: str,
    trajectory_id: str,
) -> None:
    """Store the attempt's trajectory under `trajectory_id` (a replay replaces it); after every
    `induction_every` judged successes, update the workflows from all successes so far."""
    judged_by = "reflection" if verdict in ("pass", "retry") else "unjudged"
    _record(memory, ctx, task, steps, verdict == "pass", judged_by, trajectory_id, "task")


def record_run(
    memory: AgentMemory,
    ctx: Context,
    *,
    request: str,
    task_steps: list[list[dict[str, Any]] | None],
    agreed: bool | None,
    trajectory_id: str,
) -> None:
    """Store the run's trajectory (each task's final steps, in plan order) under
    `trajectory_id`; `agreed` is check_answer's outcome (None: nothing was compared, the run
    is unjudged). Successes update the workflows as an attempt's do. A run of one task is
    that task's attempt, recorded already."""
    if sum(bool(steps) for steps in task_steps) < 2:
        return
    steps = [step for steps in task_steps for step in steps or []]
    judged_by = "unjudged" if agreed is None else "answer-check"
    _record(memory, ctx, request, steps, bool(agreed), judged_by, trajectory_id, "plan")


def _record(
    memory: AgentMemory,
    ctx: Context,
    task: str,
    steps: list[dict[str, Any]],
    success: bool,
    judged_by: str,
    trajectory_id: str,
    kind: str,
) -> None:
    if ctx.induction == "off" or not steps or not memory.enabled:
        return
    from memory.trajectories import trajectory_from_tool_steps

    trajectory = trajectory_from_tool_steps(
        task, steps, website=WEBSITE, success=success, judged_by=judged_by
    )
    trajectory.id = trajectory_id
    # A research run's searches are free text, so every run of n searches shares one abstract
    # trajectory; its template is the question's form (AWM de-duplicates by template first),
    # of a task's attempt or of a whole run's plan (the request is also the plan's last task,
    # and the template names the workflow: the two must not share a name).
    trajectory.template_id = template_of(kind, task)
    memory.record_trajectory(trajectory)
    if trajectory.success:
        _induce(memory, ctx, ctx.induction_every)


def template_of(kind: str, request: str) -> str:
    """The template of a research trajectory, "plan: <form>" or "task: <form>": its kind and
    its request's form (memory.workflows.forms), which its workflow's provenance keeps."""
    return f"{kind}: {question_form(request)}"


def _induce(memory: AgentMemory, ctx: Context, every: int) -> list[str]:
    """Update the research workflows from every success so far (at every `every`-th success);
    the names of the workflows added."""
    from memory.workflows.online import induce_from_memory

    model = ctx.chat("reflector") if ctx.induction == "llm" else None
    try:
        result = induce_from_memory(
            memory,
            WEBSITE,
            mode=ctx.induction,
            model=model,
            spec=ctx.spec("reflector"),
            every=every,
            forms=True,
        )
    except (OSError, ValueError, CapReached) as exc:  # learning never fails the task itself
        log.warning("workflow induction failed; the trajectories are kept for later: %s", exc)
        return []
    if result is None or not result.kept:
        return []
    log.info("workflow memory updated: %s", [w.name for w in result.kept])
    return [w.name for w in result.kept]


@dataclass
class Verdict:
    """What a judgment of a finished run changed: the workflows it took back (taught by a run
    now judged wrong) and those it added (from a run now judged right, or the next run of a
    form whose workflow was taken back)."""

    forgotten: list[str] = field(default_factory=list)
    learned: list[str] = field(default_factory=list)


def judge_run(
    memory: AgentMemory, ctx: Context, trajectory_id: str, *, right: bool, judged_by: str
) -> Verdict:
    """Relabel a recorded run with a verdict from outside the run (a person's, or a
    benchmark's true answer), as ExpeL's training phase learns from its environment's reward:
    check_answer's agreement is no proof (two readings can agree on a wrong answer), and a run
    it judged a success taught workflows. A run judged wrong takes back what it taught; then
    workflows are induced again from every success, so another run of that form, or this one
    judged right, teaches. LookupError when no run of that id is recorded."""
    run = memory.trajectory(WEBSITE, trajectory_id)
    if run is None:
        raise LookupError(f"no recorded run {trajectory_id!r} in this memory")
    run.success, run.judged_by = right, judged_by
    memory.record_trajectory(run)
    forgotten = [] if right else memory.forget_workflows_from(WEBSITE, trajectory_id)
    learned = _induce(memory, ctx, every=1) if ctx.induction != "off" else []
    return Verdict(forgotten, learned)
