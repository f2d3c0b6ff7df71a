"""The research graphs as chat (agents/research/reply.py): the request as a person's last
message, the answer appended as one AI message; inside a `MessagesState` parent as a node."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph

from agents.research.reply import NoRequest
from graphs import build_reflective_graph, build_single_path_graph
from tests.unit.research_script import QUESTION, Script, wire

__all__ = ["wire"]


def _invoke(wire, inputs, builder=build_reflective_graph, thread="chat", **settings):
    graph = builder().compile(checkpointer=InMemorySaver(), store=wire.store)
    config = {"configurable": {"thread_id": thread}}
    return graph, config, graph.invoke(inputs, config, context=wire.context(**settings))


@pytest.mark.parametrize("builder", [build_reflective_graph, build_single_path_graph])
def test_a_persons_message_is_the_request_and_the_answer_comes_back_as_one(wire, builder):
    wire(Script())
    _, _, out = _invoke(wire, {"messages": [HumanMessage(QUESTION)]}, builder, max_retries=0)
    assert out["query"] == QUESTION
    human, answer = out["messages"]  # one AI message, however many nodes wrote the answer
    assert human.content == QUESTION and isinstance(answer, AIMessage)
    assert answer.content == out["final_output"] and out["answer"] in answer.content


def test_a_second_turn_answers_its_own_question_on_the_same_thread(wire):
    wire(Script())
    graph, config, _ = _invoke(wire, {"messages": [HumanMessage("What did Babbage build?")]})
    out = graph.invoke({"messages": [HumanMessage(QUESTION)]}, config, context=wire.context())
    assert out["query"] == QUESTION
    assert [type(m).__name__ for m in out["messages"]] == [
        "HumanMessage",
        "AIMessage",
        "HumanMessage",
        "AIMessage",
    ]
    assert out["messages"][1].id != out["messages"][3].id  # each run's answer its own


def test_query_still_works_and_a_message_after_the_answer_is_not_a_request(wire):
    wire(Script())
    old = [HumanMessage("What did Babbage build?"), AIMessage("An engine.")]
    _, _, out = _invoke(wire, {"query": QUESTION, "messages": old}, max_retries=0)
    assert out["query"] == QUESTION and out["messages"][-1].content == out["final_output"]


def test_no_request_is_a_clear_error(wire):
    wire(Script())
    with pytest.raises(NoRequest, match="pass `query`"):
        _invoke(wire, {"messages": [AIMessage("hello")]})


def test_a_node_of_a_messages_state_parent(wire):
    """Dropped into a chat app as it is: the parent's messages in, the answer appended."""
    wire(Script())
    research = build_reflective_graph().compile()
    parent = StateGraph(MessagesState)
    parent.add_node("research", research)
    parent.add_edge(START, "research")
    app = parent.compile(checkpointer=InMemorySaver(), store=wire.store)
    config = {"configurable": {"thread_id": "parent"}}
    out = app.invoke({"messages": [HumanMessage(QUESTION)]}, config, context=wire.context())
    assert list(out) == ["messages"]
    assert [type(m).__name__ for m in out["messages"]] == ["HumanMessage", "AIMessage"]
    assert "1815" in out["messages"][-1].content


def test_a_run_gives_back_its_answer_with_checked_citations_not_its_workings(wire):
    class Stated(Script):  # an answer whose sentence a passage the run read holds
        def __call__(self, prompt, title, tools, messages):
            if title == "FinalAnswer":
                return {"answer": "Ada Lovelace was born in 1815.", "sources": ["ada"]}
            return super().__call__(prompt, title, tools, messages)

    wire(Stated())
    graph, config, out = _invoke(wire, {"query": QUESTION}, max_retries=0)
    assert set(out) == {"query", "messages", "answer", "final_output", "citations", "stopped"}
    (citation,) = out["citations"]
    assert citation["source"] == "ada.md" and citation["sentences"] == [
        "Ada Lovelace was born in 1815."
    ]
    assert graph.get_state(config).values["results"]  # the workings stay in the checkpoint
