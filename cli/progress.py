"""Human-readable progress lines for a streaming run, and a counter of model calls."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from agents.research.progress import checked, hopped, short
from cli.outcome import CAPS


class CallCounter(BaseCallbackHandler):
    """Counts chat-model calls and tokens across every node, nested agents included, and keeps
    each call's profile (`calls`: its node, prompt tokens, of those read from the model's cache,
    output tokens and seconds): where a run's time goes."""

    def __init__(self) -> None:
        self.llm_calls = 0
        self.input_tokens = 0
        self.cached_tokens = 0
        self.output_tokens = 0
        self.calls: list[dict[str, Any]] = []
        self._started: dict[Any, tuple[float, str]] = {}
        self._lock = threading.Lock()

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        node = (kwargs.get("metadata") or {}).get("langgraph_node", "")
        with self._lock:  # counted once it ends: a call refused at a cap never started
            self._started[kwargs.get("run_id")] = (time.perf_counter(), str(node))

    def on_llm_error(self, error: BaseException, **kwargs: Any) -> None:
        with self._lock:  # a call that failed was made all the same
            self.llm_calls += 1
            self._started.pop(kwargs.get("run_id"), None)

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        with self._lock:
            self.llm_calls += 1
            started, node = self._started.pop(kwargs.get("run_id"), (time.perf_counter(), ""))
            for generations in response.generations:
                for gen in generations:
                    usage = getattr(getattr(gen, "message", None), "usage_metadata", None) or {}
                    cached = (usage.get("input_token_details") or {}).get("cache_read") or 0
                    self.input_tokens += usage.get("input_tokens", 0)
                    self.cached_tokens += cached
                    self.output_tokens += usage.get("output_tokens", 0)
                    self.calls.append(
                        {
                            "node": node,
                            "prompt_tokens": usage.get("input_tokens", 0),
                            "cached_tokens": cached,
                            "output_tokens": usage.get("output_tokens", 0),
                            "seconds": round(time.perf_counter() - started, 2),
                        }
                    )


class Progress:
    """Mirrors the run's state from `updates` chunks (parent graph and task subgraphs) and
    prints one line per node; tasks may run in parallel, so each line names its task."""

    def __init__(self, state: dict[str, Any], max_retries: int, out=None) -> None:
        self.state = dict(state)
        self.max_retries = max_retries
        self.out = out or sys.stderr
        self.retries: dict[int, int] = {}  # retries granted so far, per task
        self._newly_capped = False  # this update is the first to name a cap

    def _where(self, update: dict[str, Any], retry: int) -> str:
        n = len(self.state.get("tasks") or [])
        where = f"task {update.get('task_index', 0) + 1}/{n}"
        return where + (f", retry {retry}/{self.max_retries}" if retry else "")

    def update(self, node: str, update: dict[str, Any] | None, namespace: tuple = ()) -> None:
        """One node's update; `namespace` is () for the parent graph, else the subgraph's."""
        update = update or {}
        self._newly_capped = update.get("stopped") in CAPS and not self.state.get("stopped")
        if not namespace:  # task subgraphs' keys (results as {i: text}) are not the parent's
            for key, value in update.items():
                if key not in ("results", "task_reports", "task_steps", "reflection_ids"):
                    self.state[key] = value
        line = self._describe(node, update) if len(namespace) <= 1 else None
        if line:
            print(line, file=self.out, flush=True)

    def _verdict(self, update: dict[str, Any]) -> str:
        retries = update.get("retry_count", 0)
        index = update.get("task_index", 0)
        granted = retries > self.retries.get(index, 0)
        self.retries[index] = retries
        where = self._where(update, 0)
        if update.get("verdict") == "unjudged" and not update.get("needs_retry"):
            return f"{where}: no usable verdict (recorded as unjudged)"
        if not update.get("needs_retry"):
            return f"{where}: good enough"
        if granted:
            return f"{where}: not good enough -> retry {retries}/{self.max_retries}"
        return f"{where}: not good enough, retries used up ({self.max_retries}) -> moving on"

    def _describe(self, node: str, update: dict[str, Any]) -> str | None:
        cap = (update or {}).get("stopped")
        if cap in CAPS and (node != "schedule_tasks" or self._newly_capped):
            return _capped(node, CAPS[cap])
        say = {
            "goal_setting": _goal,
            "decompose_query": _planned,
            "schedule_tasks": _scheduled,
            "execute_task": self._attempted,
            "reflect_on_task": lambda u: f"[reflect_on_task] {self._verdict(u)}",
            "aggregate_results": lambda u: "[aggregate_results] final answer written",
            "check_answer": lambda u: f"[check_answer] {checked(u)}",
            "hop": _hopped,
            "reflect_on_answer": _learned,
            "run_task": self._finished,
        }.get(node)
        return say(update) if say else f"[{node}] done"  # a node this printer does not know

    def _attempted(self, update: dict[str, Any]) -> str:
        where = self._where(update, max(0, update.get("attempt", 1) - 1))
        return f"[execute_task] {where}: {short(update.get('result', ''))}"

    def _finished(self, update: dict[str, Any]) -> str:
        n = len(self.state.get("tasks") or [])
        lines = [
            f"[run_task] task {int(i) + 1}/{n} done: {r['verdict']}, {r['attempts']} attempt(s)"
            for i, r in (update.get("task_reports") or {}).items()
        ]
        return "\n".join(lines) or "[run_task] done"


