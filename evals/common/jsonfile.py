"""Reading a user's JSON input file with errors that name the file and what is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_json(path: Path, what: str, error: type[Exception]) -> Any:
    """The parsed file, or `error("<what> <path> does not exist" | "... is not valid JSON")`."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise error(f"{what} {path} does not exist") from exc
    except json.JSONDecodeError as exc:
        raise error(f"{what} {path} is not valid JSON: {exc}") from exc
