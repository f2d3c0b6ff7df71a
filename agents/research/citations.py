"""A run's answer as a report with checked inline citations.

Each sentence of the answer is cited with the first passage the run read (its opening evidence,
then the hits its tasks found) that holds every name and number the sentence states
(`support.unsupported`): `[n]` after the sentence, `n` a passage in the report's source list. A
sentence that names nothing, or names what no passage read holds, gets no citation: a citation
is never taken from the model's word (the "Sources:" line it wrote is dropped), so a source the
model names but the run never read, or one that does not hold the fact, cannot appear.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from agents.research.sources import hits, title_and_source
from agents.research.support import unsupported

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")
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
        if not unsupported(sentence, f"{passage.title}\n{passage.text}"):
            return passage
    return None


def _marked(sentence: str, n: int) -> str:
    """`sentence` with ` [n]` before its closing punctuation."""
    body = sentence.rstrip()
    end = body[-1] if body and body[-1] in ".!?" else ""
    return f"{body[: len(body) - len(end)]} [{n}]{end}"


def _entry(n: int, passage: Passage) -> dict[str, Any]:
    return {"n": n, "title": passage.title, "source": passage.source, "sentences": []}
