"""A run's spending against its caps: model calls, tokens and seconds, kept by the run itself.

    budget = ctx.budget                              # one per run, kept on the run's context
    model = budget.guarded(chat_model, caps)         # what `ctx.chat(role)` hands a node
    budget.over(Caps(max_calls=20))                  # "max_calls" once spent, else None

Every chat model a run's nodes use comes from `ctx.chat(role)`, which, with a cap set, hands out
a counted copy of it carrying this budget's guard among its own callbacks: whichever host runs
the graph (the CLI, an app that embeds it, `langgraph dev`), every call the run makes is counted,
nested agents included, with nothing for the host to add. Each call reserves its place before it
starts, before any callback is told of it: at a cap it is refused with `CapReached` (the research
graphs then end the run with what it has; agents/research/budget.py) and never starts anywhere,
so a run never makes more calls than `max_calls` allows and a host's tracer sees exactly the
calls made (no start left without an end). Tokens are known only once a call ends, so
`max_tokens` stops the call after the one that crossed it. The clock runs from the budget's
creation or `start_clock()`. Nothing here imports LangChain until a guard is made, so the CLI's
parser stays light.
"""

from __future__ import annotations

import logging
import threading
import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # core.state loads LangChain; the CLI's parser imports this module
    from core.state import Cap

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

    def __init__(self, cap: Cap) -> None:
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

    def over(self, caps: Caps) -> Cap | None:
        """The first of `caps` reached ("max_calls", "max_tokens", "max_seconds"), else None."""
        if caps.max_calls is not None and self.calls >= caps.max_calls:
            return "max_calls"
        if caps.max_tokens is not None and self.tokens >= caps.max_tokens:
            return "max_tokens"
        if caps.max_seconds is not None and self.seconds >= caps.max_seconds:
            return "max_seconds"
        return None

    def reserve(self, caps: Caps, calls: int = 1) -> None:
        """Count `calls` about to start, or refuse them (CapReached) when they would pass a cap.
        Checked and counted under one lock, so calls of parallel tasks cannot pass a cap
        together."""
        with self._lock:
            cap = self.over(caps)
            if cap is None and caps.max_calls is not None and self.calls + calls > caps.max_calls:
                cap = "max_calls"
            if cap:
                raise CapReached(cap)
            self.calls += calls

    def guarded(self, model: Any, caps: Caps) -> Any:
        """`model` counted against `caps`: a copy whose every call reserves its place before it
        starts, refused at a cap before any callback hears of it (a host's tracer sees exactly
        the calls made), and whose answers' tokens are counted (one copy per model, sharing its
        weights or client). An object that is not a LangChain chat model cannot be counted: it
        is returned as it is, and told once."""
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
                object.__setattr__(copy, "__class__", _counted(type(model)))
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


_COUNTED: dict[type, type] = {}
_HELD: ContextVar[object] = ContextVar("the model whose stream has reserved its call", default=None)
_END = object()


def _reserve(model: Any, calls: int) -> None:
    """Reserve `calls` in the budget of the guard among `model`'s callbacks (CapReached at a
    cap), unless it is the call this model's own stream falls back to (reserved already)."""
    if _HELD.get() is model:
        return
    callbacks = model.callbacks
    handlers = callbacks if isinstance(callbacks, list) else getattr(callbacks, "handlers", [])
    for handler in handlers or []:
        if isinstance(getattr(handler, "budget", None), RunBudget):
            handler.budget.reserve(handler.caps, calls)
            return


def _counted(cls: type) -> type:
    """`cls` whose calls reserve their place in the run's budget before they start, before any
    callback is told of them: a refused call never starts anywhere. A chat model's every
    call goes through `generate` (invoke, batch, structured output, tools) or `stream`, which
    falls back to `invoke` when the model does not stream (then it is reserved once)."""
    if cls in _COUNTED:
        return _COUNTED[cls]

    class Counted(cls):
        def generate(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
            _reserve(self, len(messages))
            return super().generate(messages, *args, **kwargs)

        async def agenerate(self, messages: Any, *args: Any, **kwargs: Any) -> Any:
            _reserve(self, len(messages))
            return await super().agenerate(messages, *args, **kwargs)

        def stream(self, *args: Any, **kwargs: Any) -> Any:
            _reserve(self, 1)
            held = _HELD.set(self)  # the call starts (or falls back to invoke) by the first chunk
            try:
                chunks = iter(super().stream(*args, **kwargs))
                first = next(chunks, _END)
            finally:
                _HELD.reset(held)
            if first is not _END:
                yield first
                yield from chunks

        async def astream(self, *args: Any, **kwargs: Any) -> Any:
            _reserve(self, 1)
            held = _HELD.set(self)
            try:
                chunks = aiter(super().astream(*args, **kwargs))
                first = await anext(chunks, _END)
            finally:
                _HELD.reset(held)
            if first is not _END:
                yield first
                async for chunk in chunks:
                    yield chunk

    Counted.__name__, Counted.__qualname__ = cls.__name__, cls.__qualname__
    _COUNTED[cls] = Counted
    return Counted


def _guard(budget: RunBudget, caps: Caps) -> Any:
    from langchain_core.callbacks import BaseCallbackHandler

    class BudgetGuard(BaseCallbackHandler):
        """The budget and caps a counted model's calls reserve against (found among its
        callbacks), and the tokens each answer reports."""

        def __init__(self) -> None:
            self.budget, self.caps = budget, caps

        def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            tokens = 0
            for generations in response.generations:
                for gen in generations:
                    usage = getattr(getattr(gen, "message", None), "usage_metadata", None) or {}
                    tokens += usage.get("input_tokens", 0) + usage.get("output_tokens", 0)
            budget.record(tokens=tokens)

    return BudgetGuard()
