"""Workflow induction shared by offline and online modes: prompt → LLM → parse → filter.

Strong models answer in AWM's text format; small local models answer through a bounded JSON
schema (grammar-constrained), which is turned into the same text so one parser and one set of
filters (>= 2 steps, actions only, no leaked worked-example workflows, no duplicates) apply.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from langchain_core.exceptions import OutputParserException
from pydantic import BaseModel, Field

from memory.labels import slugify
from memory.packing import MemoryGroup, context_window, pack, token_counter
from memory.workflows.format import looks_like_action, parse_workflows
from memory.workflows.types import Workflow

log = logging.getLogger(__name__)

RESPONSE_RESERVE = 768  # tokens kept free for the model's answer
ATTEMPTS = 2  # structured output from a tiny model can still be truncated; retry once


class WorkflowDraft(BaseModel):
    """One workflow as the model writes it in structured mode (bounded for small models)."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{2,38}$", description="snake_case name")
    description: str = Field(
        max_length=120, description="one sentence: where it starts, what it does"
    )
    steps: list[Annotated[str, Field(max_length=90)]] = Field(
        min_length=2, max_length=4, description="action lines with {placeholders}"
    )


class WorkflowDrafts(BaseModel):
    workflows: list[WorkflowDraft] = Field(min_length=1, max_length=2)


# A grammar for Mind2Web action lines, so even a tiny model can only write well-formed steps.
_TEXT = r'[^"\\\n]'  # any character that needs no JSON escaping: the grammar emits it verbatim
_VALUE = rf"{_TEXT}{{1,30}}"
MIND2WEB_STEP = rf"^\[[a-z]{{1,12}}\]  {_TEXT}{{1,60}} -> (CLICK|TYPE: {_VALUE}|SELECT: {_VALUE})$"


class Mind2WebDraft(WorkflowDraft):
    steps: list[Annotated[str, Field(pattern=MIND2WEB_STEP)]] = Field(
        min_length=2, max_length=4, description="Mind2Web action lines with {placeholders}"
    )


class Mind2WebDrafts(WorkflowDrafts):
    workflows: list[Mind2WebDraft] = Field(min_length=1, max_length=2)  # type: ignore[assignment]


@dataclass
class InductionResult:
    """Workflows kept, and why each rejected candidate was dropped (for the update log)."""

    kept: list[Workflow] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    examples_used: int = 0
    examples_total: int = 0
    raw: str = ""


def filter_workflows(
    candidates: Iterable[Workflow],
    *,
    leaked_names: Sequence[str] = (),
    leaked_steps: Iterable[tuple[str, ...]] = (),
    existing: Iterable[Workflow] = (),
) -> tuple[list[Workflow], list[str]]:
    """Keep workflows with >= 2 action steps that are neither leaked examples nor duplicates."""
    leaked = {slugify(n) for n in leaked_names}
    leaked_keys = set(leaked_steps)
    seen_names = {w.name for w in existing}
    seen_steps = {w.step_key() for w in existing}
    kept: list[Workflow] = []
    dropped: list[str] = []
    for w in candidates:
        reason = None
        if len(w.steps) < 2:
            reason = "fewer than two steps"
        elif not all(looks_like_action(s) for s in w.steps):
            reason = "a step is not an action"
        elif w.name in leaked or w.step_key() in leaked_keys:
            reason = "copied from the worked example"
        elif w.name in seen_names or w.step_key() in seen_steps:
            reason = "duplicate"
        if reason:
            dropped.append(f"{w.name}: {reason}")
            continue
        kept.append(w)
        seen_names.add(w.name)
        seen_steps.add(w.step_key())
    return kept, dropped


def drafts_to_text(drafts: WorkflowDrafts) -> str:
    """Structured answer → AWM text, so it goes through the same parser as text answers."""
    blocks = [
        "\n".join(
            [
                f"## {d.name}",
                " ".join(d.description.split()),
                # Only line breaks go: Mind2Web lines keep their double space after the role.
                *[" ".join(s.strip().splitlines()) for s in d.steps],
            ]
        )
        for d in drafts.workflows
    ]
    return "\n\n".join(blocks)


def _with_room_to_answer(model: Any) -> Any:
    # The local model's default answer length (a few hundred tokens) truncates a workflow list.
    limit = getattr(model, "max_tokens", None)
    if isinstance(limit, int) and limit < RESPONSE_RESERVE and hasattr(model, "model_copy"):
        return model.model_copy(update={"max_tokens": RESPONSE_RESERVE})
    return model


def ask_for_workflows(
    model: Any, prompt: str, *, structured: bool, schema: type[WorkflowDrafts] = WorkflowDrafts
) -> str:
    """One induction call; returns AWM text ("" when a structured answer never parsed)."""
    if not structured:
        reply = model.invoke(prompt)
        return str(getattr(reply, "text", None) or getattr(reply, "content", reply))
    runnable = _with_room_to_answer(model).with_structured_output(schema)
    for attempt in range(1, ATTEMPTS + 1):
        try:
            drafts = runnable.invoke(prompt)
        except OutputParserException as exc:
            log.warning("induction answer %d/%d unusable: %s", attempt, ATTEMPTS, str(exc)[:200])
            continue
        if isinstance(drafts, dict):
            drafts = schema.model_validate(drafts)
        return drafts_to_text(drafts)
    return ""


def build_prompt(
    *,
    instruction: str,
    worked_example: str,
    items: Sequence[Any],
    render: Any,
    model: Any,
    spec: str | None,
) -> tuple[str, int]:
    """Instruction + worked example + as many rendered items as fit the model's context."""
    from prompts.workflows import TASKS_HEADER

    system = f"{instruction}\n\n{worked_example}"
    count = token_counter(model, spec)
    packed = pack(
        [MemoryGroup("examples", items, render)],
        system=system,
        query=TASKS_HEADER.format(examples=""),
        context_window=context_window(model, spec),
        response_reserve=RESPONSE_RESERVE,
        count=count,
    )
    used = packed.used["examples"]
    if len(used) < len(items):
        log.info("induction prompt holds %d of %d examples (context limit)", len(used), len(items))
    body = "\n\n".join(render(i) for i in used)
    return f"{system}\n\n{TASKS_HEADER.format(examples=body)}", len(used)


def induce(
    *,
    model: Any,
    spec: str | None,
    instruction: str,
    worked_example: str,
    worked_names: Sequence[str],
    items: Sequence[Any],
    render: Any,
    existing: Sequence[Workflow] = (),
    structured: bool = False,
    schema: type[WorkflowDrafts] = WorkflowDrafts,
) -> InductionResult:
    """Prompt the model with as many items as fit, then parse and filter its workflows."""
    prompt, used = build_prompt(
        instruction=instruction,
        worked_example=worked_example,
        items=items,
        render=render,
        model=model,
        spec=spec,
    )
    result = InductionResult(examples_used=used, examples_total=len(items))
    if used == 0:
        result.dropped.append("no example fits in the model's context")
        return result
    result.raw = ask_for_workflows(model, prompt, structured=structured, schema=schema)
    parsed = parse_workflows(result.raw, where="model answer")
    worked_text = worked_example.split("Workflows:", 1)[-1].replace("</example>", "")
    worked = parse_workflows(worked_text, where="worked example")
    result.kept, dropped = filter_workflows(
        parsed.workflows,
        leaked_names=worked_names,
        leaked_steps=[w.step_key() for w in worked.workflows],
        existing=existing,
    )
    result.dropped = parsed.problems + dropped
    return result
