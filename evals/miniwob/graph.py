"""The web agent graph itself on one MiniWoB++ episode (the harness's policy path skips the graph).

The episode is seeded and started here, the page is attached to the run's context through
agents.web.session with MiniWoB's in-page reward as the evaluator, and the graph runs its
observe → decide → act loop until the task ends, the agent stops, or a limit is hit.
"""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

from playwright.async_api import Browser

from agents.web import session as web_session
from browser.env import BrowserEnv, EnvConfig
from core.state import WebAgentInput
from core.web_context import WebAgentContext
from evals.miniwob.harness import read_reward, start_episode, website_of


async def run_graph_episode(
    task: str,
    seed: int,
    *,
    base_url: str,
    browser: Browser,
    context: WebAgentContext,
    config: EnvConfig | None = None,
) -> dict[str, Any]:
    """Run the compiled web agent graph on one episode; returns its final state."""
    from graphs.web import RECURSION_LIMIT, build_web_graph
    from memory.stores.project_store import open_project_store

    env = BrowserEnv(config, browser=browser)
    run_id = uuid.uuid4().hex
    try:
        utterance = await start_episode(env, base_url, task, seed)
        page = env.page

        async def evaluate() -> tuple[bool, float | None]:
            wob = await read_reward(page)
            if wob is None:  # the task page is gone: the episode cannot be scored
                return True, 0.0
            # Not finished means no reward: MiniWoB's own verdict, so no judge is needed.
            return bool(wob[0]), float(wob[1]) if wob[0] else 0.0

        run_context = replace(context)  # a copy holds this run's browser alone
        web_session.attach(run_context, env, evaluate)
        state = WebAgentInput(task=utterance, run_id=run_id, website=website_of(task))
        # the project's store under the context's home: the run's memory, as the CLI's runs have
        with open_project_store(
            context.home, context.embedding_model, models=context.models
        ) as store:
            graph = build_web_graph().compile(store=store, name="web_agent")
            graph = graph.with_config(recursion_limit=RECURSION_LIMIT)
            result: dict[str, Any] = await graph.ainvoke(state, context=run_context)
        return result
    finally:
        await env.close()
