"""Parse documents (txt, md, html, json, jsonl) into titled passages; files are read through the
corpus jail (agents/tools/corpus_scan.py), never outside the corpus folder."""

from __future__ import annotations

import json
import logging
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from agents.tools.corpus_scan import CorpusEscape, read_inside, shown
from core.jsonfile import MAX_DEPTH, JsonTooDeep, loads

log = logging.getLogger(__name__)

TEXT_FIELDS = ("text", "content", "body", "passage", "sentences", "paragraphs", "abstract")
MAX_PASSAGE_WORDS = 200
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# How often a long indexing says how far it got (folder_passages): about every few seconds.
PROGRESS_BYTES = 4_000_000
PROGRESS_FILES = 1_000

Progress = Callable[[str], None]  # takes one line about how far an indexing got


@dataclass(frozen=True)
class Passage:
    """One searchable chunk: where it came from, its document's title, and its text."""

    source: str
    title: str
    text: str


class _HTMLText(HTMLParser):
    """Collects visible text, one line per block element; drops scripts, styles and the head."""

    SKIP = {"script", "style", "noscript", "template", "svg", "head", "iframe"}
    BLOCK = {
        "p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header",
        "footer", "nav", "aside", "main", "blockquote", "pre", "dd", "dt", "figcaption",
        "h1", "h2", "h3", "h4", "h5", "h6", "hr", "form",
    }  # fmt: skip

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self.first_h1 = ""
        self._skip_depth = 0
        self._in_title = False
        self._in_h1 = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in self.SKIP:
            self._skip_depth += 1
        elif tag in self.BLOCK:
            self.parts.append("\n\n" if tag in ("p", "h1", "h2", "h3", "section") else "\n")
        self._in_h1 = self._in_h1 or tag == "h1"

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self.SKIP:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in self.BLOCK:
            self.parts.append("\n")
        if tag == "h1":
            self._in_h1 = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif self._skip_depth == 0:
            self.parts.append(data)
            if self._in_h1 and not self.first_h1:
                self.first_h1 = data.strip()


def html_to_text(html: str) -> tuple[str, str]:
    """(title, visible text) of an HTML document; paragraphs are separated by blank lines."""
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).split("\n")]
    text = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
    return " ".join(parser.title.split()) or parser.first_h1, text


def split_passages(text: str, max_words: int = MAX_PASSAGE_WORDS) -> list[str]:
    """Paragraph-sized chunks: short paragraphs are merged, long ones cut at sentence ends."""
    chunks: list[str] = []
    current: list[str] = []  # whole paragraphs, whitespace-normalised
    count = 0
    for para in re.split(r"\n\s*\n", text):
        words = para.split()
        if not words:
            continue
        if current and count + len(words) > max_words:
            chunks.append("\n".join(current))
            current, count = [], 0
        if len(words) <= max_words:
            current.append(" ".join(words))
            count += len(words)
        else:
            chunks.extend(_cut_long(para, max_words))
    if current:
        chunks.append("\n".join(current))
    return chunks


def _cut_long(para: str, max_words: int) -> Iterator[str]:
    """Cut an over-long paragraph at sentence ends (hard at max_words inside huge sentences).

    A huge sentence is cut by moving an index along its words, so each word is copied once and
    a one-line file of megabytes takes time in proportion to its size (re-slicing the rest for
    every chunk would take time growing with its square: minutes at 8 MB)."""
    current: list[str] = []
    for sentence in _SENTENCE_END.split(para):
        words = sentence.split()
        if current and len(current) + len(words) > max_words:
            yield " ".join(current)
            current = []
        start = 0
        while len(words) - start > max_words:
            yield " ".join(words[start : start + max_words])
            start += max_words
        current.extend(words[start:])
    if current:
        yield " ".join(current)


def record_text(record: dict[str, Any]) -> tuple[str, str]:
    """(title, text) of one JSON record; list-valued fields (e.g. sentences) are joined."""
    title = record.get("title") or record.get("name") or ""
    for key in TEXT_FIELDS:
        value = record.get(key)
        if isinstance(value, list):
            value = " ".join(str(v).strip() for v in value if isinstance(v, str | int | float))
        if isinstance(value, str) and value.strip():
            return str(title).strip(), value
    return str(title).strip(), ""


