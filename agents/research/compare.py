"""A choice between two named things decided from the facts found, as a calculator would.

"Who was born first, Am Rong or Ava DuVernay?" needs two facts and one comparison. The 1.5B
found both ("Am Rong was born in 1929. Ava DuVernay was born in 1972.") and answered "Ava
DuVernay"; asked which film has the director born first, it answered with a director's name,
which is neither film. So, where the question chooses between two named sides by a date or a
count ("first", "younger", "more members"):
- each side's value is read from the facts: a fact naming the side and the value, or, where the
  question asks about something the side has ("the film whose director is younger"), a fact
  naming the side and another name (its director, by a fact saying "directed") and a fact
  naming that name and the value; a date must come with what the question dates ("born" where
  it asks who is older, "died" where it asks who died first);
- two values that order the sides pick one; otherwise nothing is decided here, a side without
  a value is what to search next (its linked name when the question asks about that), and a
  stated answer counts only as one of the sides (a linked name stands for its side).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from agents.research.support import normal, unsupported

Value = tuple[int, ...]
Order = Literal["earlier", "later", "more", "fewer"]

_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE = re.compile(
    rf"(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<m1>{_MONTH})\s+"
    rf"|(?P<m2>{_MONTH})\s+(?:(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+)?)?"
    r"\b(?P<y>1\d{3}|20\d{2})\b(?!s)",
    re.I,
)
_COUNT = re.compile(r"\b\d+(?:,\d{3})*(?:\.\d+)?\b")
_COUNT_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
).split()
_ORDERS: dict[Order, tuple[str, ...]] = {
    "earlier": ("first", "earlier", "earliest", "older", "oldest", "elder", "eldest", "sooner"),
    "later": ("later", "latest", "last", "younger", "youngest", "newer", "newest", "recent"),
    "more": ("more", "most"),  # of a plural counted: "more members"
    "fewer": ("fewer", "fewest"),
}
_BIRTH = ("born", "birth", "older", "oldest", "younger", "youngest", "elder", "eldest")
_DEATH = ("died", "death", "die", "dies")
_DATED = {
    "birth": ("born", "birth", "founded", "established", "formed"),
    "death": ("died", "death", "dies", "killed"),
}
_SPAN = re.compile(r"\([^()]*?\d{4}\s*([–—-]|\bto\b)[^()]*?\d{4}\)")
_RELATION = re.compile(r"\b(?:has|had|have|with) the (\w+)|\bwhose (\w+)", re.I)
_NAME = re.compile(r"[\w'’.&-]+")
_JOINERS = {
    "of",
    "the",
    "de",
    "da",
    "di",
    "del",
    "van",
    "von",
    "la",
    "le",
    "du",
    "y",
    "al",
    "to",
    "and",
    "for",
    "in",
    "on",
    "a",
}


def options(question: str) -> tuple[str, str] | None:
    """The two sides of "…, A or B?" ("Which band, A or B, had more members?", "Who was born
    first A or B?"), each whole; None when the question offers no such choice."""
    text = question.strip().rstrip("?").strip()
    head, sep, tail = text.rpartition(" or ")
    if not sep:
        return None
    left = head.rsplit(",", 1)[1] if "," in head else _last_name(head)
    right, comma, rest = tail.partition(",")
    if comma and rest.strip()[:1].isupper():  # a title's comma ("Now, Voyager"), not a clause's
        right = tail
    left, right = left.strip(" ?\"'"), right.strip(" ?\"'")
    return (left, right) if left and right else None


def order(question: str) -> Order | None:
    """How the question orders its sides, from its comparative word; None when it names none."""
    words = _words(question)
    for how, said in _ORDERS.items():
        if words & set(said):
            counted = how in ("more", "fewer")
            return how if not counted or _counted(question) else None
    return None


def chosen(question: str, facts: Sequence[str]) -> str | None:
    """The side the facts' values pick, or None when they do not order the two."""
    pair, how = options(question), order(question)
    if not pair or not how:
        return None
    a, b = (value(question, side, pair, facts) for side in pair)
    if a is None or b is None or not comparable(a, b):
        return None
    if a == b:
        return None
    first_is_less = a < b
    return pair[0] if first_is_less == (how in ("earlier", "fewer")) else pair[1]


def unvalued(question: str, facts: Sequence[str]) -> list[str]:
    """What to search for a side whose value the facts lack: the name it is linked to where
    the question asks about that (the film's director), else the side itself."""
    pair = options(question)
    if not pair or not order(question):
        return []
    wanted = []
    for side in pair:
        if value(question, side, pair, facts) is None:
            linked = _linked(question, side, pair, facts)
            wanted.append(linked[0] if linked else side)
    return wanted


def side_of(answer: str, question: str, facts: Sequence[str]) -> str | None:
    """The side a stated answer stands for: itself when it is one, the side it is linked to
    when it names that side's linked name (a director for the film), else None."""
    pair = options(question)
    if not pair:
        return answer
    for side in pair:
        if _same(answer, side):
            return side
    for side in pair:
        if any(_same(answer, name) for name in _linked(question, side, pair, facts)):
            return side
    return None


def value(question: str, side: str, pair: tuple[str, str], facts: Sequence[str]) -> Value | None:
    """The side's value in the facts: its own, or its linked name's where the question asks
    about something it has."""
    other = pair[1] if side == pair[0] else pair[0]
    if not _relation(question):
        return _valued(question, [f for f in facts if _names(f, side) and not _names(f, other)])
    for name in _linked(question, side, pair, facts):
        about = [f for f in facts if _names(f, name) and not _names(f, side)]
        found = _valued(question, about)
        if found is not None:
            return found
    return None


def comparable(a: Value, b: Value) -> bool:
    """Do the two values order their sides: the same length of parts, or a first part that
    differs (1929 against 12 March 1972)?"""
    return len(a) == len(b) or a[0] != b[0]


def _valued(question: str, facts: Sequence[str]) -> Value | None:
    how = order(question)
    for fact in facts:
        found = _count(question, fact) if how in ("more", "fewer") else _date(question, fact)
        if found is not None:
            return found
    return None


def _date(question: str, fact: str) -> Value | None:
    """The date the fact gives for what the question dates (after "born" where it asks for
    a birth), as (year, month, day) as far as given."""
    dates = _dates(question)
    dated = _DATED.get(dates, ())
    low = fact.casefold()
    at = min((low.find(w) for w in dated if w in low), default=-1 if dated else 0)
    span = _SPAN.search(fact)
    if at < 0 and span:  # "(3 March 1912 – 1987)": born, then died
        at = span.start() if dates == "birth" else span.start() + span[0].find(span[1]) + 1
    if at < 0:
        return None
    match = _DATE.search(fact, at)
    if not match:
        return None
    month = (match["m1"] or match["m2"] or "")[:3].casefold()
    day = match["d1"] or match["d2"]
    parts = [int(match["y"])]
    if month:
        parts.append(next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(month)))
        if day:
            parts.append(int(day))
    return tuple(parts)


