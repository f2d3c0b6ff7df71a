"""Question forms: a request with the names and numbers it mentions replaced by {placeholders}.

    question_form('Are Darren Benjamin Shepherd and Rémi Lange both American?')
    # 'Are {name} and {name_2} both {name_3}?'

A research run's plan is a sequence of searches about the entities its question names, so a
workflow learned from one question fits another only where they ask the same kind of thing
about different entities (AWM's abstraction: example-specific values become variables).
Entities are found by their surface: quoted spans, runs of capitalised words (joined by "of",
"the", "de", ...), and numbers; a word that opens a sentence ("What", "Find") names nothing.
A run's searches are abstracted with the same names, and entities the request does not name
(what the run found along the way) become {found}.
"""

from __future__ import annotations

import re
from itertools import pairwise

# A sentence opens with a capital letter whatever the word: these openers name nothing.
_OPENERS = {
    "a", "an", "are", "as", "at", "by", "can", "compare", "could", "describe", "determine",
    "did", "do", "does", "find", "for", "from", "had", "has", "have", "how", "identify", "if",
    "in", "is", "it", "list", "look", "name", "of", "on", "search", "that", "the", "these",
    "this", "to", "was", "were", "what", "when", "where", "which", "while", "who", "whom",
    "whose", "why", "with",
}  # fmt: skip
_ARTICLES = {"the", "a", "an"}
# "and" joins two names more often than it sits inside one ("Jonny Craig and Pete Doherty"):
# a title with "and" in it is quoted, or is two names here.
_JOINERS = r"(?:of|the|de|la|von|van|der|du|del|da)"
_CAPITALISED = r"[A-Z\u00c0-\u00de][\w\u00c0-\u024f.\-–]*"
_QUOTED = r"\"[^\"]{1,80}\"|“[^”]{1,80}”|(?<!\w)'[^']{1,80}'(?!\w)"
_UNQUOTED = re.compile(
    rf"{_CAPITALISED}(?:\s+(?:{_JOINERS}\s+)*{_CAPITALISED})*"  # capitalised runs
    r"|(?<!\w)\d(?:[\d,.–-]*\d)?(?:s|st|nd|rd|th)?(?!\w)"  # numbers, years, ranges
)
_ENTITY = re.compile(f"{_QUOTED}|{_UNQUOTED.pattern}")
_PLACEHOLDER = re.compile(r"\{[a-z_0-9]+\}")


def entities(text: str, *, quoted: bool = True) -> list[str]:
    """The names and numbers `text` mentions, in order, without quotes or a sentence opener
    (`quoted=False`: a quoted span is not one name, as in a recorded call's argument)."""
    found: list[str] = []
    for match in (_ENTITY if quoted else _UNQUOTED).finditer(text):
        value = match.group(0)
        if value[0] in "\"'“":
            value = value[1:-1].strip()
        else:
            value = _without_opener(value, match.start(), text)
        value = re.sub(r"'s$", "", value).strip(" .,")
        if value and value not in found:
            found.append(value)
    return found


def _without_opener(value: str, start: int, text: str) -> str:
    """'What' at a sentence start -> ''; 'The Missouri Compromise' anywhere -> 'Missouri
    Compromise' (a later mention may drop the article)."""
    sentence_start = not text[:start].strip() or text[:start].rstrip()[-1] in ".?!:(\"'“"
    words = value.split()
    while words and (sentence_start or words[0].lower() in _ARTICLES):
        if words[0].lower() not in _OPENERS:
            break
        words = words[1:]
        sentence_start = True
    return " ".join(words)


def _replace(text: str, values: dict[str, str]) -> str:
    """`text` with every value (longest first, whole words only) replaced by its placeholder."""
    for value in sorted(values, key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", values[value], text)
    return text


def _named(values: list[str], base: str) -> dict[str, str]:
    return {v: "{" + (base if i == 0 else f"{base}_{i + 1}") + "}" for i, v in enumerate(values)}


def question_form(text: str) -> str:
    """`text` with each entity it mentions replaced by {name}, {name_2}, ... in order."""
    return " ".join(_replace(text, _named(entities(text), "name")).split())


def abstract_run(task: str, steps: list[str]) -> tuple[str, list[str]]:
    """(task's form, steps in the same names): an entity of the task keeps its placeholder in
    every step; one the task does not name becomes {found}, {found_2}, ..."""
    named = _named(entities(task), "name")
    seen = [
        e
        for s in steps
        for e in entities(_replace(s, named), quoted=False)
        if not _PLACEHOLDER.search(e)
    ]
    found = _named(list(dict.fromkeys(seen)), "found")
    return (
        " ".join(_replace(task, named).split()),
        [" ".join(_replace(_replace(s, named), found).split()) for s in steps],
    )


def form_text(text: str) -> str:
    """What a search by form embeds: `text`'s form with each placeholder an ellipsis (a
    placeholder's braces and name are syntax that every form shares)."""
    return _PLACEHOLDER.sub("…", question_form(text))


def form_key(template: str) -> str:
    """What decides that two templates are one kind of question: their words and placeholders,
    without case or punctuation ('Who was born first, {name} or {name_2}?' and the same with a
    colon for the comma are one form), and an article before a name aside ("or The {name_2}":
    a name may open with one, and the form keeps it)."""
    words = re.findall(r"\{[a-z_0-9]+\}|\w+", template.lower())
    kept = (w for w, after in pairwise([*words, ""]) if not _article_of(w, after))
    return " ".join(kept)


def _article_of(word: str, after: str) -> bool:
    return word in _ARTICLES and after.startswith("{")
