"""The values a workflow call may take: candidate strings from the task text and the page.

A small model fills a workflow's arguments from an enum, never free text. A placeholder that
names an element (`click # checkbox '{checkbox}'`) may only be the name of such an element on
the current page, those the task mentions first; a value to type (`{username}`) may be a quoted
string or a word of the task, nearest after the placeholder's own words first ('the username
"ada" and the password "x"' puts "ada" first for {username} and "x" first for {password}).
When the task is an instance of the workflow's own template (its description with the
placeholders, e.g. 'Enter "{text}" into the text field'), the value the template lines up with
is the only candidate: the task says it outright.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache

MAX_CANDIDATES = 20
_LINE = re.compile(r"^\s*\[(\d+)\] (\S+) ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")", re.MULTILINE)
_QUOTED = re.compile(r'"([^"]+)"|“([^”]+)”')
_TOKEN = re.compile(r"[^\s,;:!?()\"“”]+")


@dataclass(frozen=True)
class Param:
    """A workflow placeholder; `role` is set when it stands for an element's name."""

    name: str
    role: str | None = None


def page_elements(observation: str) -> list[tuple[str, str, str]]:
    """(id, role, name) of every tree line of an observation, in page order."""
    out = []
    for node_id, role, quoted in _LINE.findall(observation):
        try:
            out.append((node_id, role, str(ast.literal_eval(quoted))))
        except (ValueError, SyntaxError):  # a name the tree did not quote cleanly: skip it
            continue
    return out


def _mentioned(value: str, task: str) -> int:
    """Where the task mentions `value` as a whole phrase (-1 when it does not)."""
    found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", task)
    return found.start() if found else -1


def task_values(task: str) -> list[str]:
    """Quoted strings first, then the task's words (trailing punctuation dropped)."""
    quoted = [a or b for a, b in _QUOTED.findall(task)]
    words = [w.rstrip(".'") for w in _TOKEN.findall(task)]
    return list(dict.fromkeys(v for v in quoted + words if v.strip()))


def _after_words(param: str, value: str, task: str) -> float:
    """Characters from the end of the nearest mention of the param's words to `value`."""
    lowered = task.lower()
    best = float("inf")
    for word in filter(None, re.split(r"[_\-\s]+", param.lower())):
        for mention in re.finditer(re.escape(word), lowered):
            at = task.find(value, mention.end())
            if at >= 0:
                best = min(best, at - mention.end())
    return best


_NO_QUOTE = '[^"“”]+?'
MAX_ALIGNED_CHARS = 600  # longer tasks are not lined up (the match would only get slower)


def aligned(template: str, task: str) -> dict[str, str]:
    """Placeholder values where the whole task reads as `template` ({} when it does not).

    The template may carry a preamble ("A successful run of: …"); spaces and case are loose.
    Templates with two placeholders side by side ("{first} {last}") are ambiguous: {}.
    """
    return dict(_aligned(template, task))


@lru_cache(maxsize=512)
def _aligned(template: str, task: str) -> tuple[tuple[str, str], ...]:
    task = task.strip().rstrip(".").strip()
    if len(task) > MAX_ALIGNED_CHARS:
        return ()
    for text in dict.fromkeys([template, template.split(": ", 1)[-1]]):
        parts = re.split(r"\{([^{}]+)\}", text.strip().rstrip("."))
        literals, names = parts[0::2], parts[1::2]
        if not names or any(not lit.strip() for lit in literals[1:-1]):
            continue
        if not _in_order([" ".join(lit.split()).lower() for lit in literals], task.lower()):
            continue  # cheap check before the regex
        pattern, first = "", dict[str, int]()
        for i, part in enumerate(parts):
            if i % 2 == 0:
                pattern += r"\s+".join(map(re.escape, part.split(" ")))
            elif part in first:
                pattern += f"(?P=g{first[part]})"
            else:
                first[part] = i
                quoted = parts[i - 1].endswith(('"', "“"))  # a quoted value holds no quote
                pattern += f"(?P<g{i}>{_NO_QUOTE if quoted else '.+?'})"
        found = re.fullmatch(pattern, task, re.IGNORECASE | re.DOTALL)
        if found:
            values = tuple((name, found.group(f"g{at}").strip()) for name, at in first.items())
            return values if all(v for _, v in values) else ()
    return ()


def _in_order(literals: list[str], text: str) -> bool:
    at = 0
    for literal in filter(None, (lit.strip() for lit in literals)):
        at = text.find(literal, at)
        if at < 0:
            return False
        at += len(literal)
    return True


def candidates(
    param: Param,
    task: str,
    observation: str,
    limit: int = MAX_CANDIDATES,
    template: str = "",
) -> list[str]:
    """The enum for one placeholder, most likely first; [] when nothing could fill it."""
    first = aligned(template, task).get(param.name) if template else None
    found = _candidates(param, task, observation, limit)
    if first is None or (param.role is not None and first not in found):
        return found
    return [first]


def _candidates(param: Param, task: str, observation: str, limit: int) -> list[str]:
    if param.role is not None:
        names = [n for _, role, n in page_elements(observation) if role == param.role and n]
        names = list(dict.fromkeys(names))
        # The task's own words first, in the order it says them.
        mentioned = sorted(
            (n for n in names if _mentioned(n, task) >= 0), key=lambda n: _mentioned(n, task)
        )
        return (mentioned + [n for n in names if n not in mentioned])[:limit]
    values = task_values(task)
    order = {v: i for i, v in enumerate(values)}
    ranked = sorted(values, key=lambda v: (_after_words(param.name, v, task), order[v]))
    return ranked[:limit]
