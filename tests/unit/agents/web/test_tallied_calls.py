"""A web decision's model call is counted by its tally and still reaches the run's own callbacks
(a trace): `tallied` adds the tally instead of replacing them; its JSON stays out of the
`messages` stream, as every structured call's does."""

from __future__ import annotations

import asyncio

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langgraph.graph import START, StateGraph
from typing_extensions import TypedDict

from agents.web.tokens import TokenTally, tallied


class _State(TypedDict):
    answer: str


class _Seen(BaseCallbackHandler):
    def __init__(self) -> None:
        self.nodes: list[str] = []

    def on_chat_model_start(self, *args, metadata=None, **kwargs) -> None:
        self.nodes.append((metadata or {}).get("langgraph_node", "?"))


def _run(config_of) -> tuple[list[str], list[str]]:
    run_seen = _Seen()
    model = FakeListChatModel(responses=["done"])

    class Tally(TokenTally, _Seen):
        def __init__(self) -> None:
            TokenTally.__init__(self)
            _Seen.__init__(self)

    tally = Tally()

    async def decide(state: _State) -> dict:
        reply = await model.ainvoke("act", config=config_of(tally))
        return {"answer": reply.text}

    graph = StateGraph(_State)
    graph.add_node("decide", decide)
    graph.add_edge(START, "decide")
    out = asyncio.run(graph.compile().ainvoke({"answer": ""}, {"callbacks": [run_seen]}))
    assert out["answer"] == "done"
    return tally.nodes, run_seen.nodes


def test_the_call_reaches_the_tally_and_the_runs_callbacks():
    assert _run(tallied) == (["decide"], ["decide"])


def test_a_config_of_the_tally_alone_would_hide_the_call_from_the_run():
    """The check itself: a config that names only the tally replaces the run's callbacks."""
    assert _run(lambda tally: {"callbacks": [tally]}) == (["decide"], [])


def test_the_calls_json_stays_out_of_the_messages_stream():
    model = FakeListChatModel(responses=['{"action_type": "stop"}'])

    async def decide(state: _State) -> dict:
        reply = await model.ainvoke("act", config=tallied(TokenTally()))
        return {"answer": reply.text}

    graph = StateGraph(_State)
    graph.add_node("decide", decide)
    graph.add_edge(START, "decide")

    async def streamed() -> list:
        chunks = []
        async for mode, chunk in graph.compile().astream(
            {"answer": ""}, stream_mode=["messages", "values"]
        ):
            chunks.append((mode, chunk))
        return chunks

    chunks = asyncio.run(streamed())
    assert [c for mode, c in chunks if mode == "messages"] == []
    assert chunks[-1][1]["answer"] == '{"action_type": "stop"}'
