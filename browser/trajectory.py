"""One recorded step of a browser episode, kept for online workflow induction and memory."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class TrajectoryStep:
    """What the agent saw, what it did and whether the environment accepted it.

    `action` is the canonical action text (None when the response did not parse), `raw` the
    text the policy returned, `target` the tree line of the element acted on, e.g.
    "button 'Submit'", so a workflow can say what was clicked without the page's ids.
    `call` is the workflow call that issued this step (e.g. "login(user='ada')"), None for a
    step the agent chose itself: a trajectory keeps both levels.
    """

    index: int
    observation: str
    url: str
    raw: str
    action: str | None
    valid: bool
    reason: str | None = None
    target: str | None = None
    seconds: float = 0.0
    call: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def format_trajectory(steps: list[TrajectoryStep], *, with_observations: bool = False) -> str:
    """A readable action list ("1. click [12] (button 'Submit')"), for prompts and memories."""
    lines = []
    for step in steps:
        action = step.action or f"unparsed {step.raw[:60]!r}"
        line = f"{step.index}. {action}"
        if step.target:
            line += f"  # {step.target}"
        if step.call:
            line += f"  (via {step.call})"
        if not step.valid:
            line += f"  [invalid: {step.reason}]"
        if with_observations:
            line = f"{step.observation}\n{line}"
        lines.append(line)
    return "\n".join(lines)


def same_page(before: str, after: str) -> bool:
    """`after` is exactly the page `before` recorded (a kept observation may be cut, ending
    in "\n…": then `after` only has to begin with what was kept)."""
    seen = before.removesuffix("\n…")
    return after.startswith(seen) if seen != before else after == seen
