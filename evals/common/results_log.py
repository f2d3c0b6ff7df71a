"""Resumable results: one JSON line per finished item, appended as it finishes.

A rerun with the same file reads the keys already there and skips them, so a long experiment
that was stopped continues where it left off. The run's settings are kept beside the file
(`<file>.settings.json`); a rerun with different settings is refused rather than mixing two
experiments in one file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any


class ResultsLogError(ValueError):
    """The results file cannot be resumed (unreadable line, or other settings)."""


class ResultsLog:
    """`<path>` (JSON Lines); every record has a unique `key`."""

    def __init__(self, path: str | Path, settings: Mapping[str, Any] | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._records = self._read()
        if settings is not None:
            self._check_settings(dict(settings))

    def _read(self) -> dict[str, dict[str, Any]]:
        if not self.path.exists():
            return {}
        text = self.path.read_text(encoding="utf-8")
        if text and not text.endswith("\n"):
            # A run killed mid-write leaves a torn last line: drop it (that item runs again),
            # so the next append starts on a line of its own.
            text = text[: text.rfind("\n") + 1]
            self.path.write_text(text, encoding="utf-8")
        records: dict[str, dict[str, Any]] = {}
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                records[str(record["key"])] = record
            except (json.JSONDecodeError, KeyError, TypeError) as exc:
                raise ResultsLogError(
                    f"{self.path}:{number}: not a results record ({exc})"
                ) from exc
        return records

    def _check_settings(self, settings: dict[str, Any]) -> None:
        side = self.path.with_name(self.path.name + ".settings.json")
        wanted = json.loads(json.dumps(settings, default=str))
        if side.exists():
            before = json.loads(side.read_text(encoding="utf-8"))
            changed = sorted(k for k in set(before) | set(wanted) if before.get(k) != wanted.get(k))
            if changed and self._records:
                shown = ", ".join(f"{k}: {before.get(k)!r} -> {wanted.get(k)!r}" for k in changed)
                raise ResultsLogError(
                    f"{self.path} holds results of a run with other settings ({shown}); "
                    "use another output path, or the same settings to resume"
                )
        side.write_text(json.dumps(wanted, indent=2, sort_keys=True) + "\n", encoding="utf-8")

    def __contains__(self, key: str) -> bool:
        return key in self._records

    def __len__(self) -> int:
        return len(self._records)

    def records(self) -> list[dict[str, Any]]:
        return list(self._records.values())

    def records_by_key(self) -> dict[str, dict[str, Any]]:
        return dict(self._records)

    def append(self, record: Mapping[str, Any]) -> None:
        """Write one record and make it durable before returning (a kill keeps it)."""
        if "key" not in record:
            raise ValueError("a results record needs a 'key'")
        line = json.dumps(dict(record), ensure_ascii=False, default=str)
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        self._records[str(record["key"])] = json.loads(line)
