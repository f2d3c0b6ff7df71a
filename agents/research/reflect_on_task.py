"""reflect_on_task: judge the task's latest attempt, save the reflection, count the retry.

The verdict is the reflector's, overruled by the evidence when the result names something
nothing the task read contains (agents/research/support.py): then the attempt failed, and the
reflector is asked, in a second call on the same attempt, what to do differently. Where the
model's verdict decides nothing (`Context.verdicts`: the embedded CPU models pass nearly every
attempt) the evidence alone judges, and the model is asked only for a lesson: after a failure,
and after a retry that worked. Each lesson
comes with a strategy ("When <kind of task>, <what to do>."), the part of it that reaches
other tasks' prompts (memory/reflections/lessons.py `strategy`).

The reflection's id is derived from (thread, run, task, attempt), so a retried node or a resumed
run upserts the same memory instead of adding a duplicate. When the reflector's output is
unusable the attempt is recorded as unjudged: never counted as a success, never taught from.
"""

from __future__ import annotations

from langchain_core.messages import SystemMessage
from langgraph.runtime import Runtime
from pydantic import BaseModel, Field, field_validator

from agents import resources
from agents.research.budget import side_job
from agents.research.learning import record_attempt
from agents.research.memory_context import memory_block
from agents.research.prompting import human, opening, system_message
from agents.research.records import FailureLesson, lesson_text, memory_id
from agents.research.support import unsupported
from core.context import Context
from core.output_limits import OUTPUT_LIMITS
from core.run_budget import CapReached
from core.state import TaskState
from core.structured import ask_structured, told
from memory.reflections.lessons import NO_LESSON, UNJUDGED_LESSON, states_lesson
from memory.reflections.schema import Reflection, ReflectionJudgment
from prompts.research import (
    EVIDENCE_SECTION,
    NO_RESULT,
    REFLECTION_SCHEMA,
    REFLECTOR,
    RETRY_WORKED,
    UNSUPPORTED,
)
from prompts.untrusted import data

MAX_REASONS = 5


class ReflectionOutput(BaseModel):
    """What the reflector model returns; the id and bookkeeping are added here.

    The verdict comes first: output cut at the reflector's budget is closed and validated, so a
    run-on lesson loses its end, not the verdict; reasons cut away are an empty list, not a
    second call (a small reflector often runs on past its budget).
    """

    model_config = told(REFLECTION_SCHEMA)
    needs_retry: bool = Field(description=REFLECTION_SCHEMA["needs_retry"])
    confidence: float = Field(ge=0.0, le=1.0)
    reflection: str = Field(description=REFLECTION_SCHEMA["reflection"])
    strategy: str = Field(default="", description=REFLECTION_SCHEMA["strategy"])
    reasons: list[str] = Field(default_factory=list, max_length=MAX_REASONS)

    @field_validator("confidence", mode="before")
    @classmethod
    def _clamp(cls, value: object) -> float:
        """Grammars do not bound numbers: a small model may say 87 or 1e9; repair, not reject."""
        number = float(value)  # type: ignore[arg-type]
        return min(1.0, max(0.0, number / 100 if 1 < number <= 100 else number))

    @field_validator("reasons", mode="before")
    @classmethod
    def _reasons(cls, value: object) -> list[str]:
        """Blank reasons dropped, the first MAX_REASONS kept: a small model pads its list with
        blanks, and an overruled verdict adds its own reason first; a verdict is never lost
        for its reasons."""
        items = value if isinstance(value, list) else [value]
        return [str(r).strip() for r in items if r is not None and str(r).strip()][:MAX_REASONS]


def overruled(
    model: object,
    system: SystemMessage,
    sections: dict[str, str],
    names: list[str],
    out: ReflectionOutput | None,
) -> ReflectionOutput:
    """The verdict when the result names what nothing the task read contains: retry, with the
    reflector's lesson about that mistake (none when its output is unusable)."""
    prompt = UNSUPPORTED.format(**sections, names=", ".join(names))
    lesson = ask_structured(
        model,  # type: ignore[arg-type]
        FailureLesson,
        [system, human(prompt)],
        max_tokens=OUTPUT_LIMITS["reflect"],
    )
    return ReflectionOutput(
        needs_retry=True,
        confidence=0.8,  # a check of words, not of meaning
        reflection=lesson.reflection if lesson else "",
        strategy=lesson.strategy if lesson else "",
        reasons=[f"names {', '.join(names)}, which nothing the task read contains"]
        + (out.reasons if out else []),
    )


def unjudged(task: str, result: str, reflection_id: str) -> Reflection:
    """The record of an attempt nobody could judge; a plainly empty result is retried."""
    empty = not result.strip() or result.strip() == NO_RESULT
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
    lesson = lesson_text(out.reflection, out.strategy) or NO_LESSON
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


