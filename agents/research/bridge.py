"""A link the question asks through, read from the page that says it, with no call.

"Where was the director of film Herra Lahtinen Lähtee Lipettiin born?" is answered from the
director's page, and the film's page names him ("… is a 1939 Finnish comedy film directed by
Toivo Särkkä"). The 1.5B skipped him: "The director of film Herra Lahtinen Lähtee Lipettiin
was born in Finland." So where the question asks about the role someone had in a named work
(the director of a film, the performer or composer of a song), and the work's own page read
says who had it ("directed by X", "a song by X", "performed in French by X"), that sentence is
a fact found and the name is searched next: the hop that reads his page answers. A person's
father (and the first link to a paternal grandfather) is read the same way from the person's
page ("the eldest son of X", "his father X"; not "his mother was the daughter of X").
Measured on 2Wiki's gold paragraphs (its 95 such questions, of the whole file): about four in
five bridge to the page the question's chain runs through.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agents.research.countries import ADJECTIVES
from agents.research.names import JOINERS, leading_name, names, runs, titled_sentences

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
_DESCRIBED = 5  # words that may describe a name: "American singer-songwriter", "the festival's
# founder and organiser"
_FATHER_OF = re.compile(r"\b(?:paternal grandfather|father)(?![-\w]) of ")
_S_FATHER = re.compile(r"'s (?:paternal grandfather|father)(?![-\w])")
_CHILD_OF = re.compile(
    r"\b(?:son|daughter|child)(?: and \w+)?\s+of\s+|\b(?:his|her) father(?: was|,)?\s+"
)


def role_of(question: str) -> tuple[str, str] | None:
    """The role asked about and the work or person it is of ("director", "Herra Lahtinen
    Lähtee Lipettiin"; "father", "Duke Xuan Of Qin" for his father or paternal grandfather,
    whose first link is the father); None when the question asks about neither."""
    found = _ROLE.search(question)
    if found:
        work = re.sub(r"'s$", "", leading_name(question[found.end() :].rstrip(" ?"))).strip()
        return (found[1].casefold(), work) if work else None
    found = _FATHER_OF.search(question)
    if found:
        person = re.sub(r"'s$", "", leading_name(question[found.end() :].rstrip(" ?")))
        return ("father", person.strip()) if person.strip() else None
    found = _S_FATHER.search(question)
    person = _name_before(question[: found.start()]) if found else ""
    return ("father", person) if person else None


def bridge(question: str, passages: Sequence[str]) -> tuple[str, str] | None:
    """The sentence of the work's (or person's) own page read that says who had the role, and
    that name ("Herra Lahtinen lähtee lipettiin is a 1939 Finnish comedy film directed by
    Toivo Särkkä.", "Toivo Särkkä"; "… was the son of Duke De of Qin", "Duke De of Qin"); None
    when the question asks about no role, or no page read of it says it."""
    asked = role_of(question)
    if not asked:
        return None
    role, work = asked
    for title, sentence in titled_sentences(passages):
        if not _titled(title, work):
            continue
        name = _parent(sentence) if role == "father" else _had(role, sentence)
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
        name = _named_after(sentence[by.end() :])
        if name:
            return name
    return ""


def _parent(sentence: str) -> str:
    """The father a person's page sentence names ("the eldest son of Duke De of Qin", "son
    of Sultan Abdülaziz and his first wife": the first named)."""
    for found in _CHILD_OF.finditer(sentence):
        if not re.search(r"\b(?:mother|wife|husband)\b[^.;]*$", sentence[: found.start()]):
            return _named_after(sentence[found.end() :]).split(" and ")[0]  # not "his mother
    return ""  # was the daughter of …"


def _named_after(text: str) -> str:
    """The name `text` opens with, past a few words describing it ("American singer Selena":
    Selena; "former Oregon state representative Hector Macpherson": a name of two words or
    more before one of one); "" when none comes soon."""
    near = []
    for run in runs(text):
        before = text[: text.find(run.split()[0])]  # a run drops a stop: "Macpherson, Sr."
        if len(before.split()) > _DESCRIBED or re.search(r"[,;.(]", before):
            break
        if not all(w in ADJECTIVES for w in run.split()):
            near.append(run)
    return next((r for r in near if " " in r), near[0] if near else "")


def _name_before(text: str) -> str:
    """The name `text` ends with ("Who is Cammán Mac Amlaíb": Cammán Mac Amlaíb)."""
    text = text.rstrip()
    kind = re.search(r"\s*\([^()]*\)$", text)  # "Phila (Daughter Of Seleucus)"
    words = text[: kind.start()].split() if kind else text.split()
    start = len(words)
    while start and (
        words[start - 1][:1].isupper()
        or words[start - 1][:1].isdigit()
        or words[start - 1].casefold() in JOINERS
    ):
        start -= 1
    while start < len(words) and words[start].casefold() in JOINERS:
        start += 1
    return " ".join(words[start:]) + (kind[0] if kind and start < len(words) else "")


def _titled(title: str, work: str) -> bool:
    """Is `title` the work's page ("Le trio en si bémol" for "Le Trio En Si Bémol")?"""
    bare = [re.sub(r"\s*\([^)]*\)", "", t).casefold().strip() for t in (title, work)]
    return bare[0] == bare[1] or names(title.casefold(), work.casefold())
