"""Remote callers against a real `langgraph dev` with its blocking-call checker off (as in a
deployment, which has none) and auth on: every setting that reaches processes, files, networks
or keys is tried from the caller's side, and each is refused or confined to what the operator
set. Measured, not assumed: marker files for commands, a canary file outside the corpora,
stand-in HTTP servers that record every request and its Authorization header, and two callers
who try each other's threads and memories. Counts go to the session's tally
(tests/integration/conftest.py)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from core.model_catalogue import TEST_MODEL
from tests.conftest import ROOT
from tests.integration.langgraph_server import caller, dev_server, run_error

pytestmark = pytest.mark.integration
MODEL = f"local:{TEST_MODEL}"
TOKENS = {"alice": "alice-token-0123456789", "bob": "bob-token-0123456789"}
SERVER_KEY = "sk-the-servers-own-openai-key"  # the server's OPENAI_API_KEY
OPERATOR_KEY = "op-key-for-the-operators-model-server"
CANARY = "CANARY-7f3a-nobody-may-read-this"


class DualStack(ThreadingHTTPServer):
    """Listens at every address of the machine, IPv4 and IPv6 alike."""

    address_family = socket.AF_INET6

    def server_bind(self) -> None:
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


def listen(everywhere: bool, handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    if not everywhere:
        return ThreadingHTTPServer(("127.0.0.1", 0), handler)
    try:
        return DualStack(("::", 0), handler)
    except OSError:  # a machine without IPv6
        return ThreadingHTTPServer(("0.0.0.0", 0), handler)


class Recorder:
    """An HTTP server on 127.0.0.1 (`everywhere`: at every address of the machine) that
    records (method, path, Authorization) of every request; it answers as an OpenAI-compatible
    server would list a model, and fails chats."""

    def __init__(self, everywhere: bool = False) -> None:
        self.seen: list[tuple[str, str, str]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                recorder.seen.append(
                    (self.command, self.path, self.headers.get("Authorization", ""))
                )
                listing = self.path.endswith("/models")
                self.send_response(200 if listing else 500)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                body = {"data": [{"id": "m", "max_model_len": 4096}]} if listing else {}
                self.wfile.write(json.dumps(body).encode())

            do_GET = do_POST = _answer  # noqa: N815 (http.server's names)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = listen(everywhere, Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture(scope="module")
def probed(tmp_path_factory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("probed")
    secret = folder / "secret"
    secret.mkdir()
    (secret / "secret.txt").write_text(f"The answer to everything is {CANARY}.\n")
    (secret / "model.gguf").write_text(CANARY)
    hosts = {"caller": Recorder(), "operator": Recorder(), "webhook": Recorder(everywhere=True)}
    offer = (
        f'model = "{MODEL}"\nmax_calls = 30\n[models]\n"{MODEL}" = "{MODEL}"\n'
        f'remote = "openai:m@{hosts["operator"].url}/v1#key=OPERATOR_MODEL_KEY"\n'
        f'[corpora]\nexamples = "{ROOT / "examples" / "corpus"}"\n'
    )
    env = {"OPENAI_API_KEY": SERVER_KEY, "OPERATOR_MODEL_KEY": OPERATOR_KEY}
    try:
        with dev_server(folder, offer=offer, tokens=TOKENS, allow_blocking=True, env=env) as url:
            yield {"url": url, "folder": folder, "secret": secret, "hosts": hosts, "said": []}
    finally:
        for host in hosts.values():
            host.server.shutdown()


def _hostile(folder: Path, secret: Path, caller_url: str) -> list[tuple[str, dict, str]]:
    """(graph, the run's settings or input, the setting its refusal must name)."""
    marker = folder / "commands"

    def shell(n: int) -> dict:
        return {"command": "sh", "args": ["-c", f"mkdir -p {marker}; touch {marker}/{n}"]}

    # (settings that are no settings, such as `tools`, never reach a run: the server drops
    # what the context's schema does not name, and admission refuses them besides)
    remote = f"openai:x@{caller_url}/v1"
    research = [
        ({"mcp_servers": {"x": shell(1)}}, "mcp_servers"),
        ({"mcp_servers": {"x": {"url": f"{caller_url}/mcp"}}}, "mcp_servers"),
        ({"model": remote}, "model"),
        *[({f"{role}_model": remote}, f"{role}_model") for role in ("planner", "executor")],
        *[({f"{role}_model": remote}, f"{role}_model") for role in ("reflector", "aggregator")],
        ({"embedding_model": "openai:text-embedding-3-small"}, "embedding_model"),
        ({"model": f"local:{secret / 'model.gguf'}"}, "model"),
        ({"model": f"local:{secret / 'missing.gguf'}"}, "model"),
        ({"corpus_dir": "/etc"}, "corpus_dir"),
        ({"corpus_dir": str(secret)}, "corpus_dir"),
        ({"home": str(secret)}, "home"),
        ({"allowed_origins": [caller_url]}, "allowed_origins"),
        ({"max_calls": 31}, "max_calls"),
    ]
    web = [
        ({"allowed_origins": [caller_url]}, "allowed_origins"),
        ({"model": remote}, "model"),
        ({"home": str(secret)}, "home"),
    ]
    return [("reflective_agent", c, s) for c, s in research] + [("web_agent", c, s) for c, s in web]


def test_every_hostile_setting_is_refused_before_any_work(probed, tally):
    bob = caller(probed["url"], TOKENS["bob"])
    cases = _hostile(probed["folder"], probed["secret"], probed["hosts"]["caller"].url)
    refusals = {}
    for graph, context, setting in cases:
        run = {"input": _input(graph), "context": context}
        error = run_error(bob, None, graph, **run)
        tally["served_tried"] += 1
        tally["served_refused"] += bool(error and f"'{setting}'" in error)
        assert error and "RefusedSetting" in error and f"'{setting}'" in error, (context, error)
        probed["said"].append(error)
        refusals[json.dumps(context)] = error
    # a file's existence is never told: the same words for a file that is there and one that is not
    there, missing = (f"local:{probed['secret'] / n}" for n in ("model.gguf", "missing.gguf"))
    words = {refusals[json.dumps({"model": m})].replace(m, "PATH") for m in (there, missing)}
    assert len(words) == 1


def test_settings_sent_another_way_are_refused_too(probed, tally):
    """As run config instead of context, and as an assistant's own settings."""
    bob = caller(probed["url"], TOKENS["bob"])
    marker = probed["folder"] / "commands"
    shell = {"command": "sh", "args": ["-c", f"mkdir -p {marker}; touch {marker}/3"]}
    config = {"configurable": {"mcp_servers": {"x": shell}}}
    via_config = run_error(bob, None, "reflective_agent", input=_input(), config=config)
    made = bob.assistants.create("reflective_agent", context={"corpus_dir": "/etc"})
    via_assistant = run_error(bob, None, made["assistant_id"], input=_input())
    start = {"task": "Read it.", "start_url": f"{probed['hosts']['caller'].url}/secret"}
    via_input = run_error(bob, None, "web_agent", input=start)
    for error, name in ((via_config, "mcp_servers"), (via_assistant, "corpus_dir")):
        tally["served_tried"] += 1
        tally["served_refused"] += bool(error and f"'{name}'" in error)
        assert error and "RefusedSetting" in error and f"'{name}'" in error, error
    tally["served_tried"] += 1
    tally["served_refused"] += bool(via_input and "StartRefused" in via_input)
    assert via_input and "StartRefused" in via_input, via_input
    probed["said"] += [via_config, via_assistant, via_input]


def own_addresses() -> list[str]:
    """The machine's loopback and the addresses its packets leave by (IPv4, IPv6): where a
    webhook would reach the server's own networks (connecting a UDP socket sends nothing)."""
    found = ["127.0.0.1"]
    for family, far in ((socket.AF_INET, "10.255.255.255"), (socket.AF_INET6, "fd00::ffff")):
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            try:
                probe.connect((far, 9))
            except OSError:
                continue
            found.append(probe.getsockname()[0])
    return found


def test_a_run_never_calls_a_webhook_its_caller_names(probed):
    """A webhook is a POST the server makes to the URL a run names, private networks included:
    one at each address of this machine reaches nothing (webhooks are off; the recorder is
    counted with the caller-chosen hosts, by the tally at the end, after the runs' workers)."""
    bob = caller(probed["url"], TOKENS["bob"])
    port = probed["hosts"]["webhook"].port
    for address in own_addresses():
        hook = f"http://{f'[{address}]' if ':' in address else address}:{port}/hook"
        run = {"input": _input(), "context": {"corpus_dir": "/etc"}, "webhook": hook}
        probed["said"].append(run_error(bob, None, "reflective_agent", **run) or "")


def test_a_key_goes_only_where_the_operator_sent_it(probed, tally):
    """A run on the operator's own model server: the server hears the key the operator bound
    to it, never the process's OPENAI_API_KEY."""
    alice = caller(probed["url"], TOKENS["alice"])
    error = run_error(alice, None, "reflective_agent", input=_input(), context={"model": "remote"})
    assert error  # the stand-in fails every chat: the run ends, after its requests were seen
    heard = probed["hosts"]["operator"].seen
    assert heard and {auth for _, _, auth in heard} == {f"Bearer {OPERATOR_KEY}"}


def test_one_caller_never_sees_anothers_threads_or_memories(probed, tally):
    alice, bob = (caller(probed["url"], TOKENS[who]) for who in ("alice", "bob"))
    alice.store.put_item(["reflections", "default"], "k1", {"text": f"alice's {CANARY}"})
    thread = alice.threads.create(metadata={"topic": "alice's"})["thread_id"]
    tries = {
        "search her memories": lambda: bob.store.search_items(["reflections"])["items"],
        "search every namespace": lambda: [  # the empty prefix: the whole store, unowned
            i for i in bob.store.search_items([], limit=100)["items"] if CANARY in json.dumps(i)
        ],
        "get her memory": lambda: bob.store.get_item(["reflections", "default"], "k1"),
        "name her namespace": lambda: bob.store.get_item(["alice", "reflections", "default"], "k1"),
        "list namespaces": lambda: [  # (each listed under bob's own identity)
            n for n in bob.store.list_namespaces()["namespaces"] if n[:1] != ["bob"]
        ],
        "find her thread": lambda: [
            t for t in bob.threads.search(limit=100) if t["thread_id"] == thread
        ],
        "read her thread": lambda: bob.threads.get(thread),
        "read its state": lambda: bob.threads.get_state(thread),
        "run on her thread": lambda: bob.runs.wait(thread, "reflective_agent", input=_input()),
        "change her thread": lambda: bob.threads.update(thread, metadata={"topic": "bob's"}),
        "delete her thread": lambda: bob.threads.delete(thread),
        "overwrite her memory": lambda: bob.store.put_item(
            ["reflections", "default"], "k1", {"text": "bob's"}
        ),
    }
    seen = []
    for name, attempt in tries.items():
        tally["served_cross_tried"] += 1
        try:
            got = attempt()
        except Exception as exc:  # the SDK raises 404/403 as HTTPStatusError
            got = None
            probed["said"].append(str(exc))
        if got and name != "overwrite her memory":
            seen.append((name, got))
    mine = alice.store.get_item(["reflections", "default"], "k1")["value"]["text"]
    kept = alice.threads.get(thread)["metadata"]["topic"]
    if mine != f"alice's {CANARY}" or kept != "alice's":
        seen.append(("changed", (mine, kept)))
    tally["served_cross_seen"] += len(seen)
    assert seen == []


def test_no_token_no_service(probed, tally):
    from langgraph_sdk import get_sync_client

    malformed = {"Authorization": b"Bearer \xe9\xe9-no-ascii-token"}  # a 401, not a crash
    for headers in ({}, {"Authorization": "Bearer not-a-token-of-this-server"}, malformed):
        tally["served_unauthenticated"] += 1
        with pytest.raises(Exception, match="send the token this server's operator gave you"):
            get_sync_client(url=probed["url"], headers=headers).threads.search()


def test_the_tally_of_what_reached_the_server(probed, tally):
    """Last: what every probe above left behind, counted."""
    marker = probed["folder"] / "commands"
    tally["served_commands"] += len(list(marker.iterdir())) if marker.exists() else 0
    tally["served_outside_read"] += sum(CANARY in text for text in probed["said"])
    tally["served_caller_requests"] += sum(
        len(probed["hosts"][h].seen) for h in ("caller", "webhook")
    )
    heard = [auth for host in probed["hosts"].values() for _, _, auth in host.seen]
    tally["served_keys_astray"] += sum(SERVER_KEY in auth for auth in heard)
    for chosen in ("caller", "webhook"):
        tally["served_keys_astray"] += sum(bool(a) for _, _, a in probed["hosts"][chosen].seen)
    assert not marker.exists()
    assert tally["served_outside_read"] == tally["served_caller_requests"] == 0
    assert tally["served_keys_astray"] == 0


def _input(graph: str = "reflective_agent") -> dict:
    if graph == "web_agent":
        return {"task": "Read the page.", "start_url": "https://example.org/"}
    return {"query": "What is the answer to everything?"}
