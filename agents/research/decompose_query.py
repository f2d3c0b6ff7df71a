"""decompose_query: the request → 1-5 validated, executable tasks, each with the earlier tasks
whose results it needs (`depends_on`); tasks that need nothing run in parallel.

The planner writes only the steps that find what the request needs first (0-4: the creator a
multi-hop question asks about, each side of a comparison); the last task is always the request
itself, as the user wrote it, depending on every step. A plan whose last task was the model's
own restatement lost the question: asked "what comedy did the creator of Wallace and Gromit also
make", a 1.5B planner ended with "Identify who created Creature Comforts", and the run answered
"Nick Park". As few steps as the request needs: steps made up to reach a count cost a model call
each and drift from the request. The planner sees the run's evidence, so a step can name what the
request leaves implicit.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field, field_validator

from agents import resources
from agents.research.memory_context import memory_block
from agents.research.prompting import human, opening, system_message
from agents.research.topic import copies_placeholder
from core.context import Context
from core.output_limits import OUTPUT_LIMITS
from core.state import MAX_TASKS, ReflectiveAgentState
from core.structured import ask_structured
from prompts.research import (
    DECOMPOSER,
    PLAN_SCHEMA,
    PLANNED_TASK_SCHEMA,
    PLANNER_INSTRUCTIONS,
    SHORT_FORM,
)
from prompts.untrusted import data

SHORT_STEPS = 2  # steps planned for a short answer: the hops of a two-hop question, or the sides
log = logging.getLogger(__name__)


class PlannedTask(BaseModel):
    task: str = Field(description=PLANNED_TASK_SCHEMA["task"])
    depends_on: list[int] = Field(
        default_factory=list, description=PLANNED_TASK_SCHEMA["depends_on"], max_length=4
    )


class DecomposedTasks(BaseModel):
    tasks: list[PlannedTask] = Field(
        default_factory=list, description=PLAN_SCHEMA["tasks"], max_length=MAX_TASKS - 1
    )

    @field_validator("tasks", mode="before")
    @classmethod
    def _plain_strings(cls, value: Any) -> Any:
        """A model that lists bare sentences still plans: they depend on nothing; steps past the
        fourth are dropped rather than the plan (a grammar stops a local model there)."""
        if isinstance(value, list):
            return [{"task": v} if isinstance(v, str) else v for v in value[: MAX_TASKS - 1]]
        return value


def _key(task: str) -> str:
    return " ".join(re.findall(r"\w+", task.lower()))


_WORDS = re.compile(r"[^\W\d_]{4,}")
# words any step may have, whatever it is about: its verb, and words that name nothing
_ANY_STEP = set(
    "find search identify determine compare check verify look list name match about that this "
    "from with which what each their them they have been into more than".split()
)


# what the planner was shown as advice or as another request's research: lessons and workflows
_SHOWN = re.compile(r"<reflection>(.*?)</reflection>|<workflows>(.*?)</workflows>", re.S)


_RUN = 4  # telling words in a row that make a copy, not a shared topic


def copied_from_memory(task: str, memory: str, read: str) -> bool:
    """Is `task` copied from the lessons or workflows the planner was shown, not a step of this
    request? True when it repeats them word for word for `_RUN` words in a row that `read` (the
    request, its goal and evidence) does not hold, and most of its words are memory's and not
    `read`'s: a carried strategy ("When comparing bands, look at multiple sources that list
    their membership history") or another question's search in a worked example ("Identify the
    Canadian-American actress who voiced Juliet Starling") turned into a step of this one. A
    step on their topic in its own words is kept, as is a workflow's step about what this
    request names (a plan of its form, its placeholders filled), and the past task a lesson was
    learned on may be a step again."""
    return copied(task, " ".join(" ".join(m) for m in _SHOWN.findall(memory)), read)


def copied(task: str, shown: str, read: str) -> bool:
    """Is `task` copied from `shown` (memory, or the planner's own instructions) rather than
    written about `read`? More than a third of its telling words are `shown`'s and not
    `read`'s (another question's names among words this one shares), and it repeats `_RUN` of
    them in a row that `read` does not hold."""
    source, seen_text = shown.lower(), read.lower()
    words = set(_WORDS.findall(task.lower())) - _ANY_STEP
    theirs, seen = set(_WORDS.findall(source)), set(_WORDS.findall(seen_text))
    borrowed = [w for w in words if w in theirs and w not in seen]
    if not 3 * len(borrowed) > len(words) > 0:
        return False
    said, own, copy = _runs(task.lower()), _runs(seen_text), _runs(source)
    return bool((said & copy) - own)


def _runs(text: str) -> set[tuple[str, ...]]:
    """Every `_RUN` consecutive words of `text` that say something (not a step's verb, not a
    word of four letters or fewer that any sentence has)."""
    words = [w for w in _WORDS.findall(text) if w not in _ANY_STEP]
    return {tuple(words[i : i + _RUN]) for i in range(len(words) - _RUN + 1)}


def clean_tasks(
    candidates: list[PlannedTask],
    request: str,
    *,
    memory: str = "",
    read: str = "",
    max_steps: int = MAX_TASKS - 1,
) -> tuple[list[str], list[list[int]]]:
    """Usable steps, then the request itself, and their dependencies as 0-based indices of
    earlier kept tasks.

    Drops empty, junk (fewer than 3 words, no letters, a schema placeholder copied), duplicate
    steps, a step that is the request, a step copied from the `memory` the planner was shown and
    one copied from its instructions (`read`: the request and its evidence: the 1.5B once planned
    "List the steps (0 to 4) that find what the request needs…"), keeps at most `max_steps`, and
    drops dependencies on dropped, later or the same steps (the model numbers from 1). The
    request comes last, depending on every step kept.
    """
    tasks: list[str] = []
    depends_on: list[list[int]] = []
    kept_at: dict[int, int] = {}  # the model's 1-based number -> our index
    request = request.strip() or "Answer the request."
    seen: set[str] = {_key(request)}
    for number, planned in enumerate(candidates, 1):
        task = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", str(planned.task)).strip()
        key = _key(task)
        junk = len(key.split()) < 3 or not re.search(r"[^\W\d_]", task)
        if junk or key in seen or copies_placeholder(task):
            continue
        if memory and copied_from_memory(task, memory, f"{request}\n{read}"):
            log.info("plan step copied from memory, dropped: %s", task)
            continue
        if copied(task, PLANNER_INSTRUCTIONS, f"{request}\n{read}"):
            log.info("plan step copied from the planner's instructions, dropped: %s", task)
            continue
        if len(tasks) == max_steps:
            break
        seen.add(key)
        deps = sorted({kept_at[d] for d in planned.depends_on if d < number and d in kept_at})
        kept_at[number] = len(tasks)
        tasks.append(task)
        depends_on.append(deps)
    return [*tasks, request], [*depends_on, list(range(len(tasks)))]


def decompose_query(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    query = state["query"]
    goal = state.get("optimized_goal") or query
    model = ctx.chat("planner")
    memory = memory_block(resources.memory(runtime), ctx, query, "planner", plan=True)
    short = state.get("answer_form") == SHORT_FORM
    steps = SHORT_STEPS if short else MAX_TASKS - 1
    prompt = DECOMPOSER.format(
        opening=opening(query, state.get("evidence", "")),
        memory=memory.text,
        goal=data(goal),
        steps=steps,
    )
    messages = [system_message(ctx), human(prompt)]
    out = ask_structured(model, DecomposedTasks, messages, max_tokens=OUTPUT_LIMITS["decompose"])
    read = f"{goal}\n{state.get('evidence', '')}"  # what the planner read besides memory
    candidates = out.tasks if out else []
    tasks, depends_on = clean_tasks(
        candidates, query, memory=memory.text, read=read, max_steps=steps
    )
    return {
        "tasks": tasks,
        "depends_on": depends_on,
        "approval": ctx.approve_plan,
        "recalled": memory.ids,
    }
