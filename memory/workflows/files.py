"""Workflow memory on disk: one AWM text file per website under <home>/workflows/, plus lookup.

`<website>.txt` holds the workflows in AWM's format (a person may edit or delete them; edits
are picked up by mtime); `<website>.meta.json` holds their provenance; `updates.jsonl` logs each
induction run over the files (memory.workflows.online/offline). Nodes reach these files through
the project's store (memory.stores.file_stores.WorkflowFileStore).
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from memory.labels import now_iso, slugify, website_stem
from memory.workflows.format import canonical_text, parse_workflows
from memory.workflows.types import Provenance, Workflow

log = logging.getLogger(__name__)


class WorkflowFiles:
    """Reads and writes <home>/workflows/*.txt; re-reads a file only when its mtime changes."""

    def __init__(self, home: str | Path) -> None:
        self.dir = Path(home) / "workflows"
        self._cache: dict[Path, tuple[tuple[int, int], list[Workflow], list[str]]] = {}

    # -- reading ---------------------------------------------------------------------------
    def files(self) -> list[Path]:
        return sorted(self.dir.glob("*.txt")) if self.dir.is_dir() else []

    def signature(self) -> tuple[tuple[str, int, int], ...]:
        """Changes whenever a file is added, edited or deleted (used to invalidate indexes)."""
        out = []
        for path in self.files():
            st = path.stat()
            out.append((path.name, st.st_mtime_ns, st.st_size))
        meta = sorted(self.dir.glob("*.meta.json")) if self.dir.is_dir() else []
        out += [(p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in meta]
        return tuple(out)

    def _read(self, path: Path) -> tuple[list[Workflow], list[str]]:
        st = path.stat()
        key = (st.st_mtime_ns, st.st_size)
        cached = self._cache.get(path)
        if cached and cached[0] == key:
            return cached[1], cached[2]
        parsed = parse_workflows(path.read_text(encoding="utf-8"), where=str(path))
        provenance = self._read_meta(path.stem)
        for w in parsed.workflows:
            meta = provenance.get(w.name)
            w.provenance = Provenance.from_dict(meta) if meta else Provenance()
            w.provenance.website = w.provenance.website or path.stem
        self._cache[path] = (key, parsed.workflows, parsed.problems)
        return parsed.workflows, parsed.problems

    def _read_meta(self, stem: str) -> dict[str, dict[str, object]]:
        path = self.dir / f"{stem}.meta.json"
        if not path.exists():
            return {}
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            log.warning("%s is not valid JSON (%s); provenance ignored", path, exc)
            return {}
        return data if isinstance(data, dict) else {}

    def problems(self) -> list[str]:
        """Every skipped block in every file, as `path:line: reason`."""
        return [p for path in self.files() for p in self._read(path)[1]]

    def load(self, website: str | None = None) -> list[Workflow]:
        """All workflows (copies are not made: treat them as read-only), optionally one site."""
        paths = [self.path_for(website)] if website else self.files()
        out: list[Workflow] = []
        for path in paths:
            if path.exists():
                out.extend(self._read(path)[0])
        return out

    def websites(self) -> list[str]:
        return [p.stem for p in self.files()]

    def find(self, name: str, website: str | None = None) -> list[Workflow]:
        wanted = slugify(name)
        return [w for w in self.load(website) if w.name == wanted]

    def path_for(self, website: str) -> Path:
        return self.dir / f"{website_stem(website)}.txt"

    # -- writing ---------------------------------------------------------------------------
    @contextmanager
    def _writing(self) -> Iterator[None]:
        """One writer at a time, across threads (parallel tasks induce at once) and processes:
        an exclusive flock on <dir>/.lock, taken on its own open file each time."""
        self.dir.mkdir(parents=True, exist_ok=True)
        with open(self.dir / ".lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def save(self, website: str, workflows: list[Workflow]) -> Path:
        """Replace a website's file with exactly these workflows (and their provenance)."""
        with self._writing():
            return self._save(website, workflows)

    def _save(self, website: str, workflows: list[Workflow]) -> Path:
        stem = website_stem(website)
        path = self.dir / f"{stem}.txt"
        if not workflows:
            path.unlink(missing_ok=True)
            (self.dir / f"{stem}.meta.json").unlink(missing_ok=True)
            self._cache.pop(path, None)
            return path
        for w in workflows:
            w.provenance.website = stem
        text = canonical_text(workflows) + "\n"
        meta = {w.name: w.provenance.to_dict() for w in workflows}
        _atomic_write(self.dir / f"{stem}.meta.json", json.dumps(meta, indent=2) + "\n")
        _atomic_write(path, text)
        self._cache.pop(path, None)
        return path

    def upsert(self, website: str, workflows: Iterable[Workflow]) -> tuple[int, int]:
        """Add new workflows and replace same-named ones; returns (added, updated)."""
        with self._writing():  # read, merge and write as one step: no update is lost
            return self._upsert(website, workflows)

    def _upsert(self, website: str, workflows: Iterable[Workflow]) -> tuple[int, int]:
        current = {w.name: w for w in self.load(website)}
        added = updated = 0
        for w in workflows:
            old = current.get(w.name)
            if old is not None:
                w.provenance.created = old.provenance.created
                w.provenance.sources = sorted(
                    set(old.provenance.sources) | set(w.provenance.sources)
                )
                w.provenance.updated = now_iso()
                if w.provenance.verification is None and w.steps == old.steps:
                    w.provenance.verification = old.provenance.verification  # same steps
                updated += 1
            else:
                added += 1
            current[w.name] = w
        self._save(website, list(current.values()))
        return added, updated

    def delete(self, name: str, website: str | None = None) -> int:
        """Delete workflows by name (in one website or all); returns how many were removed."""
        wanted = slugify(name)
        removed = 0
        with self._writing():
            for path in [self.path_for(website)] if website else self.files():
                if not path.exists():
                    continue
                kept = [w for w in self._read(path)[0] if w.name != wanted]
                gone = len(self._read(path)[0]) - len(kept)
                if gone:
                    self._save(path.stem, kept)
                    removed += gone
        return removed

    def log_update(self, entry: dict[str, object]) -> None:
        """Append one induction event to <home>/workflows/updates.jsonl (and the log)."""
        self.dir.mkdir(parents=True, exist_ok=True)
        record = {"at": datetime.now(UTC).isoformat(timespec="seconds"), **entry}
        with (self.dir / "updates.jsonl").open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record) + "\n")
        log.info("workflow memory updated: %s", record)

    def updates(self) -> list[dict[str, object]]:
        path = self.dir / "updates.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _atomic_write(path: Path, text: str) -> None:
    # Write-then-rename so a reader never sees half a file (nodes may read while induction runs).
    # a name of its own per process and thread: two writers never rename each other's file
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
