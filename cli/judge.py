"""`main.py judge THREAD_ID right|wrong`: tell memory whether a finished run's answer was right.

A run judges itself (its answer check: the research and one direct reading of the evidence
agree or not), and a run that agreed teaches a plan workflow. Two readings can agree on a wrong
answer; a person who knows better says so here. The run's recorded trajectory is relabelled
(judged by "person"): judged wrong, the workflows it taught are taken back and the next run
of its question's form teaches instead; judged right, it teaches though its readings
disagreed (agents.research.learning.judge_run). The workflows its tasks' attempts taught stay:
each was judged by its own task's reflection, and a wrong answer does not make every step of
the way there wrong.
"""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import fields
from pathlib import Path
from typing import Any

from cli import arguments
from cli.commands import models_of
from cli.errors import UsageError


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "judge",
        help="tell memory whether a finished run's answer was right",
        description="Relabel a finished run in memory by your verdict. Wrong: the plan workflow "
        "it taught is taken back (another run of that form of question teaches instead). "
        "Right: it teaches, though its own answer check doubted it.",
    )
    p.add_argument("thread_id", help="the id `run` printed")
    p.add_argument("verdict", choices=("right", "wrong"), help="was the run's answer right?")
    p.add_argument(
        "--memory-url",
        metavar="URL",
        default=None,
        help="the PostgreSQL memory the run used (default $AGENT_MEMORY_URL, else the home's)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    from agents.research.learning import judge_run
    from cli.run import saved_run
    from core.context import Context
    from memory.agent_memory import AgentMemory
    from memory.stores.project_store import open_memory_store

    saved = saved_run(args.home, args.thread_id)
    url = args.memory_url or os.environ.get("AGENT_MEMORY_URL")
    if url:
        arguments.url("--memory-url", url, ("postgresql", "postgres"))
    run_id, tasks = _finished(Path(args.home), args.thread_id, args.prog)
    known = {f.name for f in fields(Context)}
    settings = {k: v for k, v in saved.get("context", {}).items() if k in known}
    ctx = Context(**{**settings, "home": args.home, "models": models_of(args)})
    with open_memory_store(ctx.home, ctx.embedding_model, models=ctx.models, memory_url=url) as s:
        memory = AgentMemory(s, ctx.memory_namespace)
        trajectory = _recorded(memory, args.thread_id, run_id, tasks, ctx.max_retries)
        right = args.verdict == "right"
        verdict = judge_run(memory, ctx, trajectory, right=right, judged_by="person")
    out = {"thread_id": args.thread_id, "verdict": args.verdict, "trajectory": trajectory}
    out |= {"forgotten": verdict.forgotten, "learned": verdict.learned}
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"run {args.thread_id} judged {args.verdict}")
    print(f"workflows taken back: {', '.join(verdict.forgotten) or 'none'}")
    print(f"workflows learned: {', '.join(verdict.learned) or 'none'}")
    return 0


def _finished(home: Path, thread: str, prog: str) -> tuple[str, int]:
    """(run id, number of tasks) of the run's last checkpoint; UsageError unless it answered."""
    from cli.execution import open_checkpoints

    conn, saver = open_checkpoints(home)
    try:
        last = saver.get_tuple({"configurable": {"thread_id": thread}})
    finally:
        conn.close()
    values = last.checkpoint["channel_values"] if last else {}
    if not values.get("final_output") or not values.get("run_id"):
        raise UsageError(
            f"run {thread!r} has not finished: resume it ({prog} run --resume {thread}), "
            "then judge its answer"
        )
    return str(values["run_id"]), len(values.get("tasks") or [])


def _recorded(memory: Any, thread: str, run_id: str, tasks: int, retries: int) -> str:
    """The id of the run's trajectory in memory (agents.research.reflect_on_answer.recorded_run)."""
    from agents.research.reflect_on_answer import recorded_run

    found = recorded_run(memory, thread, run_id, tasks, retries)
    if found is None:
        raise UsageError(
            f"run {thread!r} left no trajectory of its own in this memory (memory off, another "
            "--memory-url, or fewer than two of its tasks searched): nothing to judge"
        )
    return found
