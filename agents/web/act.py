"""act: carry out the decided action in the run's browser (a workflow call expands into its
steps); the environment records each step and applies the episode's limits."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from agents.web import session as web_session
from agents.web.workflow_actions import perform, prompt_actions
from core.state import WebAgentState
from core.web_context import WebAgentContext


async def act(state: WebAgentState, runtime: Runtime[WebAgentContext]) -> dict[str, Any]:
    """Carry out the pending action; the episode ends on stop, a limit or the task's own end."""
    ctx = runtime.context
    run_id = state["run_id"]
    session = web_session.session_of(ctx, run_id)
    if session is None:
        raise RuntimeError(f"run {run_id!r} has no browser environment (was it closed?)")
    evaluate = session.evaluate

    async def task_ended() -> bool:
        return evaluate is not None and (await evaluate())[0]

    try:
        env, before = session.env, len(session.env.trajectory)
        actions = prompt_actions(ctx, state)
        await perform(env, state.get("pending_action") or "noop", actions, should_stop=task_ended)
        update: dict[str, Any] = {"steps": [s.to_dict() for s in env.trajectory[before:]]}
        if evaluate is not None:
            ended, reward = await evaluate()
            if ended:
                update.update(done_reason="task_done", reward=reward)
                return update
        if env.done_reason is not None:
            update["done_reason"] = env.done_reason
            update["answer"] = env.answer or ""
        return update
    except BaseException:
        await web_session.close(ctx)
        raise
