"""Model specs (options after '#') and the server probe: context size where a server says it,
a clear ModelUnavailable at once where nothing listens."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from core.model_errors import ModelSpecError, ModelUnavailable
from core.model_spec import MODEL_SPEC_HELP, parse_spec
from core.server_probe import probe_server


def test_specs_and_options():
    spec = parse_spec(
        "openai:smollm2@http://127.0.0.1:8080/v1#structured=function_calling&ctx=2048"
    )
    assert (spec.provider, spec.model, spec.base_url) == (
        "openai",
        "smollm2",
        "http://127.0.0.1:8080/v1",
    )
    assert spec.options == {"structured": "function_calling", "ctx": "2048"}
    assert parse_spec("local").provider is None and parse_spec("local#ctx=1024").options == {
        "ctx": "1024"
    }
    assert parse_spec("local:/m/x.gguf").model == "/m/x.gguf"
    assert parse_spec("openai:gpt-4o-mini").base_url is None
    assert parse_spec("openai:m@http://h/v1#timeout=2.5&retries=0").number("timeout") == 2.5
    assert "structured=" in MODEL_SPEC_HELP and "ctx=" in MODEL_SPEC_HELP


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("gpt-4o", "provider:model"),
        ("openai:m@ftp://h/v1", "must start with http"),
        ("openai:m@http://h/v1#structured=xml", "json_schema"),
        ("openai:m@http://h/v1#ctx=big", "positive number"),
        ("openai:m@http://h/v1#ctx=0", "positive number"),
        ("openai:m@http://h/v1#colour=red", "KEY one of"),
        ("local#tools=named", "KEY one of ctx"),
    ],
)
def test_bad_specs_say_how_to_fix_them(spec, message):
    with pytest.raises(ModelSpecError, match=message):
        parse_spec(spec)


def serve(routes: dict[str, dict]) -> tuple[str, ThreadingHTTPServer]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            body = routes.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(body or {"error": "not found"}).encode())

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}", server


@pytest.mark.parametrize(
    ("routes", "context"),
    [
        ({"/v1/models": {"data": [{"id": "m", "object": "model", "max_model_len": 32768}]}}, 32768),
        (
            {
                "/v1/models": {"data": [{"id": "m", "meta": {"n_ctx_train": 8192}}]},
                "/props": {"default_generation_settings": {"n_ctx": 2048}},
            },
            2048,
        ),
        ({"/v1/models": {"data": [{"id": "other", "context_length": 4096}]}}, 4096),
        (
            {
                "/v1/models": {
                    "object": "list",
                    "data": [{"id": "/models/x.gguf", "owned_by": "me"}],
                }
            },
            None,
        ),
    ],
)
def test_probe_reads_the_context_where_servers_say_it(routes, context):
    root, server = serve(routes)
    try:
        assert probe_server(f"{root}/v1", "m", "k").context == context
    finally:
        server.shutdown()


def test_probe_of_a_closed_port_fails_at_once():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(
        ModelUnavailable, match=f"cannot reach the model server at http://127.0.0.1:{port}"
    ):
        probe_server(f"http://127.0.0.1:{port}/v1", "m", "k")
    assert time.monotonic() - started < 3


def test_models_build__a_server_model_with_timeouts_and_its_context(monkeypatch):
    from core.models import Models

    root, server = serve({"/v1/models": {"data": [{"id": "m", "max_model_len": 16384}]}})
    try:
        model = Models().chat(f"openai:m@{root}/v1#tools=native&timeout=7&retries=0")
    finally:
        server.shutdown()
    assert model.context_window == 16384 and model.tool_mode == "native"
    assert model.request_timeout == 7.0 and model.max_retries == 0
