"""The arms of the AWM MiniWoB++ experiment: which memories each arm's web agent may use.

    no-memory         nothing remembered, nothing retrieved
    workflows         induced workflows in the prompt (AWM)
    workflow-actions  workflows in the prompt and callable as high-level actions (AWM's
                      action variant; needs the web agent's `workflow_actions` setting)
    workflow-actions-verified
                      the same, admitting only workflows whose replay on the seed they were
                      learned on succeeded (ASI; evals/awm/verify.py)
    reflections       lessons from earlier attempts (reflection memory) only
    everything        all of the above, plus similar past runs in the prompt (MMInA; offline,
                      only the training phase's runs: test episodes are never recorded)

Each arm has its own data directory per task family, so arms never see each other's memory.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from core.models import Models
from core.web_context import WebAgentContext


@dataclass(frozen=True)
class Arm:
    name: str
    workflows: bool = False
    workflow_actions: bool = False
    reflections: bool = False
    past_runs: bool = False
    verified: bool = False


ARMS = {
    a.name: a
    for a in (
        Arm("no-memory"),
        Arm("workflows", workflows=True),
        Arm("workflow-actions", workflows=True, workflow_actions=True),
        Arm("workflow-actions-verified", workflows=True, workflow_actions=True, verified=True),
        Arm("reflections", reflections=True),
        Arm("everything", workflows=True, workflow_actions=True, reflections=True, past_runs=True),
    )
}


class ArmUnavailable(ValueError):
    """An arm needs something this build of the agent does not have; the message says what."""


def parse_arms(text: str) -> list[Arm]:
    """`all` or a comma-separated list of arm names, in the order given."""
    names = (
        list(ARMS) if text.strip() == "all" else [n.strip() for n in text.split(",") if n.strip()]
    )
    unknown = [n for n in names if n not in ARMS]
    if unknown or not names:
        raise ValueError(f"unknown arm(s) {unknown or text!r}; choose from all, {', '.join(ARMS)}")
    return [ARMS[n] for n in dict.fromkeys(names)]


def supports_workflow_actions() -> bool:
    return any(f.name == "workflow_actions" for f in dataclasses.fields(WebAgentContext))


def check_available(arms: list[Arm]) -> None:
    """Refuse, before anything runs, arms this build cannot honour (never run them silently
    as another arm)."""
    needs = [a.name for a in arms if a.workflow_actions]
    if needs and not supports_workflow_actions():
        raise ArmUnavailable(
            f"arm(s) {', '.join(needs)} need the web agent's workflow_actions setting "
            "(workflows as callable actions), which this build does not have; "
            "leave them out of --arms"
        )


def arm_context(
    arm: Arm,
    *,
    model: str,
    home: str,
    max_steps: int,
    online_induction: str,
    embedding_model: str = "local",
    frozen: bool = False,
    models: Models | None = None,
) -> WebAgentContext:
    """The web agent's Context for one episode of `arm`, memory under `home`.

    `online_induction` is 'rule'/'llm' in the online setting, 'off' offline; it applies only to
    arms that use workflows. `frozen` (the offline test phase) records nothing: no trajectory,
    so no test episode ever becomes a past run or a workflow of a later one. `models` are the
    worker's (built for this context when not given).
    """
    settings: dict[str, object] = dict(
        model=model,  # every role
        embedding_model=embedding_model,
        home=home,
        max_steps=max_steps,
        use_workflows=arm.workflows,
        workflows_k=3 if arm.workflows else 0,
        reflections_k=3 if arm.reflections else 0,
        trajectories_k=2 if arm.past_runs else 0,
        online_induction=online_induction if arm.workflows else "off",
        judge_runs=False,  # MiniWoB's reward is the judge
        record_runs=not frozen,
    )
    if arm.workflow_actions:
        settings["workflow_actions"] = True
    if arm.verified:
        settings["verified_workflows"] = True
    return WebAgentContext(models=models or Models(), **settings)  # type: ignore[arg-type]
