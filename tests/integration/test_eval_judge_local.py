"""The LLM judge and `eval webarena --model local` on the real embedded model (SmolLM2).

A 135M model's verdicts are not reliable, so these tests check the contract: each call ends in
a valid verdict or a clear JudgeError/skip, never a crash or an invented score.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from agents.judge import EpisodeJudgment, JudgeError, LLMJudge
from cli import evals as eval_cli

pytestmark = pytest.mark.integration

TEST_RAW = Path(__file__).resolve().parents[3] / "shared" / "data" / "webarena" / "test.raw.json"


@pytest.fixture(scope="module")
def judge() -> LLMJudge:
    from core.local_model import LocalModelUnavailable

    try:
        return LLMJudge.from_spec("local")
    except LocalModelUnavailable as exc:
        pytest.skip(f"embedded model not installed: {exc}")


def test_local_judge_episode_verdict_or_clear_failure(judge):
    # The gate for online workflow induction: a verdict with reasons, or JudgeError (never a
    # made-up verdict). SmolLM2's JSON is not always valid, so both outcomes are legitimate.
    try:
        verdict = judge.judge_episode(
            "Find the price of the red umbrella",
            [{"action": "goto [http://shop/umbrella-red]"}, {"action": "stop [$12]"}],
            final_url="http://shop/umbrella-red",
            answer="$12",
        )
    except JudgeError as exc:
        assert "EpisodeJudgment" in exc.reason
        return
    assert isinstance(verdict, EpisodeJudgment) and len(verdict.reasons) <= 3


def test_eval_webarena_with_the_local_judge_scores_fuzzy_tasks(judge, tmp_path, capsys):
    pred = tmp_path / "pred.json"
    pred.write_text(
        json.dumps(
            {
                "173": {
                    "answer": "No, it is still open",
                    "url": "__GITLAB__/byteblaze/empathy-prompts/-/issues/8",
                }
            }
        )
    )
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", default=str(tmp_path / "home"))
    eval_cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(
        [
            "eval",
            "webarena",
            "--config",
            str(TEST_RAW),
            "--predictions",
            str(pred),
            "--model",
            "local",
            "--json",
        ]
    )
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    (report,) = (tmp_path / "home" / "reports").glob("webarena-*.json")
    (result,) = json.loads(report.read_text(encoding="utf-8"))["results"]
    if out["scores"]["173"] is None:  # the judge gave no valid verdict: skipped, with why
        assert "judge gave no valid" in result["skipped"]["string_match"]
    else:
        assert out["scores"]["173"] in (0.0, 1.0) and out["mean"] == out["scores"]["173"]
        assert result["parts"]["url_match"] == 1.0
