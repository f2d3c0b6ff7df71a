"""`memory export` and `memory import`: reflections as JSON Lines, validated before anything is
stored (one bad line, duplicate id, oversized record or non-UTF-8 byte imports nothing).

Imported records carry their provenance (the file, when) and are untrusted unless `--trust`:
importance and confidence capped, quoted in prompts as data, never consolidated
(memory/reflections/provenance.py). A provenance the file itself claims is replaced.

A valid file is stored in batches, one transaction each, so an import that is stopped keeps
every batch it finished; importing the same file again skips the records it already stored
(same id, same content, imported from the same file) and stores the rest. A line without an id
gets one derived from its text, so a second import finds it too."""

from __future__ import annotations

import json
import sys
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.errors import UsageError

if TYPE_CHECKING:  # heavy (pydantic, langchain): imported when a command runs
    from memory.reflections.manager import ReflectionManager
    from memory.reflections.schema import Reflection

MAX_RECORD_BYTES = 16_384  # a reflection is 2-3 sentences; 16 KB leaves room, 10 MB does not
# Records per transaction: a few seconds of embedding on the CPU, so a stopped import loses at
# most that much, and a long one says how far it got every few seconds.
IMPORT_BATCH = 256
_LINE_IDS = uuid.UUID("6f1d3c52-9a4e-4d8b-8f0e-2b7c1a5e9d40")  # namespace of ids made from text
# What decides whether a stored record is the one a line imports (the rest changes with time).
_NOT_CONTENT = {"provenance", "created_at", "last_accessed_at"}


class ImportFileError(ValueError):
    """The import file cannot be imported as it is; nothing was imported."""


def check_file_options(args: Any) -> None:
    """Refused before the store opens: an empty file name, a record limit below 1 byte."""
    action = args.memory_command
    if action in ("import", "export") and not args.file.strip():
        raise UsageError(f"memory {action}: the file name is empty: give a file, or '-'")
    if action == "import" and args.max_record_bytes < 1:
        raise UsageError(f"--max-record-bytes must be at least 1, got {args.max_record_bytes}")


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

    from core.jsonfile import JsonTooDeep, loads
    from memory.reflections.schema import Reflection

    found: list[Reflection] = []
    lines_of: dict[str, list[int]] = defaultdict(list)
    seen: Counter[str] = Counter()
    for number, raw in _lines(path):
        text = _decode(path, number, raw, max_bytes)
        try:
            data = loads(text)
            if isinstance(data, dict) and "id" not in data:
                data["id"] = _line_id(text, seen)
            reflection = Reflection.model_validate(data)
        except (json.JSONDecodeError, ValidationError, JsonTooDeep) as exc:
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


def _line_id(text: str, seen: Counter[str]) -> str:
    """A stable id for a line that has none: the same file imported twice gives the same ids
    (a random one would store the line again); equal lines are told apart by their count."""
    seen[text] += 1
    return str(uuid.uuid5(_LINE_IDS, f"{seen[text]}:{text.strip()}"))


def _reason(exc: Exception) -> str:
    from core.jsonfile import MAX_DEPTH, JsonTooDeep

    if isinstance(exc, JsonTooDeep):
        return f"nested too deeply (more than {MAX_DEPTH} levels)"
    errors = getattr(exc, "errors", None)
    if callable(errors):
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors())
    return str(exc).splitlines()[0]


def _cut(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def import_file(
    m: ReflectionManager, args: Any, say: Callable[[str], None] | None = None
) -> dict[str, Any]:
    """Validate the whole file, refuse ids other records hold unless --replace, then store the
    records this file has not stored yet, IMPORT_BATCH per transaction, each marked as imported
    from this file (untrusted unless --trust). `say` hears how far a long import got."""
    from memory.reflections.schema import imported

    source = "stdin" if args.file == "-" else str(Path(args.file).resolve())
    trusted = bool(getattr(args, "trust", False))
    found = [
        imported(r, source, trusted=trusted) for r in read_jsonl(args.file, args.max_record_bytes)
    ]
    stored, existing = _already_stored(m, found)
    if existing and not args.replace:
        raise ImportFileError(
            f"{args.file}: {len(existing)} ids are already in namespace {args.namespace!r} "
            f"({_cut(', '.join(map(repr, existing)), 200)}); pass --replace to overwrite them "
            "(nothing was imported)"
        )
    todo = [r for r in found if r.id not in stored]
    tell = say if say is not None and len(todo) > IMPORT_BATCH else None
    if tell is not None:
        skipped = f", {len(stored):,} already stored by an earlier import" if stored else ""
        tell(
            f"{len(found):,} valid records{skipped}; storing {len(todo):,} in batches of "
            f"{IMPORT_BATCH} (if stopped, the stored batches stay: run the import again)"
        )
    for start in range(0, len(todo), IMPORT_BATCH):
        m.save_many(todo[start : start + IMPORT_BATCH])  # one transaction per batch
        if tell is not None:
            tell(f"{min(start + IMPORT_BATCH, len(todo)):,} of {len(todo):,} stored")
    return {
        "imported": len(todo),
        "already_imported": len(stored),
        "replaced": len(existing),
        "trusted": trusted,
        "ids": [r.id for r in todo],
    }


def tell(line: str) -> None:
    """How far a long import got, on stderr (stdout carries its result)."""
    print(f"memory import: {line}", file=sys.stderr, flush=True)


def _already_stored(m: ReflectionManager, found: list[Reflection]) -> tuple[set[str], list[str]]:
    """(ids whose stored record is this very line, imported from the same file with the same
    trust: an earlier run of this import; ids other records hold)."""
    same: set[str] = set()
    other: list[str] = []
    for r in found:
        held = m.get_reflection(r.id)
        if held is None:
            continue
        if _same_import(held, r):
            same.add(r.id)
        else:
            other.append(r.id)
    return same, other


def _same_import(held: Reflection, new: Reflection) -> bool:
    mine, theirs = held.provenance, new.provenance
    return (
        mine.origin == "import"
        and (mine.file, mine.trusted) == (theirs.file, theirs.trusted)
        and held.model_dump(mode="json", exclude=_NOT_CONTENT)
        == new.model_dump(mode="json", exclude=_NOT_CONTENT)
    )


def export_lines(m: ReflectionManager) -> list[str]:
    return [
        json.dumps(r.model_dump(mode="json"), ensure_ascii=False) + "\n"
        for r in m.list_reflections()
    ]
