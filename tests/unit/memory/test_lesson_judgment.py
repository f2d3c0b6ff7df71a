"""The word lists that decide what in a reflection is a lesson for other tasks, checked against
real reflector sentences labelled by hand (bench/lesson_judgment.py; its model and MiniLM arms
are the bench's, run by hand: minutes)."""

from __future__ import annotations

from bench import lesson_judgment


def test_the_word_lists_agree_with_the_hand_labels_on_real_reflections(capsys):
    report = lesson_judgment.main(["--json", "--embedding-model", "hashing"])
    assert report["sentences"] == 120 and report["lessons"] == 35
    words = report["word_lists"]
    # a lesson other tasks get is nearly always kept; what it lets through is mostly cut-off
    # sentences (docs/memory.md, "What counts as a lesson")
    assert words["recall"] >= 0.95 and words["accuracy"] >= 0.88, words
    assert set(report["neighbours"]) >= {"accuracy", "precision", "recall", "seconds"}
    assert '"word_lists"' in capsys.readouterr().out
