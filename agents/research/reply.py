"""reply: the research graphs as chat, and the answer as a report with checked citations.

The request may come as the last person's message, and the answer goes back as one AI message,
so the graphs drop into a `MessagesState` app, a supervisor or a chat UI as they are. The
answer's message has an id derived from the run (`answer-RUN_ID`): a node that settles the
answer writes it, and a later node that replaces the answer (the check after research) writes
the same id, which `add_messages` replaces rather than appends. A run ends with one AI message,
and none when it was cancelled at plan approval.

Each sentence of the answer is cited with the first passage the run read (its opening evidence,
then the hits its tasks found) that holds every name and number the sentence states
(`support.unsupported`): `[n]` after the sentence, `n` a passage in the report's source list. A
sentence that names nothing, or names what no passage read holds, gets no citation: a citation
is never taken from the model's word (the "Sources:" line it wrote is dropped), so a source the
model names but the run never read, or one that does not hold the fact, cannot appear. Nor can
a passage that holds the words but says otherwise (`_contradicts`): one denying the sentence
("It is false that X opened in 1931") or giving the same thing another number ("X opened in
1934") is no citation for "X opened in 1931".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from langchain_core.messages import AIMessage, HumanMessage

from agents.research.sources import hits, title_and_source
from agents.research.support import normal, unsupported
from agents.tools.bm25 import STOPWORDS
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


# -- the report: each sentence cited with a passage the run read that holds it ------------
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
# how a sentence says that what it states is not so
_DENIAL = re.compile(
    r"\b(?:not|never|false|untrue|incorrect|wrong|myth|mistaken(?:ly)?|denie[sd]|"
    r"\w+n't)\b"
)
_NUMBER = re.compile(r"\d+")
_CONTENT = re.compile(r"[a-z]{4,}")
_SOURCE_LINE = "Sources: "


class Passage(NamedTuple):
    title: str
    source: str
    text: str


def passages_read(state: Mapping[str, Any]) -> list[Passage]:
    """Every passage the run read, once each: the opening evidence's hits, then the tasks'."""
    out: list[Passage] = []
    for hit in [*hits(state.get("evidence") or ""), *(state.get("read") or [])]:
        passage = Passage(*title_and_source(hit), hit.partition("\n")[2].strip())
        if passage not in out:
            out.append(passage)
    return out


def cite(text: str, passages: list[Passage]) -> tuple[str, list[dict[str, Any]]]:
    """`text` (an answer; its "Sources:" paragraphs dropped) with `[n]` after each sentence a
    passage holds, and the citations: `{"n", "title", "source", "sentences"}` in order."""
    cited: dict[Passage, dict[str, Any]] = {}
    paragraphs = []
    for paragraph in text.split("\n\n"):
        if not paragraph.strip() or paragraph.startswith(_SOURCE_LINE):
            continue
        sentences = []
        for sentence in _SENTENCE_END.split(paragraph.strip()):
            passage = _holder(sentence, passages)
            if passage is not None:
                entry = cited.setdefault(passage, _entry(len(cited) + 1, passage))
                entry["sentences"].append(sentence)
                sentence = _marked(sentence, entry["n"])
            sentences.append(sentence)
        paragraphs.append(" ".join(sentences))
    return "\n\n".join(paragraphs), list(cited.values())


def report(request: str, state: Mapping[str, Any]) -> tuple[str, list[dict[str, Any]]]:
    """The run's answer as Markdown (the request, the cited answer, its numbered sources) and
    its citations."""
    body, citations = cite(state.get("final_output") or "", passages_read(state))
    lines = [f"# {request}", "", body or "(no answer)"]
    if citations:
        lines += ["", "## Sources", ""]
        lines += [f"{c['n']}. {c['title']} ({c['source'] or 'no source'})" for c in citations]
    return "\n".join(lines) + "\n", citations


def _holder(sentence: str, passages: list[Passage]) -> Passage | None:
    """The first passage holding every name and number `sentence` states (None when it
    states none, or no passage holds them all)."""
    if not unsupported(sentence, ""):  # it names nothing: nothing to check it against
        return None
    for passage in passages:
        text = f"{passage.title}\n{passage.text}"
        if not unsupported(sentence, text) and not _contradicts(sentence, text):
            return passage
    return None


def _contradicts(claim: str, text: str) -> bool:
    """Does a sentence of `text` say otherwise than `claim`: hold all it names with a denial
    the claim lacks (or lack one it has), or hold its names and its other words with another
    number of as many digits in place of its own?"""
    named = unsupported(claim, "")
    numbers = {w for w in named if w.isdigit()}
    names = " ".join(w for w in named if w not in numbers)
    words = set(_CONTENT.findall(normal(claim))) - STOPWORDS - {normal(w) for w in named}
    denied = bool(_DENIAL.search(normal(claim)))
    for part in _SENTENCE_END.split(text.replace("\n", " ")):
        seen = normal(part)
        if not unsupported(claim, part):
            if bool(_DENIAL.search(seen)) != denied:
                return True
        elif numbers and not unsupported(names, part) and words <= set(_CONTENT.findall(seen)):
            others = set(_NUMBER.findall(seen)) - numbers
            if any(len(o) == len(n) for o in others for n in numbers):
                return True
    return False


def _marked(sentence: str, n: int) -> str:
    """`sentence` with ` [n]` before its closing punctuation."""
    body = sentence.rstrip()
    end = body[-1] if body and body[-1] in ".!?" else ""
    return f"{body[: len(body) - len(end)]} [{n}]{end}"


def _entry(n: int, passage: Passage) -> dict[str, Any]:
    return {"n": n, "title": passage.title, "source": passage.source, "sentences": []}
