"""A workflow as an action on real parts: induced from the oracle's MiniWoB++ runs, chosen by the
embedded model (the fast test model, SmolLM2-135M) through the grammar, expanded in real
chromium, rewarded by the page itself."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from browser.config import EnvConfig
from browser.limits import Limits
from core.model_catalogue import TEST_MODEL
from core.web_context import WebAgentContext
from memory.agent_memory import AgentMemory
from memory.stores.project_store import open_project_store
from memory.workflows.params import parameterize

pytestmark = pytest.mark.integration
TASK = "login-user"


@pytest.fixture(scope="module", autouse=True)
def parts():
    pytest.importorskip("llama_cpp", reason="the embedded model needs llama-cpp-python")
    pytest.importorskip("miniwob", reason="MiniWoB++ pages come from pip install miniwob==1.1.0")


def test_the_embedded_model_calls_an_induced_workflow_and_logs_in(tmp_path: Path) -> None:
    from evals.awm.miniwob import episode_trajectory
    from evals.miniwob.harness import run_miniwob, website_of
    from evals.miniwob.oracle import oracle_for

    # Offline induction: the oracle's runs on seeds 0 and 1 are the demonstrations.
    demos = asyncio.run(run_miniwob([TASK], 2, 0, oracle_for([TASK]), progress=None))
    assert [e.success for e in demos.episodes] == [True, True]
    workflow = parameterize([episode_trajectory(e) for e in demos.episodes], name="login_user")
    assert [s.split("  #")[0].split(" [")[0] for s in workflow.steps] == ["type", "type", "click"]
    assert "{username}" in workflow.steps[0] and "{password}" in workflow.steps[1]
    with open_project_store(tmp_path, "hashing") as store:
        AgentMemory(store).put_workflows(website_of(TASK), [workflow])

    # Hashing embeddings: retrieval is not under test, and MiniLM would add seconds to load.
    ctx = WebAgentContext(
        home=str(tmp_path),
        executor_model=f"local:{TEST_MODEL}",
        reflector_model=f"local:{TEST_MODEL}",
        workflow_actions=True,
        online_induction="off",
        judge_runs=False,
        embedding_model="hashing",
        reflections_k=0,
        trajectories_k=0,
    )
    out = asyncio.run(_graph_episode(ctx, 5))  # a test seed the demonstrations never saw
    calls = {s["call"] for s in out["steps"]}
    assert len(calls) == 1 and next(iter(calls)).startswith("login_user(username=")
    assert [s["action"].split(" [")[0] for s in out["steps"]] == ["type", "type", "click"]
    assert all(s["valid"] for s in out["steps"])
    assert out["reward"] == 1.0 and out["done_reason"] == "task_done" and out["success"]


async def _graph_episode(ctx: WebAgentContext, seed: int) -> dict:
    """The web agent graph on one login-user episode, in real chromium."""
    from playwright.async_api import async_playwright

    from browser.chromium import launch_browser
    from evals.common.static_server import serve_directory
    from evals.miniwob.graph import run_graph_episode
    from evals.miniwob.harness import miniwob_html_dir

    async with async_playwright() as playwright:
        browser = await launch_browser(playwright)
        try:
            with serve_directory(miniwob_html_dir()) as base_url:
                return await run_graph_episode(
                    TASK,
                    seed,
                    base_url=base_url,
                    browser=browser,
                    context=ctx,
                    config=EnvConfig(limits=Limits(max_steps=3)),
                )
        finally:
            await browser.close()
