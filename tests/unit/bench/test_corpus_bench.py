"""bench/corpus_search.py measures both arms on one corpus and reports them side by side."""

from __future__ import annotations

from bench.corpus_search import measure


def test_bench_times_the_old_walk_and_the_cheap_check_on_the_same_corpus() -> None:
    result = measure(files=60, searches=3)
    assert result["files"] == 60 and result["searches"] == 3
    for key in ("before_s_per_search", "after_s_per_search", "file_recheck_s"):
        assert isinstance(result[key], float) and result[key] >= 0, key
