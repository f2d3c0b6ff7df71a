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
  the question dates ("born", or a life span's first date, where it asks who is older); where
  the lead dates nothing, a later sentence of the page saying the question's deed ("Formed in
  2008 by …" for "Which band was formed first …?");
- two values that order the sides pick one (and `because` says which statements gave them);
  otherwise nothing is decided here, a side without a value is what to search next (its linked
  name when the question asks about that), and a stated answer counts only as one of the sides
  (a linked name stands for its side).
Asked whether two sides are from one country ("Are A and B both from the same country?", "Do
director of film A and director of film B have the same nationality?"), the model's yes or no
leaned to no; each side's value is where its page's lead says it is from (its people's
adjective, `countries_in`), reached the same way, and a country in common is yes. A film's
director is linked also by a later sentence of the film's page ("It was directed by …").
Measured: docs/results/multihop-tune-2wiki (2Wiki's tune questions, EM 0.15 -> 0.50).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from agents.research.names import (
    about,
    last_name,
    leading_name,
    leads,
    linked,
    names,
    relating,
    same,
    titled_sentences,
)
from agents.research.support import normal
from agents.research.values import Countries, Value, comparable, count_in, countries_in, date_in

Order = Literal["earlier", "later", "more", "fewer"]

_ORDERS: dict[Order, tuple[str, ...]] = {
    "earlier": ("first", "earlier", "earliest", "older", "oldest", "elder", "eldest", "sooner"),
    "later": ("later", "latest", "last", "younger", "youngest", "newer", "newest", "recent"),
    "more": ("more", "most"),  # of a plural counted: "more members"
    "fewer": ("fewer", "fewest"),
}
_BIRTH = ("born", "birth", "older", "oldest", "younger", "youngest", "elder", "eldest")
_DEATH = ("died", "death", "die", "dies")
_RELATION = re.compile(
    r"\b(?:has|had|have|with) the (\w+)|\bwhose (\w+)|\b(\w+?)s? of (?:the )?(?:film|movie)s?\b",
    re.I,
)
_COUNTED = ("more", "fewer")
_BRACKETED = re.compile(r"\s*\([^)]*\)\s*$")  # a title's kind: "Rock 'n' Roll (album)"
_ALIKE = re.compile(r"\bthe same (?:country|nationality)\b", re.I)
_ASKS = re.compile(r"\s*(?:is|are|was|were|do|does|did)\b", re.I)


def options(question: str) -> tuple[str, str] | None:
    """The two sides of "…, A or B?" ("Which band, A or B, had more members?", "Who was born
    first A or B?"), each whole; None when the question offers no such choice."""
    text = question.strip().rstrip("?").strip()
    head, sep, tail = text.rpartition(" or ")
    if not sep:
        return None
    left = head.rsplit(",", 1)[1] if "," in head else last_name(head.split(None, 1)[-1])
    right, comma, rest = tail.partition(",")
    if comma and rest.strip()[:1].isupper():  # a title's comma ("Now, Voyager"), not a clause's
        right = tail
    elif not comma:  # "… or B born first?": the name, not what follows it
        right = leading_name(tail)
    left, right = left.strip(" ?\"'"), right.strip(" ?\"'")
    return (left, right) if left and right else None


def alike(question: str) -> tuple[str, str] | None:
    """The two sides of a question asking whether they are from one country ("Are A and B both
    from the same country?", "Do director of film A and director of film B have the same
    nationality?"), each whole; None for any other question."""
    found = _ALIKE.search(question)
    if not found or not _ASKS.match(question):
        return None
    words = question[: found.start()].split()[1:]
    while words and words[0][:1].islower():  # "both churches,", "the directors of films"
        words.pop(0)
    while words and words[-1][:1].islower():  # "both from", "have the directors that share"
        words.pop()
    text = " ".join(words)
    splits = [m.start() for m in re.finditer(" and ", text)]
    pairs = [(text[:at], text[at + 5 :]) for at in splits]
    # "director of film A and director of film B": the split before the repeated kind first
    pairs.sort(key=lambda p: not p[1][:1].islower())
    for left, right in pairs:
        right = re.sub(r"^(?:[a-z]\S*\s+)+", "", right)  # "director of film B": B
        left, right = left.strip(" ,:"), right.strip(" ,:")
        if left and right:
            return left, right
    return None


def order(question: str) -> Order | None:
    """How the question orders its sides, from its comparative word; None when it names none."""
    words = _words(question)
    for how, said in _ORDERS.items():
        if words & set(said):
            counted = how in ("more", "fewer")
            return how if not counted or _counted(question) else None
    return None


def chosen(question: str, facts: Sequence[str], passages: Sequence[str] = ()) -> str | None:
    """The side the values pick, or None when they do not order the two (asked whether the two
    are alike: "yes" or "no" by their values, None while one is unknown): what the passages
    read say first (each one's lead sentence, see `leads`), then the facts the model stated."""
    pair = valued_sides(question)
    if not pair:
        return None
    pages, said = _read(question, facts, passages)
    a, b = (_value(question, side, pair, pages, said) for side in pair)
    if a is None or b is None:
        return None
    if isinstance(a, frozenset) or isinstance(b, frozenset):
        return "yes" if set(a) & set(b) else "no"  # one country in common, as citizenships
    if a == b or not comparable(a, b):
        return None
    first_is_less = a < b
    return pair[0] if first_is_less == (order(question) in ("earlier", "fewer")) else pair[1]


def valued_sides(question: str) -> tuple[str, str] | None:
    """The two sides whose values decide the question: a choice's by an order, or two asked
    about whether they are alike; None when the question is neither."""
    pair = options(question)
    return pair if pair and order(question) else alike(question)


def unvalued(question: str, facts: Sequence[str], passages: Sequence[str] = ()) -> list[str]:
    """What to search for a side whose value is not known yet: the name it is linked to where
    the question asks about that (the film's director), else the side itself."""
    pair = valued_sides(question)
    if not pair:
        return []
    (pages, said), wanted = _read(question, facts, passages), []
    for side in pair:
        if _value(question, side, pair, pages, said) is None:
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
        if same(answer, side):
            return side
    said = _read(question, facts, passages)[1]
    for side in pair:
        if any(same(answer, name) for name in _linked(question, side, pair, said)):
            return side
    return None


def _value(
    question: str, side: str, pair: tuple[str, str], pages: Sequence[str], said: Sequence[str]
) -> Value | Countries | None:
    """The side's value: its page's, or its linked name's page's where the question asks about
    something it has (linked by a page or a fact)."""
    found = _grounded(question, side, pair, said, pages)
    return found[0] if found else None


def _read(
    question: str, facts: Sequence[str], passages: Sequence[str]
) -> tuple[list[str], list[str]]:
    """What the values are read from: each passage's lead; and what may link a side to what
    it has: the leads, the facts, and each page's sentences naming the relation, under its
    title ("Laila Majnu (1976 film): The film was directed by H. S. Rawail.")."""
    pages = [*leads(passages), *_told(question, passages)]
    return pages, [*pages, *facts, *relating(passages, _relation(question)[:5])]


def _told(question: str, passages: Sequence[str]) -> list[str]:
    """Where a choice is by date, the sentences of the pages read that say the question's deed
    ("formed", "released"), each under its page's title ("Wavves: Formed in 2008 by
    singer-songwriter Nathan Williams …"): a lead need not date it ("Wavves is an American rock
    band based in San Diego, California."). They come after the leads: a lead's date wins."""
    deeds = [w for w in _words(question) if len(w) > 4 and w.endswith("ed")]
    if not deeds or order(question) not in ("earlier", "later"):
        return []
    out = []
    for title, sentence in titled_sentences(passages):
        words = set(re.findall(r"\w+", normal(sentence)))
        if words.intersection(deeds):
            out.append(f"{_BRACKETED.sub('', title)}: {sentence}")
    return out


def because(question: str, facts: Sequence[str], passages: Sequence[str] = ()) -> list[str]:
    """What a choice's values rest on, side by side: the statement giving each side's value
    (and, where the question asks about what it has, the one linking it to that)."""
    pair, (pages, said), out = valued_sides(question), _read(question, facts, passages), []
    if not pair:
        return []
    for side in pair:
        found = _grounded(question, side, pair, said, pages)
        out += found[1] if found else []
    return list(dict.fromkeys(out))


def _grounded(
    question: str, side: str, pair: tuple[str, str], said: Sequence[str], pages: Sequence[str]
) -> tuple[Value | Countries, list[str]] | None:
    """The side's value and what gives it. A value is a page's (its lead sentence): the model
    states dates it read elsewhere ("Rudolph Cartier was born in 1958", his film's year); a
    link (the director) may be the model's or a page's."""
    other = pair[1] if side == pair[0] else pair[0]
    if not _relation(question):
        found = _valued(question, [f for f in pages if names(f, side) and not names(f, other)])
        return (found[0], [found[1]]) if found else None
    for name in _linked(question, side, pair, said):
        found = _valued(question, [f for f in pages if about(f, name, side)])
        if found is not None:
            link = next(f for f in said if names(f, side) and names(f, name))
            return found[0], [link, found[1]]
    return None


def _valued(question: str, facts: Sequence[str]) -> tuple[Value | Countries, str] | None:
    """The first value the facts give of what the question compares, and the fact giving it."""
    counted, dates = _counted(question), _dates(question)
    where = alike(question) is not None
    for fact in facts:
        found: Value | Countries | None
        if where:
            found = countries_in(fact)
        else:
            found = count_in(fact, counted) if order(question) in _COUNTED else date_in(fact, dates)
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
    return next(g for g in found.groups() if g).casefold() if found else ""


def _linked(question: str, side: str, pair: tuple[str, str], facts: Sequence[str]) -> list[str]:
    """The names a fact links to the side by the question's relation ("The Summer of Massacre
    was directed by Joe Castro": Joe Castro), in the order found."""
    other = pair[1] if side == pair[0] else pair[0]
    return linked(_relation(question)[:5], side, facts, besides=other)
