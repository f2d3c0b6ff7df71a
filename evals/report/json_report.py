"""Benchmark reports for machines: one JSON file per run under <home>/reports/."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def reports_dir(home: str | Path) -> Path:
    path = Path(home) / "reports"
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_report(home: str | Path, name: str, payload: Mapping[str, Any]) -> Path:
    """Write `payload` (plus name and UTC time) to <home>/reports/<name>-<timestamp>.json."""
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
        raise ValueError(f"report name {name!r} may use only letters, digits, '.', '_' and '-'")
    now = datetime.now(UTC)
    path = reports_dir(home) / f"{name}-{now.strftime('%Y%m%dT%H%M%S%fZ')}.json"
    body = {"benchmark": name, "created_at": now.isoformat(), **payload}
    text = json.dumps(body, indent=2, ensure_ascii=False, default=str)
    path.write_text(text + "\n", encoding="utf-8")
    return path
