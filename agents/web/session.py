"""Per-run browser environments for the web agent graph, keyed by run id.

A Playwright browser cannot live in graph state (it is not serializable), so the graph keeps a
run id in state and the environment here. The graph opens one on its first observation and
closes it when the run ends or fails. A caller that prepares the page itself (e.g. a MiniWoB
episode that must be seeded and started) registers its own environment with `attach`, plus an
optional `evaluate` hook that reports the task's own end and reward; the graph never closes an
environment it did not open.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from browser.env import BrowserEnv, EnvConfig

log = logging.getLogger(__name__)

# () -> (the task ended by itself, its reward or None when unknown)
Evaluate = Callable[[], Awaitable[tuple[bool, float | None]]]


@dataclass
class WebSession:
    env: BrowserEnv
    owned: bool  # opened by the graph, so the graph closes it
    evaluate: Evaluate | None = None


_SESSIONS: dict[str, WebSession] = {}


def get(run_id: str) -> WebSession | None:
    return _SESSIONS.get(run_id)


def attach(run_id: str, env: BrowserEnv, evaluate: Evaluate | None = None) -> WebSession:
    """Register a caller's environment (already reset on its start page) for `run_id`."""
    if run_id in _SESSIONS:
        raise ValueError(f"run {run_id!r} already has a browser environment")
    session = WebSession(env, owned=False, evaluate=evaluate)
    _SESSIONS[run_id] = session
    return session


async def open_session(run_id: str, config: EnvConfig | None = None) -> WebSession:
    """Start a browser for `run_id` (the caller then resets it on the start page)."""
    if run_id in _SESSIONS:
        raise ValueError(f"run {run_id!r} already has a browser environment")
    env = BrowserEnv(config)
    await env.start()
    session = WebSession(env, owned=True)
    _SESSIONS[run_id] = session
    return session


async def close(run_id: str) -> None:
    """Forget the run's environment; close it if the graph opened it. Safe to call twice."""
    session = _SESSIONS.pop(run_id, None)
    if session is not None and session.owned:
        await session.env.close()


def detach(run_id: str) -> None:
    """Forget a caller's environment without closing it (the caller owns it)."""
    _SESSIONS.pop(run_id, None)


def open_runs() -> list[str]:
    return list(_SESSIONS)
