"""Graph state: the research graphs' ReflectiveAgentState, per-task state, the web agent's.

The research graphs fan tasks out (`Send`) into a per-task subgraph with its own `TaskState`
(its own attempts and retry counter); what a finished task hands back is gathered in task order
by `put_slots` (keyed by task index; a later write to a slot replaces it).

Names, one per thing: `query` is what a person asks a research graph (the specification's name:
the state key, every `{query}` in prompts/research.py, the code and docs); a `task` is one step
of its plan; a search's words are a search query (a tool's `query` argument). The model reads
the query under `<request>`, and as `Question:` or `<question>` in the short-answer prompts: those
words are what the pooled tables were measured with, so they stay. The web graph's input is a
`task`, as in WebArena and AWM, whose prompts show it under `<task>`.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Literal, NotRequired

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

MAX_TASKS = 5  # the tasks of one plan, at most (the planner's and a person's edits alike)
# The values a router, a report or a reader branches on, one type each.
# how a run researches its request: a short answer along its chain of facts, or by a plan
Research = Literal["chain", "plan"]
# how a short answer's chain ended (agents/research/hop.py): the passages held the answer, a
# comparison was worked out, the last reading's answer stood, or nothing was found
ChainEnd = Literal["answered", "compared", "last reading", "not found"]
# how an answer check ended (agents/research/readings.py): both readings gave one answer, the
# direct reading gave none, a choice between two held in both orders, or it flipped with them
CheckHow = Literal["agreed", "no direct answer", "chosen", "order-bound"]
DISAGREED: tuple[CheckHow, ...] = ("chosen", "order-bound")  # the two readings differed
# the budget cap a run reached (agents/research/budget.py); its answer is then partial
Cap = Literal["max_calls", "max_tokens", "max_seconds"]
# why a run ended early: cancelled at plan approval (no answer), or a cap
Stopped = Cap | Literal["cancelled"]
# a task's last verdict: passed, retries ran out, no usable verdict, not judged, or not run
# (its search found nothing the run had not read)
TaskVerdict = Literal["pass", "fail", "unjudged", "done", "skipped"]


def put_slots(current: list[Any] | None, update: dict[Any, Any] | list[Any] | None) -> list[Any]:
    """Reducer of per-task lists: `{index: value}` sets those slots (None-padded), a list
    replaces the whole list, None empties it (a new run on the same thread)."""
    if update is None:
        return []
    if isinstance(update, list):
        return list(update)
    out = list(current or [])
    for key, value in update.items():
        index = int(key)  # JSON round trips (langgraph dev) turn int keys into strings
        out.extend([None] * (index + 1 - len(out)))
        out[index] = value
    return out


def add_new(current: list[str] | None, update: list[str] | None) -> list[str]:
    """Reducer of id lists: append ids not yet present (a replayed step adds nothing);
    None empties the list (a new run on the same thread)."""
    if update is None:
        return []
    out = list(current or [])
    out.extend(i for i in update if i not in out)
    return out


class InputState(TypedDict):
    """What a caller passes in: the request as `query`, or as a chat's `messages` whose last is
    a person's (agents/research/reply.py); the answer is appended to `messages`."""

    query: NotRequired[str]
    messages: NotRequired[Annotated[list[AnyMessage], add_messages]]


class OutputState(InputState):
    """What a run gives back (`invoke`, a `values` stream, a parent graph): the chat with the
    answer appended, the request, the answer itself, it with its explanation and sources
    (`final_output`), its checked citations (agents/research/reply.py: each `{"n", "title",
    "source", "sentences"}`, a passage the run read that holds those sentences) and `stopped`
    (why it ended early: "cancelled", or the cap it reached, the answer then partial). The
    run's workings (evidence, plan, task results, checks) stay in its checkpoint
    (`graph.get_state(config).values`) and in its `updates` stream."""

    answer: NotRequired[str]
    final_output: NotRequired[str]
    citations: NotRequired[list[dict[str, Any]]]
    stopped: NotRequired[Stopped | None]