def _capped(node: str, flag: str) -> str:
    """A node the run's cap ended (`flag`: the cap's command-line flag)."""
    if node == "schedule_tasks":
        return f"[schedule_tasks] the run reached its {flag} cap: no further task starts"
    if node == "aggregate_results":
        return f"[{node}] no call left ({flag}): the answer is what the run found"
    return f"[{node}] not done: the run reached its {flag} cap"


def _goal(update: dict[str, Any]) -> str:
    return f"[goal_setting] goal: {short(update.get('optimized_goal', ''))}"


def _planned(update: dict[str, Any]) -> str:
    tasks = update.get("tasks") or []
    lines = [f"[decompose_query] {len(tasks)} task(s):"]
    return "\n".join(lines + [f"  {i + 1}. {short(t, 100)}" for i, t in enumerate(tasks)])


def _scheduled(update: dict[str, Any]) -> str:
    if not update.get("current_tasks"):
        return "[schedule_tasks] done"
    return (
        f"[schedule_tasks] running task(s) {', '.join(str(i + 1) for i in update['current_tasks'])}"
    )


def _learned(update: dict[str, Any] | None) -> str | None:
    """Silent unless the readings disagreed."""
    learned = (update or {}).get("reflection_ids")
    return "[reflect_on_answer] the readings disagreed: lesson saved" if learned else None


def _hopped(update: dict[str, Any] | None) -> str:
    """hop's line: its number along the chain, then what it found and did."""
    chain = (update or {}).get("chain") or []
    return f"[hop {len(chain)}] {hopped(update or {})}" if chain else "[hop] done"


class TaskReporter(BaseCallbackHandler):
    """Feeds `progress` the updates of the task subgraphs' execute_task and reflect_on_task.

    They run inside the run_task nodes (in parallel for independent tasks), so the parent's
    `updates` stream does not show them; callbacks do, without `subgraphs=True` (which would
    move even a lone node off the main thread, so Ctrl-C would wait for it).
    """

    NODES = ("execute_task", "reflect_on_task")

    def __init__(self, progress: Progress, live: Any = None) -> None:
        self.progress = progress
        self.live = live  # a cli.live.LiveLine to pause while a line is printed, or None
        self.running: dict[UUID, str] = {}
        self.lock = threading.Lock()

    def on_chain_start(
        self, serialized: Any, inputs: Any, *, run_id: UUID, metadata: Any = None, **kw: Any
    ) -> None:
        node = (metadata or {}).get("langgraph_node")
        if node in self.NODES and kw.get("name") == node:  # the node itself, not a runnable in it
            self.running[run_id] = node

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kw: Any) -> None:
        node = self.running.pop(run_id, None)
        if node and isinstance(outputs, dict):
            with self.lock, self.live.paused() if self.live else contextlib.nullcontext():
                self.progress.update(node, outputs, ("run_task",))

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kw: Any) -> None:
        self.running.pop(run_id, None)
