"""A choice between two named things decided from what the pages say, as a calculator would.

"Who was born first, Am Rong or Ava DuVernay?" needs two dates and one comparison. The 1.5B
found both ("Am Rong was born in 1929. Ava DuVernay was born in 1972.") and answered "Ava
DuVernay"; asked which film has the director born first, it answered with a director's name,
which is neither film; and it states dates it read elsewhere ("Rudolph Cartier was born in
1958": his film's year). So, where the question chooses between two named sides by a date or a
count ("first", "younger", "more members"):
- each side's value is read from the pages read, each one's lead sentence (`leads`: an
  encyclopedic page says there when its subject was born or made, and who made it): the page
  naming the side and the value, or, where the question asks about something the side has
  ("the film whose director is younger"), the name a page or a fact links to the side by the
  question's relation ("directed by Joe Castro") and that name's page; a date must be of what
  the question dates ("born", or a life span's first date, where it asks who is older);
- two values that order the sides pick one (and `because` says which statements gave them);
  otherwise nothing is decided here, a side without a value is what to search next (its linked
  name when the question asks about that), and a stated answer counts only as one of the sides
  (a linked name stands for its side).
Measured: docs/results/multihop-tune-2wiki (2Wiki's tune questions, EM 0.15 -> 0.50).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from agents.research.sources import title_and_source
from agents.research.support import normal, unsupported
from agents.research.values import Value, comparable, count_in, date_in

Order = Literal["earlier", "later", "more", "fewer"]

_ORDERS: dict[Order, tuple[str, ...]] = {
    "earlier": ("first", "earlier", "earliest", "older", "oldest", "elder", "eldest", "sooner"),
    "later": ("later", "latest", "last", "younger", "youngest", "newer", "newest", "recent"),
    "more": ("more", "most"),  # of a plural counted: "more members"
    "fewer": ("fewer", "fewest"),
}
_BIRTH = ("born", "birth", "older", "oldest", "younger", "youngest", "elder", "eldest")
_DEATH = ("died", "death", "die", "dies")
_LEAD_END = re.compile(r"(?<=[.!?])(?<!\b[A-Z]\.)\s+(?=[A-Z])")  # not after an initial
_LEAD_CHARS = 400
_JOINED = re.compile(
    r"(?<=[a-z)\"])\.(?=[A-Z])"
)  # "Mitchell.It was": two sentences, one space lost
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
    left = head.rsplit(",", 1)[1] if "," in head else _last_name(head.split(None, 1)[-1])
    right, comma, rest = tail.partition(",")
    if comma and rest.strip()[:1].isupper():  # a title's comma ("Now, Voyager"), not a clause's
        right = tail
    elif not comma:  # "… or B born first?": the name, not what follows it
        right = _leading_name(tail)
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


def chosen(question: str, facts: Sequence[str], passages: Sequence[str] = ()) -> str | None:
    """The side the values pick, or None when they do not order the two: what the passages
    read say first (each one's lead sentence, see `leads`), then the facts the model stated."""
    pair, how = options(question), order(question)
    if not pair or not how:
        return None
    pages = leads(passages)
    a, b = (value(question, side, pair, facts, pages) for side in pair)
    if a is None or b is None or not comparable(a, b):
        return None
    if a == b:
        return None
    first_is_less = a < b
    return pair[0] if first_is_less == (how in ("earlier", "fewer")) else pair[1]


def unvalued(question: str, facts: Sequence[str], passages: Sequence[str] = ()) -> list[str]:
    """What to search for a side whose value is not known yet: the name it is linked to where
    the question asks about that (the film's director), else the side itself."""
    pair = options(question)
    if not pair or not order(question):
        return []
    pages, wanted = leads(passages), []
    said = [*pages, *facts]
    for side in pair:
        if value(question, side, pair, facts, pages) is None:
            linked = _linked(question, side, pair, said)
            wanted.append(linked[0] if linked else side)
    return wanted


def side_of(
    answer: str, question: str, facts: Sequence[str], passages: Sequence[str] = ()
) -> str | None:
    """The side a stated answer stands for: itself when it is one, the side it is linked to
    when it names that side's linked name (a director for the film), else None."""
    pair = options(question)
    if not pair:
        return answer
    for side in pair:
        if _same(answer, side):
            return side
    said = [*leads(passages), *facts]
    for side in pair:
        if any(_same(answer, name) for name in _linked(question, side, pair, said)):
            return side
    return None


def value(
    question: str, side: str, pair: tuple[str, str], facts: Sequence[str], pages: Sequence[str]
) -> Value | None:
    """The side's value: its page's, or its linked name's page's where the question asks about
    something it has (linked by a page or a fact)."""
    found = _grounded(question, side, pair, [*pages, *facts], pages)
    return found[0] if found else None


def because(question: str, facts: Sequence[str], passages: Sequence[str] = ()) -> list[str]:
    """What a choice's values rest on, side by side: the statement giving each side's value
    (and, where the question asks about what it has, the one linking it to that)."""
    pair, pages, out = options(question), leads(passages), []
    if not pair:
        return []
    for side in pair:
        found = _grounded(question, side, pair, [*pages, *facts], pages)
        out += found[1] if found else []
    return list(dict.fromkeys(out))


def _grounded(
    question: str, side: str, pair: tuple[str, str], said: Sequence[str], pages: Sequence[str]
) -> tuple[Value, list[str]] | None:
    """The side's value and what gives it. A value is a page's (its lead sentence): the model
    states dates it read elsewhere ("Rudolph Cartier was born in 1958", his film's year); a
    link (the director) may be the model's or a page's."""
    other = pair[1] if side == pair[0] else pair[0]
    if not _relation(question):
        found = _valued(question, [f for f in pages if _names(f, side) and not _names(f, other)])
        return (found[0], [found[1]]) if found else None
    for name in _linked(question, side, pair, said):
        found = _valued(question, [f for f in pages if _names(f, name) and not _names(f, side)])
        if found is not None:
            link = next(f for f in said if _names(f, side) and _names(f, name))
            return found[0], [link, found[1]]
    return None


def leads(passages: Sequence[str]) -> list[str]:
    """Each passage's lead sentence, naming its title ("Rudolph Cartier (17 April 1904 – 7 June
    1994) was an Austrian-born director"): an encyclopedic page says there what its subject is,
    when it was born or made, and who made it, which the model may misread or leave out."""
    out = []
    for passage in passages:
        title = re.sub(r"\s*\([^)]*\)\s*$", "", title_and_source(passage)[0])
        text = _JOINED.sub(". ", " ".join(passage.split("\n", 1)[1:]).strip())
        lead = _LEAD_END.split(text, maxsplit=1)[0][:_LEAD_CHARS]
        out.append(lead if not title or _names(lead, title) else f"{title}: {lead}")
    return out


def _valued(question: str, facts: Sequence[str]) -> tuple[Value, str] | None:
    """The first value the facts give of what the question compares, and the fact giving it."""
    counted = order(question) in ("more", "fewer")
    for fact in facts:
        found = count_in(fact, _counted(question)) if counted else date_in(fact, _dates(question))
        if found is not None:
            return found, fact
    return None


def _dates(question: str) -> str:
    words = _words(question)
    if words & set(_DEATH):
        return "death"
    return "birth" if words & set(_BIRTH) else ""


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
        at = fact.casefold().find(stem)
        names = [n for n in _runs(fact) if not _same(n, side) and not _names(side, n)]
        # the name the relation word is nearest, after it first ("directed by X, starring Y")
        nearest = sorted(names, key=lambda n: (fact.find(n) < at, abs(fact.find(n) - at)))
        found += nearest[:1]
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
            runs[-1].append(word if len(word) <= 2 else word.rstrip("."))  # "S." an initial
        elif runs[-1]:
            runs.append([])
    trimmed = (_trim(run) for run in runs)
    return [" ".join(run) for run in trimmed if run]


def _trim(run: list[str]) -> list[str]:
    while run and run[-1].casefold() in _JOINERS:
        run = run[:-1]
    return run


def _leading_name(text: str) -> str:
    """The name `text` opens with: its words up to the first lowercase one that joins
    nothing ("Félix Erviti Barcelona born first": Félix Erviti Barcelona)."""
    words: list[str] = []
    for word in text.split():
        if word[:1].islower() and word.casefold() not in _JOINERS:
            break
        words.append(word)
    return " ".join(_trim(words))


def _last_name(text: str) -> str:
    runs = _runs(text)
    return runs[-1] if runs else ""
