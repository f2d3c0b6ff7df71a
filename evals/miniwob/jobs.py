"""MiniWoB++ episodes as worker jobs (evals.common.workers): one seeded episode in, one record out.

`oracle_episode` plays the scripted oracle (deterministic: the same seed gives the same
actions), for the Ray equivalence test and the workers bench. The agent's own episodes are
jobs of evals.awm.protocol.
"""

from __future__ import annotations

import os
from dataclasses import asdict, fields
from typing import Any

from browser.env import BrowserEnv, EnvConfig
from browser.limits import Limits
from evals.common.resources import WorkerResources
from evals.miniwob.harness import EpisodeResult, Policy, miniwob_html_dir, run_episode, website_of


def episode_record(episode: EpisodeResult) -> dict[str, Any]:
    """The JSON record of an episode: outcome, cost, and the actions taken (no page dumps)."""
    record = asdict(episode)
    record.pop("trajectory")
    record["success"] = episode.success
    record["actions"] = [s.get("action") for s in episode.trajectory]
    record["worker_pid"] = os.getpid()  # which process ran it (not part of the outcome)
    return record


def miniwob_url(resources: WorkerResources) -> str:
    """Base URL of the MiniWoB++ task pages, served by this worker."""
    return resources.serve(miniwob_html_dir())


async def play(
    resources: WorkerResources, task: str, seed: int, policy: Policy, max_steps: int = 30
) -> EpisodeResult:
    """One episode on this worker's browser and MiniWoB server."""
    browser = await resources.browser()
    config = EnvConfig(limits=Limits(max_steps=max_steps))
    async with BrowserEnv(config, browser=browser) as env:
        return await run_episode(env, miniwob_url(resources), task, seed, policy)


def oracle_episode(payload: dict[str, Any], resources: WorkerResources) -> dict[str, Any]:
    """Job: {"task", "seed", "max_steps"?} played by the task's scripted oracle."""
    from evals.miniwob.oracle import OraclePolicy

    task, seed = str(payload["task"]), int(payload["seed"])
    episode = resources.run(
        play(resources, task, seed, OraclePolicy(task), int(payload.get("max_steps", 30)))
    )
    return {"family": task, **episode_record(episode)}


def policy_episode(payload: dict[str, Any], resources: WorkerResources) -> dict[str, Any]:
    """Job: {"task", "seed", "model", "home", "workflows", "plan"?, "max_steps"} played by the
    web agent's plan and decide steps (evals.miniwob.policy); the record keeps the trajectory
    for memory."""
    from evals.miniwob.policy import make_policy

    task, seed = str(payload["task"]), int(payload["seed"])
    policy = make_policy(
        payload["model"],
        home=payload["home"],
        use_workflows=bool(payload["workflows"]),
        plan_steps=bool(payload.get("plan", True)),
        website=website_of(task),
        models=resources.models,
    )
    episode = resources.run(play(resources, task, seed, policy, int(payload["max_steps"])))
    return {"family": task, **episode_record(episode), "trajectory": episode.trajectory}


def episode_from_record(record: dict[str, Any]) -> EpisodeResult:
    """The EpisodeResult a job's record was made from (for tables and memory)."""
    values: dict[str, Any] = {f.name: record.get(f.name) for f in fields(EpisodeResult)}
    values["trajectory"] = values["trajectory"] or []
    return EpisodeResult(**values)
