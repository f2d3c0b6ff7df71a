"""What every node puts in its prompt from memory: relevant workflows and past reflections,
packed under a token budget counted with the node's own model's tokenizer, and which memories
those were (the run's `recalled`: what memory did to an answer can be traced)."""

from __future__ import annotations

import ast
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import NamedTuple

from agents.research.learning import WEBSITE, template_of
from core.context import Context
from core.role_models import Role
from memory.agent_memory import AgentMemory
from memory.packing import MemoryGroup, context_window, pack, token_counter
from memory.reflections.lessons import same_task
from memory.reflections.manager import format_reflections
from memory.reflections.schema import Reflection
from memory.workflows.format import format_workflow
from memory.workflows.forms import form_key, form_text
from memory.workflows.kinds import KIND_SIMILARITY, kind_similarity
from memory.workflows.types import Workflow
from prompts.research import MEMORY_SECTIONS, NO_MEMORY, SOLVED_BEFORE, SOLVED_EXAMPLE
from prompts.untrusted import data

log = logging.getLogger(__name__)
# Memory may take 1/8 of the model's context (at most 2,000 tokens): on the embedded 4k-token
# model every prompt token costs time, and the task, evidence and answer need the rest.
MEMORY_SHARE, MEMORY_MAX_TOKENS = 8, 2000


def as_data(reflections: list[Reflection]) -> list[Reflection]:
    """Copies whose task and lesson are escaped for a prompt (prompts.untrusted.data)."""
    return [
        r.model_copy(update={"task": data(r.task), "reflection": data(r.reflection)})
        for r in reflections
    ]


class MemoryBlock(NamedTuple):
    """A prompt's memory sections (`text`) and the memories in them (`ids`: reflection ids,
    and `workflow:NAME` for workflows), which the node returns as the state's `recalled`."""

    text: str
    ids: list[str]


def workflow_ref(name: str) -> str:
    return f"workflow:{name}"


def from_before(memory: AgentMemory, recalled: list[str], saved: list[str]) -> list[str]:
    """What of `recalled` earlier runs left: not a reflection this run `saved`, nor a workflow
    learned from this run's attempts alone (their trajectories carry the reflections' ids)."""
    own = set(saved)
    learned_here = {
        workflow_ref(w.name) for w in memory.workflows(WEBSITE) if set(w.provenance.sources) <= own
    }
    return [i for i in recalled if i not in own and i not in learned_here]


def as_plan(workflow: Workflow) -> Workflow:
    """`workflow` with each search call shown as the task it researched: `search('Find the
    nationality of {name}')` -> `Find the nationality of {name}`. A planner writes tasks, and
    shown calls it copies them into its tasks as calls."""
    return replace(workflow, steps=[_call_argument(s) or s for s in workflow.steps])


def _call_argument(step: str) -> str | None:
    """The text argument of a one-argument call, `name('text')`; None for anything else."""
    try:
        call = ast.parse(step.strip(), mode="eval").body
    except SyntaxError:
        return None
    if isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords:
        arg = call.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return arg.value
    return None


def fits_prompt(text: str, *, plan: bool) -> Callable[[Workflow], bool]:
    """Which workflows may reach a prompt about `text`: a whole run's plan (how a request of one
    form was researched) only a planner's prompt (`plan`), for a request of its very form; any other
    by relevance alone. A plan is no step of a task, and a plan of another form misleads: shown by
    relevance alone, such plans cost right answers (docs/results/hotpotqa-stream-history.md)."""
    own = form_key(template_of("plan", text))

    def fits(workflow: Workflow) -> bool:
        template = workflow.provenance.template
        return not template.startswith("plan: ") or (plan and form_key(template) == own)

    return fits


def _lessons(memory: AgentMemory, text: str, k: int, *, own: bool) -> list[Reflection]:
    """Up to `k` relevant lessons; `own`: only those learned on `text` itself."""
    if not own:
        return memory.relevant_reflections(text, k)
    return [r for r in memory.relevant_reflections(text, 3 * k) if same_task(r.task, text)][:k]


