"""Caps leave no trace in a host's callbacks: a counted model reserves each call before it
starts, so a call refused at a cap is never started anywhere, however the model is called,
and a host's tracer on a capped graph run sees exactly the calls made."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver

from core.run_budget import CapReached, Caps, RunBudget
from core.state import STATE_KEYS
from graphs import build_reflective_graph
from tests.unit.research_script import Script, wire  # noqa: F401  (fixture)


def _fake() -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage("x")] * 9))


class _Host(BaseCallbackHandler):
    """A host's tracer: what it is told of the model's calls."""

    def __init__(self) -> None:
        self.starts = self.ends = self.errors = 0

    def on_chat_model_start(self, *args, **kwargs) -> None:
        self.starts += 1

    def on_llm_end(self, *args, **kwargs) -> None:
        self.ends += 1

    def on_llm_error(self, *args, **kwargs) -> None:
        self.errors += 1


class _NoStream(BaseChatModel):
    """A model that cannot stream: `stream` falls back to `invoke`."""

    @property
    def _llm_type(self) -> str:
        return "no-stream"

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage("y"))])


async def _drain(chunks) -> list:
    return [c async for c in chunks]


@pytest.mark.parametrize("way", ["invoke", "stream", "ainvoke", "astream", "bound", "no-stream"])
def test_a_refused_call_never_starts_in_the_hosts_callbacks(way):
    budget, host = RunBudget(), _Host()
    model = budget.guarded(_NoStream() if way == "no-stream" else _fake(), Caps(max_calls=2))
    config = {"callbacks": [host]}
    call = {
        "invoke": lambda q: model.invoke(q, config),
        "stream": lambda q: list(model.stream(q, config)),
        "ainvoke": lambda q: asyncio.run(model.ainvoke(q, config)),
        "astream": lambda q: asyncio.run(_drain(model.astream(q, config))),
        "bound": lambda q: model.bind(stop=["z"]).invoke(q, config),
        "no-stream": lambda q: list(model.stream(q, config)),
    }[way]
    call("a")
    call("b")
    with pytest.raises(CapReached):
        call("c")
    assert (host.starts, host.ends, host.errors) == (2, 2, 0) and budget.calls == 2
    assert type(model).__name__ == type(model).__mro__[1].__name__  # traces name it as before


def test_a_batch_past_the_cap_is_refused_whole():
    budget = RunBudget()
    model = budget.guarded(_NoStream(), Caps(max_calls=3))
    model.invoke("a")
    with pytest.raises(CapReached):
        model.generate([[HumanMessage("b")], [HumanMessage("c")], [HumanMessage("d")]])
    assert budget.calls == 1


def test_the_hosts_tracer_sees_exactly_the_calls_the_capped_run_made(wire):  # noqa: F811
    wire(Script(searches=3))
    host = _Host()
    ctx = wire.context(max_retries=0, max_concurrency=1, max_calls=4)
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
    out = graph.invoke(
        {"query": "Who was Ada Lovelace?"},
        {"configurable": {"thread_id": "t"}, "callbacks": [host]},
        context=ctx,
        output_keys=STATE_KEYS,
    )
    assert out["stopped"] == "max_calls"
    assert host.starts == host.ends == len(wire.model.calls) == 4 and host.errors == 0


class _Asking(_NoStream):
    """A model that, to answer, calls another model (a nested agent's call)."""

    other: object = None

    def _generate(self, messages, stop=None, run_manager=None, **kwargs) -> ChatResult:
        self.other.invoke("inner")
        return super()._generate(messages, stop, run_manager, **kwargs)


def test_a_call_made_inside_a_streamed_call_is_counted_too():
    budget = RunBudget()
    inner = budget.guarded(_NoStream(), Caps(max_calls=5))
    outer = budget.guarded(_Asking(other=inner), Caps(max_calls=5))
    list(outer.stream("a"))  # reserved once for the stream, not again for its fallback
    assert budget.calls == 2
