"""finish: settle the web agent run's outcome (the task's own reward, else the LLM judge),
record the run in memory, and close the run's browser."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from langgraph.runtime import Runtime

from agents import resources
from agents.judge import EpisodeJudgment, JudgeError, LLMJudge, episode_text, read_episode
from agents.web import session as web_session
from agents.web.memory import record_run
from core.state import WebAgentState
from core.web_context import WebAgentContext
from prompts.untrusted import data
from prompts.web import EPISODE_SUCCESS

log = logging.getLogger(__name__)


async def finish(state: WebAgentState, runtime: Runtime[WebAgentContext]) -> dict[str, Any]:
    """Settle the outcome (evaluator reward, else the LLM judge), record the run, close."""
    ctx = runtime.context
    session = web_session.session_of(ctx, state["run_id"])
    try:
        reward = state.get("reward")
        if reward is None and session is not None and session.evaluate is not None:
            _, reward = await session.evaluate()
        if reward is not None:
            success, judged_by = reward >= 1.0, "evaluator"
        else:
            success, judged_by = await asyncio.to_thread(_judge, ctx, state)
        trajectory_id = await asyncio.to_thread(
            record_run,
            resources.memory(runtime),
            ctx,
            state["task"],
            state.get("steps") or [],
            website=state.get("website") or "general",
            success=success,
            judged_by=judged_by,
        )
    finally:
        await web_session.close(ctx)
    update: dict[str, Any] = {"reward": reward, "success": success, "judged_by": judged_by}
    if trajectory_id is not None:
        update["trajectory_id"] = trajectory_id
    return update


def _judge(ctx: WebAgentContext, state: WebAgentState) -> tuple[bool, str]:
    """The LLM auto-judge's verdict; a judge that gives none counts as failure, said so."""
    if not ctx.judge_runs:
        return False, "unjudged"
    judge = LLMJudge(ctx.chat("reflector"))
    try:
        verdict = judge_episode(
            judge,
            state["task"],
            state.get("steps") or [],
            final_url=state.get("url", ""),
            answer=state.get("answer", ""),
        )
    except JudgeError as err:
        log.warning("web agent: the judge gave no verdict (%s); the run counts as failed", err)
        return False, "unjudged"
    return verdict.success, "llm-judge"


def judge_episode(
    judge: LLMJudge, task: str, steps: Sequence[Any], *, final_url: str = "", answer: str = ""
) -> EpisodeJudgment:
    """Success or failure, with reasons, for a run that has no reference answer."""
    prompt = EPISODE_SUCCESS.format(
        task=data(task),
        trajectory=data(episode_text(steps, judge.max_trajectory_chars)),
        final_url=data(final_url or "(unknown)"),
        answer=data(answer or "(none)"),
    )
    return judge.ask(EpisodeJudgment, prompt, read_episode)
