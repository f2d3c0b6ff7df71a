"""The LLM judge and `eval webarena --model local:smollm2-135m` on the real embedded model, the
fast test model SmolLM2-135M.

A 135M model's verdicts are not reliable, but its output is constrained by the verdict's JSON
schema (a grammar), so every call must end in a parsed verdict: these tests assert one. Which
verdict it is, is not asserted (that would test the tiny model's judgement, not the judge).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

import evals.cli as eval_cli
from agents.judge import EpisodeJudgment
from agents.web.finish import judge_episode
from core.model_catalogue import TEST_MODEL
from core.models import Models
from evals.webarena.answer_judge import AnswerJudge

pytestmark = pytest.mark.integration

TEST_RAW = Path(__file__).resolve().parents[1] / "data" / "webarena" / "test.raw.json"
MODEL = f"local:{TEST_MODEL}"


@pytest.fixture(scope="module")
def judge() -> AnswerJudge:
    pytest.importorskip("llama_cpp", reason="the embedded model needs llama-cpp-python")
    # installed but broken: the test fails, never skips
    return AnswerJudge.from_spec(MODEL, Models())


def test_local_judge_gives_an_episode_verdict(judge):
    # The gate for online workflow induction: the grammar makes the answer parse, so a verdict
    # with reasons comes back; JudgeError here would be a bug and fails the test.
    verdict = judge_episode(
        judge,
        "Find the price of the red umbrella",
        [{"action": "goto [http://shop/umbrella-red]"}, {"action": "stop [$12]"}],
        final_url="http://shop/umbrella-red",
        answer="$12",
    )
    assert isinstance(verdict, EpisodeJudgment) and isinstance(verdict.success, bool)
    assert len(verdict.reasons) <= 3 and all(len(r) <= 400 for r in verdict.reasons)


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
            MODEL,
            "--json",
        ]
    )
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    (report,) = (tmp_path / "home" / "reports").glob("webarena-*.json")
    (result,) = json.loads(report.read_text(encoding="utf-8"))["results"]
    # A verdict, whichever it is: the fuzzy_match answer was judged, not skipped.
    assert out["scores"]["173"] in (0.0, 1.0) and out["mean"] == out["scores"]["173"]
    assert result["parts"]["url_match"] == 1.0 and not result.get("skipped")
