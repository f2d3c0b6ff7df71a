"""Drive one checkpointed run of a graph for the CLI and print its outcome."""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

from cli.progress import CallCounter, Progress
from core.context import Context


def _builder(graph_name: str):
    if graph_name == "single-path":
        from graphs.single_path import build_single_path_graph

        return build_single_path_graph()
    from graphs.reflective import build_reflective_graph

    return build_reflective_graph()


def _reflections(ctx: Context, store: Any, ids: list[str]) -> list[dict[str, Any]]:
    from memory.store_memory import StoreMemory

    memory = StoreMemory(store, ctx.memory_namespace)
    return [r.model_dump(mode="json") for i in ids if (r := memory.get_reflection(i))]


def execute_run(args: argparse.Namespace, ctx: Context, graph_name: str, thread_id: str) -> int:
    from core.models import get_embeddings
    from memory.langgraph_store import ProjectStore

    db = Path(args.home) / "checkpoints.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    # the project's persistent memory: reflections in SQLite + FAISS, workflows and
    # trajectories in their files under the home folder
    store = ProjectStore.open(ctx.home, get_embeddings(ctx.embedding_model))
    try:
        graph = _builder(graph_name).compile(checkpointer=SqliteSaver(conn), store=store)
        return _stream(args, ctx, graph, thread_id)
    finally:
        store.close()
        conn.close()
        from agents.resources import close_tools

        close_tools()


def _stream(args: argparse.Namespace, ctx: Context, graph: Any, thread_id: str) -> int:
    counter = CallCounter()
    config = {
        "configurable": {"thread_id": thread_id},
        "callbacks": [counter],
        "recursion_limit": 200,
        "max_concurrency": ctx.max_concurrency,  # tasks (and their nodes) running at once
    }
    snapshot = graph.get_state(config)
    if args.resume and not snapshot.next:
        print(f"run {thread_id} has already finished; printing its result", file=sys.stderr)
    print(f"thread: {thread_id}  (resume with: main.py run --resume {thread_id})", file=sys.stderr)
    progress = Progress(snapshot.values, ctx.max_retries)
    payload = None if args.resume else {"query": args.task}
    started = time.monotonic()
    for namespace, chunk in graph.stream(
        payload, config, context=ctx, stream_mode="updates", subgraphs=True
    ):
        for node, update in chunk.items():
            progress.update(node, update, namespace)
    state = graph.get_state(config).values
    elapsed = round(time.monotonic() - started, 2)
    if args.json:
        out = {
            "thread_id": thread_id,
            "final_output": state.get("final_output", ""),
            "tasks": state.get("tasks", []),
            "results": state.get("results", []),
            "reflections": _reflections(ctx, graph.store, state.get("reflection_ids", [])),
            "llm_calls": counter.llm_calls,
            "tokens": {"input": counter.input_tokens, "output": counter.output_tokens},
            "elapsed_s": elapsed,
        }
        print(json.dumps(out, ensure_ascii=False))
    else:
        print(state.get("final_output", ""))
        print(f"({counter.llm_calls} model calls, {elapsed}s)", file=sys.stderr)
    return 0 if state.get("final_output") else 1
