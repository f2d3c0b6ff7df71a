"""The child process of the fault-injection test: one (resumed) run of the reflective graph that
SIGKILLs itself at a chosen point.

Kill points: at the start of a node once `kill_after_ends` nodes have ended in this process (a
node boundary), or right after this process's `kill_after_saves`-th reflection save (inside
reflect_on_task, after the store acknowledged it). Every node start that is not killed is
logged as one JSON line: {"pid", "node", "task_index", "attempt"}.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.store.base import GetOp, PutOp

from core.context import Context
from core.embeddings import HashingEmbeddings
from memory.stores.sqlite_store import SqliteStore

NODES = {
    "goal_setting",
    "decompose_query",
    "schedule_tasks",
    "run_task",
    "aggregate_results",
    "check_answer",
    "reflect_on_answer",
    "execute_task",
    "reflect_on_task",
    "finish_task",
}
SETTINGS = {"max_retries": 1, "induction": "rule", "use_browser": False}


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class Boundaries(BaseCallbackHandler):
    """Logs node starts; kills the process at a node start once enough nodes have ended."""

    def __init__(self, kill_after_ends: int | None, log: Path) -> None:
        self.kill_after_ends, self.log = kill_after_ends, log
        self.running: set[Any] = set()
        self.ended = 0

    def on_chain_start(self, serialized, inputs, *, run_id, metadata=None, **kw) -> None:
        node = (metadata or {}).get("langgraph_node")
        if node not in NODES or kw.get("name") != node:
            return
        if self.kill_after_ends is not None and self.ended >= self.kill_after_ends:
            die()
        self.running.add(run_id)
        inputs = inputs if isinstance(inputs, dict) else {}
        entry = {
            "pid": os.getpid(),
            "node": node,
            "task_index": inputs.get("task_index"),
            "attempt": inputs.get("attempt", 0) + 1 if node == "execute_task" else None,
        }
        with self.log.open("a") as fh:
            fh.write(json.dumps(entry) + "\n")

    def on_chain_end(self, outputs, *, run_id, **kw) -> None:
        if run_id in self.running:
            self.running.discard(run_id)
            self.ended += 1


class KillingStore(SqliteStore):
    """The project's store, dying right after its n-th acknowledged save of a NEW reflection
    (a resumed node saving the same reflection again is an upsert and does not count)."""

    kill_after_saves: int | None = None
    saves = 0

    def batch(self, ops):
        ops = list(ops)
        new = [
            op
            for op in ops
            if isinstance(op, PutOp)
            and op.value is not None
            and op.namespace[0] == "reflections"
            and SqliteStore.batch(self, [GetOp(op.namespace, op.key)])[0] is None
        ]
        results = super().batch(ops)
        self.saves += len(new)
        if new and self.kill_after_saves is not None and self.saves >= self.kill_after_saves:
            die()
        return results


def scripted_context() -> Context:
    """The run's context: every role on the tests' scripted model, the corpus tool on the
    scripted corpus (Ada's passage, and notes of each search's own)."""
    from agents.tools.search_tool import make_search_tool
    from core.models import Models
    from tests.unit.fakes import ScriptedChatModel
    from tests.unit.research_script import TASKS, Script, found_for

    plan = [TASKS[0], TASKS[1], {"task": TASKS[2], "depends_on": [2]}]
    model = ScriptedChatModel(responder=Script({0: [True, False]}, searches=2, plan=plan), calls=[])
    tool = make_search_tool(found_for, name="corpus_search", description="S.", k=3)

    @contextmanager
    def fake_tools(ctx):
        yield [tool]

    # the script's verdicts judge (as a remote model's do), so its retry is asked for
    settings = {**SETTINGS, "model_verdicts": True}
    return Context(**settings, models=Models.fixed(model), tools=fake_tools)


def graph_for(home: Path, store: Any = None):
    from graphs.research import build_reflective_graph

    conn = sqlite3.connect(home / "checkpoints.sqlite", check_same_thread=False)
    return build_reflective_graph().compile(checkpointer=SqliteSaver(conn), store=store)


def run_child(
    home: str, thread: str, kill_after_ends: int | None, kill_after_saves: int | None, log: str
) -> None:
    context = scripted_context()
    store = KillingStore.open(home, HashingEmbeddings(256))
    store.kill_after_saves = kill_after_saves
    graph = graph_for(Path(home), store)
    config = {
        "configurable": {"thread_id": thread},
        "callbacks": [Boundaries(kill_after_ends, Path(log))],
    }
    started = graph.get_state(config).values
    payload = None if started else {"query": "Who was Ada Lovelace?"}
    graph.invoke(payload, config, context=context, durability="sync")
    store.close()
