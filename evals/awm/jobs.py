"""Jobs of the AWM MiniWoB++ experiment (run by evals.common.workers, in this process or on Ray).

`agent_episode`: one seeded episode of the web agent graph for one arm; MiniWoB's in-page
reward is the judge. Online, arms with reflections then write the episode's lesson.
`offline_workflows`: the oracle's demonstrations on training seeds, induced into workflows.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from browser.config import EnvConfig
from browser.limits import Limits
from evals.awm.arms import ARMS, arm_context
from evals.awm.miniwob import episode_trajectory
from evals.common.reflection import ReflectionFailed, reflect_on_attempt
from evals.common.resources import WorkerResources
from evals.miniwob.harness import website_of


async def _graph_episode(resources: WorkerResources, family: str, seed: int, ctx: Any) -> dict:
    from evals.miniwob.graph import run_graph_episode
    from evals.miniwob.jobs import miniwob_url

    config = EnvConfig(limits=Limits(max_steps=ctx.max_steps))
    browser = await resources.browser()
    return await run_graph_episode(
        family, seed, base_url=miniwob_url(resources), browser=browser, context=ctx, config=config
    )


def agent_episode(payload: dict[str, Any], resources: WorkerResources) -> dict[str, Any]:
    """Job payload: arm, setting, phase, family, seed, position, home, model, max_steps,
    online_induction, embedding_model, reflect (write a lesson afterwards), frozen (record
    nothing: the offline test phase)."""
    arm = ARMS[payload["arm"]]
    ctx = arm_context(
        arm,
        model=payload["model"],
        home=payload["home"],
        max_steps=payload["max_steps"],
        online_induction=payload["online_induction"],
        embedding_model=payload["embedding_model"],
        frozen=bool(payload.get("frozen")),
        models=resources.models,
    )
    family, seed = payload["family"], int(payload["seed"])
    started, error, state = time.perf_counter(), None, {}
    try:
        state = resources.run(_graph_episode(resources, family, seed, ctx))
    except Exception as err:  # noqa: BLE001 - a crashed episode is recorded as failed, with why
        error = f"{type(err).__name__}: {err}"
    reward = state.get("reward")
    steps = state.get("steps") or []
    memory = state.get("memory") or {}
    record = {
        **{k: payload[k] for k in ("arm", "setting", "phase", "family", "seed", "position")},
        "utterance": state.get("task", ""),
        "success": reward is not None and reward >= 1.0 and error is None,
        "reward": reward,
        "steps": len(steps),
        "tokens": int(state.get("tokens") or 0),
        "seconds": round(time.perf_counter() - started, 3),
        "stop": state.get("done_reason"),
        "error": error,
        "plan": list(state.get("plan") or []),
        "actions": [_shown(s) for s in steps],
        "memory_in_prompt": {k: bool(v) for k, v in memory.items()},
        "worker_pid": os.getpid(),
    }
    if payload.get("reflect") and error is None:
        record["reflection_error"] = _reflect(ctx, record)
    if arm.verified and record["success"] and state.get("trajectory_id"):
        from evals.awm.verify import verify_learned

        record["verification"] = verify_learned(
            resources, ctx, family, seed, str(state["trajectory_id"])
        )
    return record


def _shown(step: dict[str, Any]) -> str:
    """A step as the results show it: its action, or what the model said when it did not
    parse, and the workflow call that issued it, if any."""
    text = step.get("action") or f"unparsed {str(step.get('raw') or '')[:60]!r}"
    return f"{text} (via {step['call']})" if step.get("call") else text


def _reflect(ctx: Any, record: dict[str, Any]) -> str | None:
    """Save the episode's lesson into the arm's reflection memory; the reason when none."""
    from memory.agent_memory import AgentMemory
    from memory.stores.project_store import open_project_store

    model = ctx.chat("reflector")
    feedback = f"reward {record['reward']}" if record["reward"] is not None else "not finished"
    # the store the arm's graph reads its reflections from (evals.miniwob.graph)
    with open_project_store(ctx.home, ctx.embedding_model, models=ctx.models) as store:
        memory = AgentMemory(store, ctx.memory_namespace)
        try:
            reflect_on_attempt(
                model,
                memory,
                task=record["utterance"],
                attempt=record["actions"],
                success=record["success"],
                feedback=feedback,
            )
        except ReflectionFailed as err:
            return str(err)
        try:  # the reflector consolidates the arm's lessons into insights once enough piled up
            memory.consolidate(model)
        except Exception as err:  # noqa: BLE001 - a side job: the lesson itself is saved
            logging.getLogger(__name__).warning("memory consolidation failed: %s", err)
    return None


def offline_workflows(payload: dict[str, Any], resources: WorkerResources) -> dict[str, Any]:
    """Job payload: family, seeds (training), home (this family's demonstrations), induction
    ('rule' or 'llm'), model, embedding_model (the arm's store's). Records the oracle's solved
    demos in the home's store and induces workflows there."""
    from evals.miniwob.jobs import play
    from evals.miniwob.oracle import OraclePolicy
    from memory.agent_memory import AgentMemory
    from memory.stores.project_store import open_project_store
    from memory.workflows.online import induce_online

    family, home = payload["family"], payload["home"]
    demos = [
        resources.run(play(resources, family, int(s), OraclePolicy(family)))
        for s in payload["seeds"]
    ]
    model = None
    if payload["induction"] == "llm":
        model = resources.models.chat(payload["model"])
    embedding_model = payload.get("embedding_model", "local")
    with open_project_store(home, embedding_model, models=resources.models) as store:
        memory = AgentMemory(store)
        for demo in demos:
            if demo.success:
                trajectory = episode_trajectory(demo)
                trajectory.template_id = None  # each demo is its own annotated example
                memory.record_trajectory(trajectory)
        results = induce_online(
            memory,
            mode=payload["induction"],
            model=model,
            spec=payload["model"],
            website=website_of(family),
        )
    kept = [w.name for r in results.values() for w in r.kept]
    return {
        "family": family,
        "demos": len(demos),
        "solved": sum(d.success for d in demos),
        "workflows": kept,
    }
