"""Is a task's result supported by what the task read? The reflector's check that needs no
model: a result that names something (a name, a title, a number) found nowhere in the question,
the task, the run's evidence or the task's search results was not read but made up, whatever
the reflector's verdict says. A small model passes its own attempts nearly always (on the dev
questions the 1.5B judged every attempt good enough, among them an acronym no passage holds), so
the verdict it cannot give is taken from the evidence instead.
"""

from __future__ import annotations

import re

from memory.reflections.lessons import particulars

_POSSESSIVE = re.compile(r"['’]s?$")
# a line or a list item opens like a sentence: its first word is capitalized, not a name
_LINE_START = re.compile(r"\s*\n\s*(?:[-*•]|\d+[.)])?\s*")
# words a result capitalizes after a colon or a quote that name nothing ("Answer: Yes")
_PLAIN = set(
    "yes no true false none unknown the a an it its this that these those there they he she "
    "we i what which who whom whose when where why how both neither either not".split()
)


def _forms(word: str) -> list[str]:
    """How a named word may appear in the evidence: as written, without a possessive, and each
    part of a hyphenated compound."""
    bare = _POSSESSIVE.sub("", word.lower()).strip("'’-")
    return [bare, *[p for p in bare.split("-") if len(p) >= 2]] if bare else []


def _in(form: str, seen: str) -> bool:
    """Is `form` a word of `seen` (lower case), alone or with a plural or possessive ending?
    Not a part of a longer word: "VIVAP" is not read in "VIVApolska"."""
    return re.search(rf"(?<!\w){re.escape(form)}(?:e?s|['’]s?)?(?!\w)", seen) is not None


def unsupported(result: str, read: str) -> list[str]:
    """The particulars `result` names that `read` (everything the task saw) does not contain
    as a word, in the order they first appear; matching ignores case, plurals and
    possessives, and a hyphenated compound counts as read when all its parts were."""
    seen = read.lower()
    missing = []
    for word in sorted(particulars(_LINE_START.sub(". ", result)), key=result.find):
        forms = _forms(word)
        if not forms or forms[0] in _PLAIN or _in(forms[0], seen):
            continue
        parts = forms[1:]
        if parts and all(_in(p, seen) for p in parts):
            continue
        missing.append(word)
    return missing