def memory_block(
    memory: AgentMemory,
    ctx: Context,
    text: str,
    role: Role,
    *,
    plan: bool = False,
    workflows_k: int | None = None,
    own_lessons: bool = False,
) -> MemoryBlock:
    """The <past_reflections> and <workflows> sections for a prompt about `text` (`plan`: a
    planner's prompt, whose workflows show their steps as tasks, see as_plan; `workflows_k`:
    how many workflows at most, default `ctx.workflows_k`; `own_lessons`: only those learned
    on `text` itself). Only memories above the relevance floor are candidates (lessons from
    successes and failures alike). Workflows are packed first, then reflections, greedily, so
    memory never takes more than its share of `role`'s model's context (its tokenizer counts).
    """
    reflections = _lessons(memory, text, ctx.reflections_k, own=own_lessons)
    # a learned workflow is a plan for questions of one form (names abstracted): found by
    # form; one about this subject (written or imported with its names) by the text itself
    k = ctx.workflows_k if workflows_k is None else workflows_k
    workflows = memory.relevant_workflows(
        text, k, also=[form_text(text)], where=fits_prompt(text, plan=plan)
    )
    if not reflections and not workflows:
        return MemoryBlock(MEMORY_SECTIONS.format(reflections=NO_MEMORY, workflows=NO_MEMORY), [])
    model, model_spec = ctx.chat(role), ctx.spec(role)
    show = as_plan if plan else (lambda w: w)
    result = pack(
        [
            MemoryGroup("workflows", workflows, lambda w: data(format_workflow(show(w)))),
            MemoryGroup("reflections", as_data(reflections), lambda r: format_reflections([r])),
        ],
        system="",
        query="",
        context_window=min(context_window(model, model_spec) // MEMORY_SHARE, MEMORY_MAX_TOKENS),
        response_reserve=0,
        count=token_counter(model, model_spec),
    )
    used = result.used
    if len(used.get("reflections", [])) < len(reflections):
        log.info("memory budget: %s", result.counts())
    lessons, flows = used.get("reflections", []), used.get("workflows", [])
    text = MEMORY_SECTIONS.format(
        reflections=format_reflections(lessons) or NO_MEMORY,
        workflows="\n\n".join(data(format_workflow(show(w))) for w in flows) or NO_MEMORY,
    )
    return MemoryBlock(text, [r.id for r in lessons] + [workflow_ref(w.name) for w in flows])


SOLVED_SHOWN = 1  # worked examples a hop is shown: one chain of the kind is the pattern


def solved_before(
    memory: AgentMemory, ctx: Context, query: str, k: int = SOLVED_SHOWN
) -> MemoryBlock:
    """Questions of the request's kind answered right before (worked examples, the `example:`
    workflows that training leaves, evals.hotpotqa.expel_memory): each one's question and the
    reasoning of the chain that answered it, for a hop to follow with its own names. Found by
    form (memory/workflows/kinds.py), not by subject: a question of another kind asks for
    another chain, and one shown to a small model is copied; so nothing is shown for a kind
    never solved (and nothing is embedded where memory holds no example). The nearest kind
    first, then the fewest searches that worked."""
    solved = [w for w in memory.workflows(WEBSITE) if w.provenance.template.startswith("example: ")]
    if not solved:
        return MemoryBlock("", [])
    embeddings = ctx.models.embeddings(ctx.embedding_model)
    near = kind_similarity(embeddings, query, [_step(w, "question") for w in solved])
    searches = [sum(s.startswith("search: ") for s in w.steps) for w in solved]
    ranked = sorted(
        zip(near, searches, range(len(solved)), strict=True), key=lambda r: (-r[0], r[1])
    )
    shown = [solved[i] for sim, _, i in ranked[:k] if sim >= KIND_SIMILARITY]
    if not shown:
        return MemoryBlock("", [])
    examples = "\n\n".join(
        SOLVED_EXAMPLE.format(
            question=data(_step(w, "question")),
            reasoning=data(" ".join(_steps(w, "found"))),
            answer=data(_step(w, "answer")),
        )
        for w in shown
    )
    return MemoryBlock(
        SOLVED_BEFORE.format(examples=examples), [workflow_ref(w.name) for w in shown]
    )


def _steps(workflow: Workflow, kind: str) -> list[str]:
    """The text of a worked example's steps of one kind ("found: …" -> "…")."""
    return [s[len(kind) + 2 :] for s in workflow.steps if s.startswith(f"{kind}: ")]


def _step(workflow: Workflow, kind: str) -> str:
    return next(iter(_steps(workflow, kind)), "")
