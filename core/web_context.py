"""Run-time configuration of the web agent: its models, memory, browser and step limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from pydantic.json_schema import SkipJsonSchema

from core.context import MemorySettings
from core.role_models import ModelChoice, ModelSettings, role_field

# What the web agent's observation shows the model (agents/web/screenshot.py).
OBSERVATIONS = ("axtree", "screenshot", "both")


@dataclass(eq=False)
class RunBrowser:
    """The browser environment one run works in, shared by the run's nodes.

    A live browser cannot be graph state (it does not serialize), and LangGraph hands every
    node of a run the same context object, so the run's context holds it. `session` is an
    agents.web.session.WebSession (this layer cannot name it): attached by the caller before
    the run, or opened by the run's first observation and closed by the run.
    """

    session: object | None = None
    run_id: str | None = None  # the run using it: one context serves one run at a time


@dataclass(kw_only=True)
class WebAgentContext(MemorySettings, ModelSettings):
    """The web agent's `context_schema`: only the settings its nodes read (its models through
    `chat("executor")` / `chat("reflector")`, core.role_models)."""

    executor_model: ModelChoice | None = role_field("decides each action")
    reflector_model: ModelChoice | None = role_field(
        "judges runs without a reward and consolidates"
    )
    trajectories_k: int = field(
        default=2,
        metadata={"description": "Most similar past runs in the prompt (MMInA: 1-2 works best)."},
    )
    plan_steps: bool = field(
        default=True,
        metadata={
            "description": "Write the task's steps once before acting; each decision is told "
            "which step is next."
        },
    )
    use_workflows: bool = field(
        default=True, metadata={"description": "Put relevant workflows (AWM) into the prompt."}
    )
    workflow_actions: bool = field(
        default=False,
        metadata={
            "description": "Offer the prompt's workflows as callable actions "
            "(name(arg=...), arguments chosen from the task and the page)."
        },
    )
    verified_workflows: bool = field(
        default=False,
        metadata={
            "description": "Admit only workflows whose replay where they were learned "
            "succeeded (ASI); the others stay stored but reach no prompt."
        },
    )
    record_runs: bool = field(
        default=True,
        metadata={
            "description": "Record each run's trajectory (and induce from it); off freezes "
            "memory, as in an offline evaluation's test phase."
        },
    )
    online_induction: str = field(
        default="rule",
        metadata={"description": "After a successful run: 'rule', 'llm' or 'off' (only record)."},
    )
    judge_runs: bool = field(
        default=True,
        metadata={"description": "Judge runs that have no evaluator reward with the LLM judge."},
    )
    max_steps: int = field(default=30, metadata={"description": "Actions per episode (<= 60)."})
    observation: str = field(
        default="axtree",
        metadata={
            "description": "What each turn shows the model: 'axtree' (the accessibility tree),"
            " 'screenshot' (a PNG of the viewport; needs a model that takes images) or 'both'."
        },
    )
    allowed_origins: list[str] = field(
        default_factory=list,
        metadata={
            "description": "Origins the browser may visit besides the start page's "
            "('*' = any public origin; private addresses only when named)."
        },
    )
    # Not a setting: where a served run may start (core/served.py: the operator's origins;
    # None, as in library use: any start page, its origin allowed for the episode).
    start_origins: Annotated[tuple[str, ...] | None, SkipJsonSchema()] = field(
        default=None, repr=False, compare=False
    )
    # Not a setting: the run's own (no schema, so Studio never offers it). init=False: every
    # context starts with an empty one, a copy made with dataclasses.replace too.
    browser: Annotated[RunBrowser, SkipJsonSchema()] = field(
        default_factory=RunBrowser, init=False, repr=False, compare=False
    )
