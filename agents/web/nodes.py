"""The web agent's nodes: observe the page, decide one action, act, and finish the episode.

The browser lives in `agents.web.session` under the run id kept in state; `finish` closes it
at the end and a node that fails for good closes it, so no chromium outlives its run. `decide`
is retried by DECIDE_RETRY (model calls fail transiently), so it closes the browser only when
LangGraph will not run it again: the error is not retried, or this was the last attempt.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy

from agents import resources
from agents.web import session as web_session
from agents.web.decide import decide_action
from agents.web.memory import format_past_trajectories, record_episode, similar_trajectories
from agents.web.workflow_actions import WorkflowAction, actions_from_text, perform
from browser.config import EnvConfig
from browser.limits import Limits
from browser.trajectory import TrajectoryStep
from core.state import WebAgentState
from core.web_context import WebAgentContext

log = logging.getLogger(__name__)
MAX_STEPS_CAP = 60  # the graph's recursion limit is sized for this many actions
# Model calls may fail transiently; browser steps are not retried (an action is not idempotent).
DECIDE_RETRY = RetryPolicy(max_attempts=3)


def env_config(ctx: WebAgentContext) -> EnvConfig:
    extra = tuple(o.strip() for o in ctx.allowed_origins if o.strip())
    steps = max(1, min(ctx.max_steps, MAX_STEPS_CAP))
    return EnvConfig(allowed_origins=extra, limits=Limits(max_steps=steps))


def gather_memory(
    ctx: WebAgentContext, task: str, website: str | None, workflows: str | None
) -> dict[str, str]:
    """Reflections, workflows and similar past runs for the prompt (looked up once per run),
    each past the relevance floor `ctx.min_relevance`."""
    manager = resources.reflection_manager(ctx)
    reflections = manager.format_reflections(
        manager.get_relevant_reflections(task, k=ctx.reflections_k)
    )
    if workflows is None and ctx.use_workflows and ctx.workflows_k > 0:
        from memory.workflow_retrieval import relevant_workflows_text

        workflows = relevant_workflows_text(
            task,
            home=ctx.home,
            k=ctx.workflows_k,
            embeddings=resources.embeddings(ctx),
            website=website,
            min_relevance=ctx.min_relevance,
        )
    runs = similar_trajectories(
        task,
        home=ctx.home,
        k=ctx.trajectories_k,
        website=website,
        embeddings=resources.embeddings(ctx),
        min_relevance=ctx.min_relevance,
    )
    return {
        "reflections": reflections,
        "workflows": workflows or "",
        "trajectories": format_past_trajectories(runs),
    }


async def observe(state: WebAgentState, runtime: Runtime[WebAgentContext]) -> dict[str, Any]:
    """Open the browser on the first call (unless the caller attached one), then read the page."""
    ctx = runtime.context
    run_id = state.get("run_id") or uuid.uuid4().hex
    try:
        session = web_session.get(run_id)
        if session is None:
            if not state.get("start_url"):
                raise ValueError(
                    "the web agent needs a start_url (or a run_id with an attached environment)"
                )
            session = await web_session.open_session(run_id, env_config(ctx))
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
                gather_memory, ctx, state["task"], state.get("website"), state.get("workflows")
            )
        return update
    except BaseException:
        await web_session.close(run_id)
        raise


def _history(state: WebAgentState) -> list[TrajectoryStep]:
    return [TrajectoryStep(**step) for step in state.get("steps") or []]


def _workflow_actions(ctx: WebAgentContext, state: WebAgentState) -> list[WorkflowAction]:
    """The prompt's workflows that can run as actions (none unless ctx.workflow_actions)."""
    if not ctx.workflow_actions:
        return []
    return actions_from_text((state.get("memory") or {}).get("workflows", ""))


def _retried(err: BaseException, runtime: Runtime[WebAgentContext]) -> bool:
    """Will LangGraph run `decide` again after `err` (DECIDE_RETRY, attempts left)?"""
    if not isinstance(err, Exception):
        return False  # cancelled or interrupted: never retried
    info = runtime.execution_info
    attempt = info.node_attempt if info is not None else 1
    retry_on = DECIDE_RETRY.retry_on
    if isinstance(retry_on, type):
        matches = isinstance(err, retry_on)
    elif isinstance(retry_on, Sequence):
        matches = isinstance(err, tuple(retry_on))
    else:
        matches = bool(retry_on(err))
    return matches and attempt < DECIDE_RETRY.max_attempts


