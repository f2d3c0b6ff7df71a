"""Tavily web search through the real langchain-tavily client, against a local stand-in server."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from agents.research.evidence import ground
from agents.tools.search import (
    SearchUnavailable,
    make_tavily_tool,
    tavily_available,
)
from tests.conftest import ROOT

# Shape of a real Tavily /search response (fields as documented by Tavily).
RECORDED = {
    "query": "who wrote the first published algorithm",
    "follow_up_questions": None,
    "answer": None,
    "images": [],
    "results": [
        {
            "title": "Ada Lovelace - Wikipedia",
            "url": "https://en.wikipedia.org/wiki/Ada_Lovelace",
            "content": "Ada Lovelace was an English mathematician and writer, chiefly known "
            "for her work on Charles Babbage's Analytical Engine. She published the first "
            "algorithm intended to be carried out by such a machine.",
            "score": 0.91,
            "raw_content": None,
        },
        {
            "title": "Analytical Engine",
            "url": "https://en.wikipedia.org/wiki/Analytical_Engine",
            "content": "The Analytical Engine was a proposed mechanical general-purpose computer.",
            "score": 0.62,
            "raw_content": None,
        },
    ],
    "response_time": 1.07,
}


class _TavilyStandIn(BaseHTTPRequestHandler):
    """Answers POST /search like Tavily; a key of 'over-quota' gets Tavily's 432 error body."""

    requests: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _TavilyStandIn.requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
        )
        if self.headers.get("Authorization") == "Bearer over-quota":
            status, payload = 432, {"detail": {"error": "This request exceeds your plan's limit."}}
        else:
            status, payload = 200, RECORDED
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def tavily_server() -> Iterator[str]:
    _TavilyStandIn.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _TavilyStandIn)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_search_goes_through_tavily_client_and_is_formatted(tavily_server: str) -> None:
    tool = make_tavily_tool(api_key="tvly-test", k=3, api_base_url=tavily_server)
    out = tool.invoke({"query": "who wrote the first published algorithm"})
    assert out.startswith(
        "[1] Ada Lovelace - Wikipedia (https://en.wikipedia.org/wiki/Ada_Lovelace)"
    )
    assert "[2] Analytical Engine" in out
    request = _TavilyStandIn.requests[-1]
    assert request["path"] == "/search"
    assert request["auth"] == "Bearer tvly-test"
    assert request["body"]["query"] == "who wrote the first published algorithm"
    assert request["body"]["max_results"] == 3
    assert asyncio.run(tool.ainvoke({"query": "Ada"})) == out  # async graph runs work too


def test_ground_passes_k_to_tavily(tavily_server: str) -> None:
    tool = make_tavily_tool(api_key="tvly-test", k=5, api_base_url=tavily_server)
    text = ground("Ada Lovelace", [tool], k=2)
    assert text.startswith("<web_search>") and "Ada Lovelace" in text
    assert _TavilyStandIn.requests[-1]["body"]["max_results"] == 2


def test_quota_error_comes_back_as_text(
    tavily_server: str, caplog: pytest.LogCaptureFixture
) -> None:
    tool = make_tavily_tool(api_key="over-quota", api_base_url=tavily_server)
    out = tool.invoke({"query": "anything"})
    assert out.startswith("Error: web search failed")
    assert "432" in out and "limit" in out
    assert any("web search failed" in r.message for r in caplog.records)


def test_network_error_comes_back_as_text() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    tool = make_tavily_tool(api_key="tvly-test", api_base_url=f"http://127.0.0.1:{port}")
    out = tool.invoke({"query": "anything"})
    assert out.startswith("Error: web search failed")


def test_missing_key_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)
    assert not tavily_available()
    with pytest.raises(SearchUnavailable, match="TAVILY_API_KEY"):
        make_tavily_tool()
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-env")
    assert tavily_available()
    assert make_tavily_tool().name == "web_search"


@pytest.fixture()
def silent_server() -> Iterator[str]:
    """Accepts connections and never answers (a hung Tavily endpoint)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join(timeout=2)
    for conn in held:
        conn.close()
    server.close()


def test_a_hung_endpoint_is_bounded(silent_server: str) -> None:
    tool = make_tavily_tool(api_key="tvly-test", api_base_url=silent_server, timeout_s=0.5)
    started = time.monotonic()
    out = tool.invoke({"query": "anything"})
    assert out.startswith("Error: web search timed out") and time.monotonic() - started < 5


def test_a_process_with_a_hung_endpoint_exits_promptly(silent_server: str) -> None:
    """No executor thread left waiting on the socket keeps the interpreter from exiting."""
    code = (
        "from agents.tools.search import make_tavily_tool\n"
        f"tool = make_tavily_tool(api_key='k', api_base_url={silent_server!r}, timeout_s=1)\n"
        "print(tool.invoke({'query': 'q'}))\n"
    )
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    elapsed = time.monotonic() - started
    assert done.returncode == 0, done.stderr[-1000:]
    assert "timed out" in done.stdout
    assert elapsed < 20, f"the process took {elapsed:.0f}s to exit"


def test_result_urls_are_handed_to_on_urls(tavily_server: str) -> None:
    seen: list[list[str]] = []
    tool = make_tavily_tool(api_key="tvly-test", api_base_url=tavily_server, on_urls=seen.append)
    tool.invoke({"query": "Ada"})
    assert seen == [[r["url"] for r in RECORDED["results"]]]
