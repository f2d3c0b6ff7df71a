"""OpenAI-compatible models against replayed responses of the real API shape (httpx MockTransport):
structured output by the method a server supports, parallel and named tool calls, the context
size learned from the server's error, max_tokens for servers, and a clear error when unreachable."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from core.model_errors import ModelUnavailable
from core.openai_compat import OpenAICompatibleChat
from core.structured import ask_structured

RESPONSES = Path(__file__).parent / "openai_responses"


def recorded(name: str) -> dict:
    return json.loads((RESPONSES / name).read_text())


class Verdict(BaseModel):
    needs_retry: bool
    confidence: float
    reasons: list[str]


@tool
def search_corpus(query: str) -> str:
    """Search the local documents."""
    return query


def completion(message: dict, finish: str = "stop") -> dict:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def tool_reply(name: str, arguments: str) -> dict:
    call = {"id": "call_1", "type": "function", "function": {"name": name, "arguments": arguments}}
    return completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls")


class Server:
    """Answers each request with `reply(body) -> (status, json)` and records the bodies."""

    def __init__(self, reply: Callable[[dict], tuple[int, dict]]) -> None:
        self.reply, self.bodies = reply, []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.bodies.append(body)
        status, data = self.reply(body)
        return httpx.Response(status, json=data)

    def model(
        self, *, base_url: str | None = "http://server.test/v1", **fields
    ) -> OpenAICompatibleChat:
        client = httpx.Client(transport=httpx.MockTransport(self))
        return OpenAICompatibleChat(
            model="m", base_url=base_url, api_key="k", max_retries=0, http_client=client, **fields
        )


VERDICT_JSON = '{"needs_retry": true, "confidence": 0.4, "reasons": ["no source"]}'


def test_json_schema_structured_output_from_the_openai_shape():
    server = Server(lambda body: (200, recorded("json_schema_completion.json")))
    model = server.model(base_url=None)
    out = ask_structured(model, Verdict, "Judge: Nick Park.")
    assert out == Verdict(
        needs_retry=False, confidence=0.86, reasons=["names the creator", "cites the studio"]
    )
    fmt = server.bodies[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "Verdict"
    assert "properties" in fmt["json_schema"]["schema"] and len(server.bodies) == 1


def test_a_server_that_rejects_json_schema_falls_back_to_function_calling_once():
    def reply(body: dict) -> tuple[int, dict]:
        if body.get("response_format", {}).get("type") == "json_schema":
            return 500, recorded("llama_cpp_python_json_schema_500.json")
        return 200, tool_reply("Verdict", VERDICT_JSON)

    server = Server(reply)
    model = server.model()
    assert ask_structured(model, Verdict, "Judge.").needs_retry is True
    assert [("response_format" in b, "tools" in b) for b in server.bodies] == [
        (True, False),
        (False, True),
    ]
    assert server.bodies[1]["tool_choice"] == {"type": "function", "function": {"name": "Verdict"}}
    ask_structured(model, Verdict, "Judge again.")  # remembered: one request, by function calling
    assert len(server.bodies) == 3 and "tools" in server.bodies[2]


def test_a_server_ignoring_tools_gets_json_mode_with_the_schema_stated():
    def reply(body: dict) -> tuple[int, dict]:
        if body.get("response_format", {}).get("type") == "json_schema":
            return 400, {"error": {"message": "response_format json_schema is not supported"}}
        if "tools" in body:
            return 200, completion({"role": "assistant", "content": "I think it is fine."})
        return 200, completion({"role": "assistant", "content": VERDICT_JSON})

    server = Server(reply)
    out = ask_structured(server.model(), Verdict, "Judge.")
    assert out == Verdict(needs_retry=True, confidence=0.4, reasons=["no source"])
    last = server.bodies[-1]
    assert last["response_format"] == {"type": "json_object"}
    assert "needs_retry" in last["messages"][0]["content"]  # the schema is in the system turn


def test_a_forced_method_is_the_only_one_tried():
    server = Server(lambda body: (200, tool_reply("Verdict", VERDICT_JSON)))
    model = server.model(structured_method="function_calling")
    assert ask_structured(model, Verdict, "Judge.") is not None
    assert len(server.bodies) == 1 and "response_format" not in server.bodies[0]


def test_function_arguments_cut_at_the_budget_are_closed():
    cut = '{"needs_retry": false, "confidence": 0.7, "reasons": ["cites Aardm'
    server = Server(lambda body: (200, tool_reply("Verdict", cut)))
    out = ask_structured(server.model(structured_method="function_calling"), Verdict, "Judge.")
    assert out == Verdict(needs_retry=False, confidence=0.7, reasons=["cites Aardm"])


def test_parallel_tool_calls_from_the_openai_shape():
    server = Server(lambda body: (200, recorded("parallel_tool_calls.json")))
    message = server.model(base_url=None).bind_tools([search_corpus]).invoke("Who? When?")
    assert [(c["name"], c["args"]["query"], c["id"]) for c in message.tool_calls] == [
        ("search_corpus", "Wallace and Gromit creator", "call_8sA0fE7zQpXc2vB1nM4kL9dR"),
        ("search_corpus", "Aardman Animations founded", "call_3hT6yU2iO9pA5sD7fG1jK0lZ"),
    ]
    assert server.bodies[0]["tools"][0]["function"]["name"] == "search_corpus"
    assert "tool_choice" not in server.bodies[0]  # OpenAI itself: native tool calling


def test_named_act_tool_on_a_server_becomes_a_real_tool_call():
    args = '{"tool": "search_corpus", "args": {"query": "Wallace and Gromit"}}'
    server = Server(lambda body: (200, tool_reply("act", args)))
    history = [
        HumanMessage("Who created Wallace and Gromit?"),
        AIMessage("", tool_calls=[{"name": "search_corpus", "args": {"query": "W"}, "id": "c0"}]),
        ToolMessage("nothing found", tool_call_id="c0", name="search_corpus"),
    ]
    message = server.model().bind_tools([search_corpus]).invoke(history)
    assert [(c["name"], c["args"]) for c in message.tool_calls] == [
        ("search_corpus", {"query": "Wallace and Gromit"})
    ]
    sent = server.bodies[0]
    assert sent["tool_choice"] == {"type": "function", "function": {"name": "act"}}
    assert [t["function"]["name"] for t in sent["tools"]] == ["act"]
    assert {m["role"] for m in sent["messages"]} <= {"system", "user", "assistant"}
    assert "Result of tool search_corpus" in json.dumps(sent["messages"])


def test_tool_traffic_with_no_tools_bound_is_sent_as_plain_turns():
    """After its tool-step limit the executor asks with no tools; llama-cpp-python's server
    answers HTTP 500 to an assistant turn whose content is null (a raw tool call)."""
    server = Server(lambda body: (200, completion({"role": "assistant", "content": "Nick Park"})))
    history = [
        HumanMessage("Who created Wallace and Gromit?"),
        AIMessage("", tool_calls=[{"name": "search_corpus", "args": {"query": "W"}, "id": "c0"}]),
        ToolMessage("Nick Park created them.", tool_call_id="c0", name="search_corpus"),
        HumanMessage("Answer from what the tools returned."),
    ]
    assert server.model().invoke(history).text == "Nick Park"
    sent = server.bodies[0]["messages"]
    assert all(isinstance(m["content"], str) and "tool_calls" not in m for m in sent)
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert "Result of tool search_corpus" in sent[2]["content"]
    server.model(tool_mode="native").invoke(history)
    assert server.bodies[1]["messages"][1]["tool_calls"]  # forced native: sent as it is


def test_a_recorded_final_answer_cut_at_its_budget_is_text():
    server = Server(lambda body: (200, recorded("llama_cpp_python_named_tool_call.json")))
    message = server.model().bind_tools([search_corpus]).invoke("Who created Wallace and Gromit?")
    assert not message.tool_calls
    assert message.text.startswith("The original creation of Wallace and Gromit")


def test_native_tool_mode_sends_auto_as_is():
    server = Server(lambda body: (200, recorded("parallel_tool_calls.json")))
    message = server.model(tool_mode="native").bind_tools([search_corpus]).invoke("Who?")
    assert (
        len(message.tool_calls) == 2
        and server.bodies[0]["tools"][0]["function"]["name"] == "search_corpus"
    )


def test_context_overflow_is_learned_and_the_prompt_cut_to_fit():
    def reply(body: dict) -> tuple[int, dict]:
        size = sum(len(m["content"]) for m in body["messages"])
        if size > 2048 * 3:
            return 400, recorded("llama_cpp_python_context_400.json")
        return 200, completion({"role": "assistant", "content": "ok"})

    server = Server(reply)
    model = server.model()
    assert model.context_window == 4096  # unknown: the cautious default
    assert model.invoke("word " * 3000).text == "ok"
    assert model.context_window == 2048 and len(server.bodies) == 2
    assert "[cut to fit]" in server.bodies[1]["messages"][0]["content"]


def test_servers_get_max_tokens_by_its_old_name():
    from core.output_limits import with_max_tokens

    server = Server(lambda body: (200, completion({"role": "assistant", "content": "ok"})))
    with_max_tokens(server.model(), 32).invoke("hi")
    assert server.bodies[0]["max_tokens"] == 32 and "max_completion_tokens" not in server.bodies[0]


def test_token_counts_exact_for_openai_names_estimated_for_servers():
    server = Server(lambda body: (200, {}))
    assert server.model(base_url=None, model_name="gpt-4o").get_num_tokens("hello world") == 2
    estimate = server.model()
    assert estimate.token_counts_are_estimates and estimate.get_num_tokens("hello world") == 4


def test_unreachable_server_during_a_call_is_model_unavailable():
    model = OpenAICompatibleChat(
        model="m", base_url="http://127.0.0.1:9/v1", api_key="k", max_retries=0, timeout=5
    )
    with pytest.raises(ModelUnavailable, match="cannot be reached"):
        model.invoke("hi")
