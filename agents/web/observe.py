"""observe: the web agent's eyes. The run's first observation opens its browser (unless the
caller attached one) and gathers the run's memory once; every later one reads the page again."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from langgraph.runtime import Runtime

from agents import resources
from agents.web import session as web_session
from agents.web.memory import gather_memory
from agents.web.screenshot import check_observation
from core.state import WebAgentState
from core.web_context import WebAgentContext


async def observe(state: WebAgentState, runtime: Runtime[WebAgentContext]) -> dict[str, Any]:
    """Open the browser on the first call (unless the caller attached one), then read the page."""
    ctx = runtime.context
    run_id = state.get("run_id") or uuid.uuid4().hex
    session = web_session.session_of(ctx, run_id)
    try:
        if "memory" not in state:  # the run's first look: can the model see what it asks for?
            check_observation(ctx)
            resources.check_memory(runtime)
        if session is None:
            if not state.get("start_url"):
                raise ValueError(
                    "the web agent needs a start_url (or an environment attached to its context)"
                )
            web_session.check_start(ctx, state["start_url"])  # before the browser opens
            session = await web_session.open_session(ctx, run_id)
            observation = await session.env.reset(state["start_url"])
        else:
            observation = await session.env.observe()
        update: dict[str, Any] = {
            "run_id": run_id,
            "observation": observation.text,
            "url": observation.url,
        }
        if "memory" not in state:
            update["memory"] = await asyncio.to_thread(
                gather_memory,
                resources.memory(runtime),
                ctx,
                state["task"],
                state.get("website"),
                state.get("workflows"),
            )
        return update
    except BaseException:
        await web_session.close(ctx)
        raise
