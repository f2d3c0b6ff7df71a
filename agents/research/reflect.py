"""reflect_on_task: judge the task's latest attempt, save the reflection, count the retry.

The reflection's id is derived from (thread, run, task, attempt), so a retried node or a resumed
run upserts the same memory instead of adding a duplicate. When the reflector's output is
unusable the attempt is recorded as unjudged: never counted as a success, never taught from.
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field, field_validator

from agents import resources
from agents.research.learning import record_attempt
from agents.research.memory_context import memory_block
from agents.research.prompting import human, opening, system
from agents.research.tasks import memory_id, next_retry_count
from core.context import Context
from core.output_budget import ROLE_BUDGETS
from core.state import TaskState
from core.structured import ask_structured
from memory.reflections.lessons import NO_LESSON, UNJUDGED_LESSON, states_lesson
from memory.reflections.schema import Reflection, ReflectionJudgment
from prompts.execute import EVIDENCE_SECTION
from prompts.reflect import REFLECTOR
from prompts.untrusted import data


class ReflectionOutput(BaseModel):
    """What the reflector model returns; the id and bookkeeping are added here.

    The verdict comes first: output cut at the reflector's budget is closed and validated, so a
    run-on lesson loses its end, not the verdict; reasons cut away are an empty list, not a
    second call (a small reflector often runs on past its budget).
    """

    needs_retry: bool = Field(description="True if the result is NOT good enough.")
    confidence: float = Field(ge=0.0, le=1.0)
    reflection: str = Field(
        description="1-2 sentences: what to do in the next task of this kind (after a failure: "
        "what to do differently); empty if there is no lesson."
    )
    reasons: list[str] = Field(default_factory=list, max_length=5)

    @field_validator("confidence", mode="before")
    @classmethod
    def _clamp(cls, value: object) -> float:
        """Grammars do not bound numbers: a small model may say 87 or 1e9; repair, not reject."""
        number = float(value)  # type: ignore[arg-type]
        return min(1.0, max(0.0, number / 100 if 1 < number <= 100 else number))


def unjudged(task: str, result: str, reflection_id: str) -> Reflection:
    """The record of an attempt nobody could judge; a plainly empty result is retried."""
    empty = not result.strip() or result.strip() == "(no result)"
    return Reflection(
        id=reflection_id,
        task=task,
        reflection=UNJUDGED_LESSON,
        importance=0.1,
        judgment=ReflectionJudgment(
            needs_retry=empty,
            confidence=0.0,
            reasons=["empty result" if empty else "no usable verdict"],
            verdict="unjudged",
        ),
    )


def judged(task: str, out: ReflectionOutput, reflection_id: str) -> Reflection:
    """The verdict and lesson as a record; one that states no lesson (only a verdict, or
    nothing) is kept as the attempt's judgment, never retrieved as a lesson, and weighs little
    toward consolidation."""
    lesson = out.reflection.strip() or NO_LESSON
    return Reflection(
        id=reflection_id,
        task=task,
        reflection=lesson,
        # failed attempts teach more; set here so saving needs no extra model call to rate it
        importance=(0.8 if out.needs_retry else 0.4) if states_lesson(lesson) else 0.1,
        # a failure's lesson says what to do differently; kept apart from what worked
        outcome="failure" if out.needs_retry else "success",
        judgment=ReflectionJudgment(
            needs_retry=out.needs_retry,
            confidence=out.confidence,
            reasons=out.reasons,
            verdict="retry" if out.needs_retry else "pass",
        ),
    )


def reflect_on_task(state: TaskState, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    task, result = state["task"], state.get("result", "")
    attempt, index = state.get("attempt", 1), state["task_index"]
    info = runtime.execution_info
    rid = memory_id(info.thread_id if info else None, state["run_id"], index, attempt)
    model = ctx.models.chat(ctx.reflector_model)
    memory = resources.memory(runtime)
    evidence = state.get("task_evidence", "")
    # the executor's opening, memory, task and evidence again: a local model reads only the rest
    prompt = REFLECTOR.format(
        opening=opening(state["query"], state.get("evidence", "")),
        memory=memory_block(memory, ctx, task, ctx.reflector_model),
        task=data(task),
        evidence=EVIDENCE_SECTION.format(evidence=evidence) if evidence.strip() else "",
        result=data(result),
    )
    out = ask_structured(
        model, ReflectionOutput, [system(), human(prompt)], max_tokens=ROLE_BUDGETS["reflect"]
    )
    reflection = judged(task, out, rid) if out else unjudged(task, result, rid)
    meta = {"run_id": state["run_id"], "task_index": index, "attempt": attempt}
    memory.save_reflection(reflection, **meta)
    memory.consolidate(model)
    verdict = reflection.judgment.verdict or "unjudged"
    record_attempt(
        memory,
        ctx,
        task=task,
        steps=state.get("trajectory") or [],
        verdict=verdict,
        trajectory_id=rid,
    )
    needs_retry = reflection.judgment.needs_retry
    return {
        "task_index": index,  # so each update says which task it is about
        "reflection_ids": [rid],
        "needs_retry": needs_retry,
        "verdict": verdict,
        "last_reflection": reflection.reflection,
        "retry_count": next_retry_count(
            needs_retry=needs_retry,
            retry_count=state.get("retry_count", 0),
            max_retries=ctx.max_retries,
        ),
    }
