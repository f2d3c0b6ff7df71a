"""Tool calling for servers that ignore `tool_choice: auto`: one named `act` tool per step.

Many OpenAI-compatible servers (llama-cpp-python's among them) make no tool call when asked
with `auto` or `required`, but do honour a *named* tool choice, and constrain its arguments to
the tool's JSON schema. So each step offers one tool, `act`, whose arguments are the embedded
model's tool-choice schema — `{"tool": NAME, "args": {...}}` or `{"final_answer": TEXT}` — and
names it; the reply is turned back into ordinary tool calls or a final answer. Earlier tool
traffic is sent as plain text turns (servers' chat templates often cannot render it), also
in a call with no tools bound.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    convert_to_messages,
)
from langchain_core.prompt_values import PromptValue

from core.local_chat import to_chat_messages, tools_prompt
from core.local_schema import bounded_schema, parse_json_prefix, tool_choice_schema

ACT = "act"
_ROLE = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}


def act_tool(tools: list[dict[str, Any]], *, force: bool) -> dict[str, Any]:
    """The one tool offered: choose a tool and its arguments, or (unless forced) answer."""
    names = ", ".join(t["function"]["name"] for t in tools)
    return {
        "type": "function",
        "function": {
            "name": ACT,
            "description": f"Take the next step: call one of the tools ({names})"
            + ("." if force else ", or give the final answer."),
            "parameters": bounded_schema(tool_choice_schema(tools, force=force)),
        },
    }


def plain_history(value: Any, tools: list[dict[str, Any]]) -> list[BaseMessage]:
    """The conversation as plain turns, led by a system turn that lists the tools."""
    if isinstance(value, PromptValue):
        messages = value.to_messages()
    elif isinstance(value, str):
        messages = [HumanMessage(value)]
    else:
        messages = convert_to_messages(value)
    return plain_turns([SystemMessage(tools_prompt(tools)), *messages])


def has_tool_traffic(messages: list[BaseMessage]) -> bool:
    return any(isinstance(m, ToolMessage) or getattr(m, "tool_calls", None) for m in messages)


def plain_turns(messages: list[BaseMessage]) -> list[BaseMessage]:
    """Tool calls and results as plain text turns. Also for a call with no tools bound (the
    executor's answer after its tool-step limit): such servers reject tool traffic sent raw
    (llama-cpp-python's: HTTP 500, an assistant turn's `content` must be a string)."""
    return [_ROLE[m["role"]](m["content"]) for m in to_chat_messages(messages)]


def _act_calls(message: AIMessage) -> list[dict[str, Any]]:
    """Tool calls, with arguments cut at the token budget closed (they arrive as invalid)."""
    calls: list[dict[str, Any]] = [dict(c) for c in message.tool_calls]
    for bad in message.invalid_tool_calls:
        args = parse_json_prefix(bad.get("args") or "")
        if isinstance(args, dict) and bad.get("name"):
            calls.append({"name": bad["name"], "args": args, "id": bad.get("id") or ""})
    return calls


def unwrap_act(message: AIMessage) -> AIMessage:
    """`act` calls → the chosen tool calls, or the final answer as text."""
    calls, answers = [], []
    for call in _act_calls(message):
        args = call.get("args") or {}
        if call["name"] != ACT:
            calls.append(call)  # a server that called a real tool anyway
        elif isinstance(args.get("tool"), str):
            calls.append({"name": args["tool"], "args": args.get("args") or {}, "id": call["id"]})
        elif "final_answer" in args:
            answers.append(str(args["final_answer"]))
    content = "\n".join(answers) if answers and not calls else message.text
    return AIMessage(
        content=content,
        tool_calls=calls,
        id=message.id,
        usage_metadata=message.usage_metadata,
        response_metadata=message.response_metadata,
    )
