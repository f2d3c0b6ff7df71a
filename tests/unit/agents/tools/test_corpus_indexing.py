"""Indexing big corpus files: passages cut in one pass (the same chunks as the re-slicing cut,
in time proportional to the size), and progress told while a long indexing runs."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.tools import corpus, documents
from agents.tools.corpus import CorpusIndex
from agents.tools.documents import split_passages
from bench.corpus_indexing import measure, one_line_text, reslicing_cut
from cli import validate
from core.context import RunCache
from tests.conftest import DATA, ROOT


def _texts() -> Iterator[str]:
    for path in sorted((ROOT / "examples" / "corpus").glob("*.md")):
        yield path.read_text(encoding="utf-8")
    questions = json.loads((DATA / "hotpotqa" / "distractor_dev60.json").read_text())
    paragraphs = [" ".join(sents) for q in questions for sents in q["context"]["sentences"]]
    yield from paragraphs[:200]
    yield "\n\n".join(paragraphs)  # many short paragraphs merged up to the limit
    yield " ".join(paragraphs)  # one long paragraph cut at sentence ends
    huge = " ".join(f"w{i}" for i in range(950))
    yield f"Short one. {huge} Then more? Yes!\n\n  \n{huge}\nend of line\n\nTail."


@pytest.mark.parametrize("max_words", [25, 200])
def test_the_chunks_are_the_same_as_the_reslicing_cut(max_words: int) -> None:
    paragraphs = [p for text in _texts() for p in re.split(r"\n\s*\n", text)]
    long = [p for p in paragraphs if len(p.split()) > max_words]  # the ones that are cut
    assert len(long) >= 3
    for para in long:
        assert split_passages(para, max_words) == reslicing_cut(para, max_words)


def _best_of_3(text: str) -> float:
    times = []
    for _ in range(3):
        started = time.perf_counter()
        split_passages(text)
        times.append(time.perf_counter() - started)
    return min(times)


def test_cutting_a_one_line_file_takes_time_in_proportion_to_its_size() -> None:
    small, large = one_line_text(200_000), one_line_text(1_600_000)
    ratio = _best_of_3(large) / _best_of_3(small)
    # 8 times the words: about 8 times the time; a re-slicing cut takes 60 times or more
    assert ratio < 25, ratio


def test_the_bench_prints_time_against_size() -> None:
    result = measure([0.02, 0.04], before=True)
    rows = result["sizes"]
    assert isinstance(rows, list) and [row["mb"] for row in rows] == [0.02, 0.04]
    assert all(row["total_s"] >= 0 and row["before_cut_s"] >= 0 for row in rows)
    assert all(row["passages"] > 0 for row in rows)
    assert isinstance(result["growth"], float)
    assert "." not in one_line_text(10_000) and "\n" not in one_line_text(10_000)


@pytest.fixture()
def small_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(documents, "PROGRESS_BYTES", 1_000)
    monkeypatch.setattr(documents, "PROGRESS_FILES", 4)
    monkeypatch.setattr(corpus, "PROGRESS_PASSAGES", 2)


def _folder(tmp_path: Path) -> Path:
    for i in range(5):
        (tmp_path / f"a{i}.txt").write_text("ab " * 33 + "c")  # 100 bytes, 1 passage each
    (tmp_path / "f5.txt").write_text("big file words " * 200)  # 3,000 bytes, 3 passages
    return tmp_path


def test_a_long_indexing_says_how_far_it_got(tmp_path: Path, small_steps: None) -> None:
    said: list[str] = []
    cache = RunCache()
    index = CorpusIndex.load(_folder(tmp_path), cache, progress=said.append)
    assert len(index) == 8
    assert said == [
        "4 of 6 files read (0.0 MB of 0.0 MB), 4 passages",  # PROGRESS_FILES files
        "reading f5.txt (0.0 MB)",  # a file of PROGRESS_BYTES or more, before it is read
        "6 of 6 files read (0.0 MB of 0.0 MB), 8 passages",  # PROGRESS_BYTES read
        "building the search index over 8 passages",
    ]
    said.clear()
    assert CorpusIndex.load(tmp_path, cache, progress=said.append) is index
    assert said == []  # nothing built, nothing told


def test_a_short_indexing_says_nothing(tmp_path: Path) -> None:
    said: list[str] = []
    CorpusIndex.load(_folder(tmp_path), progress=said.append)
    assert said == []


def test_run_shows_indexing_progress_on_stderr(
    tmp_path: Path, small_steps: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert validate.corpus(str(_folder(tmp_path))) == str(tmp_path.resolve())
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "corpus: 4 of 6 files read (0.0 MB of 0.0 MB), 4 passages"
    assert err[-1] == "corpus: building the search index over 8 passages"


def test_a_file_skipped_as_a_link_out_still_counts_in_the_progress(
    tmp_path: Path, small_steps: None
) -> None:
    folder, outside = tmp_path / "corpus", tmp_path / "outside.txt"
    folder.mkdir()
    outside.write_text("secret " * 500)  # 3,500 bytes: told before it is (not) read
    (folder / "a.txt").symlink_to(outside)  # as if swapped for a link after the scan
    for name in ("b.txt", "c.txt"):
        (folder / name).write_text("ab " * 33 + "c")
    said: list[str] = []
    files = [folder / name for name in ("a.txt", "b.txt", "c.txt")]
    passages = documents.folder_passages(folder, files, {}, said.append)
    assert [p.source for p in passages] == ["b.txt", "c.txt"]
    assert said == ["reading a.txt (0.0 MB)", "1 of 3 files read (0.0 MB of 0.0 MB), 0 passages"]
