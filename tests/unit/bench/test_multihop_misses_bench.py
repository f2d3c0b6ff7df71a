"""bench/multihop_misses.py: a run's wrong answers sorted by why (gold read, a gold page named)
and its unsettled chains' calls apart from the rest, on the questions every arm answered."""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench.multihop_misses import gold_titles, main, misses
from evals.hotpotqa.metrics import normalize_answer
from evals.multihop.dataset import load_multihop

DATA = "tests/data/multihop"


def _record(qid: str, *, em: bool, answer: str, how: str, calls: int, read: list[str]) -> dict:
    path = {"how": how}
    return {
        "id": qid,
        "key": qid,
        "em": em,
        "answer": answer,
        "calls": calls,
        "read": read,
        "path": path,
    }


def test_wrong_answers_are_sorted_by_why_and_unsettled_chains_counted_apart() -> None:
    [q] = load_multihop(DATA, limits={"2wiki": 1}, datasets=("2wiki",))
    title = q.question.paragraphs[q.question.gold[0]].title
    gold = ["passages.jsonl:1", "passages.jsonl:2"]
    rows = [
        (q, _record(q.id, em=False, answer=title, how="last reading", calls=5, read=gold), gold),
        (q, _record(q.id, em=False, answer="Nobody", how="answered", calls=2, read=gold[:1]), gold),
        (q, _record(q.id, em=True, answer="x", how="answered", calls=2, read=[]), gold),
    ]
    m = misses(rows)
    assert m["wrong"] == 2 and m["gold_read_wrong"] == 1 and m["gold_page_named"] == 1
    assert m["unsettled"] == [1, 0, 5.0] and m["settled"] == [2, 1, 2.0]
    untailed = re.sub(r"\s*\(.*\)$", "", title)
    assert {normalize_answer(title), normalize_answer(untailed)} <= gold_titles(q)


def test_the_command_reads_only_the_arms_the_summary_names(tmp_path: Path, capsys) -> None:
    questions = load_multihop(DATA, limits={"2wiki": 1, "musique": 1, "hotpotqa": 1})
    # an older design's folder beside the arms, with one question fewer: read, it would cut n
    for arm, answered in (("rag", 3), ("reflective", 3), ("reflective-older", 2)):
        (tmp_path / arm).mkdir()
        lines = [
            json.dumps(_record(q.id, em=False, answer="?", how="answered", calls=2, read=[]))
            for q in questions[:answered]
        ]
        (tmp_path / arm / "results.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "summary.json").write_text(json.dumps({"arms": ["rag", "reflective"]}))
    assert main([str(tmp_path)]) == 0
    table = capsys.readouterr().out
    all_row = next(line for line in table.splitlines() if line.startswith("all"))
    assert all_row.split()[1:3] == ["3", "3"]  # 3 questions every named arm answered, 3 wrong
