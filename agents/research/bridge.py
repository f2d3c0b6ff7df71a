"""A link the question asks through, read from the page that says it, with no call.

"Where was the director of film Herra Lahtinen Lähtee Lipettiin born?" is answered from the
director's page, and the film's page names him ("… is a 1939 Finnish comedy film directed by
Toivo Särkkä"). The 1.5B skipped him: "The director of film Herra Lahtinen Lähtee Lipettiin
was born in Finland." So where the question asks about the role someone had in a named work
(the director of a film, the performer or composer of a song), and the work's own page read
says who had it ("directed by X", "a song by X", "performed in French by X"), that sentence is
a fact found and the name is searched next: the hop that reads his page answers. A person's
relatives are read the same way, step by step (`kin`: a paternal grandfather is the father's
father): each step from the page of the one before, while that page has been read.
`python -m bench.page_reading` counts how often this bridges rightly on 2Wiki's gold pages.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agents.research.kin import KIN_STEPS, kin_of, relative
from agents.research.names import leading_name, named_after, names, titled_sentences
from agents.research.sources import title_and_source

_WORKS = r"(?:film|movie|song|single|album|book|novel|play|show|series|opera|poem)"
_ROLE = re.compile(rf"\bthe (\w+?)s? of (?:the )?{_WORKS}s? ", re.I)
# how a work's page says who had a role, before "by": "directed", "a song", "recorded"
_SAID_BY = {
    "director": ("direct", "film", "documentary", "movie"),
    "performer": ("perform", "record", "sung", "song", "single", "album"),
    "composer": ("compos", "written", "music", "song"),
    "producer": ("produc",),
    "writer": ("writ", "novel", "book", "play", "poem", "story"),
}
_SAID_BY["author"] = _SAID_BY["writer"]
_ANY_ROLE = {w for said in _SAID_BY.values() for w in said} | {"based", "adapt", "lyric"}
_BY = re.compile(r"\w*((?:\s+[\w'’,-]+){0,4}?)\s+by(?:\s+|(?=[A-Z]))")  # "byAmerican": glued


def role_of(question: str) -> tuple[str, str] | None:
    """The role asked about and the work it is of ("director", "Herra Lahtinen Lähtee
    Lipettiin"); None when the question asks about no role in a named work."""
    found = _ROLE.search(question)
    if not found:
        return None
    work = re.sub(r"'s$", "", leading_name(question[found.end() :].rstrip(" ?"))).strip()
    return (found[1].casefold(), work) if work else None


def bridge(question: str, passages: Sequence[str]) -> tuple[list[str], str] | None:
    """The sentences of the pages read that link the question's work or person to whom it
    asks through, and the last name they reach (["Herra Lahtinen lähtee lipettiin is a 1939
    Finnish comedy film directed by Toivo Särkkä."], "Toivo Särkkä"; for a paternal
    grandfather, the father's and, his page read, the father's father); None when the
    question asks through no role or relative, or no page read says it."""
    asked = role_of(question)
    kin = None if asked else kin_of(question)
    steps, who = (((asked[0],), asked[1]) if asked else kin) or ((), "")
    facts: list[str] = []
    for step in steps:
        found = _said(step, who, passages)
        if not found:
            break
        facts.append(found[0])
        who = found[1]
        if not page_read(who, passages):
            break  # the next step is read from a page not read yet: searched first
    return (facts, who) if facts else None


def _said(step: str, who: str, passages: Sequence[str]) -> tuple[str, str] | None:
    """The first sentence of `who`'s page read naming its `step` (a role or a relative), and
    that name."""
    for title, sentence in titled_sentences(passages):
        if not _titled(title, who):
            continue
        name = relative(step, sentence) if step in KIN_STEPS else _had(step, sentence)
        if name:
            return (sentence if names(sentence, title) else f"{title}: {sentence}"), name
    return None


def _had(role: str, sentence: str) -> str:
    """Who a work's page sentence says had the role ("directed by X", "a song by X")."""
    said = _SAID_BY.get(role, (role[:5],))
    others = tuple(_ANY_ROLE - set(said))
    low = sentence.casefold()
    for word in said:
        at = low.find(word)
        by = _BY.match(sentence, at + len(word)) if at >= 0 else None
        between = by[1].casefold() if by else ""
        joint = between.lstrip().startswith(("and ", ", "))  # "directed and co-written by"
        if not by or (not joint and any(w in between for w in others)):  # "song written by"
            continue
        name = named_after(sentence[by.end() :])
        if name:
            return name
    return ""


def page_read(who: str, passages: Sequence[str]) -> bool:
    """Is `who`'s own page among the passages read?"""
    return any(_titled(title_and_source(p)[0], who) for p in passages)


def _titled(title: str, work: str) -> bool:
    """Is `title` the work's or person's page ("Le trio en si bémol" for "Le Trio En Si
    Bémol", "Adolph II of the Marck" for "Count Adolph II of the Marck")?"""
    bare = [re.sub(r"\s*\([^)]*\)", "", t).casefold().strip() for t in (title, work)]
    return bare[0] == bare[1] or names(title.casefold(), work.casefold()) or names(work, title)
