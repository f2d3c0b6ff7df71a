"""Macro actions: a fixed list of WebArena actions whose elements are named by role and name.

How a workflow call runs (agents.web.workflow_actions builds the steps). Before each element
step the target (`button 'Login'`) is looked up in the current observation and its id put into
the action; the first step whose target is missing, or that the environment rejects, ends the
macro and hands control back to step-by-step acting. Every step is recorded with the call that
issued it, so the trajectory shows both levels.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from browser.config import StepInfo
from browser.observation import Node, Observation

_FIRST_BRACKET = re.compile(r"^(\s*\w+\s*)\[[^\]]*\]")


@dataclass(frozen=True)
class Target:
    """The element a step acts on, as the tree shows it: role and accessible name."""

    role: str
    name: str

    def __str__(self) -> str:
        return f"{self.role} {self.name!r}"


@dataclass(frozen=True)
class MacroStep:
    """One action; for click/hover/type its element id is replaced by the target's id."""

    action: str
    target: Target | None = None


@dataclass(frozen=True)
class MacroResult:
    completed: bool  # every step ran and the environment accepted it
    executed: int  # steps carried out (the last may have been rejected)
    reason: str | None = None  # why control came back early (None when completed)


class MacroEnv(Protocol):
    """What a macro needs of the environment (BrowserEnv has it)."""

    @property
    def done(self) -> bool: ...

    @property
    def last_observation(self) -> Observation | None: ...

    async def observe(self) -> Observation: ...

    async def step(
        self, action_text: str, *, call: str | None = None
    ) -> tuple[Observation, StepInfo, bool]: ...

    def reject(self, raw: str, reason: str, *, call: str | None = None) -> StepInfo: ...


def _same_name(a: str, b: str) -> bool:
    a, b = " ".join(a.split()), " ".join(b.split())
    return a == b or a.casefold() == b.casefold()


def find_target(nodes: Mapping[str, Node], target: Target, ordinal: int = 0) -> str | None:
    """The id of the `ordinal`-th element (page order) with the target's role and name."""
    found = [
        node_id
        for node_id, node in nodes.items()
        if node.role == target.role and _same_name(node.name, target.name)
    ]
    return found[ordinal] if ordinal < len(found) else None


def with_element(action: str, element_id: str) -> str:
    """`type [3] [x]` with element 41 -> `type [41] [x]`."""
    return _FIRST_BRACKET.sub(lambda m: f"{m.group(1)}[{element_id}]", action, count=1)


async def run_macro(
    env: MacroEnv,
    call: str,
    steps: list[MacroStep],
    *,
    should_stop: Callable[[], Awaitable[bool]] | None = None,
) -> MacroResult:
    """Carry out `steps` as the workflow call `call` until done, a mismatch or a rejection.

    A repeated target (two `textbox ''` steps) means the next such element in page order, so a
    form's unnamed fields are filled in order. `should_stop` (e.g. the task's own end) is asked
    after each step.
    """
    used: Counter[Target] = Counter()
    for number, step in enumerate(steps, 1):
        if env.done:
            return MacroResult(False, number - 1, f"the episode ended before step {number}")
        action = step.action
        if step.target is not None:
            seen = env.last_observation or await env.observe()
            element = find_target(seen.nodes, step.target, used[step.target])
            if element is None:
                reason = (
                    f"workflow {call} stopped before step {number}/{len(steps)}: no "
                    f"{step.target} on the page; continue step by step"
                )
                env.reject(call, reason, call=call)
                return MacroResult(False, number - 1, reason)
            used[step.target] += 1
            action = with_element(action, element)
        _, info, done = await env.step(action, call=call)
        if not info.valid:
            return MacroResult(False, number, f"workflow {call}, step {number}: {info.reason}")
        ended = done or (should_stop is not None and await should_stop())
        if ended:
            finished = number == len(steps)
            why = None if finished else f"the episode ended after step {number}/{len(steps)}"
            return MacroResult(finished, number, why)
    return MacroResult(True, len(steps))
