"""What a chat page streaming the graph (stream_mode="messages", as Agent Chat UI does) shows
while a run works: no structured call's JSON (goal setting's plan and form are tagged
`nostream`), but the chain's reasoning as it is written, then the answer."""

from __future__ import annotations

from graphs import build_reflective_graph
from tests.unit.agents.research.test_hop import FIRST, ChainScript
from tests.unit.research_script import wire

__all__ = ["wire"]


def test_a_streamed_run_shows_the_reasoning_and_the_answer_not_the_json(wire):
    wire(ChainScript("Ada Lovelace was born in 1815. So the answer is: 1815."))
    graph = build_reflective_graph().compile(store=wire.store)
    streamed = list(
        graph.stream(
            {"query": "When was Ada Lovelace born?"},
            context=wire.context(**FIRST),
            stream_mode="messages",
        )
    )
    nodes = [meta["langgraph_node"] for _, meta in streamed]
    texts = [str(message.content) for message, _ in streamed]
    assert "goal_setting" not in nodes  # its JSON never reaches the page
    assert "hop" in nodes and any("So the answer is: 1815" in t for t in texts)
    assert texts[-1].startswith("1815")  # the answer, as the thread keeps it
