"""How every research prompt is put together: the preamble as the system message, then the
run's opening (the request and its evidence), so a run's calls share their first tokens and a
local model, which keeps its last call's tokens, reads that opening once per run."""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage

from core.context import Context
from prompts.research import NO_EVIDENCE, RUN_OPENING, preamble
from prompts.untrusted import data


def system_message(ctx: Context) -> SystemMessage:
    """The run's system message: the user's `system_prompt`, then the data rule."""
    return SystemMessage(preamble(ctx.system_prompt))


def human(prompt: str) -> HumanMessage:
    return HumanMessage(prompt)


def opening(query: str, evidence: str) -> str:
    """The request and what the first search for it found (search sections, already data)."""
    return RUN_OPENING.format(query=data(query), evidence=evidence.strip() or NO_EVIDENCE)
