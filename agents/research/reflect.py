"""reflect_on_task: judge the current task's result, save the reflection, count the retry."""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field, field_validator

from agents import resources
from agents.research.learning import record_attempt
from agents.research.memory_context import memory_block
from agents.research.tasks import next_retry_count
from core.context import Context
from core.state import ReflectiveAgentState
from core.structured import ask_structured
from memory.schema import Reflection, ReflectionJudgment
from prompts.reflect import REFLECTOR


class ReflectionOutput(BaseModel):
    """What the reflector model returns; the id and bookkeeping are added here."""

    reflection: str = Field(description="2-3 sentences of lessons.")
    needs_retry: bool = Field(description="True if the result is NOT good enough.")
    confidence: float = Field(ge=0.0, le=1.0)
    reasons: list[str] = Field(max_length=5)

    @field_validator("confidence", mode="before")
    @classmethod
    def _clamp(cls, value: object) -> float:
        """Grammars do not bound numbers: a small model may say 87 or 1e9; repair, not reject."""
        number = float(value)  # type: ignore[arg-type]
        return min(1.0, max(0.0, number / 100 if 1 < number <= 100 else number))


def fallback_judgment(result: str) -> ReflectionOutput:
    """When the reflector's output is unusable: retry only what is plainly empty."""
    empty = not result.strip() or result.strip() == "(no result)"
    return ReflectionOutput(
        reflection="The reflector gave no usable verdict; judged by whether a result exists.",
        needs_retry=empty,
        confidence=0.0,
        reasons=["empty result" if empty else "result present; no usable model verdict"],
    )


def reflect_on_task(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    index = state.get("current_task_index", 0)
    task, result = state["tasks"][index], (state.get("results") or [""])[index]
    model = resources.chat_model(ctx.reflector_model)
    memory = resources.memory(runtime)
    prompt = REFLECTOR.format(
        memory=memory_block(memory, ctx, task, ctx.reflector_model), task=task, result=result
    )
    out = ask_structured(model, ReflectionOutput, prompt) or fallback_judgment(result)
    reflection = Reflection(
        task=task,
        reflection=out.reflection.strip() or "(no lesson stated)",
        # failed attempts teach more; set here so saving needs no extra model call to rate it
        importance=0.8 if out.needs_retry else 0.4,
        judgment=ReflectionJudgment(
            needs_retry=out.needs_retry, confidence=out.confidence, reasons=out.reasons
        ),
    )
    reflection_id = memory.save_reflection(reflection)
    memory.consolidate(model)
    steps = (state.get("trajectories") or [[]] * (index + 1))[index] or []
    verdict = "retry" if out.needs_retry else "pass"
    record_attempt(
        memory, ctx, task=task, steps=steps, verdict=verdict, trajectory_id=reflection_id
    )
    return {
        "reflection_ids": [reflection_id],
        "needs_retry": out.needs_retry,
        "retry_count": next_retry_count(
            needs_retry=out.needs_retry,
            retry_count=state.get("retry_count", 0),
            max_retries=ctx.max_retries,
        ),
    }
