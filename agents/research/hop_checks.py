"""What a hop's reply establishes, read sentence by sentence (`split_reasoning`) and judged
by the passages and the question, not by the model.

A small model reasons in sentences that sound like facts: on the multihop dev questions the 1.5B
wrote "Terry Lovejoy is a citizen of the United States" (he is Australian) from one passage
naming the astronomer and another naming the country, and ended 24 of 30 chains at their first
hop. Checks that need no call:
- **a fact is held by one passage**: every name and number of the sentence in one passage read
  (or in the facts already found: "1886 is earlier than 1889" relates two of them); names
  scattered over several passages are a guess, searched like any other (a sentence restating
  the whole question with its answer, "The date of death of Alexander Rendel's father is 1918",
  passes when one page holds its names: asking that page to hold the question's words too
  changed no answer on the tune questions and cost 0.3 calls a question, so it was dropped);
- **an answer of the kind asked**: a question asking when or how many is answered with a date
  or a number; a name there is the bridge (the company, where its founding year was asked),
  searched for the next hop;
- **a comparison hears both sides**: a yes-or-no question, or one choosing between named
  things ("A or B?"), is answered only when the facts mention each thing it names; a side the
  facts leave out is searched by its name;
- **an answer is not the prompt's placeholder** ("<answer>", echoed from "So the answer is:
  <answer>.").
Not checked: the question's own words as its answer ("Arkansas" for "… under which former
Governor of Arkansas?" is wrong, but a HotpotQA question asks of James Burke in words that name
him; measured in docs/results/multihop-tune-hotpotqa-musique).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from agents.research.answer_text import clean_short_answer
from agents.research.compare import alike, options, order, unvalued
from agents.research.names import runs
from agents.research.support import normal, unsupported

Asked = Literal["a date", "a number", "yes or no", ""]

_DATE = re.compile(
    r"^\s*(?:when\b|(?:in |on |by )?what (?:year|date|day|month|decade|century)\b)"
    r"|\b(?:date|year) of\b",
    re.I,
)
_NUMBER = re.compile(r"^\s*how (?:many|much|old|long|far|tall|high|big|large)\b", re.I)
_YES_NO = re.compile(
    r"^\s*(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)\b", re.I
)
_CHOICE = re.compile(r"\w\s+or\s+[\w\"']", re.I)  # "A or B": a choice between named things
_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec century centuries decade"
).split()
_NUMBER_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty "
    "ninety hundred thousand million billion first second third once twice dozen"
).split()
_ANSWER = re.compile(r"\banswer is\s*:?\s*(.+)$", re.I | re.S)
# a sentence ends at a stop (not an initial's: "Judith S. Beck"); a clause after "while" or a
# semicolon is a sentence of its own ("X was born in 1916, while Y was born in 1958")
_SENTENCE_END = re.compile(
    r"(?<=[.!?])(?<!\b[A-Z]\.)\s+(?=[A-Z0-9\"'(])|,\s+(?:while|whereas)\s+|;\s+"
)
_JOINERS = {"of", "the", "de", "da", "di", "del", "van", "von", "la", "le", "du", "y", "al"}


def asked(question: str) -> Asked:
    """The kind of answer `question` asks for, when its words say ("" when any will do)."""
    if options(question) and order(question):  # a choice: one of its sides, see compare
        return ""
    if _NUMBER.search(question):
        return "a number"
    if _DATE.search(question):
        return "a date"
    return "yes or no" if _YES_NO.search(question) else ""


def fits(answer: str, kind: Asked) -> bool:
    """Is `answer` of the kind asked: a date or a number holds a digit, a month or a number
    word; yes or no is one of them (a comparison's choice passes: "the older one")."""
    words = set(normal(answer).replace("-", " ").split())
    if kind in ("a date", "a number"):
        spoken = _MONTHS if kind == "a date" else _NUMBER_WORDS
        return any(c.isdigit() for c in answer) or bool(words & set(spoken))
    return True


def answers(question: str, answer: str) -> bool:
    """Can `answer` answer `question` at all: a bare yes or no answers only a yes-or-no
    question (the 1.5B's last reading said "no" to "Where was the director … born?"); a
    placeholder answers nothing."""
    said = normal(answer).strip(" .")
    if said in ("yes", "no"):
        return asked(question) == "yes or no"
    return not re.fullmatch(r"<[^<>]*>", said)


def holds(sentence: str, passages: Sequence[str], facts: Sequence[str]) -> bool:
    """Does one passage hold every name and number of `sentence`, or do the facts found so far
    (a sentence relating them)? Not a passage and the facts together: "Lovejoy" found in one
    and "United States" in another make no fact of his citizenship."""
    if not unsupported(sentence, "\n".join(facts)):
        return True
    return any(not unsupported(sentence, p) for p in passages)


def lacking(
    question: str, answer: str, facts: Sequence[str], passages: Sequence[str] = ()
) -> list[str]:
    """What to search before `answer` may stand ([] when it may): the answer itself when it is
    not of the kind asked (a bridge), else the names of a comparison's sides the facts do not
    mention, each side on its own."""
    kind = asked(question)
    if not fits(answer, kind):
        return [answer]
    pair = options(question)
    if (pair and order(question)) or alike(question):  # decided by the sides' values
        return unvalued(question, facts, passages)
    if kind != "yes or no" and not _CHOICE.search(question):
        return []
    said = "\n".join(facts)
    return [side for side in pair or sides(question) if unsupported(side, said)]


def sides(question: str) -> list[str]:
    """The names `question` gives, each whole: runs of capitalized words and numbers (joined
    by "of", "the", "de" and the like, not "and"), its opening word aside."""
    return runs(question.rstrip("?").split(None, 1)[-1], _JOINERS, numbers=True)


@dataclass
class Reasoning:
    """What one hop's reply gives: the facts the run's passages hold, in order; the sentence
    that names something not read yet (the next link to search); the answer it stated."""

    facts: list[str] = field(default_factory=list)
    guess: str = ""
    answer: str | None = None


def split_reasoning(
    reply: str, query: str, passages: Sequence[str], known: Sequence[str]
) -> Reasoning:
    """A hop's reply taken sentence by sentence (see the module's docstring); an answer that
    names what no passage holds is no answer, and the sentence before it is the guess."""
    read = "\n".join([query, *passages])
    said = Reasoning()
    for sentence in sentences(reply):
        stated = _ANSWER.search(sentence)
        if stated:
            answer = clean_short_answer(stated.group(1).strip().rstrip("."))
            if answer and not unsupported(answer, read):
                said.answer = answer
            else:
                said.guess = said.guess or sentence
            break
        if not holds(sentence, passages, [*known, *said.facts]):
            said.guess = sentence
            break
        if sentence not in known and sentence not in said.facts:
            said.facts.append(sentence)
    return said


def sentences(reply: str) -> list[str]:
    """The reply's sentences and clauses, its prefixes ("Reasoning:", "A:") and blank lines
    dropped."""
    text = " ".join(re.sub(r"^\s*(reasoning|a)\s*:\s*", "", reply, flags=re.I | re.M).split())
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]
