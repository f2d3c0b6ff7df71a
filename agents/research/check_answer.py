"""check_answer: a short final answer is checked against one direct reading of the evidence,
so a run does not end below what one call over the same evidence would say.

The research's short answers lose most where one call has them right (docs/evaluations/hotpotqa.md):
the aggregator names a step's bridge entity (the actress, not the series she voiced), or the answer
runs longer than its form ("Hawaii County, Hawaii"). The check reads what the run read (its opening,
a cached prefix on a local model, then the hits its tasks found beyond it) and answers the request
at once, as one call over the same evidence would. The two answers agree when one's words hold the
other's: the fewer words stand, the short form's answer. When they differ, a choice under a grammar
picks the one that gives what the request asks for, from the evidence, asked in both orders (a small
model tends to pick whichever comes first); a choice that flips with the order leaves the direct
reading. Other answer forms (a list, a paragraph, a report) are left as written: one call cannot
write them better.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from agents.research.answer_text import SHORT_FORM
from agents.research.prompting import system_message
from agents.research.readings import (
    AGREED,
    PENDING,
    agreed,
    checked_evidence,
    choose,
    direct_reading,
)
from agents.research.reply import replied
from agents.research.sources import cited
from core.context import Context
from core.state import ReflectiveAgentState
from prompts.research import data


def check_answer(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    """Keep, shorten or replace a short answer after one direct reading of the evidence; a
    first answer (read by goal setting, nothing researched yet) that the reading does not
    confirm is dropped, and the run researches the request."""
    ctx = runtime.context
    research = state.get("answer", "")
    form = state.get("answer_form", "")
    first = answered_first(state)
    if form != SHORT_FORM or not (research or first) or state.get("stopped"):
        return {}
    model = ctx.chat("aggregator")
    start, request = checked_evidence(state), data(state["query"])
    system = system_message(ctx)
    direct = direct_reading(model, system, start, form, request)
    if first:
        return _first_checked(state, research, direct)
    chosen, how = agreed(research, direct), AGREED if direct else "no direct answer"
    if chosen is None:
        chosen, how = choose(model, system, start, request, direct, research)
    check = {"research": research, "direct": direct, "chosen": chosen, "how": how}
    if chosen == research:
        return {"answer_check": check}
    final = _replaced(state.get("final_output", ""), research, chosen)
    return replied(state, final, answer=chosen, answer_check=check)


def answered_first(state: ReflectiveAgentState) -> bool:
    """Is this the first stage (goal setting read the evidence, no plan made yet)?"""
    return (state.get("first_check") or {}).get("how") == PENDING and not state.get("tasks")


def _first_checked(state: ReflectiveAgentState, first: str, direct: str) -> dict:
    """The first answer kept when the direct reading gives it too (the shorter wording
    stands), cited with the passages that hold it; readings that differ, or a lone reading,
    are left to a hop (agents/research/hop.py), which looks for more before anything is
    chosen."""
    chosen = agreed(first, direct) if first and direct else None
    check = {"research": first, "direct": direct, "chosen": chosen or "", "how": AGREED}
    if chosen is None:  # two readings that differ, or only one: a hop decides
        how = "disagreed" if first and direct else "one reading"
        return {"answer": "", "final_output": "", "first_check": {**check, "how": how}}
    final = cited(chosen, state.get("evidence", ""))
    return replied(state, final, answer=chosen, first_check=check, answer_check=check)


def _replaced(final_output: str, research: str, chosen: str) -> str:
    """The final text with `chosen` first; the research's explanation (written for the other
    answer) gives way to a line saying what was checked; its sources stay."""
    sources = [p for p in final_output.split("\n\n") if p.startswith("Sources: ")]
    note = (
        f"The research answered {research!r}; a direct reading of the evidence answered "
        f"{chosen!r}, and the check kept it."
    )
    return "\n\n".join([chosen, note, *sources])
