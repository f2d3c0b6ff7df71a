"""The AWM offline setting freezes test memory: test episodes record no trajectory, so none is
read back as a past run by a later test episode; the online setting keeps recording."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest

from agents.web import session as web_session
from evals.awm import jobs as awm_jobs
from evals.awm.arms import ARMS, arm_context, parse_arms
from evals.awm.protocol import AwmSettings, plan_jobs
from evals.miniwob.harness import website_of
from graphs.web import build_web_graph
from memory.stores.project_store import open_project_store
from tests.unit.memory.records import stored_runs
from tests.unit.web_fakes import ShopEnv, answer, wired  # noqa: F401  (fixture)


def _settings(tmp_path: Path, setting: str) -> AwmSettings:
    return AwmSettings(
        setting=setting,
        families=["enter-text"],
        arms=parse_arms("everything"),
        out=tmp_path / "out",
        episodes=2,
        train_episodes=1,
    )


async def _shop_episode(resources: Any, family: str, seed: int, ctx: Any) -> dict:
    """The web agent graph on the scripted shop page, rewarded once it buys."""
    env, run_id = ShopEnv(), uuid.uuid4().hex

    async def evaluate() -> tuple[bool, float | None]:
        return env.bought, (1.0 if env.bought else None)

    web_session.attach(ctx, env, evaluate)
    state = {"task": "Buy the item", "run_id": run_id, "website": website_of(family)}
    with open_project_store(
        ctx.home, ctx.embedding_model, models=ctx.models
    ) as store:  # as evals.miniwob.graph
        return await build_web_graph().compile(store=store).ainvoke(state, context=ctx)


class Resources:
    run = staticmethod(asyncio.run)

    def __init__(self, models: Any) -> None:
        self.models = models


def _test_records(tmp_path: Path, setting: str, monkeypatch, models) -> tuple[list[dict], str]:
    monkeypatch.setattr(awm_jobs, "_graph_episode", _shop_episode)
    tests = [j for j in plan_jobs(_settings(tmp_path, setting)) if j.payload.get("phase") == "test"]
    worker = Resources(models)
    records = [awm_jobs.agent_episode(j.payload | {"reflect": False}, worker) for j in tests]
    return records, tests[0].payload["home"]


def test_offline_test_payloads_are_frozen_and_training_ones_are_not(tmp_path: Path) -> None:
    jobs = plan_jobs(_settings(tmp_path, "offline"))
    phases = {(j.payload.get("phase"), bool(j.payload.get("frozen"))) for j in jobs}
    assert phases == {(None, False), ("train", False), ("test", True)}
    online = plan_jobs(_settings(tmp_path, "online"))
    assert not any(j.payload.get("frozen") for j in online)
    ctx = arm_context(
        ARMS["everything"], model="m", home="/h", max_steps=5, online_induction="off", frozen=True
    )
    assert ctx.record_runs is False and ctx.online_induction == "off"


def test_offline_test_episodes_record_nothing_and_see_no_past_run(
    wired,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wired(lambda *a: answer("click", "7"))
    records, home = _test_records(tmp_path, "offline", monkeypatch, wired.models)
    assert [r["success"] for r in records] == [True, True], records
    assert stored_runs(home, models=wired.models) == []
    assert not records[1]["memory_in_prompt"]["trajectories"]


def test_online_test_episodes_become_past_runs(
    wired,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wired(lambda *a: answer("click", "7"))
    records, home = _test_records(tmp_path, "online", monkeypatch, wired.models)
    assert [r["success"] for r in records] == [True, True], records
    assert len(stored_runs(home, models=wired.models)) == 2
    assert records[1]["memory_in_prompt"]["trajectories"]
