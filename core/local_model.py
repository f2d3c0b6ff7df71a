"""The embedded offline chat model: a GGUF from core.model_catalogue (or a file) on llama.cpp.

A LangChain `BaseChatModel`, so every node treats it like any other model. Small models drift
from a format, so output is constrained by JSON-schema grammars wherever structure is needed:
- `with_structured_output(Schema)` emits JSON valid for the schema (lists bounded, which stops
  the runaway repetition small models fall into);
- `bind_tools(tools)` makes each turn a choice between one tool call and a final answer.

Each call's output limit is `max_tokens`, per call with `model.bind(max_tokens=…)` or a copy
from core.output_limits.with_max_tokens. `.stream()`/`.astream()` yield token chunks (a final
answer chosen under `bind_tools` streams as text, a tool call arrives whole); async calls run
llama.cpp in a worker thread, never on the event loop. Each `load` loads the weights (its
owner, core.models.Models, builds each spec once); calls to one loaded model are serialised
by its lock, so `.batch` and concurrent `ainvoke` are safe.

Each call samples with a seed drawn from `seed` and the call's own request (core.local_seed),
so what a call says depends on what it is asked, not on which calls came before it in the
process: a run repeats. A caller asking again on purpose names the round
(`core.local_seed.sample_round`) and gets a new sample. `seed=None` restores
llama-cpp-python's default, where each call's seed follows from the previous call's.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, Field, PrivateAttr

from core.gguf_weights import discard, q8_0_weights
from core.llama_runtime import load_llama
from core.local_chat import (
    fit_to_context,
    merge_same_role,
    to_chat_messages,
    tool_message,
    tools_prompt,
)
from core.local_schema import bounded_schema, tool_choice_schema
from core.local_seed import request_seed
from core.local_stream import AnswerStreamer, stream_in_worker
from core.model_assembly import model_path
from core.model_catalogue import is_file_name, lookup
from core.model_errors import LocalModelUnavailable, ModelSpecError

__all__ = ["LocalChatModel", "LocalModelUnavailable"]


@dataclass
class _Request:
    params: dict[str, Any]  # create_chat_completion's arguments
    tools: bool  # the reply is a tool choice (JSON) to turn into tool_calls


def default_threads() -> int:
    """llama.cpp's threads: OMP_NUM_THREADS when set to a positive number (Ray sets it to a
    worker's CPUs, so two workers on two cores run one thread each instead of four fighting
    over two cores), else 2."""
    try:
        threads = int(os.environ.get("OMP_NUM_THREADS", ""))
    except ValueError:
        return 2
    return min(threads, os.cpu_count() or threads) if threads > 0 else 2


class LocalChatModel(BaseChatModel):
    """An embedded GGUF model via llama-cpp-python; offline, no key."""

    model_path: str
    model_name: str = ""  # the catalogue name (or the file's name) it was loaded as
    n_ctx: int = 4096
    n_threads: int = Field(default_factory=default_threads)
    max_tokens: int = 320
    temperature: float = 0.2
    repeat_penalty: float = 1.0  # catalogue models: their entry's (core.model_catalogue)
    seed: int | None = 7  # the base of each call's own seed (module docstring); None: chained
    model_config = ConfigDict(arbitrary_types_allowed=True)
    _llama: Any = PrivateAttr(default=None)

    @classmethod
    def load(
        cls, name: str | None = None, *, weights: str | None = None, **kwargs: Any
    ) -> LocalChatModel:
        """An embedded model by catalogue name (None or "": the default; core.model_catalogue),
        or any GGUF file by path. `weights="q8_0"` runs a Q8_0 copy made once
        (core.gguf_weights), "as-is" the file; each catalogue entry has its own default."""
        if name and is_file_name(name):
            source, default_weights, label = Path(name), "as-is", Path(name).name
            if not source.is_file():
                raise ModelSpecError(f"no GGUF file at {name!r}")
        else:
            entry = lookup(name or "")
            source, default_weights, label = model_path(entry), entry.weights, entry.name
            kwargs.setdefault("n_ctx", entry.n_ctx)
            kwargs.setdefault("repeat_penalty", entry.repeat_penalty)
        chosen = q8_0_weights(source) if (weights or default_weights) == "q8_0" else source
        model = cls(model_path=str(chosen), model_name=label, **kwargs)
        try:
            model._llama = load_llama(model.model_path, model.n_ctx, model.n_threads)
        except ValueError as exc:
            if chosen == source or "Failed to load model" not in str(exc):
                raise  # not the copy's fault (e.g. a context too large to allocate)
            discard(chosen, source)
            return cls.load(str(source), weights="as-is", **kwargs)
        return model

    @property
    def _llm_type(self) -> str:
        return "local-llama-cpp"

    @property
    def context_window(self) -> int:
        return self.n_ctx

    @property
    def _call_lock(self) -> threading.Lock:
        return self._llama.call_lock  # one lock per loaded model: llama.cpp is not thread-safe

    def forget_kept_tokens(self) -> None:
        """Read the next prompt whole, keeping none of the last call's tokens. A kept prefix
        is read in other batches than a whole prompt, and the float sums differ in their last
        bits; where two tokens are nearly tied, that changes the answer: a caller that needs
        one request to answer the same whatever came before calls this first."""
        if self._llama is not None:
            with self._call_lock:
                self._llama.reset()

    def get_num_tokens(self, text: str) -> int:
        """Counted with the GGUF's own tokenizer, so budgets are exact for this model."""
        return len(self._llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=formatted, tool_choice=tool_choice, **kwargs)

    def with_structured_output(self, schema: Any, *, include_raw: bool = False, **kwargs: Any):
        from core.local_schema import structured_runnable

        return structured_runnable(self, schema, include_raw=include_raw)

    def _request(self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any):
        chat = to_chat_messages(messages)
        tools = kwargs.get("tools") or []
        schema = kwargs.get("json_schema")
        use_tools = bool(tools) and kwargs.get("tool_choice") != "none"
        if use_tools:
            chat = merge_same_role([{"role": "system", "content": tools_prompt(tools)}, *chat])
            force = kwargs.get("tool_choice") in ("any", "required")
            schema = tool_choice_schema(tools, force=force)
        limit = int(kwargs.get("max_tokens") or self.max_tokens)
        params: dict[str, Any] = {
            "messages": fit_to_context(chat, self.n_ctx - limit - 64, self.get_num_tokens),
            "max_tokens": limit,
            "temperature": self.temperature,
            "repeat_penalty": self.repeat_penalty,
            "stop": stop,
        }
        if schema is not None:
            bounded = bounded_schema(schema, keep_lengths=use_tools)  # tool arguments' bounds
            params["response_format"] = {"type": "json_object", "schema": bounded}
        if self.seed is not None:
            params["seed"] = request_seed(self.seed, params)
        return _Request(params, use_tools)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        request = self._request(messages, stop, **kwargs)
        with self._call_lock:
            out = self._llama.create_chat_completion(**request.params)
        choice, usage = out["choices"][0], out.get("usage", {})
        text = choice["message"]["content"] or ""
        message = tool_message(text) if request.tools else AIMessage(content=text)
        message.usage_metadata = _usage(
            usage.get("prompt_tokens", 0),
            usage.get("completion_tokens", 0),
            getattr(self._llama, "last_cached", 0),
        )
        message.response_metadata = {
            "finish_reason": choice.get("finish_reason"),
            "max_tokens": request.params["max_tokens"],
        }
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        yield from self._stream_until(threading.Event(), messages, stop, **kwargs)

    def _stream_until(
        self, halt: threading.Event, messages: list[BaseMessage], stop: Any, **kwargs: Any
    ) -> Iterator[ChatGenerationChunk]:
        """Token chunks until done or `halt` is set; the lock is held only while generating."""
        request = self._request(messages, stop, **kwargs)
        answer, text, finish = AnswerStreamer(), "", None
        with self._call_lock:
            chunks = self._llama.create_chat_completion(**request.params, stream=True)
            try:
                for chunk in chunks:
                    choice = chunk["choices"][0]
                    finish = choice.get("finish_reason") or finish
                    piece = choice.get("delta", {}).get("content") or ""
                    text += piece
                    # one chunk per token, so a live display can count tokens even for a tool call
                    shown = answer.feed(piece) if request.tools else piece
                    yield ChatGenerationChunk(message=AIMessageChunk(content=shown))
                    if halt.is_set():
                        break
            finally:
                close = getattr(chunks, "close", None)
                if close is not None:
                    close()  # ends llama.cpp's generation before the lock is released
            prompt_tokens, output_tokens = self._llama.last_usage
            cached = getattr(self._llama, "last_cached", 0)
        last = answer.finish(tool_message(text)) if request.tools else AIMessageChunk(content="")
        last.usage_metadata = _usage(prompt_tokens, output_tokens, cached)
        last.response_metadata = {
            "finish_reason": finish,
            "max_tokens": request.params["max_tokens"],
        }
        yield ChatGenerationChunk(message=last)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        def produce(halt: threading.Event) -> Iterator[ChatGenerationChunk]:
            return self._stream_until(halt, messages, stop, **kwargs)

        async for chunk in stream_in_worker(produce):
            yield chunk

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        # llama.cpp blocks for seconds: run it in a worker thread so the event loop stays free
        return await asyncio.to_thread(self._generate, messages, stop, None, **kwargs)


def _usage(prompt_tokens: int, output_tokens: int, cached: int = 0) -> Any:
    """LangChain's usage record; `cached`: prompt tokens the model kept from its last call."""
    return {
        "input_tokens": prompt_tokens,
        "output_tokens": output_tokens,
        "total_tokens": prompt_tokens + output_tokens,
        "input_token_details": {"cache_read": cached},
    }
