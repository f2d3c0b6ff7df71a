"""A run's spending against its caps: model calls, tokens and seconds.

    budget = ctx.budget                          # one per run, kept on the run's context
    config = {"callbacks": [budget.callback()]}  # the run's owner lets it see every model call
    budget.over(max_calls=20, max_tokens=None, max_seconds=None)   # "max_calls" once spent

The counts come from a LangChain callback in the run's callbacks, so every model call of the
run is seen, nested agents included, whichever node makes it (the CLI adds it; an app that
invokes the graph adds `ctx.budget.callback()` to its config). The clock runs from the
budget's creation or `start_clock()`. Nothing here imports LangChain until the callback is made,
so the CLI's parser stays light.
"""

from __future__ import annotations

import threading
import time
from typing import Any

REASONS = ("max_calls", "max_tokens", "max_seconds")


class RunBudget:
    """Model calls, tokens (input + output) and seconds one run has spent."""

    def __init__(self) -> None:
        self.calls = 0
        self.tokens = 0
        self.started = time.monotonic()
        self.counted = False  # a callback was made: the counts see the run's calls
        self.warned = False  # the run was told its calls are not counted
        self._lock = threading.Lock()
        self._callback: Any = None

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """Any value: a context field LangGraph validates but never shows as a setting."""
        from pydantic_core import core_schema

        return core_schema.any_schema()

    def start_clock(self) -> None:
        """Count seconds from now (e.g. once the models are loaded and the run starts)."""
        self.started = time.monotonic()

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    def record(self, *, calls: int = 0, tokens: int = 0) -> None:
        with self._lock:
            self.calls += calls
            self.tokens += tokens

    def over(
        self, *, max_calls: int | None, max_tokens: int | None, max_seconds: float | None
    ) -> str | None:
        """The first cap reached ("max_calls", "max_tokens", "max_seconds"), else None."""
        if max_calls is not None and self.calls >= max_calls:
            return "max_calls"
        if max_tokens is not None and self.tokens >= max_tokens:
            return "max_tokens"
        if max_seconds is not None and self.seconds >= max_seconds:
            return "max_seconds"
        return None

    def callback(self) -> Any:
        """The LangChain callback that counts into this budget (the same one every time, so
        adding it twice counts once)."""
        with self._lock:
            if self._callback is None:
                self._callback = _counter(self)
            self.counted = True
            return self._callback


def _counter(budget: RunBudget) -> Any:
    from langchain_core.callbacks import BaseCallbackHandler

    class BudgetCounter(BaseCallbackHandler):
        """Counts each chat model call and the tokens its answer reports."""

        def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
            budget.record(calls=1)

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            tokens = 0
            for generations in response.generations:
                for gen in generations:
                    usage = getattr(getattr(gen, "message", None), "usage_metadata", None) or {}
                    tokens += usage.get("input_tokens", 0) + usage.get("output_tokens", 0)
            budget.record(tokens=tokens)

    return BudgetCounter()
