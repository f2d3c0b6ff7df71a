"""The Playwright browser tools on real chromium against pages served on 127.0.0.1."""

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
    return {tool.name: tool for tool in session.tools()}


def _id_of(tree: str, role: str, name: str) -> int:
    match = re.search(rf"\[(\d+)\] {role} \"{re.escape(name)}\"", tree)
    assert match, f"no {role} {name!r} in:\n{tree}"
    return int(match.group(1))


def test_open_read_and_follow_link_sync(session: BrowserSession, site: str) -> None:
    tools = _tools(session)
    tree = tools["browser_open"].invoke({"url": f"{site}/index.html"})
    assert tree.startswith("Page: Home")
    assert 'heading "Welcome home" level=1' in tree
    assert _id_of(tree, "link", "Owl facts") >= 1
    text = tools["browser_text"].invoke({})
    assert "three facts about owls" in text and "<b>" not in text and "document.title" not in text
    after = tools["browser_follow_link"].invoke({"link": "owl facts"})  # by text, any case
    assert after.startswith("Page: Owl facts") and "parliament" in after
    back = tools["browser_follow_link"].invoke({"link": str(_id_of(after, "link", "Back home"))})
    assert back.startswith("Page: Home")  # by id


def test_type_and_click_change_page_via_js_sync(session: BrowserSession, site: str) -> None:
    tools = _tools(session)
    tree = tools["browser_open"].invoke({"url": f"{site}/form.html"})
    assert "Hidden button" not in tree
    textbox = _id_of(tree, "textbox", "Your name")
    tree = tools["browser_type"].invoke({"element_id": textbox, "text": "Ada"})
    assert 'value="Ada"' in tree
    tree = tools["browser_click"].invoke({"element_id": _id_of(tree, "button", "Send")})
    assert "Thanks, Ada!" in tree
    checkbox = _id_of(tree, "checkbox", "Newsletter")
    assert "unchecked" in tree
    tree = tools["browser_click"].invoke({"element_id": checkbox})
    assert re.search(rf"\[{checkbox}\] checkbox \"Newsletter\" checked", tree)
    tree = tools["browser_type"].invoke(
        {"element_id": _id_of(tree, "textbox", "Your name"), "text": "Bo", "press_enter": True}
    )
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
    assert opened.startswith("Page: Contact")
    assert "Thanks, Cy!" in clicked
    assert "Thanks, Cy!" in _tools(session)["browser_text"].invoke({})  # sync sees async's page


def test_allow_list_and_errors_come_back_as_text(session: BrowserSession, site: str) -> None:
    tools = _tools(session)
    refused = tools["browser_open"].invoke({"url": "http://blocked.example/page"})
    assert refused.startswith("Refused:") and "allowed origins" in refused
    assert tools["browser_open"].invoke({"url": "file:///etc/passwd"}).startswith("Refused:")
    tools["browser_open"].invoke({"url": f"{site}/index.html"})
    followed = tools["browser_follow_link"].invoke({"link": "Elsewhere"})
    assert followed.startswith("Refused:")
    assert "Page: Home" in tools["browser_text"].invoke({})  # still on the allowed page
    missing = tools["browser_click"].invoke({"element_id": 999})
    assert missing.startswith("Error: browser_click failed: no element [999]")
    assert tools["browser_follow_link"].invoke({"link": "No such link"}).startswith("Error:")
    gone = tools["browser_open"].invoke({"url": f"{site}/missing.html"})
    assert "404" in gone or "not found" in gone.lower()


def test_network_error_and_truncation_without_allow_list(site: str) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        closed_port = sock.getsockname()[1]
    with BrowserSession(max_chars=120) as free:
        tools = _tools(free)
        err = tools["browser_open"].invoke({"url": f"http://127.0.0.1:{closed_port}/"})
        assert err.startswith("Error: browser_open failed") and "ERR_CONNECTION_REFUSED" in err
        tree = tools["browser_open"].invoke({"url": f"{site}/facts.html"})
        assert "…[truncated" in tree and len(tree) < 200
    # close() is idempotent and a closed session starts afresh on next use
    free.close()
    assert _tools(free)["browser_text"].invoke({}).startswith("Page:")
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

    agent = create_agent(ScriptedChatModel(responder=responder, calls=[]), tools=session.tools())
    request = {"messages": [HumanMessage("Send the form as Di")]}
    assert agent.invoke(request)["messages"][-1].text == "DONE: greeted"
    result = asyncio.run(agent.ainvoke(request))
    assert result["messages"][-1].text == "DONE: greeted"


def test_a_dead_page_is_replaced_on_next_use(site: str) -> None:
    with BrowserSession() as s:
        tools = _tools(s)
        assert tools["browser_open"].invoke({"url": f"{site}/facts.html"}).startswith("Page: Owl")
        assert s._loop is not None and s._browser is not None
        # chromium going away under us (crash, OOM kill) must not wedge the session
        asyncio.run_coroutine_threadsafe(s._browser.close(), s._loop).result(timeout=20)
        reopened = tools["browser_open"].invoke({"url": f"{site}/index.html"})
        assert reopened.startswith("Page: Home")
