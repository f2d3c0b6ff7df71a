"""A model server that accepts connections and then fails: one `error:` line, exit 3.

(A closed port is caught before the run starts; tests/unit/cli/test_cli_run.py covers it.)
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.integration


MODELS = b'{"object": "list", "data": [{"id": "x", "object": "model"}]}'


def _answer(conn: socket.socket) -> None:
    """GETs (the start-up probe of /models, /props) are answered; a completion is hung up on."""
    request = conn.recv(65536)
    if request.startswith(b"GET ") and b"/models " in request.split(b"\r\n", 1)[0]:
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(MODELS)}"
        conn.sendall(head.encode() + b"\r\nConnection: close\r\n\r\n" + MODELS)
    elif request.startswith(b"GET "):
        conn.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


@pytest.fixture
def hang_up_server():
    """Passes the CLI's start-up probe, then closes every completion request unanswered."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                _answer(conn)

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    listener.close()


def test_server_failing_mid_run_is_one_line_exit_3(hang_up_server, tmp_path):
    options = [
        *"--no-browser --embedding-model hashing".split(),
        "--model",
        f"openai:x@{hang_up_server}",
    ]
    argv = [sys.executable, "main.py", "--home", str(tmp_path), "run", "Who?", "--json", *options]
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=240)
    assert done.returncode == 3, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and f"model server at {hang_up_server}" in errors[0], errors
    assert "Connection error" in errors[0]  # the completion failed, not the start-up probe
    assert "Traceback" not in done.stderr
    assert json.loads(done.stdout)["error"]["exit_code"] == 3
