"""Is a task's result supported by what the task read? The reflector's check that needs no
model: a result that names something (a name, a title, a number) found nowhere in the question,
the task, the results it builds on, the run's evidence or the task's search results was not
read but made up, whatever the reflector's verdict says. A small model passes its own attempts
nearly always (on the dev questions the 1.5B judged every attempt good enough, among them an
acronym no passage holds), so the verdict it cannot give is taken from the evidence instead.

Matching is lenient, since a false "made up" costs a retry: case, accents, apostrophes,
thousands separators, plurals and possessives aside, a word that is not an acronym also counts
as read when a read word shares all but its last three letters, at least four ("Swedish" and
"Sweden", "American" and "America"; "VIVAP" is not read in "VIVApolska").
"""

from __future__ import annotations

import re
import unicodedata

from memory.reflections.lessons import particulars

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'"})
_THOUSANDS = re.compile(r"(?<=\d)[,\u202f\u00a0](?=\d{3}\b)")
_SUFFIX = re.compile(r"(?:'s|'|e?s)$")
# a line or a list item opens like a sentence: its first word is capitalized, not a name
_LINE_START = re.compile(r"\s*\n\s*(?:[-*•]|\d+[.)])?\s*")
_FIRST_WORD = re.compile(r"(?:^|[.!?]\s+)[\"'(]*([\w'-]+)")
# words a result capitalizes after a colon or a quote that name nothing ("Answer: Yes")
_PLAIN = set(
    "yes no true false none unknown same different insufficient found not the a an it its "
    "this that these those there they he she we i what which who whom whose when where why "
    "how both neither either answer result evidence passage source task question".split()
)
_SHORT_ANSWER_WORDS = 4
_MIN_PREFIX, _FREE_ENDING = 4, 3


def normal(text: str) -> str:
    """`text` as matching sees it: NFKC, case-folded, accents and thousands separators
    dropped, one kind of apostrophe."""
    text = unicodedata.normalize("NFKD", text.translate(_APOSTROPHES))
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return _THOUSANDS.sub("", unicodedata.normalize("NFKC", text).casefold())


def _read_as_word(word: str, seen: str, *, acronym: bool = False) -> bool:
    """Is `word` (normalized, no suffix) a word of `seen`, alone or with a plural or possessive
    ending, or (not an acronym, not a number) does a word of `seen` share its stem?"""
    if re.search(rf"(?<!\w){re.escape(word)}(?:e?s|'s?)?(?!\w)", seen):
        return True
    stem = word[: max(_MIN_PREFIX, len(word) - _FREE_ENDING)]
    loose = not acronym and not any(c.isdigit() for c in word) and len(stem) < len(word)
    return loose and re.search(rf"(?<!\w){re.escape(stem)}", seen) is not None


def _is_read(word: str, seen: str) -> bool:
    """A hyphenated compound is read when it is, or when each of its parts that is a name or a
    number is ("1980s-era", "Anglo-Saxon")."""
    if normal(word).strip("'-") in _PLAIN:
        return True
    bare = _SUFFIX.sub("", normal(word)).strip("'-") or normal(word)
    if not bare or _read_as_word(bare, seen, acronym=word.isupper() and len(word) >= 2):
        return True
    parts = [p for p in word.split("-") if p[:1].isupper() or p[:1].isdigit()]
    if "-" not in word or not parts:
        return False
    return all(_read_as_word(_SUFFIX.sub("", normal(p)) or normal(p), seen) for p in parts)


def _named(result: str) -> list[str]:
    """What `result` names: its particulars, and a sentence's first word when it looks like a
    name (all capitals or digits) or the whole result is a short answer ("VIVAP")."""
    text = _THOUSANDS.sub("", _LINE_START.sub(". ", result.translate(_APOSTROPHES)))
    found = set(particulars(text))
    short = len(text.split()) <= _SHORT_ANSWER_WORDS
    for i, first in enumerate(_FIRST_WORD.findall(text)):
        looks_named = first.isupper() and len(first) >= 2 or any(c.isdigit() for c in first)
        if (short and i == 0 and first[:1].isupper()) or looks_named:
            found.add(first)
    return sorted(found, key=text.find)


def unsupported(result: str, read: str) -> list[str]:
    """The names and numbers `result` names that `read` (everything the task saw) does not
    contain, in the order they first appear."""
    seen = normal(read)
    return [w for w in _named(result) if not _is_read(w, seen)]
