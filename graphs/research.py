"""The research graphs: plan the request, run its tasks in parallel, write the answer.

Both graphs share the outer wiring (goal → plan → tasks in waves → aggregate); they differ in the
per-task subgraph: the reflective one judges each attempt and may retry it, and checks a short
final answer against one direct reading of the evidence; the single-path baseline makes one attempt
and answers unchecked. The reflective graph answers first: for a short answer the check reads the
request's first search once, and where that reading agrees with goal setting's answer the run ends
with no plan (a lookup costs about one retrieval and two calls); readings that differ, or a lone
one, take one hop (a second search with the answers, its new passages read on their own); only
what the hop does not settle is researched. Each node is a function of the same name in
agents/research/, its prompt under the node's heading in prompts/research.py.
The nodes a person waits on are `reported`: each writes a line as it starts and ends to the run's
`custom` stream, which a chat page shows while the run works (agents/research/progress.py).

A node whose model call is refused at the run's cap ends with `stopped` instead of its work
(agents/research/budget.py `capped`), and the run drains to its end without another call. A run
gives back OutputState (the chat, the answer, its citations, `stopped`); stream updates carry
every state key (goal, tasks, each task's report), and the checkpoint holds the whole state.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import RetryPolicy, Send

from agents.research.aggregate_results import aggregate_results, partial_answer
from agents.research.approve_plan import approve_plan
from agents.research.budget import budget_stop, capped
from agents.research.check_answer import check_answer
from agents.research.decompose_query import decompose_query
from agents.research.execute_task import execute_task
from agents.research.finish_task import finish_task
from agents.research.goal_setting import goal_setting
from agents.research.hop import hop
from agents.research.progress import reported
from agents.research.reflect_on_answer import reflect_on_answer
from agents.research.reflect_on_task import reflect_on_task
from agents.research.reply import standing
from agents.research.schedule_tasks import schedule_tasks, task_input
from core.context import Context
from core.run_budget import CapReached
from core.served import served
from core.state import (
    InputState,
    OutputState,
    ReflectiveAgentState,
    TaskInput,
    TaskOutput,
    TaskState,
)

ResearchBuilder = StateGraph[ReflectiveAgentState, Context, InputState, OutputState]
TaskBuilder = StateGraph[TaskState, Context, TaskInput, TaskState]
Route = Literal["retry", "finish"]
# Transient provider errors (timeouts, rate limits) are retried; bad output is handled in nodes.
TRANSIENT = RetryPolicy(max_attempts=3)


# -- one task ------------------------------------------------------------------------------------
def build_reflective_task_graph() -> TaskBuilder:
    """One task: execute_task → reflect_on_task, then retry (the next attempt sees the previous
    one and the reflection on it) or finish_task (hand the last attempt to the parent)."""
    builder = StateGraph(TaskState, context_schema=Context, input_schema=TaskInput)
    builder.add_node("execute_task", execute_task, retry_policy=TRANSIENT)  # one attempt, tools
    builder.add_node("finish_task", finish_task)  # the last attempt, keyed by task index
    builder.add_node("reflect_on_task", reflect_on_task, retry_policy=TRANSIENT)  # judge it
    builder.add_edge(START, "execute_task")  # every task starts with an attempt
    builder.add_edge("finish_task", END)  # the parent receives TaskOutput's keys
    builder.add_conditional_edges(  # each attempt is judged; a step not run has nothing to judge
        "execute_task", route_attempt, ["reflect_on_task", "finish_task"]
    )
    builder.add_conditional_edges(  # retry while needed and allowed, else hand it back
        "reflect_on_task",
        should_retry_or_continue,
        {"retry": "execute_task", "finish": "finish_task"},
    )
    return builder


def build_single_path_task_graph() -> TaskBuilder:
    """One task: execute_task → finish_task (one attempt, not judged)."""
    builder = StateGraph(TaskState, context_schema=Context, input_schema=TaskInput)
    builder.add_node("execute_task", execute_task, retry_policy=TRANSIENT)  # one attempt, tools
    builder.add_node("finish_task", finish_task)  # the attempt, keyed by task index
    builder.add_edge(START, "execute_task")  # the task's only attempt
    builder.add_edge("finish_task", END)  # the parent receives TaskOutput's keys
    builder.add_edge("execute_task", "finish_task")  # no judge: the attempt is the result
    return builder


def route_attempt(state: TaskState) -> Literal["reflect_on_task", "finish_task"]:
    """After an attempt: judge it, or hand back a step that was not run (nothing new to read)."""
    return "finish_task" if state.get("skipped") else "reflect_on_task"


def decide(*, needs_retry: bool, attempt: int, max_retries: int) -> Route:
    """After a reflection: retry the task or finish it.

    `attempt` counts the attempts made (1 after the first), so `max_retries=N` allows exactly
    N retries (N+1 attempts) per task.
    """
    return "retry" if needs_retry and attempt <= max_retries else "finish"


def should_retry_or_continue(state: TaskState, runtime: Runtime[Context]) -> Route:
    """Per task: retry this task, or hand it back (the scheduler continues with the next tasks
    or finishes)."""
    if budget_stop(runtime.context):  # a cap reached: no more attempts
        return "finish"
    return decide(
        needs_retry=state.get("needs_retry", False),
        attempt=state.get("attempt", 1),
        max_retries=runtime.context.max_retries,
    )


def run_task_node(task_graph: TaskBuilder):
    """The parent's run_task node: runs one task's subgraph and hands back only its outputs.

    A function around the compiled subgraph (rather than the subgraph as the node) so the
    subgraph has no output schema: its stream updates then show every key its nodes write
    (task index, attempt, result, verdict, retry counter), while the parent receives only
    TaskOutput's keys (parallel tasks must not all write the parent's query or goal).
    """
    compiled = task_graph.compile(name="task")

    def run_task(state: TaskInput, config: RunnableConfig) -> TaskOutput | dict:
        try:
            out = compiled.invoke(state, config)
        except CapReached:  # unfinished: the scheduler starts nothing more (a resume reruns it)
            return {}
        return {
            "results": out["results"],
            "task_reports": out["task_reports"],
            "task_steps": out.get("task_steps") or {},
            "reflection_ids": out.get("reflection_ids") or [],
            "recalled": out.get("recalled") or [],
            "sources": out.get("sources") or [],
            "read": out.get("read") or [],
        }

    return run_task


# -- the whole request ---------------------------------------------------------------------------
def build_research_graph(task_graph: TaskBuilder, *, check: bool = False) -> ResearchBuilder:
    """goal_setting → (with `check`: the answer check first, add_answer_check) decompose_query →
    approve_plan → schedule_tasks ⇉ run_task (one `task_graph` per task, in parallel) →
    schedule_tasks … → aggregate_results → END (with `check`: → the answer check)."""
    builder = StateGraph(
        ReflectiveAgentState,
        context_schema=Context,
        input_schema=InputState,
        output_schema=OutputState,
    )
    # search for the request, then its goal, what must be found and the answer's form
    builder.add_node("goal_setting", reported(goal_setting), retry_policy=TRANSIENT)
    # the tasks (planning is new work: it needs room for the answer's call after it)
    builder.add_node(
        "decompose_query",
        reported(capped(decompose_query, room=budget_stop)),
        retry_policy=TRANSIENT,
    )
    builder.add_node("approve_plan", approve_plan)  # a person may accept, edit or cancel it
    builder.add_node("schedule_tasks", schedule_tasks)  # the tasks whose inputs are ready
    builder.add_node("run_task", reported(run_task_node(task_graph)))  # one task's subgraph
    builder.add_node(  # the answer; with no call left, the one the run has (partial_answer)
        "aggregate_results",
        reported(capped(aggregate_results, partial_answer)),
        retry_policy=TRANSIENT,
    )
    builder.add_edge(START, "goal_setting")  # the request becomes a goal first
    if check:  # a short answer is followed along its chain before anything is planned
        builder.add_conditional_edges("goal_setting", route_goal, ["hop", "decompose_query"])
    else:
        builder.add_edge("goal_setting", "decompose_query")  # plan the tasks toward it
    builder.add_edge("decompose_query", "approve_plan")  # the plan, before it spends anything
    builder.add_conditional_edges(  # the first wave, or the end of a cancelled run
        "approve_plan", route_plan, ["schedule_tasks", END]
    )
    builder.add_conditional_edges(  # fan the wave out, or write the answer when none is left
        "schedule_tasks", route_tasks, ["run_task", "aggregate_results"]
    )
    builder.add_edge("run_task", "schedule_tasks")  # finished tasks unlock the next wave
    if check:
        add_answer_check(builder)
    else:
        builder.add_edge("aggregate_results", END)  # the final answer
    return builder


def add_answer_check(builder: ResearchBuilder) -> None:
    """The reflective graph's short answers: hop ⟲ (one link of the chain a hop) →
    reflect_on_answer → END; after research, aggregate_results → check_answer (a short answer
    against one direct reading) → reflect_on_answer → END."""
    builder.add_node(
        "hop", reported(capped(hop, standing)), retry_policy=TRANSIENT
    )  # one link a hop
    builder.add_conditional_edges(  # the next link, or the chain's end
        "hop", route_hop, ["hop", "reflect_on_answer"]
    )
    builder.add_node(
        "check_answer", reported(capped(check_answer, standing)), retry_policy=TRANSIENT
    )
    # readings that disagreed: the run failed, and the reflector says what to do instead
    builder.add_node("reflect_on_answer", reflect_on_answer, retry_policy=TRANSIENT)
    builder.add_edge("aggregate_results", "check_answer")  # a short answer is checked
    builder.add_edge("check_answer", "reflect_on_answer")  # its lesson, if it failed
    builder.add_edge("reflect_on_answer", END)  # the final answer


def route_goal(state: ReflectiveAgentState) -> Literal["hop", "decompose_query"]:
    """After goal setting: along a short answer's chain, or plan research."""
    return "hop" if state.get("research") == "chain" else "decompose_query"


