"""The research graphs as chat: the request may come as the last person's message, and the
answer goes back as one AI message, so the graphs drop into a `MessagesState` app, a supervisor
or a chat UI as they are.

The answer's message has an id derived from the run (`answer-RUN_ID`): a node that settles the
answer writes it, and a later node that replaces the answer (the check after research) writes the
same id, which `add_messages` replaces rather than appends. A run ends with one AI message, and
none when it was cancelled at plan approval.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from agents.research.citations import cite, passages_read
from core.served_errors import CallerFacing
from core.state import ReflectiveAgentState


class NoRequest(CallerFacing, ValueError):
    """A run was started with neither a `query` nor a person's message as its last."""


def request_of(state: ReflectiveAgentState) -> str:
    """The run's request: the last message when a person wrote it (a new turn of a chat),
    else `query`."""
    messages = state.get("messages") or []
    if messages and isinstance(messages[-1], HumanMessage) and messages[-1].text.strip():
        return messages[-1].text.strip()
    query = (state.get("query") or "").strip()
    if not query:
        raise NoRequest(
            "no request: pass `query` (a string) or `messages` ending with a person's message"
        )
    return query


def replied(state: ReflectiveAgentState, final_output: str, **update: Any) -> dict[str, Any]:
    """`update` with the answer's text as `final_output`, as the run's AI message, and its
    checked citations (of the passages read so far, this update's included)."""
    message = said(state, final_output)
    read = {**state, "read": [*(state.get("read") or []), *(update.get("read") or [])]}
    _, citations = cite(final_output, passages_read(read))
    return {**update, "final_output": final_output, "messages": [message], "citations": citations}


def said(state: Mapping[str, Any], text: str) -> AIMessage:
    """`text` as the run's AI message in the chat (one per run: a later one replaces it)."""
    return AIMessage(text, id=f"answer-{state.get('run_id', '')}", name="research")


def no_answer(state: Mapping[str, Any], cap: str) -> AIMessage:
    """The chat's reply when the run stopped at `cap` ("max_calls", ...) before any answer."""
    return said(state, f"No answer: this run reached its {cap} cap before it found one.")


def standing(state: ReflectiveAgentState) -> dict[str, Any]:
    """The answer the run has written so far, as its reply (a run stopped before its check
    ends with it); nothing when it has none."""
    final = state.get("final_output") or ""
    return replied(state, final) if final else {}
