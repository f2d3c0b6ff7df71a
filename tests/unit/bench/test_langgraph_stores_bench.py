"""bench/langgraph_stores.py at a tiny size: both stores take every put, the project's store
searches by vector, and neither loses an acknowledged put to a concurrent writer or a SIGKILL
(the figures its reason in memory/stores/sqlite_store.py rests on)."""

from __future__ import annotations

import json

from bench import langgraph_stores


def test_both_stores_keep_every_acknowledged_put_and_ours_searches():
    out = langgraph_stores.measure(records=60, queries=5, writers=20, kill_after=0.5)
    assert out["project"]["search_ms"] is not None  # ours searches by meaning everywhere
    for kind in langgraph_stores.STORES:
        race, kill = out[kind]["concurrent"], out[kind]["killed"]
        assert race == {"acknowledged": 40, "lost": 0, "failed_puts": 0}, kind
        assert kill["reopened"] and kill["lost"] == 0 and kill["acknowledged"] > 0, kind
    reason = langgraph_stores.vector_index()
    assert out["langgraph"]["vector_index"] == (reason or "sqlite-vec")
    assert out["ratios"]["put_ms"] > 0


def test_the_bench_prints_one_table_or_json():
    said: list[str] = []
    argv = ["--records", "20", "--queries", "2", "--writers", "5", "--kill-after", "1", "--json"]
    assert langgraph_stores.main(argv, report=said.append) == 0
    assert set(json.loads(said[0])) == {"project", "langgraph", "ratios"}
