"""Chat turns for the embedded model: LangChain messages → llama.cpp chat dicts, the tool
prompt, fitting a prompt into the context window, and a tool-choice JSON → AIMessage."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from core.local_schema import parse_json_prefix


def to_chat_messages(messages: list[BaseMessage]) -> list[dict[str, str]]:
    """LangChain messages → llama.cpp chat dicts; tool traffic becomes plain text turns."""
    out: list[dict[str, str]] = []
    for m in messages:
        if isinstance(m, ToolMessage):
            out.append({"role": "user", "content": f"Result of tool {m.name}:\n{m.text}"})
        elif isinstance(m, AIMessage) and m.tool_calls:
            calls = "; ".join(f"{c['name']}({json.dumps(c['args'])})" for c in m.tool_calls)
            out.append({"role": "assistant", "content": f"Calling {calls}"})
        else:
            role = {"human": "user", "ai": "assistant", "system": "system"}.get(m.type, "user")
            out.append({"role": role, "content": m.text})
    return merge_same_role(out)


def merge_same_role(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    """Join consecutive same-role turns: chat templates expect alternating turns."""
    merged: list[dict[str, str]] = []
    for m in messages:
        if merged and merged[-1]["role"] == m["role"]:
            merged[-1] = {
                "role": m["role"],
                "content": merged[-1]["content"] + "\n\n" + m["content"],
            }
        else:
            merged.append(dict(m))
    return merged


def tools_prompt(tools: list[dict[str, Any]]) -> str:
    """The system text that lists the tools and the JSON reply the grammar enforces."""
    lines = ["You can use these tools:"]
    for t in tools:
        fn = t["function"]
        args = ", ".join(fn.get("parameters", {}).get("properties", {}))
        lines.append(f"- {fn['name']}({args}): {fn.get('description', '').strip()[:200]}")
    lines.append(
        'Reply with JSON: {"tool": NAME, "args": {...}} to use a tool, or '
        '{"final_answer": TEXT} when you can answer.'
    )
    return "\n".join(lines)


def fit_to_context(
    chat: list[dict[str, str]], budget: int, count: Callable[[str], int]
) -> list[dict[str, str]]:
    """Shorten the longest turns until the prompt fits `budget` tokens.

    llama.cpp refuses a prompt over its context window; cutting the middle of the longest
    turn (usually retrieved evidence) keeps the instructions at both ends.
    """
    budget -= 16 * len(chat)  # the chat template's own tokens per turn
    chat = [dict(m) for m in chat]
    for _ in range(8):
        sizes = [count(m["content"]) for m in chat]
        excess = sum(sizes) - budget
        if excess <= 0:
            break
        longest = max(range(len(chat)), key=sizes.__getitem__)
        text = chat[longest]["content"]
        keep = max(0, len(text) - int(len(text) * (excess + 32) / max(sizes[longest], 1)))
        chat[longest]["content"] = (
            text[: keep // 2] + "\n…[cut to fit]…\n" + text[len(text) - keep // 2 :]
        )
    return chat


def tool_message(text: str) -> AIMessage:
    """Turn the grammar-constrained tool choice into an AIMessage with tool_calls.

    Output cut at its token budget is still a valid JSON prefix (the grammar guarantees it), so
    it is closed rather than passed on raw: raw JSON text leaked `{"final_answer": "` into answers.
    """
    data = parse_json_prefix(text)
    if data is None:
        return AIMessage(content=text)  # not JSON at all (no grammar was applied)
    if isinstance(data, dict) and "tool" in data:
        call = {
            "name": data["tool"],
            "args": data.get("args") or {},
            "id": f"call_{uuid.uuid4().hex[:12]}",
        }
        return AIMessage(content="", tool_calls=[call])
    answer = data.get("final_answer", "") if isinstance(data, dict) else text
    return AIMessage(content=str(answer))
