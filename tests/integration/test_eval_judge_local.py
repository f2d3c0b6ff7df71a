"""The LLM judge and `eval webarena --model local` on the real embedded model (SmolLM2).

A 135M model's verdicts are not reliable, so these tests check the contract: every call ends
in a valid verdict through the grammar-constrained path, within bounded time.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import pytest

from cli import evals as eval_cli
from evals.judge import EpisodeJudgment, LLMJudge

pytestmark = pytest.mark.integration

TEST_RAW = Path(__file__).resolve().parents[3] / "shared" / "data" / "webarena" / "test.raw.json"


@pytest.fixture(scope="module")
def judge() -> LLMJudge:
    from graphs.local_model import LocalModelUnavailable

    try:
        return LLMJudge.from_spec("local")
    except LocalModelUnavailable as exc:
        pytest.skip(f"embedded model not installed: {exc}")


def test_local_judge_gives_valid_verdicts(judge):
    start = time.perf_counter()
    assert judge.fuzzy_match("3 hours and 30 minutes", "3h 30min", "How long is the drive?") in (
        0.0,
        1.0,
    )
    assert judge.ua_match("No review mentions it", "There is no such review", "List them") in (
        0.0,
        1.0,
    )
    verdict = judge.judge_episode(
        "Find the price of the red umbrella",
        [{"action": "goto [http://shop/umbrella-red]"}, {"action": "stop [$12]"}],
        final_url="http://shop/umbrella-red",
        answer="$12",
    )
    assert isinstance(verdict, EpisodeJudgment) and len(verdict.reasons) <= 3
    assert time.perf_counter() - start < 120


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
    assert out["scores"]["173"] in (0.0, 1.0)  # judged, not skipped
    assert out["mean"] == out["scores"]["173"]
