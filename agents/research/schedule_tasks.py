"""schedule_tasks: which tasks run next, and what each is sent (task_input); what a finished
task hands back is finish_task's."""

from __future__ import annotations

from langgraph.runtime import Runtime

from agents.research.budget import budget_stop
from core.context import Context
from core.state import ReflectiveAgentState, TaskInput


def finished(state: ReflectiveAgentState) -> set[int]:
    return {i for i, r in enumerate(state.get("results") or []) if r is not None}


def schedule_tasks(state: ReflectiveAgentState, runtime: Runtime[Context]) -> dict:
    """The next wave: unfinished tasks whose dependencies are all finished, in task order, at
    most `Context.task_concurrency` of them. Empty when every task is done (then the answer is
    written).

    Dependencies point only at earlier tasks, so the first unfinished task is always ready.
    Once the run's budget is spent none starts, and `stopped` names the cap.
    """
    done = finished(state)
    tasks, depends_on = state.get("tasks") or [], state.get("depends_on") or []
    ready = [
        i
        for i in range(len(tasks))
        if i not in done and all(d in done for d in (depends_on[i] if i < len(depends_on) else []))
    ]
    stop = state.get("stopped") or (budget_stop(runtime.context) if ready else None)
    if stop:  # a cap reached: no new task; the answer is written from what is done
        return {"current_tasks": [], "stopped": stop}
    return {"current_tasks": ready[: runtime.context.task_concurrency]}


def task_input(state: ReflectiveAgentState, index: int) -> TaskInput:
    """What task `index` is sent: the run, the goal, the task and its dependencies' results."""
    tasks, results = state.get("tasks") or [], state.get("results") or []
    depends_on = state.get("depends_on") or []
    deps = depends_on[index] if index < len(depends_on) else []
    return {
        "run_id": state.get("run_id", ""),
        "query": state["query"],
        "evidence": state.get("evidence", ""),
        "optimized_goal": state.get("optimized_goal", ""),
        "task_index": index,
        "task": tasks[index],
        "dependencies": [{"task": tasks[d], "result": results[d] or ""} for d in deps],
        "known": state.get("read") or [],
        "last": index == len(tasks) - 1,
    }
