"""MCP servers that break the protocol's rules, through the real CLI: stray stdout is one warning,
not a traceback per line; a 20 MB tool result reaches the model cut to MAX_RESULT_CHARS, the cut
said; a URL answering HTTP 500 and a server that never answers are one error naming the server
(exit 3); and a server that ignores SIGTERM and its stdin closing is gone when the CLI ends, by
a normal end, an error, Ctrl-C or SIGTERM (tests/integration/mcp_odd_server.py). Counts go to the
session's tally (tests/integration/conftest.py): servers started, servers left running."""

from __future__ import annotations

import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agents.tools.mcp import MAX_RESULT_CHARS, connections
from agents.tools.mcp_sessions import McpServerUnavailable, McpSessions
from tests.conftest import ROOT
from tests.integration.processes import CHILD_TIMEOUT_S, run_child

pytestmark = pytest.mark.integration
SERVER = ROOT / "tests" / "integration" / "mcp_odd_server.py"
AGENT = ROOT / "tests" / "integration" / "cli_mcp_agent.py"
QUESTION = "What is the vault code of Halley station?"
RUN = ["--no-browser", "--max-retries", "0", "--max-tool-steps", "3", "--json"]


def _config(folder: Path, *flags: str, name: str = "facts") -> Path:
    """An MCP file naming the odd server with `flags`; its pids go to folder/pids.log."""
    args = [str(SERVER), str(folder / "pids.log"), *flags]
    path = folder / "mcp.json"
    path.write_text(json.dumps({"mcpServers": {name: {"command": sys.executable, "args": args}}}))
    return path


def _argv(folder: Path, *args: str, agent: bool = False) -> list[str]:
    script = [str(AGENT), str(folder / "logs")] if agent else [str(ROOT / "main.py")]
    (folder / "logs").mkdir(exist_ok=True)
    return [sys.executable, *script, "--home", str(folder / "home"), *args]


def _cli(folder: Path, *args: str, agent: bool = False) -> subprocess.CompletedProcess:
    argv = _argv(folder, *args, agent=agent)
    return run_child(argv, cwd=ROOT, text=True, timeout=CHILD_TIMEOUT_S)


def _pids(folder: Path) -> list[int]:
    """The process ids the odd servers logged (their CALLED lines aside)."""
    log = folder / "pids.log"
    lines = log.read_text().splitlines() if log.exists() else []
    return [int(line) for line in lines if line.isdigit()]


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _left_running(folder: Path, tally, wait_s: float = 3.0) -> list[int]:
    """The servers this test started that still run `wait_s` after the CLI ended (killed here,
    so none outlives the test); each is counted in the tally."""
    pids = _pids(folder)
    assert pids, "no server logged its start: that none is left would prove nothing"
    deadline = time.monotonic() + wait_s
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in pids if _alive(p)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    tally["mcp_servers_started"] += len(pids)
    tally["mcp_servers_left"] += len(left)
    return left


