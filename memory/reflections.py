"""ReflectionManager: save, fetch and retrieve reflections, and format them for prompts.

This first version keeps reflections in process and ranks them by word overlap; the persistent,
vector-searched store replaces the backing while keeping this API.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memory.schema import Reflection

_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if len(w) > 2}


def format_reflections(reflections: Iterable[Reflection]) -> str:
    """The seed's prompt form: <ref_i><task>…</task><reflection>…</reflection></ref_i>."""
    blocks = [
        f"<ref_{i}>\n<task>{r.task}</task>\n<reflection>{r.reflection}</reflection>\n</ref_{i}>"
        for i, r in enumerate(reflections)
    ]
    return "\n".join(blocks)


class ReflectionManager:
    """The seed's API: save_reflection, get_reflection, get_relevant_reflections, format."""

    def __init__(self) -> None:
        self._records: dict[str, Reflection] = {}

    def save_reflection(self, reflection: Reflection) -> str:
        self._records[reflection.id] = reflection
        return reflection.id

    def get_reflection(self, reflection_id: str) -> Reflection | None:
        return self._records.get(reflection_id)

    def get_relevant_reflections(self, query: str, k: int = 3) -> list[Reflection]:
        wanted = _words(query)
        scored = [
            (len(wanted & _words(r.task + " " + r.reflection)), i, r)
            for i, r in enumerate(self._records.values())
        ]
        scored = [s for s in scored if s[0] > 0]
        scored.sort(key=lambda s: (-s[0], -s[1]))
        return [r for _, _, r in scored[:k]]

    def list_reflections(self) -> list[Reflection]:
        return list(self._records.values())

    def format_reflections(self, reflections: Iterable[Reflection]) -> str:
        return format_reflections(reflections)
