"""Drive one checkpointed run of a graph for the CLI and print its outcome.

Durability: the run streams with `durability="sync"`, so each finished step is in the
checkpoint before the next one starts; after a kill, `--resume` never re-runs a finished
execute_task (LangGraph's default, "async", may still be writing when the process dies).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.types import Command

from cli import approval, outcome
from cli.errors import UsageError, report
from cli.progress import CallCounter, Progress, TaskReporter
from cli.shutdown import PromptInterrupts, run_atexit_hooks
from core.context import Context

# Supersteps: goal, decompose and aggregate, plus per task its attempts (execute, reflect) and
# the step to the next task. Doubled margins, so a regrouped graph still fits; a real loop
# (a bug) still stops, with a clear error instead of running forever.
FIXED_STEPS, STEPS_PER_ATTEMPT, STEPS_PER_TASK = 10, 4, 2


def recursion_limit(max_retries: int, max_tasks: int | None = None) -> int:
    """The graph's step limit for tasks × attempts (attempts = max_retries + 1)."""
    if max_tasks is None:
        from core.state import MAX_TASKS

        max_tasks = MAX_TASKS
    attempts = max_retries + 1
    return FIXED_STEPS + max_tasks * (attempts * STEPS_PER_ATTEMPT + STEPS_PER_TASK)


def _reflections(ctx: Context, store: Any, ids: list[str]) -> list[dict[str, Any]]:
    from memory.agent_memory import AgentMemory

    memory = AgentMemory(store, ctx.memory_namespace)
    return [r.model_dump(mode="json") for i in ids if (r := memory.get_reflection(i))]


def open_checkpoints(home: Path) -> tuple[sqlite3.Connection, SqliteSaver]:
    """The run checkpoints under `home`; a damaged file is MemoryStoreDamagedError (exit 4)
    naming the file and the fix, not a crash."""
    from memory.engine.errors import MemoryStoreDamagedError

    db = home / "checkpoints.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    saver = SqliteSaver(conn)
    try:
        saver.setup()
        conn.execute("SELECT count(*) FROM checkpoints").fetchone()
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise MemoryStoreDamagedError(
            f"checkpoint file {db} is damaged ({exc}); move it aside (mv {db} {db}.damaged) to "
            "start afresh: its unfinished runs cannot be resumed, memories are not affected"
        ) from exc
    return conn, saver


def execute_run(args: argparse.Namespace, ctx: Context, graph_name: str, thread_id: str) -> int:
    from graphs.research import build_graph
    from memory.stores.project_store import open_memory_store

    conn, saver = open_checkpoints(Path(args.home))
    memory_url = getattr(args, "memory_url", None) or os.environ.get("AGENT_MEMORY_URL")
    try:
        # the project's persistent memory: reflections in SQLite + FAISS, workflows and
        # trajectories in their files under the home folder; or shared in PostgreSQL
        with open_memory_store(
            ctx.home, ctx.embedding_model, models=ctx.models, memory_url=memory_url
        ) as store:
            graph = build_graph(graph_name).compile(checkpointer=saver, store=store)
            return _stream(args, ctx, graph, thread_id)
    finally:
        conn.close()


def _live_line(out: Any) -> Any:
    """The live status line when `out` is a terminal, else a line every LOG_INTERVAL_S while
    a node runs (a service's log is never silent for minutes)."""
    from cli.live import LiveLine, LogLines

    if not (hasattr(out, "isatty") and out.isatty()):
        return LogLines(out).start()
    return LiveLine(out).start()


