"""The readings every answer check shares: one direct reading of the evidence, the answer two
readings agree on, and a choice between two that differ asked in both orders (check_answer,
hop and reflect_on_answer each compare readings; the prompts are in prompts/research.py)."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import SystemMessage

from agents.research.answer_text import clean_short_answer
from agents.research.evidence import EVIDENCE_CHARS
from agents.research.prompting import human, opening
from agents.research.sources import headers
from core.output_limits import OUTPUT_LIMITS, with_max_tokens
from core.state import CheckHow, ReflectiveAgentState
from core.structured import ask_structured, choice_schema, choice_text
from prompts.research import (
    ANSWER_CHOICE,
    ANSWER_OPTION,
    CHOOSE_ANSWER,
    EVIDENCE_ANSWER,
    MORE_EVIDENCE,
)
from prompts.untrusted import data

_ARTICLES = {"a", "an", "the"}


def direct_reading(model: Any, system: SystemMessage, start: str, form: str, query: str) -> str:
    """One call's short answer to `query` over `start` (an opening and any more evidence)."""
    prompt = EVIDENCE_ANSWER.format(opening=start, answer_form=form, query=query)
    reply = with_max_tokens(model, OUTPUT_LIMITS["short_answer"]).invoke([system, human(prompt)])
    return unless_echoed(clean_short_answer(reply.text), form)


def choose(
    model: Any, system: SystemMessage, start: str, query: str, direct: str, research: str
) -> tuple[str, CheckHow]:
    """The answer a choice under a grammar keeps, asked in both orders: a small model tends to
    pick whichever comes first, so only a choice that holds both ways counts; otherwise the
    direct reading stands (the research's answer lost to one call more often than it won)."""
    # as a choice grammar can hold them (core.structured.choice_text), each mapped back
    shown = {choice_text(direct): direct, choice_text(research): research}
    if len(shown) < 2:  # the same line: nothing to choose between
        return direct, "agreed"
    picks = []
    for options in (list(shown), list(shown)[::-1]):
        prompt = CHOOSE_ANSWER.format(opening=start, answers=answers_block(options), query=query)
        schema, budget = choice_schema(options, ANSWER_CHOICE), OUTPUT_LIMITS["short_answer"]
        out = ask_structured(model, schema, [system, human(prompt)], max_tokens=budget)
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


def unless_echoed(direct: str, form: str) -> str:
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
    return "\n".join(ANSWER_OPTION.format(answer=data(o)) for o in options)


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
