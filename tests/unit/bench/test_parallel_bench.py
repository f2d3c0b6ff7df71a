"""bench/parallel_tasks.py's code runs (tiny latency); the real numbers come from the bench."""

from __future__ import annotations

import json

from bench import parallel_tasks


def test_the_bench_runs_both_arms_and_prints_one_json_object(capsys):
    parallel_tasks.main(["--json", "--latency", "0.01", "--searches", "1"])
    result = json.loads(capsys.readouterr().out)
    assert set(result) >= {"fanout_s", "sequential_s", "ratio"}
    assert result["tasks"] == 5 and result["model_calls_per_task"] == 3
    assert result["fanout_s"] > 0 and result["sequential_s"] > 0
    assert abs(result["ratio"] - result["fanout_s"] / result["sequential_s"]) < 0.01
