"""ASI's admission check on MiniWoB++: after a successful episode, each workflow induced from it
is replayed on the seed it was learned on (a fresh page, the same seed), called as one action
with the values the episode used; its verification record (when, where, passed, why) is stored
with it, and an arm with `verified_workflows` admits only the workflows that passed.
"""

from __future__ import annotations

from typing import Any

from agents.web.workflow_actions import as_action
from browser.config import EnvConfig
from browser.env import BrowserEnv
from browser.limits import Limits
from browser.macro import run_macro
from evals.awm.verification import arguments_from, unverified_from, verification
from evals.common.resources import WorkerResources
from evals.miniwob.harness import read_reward, start_episode, website_of
from memory.workflows.types import Workflow


async def replay(
    resources: WorkerResources,
    family: str,
    seed: int,
    workflow: Workflow,
    args: dict[str, str],
    max_steps: int,
) -> tuple[bool, str]:
    """Run `workflow` with `args` as one call on a fresh `family` page at `seed`: did MiniWoB
    reward it (≥ 1), and what happened."""
    from evals.miniwob.jobs import miniwob_url

    action = as_action(workflow)
    if action is None:
        return False, "not callable: a step has no element to find on a page"
    call = f"{action.name}({', '.join(f'{k}={v!r}' for k, v in args.items())})"
    config = EnvConfig(limits=Limits(max_steps=max_steps))
    async with BrowserEnv(config, browser=await resources.browser()) as env:
        await start_episode(env, miniwob_url(resources), family, seed)
        await env.observe()  # the page as the macro finds its targets in
        result = await run_macro(env, call, action.bind(args))
        wob = await read_reward(env.page)
    reward = float(wob[1]) if wob and wob[0] else 0.0
    detail = f"reward {reward}" + (f"; {result.reason}" if result.reason else "")
    return reward >= 1.0, detail


def verify_learned(
    resources: WorkerResources, ctx: Any, family: str, seed: int, trajectory_id: str
) -> dict[str, Any]:
    """Replay every workflow learned from the episode `trajectory_id` (never replayed yet) on
    `family` at `seed` and store its verification record; how many were replayed, admitted."""
    from memory.agent_memory import AgentMemory
    from memory.stores.project_store import open_project_store

    site = website_of(family)
    with open_project_store(ctx.home, ctx.embedding_model, models=ctx.models) as store:
        memory = AgentMemory(store, ctx.memory_namespace)
        pending = unverified_from(memory.workflows(site), trajectory_id)
        source = next((t for t in memory.trajectories(site) if t.id == trajectory_id), None)
        steps = [s.action for s in source.steps] if source else []
        for workflow in pending:
            args = arguments_from(workflow, steps)
            if args is None:
                passed, detail = False, "its steps do not fit the run it was learned from"
            else:
                replayed = replay(resources, family, seed, workflow, args, ctx.max_steps)
                passed, detail = resources.run(replayed)
            where = f"miniwob/{family}#seed{seed}"
            workflow.provenance.verification = verification(where, passed, detail)
        if pending:
            memory.put_workflows(site, pending)
    admitted = [w.name for w in pending if w.provenance.verified]
    return {"replayed": len(pending), "admitted": len(admitted), "names": admitted}


def admissions(records: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per arm that verifies: workflows replayed (learned and checked) and admitted."""
    out: dict[str, dict[str, int]] = {}
    for r in records:
        if isinstance(r.get("verification"), dict):
            arm = out.setdefault(str(r["arm"]), {"replayed": 0, "admitted": 0})
            arm["replayed"] += int(r["verification"]["replayed"])
            arm["admitted"] += int(r["verification"]["admitted"])
    return out
