"""Candidate answers for HotpotQA's `direct` answerer: the spans of the paragraphs an answer can
be (names, titles, dates, years, yes/no), ranked by how much their sentence and paragraph share
with the question. The embedded model then chooses one by grammar (an enum) rather than writing
free text, which it cuts off or fills with prose ("The answer is", "```").

That bounds what the direct answerer can reach: `python -m evals.hotpotqa.coverage FILE`
prints for how many questions the gold answer is a candidate (25 of the 60 dev questions).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agents.research.topic import keywords
from agents.tools.bm25 import STOPWORDS

CANDIDATES = 40
MAX_CHARS = 60  # longer spans are sentences, not answers (and cost grammar tokens)

_WORD = r"(?:[A-Z][\w'’.\-&]*|\d[\d,.]*)"
_JOIN = r"(?:\s+(?:of|the|de|and|for|in|von|van|du|la|le|&)\s+|\s+)"
_SPAN = re.compile(rf"{_WORD}(?:{_JOIN}{_WORD})*")
_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
_DATE = re.compile(rf"\b(?:\d{{1,2}}\s+)?(?:{_MONTHS})(?:\s+\d{{1,2}})?,?\s+\d{{4}}\b|\b\d{{4}}\b")
_YES_NO = re.compile(
    r"(?i)(?:are|is|was|were|do|does|did|can|could|has|have|had|will|would|should)\b"
)
IN_QUESTION_PENALTY = 3  # a bridge question's answer is rarely a name the question already says


def _unopened(span: str) -> str:
    """The span without leading function words: "The 1820 Maine" -> "1820 Maine"."""
    words = span.split()
    while words and words[0].lower() in STOPWORDS:
        words.pop(0)
    return " ".join(words)


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def candidate_answers(
    question: str, paragraphs: Sequence[Any], limit: int = CANDIDATES
) -> list[str]:
    """Up to `limit` spans, best first (ties keep the text's order), after "yes" and "no" when
    the question asks for one.

    A span scores the question words its sentence (with its paragraph's title) holds, plus
    those of its whole paragraph; a name the question already says scores less unless the
    question offers a choice (" or ", "Which of"), as comparison questions do.
    """
    asked = set(keywords(question.lower()))
    scores: dict[str, float] = {}

    def add(span: str, score: float) -> None:
        span = span.strip(" .,;:")
        if span and len(span) <= MAX_CHARS and _norm(span):
            scores[span] = max(scores.get(span, float("-inf")), score)

    for p in paragraphs:
        title = str(getattr(p, "title", ""))
        sentences = list(getattr(p, "sentences", ())) or [str(getattr(p, "text", ""))]
        in_paragraph = len(asked & set(keywords(f"{title} {' '.join(sentences)}".lower())))
        title_words = set(keywords(title.lower()))
        for sentence in sentences:
            score = len(asked & (set(keywords(sentence.lower())) | title_words)) + in_paragraph
            add(title, score)
            for m in (*_SPAN.finditer(sentence), *_DATE.finditer(sentence)):
                if m.start() == len(sentence) - len(sentence.lstrip()) and " " not in m.group(0):
                    continue  # one capitalised word opening a sentence: "Later", "The", "He"
                add(_unopened(m.group(0)), score)
                for part in m.group(0).split(" in ")[1:]:  # "1815 in London": the place too
                    add(part, score)
    said = f" {_norm(question)} "
    choice = " or " in question or question.lower().startswith("which of")
    ranked = sorted(
        scores,
        key=lambda s: -(scores[s] - (f" {_norm(s)} " in said and not choice) * IN_QUESTION_PENALTY),
    )
    spans = [s for s in ranked if s.lower() not in ("yes", "no")][:limit]
    return ["yes", "no", *spans] if asks_yes_or_no(question) else spans


def asks_yes_or_no(question: str) -> bool:
    """ "Are both …", "Was X …", "Did …": HotpotQA's yes/no questions open with a verb."""
    return bool(_YES_NO.match(question.strip()))
