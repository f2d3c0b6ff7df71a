"""The AWM experiment harness with a fake runner on real WebArena task configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evals.awm.experiment import (
    ExperimentTask,
    RunOutcome,
    load_runner,
    load_webarena_tasks,
    main,
    run_experiment,
)
from memory.trajectories import Step, Trajectory
from tests.conftest import DATA
from tests.unit.memory.records import stored_runs

TASKS = DATA / "webarena" / "test.raw.json"


def fake_runner(task: ExperimentTask, *, model: str, workflows: str) -> RunOutcome:
    """Succeeds when a workflow for its start page is in the prompt, or on every third task;
    with a workflow it also needs fewer steps. Records which model it was given."""
    start = task.config.get("start_url", "")
    helped = f"goto({start!r})" in workflows
    success = helped or int(task.id) % 3 == 0
    steps = 2 if helped else 5
    traj = Trajectory(
        task=task.intent,
        website="",
        success=success,
        steps=[
            Step("home page", f"goto({start!r})"),
            Step("menu", "click('12')"),
            Step("result", "send_msg_to_user('done')"),
        ],
    )
    return RunOutcome(
        success=success,
        steps=steps,
        tokens=100 + len(workflows) // 4,
        trajectory=traj,
        answer=model,
    )


def test_two_arms_on_real_tasks(tmp_path: Path) -> None:
    tasks = load_webarena_tasks(TASKS, limit=30, sites=["shopping_admin"])
    assert len(tasks) == 30 and all(t.website == "shopping_admin" for t in tasks)
    report = run_experiment(tasks, fake_runner, model="fake:model", home=tmp_path)
    base, awm = report.baseline.summary(), report.with_workflows.summary()
    assert base["tasks"] == awm["tasks"] == 30
    assert base["prompts_with_workflows"] == 0 and awm["prompts_with_workflows"] > 0
    assert awm["success_rate"] > base["success_rate"]
    assert awm["mean_steps"] < base["mean_steps"]
    assert awm["total_tokens"] > base["total_tokens"]  # workflows cost prompt tokens
    assert report.workflows_at_end >= 1
    assert len(stored_runs(tmp_path, "shopping_admin", spec="hashing")) == 30
    data = report.to_dict()
    assert data["model"] == "fake:model" and len(data["rows"]["with_workflows"]) == 30
    assert "no_workflows" in report.table() and "with_workflows" in report.table()


def test_induction_none_uses_existing_memory_only(tmp_path: Path) -> None:
    tasks = load_webarena_tasks(TASKS, limit=5)
    report = run_experiment(tasks, fake_runner, model="m", home=tmp_path, induction="none")
    assert report.workflows_at_end == 0 and report.with_workflows.prompts_with_workflows == 0
    with pytest.raises(ValueError, match="induction must be"):
        run_experiment(tasks, fake_runner, model="m", home=tmp_path, induction="magic")


def test_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    (tmp_path / "my_runner.py").write_text(
        "from evals.awm.experiment import RunOutcome\n"
        "def run(task, *, model, workflows):\n"
        "    return RunOutcome(success=True, steps=1, tokens=7)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "r.json"
    code = main(
        [
            "--tasks",
            str(TASKS),
            "--limit",
            "3",
            "--runner",
            "my_runner:run",
            "--model",
            "openai:gpt-4o-mini",
            "--home",
            str(tmp_path / "mem"),
            "--out",
            str(out),
        ]
    )
    assert code == 0
    report = json.loads(out.read_text())
    assert report["model"] == "openai:gpt-4o-mini"
    assert [a["success_rate"] for a in report["arms"]] == [1.0, 1.0]
    assert "AWM comparison" in capsys.readouterr().out
    assert main(["--tasks", str(TASKS), "--runner", "nocolon"]) == 2
    with pytest.raises(ValueError, match="not a callable"):
        load_runner("json:nothing_here")