class TaskReport(TypedDict):
    """How one task went: attempts made, retries granted and the last attempt's verdict."""

    task: str
    attempts: int
    retries: int
    verdict: TaskVerdict


class ChainLink(TypedDict):
    """One hop along a short answer's chain (agents/research/hop.py): the facts its reading
    found in the passages read, the sentence naming what was not read yet (`guess`), the
    search that followed (`searched`, "" when none did), and for the last hop the answer and
    how the chain ended."""

    facts: list[str]
    guess: str
    searched: str
    answer: NotRequired[str]
    how: NotRequired[ChainEnd]


class AnswerCheck(TypedDict):
    """What check_answer compared (agents/research/check_answer.py): the research's answer, one
    direct reading's, the one chosen, and how the choice was made."""

    research: str
    direct: str
    chosen: str
    how: CheckHow


class ReflectiveAgentState(OutputState):
    """State of the research graphs (reflective and single-path).

    `answer_form` is the form goal setting chose for the answer (one of
    prompts.research.AnswerForm; a short form is checked against a reading).
    `evidence` is what the first search for the request found (from `evidence_sources`);
    every prompt of the run opens with the request and it. `sources` lists the documents and
    pages the tasks read besides (reducer: add_new), `read` the search hits the tasks' last
    attempts found beyond the evidence, each once (what check_answer reads besides it).
    `tasks[i]` depends on the tasks listed in `depends_on[i]` (earlier indices only).
    `current_tasks` are the tasks running now (one wave of the fan-out). `results[i]` and
    `task_reports[i]` belong to `tasks[i]`; only a task's final attempt lands there, so failed
    attempts never reach the aggregator; `task_steps[i]` is that attempt's tool steps (what the
    run's trajectory is made of). `answer` is the final answer itself, `final_output`
    it with its explanation and sources; `answer_check` what check_answer compared (the
    research's answer, one direct reading's, the one chosen), None when the answer was not
    checked. `research` says how goal setting sent the run on: along a short answer's chain,
    or to a plan; `chain` is the chain's hops (ChainLink): the facts each found and what it
    searched next. `recalled` lists the memories that reached this run's prompts
    (reflection ids, `workflow:NAME`), each once: what memory did to the answer can be
    traced. `run_id` names this run: memory ids derive from it. `stopped` says why the run
    ended early: "cancelled" at plan approval (no answer), or the budget cap it reached
    ("max_calls", "max_tokens", "max_seconds"; the answer is then partial). `approval` says
    the plan waits for a person (Context.approve_plan when it was made): kept in the state, so
    a resume whose context lacks the setting still reads the person's answer.
    """

    run_id: NotRequired[str]
    evidence: NotRequired[str]
    evidence_sources: NotRequired[list[str]]
    sources: NotRequired[Annotated[list[str], add_new]]
    read: NotRequired[Annotated[list[str], add_new]]
    optimized_goal: NotRequired[str]
    answer_form: NotRequired[str]
    tasks: NotRequired[list[str]]
    depends_on: NotRequired[list[list[int]]]
    approval: NotRequired[bool]
    current_tasks: NotRequired[list[int]]
    results: NotRequired[Annotated[list[str | None], put_slots]]
    task_reports: NotRequired[Annotated[list[TaskReport | None], put_slots]]
    task_steps: NotRequired[Annotated[list[list[dict[str, Any]] | None], put_slots]]
    reflection_ids: NotRequired[Annotated[list[str], add_new]]
    recalled: NotRequired[Annotated[list[str], add_new]]
    answer_check: NotRequired[AnswerCheck | None]
    research: NotRequired[Research]
    chain: NotRequired[list[ChainLink]]


# every key of a research run's state: `graph.invoke(..., output_keys=STATE_KEYS)` returns its
# workings too (the evaluations read them), where a plain invoke returns OutputState
STATE_KEYS = tuple(
    sorted(ReflectiveAgentState.__required_keys__ | ReflectiveAgentState.__optional_keys__)
)


