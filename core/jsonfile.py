"""JSON that a person gives (an option's file, a hand-editable record) read with a depth limit:
every way such a file can be unusable is one JsonFileError naming the file and what is wrong.

    value = read_json_file("mcp.json", "--mcp")   # JsonFileError: missing, a folder, not
                                                  # UTF-8, not JSON, nested too deeply
    value = loads(text)                           # json.JSONDecodeError or JsonTooDeep
    text = read_text("plan.txt", "--plan")        # JsonFileError: missing, a folder, not UTF-8

Python's json parser recurses once per level and, near 1,000 levels (less when called deep in
a stack), raises RecursionError, which no caller expects from a file; values a little less deep
parse, then overflow the first code that walks them recursively (pydantic, json.dumps). So the
depth is checked after parsing, against one documented limit, and RecursionError is reported as
the same error.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_DEPTH",
    "JsonFileError",
    "JsonTooDeep",
    "depth_over",
    "loads",
    "read_json_file",
    "read_text",
]

# Configuration files, plans, run records and benchmark data nest fewer than 10 levels.
MAX_DEPTH = 100


class JsonTooDeep(ValueError):
    """A JSON value nested deeper than the limit."""


class JsonFileError(ValueError):
    """A JSON file cannot be used as it is; the message names the file and says why."""


def depth_over(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` nests lists and objects more than `limit` levels deep (no recursion)."""
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if level > limit:
            return True
        stack.extend((c, level + 1) for c in children if isinstance(c, dict | list))
    return False


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """json.loads that raises JsonTooDeep, not RecursionError, for deeply nested input."""
    too_deep = JsonTooDeep(f"nested more than {max_depth} levels deep")
    try:
        value = json.loads(text)
    except RecursionError:
        raise too_deep from None
    if depth_over(value, max_depth):
        raise too_deep
    return value


def read_text(path: str | Path, what: str) -> str:
    """The UTF-8 text of `path`; JsonFileError ("<what> <path>: ...") when it is missing, a
    folder, unreadable or not UTF-8 (for a file that may hold JSON or plain text)."""
    file = Path(path).expanduser()
    if file.is_dir():
        raise JsonFileError(f"{what} {file} is a folder: give a file")
    try:
        return file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise JsonFileError(f"{what} {file} does not exist") from None
    except OSError as exc:
        raise JsonFileError(f"{what} {file}: cannot read it: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise JsonFileError(
            f"{what} {file} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
            f"{exc.start}): save it as UTF-8"
        ) from exc


def read_json_file(path: str | Path, what: str, max_depth: int = MAX_DEPTH) -> Any:
    """The parsed content of `path`; JsonFileError ("<what> <path>: ...") when it is missing, a
    folder, unreadable, not UTF-8, not JSON or nested deeper than `max_depth`."""
    file = Path(path).expanduser()
    text = read_text(file, what)
    try:
        return loads(text, max_depth)
    except json.JSONDecodeError as exc:
        raise JsonFileError(f"{what} {file} is not valid JSON: {exc}") from exc
    except JsonTooDeep as exc:
        raise JsonFileError(f"{what} {file} is {exc}") from exc