def _drive(graph: Any, payload: Any, config: dict[str, Any], ctx: Context, progress: Progress):
    """Stream the run, printing progress; with a live line, chat models stream their tokens
    to it through its callback (cli.live says why not stream_mode "messages")."""
    live = _live_line(progress.out)
    # the task subgraphs' nodes (execute, reflect) report through a callback
    config = {**config, "callbacks": [*config["callbacks"], TaskReporter(progress, live)]}
    if live:
        config = {**config, "callbacks": [*config["callbacks"], live]}
    # Closed explicitly, inside the caller's PromptInterrupts: closing it waits for nodes still
    # running in LangGraph's pool, and that wait must stay under the Ctrl-C watchdog.
    stream = graph.stream(payload, config, context=ctx, stream_mode="updates", durability="sync")
    try:
        for chunk in stream:
            for node, update in chunk.items():
                if node == "__interrupt__":  # a paused plan: the caller asks for it
                    continue
                if live:
                    with live.paused():
                        progress.update(node, update)
                else:
                    progress.update(node, update)
    finally:
        stream.close()
        if live:
            live.stop()


def _stream(args: argparse.Namespace, ctx: Context, graph: Any, thread_id: str) -> int:
    counter = CallCounter()
    config: dict[str, Any] = {
        "configurable": {"thread_id": thread_id},
        "callbacks": [counter],  # the caps are the graph's own (ctx.chat: core.run_budget)
        "recursion_limit": recursion_limit(ctx.max_retries),
        "max_concurrency": ctx.task_concurrency,  # tasks (and their nodes) running at once
    }
    snapshot = graph.get_state(config)
    payload = _payload(args, graph, config, snapshot)
    hint = f"resume with: {args.prog} run --resume {thread_id}"
    print(f"thread: {thread_id}  ({hint})", file=sys.stderr)
    progress = Progress(snapshot.values, ctx.max_retries)

    def force_exit(stop: KeyboardInterrupt) -> None:  # while parallel nodes run (cli.shutdown)
        report(type(stop)(hint), as_json=args.json)
        # the exit hooks close a browser an unfinished attempt still has open
        run_atexit_hooks(2.0)

    ctx.budget.start_clock()
    started = time.monotonic()
    while True:
        try:
            with PromptInterrupts(force_exit):
                _drive(graph, payload, config, ctx, progress)
        except KeyboardInterrupt as stop:  # the message becomes the one `error:` line
            raise type(stop)(hint) from stop  # a Terminated stays one: its own exit code
        snapshot = graph.get_state(config)
        plan = pending_plan(snapshot)
        if plan is None:
            break
        if args.json or not approval.interactive():
            return outcome.awaiting(args, thread_id, plan)
        payload = Command(resume=approval.ask(plan))
    elapsed = round(time.monotonic() - started, 2)
    reflections = _reflections(ctx, graph.store, snapshot.values.get("reflection_ids", []))
    return outcome.finished(args, thread_id, snapshot.values, counter, elapsed, reflections)


def pending_plan(snapshot: Any) -> dict[str, Any] | None:
    """The plan a run is paused on for approval (the interrupt's value), else None."""
    for pause in getattr(snapshot, "interrupts", ()) or ():
        if isinstance(pause.value, dict) and "tasks" in pause.value:
            return pause.value
    return None


def _payload(args: argparse.Namespace, graph: Any, config: dict[str, Any], snapshot: Any) -> Any:
    """What the stream starts with: the request, a paused plan's answer, or nothing (resume)."""
    if not args.resume:
        return {"query": args.task}
    waiting = pending_plan(snapshot)
    if args.plan:
        if waiting is None:
            raise UsageError(f"run {args.resume} is not waiting for its plan to be approved")
        # read by cli.run before any model loaded; read here for callers that did not
        answer = getattr(args, "plan_answer", None) or approval.read_plan(args.plan)
        return Command(resume=answer)
    values = snapshot.values
    stopped = values.get("stopped")
    if not snapshot.next and stopped in outcome.CAPS:
        # a run that stopped at a cap goes on where it stopped, with this run's budget
        print(f"continuing run {args.resume}, stopped at its {stopped} cap", file=sys.stderr)
        # its plan's next tasks, or before a plan, what follows the goal (a reading, a plan)
        after = "run_task" if values.get("tasks") else "goal_setting"
        graph.update_state(config, {"stopped": None}, as_node=after)
    elif not snapshot.next:
        print(f"run {args.resume} has already finished; printing its result", file=sys.stderr)
    return None  # a paused plan is asked for again
