"""An executor "answer" that only restates a tool call is no answer (seen on the embedded model)."""

from langchain_core.tools import tool

from agents.research.execute import echoes_a_tool_call


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
    # a made-up tool name restated is no answer either (seen: `Calling tool_text({})`)
    assert echoes_a_tool_call("Calling tool_text({})", tools)


def test_its_own_instructions_paraphrased_back_are_no_answer():
    from agents.research.execute import _says_something

    seen = "Answer the task using only the search results above. Quote the facts that answer it "
    assert not _says_something(seen + "and name the source.")
    assert not _says_something("")
    assert _says_something("Complete the task. Nick Park made Wallace and Gromit.")
    assert _says_something("I think so.")
