"""reflect_on_answer: a run whose two readings of the evidence disagreed leaves a failure lesson.

A small model's task reflector judges nearly every attempt good enough, so a run would almost
never fail, retry or learn what to do differently: carried memory would hold only verdicts and
the advice of successes. check_answer holds a judgment the model cannot talk itself out of: the
research's answer and one direct reading of the same evidence either agree or not, and where they
disagree the final answer is right less often (docs/results/hotpotqa-stream-history.md). So a
disagreement is the run's failure: the reflector is asked what went wrong and what to do instead,
and that lesson is saved as one learned from a failure (kept apart from lessons of successes,
retrieved by later runs as its strategy). An agreement teaches no lesson here (the tasks'
reflections already hold what worked); either way the run's trajectory is recorded, judged by the
check, for plan-level workflows (agents.research.learning).
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import SystemMessage
from langgraph.runtime import Runtime

from agents import resources
from agents.research.budget import side_job
from agents.research.learning import WEBSITE, record_run
from agents.research.prompting import human, system_message
from agents.research.readings import answers_block, checked_evidence
from agents.research.records import FailureLesson, lesson_text, memory_id
from core.context import Context
from core.output_limits import OUTPUT_LIMITS
from core.run_budget import CapReached
from core.state import DISAGREED, AnswerCheck, ReflectiveAgentState
from core.structured import ask_structured, choice_text
from memory.reflections.lessons import NO_LESSON, states_lesson
from memory.reflections.schema import Reflection, ReflectionJudgment
from prompts.research import ANSWERS_DISAGREED
from prompts.untrusted import data

ANSWER_INDEX = -1  # the run's answer, in the ids of what the run's tasks leave in memory


def reflect_on_answer(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    """After check_answer: record the run's trajectory, judged by the check; when the research
    and the direct reading disagreed, also save the reflector's lesson on it as a failure."""
    if state.get("stopped"):  # a run cut short at a cap is no trajectory to learn from
        return {}
    ctx = runtime.context
    check = state.get("answer_check")
    info = runtime.execution_info
    run_id = state.get("run_id", "")
    rid = run_record_id(info.thread_id if info else None, run_id)
    memory = resources.memory(runtime)
    record_run(
        memory,
        ctx,
        request=state["query"],
        task_steps=state.get("task_steps") or [],
        agreed=_agreed(check),
        trajectory_id=rid,
    )
    if not check or check["how"] not in DISAGREED:  # the research and the reading agreed
        return {}
    model = ctx.chat("reflector")
    try:
        out = ask_lesson(model, system_message(ctx), state, check)
    except CapReached:  # no call left for the lesson: the answer stands, nothing is learned
        return {}
    reflection = disagreement(state["query"], check, out, rid)
    memory.save_reflection(reflection, run_id=run_id, task_index=ANSWER_INDEX, attempt=1)
    side_job(lambda: memory.consolidate(model))
    return {"reflection_ids": [rid]}


def run_record_id(thread_id: str | None, run_id: str) -> str:
    """The id of what a run leaves in memory for its answer: its trajectory, and its lesson
    when the readings disagreed (agents.research.learning.judge_run relabels the run by it)."""
    return memory_id(thread_id, run_id, ANSWER_INDEX, 1)


def recorded_run(
    memory: Any, thread_id: str | None, run_id: str, tasks: int, retries: int
) -> str | None:
    """The id a run's trajectory is recorded under in `memory` (an AgentMemory): its whole
    run's, or for a run of one task, that task's last attempt (its attempt is the run; a run
    leaves no whole trajectory apart from it). None when neither is there."""
    ids = [run_record_id(thread_id, run_id)]
    if tasks == 1:
        ids += [memory_id(thread_id, run_id, 0, a) for a in range(retries + 1, 0, -1)]
    return next((i for i in ids if memory.trajectory(WEBSITE, i) is not None), None)


def _agreed(check: AnswerCheck | None) -> bool | None:
    """Whether the check's two readings agreed; None when it compared nothing."""
    how = check["how"] if check else None
    return True if how == "agreed" else False if how in DISAGREED else None


def ask_lesson(
    model: BaseChatModel,
    system: SystemMessage,
    state: ReflectiveAgentState,
    check: AnswerCheck,
) -> FailureLesson | None:
    """The reflector's lesson on the disagreement in `check` (None when its output is unusable),
    over the evidence check_answer read."""
    prompt = ANSWERS_DISAGREED.format(
        opening=checked_evidence(state),
        # as check_answer's second choice showed them: the model reads this prefix from cache
        answers=answers_block([choice_text(check["research"]), choice_text(check["direct"])]),
        query=data(state["query"]),
        kept=data(check["chosen"]),
    )
    return ask_structured(
        model, FailureLesson, [system, human(prompt)], max_tokens=OUTPUT_LIMITS["reflect"]
    )


def disagreement(
    request: str, check: AnswerCheck, out: FailureLesson | None, reflection_id: str
) -> Reflection:
    """The failure record of a run whose readings disagreed: the reflector's lesson (none when
    its output is unusable: then it is kept as the run's judgment and never retrieved)."""
    lesson = lesson_text(out.reflection, out.strategy) if out else ""
    lesson = lesson or NO_LESSON
    reason = (
        f"the research answered {check['research']!r}, a direct reading of the same evidence "
        f"{check['direct']!r}; {check['chosen']!r} was kept ({check['how']})"
    )
    return Reflection(
        id=reflection_id,
        task=request,
        reflection=lesson,
        importance=0.8 if states_lesson(lesson) else 0.1,
        outcome="failure",
        judgment=ReflectionJudgment(
            # a sign, not proof: a run whose readings disagreed may still end right
            needs_retry=True,
            confidence=0.6,
            reasons=[reason],
            verdict="retry",
        ),
    )
