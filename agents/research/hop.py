"""hop: one cheap hop after the first readings of the evidence left a short answer open (two
that disagreed, or a lone reading where goal setting wrote none).

Readings that differ may mean the evidence lacks something, or that one of them misread it
(the README question: goal setting named the creator, the direct reading his film). So the
request is searched again with the answers in the query (IRCoT's retrieval with what the run
knows), and:
- passages the run has not read come back: one more direct reading of them alone (the few
  passages this step needs; a reading that also saw the opening could repeat the opening's
  reading and confirm nothing); its answer stands when it gives one of the first readings'
  answers (readings of different evidence agree), else the run researches the request;
- nothing new comes back: the evidence is all there is; a lone reading stands (what one call
  over it says), and of two a choice asked in both orders keeps the one it picks both times
  (one that flips with the order leaves the run to research).
An answer naming what no passage holds never stands. What the hop found is in `read`: the
final check reads it, and a task whose search finds only it is not run.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from agents import resources
from agents.research.evidence import EVIDENCE_CHARS, EVIDENCE_HITS, ground
from agents.research.prompting import opening, system_message
from agents.research.readings import (
    agreed,
    choose,
    direct_reading,
)
from agents.research.reply import replied
from agents.research.sources import beyond, cited, hits
from agents.research.support import unsupported
from core.context import Context
from core.state import ReflectiveAgentState
from prompts.research import data

OPEN = "open"  # the `how` of a hop that settled nothing: the run researches
HOPPED = ("disagreed", "one reading")  # first stages a hop settles


def hop(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    """Search with both answers; confirm one of them by a reading of the new passages, or by
    a choice when nothing is new; else leave the request open for research."""
    ctx = runtime.context
    first = dict(state.get("first_check") or {})
    answers = [a for a in (first.get("direct"), first.get("research")) if a]
    evidence, query = state.get("evidence", ""), state["query"]
    with resources.open_tools(ctx) as tools:
        found = ground(
            " ".join([query, *answers]), tools, k=EVIDENCE_HITS, max_chars=EVIDENCE_CHARS
        )
    unread = beyond(found, evidence)
    new = hits(unread)
    model, system = ctx.chat("aggregator"), system_message(ctx)
    start, request = opening(query, evidence), data(query)
    if new:  # read on their own: a reading that repeats the opening's proves nothing
        form = state.get("answer_form", "")
        again = direct_reading(model, system, opening(query, unread), form, request)
        chosen = next((kept for a in answers if again and (kept := agreed(a, again))), None)
        how, first["hop"] = "hop reading", again
    elif len(answers) == 2:
        picked, how = choose(model, system, start, request, *answers)
        chosen = picked if how == "chosen" else None
    else:  # one reading, and nothing more to read: what one call over it says stands
        chosen, how = (answers[0], "one reading") if answers else (None, OPEN)
    if chosen and unsupported(chosen, f"{query}\n{evidence}\n{found}"):
        chosen = None  # it names what no passage holds: no reading of it stands
    if not chosen:
        return {"first_check": {**first, "how": OPEN}, "read": new}
    check = {**first, "chosen": chosen, "how": how}
    final = cited(chosen, f"{evidence}\n{found}")
    return replied(state, final, answer=chosen, first_check=check, answer_check=check, read=new)
