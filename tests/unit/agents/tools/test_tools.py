"""build_tools: which tools a configuration yields, errors for bad ones, and closing."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.tools import CorpusError, SearchTool, SearchUnavailable, build_tools

BROWSER_TOOLS = [
    "browser_open",
    "browser_text",
    "browser_tree",
    "browser_follow_link",
    "browser_click",
    "browser_type",
]


@pytest.fixture()
def docs(tmp_path: Path) -> str:
    (tmp_path / "a.txt").write_text("Owls hunt at night.")
    return str(tmp_path)


def test_offline_without_key_gets_corpus_only(docs: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    tools, toolset = build_tools(corpus_dir=docs, use_browser=False)
    assert [t.name for t in tools] == ["corpus_search"] == toolset.names
    assert isinstance(tools[0], SearchTool)
    assert "Owls hunt" in tools[0].invoke({"query": "owls"})
    toolset.close()


def test_key_in_environment_adds_web_search(docs: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    tools, _ = build_tools(corpus_dir=docs, use_browser=False)
    assert [t.name for t in tools] == ["corpus_search", "web_search"]
    tools, _ = build_tools(corpus_dir=docs, use_browser=False, tavily=False)
    assert [t.name for t in tools] == ["corpus_search"]


def test_required_tavily_without_key_and_bad_corpus_raise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    with pytest.raises(SearchUnavailable, match="TAVILY_API_KEY"):
        build_tools(use_browser=False, tavily=True)
    with pytest.raises(CorpusError, match="does not exist"):
        build_tools(corpus_dir=str(tmp_path / "missing"), use_browser=False)


def test_browser_tools_are_lazy_and_closed_by_their_toolset(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("playwright")
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    tools, toolset = build_tools(use_browser=True, allowed_origins=["http://127.0.0.1:1"])
    if toolset.browser is None:
        pytest.skip("chromium is not installed")
    assert [t.name for t in tools] == BROWSER_TOOLS
    assert all(t.coroutine is not None and t.func is not None for t in tools)
    assert toolset.browser._loop is None  # nothing started until a tool is used
    refused = tools[0].invoke({"url": "http://example.com/"})  # origin outside the allow-list
    assert refused.startswith("Refused:")
    assert toolset.browser._env is None  # a refused URL does not even launch chromium
    toolset.close()
    assert toolset.browser._loop is None
