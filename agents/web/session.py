"""The web agent run's browser environment, held by the run's own context (WebAgentContext).

A Playwright browser cannot live in graph state (it does not serialize), so it lives in the
context LangGraph hands every node of the run. The graph opens one on its first observation
and closes it when the run ends or fails. A caller that prepares the page itself (e.g. a
MiniWoB episode that must be seeded and started) attaches its own environment to the context
before the run, with an optional `evaluate` hook that reports the task's own end and reward;
the graph never closes an environment it did not open.

    context = WebAgentContext(...)
    attach(context, env, evaluate)   # optional: the graph otherwise opens one at start_url
    await web_graph.ainvoke({"task": ...}, context=context)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy

from browser.env import BrowserEnv, EnvConfig
from browser.limits import Limits
from browser.origins import OriginPolicy
from core.served_errors import CallerFacing
from core.web_context import WebAgentContext

# The graph's recursion limit is sized for this many actions.
MAX_STEPS_CAP = 60
# The nodes that call the model (plan, decide) are retried: model calls fail transiently.
# Browser steps are not (an action is not idempotent).
MODEL_RETRY = RetryPolicy(max_attempts=3)
# () -> (the task ended by itself, its reward or None when unknown)
Evaluate = Callable[[], Awaitable[tuple[bool, float | None]]]


@dataclass
class WebSession:
    env: BrowserEnv
    owned: bool  # opened by the graph, so the graph closes it
    evaluate: Evaluate | None = None


def env_config(ctx: WebAgentContext) -> EnvConfig:
    """The browser the run opens: the context's extra origins, step limit (capped) and
    whether observations carry a screenshot."""
    extra = tuple(o.strip() for o in ctx.allowed_origins if o.strip())
    steps = max(1, min(ctx.max_steps, MAX_STEPS_CAP))
    screenshot = ctx.observation != "axtree"  # each observation carries the viewport's PNG
    return EnvConfig(allowed_origins=extra, limits=Limits(max_steps=steps), screenshot=screenshot)


class StartRefused(CallerFacing, ValueError):
    """A served run's start page is not one its operator allows; the browser never opened."""


def check_start(ctx: WebAgentContext, start_url: str) -> None:
    """A served run starts only where its operator allows (`start_origins`, the guard's rules:
    '*' any public origin, a private address only when named); library use anywhere."""
    if ctx.start_origins is None:
        return
    if OriginPolicy(ctx.start_origins).check(start_url) is not None:
        shown = ", ".join(ctx.start_origins) or "none"
        raise StartRefused(
            f"start_url {start_url!r} is not at an origin this server allows (allowed: {shown})"
        )


def attach(ctx: WebAgentContext, env: BrowserEnv, evaluate: Evaluate | None = None) -> WebSession:
    """Hand the run a caller's environment (already reset on its start page); the caller
    closes it after the run."""
    if ctx.browser.session is not None:
        raise ValueError("this context already has a browser environment (one context per run)")
    session = WebSession(env, owned=False, evaluate=evaluate)
    ctx.browser.session = session
    return session


def session_of(ctx: WebAgentContext, run_id: str) -> WebSession | None:
    """The run's environment, if it has one; claims the context for `run_id` on first use."""
    holder = ctx.browser
    if holder.run_id is None:
        holder.run_id = run_id
    elif holder.run_id != run_id:
        raise RuntimeError(
            f"this WebAgentContext is in use by run {holder.run_id!r}: build one per run"
        )
    session = holder.session
    if session is not None and not isinstance(session, WebSession):
        raise TypeError(f"the context's browser is not a WebSession: {session!r}")
    return session


async def open_session(ctx: WebAgentContext, run_id: str) -> WebSession:
    """Start the run's own browser (the caller then resets it on the start page)."""
    if session_of(ctx, run_id) is not None:
        raise ValueError(f"run {run_id!r} already has a browser environment")
    env = BrowserEnv(env_config(ctx))
    await env.start()
    session = WebSession(env, owned=True)
    ctx.browser.session = session
    return session


async def close(ctx: WebAgentContext) -> None:
    """The run is over: forget its environment, close it if the graph opened it. Safe twice."""
    holder = ctx.browser
    session, holder.session, holder.run_id = holder.session, None, None
    if isinstance(session, WebSession) and session.owned:
        await session.env.close()


async def close_unless_retried(err: BaseException, runtime: Runtime[WebAgentContext]) -> None:
    """A model-calling node failed with `err`: close the run's browser, unless LangGraph will
    run the node again (MODEL_RETRY matches `err` and attempts are left)."""
    if not _retried(err, runtime):
        await close(runtime.context)


def _retried(err: BaseException, runtime: Runtime[WebAgentContext]) -> bool:
    if not isinstance(err, Exception):
        return False  # cancelled or interrupted: never retried
    info = runtime.execution_info
    attempt = info.node_attempt if info is not None else 1
    retry_on = MODEL_RETRY.retry_on
    if isinstance(retry_on, type):
        matches = isinstance(err, retry_on)
    elif isinstance(retry_on, Sequence):
        matches = isinstance(err, tuple(retry_on))
    else:
        matches = bool(retry_on(err))
    return matches and attempt < MODEL_RETRY.max_attempts
