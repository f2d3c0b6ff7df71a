"""Local corpus search: a BM25 index over a folder of documents (or given passages), and its tool.

    index = CorpusIndex.load("docs/", cache)     # with a run's cache: kept until a file changes
    hits = index.search("who founded X", k=3)    # [CorpusHit(score, source, title, text)]
    index = CorpusIndex.from_passages([("Title", "text"), ...])   # e.g. HotpotQA context
    save_passages([("Title", "text"), ...], "run/corpus")  # the same as a folder for corpus_dir
    tool = make_corpus_tool("docs/", cache=cache)  # LangChain tool corpus_search(query) -> str

Supported files: .txt, .md, .html/.htm (tags and scripts stripped), .json/.jsonl (records with
"text"/"content"/"body"… and "title"; a JSON list of records works too).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agents.tools.bm25 import BM25, tokenize
from agents.tools.documents import (
    SUPPORTED_SUFFIXES,
    Passage,
    corpus_files,
    folder_passages,
    split_passages,
)
from agents.tools.search_tool import SearchTool, make_search_tool
from core.context import RunCache

log = logging.getLogger(__name__)

CORPUS_TOOL_NAME = "corpus_search"
MAX_HIT_CHARS = 1500


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
    def load(cls, folder: str | Path, cache: RunCache | None = None) -> CorpusIndex:
        """The index of `folder`; with a run's `cache`, built once per run and rebuilt only
        when its files change."""
        return _index_folder(Path(folder), cache)

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


def _index_folder(folder: Path, cache: RunCache | None) -> CorpusIndex:
    """The index of `folder`, from `cache` while no file's (path, mtime, size) changed."""
    folder = _check_folder(folder)
    files = corpus_files(folder)
    if not files:
        raise CorpusError(
            f"corpus folder {folder} has no documents: add files ending in "
            f"{', '.join(SUPPORTED_SUFFIXES)}"
        )
    signature = tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)

    def build() -> CorpusIndex:
        passages = folder_passages(folder, files)
        if not passages:
            raise CorpusError(
                f"corpus folder {folder} has {len(files)} document(s) but no text in them"
            )
        index = CorpusIndex(passages, name=folder.name)
        log.info("corpus: indexed %d passages from %d files in %s", len(index), len(files), folder)
        return index

    return cache.get(("corpus", folder, signature), build) if cache is not None else build()


def _check_folder(folder: Path) -> Path:
    folder = folder.expanduser().resolve()
    if not folder.exists():
        raise CorpusError(
            f"corpus folder {folder} does not exist: pass --corpus a folder of .txt/.md/.html/"
            ".jsonl documents"
        )
    if not folder.is_dir():
        raise CorpusError(f"corpus path {folder} is a file, not a folder: pass its parent folder")
    return folder


def make_corpus_tool(
    source: str | Path | CorpusIndex,
    *,
    k: int = 3,
    name: str = CORPUS_TOOL_NAME,
    cache: RunCache | None = None,
) -> SearchTool:
    """A `corpus_search(query) -> str` tool over a folder (checked now) or a prepared index.

    A folder is re-checked on each call, so edits to the documents are picked up (its index
    kept in the run's `cache` until they are); if it disappears the tool answers with an error
    string instead of raising.
    """
    if isinstance(source, CorpusIndex):
        index = source

        def get_index() -> CorpusIndex:
            return index
    else:
        folder = Path(source)
        CorpusIndex.load(folder, cache)  # fail fast at build time on a bad folder

        def get_index() -> CorpusIndex:
            return CorpusIndex.load(folder, cache)

    def search(query: str, k: int) -> str:
        try:
            return format_hits(get_index().search(query, k), query)
        except CorpusError as exc:
            log.warning("corpus search failed: %s", exc)
            return f"Error: {exc}"

    description = (
        "Search the local document collection. Input: a short keyword query. Returns the "
        "best-matching passages with their titles and source files."
    )
    return make_search_tool(search, name=name, description=description, k=k)