def route_hop(state: ReflectiveAgentState) -> Literal["hop", "reflect_on_answer"]:
    """After a hop: the next one when it searched a missing link (and the run may go on);
    the chain's end otherwise."""
    chain = state.get("chain") or []
    go_on = bool(chain) and bool(chain[-1].get("searched")) and not state.get("stopped")
    return "hop" if go_on else "reflect_on_answer"


def route_plan(state: ReflectiveAgentState) -> Literal["schedule_tasks", "__end__"]:
    """After approval: run the plan, or end a run whose plan was cancelled (no answer)."""
    return "__end__" if state.get("stopped") == "cancelled" else "schedule_tasks"


def route_tasks(state: ReflectiveAgentState) -> list[Send] | Literal["aggregate_results"]:
    """Fan the scheduled tasks out, one `run_task` subgraph each; none left: aggregate."""
    current = state.get("current_tasks") or []
    if not current:
        return "aggregate_results"
    return [Send("run_task", task_input(state, i)) for i in current]


def build_reflective_graph() -> ResearchBuilder:
    """The uncompiled builder; compile it with your own checkpointer/store. Each task is its
    own execute → reflect → retry loop, and a short final answer is checked."""
    return build_research_graph(build_reflective_task_graph(), check=True)


def build_single_path_graph() -> ResearchBuilder:
    """The reflective graph's shape with one unjudged attempt per task and an unchecked
    answer, for comparison."""
    return build_research_graph(build_single_path_task_graph())


def build_graph(name: str) -> ResearchBuilder:
    """The builder a command names with `--graph`: `single-path`, else the reflective graph."""
    return build_single_path_graph() if name == "single-path" else build_reflective_graph()


# Compiled without a checkpointer or store: `langgraph dev` and embedding apps bring their own.
reflective_graph = build_reflective_graph().compile(name="reflective_agent")
single_path_graph = build_single_path_graph().compile(name="single_path_agent")
# What langgraph.json serves: the same graphs, each run's context admitted first against what
# the server's operator offers (core/served.py); library code runs the two above.
served_reflective_graph = served(reflective_graph)
served_single_path_graph = served(single_path_graph)
