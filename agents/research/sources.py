"""Sources in search results: which documents or pages a run read, and passages not yet shown.

Search tools return numbered hits whose first line names their source: the corpus as
`[n] Title (source: file.md)`, web search as `[n] Title (https://…)`. A run keeps the sources it
read, so its final answer names only those; a task's own search shows only the passages the
run's evidence does not already hold.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agents.research.support import unsupported
from prompts.research import SAME_AS_EVIDENCE

_HIT_START = re.compile(r"\n\n(?=\[\d+\] )")
_NUMBER = re.compile(r"^\[\d+\] ")
_HEADER = re.compile(r"^\[\d+\] (.+)$", re.M)
_SOURCE = re.compile(r"\((?:source: )?([^()\s]+)\)\s*$")
_SECTION = re.compile(r"(<([\w-]+)>\n)(.*?)(\n</\2>)", re.S)


def headers(text: str) -> list[str]:
    """Each hit's first line without its number: `Title (source)`."""
    return [h.strip() for h in _HEADER.findall(text)]


def sources_in(text: str) -> list[str]:
    """The sources the hits in `text` name, in order, once each."""
    found = (m.group(1) for h in headers(text) if (m := _SOURCE.search(h)))
    return unique(found)


def unique(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item and item not in out:
            out.append(item)
    return out


def beyond(found: str, shown: str, read: Iterable[str] = ()) -> str:
    """`found` (search sections) without the hits `shown` already holds, nor those in `read`
    (whole hits, as `hits` gives them); a section left with no hit says so."""
    known = set(headers(shown)) | {hit.split("\n", 1)[0].strip() for hit in read}

    def keep_new(match: re.Match[str]) -> str:
        opening, _, body, closing = match.groups()
        hits = _HIT_START.split(body)
        new = [h for h in hits if not (headers(h) and headers(h)[0] in known)]
        return opening + ("\n\n".join(new) if new else SAME_AS_EVIDENCE) + closing

    return _SECTION.sub(keep_new, found)


def hits(found: str) -> list[str]:
    """Each hit in `found`'s search sections, whole (its header line, unnumbered, and its
    passage), in order, once each (two searches number one passage differently); a section
    that only says its passages were already shown gives none."""
    out: list[str] = []
    for match in _SECTION.finditer(found):
        body = match.group(3).strip()
        if body and body != SAME_AS_EVIDENCE:
            found_hits = _HIT_START.split("\n\n" + body)
            out.extend(_NUMBER.sub("", h.strip(), count=1) for h in found_hits if headers(h))
    return unique(out)


def says_only_known(found: str) -> bool:
    """Is every section of `found` either empty or all passages already shown?"""
    bodies = [m.group(3) for m in _SECTION.finditer(found)]
    return bool(bodies) and all(b.strip() == SAME_AS_EVIDENCE for b in bodies)


def title_and_source(hit: str) -> tuple[str, str]:
    """A hit's title and source, from its first line (`Title (source: file.md)`; "" when it
    names no source)."""
    header = hit.split("\n", 1)[0].strip()
    match = _SOURCE.search(header)
    return (header[: match.start()].strip(), match.group(1)) if match else (header, "")


def cited(answer: str, evidence: str) -> str:
    """`answer` with the sources of the passages that hold its words (none: the answer alone)."""
    if not answer:
        return ""
    holding = [hit for hit in hits(evidence) if not unsupported(answer, hit)]
    sources = unique(title_and_source(hit)[1] for hit in holding)
    return f"{answer}\n\nSources: {', '.join(sources)}" if sources else answer
