"""The web agent's decide step as a MiniWoB policy: `policy(utterance, observation, history)`.

Same plan, prompt, memory and constrained decision as the graph's `plan` and `decide` nodes,
for harnesses that drive the browser themselves (evals.miniwob.run_miniwob). Memory is looked
up and the plan written once per episode (at its first action), like the graph does once per
run.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from agents.web.decide import decide_action
from agents.web.memory import gather_memory
from agents.web.plan import MAX_PLANS, make_plan, needs_plan
from browser.trajectory import TrajectoryStep
from core.models import Models
from core.web_context import WebAgentContext
from evals.miniwob.harness import Policy, PolicyDecision

MINIWOB_WEBSITE = "miniwob"


@dataclass
class WebPolicy:
    """Callable policy; `workflows` overrides retrieval (e.g. the AWM experiment's text)."""

    ctx: WebAgentContext
    website: str = MINIWOB_WEBSITE
    workflows: str | None = None
    _memory: dict[str, dict[str, str]] = field(default_factory=dict)
    _plan: list[str] = field(default_factory=list)  # the episode's plan (agents.web.plan)
    _plan_from: int = 0
    _plans: int = 0  # plans written this episode (MAX_PLANS when planning is off)

    def __post_init__(self) -> None:
        self._plans = 0 if self.ctx.plan_steps else MAX_PLANS

    async def __call__(
        self, utterance: str, observation: str, history: list[TrajectoryStep]
    ) -> PolicyDecision:
        memory = self._memory.get(utterance)
        if memory is None:
            memory = await asyncio.to_thread(self._gather_memory, utterance)
            self._memory = {utterance: memory}  # one episode at a time: keep only the latest
        last = history[-1] if history else None
        feedback = last.reason if last is not None and not last.valid else None
        model = self.ctx.chat("executor")
        if not history:  # a new episode
            self._plan, self._plan_from, self._plans = (
                [],
                0,
                0 if self.ctx.plan_steps else MAX_PLANS,
            )
        planned = 0  # the plan's tokens, counted with the decision they came before
        if needs_plan(self._plans, self._plan, self._plan_from, history, observation):
            self._plan, planned = await make_plan(
                model, utterance, observation, memory, done=history
            )
            self._plan_from, self._plans = len(history), self._plans + 1
        decision = await decide_action(
            model,
            utterance,
            observation,
            history,
            memory,
            feedback=feedback,
            plan=self._plan,
            plan_from=self._plan_from,
        )
        tokens = decision.tokens + planned
        return PolicyDecision(decision.action, tokens, tuple(self._plan))

    def _gather_memory(self, utterance: str) -> dict[str, str]:
        """The prompt's memory from the project's store under the context's home."""
        from memory.agent_memory import AgentMemory
        from memory.stores.project_store import open_project_store

        ctx = self.ctx
        with open_project_store(ctx.home, ctx.embedding_model, models=ctx.models) as store:
            memory = AgentMemory(store, ctx.memory_namespace, min_relevance=ctx.min_relevance)
            return gather_memory(memory, ctx, utterance, self.website, self.workflows)


def make_policy(
    model: str = "local",
    *,
    home: str,
    use_workflows: bool = True,
    workflows: str | None = None,
    trajectories_k: int = 2,
    website: str = MINIWOB_WEBSITE,
    models: Models | None = None,
    plan_steps: bool = True,
) -> Policy:
    """A MiniWoB policy on `model` (from `models`, the caller's), with memory under `home`
    (workflows on or off), planning on or off."""
    ctx = WebAgentContext(
        models=models or Models(),
        model=model,  # every role
        home=home,
        use_workflows=use_workflows,
        trajectories_k=trajectories_k,
        plan_steps=plan_steps,
    )
    return WebPolicy(ctx, website=website, workflows=workflows)
