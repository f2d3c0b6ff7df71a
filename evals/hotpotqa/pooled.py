"""The pooled setting: every question of a HotpotQA file searched in one corpus made of all the
file's paragraphs, so the evidence has to be found (in the distractor setting each question is
handed its own 10 paragraphs, and one call already sees all of it).

    folder = pooled_corpus("distractor_dev60.json", OUT)   # OUT/corpus/passages.jsonl, once
"""

from __future__ import annotations

import json
from pathlib import Path

from agents.tools.corpus import save_passages
from evals.hotpotqa.dataset import load_hotpotqa

SETTINGS = ("distractor", "pooled")


CORPUS_FILE = "passages.jsonl"  # the pooled corpus's one file; a passage's source is FILE:LINE


def pooled_passages(*paths: str | Path) -> list[tuple[str, str]]:
    """(title, text) of every paragraph of every question in the files, each once, in file
    order (questions that share a Wikipedia article share its paragraph)."""
    seen: set[tuple[str, str]] = set()
    out: list[tuple[str, str]] = []
    for path in paths:
        for question in load_hotpotqa(path):
            for p in question.paragraphs:
                item = (p.title, p.text)
                if p.text and item not in seen:
                    seen.add(item)
                    out.append(item)
    return out


def pooled_corpus(paths: str | Path | list[Path], out: str | Path) -> Path:
    """OUT/corpus, a folder the corpus tool reads, holding the files' pooled paragraphs; built
    once (a folder that already holds exactly these passages is kept as it is, so a resumed run
    searches what its first questions searched)."""
    folder = Path(out) / "corpus"
    items = pooled_passages(*(paths if isinstance(paths, list) else [paths]))
    target = folder / CORPUS_FILE
    if target.is_file() and _saved(target) == items:
        return folder
    save_passages(items, folder)
    return folder


def corpus_sources(items: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
    """Each pooled paragraph's source as the corpus tool names it (`passages.jsonl:LINE`)."""
    return {item: f"{CORPUS_FILE}:{line}" for line, item in enumerate(items, 1)}


def _saved(path: Path) -> list[tuple[str, str]] | None:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
        return [(r["title"], r["text"]) for r in map(json.loads, filter(None, lines))]
    except (OSError, ValueError, KeyError, TypeError):
        return None
