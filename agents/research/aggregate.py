"""aggregate_results: the final answer from each task's last result and this run's reflections."""

from __future__ import annotations

from langgraph.runtime import Runtime

from agents import resources
from agents.research.answer_text import cited_sources, clean_answer, strip_debris, with_sources
from agents.research.memory_context import as_data, memory_block
from core.context import Context
from core.output_budget import ROLE_BUDGETS, with_max_tokens
from core.state import ReflectiveAgentState
from memory.reflections.manager import format_reflections
from prompts import execute, goal, reflect
from prompts.aggregate import AGGREGATOR
from prompts.untrusted import data

# the prompts whose fixed text may come back in an answer: this one, and those whose wording
# reaches it through the goal, the answer shape, the results and the reflections
ECHOED_PROMPTS = (
    AGGREGATOR,
    goal.GOAL_CREATOR,
    goal.PROMPT_OPTIMIZER,
    goal.RESPONSE_OPTIMIZER,
    execute.EXECUTOR_TASK,
    execute.GROUNDED_ANSWER,
    execute.RETRY_NOTE,
    reflect.REFLECTOR,
)


def _results_block(tasks: list[str], results: list[str | None]) -> str:
    return "\n".join(
        f'<result task="{i + 1}">\n<task>{data(t)}</task>\n{data(r or "(no result)")}\n</result>'
        for i, (t, r) in enumerate(zip(tasks, results, strict=False))
    )


def aggregate_results(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    memory = resources.memory(runtime)
    run_reflections = [
        r
        for i in state.get("reflection_ids") or []
        if (r := memory.get_reflection(i)) and r.judgment.verdict != "unjudged"
    ]
    tasks, results = state.get("tasks") or [], state.get("results") or []
    prompt = AGGREGATOR.format(
        memory=memory_block(memory, ctx, state["query"], ctx.aggregator_model),
        query=data(state["query"]),
        goal=data(state.get("optimized_goal", "")),
        response_shape=data(state.get("optimized_response", "")),
        results=_results_block(tasks, results),
        run_reflections=format_reflections(as_data(run_reflections)) or "(none)",
    )
    model = with_max_tokens(ctx.models.chat(ctx.aggregator_model), ROLE_BUDGETS["aggregate"])
    # the answer shape is instructions too (a model wrote them): copied back, they are no answer
    echoed = (*ECHOED_PROMPTS, state.get("optimized_response", ""))
    answer = clean_answer(model.invoke(prompt).text, prompts=echoed)
    if not answer:
        # a blank final answer loses the run's work; fall back to the task results themselves,
        # cleaned, or as the executor wrote them when cleaning leaves nothing (a small model's
        # answer and results can be all echo and debris, so cleaning may remove every line)
        found = "\n\n".join(r for r in results if r and r != "(no result)")
        answer = clean_answer(found, prompts=echoed) or strip_debris(found)
    # the prompt asks to keep the results' sources; a small model often drops them
    return {"final_output": with_sources(answer, cited_sources(results))}
