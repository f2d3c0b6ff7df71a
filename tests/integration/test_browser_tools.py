"""The browser tools on real chromium against pages served on 127.0.0.1: the same guarded
BrowserEnv as the web agent, driven through LangChain tools from sync and async code."""

from __future__ import annotations

import asyncio
import re
import socket
import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from agents.tools.browser_tools import browser_tools
from browser.session import BrowserSession

pytestmark = pytest.mark.integration

PAGES = {
    "index.html": """<!doctype html><html><head><title>Home</title></head><body>
<h1>Welcome home</h1>
<p>This site lists <b>three</b> facts about owls.</p>
<nav><a href="/facts.html">Owl facts</a> | <a href="/form.html">Contact form</a>
| <a href="http://blocked.example/">Elsewhere</a></nav>
<script>document.title = document.title;</script>
</body></html>""",
    "facts.html": """<!doctype html><html><head><title>Owl facts</title></head><body>
<h1>Owl facts</h1><ul><li>Owls can rotate their heads 270 degrees.</li>
<li>A group of owls is called a parliament.</li></ul>
<a href="/index.html">Back home</a></body></html>""",
    "form.html": """<!doctype html><html><head><title>Contact</title></head><body>
<h1>Contact</h1>
<label for="name">Your name</label> <input id="name" type="text">
<button id="go" onclick="greet()">Send</button>
<input type="checkbox" id="news"><label for="news">Newsletter</label>
<p id="out">Nothing sent yet.</p>
<div style="display:none"><button>Hidden button</button></div>
<script>
function greet() {
  const name = document.getElementById('name').value;
  document.getElementById('out').textContent = 'Thanks, ' + name + '!';
}
document.getElementById('name').addEventListener('keydown', e => {
  if (e.key === 'Enter') document.getElementById('out').textContent = 'Submitted by Enter';
});
</script></body></html>""",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root: Path = tmp_path_factory.mktemp("site")
    for name, html in PAGES.items():
        (root / name).write_text(html)
    handler = partial(SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[method-assign]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def session(site: str) -> Iterator[BrowserSession]:
    with BrowserSession(allowed_origins=[site], max_chars=3000) as s:
        yield s


def _tools(session: BrowserSession) -> dict:
    return {tool.name: tool for tool in browser_tools(session)}


def _id_of(tree: str, role: str, name: str) -> int:
    match = re.search(rf"\[(\d+)\] {role} '{re.escape(name)}'", tree)
    assert match, f"no {role} {name!r} in:\n{tree}"
    return int(match.group(1))


def test_open_read_and_follow_link_sync(session: BrowserSession, site: str) -> None:
    tools = _tools(session)
    tree = tools["browser_open"].invoke({"url": f"{site}/index.html"})
    assert tree.startswith("Tab 0 (current): Home") and f"URL: {site}/index.html" in tree
    assert "heading 'Welcome home'" in tree
    text = tools["browser_text"].invoke({})
    assert "three facts about owls" in text and "<b>" not in text and "document.title" not in text
    after = tools["browser_follow_link"].invoke({"link": "owl facts"})  # by text, any case
    assert after.startswith("Tab 0 (current): Owl facts") and "parliament" in after
    back = tools["browser_follow_link"].invoke({"link": str(_id_of(after, "link", "Back home"))})
    assert back.startswith("Tab 0 (current): Home")  # by id


def test_type_and_click_change_page_via_js_sync(session: BrowserSession, site: str) -> None:
    tools = _tools(session)
    tree = tools["browser_open"].invoke({"url": f"{site}/form.html"})
    assert "Hidden button" not in tree
    textbox = _id_of(tree, "textbox", "Your name")
    tree = tools["browser_type"].invoke({"element_id": textbox, "text": "Ada"})
    assert "StaticText 'Ada'" in tree
    tree = tools["browser_click"].invoke({"element_id": _id_of(tree, "button", "Send")})
    assert "Thanks, Ada!" in tree
    checkbox = _id_of(tree, "checkbox", "Newsletter")
    assert not re.search(rf"\[{checkbox}\] checkbox 'Newsletter'.*checked: true", tree)
    tree = tools["browser_click"].invoke({"element_id": checkbox})
    assert re.search(rf"\[{checkbox}\] checkbox 'Newsletter'.*checked: true", tree)
    tree = tools["browser_type"].invoke({"element_id": textbox, "text": "Bo", "press_enter": True})
    assert "Submitted by Enter" in tree


def test_async_coroutines_share_the_page(session: BrowserSession, site: str) -> None:
    tools = _tools(session)

    async def scenario() -> tuple[str, str, str]:
        opened = await tools["browser_open"].ainvoke({"url": f"{site}/form.html"})
        typed = await tools["browser_type"].ainvoke(
            {"element_id": _id_of(opened, "textbox", "Your name"), "text": "Cy"}
        )
        clicked = await tools["browser_click"].ainvoke(
            {"element_id": _id_of(typed, "button", "Send")}
        )
        return opened, typed, clicked

    opened, typed, clicked = asyncio.run(scenario())
    assert opened.startswith("Tab 0 (current): Contact")
    assert "Thanks, Cy!" in clicked
    assert "Thanks, Cy!" in _tools(session)["browser_text"].invoke({})  # sync sees async's page


def test_allow_list_and_errors_come_back_as_text(session: BrowserSession, site: str) -> None:
    tools = _tools(session)
    refused = tools["browser_open"].invoke({"url": "http://blocked.example/page"})
    assert refused.startswith("Refused:") and "not allowed" in refused
    assert tools["browser_open"].invoke({"url": "file:///etc/passwd"}).startswith("Refused:")
    tools["browser_open"].invoke({"url": f"{site}/index.html"})
    followed = tools["browser_follow_link"].invoke({"link": "Elsewhere"})
    assert "blocked (origin not allowed): http://blocked.example/" in followed
    assert "Tab 0 (current): Home" in followed  # still on the allowed page
    missing = tools["browser_click"].invoke({"element_id": 999})
    assert missing.startswith("Error: there is no element [999]")
    assert tools["browser_follow_link"].invoke({"link": "No such link"}).startswith("Error:")
    gone = tools["browser_open"].invoke({"url": f"{site}/missing.html"})
    assert "404" in gone


def test_connection_errors_and_truncation(site: str) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        closed_port = sock.getsockname()[1]
    closed = f"http://127.0.0.1:{closed_port}"
    with BrowserSession(allowed_origins=[site, closed], max_chars=120) as free:
        tools = _tools(free)
        err = tools["browser_open"].invoke({"url": f"{closed}/"})
        assert "Cannot connect" in err  # the guard proxy says why (connection refused)
        tree = tools["browser_open"].invoke({"url": f"{site}/facts.html"})
        assert "…[truncated" in tree and len(tree) < 200
    # close() is idempotent and a closed session starts afresh on next use
    free.close()
    assert _tools(free)["browser_text"].invoke({}).startswith("URL: about:blank")
    free.close()


def test_create_agent_drives_the_browser_with_invoke_and_ainvoke(
    session: BrowserSession, site: str
) -> None:
    """The tools inside a real `create_agent` graph, scripted model, sync and async runs."""
    from langchain.agents import create_agent
    from langchain_core.messages import HumanMessage, ToolMessage

    from tests.unit.fakes import ScriptedChatModel

    def responder(prompt: str, title: object, tools: list[str], messages: list) -> object:
        seen = [m for m in messages if isinstance(m, ToolMessage)]
        if not seen:
            return {"tool": "browser_open", "args": {"url": f"{site}/form.html"}}
        last = seen[-1].text
        if len(seen) == 1:
            return {
                "tool": "browser_type",
                "args": {"element_id": _id_of(last, "textbox", "Your name"), "text": "Di"},
            }
        if len(seen) == 2:
            return {"tool": "browser_click", "args": {"element_id": _id_of(last, "button", "Send")}}
        return "DONE: " + ("greeted" if "Thanks, Di!" in last else "not greeted")

    model = ScriptedChatModel(responder=responder, calls=[])
    agent = create_agent(model, tools=browser_tools(session))
    request = {"messages": [HumanMessage("Send the form as Di")]}
    assert agent.invoke(request)["messages"][-1].text == "DONE: greeted"
    result = asyncio.run(agent.ainvoke(request))
    assert result["messages"][-1].text == "DONE: greeted"


def test_a_dead_browser_is_replaced_on_next_use(site: str) -> None:
    with BrowserSession(allowed_origins=[site]) as s:
        tools = _tools(s)
        opened = tools["browser_open"].invoke({"url": f"{site}/facts.html"})
        assert opened.startswith("Tab 0 (current): Owl")
        env = s._env
        assert s._loop is not None and env is not None and env._browser is not None
        # chromium going away under us (crash, OOM kill) must not wedge the session
        asyncio.run_coroutine_threadsafe(env._browser.close(), s._loop).result(timeout=20)
        reopened = tools["browser_open"].invoke({"url": f"{site}/index.html"})
        assert reopened.startswith("Tab 0 (current): Home")
