"""The LLM auto-judge: structured verdicts, plain-text fallback, bounded attempts, trajectories."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from agents.judge import EpisodeJudgment, JudgeError, LLMJudge, episode_text
from agents.web.finish import judge_episode
from evals.webarena.answer_judge import AnswerJudge
from tests.unit.fakes import ScriptedChatModel


def scripted(replies: dict[str, object]) -> ScriptedChatModel:
    """Replies keyed by schema title; records prompts in .calls."""
    return ScriptedChatModel(responder=lambda prompt, title, tools, msgs: replies[title], calls=[])


def test_fuzzy_match_structured_verdicts():
    model = scripted({"FuzzyVerdict": {"reason": "same duration", "verdict": "correct"}})
    judge = AnswerJudge(model)
    assert judge.fuzzy_match("three and a half hours", "3h 30min", "How long?") == 1.0
    prompt = model.calls[-1]["prompt"]
    assert "3h 30min" in prompt and "three and a half hours" in prompt and "How long?" in prompt
    partial = AnswerJudge(
        scripted({"FuzzyVerdict": {"reason": "r", "verdict": "partially correct"}})
    )
    assert partial.fuzzy_match("a", "b", "q") == 0.0


def test_ua_match_structured_verdicts():
    same = AnswerJudge(scripted({"ReasonVerdict": {"reason": "r", "verdict": "same"}}))
    different = AnswerJudge(scripted({"ReasonVerdict": {"reason": "r", "verdict": "different"}}))
    assert same.ua_match("no such review", "There is no review", "List reviewers") == 1.0
    assert different.ua_match("Alice", "There is no review", "List reviewers") == 0.0


def test_plain_text_models_are_read_like_webarena_reads_them():
    judge = AnswerJudge(FakeListChatModel(responses=["The answer is partially correct."]))
    assert judge.fuzzy_match("a", "b", "q") == 0.0
    judge = AnswerJudge(FakeListChatModel(responses=["Thinking... so it is correct."]))
    assert judge.fuzzy_match("a", "b", "q") == 1.0
    judge = AnswerJudge(FakeListChatModel(responses=["hmm", "[same]"]))
    assert judge.ua_match("a", "b", "q") == 1.0  # first reply had no verdict: retried


def test_no_verdict_within_attempts_raises():
    judge = AnswerJudge(FakeListChatModel(responses=["I cannot say."]), attempts=2)
    with pytest.raises(JudgeError, match="2 attempts"):
        judge.fuzzy_match("a", "b", "q")
    bad = AnswerJudge(scripted({"FuzzyVerdict": {"reason": "r", "verdict": "maybe"}}), attempts=2)
    with pytest.raises(JudgeError):
        bad.fuzzy_match("a", "b", "q")


def test_episode_judgment_with_reasons():
    reply = {"reasons": ["answer names the order total"], "success": True}
    model = scripted({"EpisodeJudgment": reply})
    verdict = judge_episode(
        LLMJudge(model),
        "Find the total of my last order",
        [{"action": "click [12]", "url": "http://s/orders"}, "stop [$42]"],
        final_url="http://s/orders/7",
        answer="$42",
    )
    assert verdict == EpisodeJudgment(reasons=["answer names the order total"], success=True)
    prompt = model.calls[-1]["prompt"]
    assert "click [12]" in prompt and "http://s/orders/7" in prompt and "$42" in prompt
    text = LLMJudge(FakeListChatModel(responses=["Looped on the login page.\nStatus: failure"]))
    result = judge_episode(text, "Log in", ["click [1]"] * 3)
    assert result.success is False and result.reasons[0] == "Looped on the login page."


def test_trajectory_keeps_newest_steps_within_budget():
    steps = [{"action": f"click [{i}]", "observation": "x" * 50} for i in range(100)]
    text = episode_text(steps, max_chars=400)
    assert len(text) < 500
    assert "click [99]" in text and "click [0]" not in text
    assert text.startswith("... (") and "earlier steps omitted" in text
    assert episode_text([], 100) == "(no steps recorded)"


def test_trajectory_budget_follows_the_model_context_window():
    model = FakeListChatModel(responses=["correct"])
    assert LLMJudge(model).max_trajectory_chars == 6000

    class Small(FakeListChatModel):
        context_window: int = 2048

    assert LLMJudge(Small(responses=["x"])).max_trajectory_chars == (2048 - 700) * 3


def test_judge_failure_skips_a_webarena_task_with_the_reason():
    from evals.webarena.evaluator import evaluate_offline

    task = {
        "task_id": 7,
        "intent": "How long?",
        "eval": {"eval_types": ["string_match"], "reference_answers": {"fuzzy_match": ["3h"]}},
    }
    judge = AnswerJudge(FakeListChatModel(responses=["no idea"]), attempts=1)
    result = evaluate_offline(task, {"answer": "three hours"}, judge)
    assert result.score is None and "judge gave no valid" in result.skipped["string_match"]


def test_web_agent_steps_are_summarised_for_the_judge():
    from browser.trajectory import TrajectoryStep

    step = TrajectoryStep(
        index=0,
        observation="[1] RootWebArea 'Shop' " + "x" * 1000,
        url="http://s/",
        raw="Let's click. ```click [4]```",
        action="click [4]",
        valid=True,
        target="link 'Orders'",
        seconds=1.5,
    )
    bad = TrajectoryStep(
        index=1,
        observation="o",
        url="http://s/orders",
        raw="??",
        action=None,
        valid=False,
        reason="no action found",
    )
    text = episode_text([step, bad], max_chars=5000)
    assert "action: click [4]" in text and "target: link 'Orders'" in text
    assert "valid: False" in text and "reason: no action found" in text
    assert "raw:" not in text and "seconds" not in text and "valid: True" not in text
    assert len(text) < 600  # observation shortened


def test_a_long_reason_is_cut_not_a_failed_attempt():
    """Grammars carry no string lengths, so a rambling reason must still give a verdict."""
    replies = [
        {"reason": "because " * 200, "verdict": "correct"},
        {"reasons": ["x" * 1000, "y"], "success": True},
    ]
    model = ScriptedChatModel(responder=lambda *a: replies.pop(0), calls=[])
    judge = AnswerJudge(model, attempts=1)
    assert judge.fuzzy_match("a", "a", "q") == 1.0
    verdict = judge_episode(judge, "t", [])
    assert verdict.success and [len(r) for r in verdict.reasons] == [400, 1]
