"""A served run that fails tells its caller only that, with an id for the operator's log; a
caller's own mistakes (a refused setting, no request) reach it whole."""

from __future__ import annotations

import asyncio

import pytest
from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from agents.research.reply import NoRequest
from core.context import Context
from core.served import RefusedSetting, served
from core.served_errors import ServedRunFailed

SECRET = "/srv/operator/mcp.json: server 'files' (command: /opt/keys/run --token=abc123) exited"


class State(TypedDict, total=False):
    query: str
    answer: str


def _graph(fail: Exception):
    def node(state: State) -> dict:
        raise fail

    builder = StateGraph(State, context_schema=Context)
    builder.add_node("work", node)
    builder.add_edge(START, "work")
    builder.add_edge("work", END)
    return served(builder.compile(), environ={})


def test_a_failure_reaches_the_caller_as_one_line_with_an_id_and_the_log_has_it(caplog):
    graph = _graph(RuntimeError(SECRET))
    with pytest.raises(ServedRunFailed) as told:
        graph.invoke({"query": "q"}, context={})
    said = str(told.value)
    assert "abc123" not in said and "/srv/operator" not in said and "error " in said
    error_id = said.split("(error ")[1].split(")")[0]
    assert error_id in caplog.text and SECRET in caplog.text  # the operator can find it

    async def served_run() -> None:  # how LangGraph's server runs it
        async for _ in graph.astream({"query": "q"}, context={}):
            pass

    with pytest.raises(ServedRunFailed) as told_async:
        asyncio.run(served_run())
    assert "abc123" not in str(told_async.value)


def test_a_callers_own_mistakes_reach_it_whole():
    with pytest.raises(NoRequest, match="no request"):
        _graph(NoRequest("no request: pass `query`")).invoke({"query": "q"}, context={})
    with pytest.raises(RefusedSetting, match="'home'"):
        _graph(RuntimeError(SECRET)).invoke({"query": "q"}, context={"home": "/tmp"})