async def decide(state: WebAgentState, runtime: Runtime[WebAgentContext]) -> dict[str, Any]:
    """Ask the executor model for one action, constrained to the page's ids and validated."""
    history = _history(state)
    last = history[-1] if history else None
    feedback = last.reason if last is not None and not last.valid else None
    try:
        model = resources.chat_model(runtime.context.executor_model)
        decision = await decide_action(
            model, state["task"], state.get("observation", ""), history, state.get("memory") or {},
            feedback=feedback, actions=_workflow_actions(runtime.context, state),
        )  # fmt: skip
    except BaseException as err:
        if not _retried(err, runtime):
            await web_session.close(state["run_id"])
        raise
    if not decision.valid:
        log.info("web agent: invalid action %r (%s)", decision.action, decision.reason)
    return {"pending_action": decision.action, "tokens": decision.tokens}


async def act(state: WebAgentState, runtime: Runtime[WebAgentContext]) -> dict[str, Any]:
    """Carry out the pending action (a workflow call expands into its steps); the env records
    each step and applies the limits."""
    run_id = state["run_id"]
    session = web_session.get(run_id)
    if session is None:
        raise RuntimeError(f"run {run_id!r} has no browser environment (was it closed?)")
    evaluate = session.evaluate

    async def task_ended() -> bool:
        return evaluate is not None and (await evaluate())[0]

    try:
        env, before = session.env, len(session.env.trajectory)
        actions = _workflow_actions(runtime.context, state)
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
        await web_session.close(run_id)
        raise


async def finish(state: WebAgentState, runtime: Runtime[WebAgentContext]) -> dict[str, Any]:
    """Settle the outcome (evaluator reward, else the LLM judge), record the run, close."""
    ctx = runtime.context
    run_id = state["run_id"]
    try:
        reward = state.get("reward")
        session = web_session.get(run_id)
        if reward is None and session is not None and session.evaluate is not None:
            _, reward = await session.evaluate()
        if reward is not None:
            success, judged_by = reward >= 1.0, "evaluator"
        else:
            success, judged_by = await asyncio.to_thread(_judge, ctx, state)
        trajectory_id = await asyncio.to_thread(_record, ctx, state, success, judged_by)
    finally:
        await web_session.close(run_id)
    update: dict[str, Any] = {"reward": reward, "success": success, "judged_by": judged_by}
    if trajectory_id is not None:
        update["trajectory_id"] = trajectory_id
    return update


def _judge(ctx: WebAgentContext, state: WebAgentState) -> tuple[bool, str]:
    """The LLM auto-judge's verdict; a judge that gives none counts as failure, said so."""
    if not ctx.judge_runs:
        return False, "unjudged"
    from agents.judge import JudgeError, LLMJudge

    judge = LLMJudge(resources.chat_model(ctx.reflector_model))
    try:
        verdict = judge.judge_episode(
            state["task"],
            state.get("steps") or [],
            final_url=state.get("url", ""),
            answer=state.get("answer", ""),
        )
    except JudgeError as err:
        log.warning("web agent: the judge gave no verdict (%s); the run counts as failed", err)
        return False, "unjudged"
    return verdict.success, "llm-judge"


def _record(
    ctx: WebAgentContext, state: WebAgentState, success: bool, judged_by: str
) -> str | None:
    """Record the trajectory; after a success, online induction may update the workflows.
    Nothing is recorded (None) when memory is frozen (`ctx.record_runs` off)."""
    if not ctx.record_runs:
        return None
    website = state.get("website") or "general"
    steps = state.get("steps") or []
    if ctx.online_induction in ("rule", "llm"):
        from memory.trajectories import trajectory_from_web_steps
        from memory.workflow_online import OnlineInduction

        trajectory = trajectory_from_web_steps(
            state["task"], steps, website=website, success=success, judged_by=judged_by
        )
        model = resources.chat_model(ctx.reflector_model) if ctx.online_induction == "llm" else None
        OnlineInduction(ctx.home, mode=ctx.online_induction, model=model).after_run(trajectory)
        return trajectory.id
    return record_episode(
        ctx.home, state["task"], steps, website=website, success=success, judged_by=judged_by
    ).id
