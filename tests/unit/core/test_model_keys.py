"""A key goes only where its owner meant it to (core.models.api_key_for): OPENAI_API_KEY to
OpenAI's API or the URL OPENAI_BASE_URL names, `#key=VAR` to its spec's URL, and a server named
by any other URL gets none; a stand-in server records the Authorization header it is sent."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core.model_errors import ModelSpecError
from core.model_spec import parse_spec
from core.models import api_key_for, build_chat_model

SECRET = "sk-the-operators-own-key"


def stand_in() -> tuple[str, list[str], ThreadingHTTPServer]:
    """An OpenAI-compatible server that records each request's Authorization header."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            seen.append(self.headers.get("Authorization", ""))
            body = {"data": [{"id": "m", "max_model_len": 4096}]}
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(body).encode())

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/v1", seen, server


def test_a_server_someone_named_never_gets_the_openai_key():
    url, seen, server = stand_in()
    try:
        model = build_chat_model(f"openai:m@{url}", environ={"OPENAI_API_KEY": SECRET})
    finally:
        server.shutdown()
    assert seen and not any(SECRET in header for header in seen)
    assert SECRET not in model.openai_api_key.get_secret_value()


def test_the_key_goes_to_the_url_it_was_set_for():
    url, seen, server = stand_in()
    environ = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": url + "/"}
    try:
        build_chat_model(f"openai:m@{url}", environ=environ)
        build_chat_model(f"openai:m@{url}#key=THIS_SERVER_KEY", environ={"THIS_SERVER_KEY": "k2"})
    finally:
        server.shutdown()
    assert seen and set(seen) == {f"Bearer {SECRET}", "Bearer k2"}


def test_which_key_a_spec_gets():
    environ = {"OPENAI_API_KEY": SECRET, "MINE": "k3"}
    assert api_key_for(parse_spec("openai:gpt-4o-mini"), environ) == SECRET
    assert api_key_for(parse_spec("openai:m@http://h/v1"), environ) is None
    assert api_key_for(parse_spec("openai:m@http://h/v1#key=MINE"), environ) == "k3"
    with pytest.raises(ModelSpecError, match="MISSING is not set"):
        api_key_for(parse_spec("openai:m@http://h/v1#key=MISSING"), environ)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("anthropic:claude@http://h/v1", "a URL is for OpenAI-compatible servers"),
        ("openai:m@http://h/v1#key=$(id)", "name an environment variable"),
        ("anthropic:claude#key=X", "KEY one of"),
    ],
)
def test_specs_that_would_send_a_key_astray_are_refused(spec, message):
    with pytest.raises(ModelSpecError, match=message):
        parse_spec(spec)
