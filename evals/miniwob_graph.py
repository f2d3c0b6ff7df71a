"""The web agent graph itself on one MiniWoB++ episode (the harness's policy path skips the graph).

The episode is seeded and started here, the page is attached to the graph through
agents.web.session with MiniWoB's in-page reward as the evaluator, and the graph runs its
observe → decide → act loop until the task ends, the agent stops, or a limit is hit.
"""

from __future__ import annotations

import uuid
from typing import Any

from playwright.async_api import Browser

from agents.web import session as web_session
from browser.env import BrowserEnv, EnvConfig
from core.state import WebAgentInput
from core.web_context import WebAgentContext
from evals.awm_miniwob import website_of
from evals.miniwob import _START_JS, HIDE_HUD_CSS, _read_reward


async def start_episode(env: BrowserEnv, base_url: str, task: str, seed: int) -> str:
    """Open, seed and start a MiniWoB task page; returns its utterance."""
    await env.reset(f"{base_url}/miniwob/{task}.html")
    page = env.page
    await page.add_style_tag(content=HIDE_HUD_CSS)
    await page.evaluate(_START_JS, seed)
    await page.wait_for_function("WOB_TASK_READY === true")
    return str(await page.evaluate("core.getUtterance()"))


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
    from graphs.web_agent import graph

    env = BrowserEnv(config, browser=browser)
    run_id = uuid.uuid4().hex
    try:
        utterance = await start_episode(env, base_url, task, seed)
        page = env.page

        async def evaluate() -> tuple[bool, float | None]:
            wob = await _read_reward(page)
            if wob is None:  # the task page is gone: the episode cannot be scored
                return True, 0.0
            # Not finished means no reward: MiniWoB's own verdict, so no judge is needed.
            return bool(wob[0]), float(wob[1]) if wob[0] else 0.0

        web_session.attach(run_id, env, evaluate)
        state = WebAgentInput(task=utterance, run_id=run_id, website=website_of(task))
        result: dict[str, Any] = await graph.ainvoke(state, context=context)
        return result
    finally:
        web_session.detach(run_id)
        await env.close()
