"""`langgraph dev` serves every graph in langgraph.json; a real SDK client runs one."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from agents.research.readings import DISAGREED
from core.model_catalogue import TEST_MODEL
from prompts.research import ROLE
from tests.conftest import ROOT
from tests.integration.processes import stop

pytestmark = pytest.mark.integration
CORPUS = ROOT / "examples" / "corpus"
ROLES = ("planner_model", "executor_model", "reflector_model", "aggregator_model")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _config_in(folder: Path) -> Path:
    """The project's langgraph.json with its paths made absolute, written into `folder`."""
    text = (ROOT / "langgraph.json").read_text()
    config = json.loads(text.replace('"./', f'"{ROOT}/').replace('"."', f'"{ROOT}"'))
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config))
    return path


@pytest.fixture
def dev_server(tmp_path):
    port = _free_port()
    cli = Path(sys.executable).parent / "langgraph"
    env = {**os.environ, "AGENT_HOME": str(tmp_path), "LANGSMITH_TRACING": "false"}
    log = open(tmp_path / "server.log", "w")
    proc = subprocess.Popen(
        [
            str(cli),
            "dev",
            "--no-browser",
            "--no-reload",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--config",
            str(_config_in(tmp_path)),
        ],
        # the in-memory server keeps its threads and store under ./.langgraph_api of its working
        # directory: a fresh one per test, so no earlier run's items are in this store
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{url}/ok", timeout=2)
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail(
                        "langgraph dev exited:\n" + (tmp_path / "server.log").read_text()[-3000:]
                    )
                time.sleep(1)
        else:
            pytest.fail(
                "langgraph dev did not start:\n" + (tmp_path / "server.log").read_text()[-3000:]
            )
        yield url
    finally:
        stop(proc)
        log.close()


def test_dev_server_serves_every_graph_and_runs_one(dev_server):
    """A reflective run on the embedded model (the fast test model: the subject is the server),
    asked as a chat (the answer comes back as the thread's AI message) and planned (answer first
    off: its tasks' reflections land in the server's Store)."""
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=dev_server)
    assistants = {a["graph_id"]: a["assistant_id"] for a in client.assistants.search()}
    expected = set(json.loads((ROOT / "langgraph.json").read_text())["graphs"])
    assert expected <= set(assistants)
    # Studio's settings form: the system prompt is one of them, with its default
    schema = client.assistants.get_schemas(assistants["reflective_agent"])["context_schema"]
    assert schema["properties"]["system_prompt"]["default"] == ROLE

    thread = client.threads.create()["thread_id"]
    answer = client.runs.wait(
        thread,
        "reflective_agent",
        input={"messages": [{"role": "user", "content": "Who created Wallace and Gromit?"}]},
        context={
            **dict.fromkeys(ROLES, f"local:{TEST_MODEL}"),
            "corpus_dir": str(CORPUS),
            "use_browser": False,
            "max_retries": 0,
            "answer_first": False,
        },
    )
    assert isinstance(answer, dict) and "error" not in answer, answer
    # a run gives back what a caller needs; its workings are in the thread's state
    assert set(answer) <= {"query", "messages", "answer", "final_output", "citations", "stopped"}
    out = client.threads.get_state(thread)["values"]
    assert answer["final_output"] == out["final_output"]
    assert out["query"] == "Who created Wallace and Gromit?"
    assert [m["type"] for m in out["messages"]] == ["human", "ai"], out["messages"]
    assert out["messages"][-1]["content"] == out["final_output"]
    results = out["results"]
    assert out["final_output"].strip() and out["final_output"] != "(no result)"
    assert any(r != "(no result)" for r in results)
    # one attempt per task, and the run's lesson when its two readings of the evidence disagreed
    assert len(out["reflection_ids"]) == len(out["tasks"]) + answer_lessons(out)

    items = client.store.search_items(["reflections", "default"], limit=50)["items"]
    assert {i["key"] for i in items} == set(out["reflection_ids"])
    verdicts = [i["value"]["judgment"]["verdict"] for i in items]
    assert set(verdicts) <= {"pass", "retry", "unjudged"}, verdicts
    assert any(v in ("pass", "retry") for v in verdicts), verdicts  # a real judgment happened
    found = client.store.search_items(["reflections"], query=out["tasks"][0], limit=3)["items"]
    assert found and all(i["score"] is not None for i in found)  # the server's index embeds


