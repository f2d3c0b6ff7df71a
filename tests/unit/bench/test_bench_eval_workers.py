"""The workers bench's code on a tiny size, with the episode job replaced by a scripted one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench import eval_workers
from evals.common.workers import Job


def fake_episode(payload: dict[str, Any], resources: Any) -> dict[str, Any]:
    return {"success": payload["seed"] != 1}


def test_bench_prints_rates_and_ratio(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    def jobs(n: int, tasks: tuple[str, ...] = ()) -> list[Job]:
        return [Job(f"j{i}", f"{__name__}:fake_episode", {"seed": i}) for i in range(n)]

    monkeypatch.setattr(eval_workers, "jobs", jobs)
    assert eval_workers.main(["--episodes", "3", "--workers", "1", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["workers"] == 1 and row["episodes"] == 3 and row["successes"] == 2
    assert row["ratio_vs_first"] == 1.0 and row["episodes_per_min"] > 0


def test_jobs_cycle_through_tasks_with_distinct_seeds() -> None:
    made = eval_workers.jobs(5, ("a", "b"))
    assert [j.payload["task"] for j in made] == ["a", "b", "a", "b", "a"]
    assert len({j.key for j in made}) == 5
