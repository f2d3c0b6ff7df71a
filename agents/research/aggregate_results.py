"""aggregate_results: the final answer, in the form goal setting chose, from the task results,
this run's reflections and the run's evidence, naming only sources the run read.

The answer is structured: the answer itself (what `run --json` reports as `answer`, and what an
evaluation scores), then the facts that support it, then its sources. A source the model names
that the run never read is dropped; when it names none, the run's sources stand in.
"""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from agents import resources
from agents.research.answer_text import clean_answer, strip_debris
from agents.research.memory_context import as_data, memory_block
from agents.research.prompting import human, opening, system_message
from agents.research.reply import replied
from agents.research.sources import unique
from core.context import Context
from core.output_limits import OUTPUT_LIMITS
from core.state import ReflectiveAgentState
from core.structured import ask_structured, told
from memory.reflections.manager import format_reflections
from prompts.research import (
    AGGREGATOR,
    ANSWER_SCHEMA,
    EXECUTOR_TASK,
    GOAL_SETTER,
    GROUNDED_ANSWER,
    NO_RESULT,
    NO_RUN_REFLECTIONS,
    REFLECTOR,
    RETRY_NOTE,
    TASK_RESULT,
)
from prompts.untrusted import data

# the prompts whose fixed text may come back in an answer: this one, and those whose wording
# reaches it through the goal, the results and the reflections
ECHOED_PROMPTS = (
    AGGREGATOR,
    GOAL_SETTER,
    EXECUTOR_TASK,
    GROUNDED_ANSWER,
    RETRY_NOTE,
    REFLECTOR,
)


class FinalAnswer(BaseModel):
    """The answer first: output cut at its budget loses the end, not the answer."""

    model_config = told(ANSWER_SCHEMA)
    answer: str = Field(description=ANSWER_SCHEMA["answer"])
    explanation: str = Field(default="", description=ANSWER_SCHEMA["explanation"])
    sources: list[str] = Field(default_factory=list, max_length=8)


def aggregate_results(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    memory = resources.memory(runtime)
    query = state["query"]
    tasks, results = state.get("tasks") or [], state.get("results") or []
    recalled = memory_block(memory, ctx, query, "aggregator")
    prompt = AGGREGATOR.format(
        opening=opening(query, state.get("evidence", "")),
        memory=recalled.text,
        goal=data(state.get("optimized_goal", "")),
        results=_results_block(tasks, results),
        run_reflections=_run_reflections(memory, state),
        answer_form=data(state.get("answer_form", "")),
        query=data(query),  # again last: the answer is to the request, not to a task
    )
    model = ctx.chat("aggregator")
    messages = [system_message(ctx), human(prompt)]
    out = ask_structured(model, FinalAnswer, messages, max_tokens=OUTPUT_LIMITS["aggregate"])
    read = _read(state)
    answer, explanation, cited = _parts(out, results, state.get("answer_form", ""))
    sources = [s for s in cited if s in read] or read
    final = _final_text(answer, explanation, sources)
    return replied(state, final, answer=answer, recalled=recalled.ids)


def partial_answer(state: ReflectiveAgentState) -> dict:
    """A run stopped at a cap, answered without a model: the finished tasks' results, with the
    sources the run read; empty when it found nothing yet."""
    answer, _, _ = _parts(None, state.get("results") or [], state.get("answer_form", ""))
    return replied(state, _final_text(answer, "", _read(state) if answer else []), answer=answer)


def _read(state: ReflectiveAgentState) -> list[str]:
    return unique([*(state.get("evidence_sources") or []), *(state.get("sources") or [])])


def _parts(
    out: FinalAnswer | None, results: list[str | None], form: str
) -> tuple[str, str, list[str]]:
    """The answer, its explanation and cited sources, cleaned of echoed prompt text; with no
    usable answer, the task results themselves (a blank final answer would lose the run)."""
    echoed = (*ECHOED_PROMPTS, form)  # the answer form is instructions too
    answer = clean_answer(out.answer, prompts=echoed) if out else ""
    explanation = clean_answer(out.explanation, prompts=echoed) if out else ""
    if not answer:
        found = "\n\n".join(r for r in results if r and r != NO_RESULT)
        answer = clean_answer(found, prompts=echoed) or strip_debris(found)
    return answer, explanation, [strip_debris(s) for s in (out.sources if out else [])]


def _final_text(answer: str, explanation: str, sources: list[str]) -> str:
    parts = [answer, explanation, f"Sources: {', '.join(sources)}" if sources else ""]
    return "\n\n".join(p for p in parts if p)


def _results_block(tasks: list[str], results: list[str | None]) -> str:
    return "\n".join(
        TASK_RESULT.format(n=i + 1, task=data(t), result=data(r or NO_RESULT))
        for i, (t, r) in enumerate(zip(tasks, results, strict=False))
    )


def _run_reflections(memory, state: ReflectiveAgentState) -> str:
    judged = [
        r
        for i in state.get("reflection_ids") or []
        if (r := memory.get_reflection(i)) and r.judgment.verdict != "unjudged"
    ]
    return format_reflections(as_data(judged)) or NO_RUN_REFLECTIONS
