"""Online workflow induction from the agent's own runs: a judged attempt leaves a trajectory,
and successful ones become workflows (Agent Workflow Memory) that later prompts retrieve."""

from __future__ import annotations

import logging
from typing import Any

from agents import resources
from core.context import Context

log = logging.getLogger(__name__)
WEBSITE = "research"  # tool-level workflows of the research agent share one file


def record_attempt(ctx: Context, task: str, steps: list[dict[str, Any]], success: bool) -> None:
    """Log the attempt's trajectory; after every `induction_every` successes, update workflows."""
    if ctx.induction == "off" or not steps:
        return
    from memory.trajectories import trajectory_from_tool_steps
    from memory.workflow_online import OnlineInduction

    trajectory = trajectory_from_tool_steps(
        task, steps, website=WEBSITE, success=success, judged_by="reflection"
    )
    model = resources.chat_model(ctx.reflector_model) if ctx.induction == "llm" else None
    induction = OnlineInduction(
        ctx.home, mode=ctx.induction, every=ctx.induction_every, model=model
    )
    try:
        results = induction.after_run(trajectory)
    except (OSError, ValueError) as exc:  # learning must never fail the task itself
        log.warning("workflow induction failed, trajectory kept for later: %s", exc)
        return
    if results:
        log.info("workflow memory updated: %s", {k: str(v) for k, v in results.items()})
