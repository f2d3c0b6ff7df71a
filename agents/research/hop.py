"""hop: one cheap hop after two readings of the first evidence disagreed on a short answer.

Readings that disagree mostly mean the evidence lacks something (on pooled HotpotQA the two
readings of the question's top passages differed where its second paragraph was missing),
and sometimes that one reading misread it (the README question: goal setting named the
creator, the direct reading his film). So the request is searched again with both answers in
the query (IRCoT's retrieval with what the run knows), and:
- passages the run has not read come back: one more direct reading over the opening and them
  (the few passages this step needs); its answer stands when it gives one of the two readings'
  answers (two readings of different evidence agree), else the run researches the request;
- nothing new comes back: the evidence is all there is, and a choice between the two answers,
  asked in both orders, keeps the one it picks both times; a choice that flips with the order
  leaves the run to research.
Either way what the hop found is in `read`, so the plan and the final check see it.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from agents import resources
from agents.research.check_answer import (
    agreed,
    choose,
    direct_reading,
    more_evidence,
)
from agents.research.evidence import ground
from agents.research.goal import EVIDENCE_CHARS, EVIDENCE_HITS
from agents.research.prompting import opening
from agents.research.sources import beyond, cited, hits
from core.context import Context
from core.state import ReflectiveAgentState
from prompts.untrusted import data

OPEN = "open"  # the `how` of a hop that settled nothing: the run researches


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
    new = hits(beyond(found, evidence))
    model = ctx.chat("aggregator")
    start, request = opening(query, evidence), data(query)
    if new:
        form = state.get("optimized_response", "")
        again = direct_reading(model, start + more_evidence(new, evidence), form, request)
        chosen = next((kept for a in answers if again and (kept := agreed(a, again))), None)
        how, first["hop"] = "hop reading", again
    elif len(answers) == 2:
        picked, how = choose(model, start, request, *answers)
        chosen = picked if how == "chosen" else None
    else:
        chosen, how = None, OPEN
    if not chosen:
        return {"first_check": {**first, "how": OPEN}, "read": new}
    check = {**first, "chosen": chosen, "how": how}
    return {
        "answer": chosen,
        "final_output": cited(chosen, f"{evidence}\n{found}"),
        "first_check": check,
        "answer_check": check,
        "read": new,
    }
