"""A research run says what it is doing, node by node, on the `custom` stream: a line as each
node a person waits on starts, one as it ends (what a chat page shows while the run works)."""

from __future__ import annotations

from langgraph.checkpoint.memory import InMemorySaver

from agents.research.progress import STARTS, ended
from graphs import build_reflective_graph
from tests.unit.research_script import QUESTION, Script, ShortScript, wire

__all__ = ["wire"]
STOPPED = "Stopped: the run reached one of its caps"


def _streamed(wire, script, **context):
    wire(script)
    graph = build_reflective_graph().compile(checkpointer=InMemorySaver(), store=wire.store)
    lines, nodes = [], []
    for mode, chunk in graph.stream(
        {"query": QUESTION},
        {"configurable": {"thread_id": "t"}},
        context=wire.context(max_retries=0, **context),
        stream_mode=["custom", "updates"],
    ):
        if mode == "custom":
            lines.append((chunk["node"], chunk["text"]))
        else:
            nodes += list(chunk)
    return lines, nodes


def test_each_node_a_person_waits_on_says_when_it_starts_and_what_it_did(wire):
    lines, nodes = _streamed(wire, Script())
    told = [n for n in nodes if n in STARTS]
    assert [n for n, _ in lines[0::2]] == [n for n, _ in lines[1::2]] == told  # start, end
    texts = [text for _, text in lines]
    assert texts[:4] == [
        "Searching for the question and reading what comes back",
        "Goal: Explain who Ada Lovelace was and what she did",  # its first line only
        "Planning the research",
        "Planned 3 task(s)",
    ]
    assert texts[4:6] == ["Task 1: Find the birth year of Ada Lovelace", "Task 1 done (pass)"]
    assert texts[-4:-2] == ["Writing the answer from what the tasks found", "Answer written"]


def test_a_checked_short_answer_says_what_the_check_kept(wire):
    lines, _ = _streamed(wire, ShortScript("Ada Lovelace", "Ada Lovelace"))
    assert lines[-1] == ("check_answer", "Answer check: kept 'Ada Lovelace' (agreed)")


def test_a_node_stopped_at_a_cap_says_so_and_nothing_runs_on(wire):
    lines, _ = _streamed(wire, Script(), max_calls=1)
    assert ("decompose_query", STOPPED) in lines
    assert not any(text.startswith("Task ") for _, text in lines)


def test_a_hop_says_which_it_is_and_what_it_found():
    fact = "The Ride was directed by Jan Svěrák."
    searching = {"facts": [fact], "searched": "Jan Svěrák"}
    assert STARTS["hop"]({"chain": [searching]}) == "Hop 2: reading the passages found"
    assert ended("hop", {"chain": [searching]}) == f"Hop 1: found {fact!r}; searching 'Jan Svěrák'"
    answered = {"facts": [], "answer": "Zdeněk Svěrák", "how": "answered"}
    assert ended("hop", {"chain": [searching, answered]}) == (
        "Hop 2: answer 'Zdeněk Svěrák' (answered)"
    )
    assert ended("hop", {"chain": [answered], "stopped": "max_calls"}) == STOPPED
