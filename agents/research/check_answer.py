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

from agents.research.prompting import system_message
from agents.research.readings import agreed, checked_evidence, choose, direct_reading
from agents.research.reply import replied
from core.context import Context
from core.state import AnswerCheck, CheckHow, ReflectiveAgentState
from prompts.research import SHORT_FORM
from prompts.untrusted import data


def check_answer(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    """Keep, shorten or replace a short answer the research wrote after one direct reading of
    the evidence the run read."""
    ctx = runtime.context
    research = state.get("answer", "")
    form = state.get("answer_form", "")
    if form != SHORT_FORM or not research or state.get("stopped"):
        return {}
    model = ctx.chat("aggregator")
    start, query = checked_evidence(state), data(state["query"])
    system = system_message(ctx)
    direct = direct_reading(model, system, start, form, query)
    how: CheckHow = "agreed" if direct else "no direct answer"
    chosen = agreed(research, direct)
    if chosen is None:
        chosen, how = choose(model, system, start, query, direct, research)
    check: AnswerCheck = {"research": research, "direct": direct, "chosen": chosen, "how": how}
    if chosen == research:
        return {"answer_check": check}
    final = _replaced(state.get("final_output", ""), research, chosen)
    return replied(state, final, answer=chosen, answer_check=check)


def _replaced(final_output: str, research: str, chosen: str) -> str:
    """The final text with `chosen` first; the research's explanation (written for the other
    answer) gives way to a line saying what was checked; its sources stay."""
    sources = [p for p in final_output.split("\n\n") if p.startswith("Sources: ")]
    note = (
        f"The research answered {research!r}; a direct reading of the evidence answered "
        f"{chosen!r}, and the check kept it."
    )
    return "\n\n".join([chosen, note, *sources])
