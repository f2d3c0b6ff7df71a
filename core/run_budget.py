"""A run's spending against its caps: model calls, tokens and seconds, kept by the run itself.

    budget = ctx.budget                              # one per run, kept on the run's context
    model = budget.guarded(chat_model, caps)         # what `ctx.chat(role)` hands a node
    budget.over(Caps(max_calls=20))                  # "max_calls" once spent, else None

Every chat model a run's nodes use comes from `ctx.chat(role)`, which, with a cap set, hands out
a copy of it carrying this budget's guard among its own callbacks: whichever host runs the graph
(the CLI, an app that embeds it, `langgraph dev`), every call the run makes is counted, nested
agents included, with nothing for the host to add. The guard checks the caps before each call
starts: at a cap the call is refused with `CapReached` (the research graphs then end the run
with what it has; agents/research/budget.py), so a run never makes more calls than `max_calls`
allows. Tokens are known only once a call ends, so `max_tokens` stops the call after the one
that crossed it. The clock runs from the budget's creation or `start_clock()`. Nothing here
imports LangChain until a guard is made, so the CLI's parser stays light.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Caps:
    """A run's caps; None: no cap."""

    max_calls: int | None = None
    max_tokens: int | None = None
    max_seconds: float | None = None


class CapReached(RuntimeError):
    """A model call refused: the run has reached `cap` ("max_calls", "max_tokens",
    "max_seconds"). A RuntimeError, so LangGraph's retry policies do not retry it."""

    def __init__(self, cap: str) -> None:
        super().__init__(f"the run reached its {cap} cap")
        self.cap = cap


class RunBudget:
    """Model calls, tokens (input + output) and seconds one run has spent."""

    def __init__(self) -> None:
        self.calls = 0
        self.tokens = 0
        self.started = time.monotonic()
        self.run_id: str | None = None  # the run counted (begin)
        self._lock = threading.Lock()
        self._guards: dict[Caps, Any] = {}
        self._guarded: dict[tuple[int, Caps], tuple[Any, Any]] = {}
        self._unguarded: set[int] = set()  # models told once that they cannot be counted

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """Any value: a context field LangGraph validates but never shows as a setting."""
        from pydantic_core import core_schema

        return core_schema.any_schema()

    def start_clock(self) -> None:
        """Count seconds from now (e.g. once the models are loaded and the run starts)."""
        self.started = time.monotonic()

    def begin(self, run_id: str) -> None:
        """A run starts (its goal setting's first attempt): a budget that counted an earlier
        run (a context passed to two invocations) counts from zero again."""
        with self._lock:
            if self.run_id is not None and self.run_id != run_id:
                self.calls, self.tokens, self.started = 0, 0, time.monotonic()
            self.run_id = run_id

    @property
    def seconds(self) -> float:
        return time.monotonic() - self.started

    def record(self, *, calls: int = 0, tokens: int = 0) -> None:
        with self._lock:
            self.calls += calls
            self.tokens += tokens

    def over(self, caps: Caps) -> str | None:
        """The first of `caps` reached ("max_calls", "max_tokens", "max_seconds"), else None."""
        if caps.max_calls is not None and self.calls >= caps.max_calls:
            return "max_calls"
        if caps.max_tokens is not None and self.tokens >= caps.max_tokens:
            return "max_tokens"
        if caps.max_seconds is not None and self.seconds >= caps.max_seconds:
            return "max_seconds"
        return None

    def reserve(self, caps: Caps) -> None:
        """Count one call about to start, or refuse it (CapReached) at a cap. Checked and
        counted under one lock, so calls of parallel tasks cannot pass a cap together."""
        with self._lock:
            if cap := self.over(caps):
                raise CapReached(cap)
            self.calls += 1

    def guarded(self, model: Any, caps: Caps) -> Any:
        """`model` counted against `caps`: a copy with this budget's guard among its callbacks
        (one copy per model, sharing its weights or client). An object that is not a LangChain
        chat model cannot carry one: it is returned as it is, and told once."""
        from langchain_core.language_models import BaseChatModel

        if not isinstance(model, BaseChatModel):
            if id(model) not in self._unguarded:
                self._unguarded.add(id(model))
                log.warning(
                    "%s is not a LangChain chat model: its calls are not counted against the "
                    "run's caps (max_seconds still applies between tasks)",
                    type(model).__name__,
                )
            return model
        with self._lock:
            kept = self._guarded.get((id(model), caps))
            if kept is None:  # the original kept too, so its id is not reused while cached
                copy = model.model_copy(
                    update={"callbacks": _with(model.callbacks, self._guard(caps))}
                )
                kept = self._guarded[(id(model), caps)] = (model, copy)
            return kept[1]

    def _guard(self, caps: Caps) -> Any:
        if caps not in self._guards:
            self._guards[caps] = _guard(self, caps)
        return self._guards[caps]


def _with(callbacks: Any, guard: Any) -> Any:
    """A model's own callbacks (a list, a manager or none) with `guard` added."""
    if callbacks is None:
        return [guard]
    if isinstance(callbacks, list):
        return [*callbacks, guard]
    manager = callbacks.copy()
    manager.add_handler(guard, inherit=False)
    return manager


class _QuietRefusals(logging.Filter):
    """LangChain logs every error a callback raises before raising it; a refused call is the
    guard's answer, not an error, and the run says which cap it reached."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        return not (isinstance(args, tuple) and args and args[0] == "BudgetGuard")


_CALLBACK_LOG = logging.getLogger("langchain_core.callbacks.manager")


def _guard(budget: RunBudget, caps: Caps) -> Any:
    from langchain_core.callbacks import BaseCallbackHandler

    if not any(isinstance(f, _QuietRefusals) for f in _CALLBACK_LOG.filters):
        _CALLBACK_LOG.addFilter(_QuietRefusals())

    class BudgetGuard(BaseCallbackHandler):
        """Counts each chat model call before it starts (refusing it at a cap) and the
        tokens its answer reports."""

        raise_error = True  # CapReached must stop the call, not be logged and ignored
        run_inline = True  # checked in the calling thread, before the call starts

        def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
            budget.reserve(caps)

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            tokens = 0
            for generations in response.generations:
                for gen in generations:
                    usage = getattr(getattr(gen, "message", None), "usage_metadata", None) or {}
                    tokens += usage.get("input_tokens", 0) + usage.get("output_tokens", 0)
            budget.record(tokens=tokens)

    return BudgetGuard()