def judge_attempt(
    state: TaskState,
    model: object,
    system: SystemMessage,
    memory: str,
    rid: str,
    *,
    verdicts: bool = True,
) -> Reflection:
    """The verdict on the task's latest attempt: the reflector's (`verdicts`), overruled when
    the result names what nothing the task read contains; or, without a model verdict, the
    evidence's alone (by_evidence). Unjudged when the reflector's output is unusable."""
    task, result = state["task"], state.get("result", "")
    evidence = state.get("task_evidence", "")
    # the executor's opening, memory, task and evidence again: a local model reads only the rest
    read = {
        "opening": opening(state["query"], state.get("evidence", "")),
        "task": data(task),
        "evidence": EVIDENCE_SECTION.format(evidence=evidence) if evidence.strip() else "",
    }
    sections = {**read, "memory": memory, "result": data(result)}
    built_on = " ".join(d["result"] for d in state.get("dependencies") or [])
    names = unsupported(result, " ".join([*read.values(), built_on]))
    if not verdicts:
        retried = state.get("attempt", 1) > 1
        return judged(
            task, by_evidence(model, system, sections, names, result, retried=retried), rid
        )
    out = ask_structured(
        model,  # type: ignore[arg-type]
        ReflectionOutput,
        [system, human(REFLECTOR.format(**sections))],
        max_tokens=OUTPUT_LIMITS["reflect"],
    )
    if names and (out is None or not out.needs_retry):
        out = overruled(model, system, sections, names, out)
    return judged(task, out, rid) if out else unjudged(task, result, rid)


def by_evidence(
    model: object,
    system: SystemMessage,
    sections: dict[str, str],
    names: list[str],
    result: str,
    *,
    retried: bool,
) -> ReflectionOutput:
    """The evidence's verdict, no model asked for one: a result that names what nothing the
    task read contains, or says nothing, fails, and the reflector writes what to do instead;
    any other passes (with a lesson only when it passed on a retry: what made it work)."""
    if names:
        return overruled(model, system, sections, names, None)
    if not result.strip() or result.strip() == NO_RESULT:
        return ReflectionOutput(
            needs_retry=True, confidence=1.0, reflection="", reasons=["empty result"]
        )
    lesson = _retry_lesson(model, system, sections) if retried else None
    return ReflectionOutput(
        needs_retry=False,
        confidence=0.7,  # a check of words, not of meaning
        reflection=lesson.reflection if lesson else "",
        strategy=lesson.strategy if lesson else "",
        reasons=["every name and number it gives is in what the task read"],
    )


def _retry_lesson(
    model: object, system: SystemMessage, sections: dict[str, str]
) -> FailureLesson | None:
    """What made a retry work, after an attempt that failed."""
    return ask_structured(
        model,  # type: ignore[arg-type]
        FailureLesson,
        [system, human(RETRY_WORKED.format(**sections))],
        max_tokens=OUTPUT_LIMITS["reflect"],
    )


def reflect_on_task(state: TaskState, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    task = state["task"]
    attempt, index = state.get("attempt", 1), state["task_index"]
    info = runtime.execution_info
    rid = memory_id(info.thread_id if info else None, state["run_id"], index, attempt)
    model = ctx.chat("reflector")
    memory = resources.memory(runtime)
    recalled = memory_block(memory, ctx, task, "reflector")
    try:
        system, verdicts = system_message(ctx), ctx.verdicts
        reflection = judge_attempt(state, model, system, recalled.text, rid, verdicts=verdicts)
    except CapReached:  # no call left: the attempt stands unjudged, and no retry is granted
        return {"task_index": index, "needs_retry": False, "verdict": "unjudged"}
    meta = {"run_id": state["run_id"], "task_index": index, "attempt": attempt}
    memory.save_reflection(reflection, **meta)
    side_job(lambda: memory.consolidate(model))
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
        "recalled": recalled.ids,
        "needs_retry": needs_retry,
        "verdict": verdict,
        "last_reflection": reflection.reflection,
        "retry_count": next_retry_count(
            needs_retry=needs_retry,
            retry_count=state.get("retry_count", 0),
            max_retries=ctx.max_retries,
        ),
    }


def next_retry_count(*, needs_retry: bool, retry_count: int, max_retries: int) -> int:
    """The counter after a verdict: +1 for a granted retry, else unchanged (the task ends).

    `max_retries=N` allows exactly N retries (N+1 attempts); each task has its own counter.
    """
    if needs_retry and retry_count < max_retries:
        return retry_count + 1
    return retry_count
