"""A person's relatives as the question asks them and the person's page says them.

"Who is the paternal grandfather of Duke Xuan Of Qin?" is his father's father: `kin_of` reads
the way ("father", "father") and the person; `relative` reads one step from a sentence of a
person's page: a father is the first parent named ("the eldest son of Duke De of Qin", "son of
Sultan Abdülaziz and his first wife", "his father X"), a mother the second ("daughter of X and
Y", "her mother Y"), a spouse whom the person married or was the wife or husband of. A
sentence about someone else's parents is no step ("His mother was the daughter of MP James
Balfour" names his mother's father).
"""

from __future__ import annotations

import re

from agents.research.names import JOINERS, leading_name, named_after

_KIN = {
    "paternal grandfather": ("father", "father"),
    "paternal grandmother": ("father", "mother"),
    "maternal grandfather": ("mother", "father"),
    "maternal grandmother": ("mother", "mother"),
    "father": ("father",),
    "mother": ("mother",),
    "husband": ("spouse",),
    "wife": ("spouse",),
    "spouse": ("spouse",),
}
KIN_STEPS = ("father", "mother", "spouse")
_ASKED = "|".join(sorted(_KIN, key=len, reverse=True))
_KIN_OF = re.compile(rf"\b({_ASKED})(?![-\w]) of ")
_S_KIN = re.compile(rf"'s ({_ASKED})(?![-\w])")
_CHILD_OF = re.compile(r"\b(?:son|daughter|child)(?: and \w+)?\s+of\s+")
_SAID = {
    "father": re.compile(r"\b(?:his|her) father(?: was|,)?\s+"),
    "mother": re.compile(r"\b(?:his|her) mother(?: was|,)?\s+"),
    "spouse": re.compile(
        r"\bmarried(?: to)?\s+|\b(?:wife|husband|spouse|consort) of\s+|\b(?:his wife|her husband)"
        r",?\s+"
    ),
}
_ANOTHERS = re.compile(r"\b(?:mother|father|wife|husband|brother|sister)\b[^.;]*$")


def kin_of(question: str) -> tuple[tuple[str, ...], str] | None:
    """The steps to the relative asked about and the person they start from ((father,
    father), "Duke Xuan Of Qin"); None when the question asks about no relative."""
    found = _KIN_OF.search(question)
    if found:
        person = re.sub(r"'s$", "", leading_name(question[found.end() :].rstrip(" ?"))).strip()
    else:
        found = _S_KIN.search(question)
        person = _name_before(question[: found.start()]) if found else ""
    return (_KIN[found[1]], person) if found and person else None


def relative(step: str, sentence: str) -> str:
    """The relative of one step ("father", "mother", "spouse") a sentence of the person's page
    names; "" when it names none."""
    said = _SAID[step].search(sentence)
    if said and not _ANOTHERS.search(sentence[: said.start()]):
        return named_after(sentence[said.end() :]).split(" and ")[0]
    if step == "spouse":
        return ""
    for found in _CHILD_OF.finditer(sentence):
        if _ANOTHERS.search(sentence[: found.start()]):
            continue  # "his mother was the daughter of …": hers, not his
        parents = sentence[found.end() :]
        first = named_after(parents)  # "Franceschetto Cybo and Maddalena de' Medici": both
        if step == "father" or " and " in first:
            return first.split(" and ")[int(step == "mother")] if first else ""
        end = parents.find(first.split()[-1]) + len(first.split()[-1]) if first else 0
        joined = re.match(r"\s*,?\s*and\s+", parents[end:])  # "X and his second wife Y"
        return named_after(parents[end + joined.end() :]) if first and joined else ""
    return ""


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
