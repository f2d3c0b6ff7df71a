"""Where the research graphs spend the run's budget (`max_calls`, `max_tokens`, `max_seconds`).

Two checks. Before new work (a plan, a task, a retry, an executor tool step) `budget_stop` asks
whether the run has room for it and still one call for its answer; none starts otherwise. And
every model call is checked as it starts (core.run_budget: `ctx.chat(role)` hands out models
that refuse a call at a cap). A node that calls a model is `capped`: when one of its calls is
refused, it ends with `stopped` naming the cap instead of its work, and the run drains to its
end through nodes that start nothing more (the answer, if none was written yet, put together
without a model: aggregate_results). Either way the run makes no more calls than `max_calls`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import wraps
from typing import Any, Protocol, TypeVar, cast

from langgraph.runtime import Runtime

from agents.research.reply import no_answer
from core.context import Context
from core.run_budget import CapReached

S = TypeVar("S", contravariant=True)  # a node's state


class Node(Protocol[S]):
    """A research node that calls a model."""

    def __call__(self, state: S, runtime: Runtime[Context]) -> dict: ...


def budget_stop(ctx: Context) -> str | None:
    """The cap that leaves no room for new work ("max_calls" when only the answer's call is
    left, "max_tokens", "max_seconds"), else None."""
    caps = ctx.caps
    if caps.max_calls is not None:  # the answer's call kept
        caps = replace(caps, max_calls=caps.max_calls - 1)
    return ctx.budget.over(caps)


def capped(
    node: Node[S],
    instead: Callable[[S], dict] | None = None,
    room: Callable[[Context], str | None] | None = None,
) -> Node[S]:
    """`node` (one that calls a model) within the run's caps: when one of its calls is refused,
    or `room` (checked first, when given) finds no room for its work, its update is `stopped`
    and `instead(state)` (what the node can give without a model; nothing by default); a node
    that would have written the answer and has none says so in the chat. A node that makes no
    call (a check with nothing to check) never stops the run."""

    @wraps(node)
    def run(state: S, runtime: Runtime[Context]) -> dict:
        cap = room(runtime.context) if room else None
        if cap is None:
            try:
                return node(state, runtime)
            except CapReached as refused:
                cap = refused.cap
        update = {**(instead(state) if instead else {}), "stopped": cap}
        if instead and not update.get("final_output"):  # an answer's node: the chat hears why
            update["messages"] = [no_answer(cast(Mapping[str, Any], state), cap)]
        return update

    return run


def side_job(job: Callable[[], object]) -> None:
    """Run `job` (memory consolidation, a lesson): at a cap it is skipped, and the work it
    would have followed up stands (a run's answer, a task's judged attempt)."""
    try:
        job()
    except CapReached:
        return