def _one_error(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr[-3000:]
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, stderr[-3000:]
    return errors[0]


def test_stray_stdout_is_one_warning_not_a_traceback_per_line(tmp_path, tally):
    config = _config(tmp_path, "--banner", "5")
    done = _cli(tmp_path, "run", QUESTION, "--mcp", str(config), *RUN, agent=True)
    tally["mcp_tries"] += 1
    left = _left_running(tmp_path, tally)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    assert "7316-KESTREL" in json.loads(done.stdout)["final_output"]
    # listed before the run, then started again by its attempt: reported once
    warnings = [line for line in done.stderr.splitlines() if "not an MCP message" in line]
    assert len(warnings) == 1 and "odd server v1.0 starting" in warnings[0], done.stderr
    assert left == []


def test_a_20_mb_result_reaches_the_model_cut_with_the_cut_said(tmp_path, tally):
    config = _config(tmp_path, "--result-chars", str(20_000_000))
    done = _cli(tmp_path, "run", QUESTION, "--mcp", str(config), *RUN, agent=True)
    tally["mcp_tries"] += 1
    left = _left_running(tmp_path, tally)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = (tmp_path / "logs" / "tool_messages.log").read_text()
    assert "7316-KESTREL" in seen and "[cut: the MCP tool returned 20,000,000 characters" in seen
    assert len(seen) < MAX_RESULT_CHARS + 200
    assert left == []


def test_a_stubborn_server_is_gone_after_a_normal_end(tmp_path, tally):
    config = _config(tmp_path, "--stubborn")
    done = _cli(tmp_path, "run", QUESTION, "--mcp", str(config), *RUN, agent=True)
    tally["mcp_tries"] += 1
    left = _left_running(tmp_path, tally)
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(_pids(tmp_path)) == 2  # listed once, then started by the attempt
    assert left == []


def test_a_stubborn_server_is_gone_after_another_fails_to_start(tmp_path, tally):
    stubborn = [str(SERVER), str(tmp_path / "pids.log"), "--stubborn"]
    crash = ["-c", "import sys; sys.exit('no vault database here')"]
    servers = {
        "facts": {"command": sys.executable, "args": stubborn},
        "broken": {"command": sys.executable, "args": crash},
    }
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": servers}))
    done = _cli(tmp_path, "run", QUESTION, "--mcp", str(config), "--no-browser")
    tally["mcp_tries"] += 1
    left = _left_running(tmp_path, tally)
    assert done.returncode == 3, done.stderr[-3000:]
    assert "'broken'" in _one_error(done.stderr)
    assert left == []


def _wait_for_the_call(log: Path, child: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while "CALLED" not in (log.read_text() if log.exists() else ""):
        assert child.poll() is None and time.monotonic() < deadline, child.communicate()[1]
        time.sleep(0.1)


STOPS = [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated by SIGTERM")]


@pytest.mark.parametrize(("sig", "code", "says"), STOPS, ids=["ctrl-c", "sigterm"])
def test_a_stubborn_server_is_gone_after_the_run_is_stopped(tmp_path, tally, sig, code, says):
    config = _config(tmp_path, "--stubborn", "--tool-sleep", "60")
    with subprocess.Popen(
        _argv(tmp_path, "run", QUESTION, "--mcp", str(config), *RUN, agent=True),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as child:
        try:
            _wait_for_the_call(tmp_path / "pids.log", child)
            child.send_signal(sig)
            _, err = child.communicate(timeout=60)
        finally:
            child.kill()  # a no-op once it ended; ends it if an assertion did not wait
    tally["mcp_tries"] += 1
    left = _left_running(tmp_path, tally)
    assert child.returncode == code, err[-3000:]
    assert _one_error(err).startswith(f"error: {says} (resume with: reflective-agent run --resume ")
    assert left == []


class _Status500(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        self.send_response(500)
        self.send_header("Content-Length", "4")
        self.end_headers()
        self.wfile.write(b"oops")

    do_GET = do_POST

    def log_message(self, *args: object) -> None:
        pass


def test_a_url_answering_500_is_one_error_naming_the_server(tmp_path, tally):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Status500)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/mcp"
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"web": {"url": url}}}))
    try:
        done = _cli(tmp_path, "tools", "list", "--mcp", str(config), "--no-browser")
    finally:
        server.shutdown()
        server.server_close()
    tally["mcp_tries"] += 1
    assert done.returncode == 3, done.stderr[-3000:]
    error = _one_error(done.stderr)
    assert "'web'" in error and "500" in error


def test_a_server_that_never_answers_is_named_within_its_limit(tmp_path, tally):
    config = _config(tmp_path, "--silent", "--stubborn", "--banner", "1")
    servers = json.loads(config.read_text())["mcpServers"]
    sessions = McpSessions(connections(servers), start_s=2.0)
    started = time.monotonic()
    with pytest.raises(McpServerUnavailable) as raised:
        sessions.start()
    seconds = time.monotonic() - started
    tally["mcp_tries"] += 1
    message = str(raised.value)
    assert "'facts'" in message and "no answer in 2 s" in message, message
    assert "odd server v1.0 starting" in message  # what it printed instead
    # the close sequence (2 s after stdin closes, 2 after SIGTERM, then SIGKILL) fits the wait
    assert seconds < 2.0 + 8.0, seconds
    assert _left_running(tmp_path, tally, wait_s=1.0) == []
