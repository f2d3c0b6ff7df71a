"""How a bench prints its result: one JSON object with --json, else one `key: value` line each."""

from __future__ import annotations

import json
from typing import Any


def print_result(result: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(result))
        return
    for key, value in result.items():
        print(f"{key}: {value}")
