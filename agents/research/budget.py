"""Where the research graphs check the run's budget (`max_calls`, `max_tokens`, `max_seconds`):
no task is scheduled, no retry granted and no executor tool step taken once a cap is reached.

A cap stops new work, not a call in flight: the attempts already running finish (each answers
from what it found), and the answer is written from every finished task's result, so a run
may spend a few calls past its cap. The counts are `ctx.budget`'s (core.run_budget).
"""

from __future__ import annotations

import logging

from core.context import Context

log = logging.getLogger(__name__)


def budget_stop(ctx: Context) -> str | None:
    """The cap the run has reached ("max_calls", "max_tokens", "max_seconds"), else None."""
    budget = ctx.budget
    counted_caps = ctx.max_calls is not None or ctx.max_tokens is not None
    if counted_caps and not budget.counted and not budget.warned:
        budget.warned = True
        log.warning(
            "max_calls / max_tokens are not counted for this run: its callbacks lack "
            "ctx.budget.callback() (the CLI adds it; only max_seconds applies without it)"
        )
    return budget.over(
        max_calls=ctx.max_calls, max_tokens=ctx.max_tokens, max_seconds=ctx.max_seconds
    )
