"""Corpus JSON nested too deeply to read (agents/tools/documents.py through core.jsonfile): the
file, or the JSON Lines line, is skipped with a warning naming it, and the rest of the folder is
indexed, whoever loads the corpus: the library, the tool, the CLI."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

import main
from agents.tools.corpus import CorpusIndex, make_corpus_tool
from core.jsonfile import MAX_DEPTH

DEEP = "[" * 1_000 + "]" * 1_000  # Python's json parser raises RecursionError near 1,000
JUST_OVER = {"title": "t", "text": "x", "extra": json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)}


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "ok.md").write_text("# Rivers\n\nRivers flow to the sea.")
    (tmp_path / "deep.json").write_text(DEEP)
    (tmp_path / "deep.JSON").write_text(json.dumps(JUST_OVER))  # parses, then over the limit
    lines = [json.dumps({"title": "Lakes", "text": "Lakes hold still water."}), DEEP, "{oops"]
    (tmp_path / "mixed.jsonl").write_text("\n".join(lines) + "\n")
    return tmp_path


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_the_library_skips_a_deep_file_and_line_and_says_so(folder: Path, caplog) -> None:
    with caplog.at_level("WARNING", logger="agents.tools.documents"):
        index = CorpusIndex.load(folder)
    assert {p.source for p in index.passages} == {"ok.md", "mixed.jsonl:1"}
    said = _warnings(caplog)
    for name in ("deep.json", "deep.JSON"):
        assert any(
            f"{name}: skipped, not indexed" in w and "more than 100 levels" in w for w in said
        )
    assert any("mixed.jsonl: skipped 1 lines nested more than 100 levels deep" in w for w in said)
    assert any("mixed.jsonl: skipped 1 lines that are not JSON" in w for w in said)


def test_the_tool_over_such_a_folder_searches_the_rest(folder: Path) -> None:
    tool = make_corpus_tool(folder)
    assert "Lakes hold still water" in tool.invoke({"query": "lakes water"})


def test_a_folder_of_only_deep_json_is_one_error_line(tmp_path: Path, capsys, caplog) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "records.json").write_text(DEEP)
    with caplog.at_level("WARNING", logger="agents.tools.documents"):
        code = main.main(
            ["--home", str(tmp_path / "home"), "tools", "list", "--corpus", str(corpus)]
        )
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.splitlines() == [
        f"error: --corpus: corpus folder {corpus} has 1 document(s) but no text in them"
    ]
    said = _warnings(caplog)
    assert len(said) == 1 and "records.json: skipped, not indexed: its JSON is nested" in said[0]
