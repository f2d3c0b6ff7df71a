"""The `eval miniwob` command: one-line errors on bad input, the report and recorded runs."""

from __future__ import annotations

import json
import re

import pytest

from cli import errors
from tests.unit.memory.records import stored_runs
from tests.unit.web_fakes import recorded_steps


@pytest.fixture
def miniwob_cli(monkeypatch):
    """The `eval` command with `miniwob` registered, whatever evals.cli already does."""
    import argparse

    import evals.cli as evals
    from evals.cli import miniwob as eval_miniwob

    parser = argparse.ArgumentParser()
    parser.add_argument("--home")
    sub = parser.add_subparsers(dest="command")
    evals.register(sub)
    if "miniwob" not in evals.eval_subparsers(sub).choices:
        eval_miniwob.register_miniwob(evals.eval_subparsers(sub))
    return parser


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--tasks", "no-such-task"], "unknown MiniWoB task"),
        (["--tasks", " , "], "needs a task name"),
        (["--tasks", "click-button", "--episodes", "0"], "at least 1"),
        (["--tasks", "click-button", "--max-steps", "0"], "at least 1"),
    ],
)
def test_eval_miniwob_bad_input_one_line_error(miniwob_cli, isolated_home, capsys, argv, message):
    args = miniwob_cli.parse_args(["--home", str(isolated_home), "eval", "miniwob", *argv])
    with pytest.raises(Exception) as failure:
        args.func(args)
    assert errors.report(failure.value) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def fake_episode(payload, resources):
    from evals.miniwob import harness as miniwob
    from evals.miniwob.jobs import episode_record

    first = payload["seed"] == 0
    episode = miniwob.EpisodeResult(
        task=payload["task"],
        seed=payload["seed"],
        utterance="Click OK",
        raw_reward=1.0 if first else 0.0,
        done=True,
        reason=None,
        stop_reason=None,
        steps=1,
        seconds=0.5,
        env_step_seconds=0.1,
        tokens=30,
        trajectory=recorded_steps("click [4]"),
    )
    return {"family": payload["task"], **episode_record(episode), "trajectory": episode.trajectory}


def test_eval_miniwob_reports_and_records(miniwob_cli, isolated_home, capsys, monkeypatch):
    from evals.miniwob import jobs as miniwob_jobs

    monkeypatch.setattr(miniwob_jobs, "policy_episode", fake_episode)
    run = "eval miniwob --tasks click-button --episodes 2 --workflows off --json".split()
    out_dirs = ["--out", str(isolated_home / "o"), "--report", str(isolated_home / "page")]
    argv = ["--home", str(isolated_home), *run, *out_dirs]
    args = miniwob_cli.parse_args(argv)
    assert args.func(args) == 0
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    assert out["success_rate"] == 0.5 and out["total_tokens"] == 60 and out["workflows"] == "off"
    assert "[miniwob] 2/2 score 0.500 (1/2)" in captured.err
    report = json.loads(open(out["report"]).read())
    assert report["benchmark"] == "miniwob" and len(report["episodes"]) == 2
    runs = stored_runs(isolated_home, "miniwob-click-button")
    assert [r.success for r in runs] == [True, False] and runs[0].template_id == "click-button"
    assert re.search(r"click \[4\]", runs[0].steps[0].action)
    page = json.loads((isolated_home / "page" / "summary.json").read_text())
    assert page["arms"][0]["successes"] == 1 and page["arms"][0]["n"] == 2
    # Rerun with the same --out: resumed, nothing played or recorded again.
    monkeypatch.setattr(miniwob_jobs, "policy_episode", None)
    assert args.func(miniwob_cli.parse_args(argv)) == 0
    assert json.loads(capsys.readouterr().out)["trajectories_recorded"] == 0
    assert len(stored_runs(isolated_home, "miniwob-click-button")) == 2


def test_eval_miniwob_plan_off_reaches_the_jobs_and_keeps_its_own_results(
    miniwob_cli, isolated_home, capsys, monkeypatch
):
    from evals.miniwob import jobs as miniwob_jobs

    asked = []

    def episode(payload, resources):
        asked.append(payload["plan"])
        return fake_episode(payload, resources)

    monkeypatch.setattr(miniwob_jobs, "policy_episode", episode)
    out = isolated_home / "o"
    for plan in ("off", "on"):
        run = f"eval miniwob --tasks click-button --plan {plan} --json --out {out}-{plan}"
        args = miniwob_cli.parse_args(["--home", str(isolated_home), *run.split()])
        assert args.func(args) == 0
        assert json.loads(capsys.readouterr().out)["plan"] == plan
    assert asked == [False, True]
    # a folder of one setting is not resumed by the other
    run = f"eval miniwob --tasks click-button --plan on --out {out}-off"
    args = miniwob_cli.parse_args(["--home", str(isolated_home), *run.split()])
    with pytest.raises(errors.CommandFailed, match="plan"):
        args.func(args)
