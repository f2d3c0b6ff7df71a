"""What `run` prints when a run ends or pauses, and the exit code that goes with it.

A finished run prints its answer (or with --json one object); a run that stopped at a budget
cap prints its partial answer and says which cap (exit 6); a cancelled plan ends with no answer
(exit 1); a run paused for plan approval prints the plan and how to answer (exit 7).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agents.research.reply import report
from cli.errors import EXIT_AWAITING_APPROVAL, EXIT_FAILED, EXIT_OK, EXIT_PARTIAL

CAPS = {"max_calls": "--max-calls", "max_tokens": "--max-tokens", "max_seconds": "--max-seconds"}


def awaiting(args: argparse.Namespace, thread_id: str, plan: dict[str, Any]) -> int:
    """The run waits for its plan: print the pause (the plan) and how to answer it."""
    resume = f"{args.prog} run --resume {thread_id} --plan FILE"
    if args.json:
        out = {"thread_id": thread_id, "status": "awaiting_plan_approval", "interrupt": plan}
        print(json.dumps({**out, "resume": resume}, ensure_ascii=False))
    else:
        print(json.dumps(plan, ensure_ascii=False, indent=2))
    print(
        f"the run waits for its plan to be approved; answer with: {resume} "
        '(FILE: {"tasks": [...]}, {"cancel": true} or one task per line)',
        file=sys.stderr,
    )
    return EXIT_AWAITING_APPROVAL


def _json_outcome(
    thread_id: str,
    state: dict[str, Any],
    counter: Any,
    elapsed: float,
    reflections: list[dict[str, Any]],
    citations: list[dict[str, Any]],
) -> dict[str, Any]:
    """`run --json`'s object: the answer, what the run did, and what it cost."""
    stopped = state.get("stopped")
    return {
        "thread_id": thread_id,
        "final_output": state.get("final_output", ""),
        "answer": state.get("answer", ""),
        "sources": sources(state),
        "citations": citations,
        "answer_check": state.get("answer_check") or None,
        "tasks": state.get("tasks", []),
        "results": state.get("results", []),
        "reflections": reflections,
        "recalled": state.get("recalled") or [],
        "llm_calls": counter.llm_calls,
        "tokens": {
            "input": counter.input_tokens,
            "cached": counter.cached_tokens,
            "output": counter.output_tokens,
        },
        "calls": counter.calls,  # each model call: node, tokens, seconds
        "elapsed_s": elapsed,
        "stopped": stopped,
        "partial": stopped in CAPS,
    }


def finished(
    args: argparse.Namespace,
    thread_id: str,
    state: dict[str, Any],
    counter: Any,
    elapsed: float,
    reflections: list[dict[str, Any]],
) -> int:
    """Print the run's outcome; the exit code says whether it is complete."""
    stopped = state.get("stopped")
    text, citations = report(state.get("query", ""), state)
    if args.json:
        outcome = _json_outcome(thread_id, state, counter, elapsed, reflections, citations)
        print(json.dumps(outcome, ensure_ascii=False))
    else:
        print(state.get("final_output", ""))
        print(f"({counter.llm_calls} model calls, {elapsed}s)", file=sys.stderr)
    if getattr(args, "output", None) and state.get("final_output"):
        _write_report(args.output, text, len(citations))
    if stopped == "cancelled":
        print("the plan was cancelled: the run ended without an answer", file=sys.stderr)
        return EXIT_FAILED
    if not state.get("final_output"):
        print("error: the run ended without a final answer", file=sys.stderr)
        return EXIT_FAILED
    if stopped in CAPS:
        done = sum(1 for r in state.get("results") or [] if r is not None)
        print(
            f"partial answer: the run stopped at its {CAPS[stopped]} cap with "
            f"{done}/{len(state.get('tasks') or [])} tasks done; continue with: {args.prog} "
            f"run --resume {thread_id} (a resumed run has a fresh budget)",
            file=sys.stderr,
        )
        return EXIT_PARTIAL
    return EXIT_OK


def _write_report(path: Path, text: str, cited: int) -> None:
    """The report (agents/research/reply.py), written whole or not at all; a failure to
    write it is said, and the answer printed above stands."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
    except OSError as exc:
        print(f"error: the report was not written to {path}: {exc}", file=sys.stderr)
        return
    print(f"report: {path} ({cited} sources cited)", file=sys.stderr)


def sources(state: dict) -> list[str]:
    """Every document or page the run read (the first search's, then the tasks'), in order."""
    read = [*(state.get("evidence_sources") or []), *(state.get("sources") or [])]
    return list(dict.fromkeys(read))
