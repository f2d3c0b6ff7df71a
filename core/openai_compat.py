"""ChatOpenAI for OpenAI itself and for any OpenAI-compatible server (`openai:NAME@URL` specs).

What a real server needs beyond ChatOpenAI (spec options: core/model_spec.py):
- structured output by a method the server supports (core/server_structured.py);
- tool calling that works when the server ignores `auto` (core/server_tools.py);
- its context size: the spec's `ctx`, else what the server reports (core/server_probe.py),
  else learned from its "maximum context length is N" error (the prompt is then cut to fit and
  sent once more), else 4096 with a warning;
- token counts: exact for OpenAI's own models (bpe-openai's tables, offline), otherwise an
  estimate of 3 bytes a token that errs high (`token_counts_are_estimates` says which);
- one ModelUnavailable for a server that cannot be reached or does not answer in time.
All copies of one model (core.output_limits.with_max_tokens) share what was learned.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import openai
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.utils.function_calling import convert_to_openai_tool
from langchain_openai import ChatOpenAI
from pydantic import PrivateAttr

from core.local_chat import fit_to_context
from core.model_errors import ModelUnavailable
from core.server_structured import AdaptiveStructured, method_runnable
from core.server_tools import (
    ACT,
    act_tool,
    has_tool_traffic,
    plain_history,
    plain_turns,
    unwrap_act,
)

log = logging.getLogger(__name__)
DEFAULT_SERVER_CONTEXT = 4096
_LIMIT = re.compile(r"(?:maximum context length is|context window of|n_ctx\D{0,8})\s*(\d{3,})")
_ROLES = {"system": SystemMessage, "human": HumanMessage, "ai": AIMessage}


@dataclass
class ServerState:
    """Learned about the server, shared by every copy of the model."""

    structured_method: str | None = None
    rejected_methods: set[str] = field(default_factory=set)
    context: int | None = None  # reported by the server or learned from its error
    warned_context: bool = False


class OpenAICompatibleChat(ChatOpenAI):
    """ChatOpenAI that adapts to the server behind `base_url` (see the module docstring)."""

    structured_method: str | None = None  # forced by the spec's `structured=`
    tool_mode: str | None = None  # forced by the spec's `tools=`
    ctx: int | None = None  # the spec's `ctx=`
    _state: ServerState = PrivateAttr(default_factory=ServerState)

    @property
    def is_server(self) -> bool:
        return bool(self.openai_api_base)

    @property
    def tool_style(self) -> str:
        """How tools are offered: the spec's `tools=`, else one named tool on a server."""
        return self.tool_mode or ("named" if self.is_server else "native")

    @property
    def token_counts_are_estimates(self) -> bool:
        return self.is_server

    @property
    def context_window(self) -> int | None:
        """Tokens of context; None for OpenAI's own models (known by name in memory.packing)."""
        known = self.ctx or self._state.context
        if known or not self.is_server:
            return known
        if not self._state.warned_context:
            self._state.warned_context = True
            log.warning(
                "the server at %s does not report its context size; assuming %d tokens "
                "(add #ctx=N to the model spec to set it)",
                self.openai_api_base,
                DEFAULT_SERVER_CONTEXT,
            )
        return DEFAULT_SERVER_CONTEXT

    def remember_context(self, tokens: int | None) -> None:
        self._state.context = tokens or self._state.context

    def get_num_tokens(self, text: str) -> int:
        if not self.is_server:
            counter = _openai_counter(self.model_name)
            if counter is not None:
                return counter(text)
        return math.ceil(len(text.encode("utf-8")) / 3)  # an estimate that errs high

    def get_num_tokens_from_messages(self, messages: Any, tools: Any = None, **_: Any) -> int:
        return sum(4 + self.get_num_tokens(m.text) for m in messages) + 3

    def _get_request_payload(self, input_: Any, *, stop: Any = None, **kwargs: Any) -> dict:
        payload = super()._get_request_payload(input_, stop=stop, **kwargs)
        if self.is_server and "max_completion_tokens" in payload:
            # OpenAI renamed max_tokens; compatible servers (llama-cpp-python's) know the old name
            payload["max_tokens"] = payload.pop("max_completion_tokens")
        return payload

    # --- calls: connection errors become ModelUnavailable; an overflow is learned and retried ---

    def _sendable(self, messages: list[BaseMessage], kwargs: dict) -> list[BaseMessage]:
        """Tool traffic as plain turns when no tool is bound (core.server_tools.plain_turns)."""
        if self.tool_style == "native" or kwargs.get("tools") or not has_tool_traffic(messages):
            return messages
        return plain_turns(messages)

    def _unavailable(self, exc: Exception) -> ModelUnavailable:
        where = self.openai_api_base or "the OpenAI API"
        what = (
            "did not answer in time"
            if isinstance(exc, openai.APITimeoutError)
            else "cannot be reached"
        )
        return ModelUnavailable(
            f"the model server at {where} {what} ({exc}); start it, check the URL, or raise "
            "#timeout= in the model spec"
        )

    def _refit(
        self, exc: openai.BadRequestError, messages: list[BaseMessage], kwargs: dict
    ) -> list[BaseMessage]:
        match = _LIMIT.search(str(exc))
        if not match or not self.is_server:
            raise exc
        self.remember_context(int(match.group(1)))
        log.warning("the server's context is %s tokens; cutting the prompt to fit", match.group(1))
        reserve = int(kwargs.get("max_tokens") or self.max_tokens or 256) + 64
        chat = [
            {"role": m.type, "content": m.text}
            for m in messages
            if not getattr(m, "tool_calls", None)
        ]
        if len(chat) != len(messages):
            raise exc  # tool traffic cannot be cut safely here
        fitted = fit_to_context(chat, int(match.group(1)) - reserve, self.get_num_tokens)
        return [_ROLES.get(m["role"], HumanMessage)(m["content"]) for m in fitted]

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        messages = self._sendable(messages, kwargs)
        try:
            try:
                return super()._generate(messages, stop, run_manager, **kwargs)
            except openai.BadRequestError as exc:
                return super()._generate(
                    self._refit(exc, messages, kwargs), stop, run_manager, **kwargs
                )
        except openai.APIConnectionError as exc:
            raise self._unavailable(exc) from exc

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        messages = self._sendable(messages, kwargs)
        try:
            try:
                return await super()._agenerate(messages, stop, run_manager, **kwargs)
            except openai.BadRequestError as exc:
                fitted = self._refit(exc, messages, kwargs)
                return await super()._agenerate(fitted, stop, run_manager, **kwargs)
        except openai.APIConnectionError as exc:
            raise self._unavailable(exc) from exc

    def _stream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        messages = self._sendable(messages, kwargs)
        try:
            try:
                chunks = super()._stream(messages, stop, run_manager, **kwargs)
                first = next(chunks, None)  # the request is sent (and may be refused) here
            except openai.BadRequestError as exc:
                chunks = super()._stream(
                    self._refit(exc, messages, kwargs), stop, run_manager, **kwargs
                )
                first = next(chunks, None)
            if first is not None:
                yield first
                yield from chunks
        except openai.APIConnectionError as exc:
            raise self._unavailable(exc) from exc

    async def _astream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        messages = self._sendable(messages, kwargs)
        try:
            async for chunk in super()._astream(messages, stop, run_manager, **kwargs):
                yield chunk
        except openai.APIConnectionError as exc:
            raise self._unavailable(exc) from exc

    # --- structured output and tools ---

    def with_structured_output(
        self,
        schema: Any = None,
        *,
        method: Any = None,
        include_raw: bool = False,
        strict: bool | None = None,
        **kwargs: Any,
    ) -> Runnable:
        def build(chosen: str) -> Runnable:
            return method_runnable(self, schema, chosen, include_raw=include_raw)

        forced = method or self.structured_method
        name = getattr(schema, "__name__", "structured_output")
        return AdaptiveStructured(build, self._state, forced=forced).runnable(name)

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Runnable:
        mode = self.tool_style
        structured = "ls_structured_output_format" in kwargs  # function_calling: one named tool
        open_choice = tool_choice in (None, "auto", "any", "required")
        if mode == "native" or structured or not open_choice or not tools:
            return super().bind_tools(tools, tool_choice=tool_choice, **kwargs)
        formatted = [convert_to_openai_tool(t) for t in tools]
        force = tool_choice in ("any", "required")
        named = {"type": "function", "function": {"name": ACT}}
        bound = ChatOpenAI.bind_tools(
            self, [act_tool(formatted, force=force)], tool_choice=named, **kwargs
        )
        return (
            RunnableLambda(lambda value: plain_history(value, formatted), name="plain_history")
            | bound
            | RunnableLambda(unwrap_act, name="unwrap_act")
        )


@lru_cache(maxsize=8)
def _openai_counter(model_name: str) -> Any:
    """OpenAI's tokenizer for the model from bpe-openai's bundled tables; None if unavailable."""
    try:
        import bpe_openai
        from tiktoken.model import encoding_name_for_model

        try:
            encoding = encoding_name_for_model(model_name)
        except KeyError:
            encoding = "o200k_base"
        enc = bpe_openai.get_encoding(encoding)
    except (ImportError, KeyError, ValueError):
        return None
    return lambda text: len(enc.encode(text))
