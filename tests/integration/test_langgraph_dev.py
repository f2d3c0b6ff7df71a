"""`langgraph dev`, plainly as the docs run it (no --allow-blocking), serves every graph in
langgraph.json to authenticated callers: a real SDK client runs them with what the operator
offers (the fast test model, the examples corpus by name, an MCP server, a local page for the
web agent); each caller's runs and memories are their own. One server for the module."""

from __future__ import annotations

import json
import sys

import pytest

from core.model_catalogue import TEST_MODEL
from core.state import DISAGREED
from evals.common.static_server import serve_directory
from prompts.research import ROLE
from tests.conftest import ROOT
from tests.integration.langgraph_server import caller, dev_server, run_error

pytestmark = pytest.mark.integration
CORPUS = ROOT / "examples" / "corpus"
PAGES = ROOT / "tests" / "integration" / "web_pages"
FACTS = ROOT / "tests" / "integration" / "mcp_facts_server.py"
MODEL = f"local:{TEST_MODEL}"
ROLES = ("planner_model", "executor_model", "reflector_model", "aggregator_model")
TOKENS = {who: f"{who}-token-0123456789" for who in ("alice", "bob", "carol", "dave", "erin")}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """(server URL, the web page's URL, the MCP server's call log)."""
    folder = tmp_path_factory.mktemp("served")
    calls = folder / "calls.log"
    (folder / "mcp.json").write_text(
        json.dumps(
            {"mcpServers": {"facts": {"command": sys.executable, "args": [str(FACTS), str(calls)]}}}
        )
    )
    with serve_directory(PAGES) as pages:
        offer = (
            f'model = "{MODEL}"\nmcp = "mcp.json"\nweb_origins = ["{pages}"]\n'
            f'[models]\n"{MODEL}" = "{MODEL}"\n[corpora]\nexamples = "{CORPUS}"\n'
        )
        with dev_server(folder, offer=offer, tokens=TOKENS) as url:
            yield url, f"{pages}/index.html", calls


def test_dev_server_serves_every_graph_and_runs_one(served):
    """A reflective run on the embedded model (the fast test model: the subject is the server),
    asked as a chat (the answer comes back as the thread's AI message) and planned (answer first
    off: its tasks' reflections land in the server's Store, under its caller); another caller
    sees neither the thread nor the reflections."""
    url, _, _ = served
    client = caller(url, TOKENS["alice"])
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
            **dict.fromkeys(ROLES, MODEL),
            "corpus_dir": "examples",
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

    _stored_for_its_caller_alone(client, caller(url, TOKENS["bob"]), thread, out)


def _stored_for_its_caller_alone(client, other, thread: str, out: dict) -> None:
    """The run's reflections are in the server's store, judged and embedded, for its caller;
    another caller finds neither them nor the thread."""
    items = client.store.search_items(["reflections", "default"], limit=50)["items"]
    assert {i["key"] for i in items} == set(out["reflection_ids"])
    verdicts = [i["value"]["judgment"]["verdict"] for i in items]
    assert set(verdicts) <= {"pass", "retry", "unjudged"}, verdicts
    assert any(v in ("pass", "retry") for v in verdicts), verdicts  # a real judgment happened
    found = client.store.search_items(["reflections"], query=out["tasks"][0], limit=3)["items"]
    assert found and all(i["score"] is not None for i in found)  # the server's index embeds
    assert other.store.search_items(["reflections"], limit=50)["items"] == []
    assert thread not in {t["thread_id"] for t in other.threads.search(limit=100)}


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


def test_plan_approval_through_the_server(served):
    """An assistant with approve_plan pauses after planning with the goal and tasks as the
    interrupt's value; Command(resume={"tasks": ...}) runs that plan, {"cancel": true} ends
    the run with no answer."""
    client = caller(served[0], TOKENS["bob"])
    context = {"corpus_dir": "examples", "use_browser": False, "max_retries": 0}
    context["approve_plan"] = True
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


def test_a_call_cap_holds_in_the_server(served):
    """The caps are the graph's own: a run through the server with `max_calls` 3 (and no
    callback of the CLI's) plans, keeps its last call for the answer and ends `stopped`;
    the operator's MCP server is started for its tools on plain `langgraph dev` too."""
    client = caller(served[0], TOKENS["carol"])
    context = {"corpus_dir": "examples", "use_browser": False, "answer_first": False}
    thread = client.threads.create()["thread_id"]
    answer = client.runs.wait(
        thread,
        "reflective_agent",
        input={"query": "Who created Wallace and Gromit?"},
        context={**context, "max_calls": 3},
    )
    assert isinstance(answer, dict) and "error" not in answer, answer
    assert answer["stopped"] == "max_calls", answer.get("stopped")
    out = client.threads.get_state(thread)["values"]
    # goal and plan took two calls: no task started, the third call wrote the answer
    assert out["tasks"] and not any(out.get("results") or [])
    assert out["final_output"].strip()


def test_the_web_agent_runs_on_plain_langgraph_dev(served):
    """The web agent opens its browser (off the server's event loop) on the page its operator
    allows and reads it; a page elsewhere is refused before the browser opens."""
    url, page, _ = served
    client = caller(url, TOKENS["dave"])
    thread = client.threads.create()["thread_id"]
    context = {"max_steps": 1, "plan_steps": False, "judge_runs": False, "record_runs": False}
    task = {"task": "Read the page's heading, then stop.", "start_url": page}
    assert run_error(client, thread, "web_agent", input=task, context=context) is None
    out = client.threads.get_state(thread)["values"]
    assert out["url"] == page and "Environment test page" in out["observation"]
    elsewhere = {**task, "start_url": "http://127.0.0.1:9/"}
    refused = run_error(client, None, "web_agent", input=elsewhere, context=context)
    assert refused and "StartRefused" in refused
