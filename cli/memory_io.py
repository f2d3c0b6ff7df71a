"""`memory export` and `memory import`: reflections as JSON Lines, validated before anything is
stored (one bad line, duplicate id, oversized record or non-UTF-8 byte imports nothing).

Imported records carry their provenance (the file, when) and are untrusted unless `--trust`:
importance and confidence capped, quoted in prompts as data, never consolidated
(memory/reflections/provenance.py). A provenance the file itself claims is replaced."""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # heavy (pydantic, langchain): imported when a command runs
    from memory.reflections.manager import ReflectionManager
    from memory.reflections.schema import Reflection

MAX_RECORD_BYTES = 16_384  # a reflection is 2-3 sentences; 16 KB leaves room, 10 MB does not


class ImportFileError(ValueError):
    """The import file cannot be imported as it is; nothing was imported."""


def _lines(path: str) -> list[tuple[int, bytes]]:
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    return [(n, raw) for n, raw in enumerate(data.split(b"\n"), 1) if raw.strip()]


def _decode(path: str, number: int, raw: bytes, max_bytes: int) -> str:
    if len(raw) > max_bytes:
        raise ImportFileError(
            f"{path}:{number}: the record is {len(raw):,} bytes, over the {max_bytes:,}-byte "
            "limit; shorten it or raise --max-record-bytes (nothing was imported)"
        )
    try:
        return raw.decode("utf-8-sig" if number == 1 else "utf-8")  # a BOM some editors write
    except UnicodeDecodeError as exc:
        raise ImportFileError(
            f"{path}:{number}: byte 0x{raw[exc.start]:02x} at column {exc.start + 1} is not "
            "UTF-8; save the file as UTF-8 (nothing was imported)"
        ) from exc


def read_jsonl(path: str, max_bytes: int = MAX_RECORD_BYTES) -> list[Reflection]:
    """Every line validated first, so a bad file imports nothing (no half-imported memory)."""
    from pydantic import ValidationError

    from memory.reflections.schema import Reflection

    found: list[Reflection] = []
    lines_of: dict[str, list[int]] = defaultdict(list)
    for number, raw in _lines(path):
        text = _decode(path, number, raw, max_bytes)
        try:
            reflection = Reflection.model_validate(json.loads(text))
        except (json.JSONDecodeError, ValidationError, RecursionError) as exc:
            raise ImportFileError(
                f"{path}:{number}: not a valid reflection ({_reason(exc)}); nothing was imported"
            ) from exc
        found.append(reflection)
        lines_of[reflection.id].append(number)
    twice = {i: ns for i, ns in lines_of.items() if len(ns) > 1}
    if twice:
        listed = ", ".join(f"{i!r} (lines {', '.join(map(str, ns))})" for i, ns in twice.items())
        raise ImportFileError(
            f"{path}: the same id on several lines: {_cut(listed)}; keep one line per id "
            "(nothing was imported)"
        )
    return found


def _reason(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    errors = getattr(exc, "errors", None)
    if callable(errors):
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors())
    return str(exc).splitlines()[0]


def _cut(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def import_file(m: ReflectionManager, args: Any) -> dict[str, Any]:
    """Validate the whole file, refuse existing ids unless --replace, store in one transaction,
    each record marked as imported from this file (untrusted unless --trust)."""
    from memory.reflections.schema import imported

    source = "stdin" if args.file == "-" else str(Path(args.file).resolve())
    trusted = bool(getattr(args, "trust", False))
    found = [
        imported(r, source, trusted=trusted) for r in read_jsonl(args.file, args.max_record_bytes)
    ]
    existing = [r.id for r in found if m.get_reflection(r.id) is not None]
    if existing and not args.replace:
        raise ImportFileError(
            f"{args.file}: {len(existing)} ids are already in namespace {args.namespace!r} "
            f"({_cut(', '.join(map(repr, existing)), 200)}); pass --replace to overwrite them "
            "(nothing was imported)"
        )
    m.save_many(found)  # one transaction: all lines or none
    return {
        "imported": len(found),
        "replaced": len(existing),
        "trusted": trusted,
        "ids": [r.id for r in found],
    }


def export_lines(m: ReflectionManager) -> list[str]:
    return [
        json.dumps(r.model_dump(mode="json"), ensure_ascii=False) + "\n"
        for r in m.list_reflections()
    ]
