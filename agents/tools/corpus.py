"""Local corpus search: a BM25 index over a folder of documents (or given passages), and its tool.

    index = CorpusIndex.load("docs/", cache)     # with a run's cache: kept until the folder changes
    hits = index.search("who founded X", k=3)    # [CorpusHit(score, source, title, text)]
    index = CorpusIndex.from_passages([("Title", "text"), ...])   # e.g. HotpotQA context
    save_passages([("Title", "text"), ...], "run/corpus")  # the same as a folder for corpus_dir
    tool = make_corpus_tool("docs/", cache=cache)  # LangChain tool corpus_search(query) -> str

Supported files: .txt, .md, .html/.htm (tags and scripts stripped), .json/.jsonl (records with
"text"/"content"/"body"… and "title"; a JSON list of records works too). Only files really
inside the folder are read (agents/tools/corpus_scan.py); a link that leads out is skipped and
reported once per run.

With a run's cache a search does not walk the folder: it compares the mtimes of the folder and
its subfolders (a file added, removed or renamed, which is also how most editors save), and
every `recheck_s` seconds the (mtime, size) of every file (an edit in place).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agents.tools.bm25 import BM25, tokenize
from agents.tools.corpus_scan import SUPPORTED_SUFFIXES, Scan, over_limit, scan
from agents.tools.documents import Passage, Progress, folder_passages, split_passages
from agents.tools.search_tool import SearchTool, make_search_tool
from core.context import RunCache

log = logging.getLogger(__name__)

CORPUS_TOOL_NAME = "corpus_search"
MAX_HIT_CHARS = 1500
RECHECK_S = 5.0  # how stale an edit in place (no file added or renamed) may be, at most
PROGRESS_PASSAGES = 10_000  # two million words: a few seconds of indexing on 2 cores


class CorpusError(ValueError):
    """The corpus cannot be used (missing folder, no documents); the message says what to do."""


@dataclass(frozen=True)
class CorpusHit:
    """One ranked passage."""

    score: float
    source: str
    title: str
    text: str


class CorpusIndex:
    """Passages ranked by BM25 over their title and text."""

    def __init__(self, passages: Sequence[Passage], *, name: str = "corpus"):
        self.name = name
        self.passages = list(passages)
        # The title is indexed with the text: questions often name the document's subject.
        self._bm25 = BM25([tokenize(f"{p.title}\n{p.text}") for p in self.passages])

    def __len__(self) -> int:
        return len(self.passages)

    @classmethod
    def load(
        cls,
        folder: str | Path,
        cache: RunCache | None = None,
        *,
        recheck_s: float = RECHECK_S,
        progress: Progress | None = None,
    ) -> CorpusIndex:
        """The index of `folder`; with a run's `cache`, built once per run and rebuilt only
        when the folder changes (its files re-checked at most every `recheck_s` seconds, as
        set by the run's first load of the folder). `progress` hears how far a long build got
        (documents.folder_passages), if this load builds."""
        return _watched(Path(folder), cache, recheck_s).current(progress)

    @classmethod
    def from_passages(
        cls, items: Iterable[tuple[str, str]], *, name: str = "passages"
    ) -> CorpusIndex:
        """An index over in-memory (title, text) documents; the title doubles as the source."""
        passages = [
            Passage(title, title, chunk) for title, text in items for chunk in split_passages(text)
        ]
        if not passages:
            raise CorpusError("no text to index: every given passage was empty")
        return cls(passages, name=name)

    def search(self, query: str, k: int = 3) -> list[CorpusHit]:
        """The k best passages for `query`, best first (fewer if fewer share a word with it)."""
        return [
            CorpusHit(score, self.passages[i].source, self.passages[i].title, self.passages[i].text)
            for i, score in self._bm25.top(tokenize(query), max(1, k))
        ]


def save_passages(items: Iterable[tuple[str, str]], folder: str | Path) -> Path:
    """Write (title, text) documents to `folder`/passages.jsonl, a folder CorpusIndex.load reads.

    For callers that configure tools by folder (Context.corpus_dir), e.g. one folder per
    HotpotQA question holding its ten context paragraphs.
    """
    path = Path(folder) / "passages.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps({"title": title, "text": text}, ensure_ascii=False) for title, text in items
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def format_hits(hits: Sequence[CorpusHit], query: str, *, max_chars: int = MAX_HIT_CHARS) -> str:
    """Hits as numbered blocks naming title and source; a helpful line when there are none."""
    if not hits:
        return f"No passage in the corpus matches {query!r}. Try other or fewer keywords."
    blocks = []
    for n, hit in enumerate(hits, 1):
        text = hit.text if len(hit.text) <= max_chars else hit.text[:max_chars].rstrip() + " …"
        blocks.append(f"[{n}] {hit.title} (source: {hit.source})\n{text}")
    return "\n\n".join(blocks)


class FolderIndex:
    """One folder's index for a run: rebuilt when a cheap check says the folder changed."""

    def __init__(self, folder: Path, recheck_s: float = RECHECK_S) -> None:
        self.folder, self.recheck_s = folder, recheck_s
        self.clock = time.monotonic
        self.reported: set[str] = set()  # links out of the folder already reported
        self._lock = threading.Lock()
        self._index: CorpusIndex | None = None
        self._scan: Scan | None = None
        self._signature: tuple[tuple[str, int, int], ...] | None = None
        self._checked = 0.0

    def current(self, progress: Progress | None = None) -> CorpusIndex:
        with self._lock:
            if self._index is None or self._changed():
                self._index = self._build(progress)
            return self._index

    def _changed(self) -> bool:
        assert self._scan is not None
        if not self.folder.is_dir() or self._scan.dirs_changed():
            return True
        if self.clock() - self._checked < self.recheck_s:
            return False
        self._checked = self.clock()
        return self._scan.signature() != self._signature

    def _build(self, progress: Progress | None = None) -> CorpusIndex:
        folder = _check_folder(self.folder)
        found = scan(folder)
        signature = found.signature()
        passages = folder_passages(folder, found.files, found.escapes, progress)
        self._report(found.escapes)
        if not found.files:
            raise CorpusError(_no_documents(folder, found))
        if not passages:
            raise CorpusError(
                f"corpus folder {folder} has {len(found.files)} document(s) but no text in them"
            )
        if progress is not None and len(passages) >= PROGRESS_PASSAGES:
            progress(f"building the search index over {len(passages):,} passages")
        index = CorpusIndex(passages, name=folder.name)
        log.info(
            "corpus: indexed %d passages from %d files in %s", len(index), len(found.files), folder
        )
        self._scan, self._signature, self._checked = found, signature, self.clock()
        return index

    def _report(self, escapes: dict[str, str]) -> None:
        """One warning per run for the links out of the folder not reported yet."""
        new = {name: to for name, to in escapes.items() if name not in self.reported}
        if new:
            self.reported.update(new)
            listed = ", ".join(f"{name} -> {to}" for name, to in sorted(new.items()))
            log.warning(
                "corpus: skipped %d link(s) leading outside %s (never read): %s",
                len(new),
                self.folder,
                listed,
            )


def _no_documents(folder: Path, found: Scan) -> str:
    """Why a folder gives the index nothing: no file it reads, or only files too large."""
    if found.too_large:
        skipped = "; ".join(f"{n} is {over_limit(size)}" for n, size in found.too_large.items())
        return f"corpus folder {folder} has no document that can be indexed: {skipped}"
    return (
        f"corpus folder {folder} has no documents: add files ending in "
        f"{', '.join(SUPPORTED_SUFFIXES)}"
    )


def _watched(folder: Path, cache: RunCache | None, recheck_s: float = RECHECK_S) -> FolderIndex:
    """The run's FolderIndex of `folder` (a new one without a cache)."""
    path = _check_folder(folder)
    if cache is None:
        return FolderIndex(path, recheck_s)
    found: FolderIndex = cache.get(("corpus", path), lambda: FolderIndex(path, recheck_s))
    return found


def _check_folder(folder: Path) -> Path:
    folder = folder.expanduser().resolve()
    if not folder.exists():
        raise CorpusError(
            f"corpus folder {folder} does not exist: give a folder of .txt/.md/.html/.json/"
            ".jsonl documents"
        )
    if not folder.is_dir():
        raise CorpusError(f"corpus path {folder} is a file, not a folder: give its parent folder")
    return folder


def make_corpus_tool(
    source: str | Path | CorpusIndex,
    *,
    k: int = 3,
    name: str = CORPUS_TOOL_NAME,
    cache: RunCache | None = None,
) -> SearchTool:
    """A `corpus_search(query) -> str` tool over a folder (checked now) or a prepared index.

    A folder's index is kept (in the run's `cache` when given) and rebuilt when the folder
    changes (FolderIndex); if it disappears the tool answers with an error string instead of
    raising.
    """
    if isinstance(source, CorpusIndex):
        index = source

        def get_index() -> CorpusIndex:
            return index
    else:
        watched = _watched(Path(source), cache)
        watched.current()  # fail fast at build time on a bad folder
        get_index = watched.current

    def search(query: str, k: int) -> str:
        try:
            return format_hits(get_index().search(query, k), query)
        except (CorpusError, OSError) as exc:
            log.warning("corpus search failed: %s", exc)
            return f"Error: {exc}"

    description = (
        "Search the local document collection. Input: a short keyword query. Returns the "
        "best-matching passages with their titles and source files."
    )
    return make_search_tool(search, name=name, description=description, k=k)
