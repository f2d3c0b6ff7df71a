"""Benchmark reports: aligned text tables for people, JSON under <home>/reports/ for machines."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain left-aligned table; floats shown with three decimals."""

    def cell(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:.3f}"
        return "-" if value is None else str(value)

    cells = [[cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, value in enumerate(row):
            widths[i] = max(widths[i], len(value))
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row in cells:
        lines.append("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines)


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
