"""What a sentence or a page says a thing's date or count is, as a value to compare: dates as
(year, month, day) as far as given ("12 March 1972", "March 12, 1972", "1972", a life span
"(3 March 1912 – 1987)"), counts as digits or number words; where a thing is from as the
countries a lead sentence says ("a Hungarian-American film director")."""

from __future__ import annotations

import re

from agents.research.countries import ADJECTIVES, NAMES
from agents.research.support import normal

Value = tuple[int, ...]
Countries = frozenset[str]

_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE = re.compile(
    rf"(?:(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\s+(?P<m1>{_MONTH})\s*"  # "26 April1897": glued
    rf"|(?P<m2>{_MONTH})\s*(?:(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?,?\s+)?)?"
    r"(?:\b|(?<=[a-z]))(?P<y>1\d{3}|20\d{2})\b(?!s)",
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
_COUNTRY = re.compile(  # not a continent's people: "the South American country of Venezuela"
    r"(?<![\w-])(?<!South )(?<!North )(?<!Central )(?<!Latin )(?<!Native )(?:"
    + "|".join(re.escape(w) for w in sorted({*ADJECTIVES, *NAMES}, key=len, reverse=True))
    + r")(?![\w])"
)
# said together: "Hungarian- American", "French/ Tunisian", "Soviet and Russian"
_TOGETHER = re.compile(r"\s*(?:[-–/]|\band\b|\bor\b)\s*")
_ASIDE = re.compile(r"\s*-\s*(?:born|language|speaking|based|raised|descended)\b")
_PLACED = re.compile(r"(?:\bin|\bat|,|\bcountry of)\s+(?:the\s+)?$")
# a life span: "(3 March 1912 – 1987)", and "(May 25, 1902 December 5, 1981)" its dash lost
_SPAN = re.compile(
    r"\([^()]*?(?:\b|(?<=[a-z]))\d{4}\s*"  # "April1897": glued
    rf"([–—-]|\bto\b|\s(?=(?:{_MONTH}\s|\d)))[^()]*?\d{{4}}\)",
    re.I,
)


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
        at = span.start() if dates == "birth" else span.end(1)
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


def countries_in(lead: str) -> Countries | None:
    """Where a lead sentence says its subject is from: the first countries its people's
    adjectives say together ("a Hungarian- American film director": Hungary and the United
    States; "a 1994 French/ Tunisian film"); where it names none, the first country it names
    as where a thing is ("situated at Muzaffargarh, Pakistan", "in the United States").
    Brackets are aside (a birthplace: "(born 1964 in Beirut, Lebanon)"), and so is where it
    was born or what language it speaks ("Canadian-born", "English-language") unless nothing
    else is said. None: no country."""
    text = re.sub(r"\([^()]*\)", " ", lead)
    groups: list[tuple[set[str], int]] = []  # (countries, rank: 0 a people's, 1 aside, 2 a name)
    end = -1
    for match in _COUNTRY.finditer(text):
        word = match[0]
        if word not in ADJECTIVES and not _PLACED.search(text, 0, match.start()):
            continue  # a name counts as where a thing is ("in Pakistan"), not in another name
        rank = 2 if word not in ADJECTIVES else int(bool(_ASIDE.match(text, match.end())))
        country = ADJECTIVES.get(word) or NAMES[word]
        if end >= 0 and _TOGETHER.fullmatch(text, end, match.start()) and groups[-1][1] == rank:
            groups[-1][0].add(country)
        else:
            groups.append(({country}, rank))
        end = match.end()
    ranked = sorted(range(len(groups)), key=lambda i: (groups[i][1], i))
    return frozenset(groups[ranked[0]][0]) if groups else None
