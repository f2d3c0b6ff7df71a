"""Online workflow induction from the agent's own runs (Agent Workflow Memory): every judged
attempt leaves its trajectory in the store, and judged successes become workflows that later
prompts retrieve. Unjudged attempts are kept as such and never taught from."""

from __future__ import annotations

import logging
from typing import Any

from core.context import Context
from memory.agent_memory import AgentMemory

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
    if ctx.induction == "off" or not steps or not memory.enabled:
        return
    from memory.trajectories import trajectory_from_tool_steps
    from memory.workflows.online import induce_from_memory

    trajectory = trajectory_from_tool_steps(
        task,
        steps,
        website=WEBSITE,
        success=verdict == "pass",
        judged_by="reflection" if verdict in ("pass", "retry") else "unjudged",
    )
    trajectory.id = trajectory_id
    memory.record_trajectory(trajectory)
    if not trajectory.success:
        return
    model = ctx.models.chat(ctx.reflector_model) if ctx.induction == "llm" else None
    try:
        result = induce_from_memory(
            memory,
            WEBSITE,
            mode=ctx.induction,
            model=model,
            spec=ctx.reflector_model,
            every=ctx.induction_every,
        )
    except (OSError, ValueError) as exc:  # learning must never fail the task itself
        log.warning("workflow induction failed; the trajectories are kept for later: %s", exc)
        return
    if result is not None and result.kept:
        log.info("workflow memory updated: %s", [w.name for w in result.kept])