def answer_lessons(out: dict) -> int:
    """1 when reflect_on_answer saved a lesson (check_answer's readings disagreed), else 0."""
    return int((out.get("answer_check") or {}).get("how") in DISAGREED)


def _paused_thread(client, assistant_id: str, query: str) -> tuple[str, dict]:
    """A thread whose run paused on its plan: (thread id, the interrupt's value)."""
    thread = client.threads.create()["thread_id"]
    client.runs.wait(thread, assistant_id, input={"query": query})
    state = client.threads.get_state(thread)
    assert state["next"] == ["approve_plan"], state["next"]
    (pause,) = state["interrupts"]
    return thread, pause["value"]


def test_plan_approval_through_the_server(dev_server):
    """An assistant with approve_plan pauses after planning with the goal and tasks as the
    interrupt's value; Command(resume={"tasks": ...}) runs that plan, {"cancel": true} ends
    the run with no answer."""
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=dev_server)
    context = {
        **dict.fromkeys(ROLES, f"local:{TEST_MODEL}"),
        "corpus_dir": str(CORPUS),
        "use_browser": False,
        "max_retries": 0,
        "approve_plan": True,
    }
    assistant = client.assistants.create("reflective_agent", context=context)["assistant_id"]
    query = "Who created Wallace and Gromit?"

    thread, plan = _paused_thread(client, assistant, query)
    assert plan["query"] == query and plan["goal"].strip() and plan["tasks"]
    assert not client.threads.get_state(thread)["values"].get("results")  # nothing ran yet
    edited = ["Find the animator who created Wallace and Gromit"]
    answer = client.runs.wait(thread, assistant, command={"resume": {"tasks": edited}})
    assert isinstance(answer, dict) and "error" not in answer, answer
    out = client.threads.get_state(thread)["values"]
    assert out["tasks"] == edited and len(out["results"]) == 1
    # the edited task ran once (max_retries 0), and the answer's lesson if its readings differed
    assert len(out["reflection_ids"]) == 1 + answer_lessons(out)
    assert out["final_output"].strip()

    thread, _ = _paused_thread(client, assistant, query)
    client.runs.wait(thread, assistant, command={"resume": {"cancel": True}})
    out = client.threads.get_state(thread)["values"]
    assert out["stopped"] == "cancelled" and not out.get("final_output")
    assert not out.get("reflection_ids") and not client.threads.get_state(thread)["next"]


def test_a_call_cap_holds_in_the_server(dev_server):
    """The caps are the graph's own: a run through the server with `max_calls` 3 (and no
    callback of the CLI's) plans, keeps its last call for the answer and ends `stopped`."""
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=dev_server)
    context = {
        **dict.fromkeys(ROLES, f"local:{TEST_MODEL}"),
        "corpus_dir": str(CORPUS),
        "use_browser": False,
        "answer_first": False,
        "max_calls": 3,
    }
    thread = client.threads.create()["thread_id"]
    answer = client.runs.wait(
        thread,
        "reflective_agent",
        input={"query": "Who created Wallace and Gromit?"},
        context=context,
    )
    assert isinstance(answer, dict) and "error" not in answer, answer
    assert answer["stopped"] == "max_calls", answer.get("stopped")
    out = client.threads.get_state(thread)["values"]
    # goal and plan took two calls: no task started, the third call wrote the answer
    assert out["tasks"] and not any(out.get("results") or [])
    assert out["final_output"].strip()
