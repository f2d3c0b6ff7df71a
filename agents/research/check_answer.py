"""check_answer: a short final answer is checked against one direct reading of the evidence,
so a run does not end below what one call over the same evidence would say.

The research's short answers lose most where one call has them right (docs/evaluations.md): the
aggregator names a step's bridge entity (the actress, not the series she voiced), or the answer
runs longer than its form ("Hawaii County, Hawaii"). The check reads what the run read (its
opening, a cached prefix on a local model, then the hits its tasks found beyond it) and answers
the request at once, as one call over the same evidence would. The two answers agree when one's
words hold the other's: the fewer words stand, the short form's answer. When they differ, a
choice under a grammar picks the one that gives what the request asks for, from the evidence,
asked in both orders (a small model tends to pick whichever comes first); a choice that flips
with the order leaves the direct reading. Other answer forms (a list, a paragraph, a report) are
left as written: one call cannot write them better.
"""

from __future__ import annotations

import re
from typing import Any

from langgraph.runtime import Runtime

from agents.research.answer_text import clean_short_answer
from agents.research.goal import EVIDENCE_CHARS, PENDING, SHORT_FORM
from agents.research.prompting import human, opening, system
from agents.research.reply import replied
from agents.research.sources import cited, headers
from core.context import Context
from core.output_budget import ROLE_BUDGETS, with_max_tokens
from core.state import ReflectiveAgentState
from core.structured import ask_structured, choice_schema, choice_text
from prompts.check_answer import CHOOSE_ANSWER, EVIDENCE_ANSWER, MORE_EVIDENCE
from prompts.untrusted import data

_ARTICLES = {"a", "an", "the"}
AGREED = "agreed"  # the `how` of a check whose two readings gave the same answer
DISAGREED = ("chosen", "order-bound")  # the `how` of a check whose two readings differed


def check_answer(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    """Keep, shorten or replace a short answer after one direct reading of the evidence; a
    first answer (read by goal setting, nothing researched yet) that the reading does not
    confirm is dropped, and the run researches the request."""
    ctx = runtime.context
    research = state.get("answer", "")
    form = state.get("optimized_response", "")
    first = answered_first(state)
    if form != SHORT_FORM or not (research or first) or state.get("stopped"):
        return {}
    model = ctx.chat("aggregator")
    start, request = checked_evidence(state), data(state["query"])
    direct = direct_reading(model, start, form, request)
    if first:
        return _first_checked(state, research, direct)
    chosen, how = agreed(research, direct), AGREED if direct else "no direct answer"
    if chosen is None:
        chosen, how = choose(model, start, request, direct, research)
    check = {"research": research, "direct": direct, "chosen": chosen, "how": how}
    if chosen == research:
        return {"answer_check": check}
    final = _replaced(state.get("final_output", ""), research, chosen)
    return replied(state, final, answer=chosen, answer_check=check)


def answered_first(state: ReflectiveAgentState) -> bool:
    """Is this the first stage (goal setting read the evidence, no plan made yet)?"""
    return (state.get("first_check") or {}).get("how") == PENDING and not state.get("tasks")


def direct_reading(model: Any, start: str, form: str, request: str) -> str:
    """One call's short answer to `request` over `start` (an opening and any more evidence)."""
    prompt = EVIDENCE_ANSWER.format(opening=start, answer_form=form, request=request)
    reply = with_max_tokens(model, ROLE_BUDGETS["short_answer"]).invoke([system(), human(prompt)])
    return _unless_echoed(clean_short_answer(reply.text), form)


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


def choose(model: Any, start: str, request: str, direct: str, research: str) -> tuple[str, str]:
    """The answer a choice under a grammar keeps, asked in both orders: a small model tends to
    pick whichever comes first, so only a choice that holds both ways counts; otherwise the
    direct reading stands (the research's answer lost to one call more often than it won)."""
    # as a choice grammar can hold them (core.structured.choice_text), each mapped back
    shown = {choice_text(direct): direct, choice_text(research): research}
    if len(shown) < 2:  # the same line: nothing to choose between
        return direct, AGREED
    picks = []
    for options in (list(shown), list(shown)[::-1]):
        prompt = CHOOSE_ANSWER.format(
            opening=start, answers=answers_block(options), request=request
        )
        schema, budget = choice_schema(options), ROLE_BUDGETS["short_answer"]
        out = ask_structured(model, schema, [system(), human(prompt)], max_tokens=budget)
        picks.append(str(getattr(out, "answer", "")))
    if picks[0] in shown and picks[0] == picks[1]:
        return shown[picks[0]], "chosen"
    return direct, "order-bound"


def agreed(research: str, direct: str) -> str | None:
    """The answer both readings give (the one with fewer words when one's words hold the
    other's), the research's when the direct reading said nothing, None when they differ."""
    ours, theirs = _words(research), _words(direct)
    if not theirs or ours == theirs:
        return research
    if _holds(ours, theirs):
        return direct
    if _holds(theirs, ours):
        return research
    return None


def _unless_echoed(direct: str, form: str) -> str:
    """The direct reading, or "" when it only repeats words of the answer form it was asked
    for ("a name", "a short phrase"); a bare yes or no is an answer."""
    words = _words(direct)
    if words in (["yes"], ["no"]) or not set(words) <= set(_words(form)):
        return direct
    return ""


def checked_evidence(state: ReflectiveAgentState) -> str:
    """What the check reads: the run's opening, then the hits its tasks found beyond it."""
    evidence = state.get("evidence", "")
    return opening(state["query"], evidence) + more_evidence(state.get("read") or [], evidence)


def answers_block(options: list[str]) -> str:
    """The answers as a prompt shows them, one `<answer>` each, in the order given."""
    return "\n".join(f"<answer>{data(o)}</answer>" for o in options)


def more_evidence(read: list[str], evidence: str) -> str:
    """The hits the tasks found beyond the opening evidence, numbered, within EVIDENCE_CHARS
    (a section of the prompt; "" when there are none): the direct reading reads what the run
    read, as one call over the same evidence would."""
    shown, out, size = set(headers(evidence)), list[str](), 0
    for hit in read:
        if hit.split("\n", 1)[0] in shown:
            continue
        size += len(hit)
        if size > EVIDENCE_CHARS:
            break
        out.append(f"[{len(out) + 1}] {hit}")
    return MORE_EVIDENCE.format(hits="\n\n".join(out)) if out else ""


def _words(text: str) -> list[str]:
    return [w for w in re.findall(r"\w+", text.lower()) if w not in _ARTICLES]


def _holds(longer: list[str], shorter: list[str]) -> bool:
    """`shorter`'s words appear in `longer`, in a row (and `longer` has more)."""
    n = len(shorter)
    return 0 < n < len(longer) and any(
        longer[i : i + n] == shorter for i in range(len(longer) - n + 1)
    )


def _replaced(final_output: str, research: str, chosen: str) -> str:
    """The final text with `chosen` first; the research's explanation (written for the other
    answer) gives way to a line saying what was checked; its sources stay."""
    sources = [p for p in final_output.split("\n\n") if p.startswith("Sources: ")]
    note = (
        f"The research answered {research!r}; a direct reading of the evidence answered "
        f"{chosen!r}, and the check kept it."
    )
    return "\n\n".join([chosen, note, *sources])
