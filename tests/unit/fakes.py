"""A scripted chat model for unit tests: answers by role, supports tools and structured output."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from core.local_schema import structured_runnable

# responder(prompt_text, schema_title_or_None, tool_names, messages) -> str | dict
Responder = Callable[[str, str | None, list[str], list[BaseMessage]], Any]


class ScriptedChatModel(BaseChatModel):
    """Calls `responder` with the prompt; a dict reply with "tool" becomes a tool call."""

    responder: Any
    calls: list[dict[str, Any]] = []
    context_window: int = 4096

    def get_num_tokens(self, text: str) -> int:
        return len(text) // 4 + 1

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools])

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:
        return structured_runnable(self, schema)

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        schema = kw.get("json_schema")
        title = schema.get("title") if schema else None
        tools = [t["function"]["name"] for t in kw.get("tools") or []]
        prompt = "\n".join(m.text for m in messages)
        self.calls.append({"title": title, "tools": tools, "prompt": prompt, "schema": schema})
        reply = self.responder(prompt, title, tools, messages)
        if isinstance(reply, dict) and "tool" in reply:
            call = {"name": reply["tool"], "args": reply.get("args", {}), "id": uuid.uuid4().hex}
            message = AIMessage(content="", tool_calls=[call])
        else:
            message = AIMessage(content=reply if isinstance(reply, str) else json.dumps(reply))
        return ChatResult(generations=[ChatGeneration(message=message)])


# Model-free embeddings for unit tests live with the memory code.
from core.embeddings import HashingEmbeddings as HashEmbeddings  # noqa: E402,F401
