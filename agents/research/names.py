"""Names in text as the research graph's checks read them: whether a sentence names a thing,
the runs of capitalized words a sentence names, and each page's lead sentence (where an
encyclopedic page says what its subject is, when it was born or made, who made it and where
it is from)."""

from __future__ import annotations

import re
from collections.abc import Sequence, Set

from agents.research.countries import ADJECTIVES
from agents.research.sources import title_and_source
from agents.research.support import normal, unsupported

_STOP = re.compile(r"(\S+)[.!?]\s+(?=[A-Z])")
# words a stop ends that end no sentence: an initial, a title, "lit." ("Adiós, Sabata( lit.")
_ABBREVIATIONS = set("mr mrs ms dr st jr sr mt prof gen col lt capt no vs co inc ltd lit".split())
_OPENER = re.compile(r"(?:The|It|He|She|His|Her|They|Their|In|This|Its)\b")  # a sentence's
_LEAD_CHARS = 400
# two sentences, one space lost: "Mitchell.It was", "in Washington, D.C.The picture"
_JOINED = re.compile(r"(?<=[\w)\"\]])\.(?=[A-Z][a-z])")  # "Pope Leo X.His" too
_NAME = re.compile(r"[\w'’.&-]+")
JOINERS = {
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
    "mac",  # "Amlaíb mac Gofraid"
    "ibn",
    "bin",
}


def leads(passages: Sequence[str]) -> list[str]:
    """Each passage's lead sentence, naming its title ("Rudolph Cartier (17 April 1904 – 7 June
    1994) was an Austrian-born director"): an encyclopedic page says there what its subject is,
    when it was born or made, and who made it, which the model may misread or leave out."""
    out = []
    for passage in passages:
        title = re.sub(r"\s*\([^)]*\)\s*$", "", title_and_source(passage)[0])
        text = _JOINED.sub(". ", " ".join(passage.split("\n", 1)[1:]).strip())
        lead = first_sentence(text)[:_LEAD_CHARS]
        out.append(lead if not title or names(lead, title) else f"{title}: {lead}")
    return out


def titled_sentences(passages: Sequence[str]) -> list[tuple[str, str]]:
    """Each passage's sentences, each with the passage's title."""
    out = []
    for passage in passages:
        title = title_and_source(passage)[0]
        text = _JOINED.sub(". ", " ".join(passage.split("\n", 1)[1:]).strip())
        while text:
            sentence = first_sentence(text)
            out.append((title, sentence))
            text = text[len(sentence) :].strip()
    return out


def first_sentence(text: str) -> str:
    """`text` up to its first stop that ends a sentence: not an initial's or a title's ("Mr.
    Arkadin"), nor one inside brackets."""
    for stop in _STOP.finditer(text):
        word = stop[1].rsplit("(", 1)[-1].rstrip(".")
        dotted = "." in word and not _OPENER.match(text, stop.end())  # "C.Ss. is", "D.C. The"
        if len(word) == 1 or dotted or word.casefold() in _ABBREVIATIONS:
            continue
        if text.count("(", 0, stop.end()) > text.count(")", 0, stop.end()):
            continue
        return text[: stop.end()].rstrip()
    return text


def names(text: str, name: str) -> bool:
    """Does `text` name `name` (its words and numbers, a parenthesised kind aside)?"""
    core = re.sub(r"\s*\([^)]*\)", "", name).strip() or name
    if not any(c.isupper() or c.isdigit() for c in core):  # no name to match: the words
        return normal(core).strip() in normal(text)
    return not unsupported(core, text)


def same(a: str, b: str) -> bool:
    """Do `a` and `b` name each other (the same thing, however much of its name is given)?"""
    return names(a, b) and names(b, a)


def runs(text: str, joiners: Set[str] = JOINERS, *, numbers: bool = False) -> list[str]:
    """The names in a sentence: runs of capitalized words (and numbers, `numbers`) joined by
    `joiners` ("of", "the" and the like)."""
    found: list[list[str]] = [[]]
    for word in _NAME.findall(text):
        named = word[:1].isupper() or (numbers and word[:1].isdigit())
        if named or (found[-1] and word.casefold().rstrip("'’") in joiners):  # "de'"
            found[-1].append(word if len(word) <= 2 else word.rstrip("."))  # "S." an initial
        elif found[-1]:
            found.append([])
    trimmed = (trim(run, joiners) for run in found)
    return [" ".join(run) for run in trimmed if run]


def trim(run: list[str], joiners: Set[str] = JOINERS) -> list[str]:
    """A run of words without the joiners it ends with ("Song of the" -> "Song")."""
    while run and run[-1].casefold() in joiners:
        run = run[:-1]
    return run


def leading_name(text: str) -> str:
    """The name `text` opens with: its words up to the first lowercase one that joins
    nothing ("Félix Erviti Barcelona born first": Félix Erviti Barcelona)."""
    words: list[str] = []
    for word in text.split():
        if word[:1].islower() and word.casefold() not in JOINERS:
            break
        words.append(word)
    return " ".join(trim(words))


def last_name(text: str) -> str:
    """The last name `text` gives (see `runs`), "" when it gives none."""
    found = runs(text)
    return found[-1] if found else ""


def distance(text: str, name: str, at: int) -> tuple[bool, int]:
    """How far `name` is from `at` in `text`: its nearest place after `at`, else before (by
    its first word where a run dropped an abbreviation's stop: "Malcolm St Clair")."""
    word = name if name in text else name.split()[0]
    after = text.find(word, at)
    return (False, after - at) if after >= 0 else (True, at - text.rfind(word, 0, at))


def about(text: str, name: str, side: str) -> bool:
    """Is `text` about `name` rather than the side it is linked to: it names `name`, and not
    the side or only after it ("Nietzchka Keene was an American film director best known for
    The Juniper Tree")?"""
    if not names(text, name):
        return False
    core = (re.sub(r"\s*\([^)]*\)", "", n).casefold() for n in (name, side))
    at_name, at_side = (text.casefold().find(c) for c in core)
    return not names(text, side) or 0 <= at_name < at_side


def linked(stem: str, thing: str, facts: Sequence[str], besides: str = "") -> list[str]:
    """The names a fact links to `thing` by a relation (`stem`: "direc" for "The Summer of
    Massacre was directed by Joe Castro": Joe Castro), in the order found: in each fact naming
    the thing (and not `besides`), the name the relation word is nearest, after it first
    ("directed by X, starring Y"); names joined by "and" each on its own too."""
    found: list[str] = []
    for fact in facts:
        if not stem or stem not in fact.casefold() or not names(fact, thing):
            continue
        if besides and names(fact, besides):
            continue
        at = fact.casefold().find(stem)
        named = [n for n in runs(fact) if not same(n, thing) and not names(thing, n)]
        nearest = sorted(named, key=lambda n: distance(fact, n, at))
        found += [*nearest[:1], *nearest[0].split(" and ")[1:]] if nearest else []
    return list(dict.fromkeys(found))


def relating(passages: Sequence[str], stem: str) -> list[str]:
    """Each page's sentences naming a relation (`stem`), under its title where the sentence
    does not name it ("Laila Majnu (1976 film): The film was directed by H. S. Rawail.")."""
    if not stem:
        return []
    return [
        f"{title}: {sentence}"
        for title, sentence in titled_sentences(passages)
        if stem in sentence.casefold() and not names(sentence, title)
    ]


_DESCRIBED = 5  # words that may describe a name: "the festival's founder and organiser"


def named_after(text: str) -> str:
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
