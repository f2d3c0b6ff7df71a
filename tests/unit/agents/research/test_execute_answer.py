"""An executor "answer" that only restates a tool call is no answer (the embedded model does so)."""

from langchain_core.tools import tool

from agents.research.execute_task import echoes_a_tool_call, says_something


@tool
def corpus_search(query: str) -> str:
    """Search local documents."""
    return query


def test_a_restated_tool_call_is_no_answer():
    tools = [corpus_search]
    assert echoes_a_tool_call('Calling corpus_search({"query": "Nick Park"})', tools)
    assert echoes_a_tool_call('{"tool": "corpus_search", "args": {"query": "x"}}', tools)
    assert echoes_a_tool_call("corpus_search(query='x')", tools)
    assert not echoes_a_tool_call("Nick Park created Wallace and Gromit (source: nick.md).", tools)
    assert not echoes_a_tool_call("Calling it a classic, Nick Park's film won.", tools)
    # a made-up tool name restated is no answer either: `Calling tool_text({})`
    assert echoes_a_tool_call("Calling tool_text({})", tools)


def test_its_own_instructions_paraphrased_back_are_no_answer():
    seen = "Answer the task using only the evidence and search results above. State the answer "
    assert not says_something(seen + "first, then the facts that support it.")
    assert not says_something("")
    assert says_something("Complete the task. Nick Park made Wallace and Gromit.")
    assert says_something("I think so.")
