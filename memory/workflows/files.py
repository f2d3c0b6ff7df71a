"""Workflows as files: one AWM text file per website under FOLDER/workflows/.

`<website>.txt` holds the workflows in AWM's format (a person may edit or delete them; edits
are picked up by mtime); `<website>.meta.json` holds their provenance. This is how workflows
are exported and imported (memory.exchange); the store holds them (memory.agent_memory).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path

from memory.labels import website_stem
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

    def path_for(self, website: str) -> Path:
        return self.dir / f"{website_stem(website)}.txt"

    # -- writing ---------------------------------------------------------------------------
    def save(self, website: str, workflows: list[Workflow]) -> Path:
        """Replace a website's file with exactly these workflows (and their provenance); each
        file is written whole and renamed into place, so a reader never sees half of one."""
        self.dir.mkdir(parents=True, exist_ok=True)
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


def _atomic_write(path: Path, text: str) -> None:
    # Write-then-rename so a reader never sees half a file (nodes may read while induction runs).
    # a name of its own per process and thread: two writers never rename each other's file
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
