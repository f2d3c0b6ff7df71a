"""A model server that accepts connections and then fails: one `error:` line, exit 3.

(A closed port is caught before the run starts; tests/unit/test_cli_run.py covers it.)
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


@pytest.fixture
def hang_up_server():
    """Accepts every connection, reads the request, and closes without answering."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    listener.close()


def test_server_failing_mid_run_is_one_line_exit_3(hang_up_server, tmp_path):
    done = subprocess.run(
        [
            sys.executable, "main.py", "--home", str(tmp_path), "run", "Who?", "--json",
            "--no-browser", "--embedding-model", "hashing",
            "--model", f"openai:x@{hang_up_server}",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert done.returncode == 3, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "cannot use the model server" in errors[0]
    assert "Traceback" not in done.stderr
    assert json.loads(done.stdout)["error"]["exit_code"] == 3