def _dates(question: str) -> str:
    words = _words(question)
    if words & set(_DEATH):
        return "death"
    return "birth" if words & set(_BIRTH) else ""


def _count(question: str, fact: str) -> Value | None:
    """The count the fact gives for what the question counts ("members" after "more")."""
    if _counted(question)[:5] not in fact.casefold():
        return None
    digits = _COUNT.search(fact)
    if digits:
        return (int(float(digits[0].replace(",", ""))),)
    said = [w for w in normal(fact).split() if w in _COUNT_WORDS]
    return (_COUNT_WORDS.index(said[0]) + 1,) if said else None


def _words(question: str) -> set[str]:
    """The question's own words, its sides' names aside ("The Last Outpost" asks for no last)."""
    for side in options(question) or ():
        question = question.replace(side, " ")
    return set(re.findall(r"\w+", normal(question)))


def _counted(question: str) -> str:
    """What the question counts: the plural after "more" or "fewer" ("members"; not "more
    frequently", which no count answers)."""
    found = re.search(r"\b(?:more|fewer|most|fewest)\s+(\w+s)\b", question, re.I)
    return found[1].casefold() if found else ""


def _relation(question: str) -> str:
    """What the question asks about its sides' belongings ("director" in "the film whose
    director is younger"); "" when it compares the sides themselves."""
    found = _RELATION.search(question)
    return (found[1] or found[2]).casefold() if found else ""


def _linked(question: str, side: str, pair: tuple[str, str], facts: Sequence[str]) -> list[str]:
    """The names a fact links to the side by the question's relation ("The Summer of Massacre
    was directed by Joe Castro": Joe Castro), in the order found."""
    stem = _relation(question)[:5]
    other = pair[1] if side == pair[0] else pair[0]
    found: list[str] = []
    for fact in facts:
        if not stem or stem not in fact.casefold() or not _names(fact, side):
            continue
        if _names(fact, other):
            continue
        after = fact.casefold().find(stem)
        names = [n for n in _runs(fact) if not _same(n, side) and not _names(side, n)]
        found += sorted(names, key=lambda n: fact.find(n) < after)  # named by the relation first
    return list(dict.fromkeys(found))


def _names(text: str, name: str) -> bool:
    """Does `text` name `name` (its words and numbers, a parenthesised kind aside)?"""
    core = re.sub(r"\s*\([^)]*\)", "", name).strip() or name
    if not any(c.isupper() or c.isdigit() for c in core):  # no name to match: the words
        return normal(core).strip() in normal(text)
    return not unsupported(core, text)


def _same(a: str, b: str) -> bool:
    return _names(a, b) and _names(b, a)


def _runs(text: str) -> list[str]:
    """The names in a sentence: runs of capitalized words (joined by "of", "the" and the like)."""
    runs: list[list[str]] = [[]]
    for word in _NAME.findall(text):
        if word[:1].isupper() or (runs[-1] and word.casefold() in _JOINERS):
            runs[-1].append(word.rstrip("."))
        elif runs[-1]:
            runs.append([])
    trimmed = (_trim(run) for run in runs)
    return [" ".join(run) for run in trimmed if run]


def _trim(run: list[str]) -> list[str]:
    while run and run[-1].casefold() in _JOINERS:
        run = run[:-1]
    return run


def _last_name(text: str) -> str:
    runs = _runs(text)
    return runs[-1] if runs else ""
