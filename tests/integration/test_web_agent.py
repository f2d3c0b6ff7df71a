"""The web agent on real parts: the embedded model (the fast test model, SmolLM2-135M: the
subject is the agent's loop, not its choices), real chromium, MiniWoB pages on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from browser.config import EnvConfig
from browser.limits import Limits
from core.model_catalogue import TEST_MODEL
from core.web_context import WebAgentContext
from tests.unit.memory.records import stored_runs

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
PAGE = """<!doctype html><title>Greeting</title>
<p>Say hello.</p><input aria-label="Name"><button onclick="document.title='Done'">Send</button>"""
MODEL = f"local:{TEST_MODEL}"


@pytest.fixture(scope="module", autouse=True)
def local_model():
    # Only a missing optional part skips; a model that crashes or answers badly fails the test.
    pytest.importorskip("llama_cpp", reason="the embedded model needs llama-cpp-python")
    pytest.importorskip("miniwob", reason="MiniWoB++ pages come from pip install miniwob==1.1.0")


def test_graph_runs_a_miniwob_episode_on_the_embedded_model(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    from browser.chromium import launch_browser
    from evals.common.static_server import serve_directory
    from evals.miniwob.graph import run_graph_episode
    from evals.miniwob.harness import miniwob_html_dir

    ctx = WebAgentContext(
        home=str(tmp_path), executor_model=MODEL, reflector_model=MODEL, online_induction="rule"
    )
    limits = Limits(max_steps=2)  # the embedded model is slow on a busy 2-core machine

    async def main() -> dict:
        async with async_playwright() as playwright:
            browser = await launch_browser(playwright)
            try:
                with serve_directory(miniwob_html_dir()) as base_url:
                    return await run_graph_episode(
                        "click-button",
                        0,
                        base_url=base_url,
                        browser=browser,
                        context=ctx,
                        config=EnvConfig(limits=limits),
                    )
            finally:
                await browser.close()

    out = asyncio.run(main())
    assert out["done_reason"] and 1 <= len(out["steps"]) <= limits.max_steps
    # MiniWoB's own verdict (its raw reward): 1 done and right, -1 done and wrong (the model
    # clicked another button), 0 not finished
    assert out["judged_by"] == "evaluator" and out["reward"] in (-1.0, 0.0, 1.0)
    assert out["success"] is (out["reward"] == 1.0)
    assert out["tokens"] > 0
    runs = stored_runs(
        tmp_path, "miniwob-click-button", spec=ctx.embedding_model, models=ctx.models
    )
    assert [r.id for r in runs] == [out["trajectory_id"]]
    assert ctx.browser.session is None  # the episode's browser was held by its own copy


def test_graph_opens_and_closes_its_own_browser(tmp_path: Path) -> None:
    """No caller environment: the graph opens chromium at start_url and judges the run itself;
    compiled with the project's store, as the CLI's are, it records the run there."""
    from evals.common.static_server import serve_directory
    from graphs.web import RECURSION_LIMIT, build_web_graph
    from memory.stores.project_store import open_project_store

    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(PAGE, encoding="utf-8")
    ctx = WebAgentContext(
        home=str(tmp_path / "home"),
        executor_model=MODEL,
        reflector_model=MODEL,
        max_steps=2,
        online_induction="off",
    )
    with serve_directory(tmp_path / "site") as base_url:
        state = {
            "task": "Send a greeting",
            "start_url": f"{base_url}/index.html",
            "website": "greet",
        }
        with open_project_store(ctx.home, ctx.embedding_model, models=ctx.models) as store:
            graph = build_web_graph().compile(store=store)
            graph = graph.with_config(recursion_limit=RECURSION_LIMIT)
            out = asyncio.run(graph.ainvoke(state, context=ctx))
    assert out["done_reason"] and len(out["steps"]) <= 2
    # the judge's answer is grammar-constrained: a verdict must come back, not "unjudged"
    assert out["judged_by"] == "llm-judge" and isinstance(out["success"], bool)
    runs = stored_runs(ctx.home, "greet", spec=ctx.embedding_model, models=ctx.models)
    assert len(runs) == 1
    assert ctx.browser.session is None  # the graph closed the browser it opened


def test_eval_miniwob_cli_json(tmp_path: Path) -> None:
    env = {**os.environ, "AGENT_HOME": str(tmp_path)}
    result = subprocess.run(
        [
            sys.executable,
            "main.py",
            "eval",
            "miniwob",
            "--tasks",
            "click-button",
            "--episodes",
            "2",
            "--max-steps",
            "2",
            "--model",
            MODEL,
            "--json",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout)
    assert 0.0 <= out["success_rate"] <= 1.0 and out["total_tokens"] > 0
    assert out["tasks"][0]["task"] == "click-button" and out["tasks"][0]["episodes"] == 2
    assert Path(out["report"]).is_file() and Path(out["report"]).parent == tmp_path / "reports"
    assert "[miniwob] 1/2 " in result.stderr and "[miniwob] 2/2 " in result.stderr  # progress
    assert out["trajectories_recorded"] == 2
