"""Reading a user's JSON input file with errors that name the file and what is wrong."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.jsonfile import JsonFileError, read_json_file


def read_json(path: Path, what: str, error: type[Exception]) -> Any:
    """The parsed file, or `error(...)` naming it: missing, a folder, unreadable, not UTF-8, not
    valid JSON, or nested too deeply (core.jsonfile)."""
    try:
        return read_json_file(path, what)
    except JsonFileError as exc:
        raise error(str(exc)) from exc
