"""A real `langgraph dev` serving the project's langgraph.json, as an operator would run it, for
the tests of served graphs (test_langgraph_dev.py, test_served_probes.py).

    with dev_server(folder, offer="model = ...", tokens={"alice": TOKEN}) as url:
        client = caller(url, TOKEN)

The operator's offer is written to folder/serve.toml (AGENT_SERVE_CONFIG), the callers' tokens
go in AGENT_SERVE_TOKENS; the server's in-memory threads and store live under the folder.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.conftest import ROOT
from tests.integration.processes import stop

START_S = 180  # on 2 busy cores the server takes a minute to import the graphs


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def config_in(folder: Path) -> Path:
    """The project's langgraph.json with its paths made absolute, written into `folder`."""
    text = (ROOT / "langgraph.json").read_text()
    config = json.loads(text.replace('"./', f'"{ROOT}/').replace('"."', f'"{ROOT}"'))
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config))
    return path


@contextmanager
def dev_server(
    folder: Path,
    *,
    offer: str,
    tokens: Mapping[str, str],
    allow_blocking: bool = False,
    env: Mapping[str, str] | None = None,
) -> Iterator[str]:
    """`langgraph dev` on a free port, serving with the offer and tokens given; its URL."""
    (folder / "serve.toml").write_text(offer)
    port = free_port()
    cli = Path(sys.executable).parent / "langgraph"
    environ = {
        **os.environ,
        **(env or {}),
        "AGENT_HOME": str(folder / "home"),
        "AGENT_SERVE_CONFIG": str(folder / "serve.toml"),
        "AGENT_SERVE_TOKENS": ",".join(f"{who}:{token}" for who, token in tokens.items()),
        "LANGSMITH_TRACING": "false",
    }
    command = [str(cli), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--config", str(config_in(folder))]
    command += ["--allow-blocking"] if allow_blocking else []
    log = open(folder / "server.log", "w")
    # the in-memory server keeps its threads and store under ./.langgraph_api of its folder
    proc = subprocess.Popen(command, cwd=folder, env=environ, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_ready(f"http://127.0.0.1:{port}", proc, folder / "server.log")
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(proc)
        log.close()


def _wait_ready(url: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}/ok", timeout=2)
            return
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("langgraph dev exited:\n" + log.read_text()[-3000:]) from None
            time.sleep(1)
    raise RuntimeError("langgraph dev did not start:\n" + log.read_text()[-3000:])


def caller(url: str, token: str) -> Any:
    """A LangGraph SDK client sending `token` as its bearer token."""
    from langgraph_sdk import get_sync_client

    return get_sync_client(url=url, headers={"Authorization": f"Bearer {token}"})


def run_error(client: Any, thread: str | None, graph: str, **run: Any) -> str | None:
    """The error a run ended with ("Type: message"), or None when it finished."""
    try:
        out = client.runs.wait(thread, graph, **run)
    except Exception as exc:  # the SDK raises the run's error as a plain Exception
        return str(exc)
    if isinstance(out, dict) and "__error__" in out:
        return f"{out['__error__'].get('error')}: {out['__error__'].get('message')}"
    return None
