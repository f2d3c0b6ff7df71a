"""Human-readable progress lines for a streaming run, and a counter of model calls."""

from __future__ import annotations

import sys
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler


class CallCounter(BaseCallbackHandler):
    """Counts chat-model calls and tokens across every node, nested agents included."""

    def __init__(self) -> None:
        self.llm_calls = 0
        self.input_tokens = 0
        self.output_tokens = 0

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.llm_calls += 1

    def on_llm_end(self, response: Any, **kwargs: Any) -> None:
        for generations in response.generations:
            for gen in generations:
                usage = getattr(getattr(gen, "message", None), "usage_metadata", None) or {}
                self.input_tokens += usage.get("input_tokens", 0)
                self.output_tokens += usage.get("output_tokens", 0)


def _short(text: str, n: int = 110) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


class Progress:
    """Mirrors the state from `updates` chunks and prints one line per node."""

    def __init__(self, state: dict[str, Any], max_retries: int, out=None) -> None:
        self.state = dict(state)
        self.max_retries = max_retries
        self.out = out or sys.stderr

    def _where(self) -> str:
        index, tasks = self.state.get("current_task_index", 0), self.state.get("tasks") or []
        retry = self.state.get("retry_count", 0)
        where = f"task {index + 1}/{len(tasks)}"
        return where + (f", retry {retry}/{self.max_retries}" if retry else "")

    def update(self, node: str, update: dict[str, Any] | None) -> None:
        update = update or {}
        if node == "execute_task":  # the line describes the attempt before the counters move
            print(f"[execute_task] {self._where()}: {_short(self._result(update))}", file=self.out)
        for key, value in update.items():
            if key == "reflection_ids":
                self.state[key] = list(self.state.get(key) or []) + list(value)
            else:
                self.state[key] = value
        line = self._describe(node, update)
        if line:
            print(line, file=self.out, flush=True)

    def _verdict(self, update: dict[str, Any]) -> str:
        index, n = self.state.get("current_task_index", 0), len(self.state.get("tasks") or [])
        where = f"task {index + 1}/{n}"
        retries = update.get("retry_count", 0)
        if not update.get("needs_retry"):
            return f"{where}: good enough"
        if retries:
            return f"{where}: not good enough -> retry {retries}/{self.max_retries}"
        return f"{where}: not good enough, retries used up ({self.max_retries}) -> moving on"

    def _result(self, update: dict[str, Any]) -> str:
        results = update.get("results") or []
        index = self.state.get("current_task_index", 0)
        return results[index] if index < len(results) else ""

    def _describe(self, node: str, update: dict[str, Any]) -> str | None:
        if node == "goal_setting":
            return f"[goal_setting] goal: {_short(update.get('optimized_goal', ''))}"
        if node == "decompose_query":
            tasks = update.get("tasks") or []
            lines = [f"[decompose_query] {len(tasks)} task(s):"]
            lines += [f"  {i + 1}. {_short(t, 100)}" for i, t in enumerate(tasks)]
            return "\n".join(lines)
        if node == "reflect_on_task":
            return f"[reflect_on_task] {self._verdict(update)}"
        if node == "update_task_index":
            return f"[update_task_index] next: {self._where()}"
        if node == "aggregate_results":
            return "[aggregate_results] final answer written"
        if node == "execute_task":
            return None  # its line is printed before the state moves (see update)
        return f"[{node}] done"  # a node this printer does not know yet still shows up
