"""A small model's drift is caught where it starts: a goal that copies a schema's field name, a
criterion with no words, a search query that left the task, a tool call repeated in a loop."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agents.research.executor_agent import ExecutorRun, keep_on_topic, repeated_last_call
from agents.research.topic import copies_placeholder, grounded, keywords, on_topic_query
from agents.tools.search_tool import make_search_tool
from graphs import build_reflective_graph
from tests.unit.research_script import TASKS, Script, run

QUESTION = "Who created Wallace and Gromit?"


def test_keywords_keep_topic_words_as_written():
    assert keywords(QUESTION) == ["created", "Wallace", "Gromit"]
    assert keywords("Who is it? 42 of the") == []


def test_grounded_needs_a_shared_topic_word_and_no_placeholder():
    assert grounded("Find who made Wallace and Gromit", QUESTION)
    assert not grounded("https://www.example-webpage1234567890/docx?q=add", QUESTION)
    assert not grounded("Wallace {title} Gromit", QUESTION)  # a placeholder spoils it
    assert grounded("anything at all", "Who is it?")  # a source with no topic words
    assert copies_placeholder("{ description }") and not copies_placeholder("a {b c} d")


def test_an_off_topic_query_becomes_the_topic_keywords():
    assert on_topic_query("Gromit creator", QUESTION) == "Gromit creator"
    assert on_topic_query("https://www.googleapis.com/books/{title}", QUESTION) == (
        "created Wallace Gromit"
    )


def _search_run(topic: str) -> ExecutorRun:
    tool = make_search_tool(lambda q, k: q, name="corpus_search", description="Search.", k=3)
    return ExecutorRun(model=None, tools=[tool], topic=topic, searched=topic)  # type: ignore[arg-type]


def test_the_model_search_calls_are_kept_on_topic_before_they_run():
    call = {"name": "corpus_search", "args": {"query": "http://x.example/{id}"}, "id": "1"}
    other = {"name": "browser", "args": {"query": "http://x.example/"}, "id": "2"}
    message = AIMessage("", tool_calls=[call, other])
    keep_on_topic(message, _search_run(QUESTION))
    assert message.tool_calls[0]["args"]["query"] == "created Wallace Gromit"
    assert message.tool_calls[1]["args"]["query"] == "http://x.example/"  # not a search tool


def _step(query: str, n: int) -> list:
    call = {"name": "corpus_search", "args": {"query": query}, "id": str(n)}
    return [AIMessage("", tool_calls=[call]), ToolMessage("found", tool_call_id=str(n))]


def test_a_search_for_no_new_words_repeats_an_earlier_one():
    run = _search_run(TASKS[0])
    start = [HumanMessage("task")]
    # the task's own words (and an invented URL) were searched before the agent started
    assert repeated_last_call(start + _step("birth year of Ada Lovelace (https://x.io/a)", 1), run)
    assert not repeated_last_call(start + _step("Ada Lovelace father", 1), run)
    assert repeated_last_call(start + _step("Ada father", 1) + _step("father of Ada", 2), run)
    assert not repeated_last_call(start + _step("Ada Lovelace", 1))  # without the run: exact
    # numbers and short names are words to a search engine
    assert not repeated_last_call(start + _step("Ada Lovelace birth year 1815", 1), run)
    unsearched = ExecutorRun(model=None, tools=run.tools, topic=TASKS[0])  # type: ignore[arg-type]
    assert not repeated_last_call(start + _step("birth year of Ada Lovelace", 1), unsearched)


def test_a_failed_first_search_does_not_count_as_searched():
    from agents.research.evidence import found_something

    assert found_something("<corpus_search>\nAda was born in 1815.\n</corpus_search>")
    assert not found_something("<web_search>\nError: web_search failed: timeout\n</web_search>")
    assert found_something(
        "<web_search>\nError: x\n</web_search>\n<corpus_search>\nfound\n</corpus_search>"
    )


def test_a_repeated_call_is_seen_and_a_new_one_is_not():
    start = [HumanMessage("task")]
    assert not repeated_last_call(start + _step("a", 1))
    assert not repeated_last_call(start + _step("a", 1) + _step("b", 2))
    assert repeated_last_call(start + _step("a", 1) + _step("b", 2) + _step("a", 3))


class Looping(Script):
    """A goal made of a schema's field name, and an executor that repeats one search forever."""

    def __call__(self, prompt, title, tools, messages):
        if title == "GoalSetting":
            return {"goal": "{ description }", "answer_form": "a list", "criteria": ["#1"]}
        return super().__call__(prompt, title, tools, messages)

    def executor(self, prompt, messages):
        return {"tool": "corpus_search", "args": {"query": "Ada Lovelace notes"}}


def test_a_placeholder_goal_falls_back_to_the_request_and_a_loop_ends_in_an_answer(wire):
    model = wire(Looping(plan=[]))  # the request is the one task
    _, updates, state = run(
        build_reflective_graph(), wire.context(max_tool_steps=6), store=wire.store
    )
    assert state["optimized_goal"] == "Who was Ada Lovelace?"
    runs = wire.store.search(("trajectories", "research"), limit=10)
    # the search for the task and the agent's search; proposing it again ended the tool steps
    assert [len(r.value["steps"]) for r in runs] == [2]
    assert state["results"][0].startswith("from evidence: ")
    agent_calls = [c for c in model.calls if c["tools"]]
    assert len(agent_calls) == 2  # the search, then its repeat (never run); no third call
    answers = [c for c in model.calls if "Answer the task using only" in c["prompt"]]
    assert len(answers) == 1 and not answers[0]["tools"]


def test_page_tools_are_offered_once_a_page_is_open():
    from langchain_core.tools import StructuredTool

    from agents.research.executor_agent import offered

    def tool(name: str) -> StructuredTool:
        return StructuredTool.from_function(lambda: "", name=name, description=name)

    tools = [
        tool("corpus_search"),
        tool("browser_open"),
        tool("browser_text"),
        tool("browser_click"),
    ]
    names = lambda messages: [t.name for t in offered(tools, messages)]  # noqa: E731
    opened = [ToolMessage("URL: file:///a\nTitle: a", tool_call_id="1", name="browser_open")]
    refused = [
        ToolMessage("Refused: origin x is not allowed", tool_call_id="1", name="browser_open")
    ]
    assert names([]) == ["corpus_search", "browser_open"]
    assert names(refused) == ["corpus_search", "browser_open"]
    assert names(opened) == [t.name for t in tools]


def test_an_address_the_browser_did_not_open_is_not_a_source():
    from agents.research.evidence import step_sources

    hit = "[1] Nick Park (source: Nick_Park.md)\nNick Park made Creature Comforts."
    steps = [
        {"tool": "corpus_search", "args": {"query": "Nick Park"}, "observation": hit},
        {"tool": "browser_open", "args": {"url": "[3] Nick Park (source: Nick_Park.md)"},
         "observation": "Error: '[3] Nick Park' is not an address"},
        {"tool": "browser_open", "args": {"url": "https://example.org/a"},
         "observation": "Refused: https://example.org/a is outside the allowed origins"},
        {"tool": "browser_open", "args": {"url": "http://127.0.0.1:8000/p"},
         "observation": "[1] heading 'P'"},
    ]  # fmt: skip
    assert step_sources(steps) == ["Nick_Park.md", "http://127.0.0.1:8000/p"]
