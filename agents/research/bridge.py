"""A link the question asks through, read from the page that says it, with no call.

"Where was the director of film Herra Lahtinen Lähtee Lipettiin born?" is answered from the
director's page, and the film's page names him ("… is a 1939 Finnish comedy film directed by
Toivo Särkkä"). The 1.5B skipped him: "The director of film Herra Lahtinen Lähtee Lipettiin
was born in Finland." So where the question asks about the role someone had in a named work
(the director of a film, the performer or composer of a song), and the work's own page read
says who had it ("directed by X", "a song by X", "performed in French by X"), that sentence is
a fact found and the name is searched next: the hop that reads his page answers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agents.research.countries import ADJECTIVES
from agents.research.names import leading_name, names, runs, titled_sentences

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
_BY = re.compile(r"\w*((?:\s+[\w'’,-]+){0,4}?)\s+by\s+")
_DESCRIBED = 4  # words that may describe the name after "by": "American singer-songwriter"


def role_of(question: str) -> tuple[str, str] | None:
    """The role asked about and the work it is of ("director", "Herra Lahtinen Lähtee
    Lipettiin"); None when the question asks about no role in a named work."""
    found = _ROLE.search(question)
    if not found:
        return None
    work = re.sub(r"'s$", "", leading_name(question[found.end() :].rstrip(" ?"))).strip()
    return (found[1].casefold(), work) if work else None


def bridge(question: str, passages: Sequence[str]) -> tuple[str, str] | None:
    """The sentence of the work's own page read that says who had the role, and that name
    ("Herra Lahtinen lähtee lipettiin is a 1939 Finnish comedy film directed by Toivo
    Särkkä.", "Toivo Särkkä"); None when the question asks about no role, or no page read of
    the work says it."""
    asked = role_of(question)
    if not asked:
        return None
    role, work = asked
    said = _SAID_BY.get(role, (role[:5],))
    others = tuple(_ANY_ROLE - set(said))
    for title, sentence in titled_sentences(passages):
        if not _titled(title, work):
            continue
        low = sentence.casefold()
        for word in said:
            at = low.find(word)
            by = _BY.match(sentence, at + len(word)) if at >= 0 else None
            between = by[1].casefold() if by else ""
            joint = between.lstrip().startswith(("and ", ", "))  # "directed and co-written by"
            if not by or (not joint and any(w in between for w in others)):  # "song written by"
                continue
            name = _named_after(sentence[by.end() :])
            if name:
                return (sentence if names(sentence, title) else f"{title}: {sentence}"), name
    return None


def _named_after(text: str) -> str:
    """The name `text` opens with, past a few words describing it ("American singer Selena":
    Selena; "musician James McMurtry"); "" when none comes soon."""
    for run in runs(text):
        if all(w in ADJECTIVES for w in run.split()):
            continue
        before = text[: text.find(run)]
        return run if len(before.split()) <= _DESCRIBED and not re.search(r"[,;.(]", before) else ""
    return ""


def _titled(title: str, work: str) -> bool:
    """Is `title` the work's page ("Le trio en si bémol" for "Le Trio En Si Bémol")?"""
    bare = [re.sub(r"\s*\([^)]*\)", "", t).casefold().strip() for t in (title, work)]
    return bare[0] == bare[1] or names(title.casefold(), work.casefold())
