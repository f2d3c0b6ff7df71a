"""When an episode must stop: step budget, a repeated action, or a run of invalid actions."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from browser.trajectory import TrajectoryStep


@dataclass(frozen=True)
class Limits:
    """WebArena's defaults: 30 steps, 3 identical actions in a row, 3 invalid in a row."""

    max_steps: int = 30
    max_repeats: int = 3
    max_invalid: int = 3


def limit_reason(history: Sequence[TrajectoryStep], limits: Limits) -> str | None:
    """Why the episode must stop after the last step of `history`, or None to go on."""
    if not history:
        return None
    invalid_run = _trailing(history, lambda s: not s.valid)
    if invalid_run >= limits.max_invalid:
        return f"invalid_actions: {invalid_run} invalid actions in a row"
    last = history[-1].action
    if last is not None:
        # As in WebArena: a typing action counts over the whole episode (retyping the same
        # text anywhere is a loop), any other action only as an unbroken run.
        if last.startswith("type "):
            same = sum(1 for s in history if s.action == last)
        else:
            same = _trailing(history, lambda s: s.action == last)
        if same >= limits.max_repeats:
            return f"repeated_action: {last!r} {same} times"
    if len(history) >= limits.max_steps:
        return f"max_steps: reached {limits.max_steps} steps"
    return None


def _trailing(history: Sequence[TrajectoryStep], pred: Callable[[TrajectoryStep], bool]) -> int:
    count = 0
    for step in reversed(history):
        if not pred(step):
            break
        count += 1
    return count