class Dependency(TypedDict):
    task: str
    result: str


class TaskInput(TypedDict):
    """What the scheduler sends to one task's subgraph (`evidence`: the run's, see above;
    `known`: the passages the run's finished tasks read beyond it, the parent's `read`;
    `last`: it is the plan's last task, the one that answers)."""

    run_id: str
    query: str
    evidence: str
    optimized_goal: str
    task_index: int
    task: str
    dependencies: list[Dependency]
    known: NotRequired[list[str]]
    last: NotRequired[bool]


class TaskState(TaskInput):
    """One task's own loop: execute → reflect → retry, with its own counters.

    `attempt` counts attempts made; `retry_count` the retries granted so far. A retry sees `result`
    (its previous attempt) and `last_reflection` (the lesson that rejected it). `task_evidence` is
    what the attempt's own search found beyond the run's evidence (the reflector judges against
    it). `skipped`: a step whose search found only passages the run had read was not run (no model
    call; the request's own task always runs). `results`, `task_reports`, `task_steps`,
    `reflection_ids`, `recalled`, `sources` and `read` (the hits of the last attempt's
    `task_evidence`) are what the task hands back to the parent.
    """

    attempt: NotRequired[int]
    retry_count: NotRequired[int]
    result: NotRequired[str]
    task_evidence: NotRequired[str]
    sources: NotRequired[Annotated[list[str], add_new]]
    trajectory: NotRequired[list[dict[str, Any]]]
    needs_retry: NotRequired[bool]
    skipped: NotRequired[bool]
    verdict: NotRequired[str]
    last_reflection: NotRequired[str]
    reflection_ids: NotRequired[Annotated[list[str], operator.add]]
    recalled: NotRequired[Annotated[list[str], operator.add]]
    read: NotRequired[list[str]]
    results: NotRequired[dict[int, str]]
    task_reports: NotRequired[dict[int, TaskReport]]
    task_steps: NotRequired[dict[int, list[dict[str, Any]]]]


class TaskOutput(TypedDict):
    """What a finished task writes into the parent's state."""

    results: dict[int, str]
    task_reports: dict[int, TaskReport]
    task_steps: dict[int, list[dict[str, Any]]]
    reflection_ids: list[str]
    recalled: list[str]
    sources: list[str]
    read: list[str]


class WebAgentInput(TypedDict):
    """What a caller passes to the web agent: the task and where to start.

    `run_id` names the run (made up when absent). A caller that prepared the page attaches its
    environment to the run's context with `agents.web.session.attach` (the graph then uses that
    page as it is); without one the graph opens its own at `start_url`. `workflows`, when
    given, replaces the workflows retrieved from memory.
    """

    task: str
    start_url: NotRequired[str]
    website: NotRequired[str]
    run_id: NotRequired[str]
    workflows: NotRequired[str]


class WebAgentState(WebAgentInput):
    """State of the web agent's observe → decide → act loop.

    `plan` is the task's steps, written before the first action and once more if they run out
    (agents.web.plan; empty when planning is off or failed): `plan_from` is how many steps the
    episode had when it was written, `plans` how many were written. `steps` accumulates the
    episode's TrajectoryStep dicts and `tokens` the model's tokens (reducer: add).
    `done_reason` is set when the episode ends ("stop", a limit, "task_done").
    """

    observation: NotRequired[str]
    url: NotRequired[str]
    memory: NotRequired[dict[str, str]]
    plan: NotRequired[list[str]]
    plan_from: NotRequired[int]
    plans: NotRequired[int]
    pending_action: NotRequired[str]
    steps: NotRequired[Annotated[list[dict[str, Any]], operator.add]]
    tokens: NotRequired[Annotated[int, operator.add]]
    done_reason: NotRequired[str]
    answer: NotRequired[str]
    reward: NotRequired[float | None]
    success: NotRequired[bool]
    judged_by: NotRequired[str]
    trajectory_id: NotRequired[str]