def _json_records(path: Path, raw: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(source, record) pairs from JSON Lines, or from a JSON list / single object; the source
    is `#i` (list item) or `:line`, put after the file's name by the caller.

    JSON nested more than core.jsonfile.MAX_DEPTH levels is skipped with a warning (the whole
    file for .json, the line for JSON Lines): Python's parser raises RecursionError near 1,000
    levels, and one unreadable document must not stop the indexing of the others."""
    name = shown(str(path))
    if path.suffix.lower() == ".json":
        try:
            data = loads(raw)
        except json.JSONDecodeError:
            data = None  # many ".json" files in the wild are really JSON Lines
        except JsonTooDeep as exc:
            log.warning("%s: skipped, not indexed: its JSON is %s", name, exc)
            return
        if data is not None:
            items = data if isinstance(data, list) else [data]
            yield from ((f"#{i}", item) for i, item in enumerate(items) if isinstance(item, dict))
            return
    yield from _json_lines(name, raw)


def _json_lines(name: str, raw: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(`:line`, record) for each line of JSON Lines that holds an object; the lines that are
    not JSON, or are nested too deep, are counted in one warning each."""
    not_json = too_deep = 0
    for lineno, line in enumerate(raw.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = loads(line)
        except json.JSONDecodeError:
            not_json += 1
            continue
        except JsonTooDeep:
            too_deep += 1
            continue
        if isinstance(item, dict):
            yield f":{lineno}", item
    if not_json:
        log.warning("%s: skipped %d lines that are not JSON", name, not_json)
    if too_deep:
        log.warning(
            "%s: skipped %d lines nested more than %d levels deep", name, too_deep, MAX_DEPTH
        )


def file_documents(path: Path, rel: str, raw: str) -> Iterator[tuple[str, str, str]]:
    """(source, title, text) for each document in one file, `raw` its text, `rel` its name."""
    suffix = path.suffix.lower()
    stem = shown(path.stem)
    if suffix in (".html", ".htm"):
        title, text = html_to_text(raw)
        yield rel, title or stem, text
    elif suffix in (".json", ".jsonl"):
        for where, record in _json_records(path, raw):
            title, text = record_text(record)
            yield rel + where, title or stem, text
    else:
        heading = re.search(r"^#\s+(.+)$", raw, re.MULTILINE) if suffix != ".txt" else None
        if heading is None:
            yield rel, stem, raw
        else:  # the heading becomes the title, so it is not repeated in the first passage
            text = raw[: heading.start()] + raw[heading.end() :]
            yield rel, heading.group(1).strip(), text


def folder_passages(
    folder: Path,
    files: Iterable[Path],
    escapes: dict[str, str] | None = None,
    progress: Progress | None = None,
) -> list[Passage]:
    """Every passage of every document in `files` (under the real folder `folder`), each read
    only inside it; a file that leads out is skipped and added to `escapes` (name -> target).

    With `progress`, a long read is told as it goes: a line before each file of PROGRESS_BYTES
    or more, and one after every PROGRESS_BYTES or PROGRESS_FILES read since the last."""
    files = list(files)
    tally = _Tally(files, progress) if progress is not None else None
    passages: list[Passage] = []
    for path in files:
        rel = shown(path.relative_to(folder).as_posix())
        if tally is not None:
            tally.before(rel)
        passages.extend(_file_passages(folder, path, rel, escapes))
        if tally is not None:  # a skipped file counts too: the tally follows `files` in order
            tally.after(len(passages))
    return passages


def _file_passages(
    folder: Path, path: Path, rel: str, escapes: dict[str, str] | None
) -> list[Passage]:
    """The passages of one file read inside `folder`; none for a link that leads out."""
    try:
        raw = read_inside(folder, path)
    except CorpusEscape as exc:
        if escapes is not None:
            escapes[rel] = str(exc)
        return []
    return [
        Passage(source, title, chunk)
        for source, title, text in file_documents(path, rel, raw)
        for chunk in split_passages(text)
    ]


class _Tally:
    """Files and bytes read so far, told to `say` at the steps folder_passages promises."""

    def __init__(self, files: list[Path], say: Progress) -> None:
        self.say = say
        self.sizes = [_size(path) for path in files]
        self.total = sum(self.sizes)
        self.done = self.read = self.told_files = self.told_bytes = 0

    def before(self, rel: str) -> None:
        size = self.sizes[self.done]
        if size >= PROGRESS_BYTES:
            self.say(f"reading {rel} ({_mb(size)})")

    def after(self, passages: int) -> None:
        self.read += self.sizes[self.done]
        self.done += 1
        step = self.read - self.told_bytes >= PROGRESS_BYTES
        if step or self.done - self.told_files >= PROGRESS_FILES:
            self.told_files, self.told_bytes = self.done, self.read
            self.say(
                f"{self.done:,} of {len(self.sizes):,} files read ({_mb(self.read)} of "
                f"{_mb(self.total)}), {passages:,} passages"
            )


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:  # gone since the scan: read_inside reports it
        return 0


def _mb(size: int) -> str:
    return f"{size / 1_000_000:,.1f} MB"
