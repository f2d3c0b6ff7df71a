"""What a sentence or a page says a thing's date or count is, as a value to compare: dates as
(year, month, day) as far as given ("12 March 1972", "March 12, 1972", "1972", a life span
"(3 March 1912 – 1987)"), counts as digits or number words."""

from __future__ import annotations

import re

from agents.research.support import normal

Value = tuple[int, ...]

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
_DATED = {
    "birth": ("born", "birth", "founded", "established", "formed"),
    "death": ("died", "death", "dies", "killed"),
}
_SPAN = re.compile(r"\([^()]*?\d{4}\s*([–—-]|\bto\b)[^()]*?\d{4}\)")


def comparable(a: Value, b: Value) -> bool:
    """Do the two values order their sides: the same length of parts, or a first part that
    differs (1929 against 12 March 1972)?"""
    return len(a) == len(b) or a[0] != b[0]


def date_in(fact: str, dates: str = "") -> Value | None:
    """The date `fact` gives of what `dates` names ("birth": after "born", or a life span's
    first; "death": after "died", or its second; "": the first), as (year, month, day) as far
    as given."""
    dated = _DATED.get(dates, ())
    low = fact.casefold()
    at = min((low.find(w) for w in dated if w in low), default=-1 if dated else 0)
    span = _SPAN.search(fact)
    if dates and span and (at < 0 or span.start() < at):  # "(3 March 1912 – 1987)": born, died
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


def count_in(fact: str, counted: str) -> Value | None:
    """The count `fact` gives of `counted` ("members"): none when it does not name them."""
    if counted[:5] not in fact.casefold():
        return None
    digits = _COUNT.search(fact)
    if digits:
        return (int(float(digits[0].replace(",", ""))),)
    said = [w for w in normal(fact).split() if w in _COUNT_WORDS]
    return (_COUNT_WORDS.index(said[0]) + 1,) if said else None
