"""The AWM MiniWoB++ protocol with scripted jobs: plans, memory per arm, resume, CLI, report."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from evals.awm import jobs as awm_jobs
from evals.awm.arms import ARMS, ArmUnavailable, arm_context, check_available, parse_arms
from evals.awm.protocol import AwmSettings, plan_jobs, run_protocol, scored_records

RUNS: list[str] = []


def fake_episode(payload: dict[str, Any], resources: Any) -> dict[str, Any]:
    """Succeeds when its arm's memory holds something relevant: a workflow (offline: induced
    from demos; online: after a success) or a lesson; else only on seeds divisible by 3."""
    RUNS.append(f"{payload['arm']}/{payload['family']}/{payload['phase']}/{payload['seed']}")
    home = Path(payload["home"])
    helped = (home / "workflows.txt").exists() or (home / "lessons.txt").exists()
    success = helped or payload["seed"] % 3 == 0
    if success and payload["online_induction"] != "off":
        (home / "workflows.txt").parent.mkdir(parents=True, exist_ok=True)
        (home / "workflows.txt").write_text("wf")
    if payload["reflect"]:
        home.mkdir(parents=True, exist_ok=True)
        (home / "lessons.txt").write_text("lesson")
    return {k: payload[k] for k in ("arm", "setting", "phase", "family", "seed", "position")} | {
        "success": success,
        "steps": 2 if helped else 4,
        "tokens": 50,
        "seconds": 0.1,
    }


def fake_induce(payload: dict[str, Any], resources: Any) -> dict[str, Any]:
    RUNS.append(f"induce/{payload['family']}/{payload['seeds']}")
    Path(payload["home"]).mkdir(parents=True, exist_ok=True)
    (Path(payload["home"]) / "workflows.txt").write_text("from demos")
    return {"family": payload["family"], "workflows": ["w"]}


def settings(
    tmp_path: Path, setting: str, arms: str = "no-memory,workflows,reflections", **kw: Any
) -> AwmSettings:
    return AwmSettings(
        setting=setting,
        families=["enter-text", "login-user"],
        arms=parse_arms(arms),
        out=tmp_path / "out",
        episodes=4,
        job_fn=f"{__name__}:fake_episode",
        induce_fn=f"{__name__}:fake_induce",
        train_episodes=2,
        **kw,
    )


def test_offline_plan_splits_train_and_test_seeds_per_arm(tmp_path: Path) -> None:
    jobs = plan_jobs(settings(tmp_path, "offline"))
    by_chain: dict[str, list[str]] = {}
    for j in jobs:
        by_chain.setdefault(j.chain, []).append(j.key.split("/", 3)[3])
    assert by_chain["no-memory/enter-text"] == ["test/0", "test/1", "test/2", "test/3"]
    assert by_chain["workflows/enter-text"][0] == "induce"
    assert by_chain["reflections/login-user"][:2] == ["train/1000", "train/1001"]
    tests = {j.payload["seed"] for j in jobs if j.payload.get("phase") == "test"}
    trains = {j.payload["seed"] for j in jobs if j.payload.get("phase") == "train"}
    assert tests == {0, 1, 2, 3} and trains == {1000, 1001}
    assert all(j.payload["online_induction"] == "off" for j in jobs if "phase" in j.payload)
    homes = {j.payload["home"] for j in jobs}
    assert len(homes) == 6  # one data directory per (arm, family)
    with pytest.raises(ValueError, match="overlap"):
        settings(tmp_path, "offline", train_seed=2).validate()


def test_online_run_learns_within_each_stream(tmp_path: Path) -> None:
    RUNS.clear()
    s = settings(tmp_path, "online")
    log = run_protocol(s, out=io.StringIO())
    rows = scored_records(log, s)
    assert len(rows) == 3 * 2 * 4 and not any(r.startswith("induce") for r in RUNS)
    rate = {
        a: sum(r["success"] for r in rows if r["arm"] == a)
        for a in ("no-memory", "workflows", "reflections")
    }
    # seed 0 succeeds everywhere; then workflows (after a success) and lessons (after any
    # episode) help the next episodes of the same stream only.
    assert rate == {"no-memory": 4, "workflows": 8, "reflections": 8}


def test_rerun_resumes_and_refuses_other_settings(tmp_path: Path) -> None:
    RUNS.clear()
    s = settings(tmp_path, "offline")
    out = io.StringIO()
    run_protocol(s, out=out)
    first = len(RUNS)
    assert first == 2 * (4 + 5 + 6)  # no-memory 4, workflows induce+4, reflections 2+4
    run_protocol(s, out=out)
    assert len(RUNS) == first and "resuming: 30/30 already done" in out.getvalue()
    with pytest.raises(ValueError, match="other settings"):
        run_protocol(settings(tmp_path, "offline", max_steps=3), out=out)


def test_arms_and_their_contexts() -> None:
    assert [a.name for a in parse_arms("all")] == list(ARMS)
    with pytest.raises(ValueError, match="unknown arm"):
        parse_arms("workflows,magic")
    ctx = arm_context(
        ARMS["reflections"], model="m", home="/h", max_steps=5, online_induction="rule"
    )
    assert (ctx.reflections_k, ctx.workflows_k, ctx.trajectories_k) == (3, 0, 0)
    assert ctx.online_induction == "off" and not ctx.use_workflows and not ctx.judge_runs
    ctx = arm_context(ARMS["workflows"], model="m", home="/h", max_steps=5, online_induction="llm")
    assert ctx.use_workflows and ctx.online_induction == "llm" and ctx.reflections_k == 0


def test_workflow_action_arms_refused_until_the_agent_supports_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("evals.awm.arms.supports_workflow_actions", lambda: False)
    needs = "workflow-actions, workflow-actions-verified, everything need"
    with pytest.raises(ArmUnavailable, match=needs):
        check_available(parse_arms("all"))
    check_available(parse_arms("no-memory,workflows,reflections"))


def test_cli_prints_tables_estimate_and_writes_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import main

    monkeypatch.setattr(awm_jobs, "agent_episode", fake_episode)
    monkeypatch.setattr(awm_jobs, "offline_workflows", fake_induce)
    argv = [
        "--home",
        str(tmp_path),
        "eval",
        "awm-miniwob",
        "--setting",
        "online",
        "--families",
        "enter-text,login-user",
        "--episodes",
        "3",
        "--arms",
        "no-memory,workflows",
        "--report",
        str(tmp_path / "report"),
    ]
    assert main.main(argv) == 0
    captured = capsys.readouterr()
    assert "[awm-miniwob online] 12/12 score" in captured.err
    assert "no-memory  6" in captured.out and "workflows / " not in captured.out
    assert "runtime: at 0.1 s/episode" in captured.out
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert {a["group"]["arm"]: a["successes"] for a in summary["arms"]} == {
        "no-memory": 2,
        "workflows": 6,
    }
    assert (tmp_path / "experiments" / "awm-miniwob-online" / "results.jsonl").exists()
    assert main.main([*argv[:-2], "--families", "no-such-task"]) == 2
    assert "unknown MiniWoB task(s): no-such-task" in capsys.readouterr().err


def test_results_show_unparsed_steps_and_the_workflow_call_behind_a_step():
    from evals.awm.jobs import _shown

    assert _shown({"action": None, "raw": '{"action_type": "cl'}) == (
        'unparsed \'{"action_type": "cl\''
    )
    step = {"action": "type [3] [Ada]", "raw": "", "call": "enter_text(text='Ada')"}
    assert _shown(step) == "type [3] [Ada] (via enter_text(text='Ada'))"
    assert _shown({"action": "click [19]", "raw": "", "call": None}) == "click [19]"
