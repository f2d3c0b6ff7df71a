"""MiniWoB++ through the browser env: scripted oracles reach reward 1; bad policies do not."""

from __future__ import annotations

import asyncio
import io

import pytest

from browser.trajectory import TrajectoryStep
from evals.miniwob.harness import MiniWobReport, PolicyDecision, run_miniwob
from evals.miniwob.oracle import OraclePolicy, oracle_for, parse_tree

pytestmark = pytest.mark.integration

ORACLE_TASKS = [
    "click-button",
    "click-link",
    "enter-text",
    "focus-text-2",
    "click-checkboxes",
    "click-dialog",
    "login-user",
    "click-tab",
    "choose-list",
    "simple-arithmetic",
    "multi-orderings",
    "read-table",
]


def test_oracles_reach_reward_one_on_every_task_and_seed() -> None:
    progress = io.StringIO()
    policy = oracle_for(ORACLE_TASKS)
    report = asyncio.run(run_miniwob(ORACLE_TASKS, 2, 3, policy, progress=progress))
    failures = [(e.task, e.seed, e.raw_reward, e.reason) for e in report.episodes if not e.success]
    assert not failures, failures
    assert [t.task for t in report.tasks] == ORACLE_TASKS
    assert all(t.success_rate == 1.0 and t.mean_reward == 1.0 for t in report.tasks)
    assert {e.seed for e in report.episodes} == {3, 4}
    assert len(progress.getvalue().splitlines()) == 2 * len(ORACLE_TASKS)
    login = next(e for e in report.episodes if e.task == "login-user")
    assert [s["action"].split(" ")[0] for s in login.trajectory] == ["type", "type", "click"]
    assert login.trajectory[-1]["target"] == "button 'Login'"
    assert "ALL" in report.format_table() and report.to_dict()["success_rate"] == 1.0


def test_seeds_reproduce_the_same_episode() -> None:
    async def utterances() -> list[str]:
        report = await run_miniwob(
            ["click-checkboxes"], 2, 7, OraclePolicy("click-checkboxes"), progress=None
        )
        return [e.utterance for e in report.episodes]

    first, second = asyncio.run(utterances()), asyncio.run(utterances())
    assert first == second and first[0] != first[1]


def test_wrong_clicks_junk_and_policy_errors_all_fail_honestly() -> None:
    async def wrong_button(utterance: str, observation: str, history: list[TrajectoryStep]) -> str:
        target = utterance.split('"')[1]
        others = [n for n in parse_tree(observation) if n.role == "button" and n.name != target]
        return f"click [{others[0].id}]" if others else "stop [no other button]"

    async def junk(
        utterance: str, observation: str, history: list[TrajectoryStep]
    ) -> PolicyDecision:
        return PolicyDecision("I would rather not.", tokens=5)

    async def broken(utterance: str, observation: str, history: list[TrajectoryStep]) -> str:
        if history:
            raise ConnectionError("model server went away")
        return "noop"

    async def runs() -> tuple[MiniWobReport, MiniWobReport, MiniWobReport]:
        wrong = await run_miniwob(["click-button"], 3, 0, wrong_button, progress=None)
        bad = await run_miniwob(["click-button"], 1, 0, junk, progress=None)
        progress = io.StringIO()
        failed = await run_miniwob(["click-button"], 2, 0, broken, progress=progress)
        assert progress.getvalue().count("ERROR policy failed: ConnectionError") == 2
        return wrong, bad, failed

    wrong, bad, failed = asyncio.run(runs())
    clicked = [e for e in wrong.episodes if e.trajectory[0]["action"].startswith("click")]
    assert clicked, "no seed had a second button"
    assert all(e.done and e.raw_reward == -1.0 and not e.success for e in clicked)
    (episode,) = bad.episodes
    assert not episode.done and not episode.success and episode.raw_reward == 0.0
    assert episode.steps == 3 and (episode.stop_reason or "").startswith("invalid_actions")
    assert episode.tokens == 15 and bad.tasks[0].tokens == 15
    assert [(e.steps, e.success) for e in failed.episodes] == [(1, False), (1, False)]
    assert all("model server went away" in (e.error or "") for e in failed.episodes)


def test_unknown_tasks_are_refused_before_starting() -> None:
    with pytest.raises(ValueError, match="no-such-task"):
        asyncio.run(run_miniwob(["no-such-task"], 1, 0, OraclePolicy("click-button")))
