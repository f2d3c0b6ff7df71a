"""Streaming helpers for the embedded model: answer text out of a streamed tool choice, and a
worker thread that feeds an async consumer without blocking its event loop."""

from __future__ import annotations

import asyncio
import contextvars
import json
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk
from langchain_core.utils.json import parse_partial_json

_ANSWER_PREFIX = '{"final_answer"'


class AnswerStreamer:
    """Feeds on the JSON text of a tool choice; returns the final answer's new characters.

    A tool choice streams nothing (its arguments are only usable whole); a final answer
    `{"final_answer": "..."}` streams as plain text, so a live display shows the answer, not JSON.
    """

    def __init__(self) -> None:
        self.text = ""
        self.sent = ""

    def _answer(self) -> str | None:
        if not "".join(self.text.split()).startswith(_ANSWER_PREFIX):
            return None  # a tool call, or too early to tell
        try:
            data = parse_partial_json(self.text, strict=False)
        except json.JSONDecodeError:
            return None
        answer = data.get("final_answer") if isinstance(data, dict) else None
        return answer if isinstance(answer, str) else None

    def feed(self, piece: str) -> str:
        self.text += piece
        answer = self._answer()
        if answer is None or not answer.startswith(self.sent):
            return ""
        new, self.sent = answer[len(self.sent) :], answer
        return new

    def finish(self, message: AIMessage) -> AIMessageChunk:
        """The closing chunk: the rest of the answer, or the whole tool call."""
        if message.tool_calls:
            call = message.tool_calls[0]
            return AIMessageChunk(
                content="",
                tool_call_chunks=[
                    {
                        "name": call["name"],
                        "args": json.dumps(call["args"]),
                        "id": call["id"],
                        "index": 0,
                    }
                ],
            )
        answer = message.text
        rest = answer[len(self.sent) :] if answer.startswith(self.sent) else ""
        return AIMessageChunk(content=rest)


_DONE = object()


class _Failed:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


async def stream_in_worker(
    produce: Callable[[threading.Event], Iterator[ChatGenerationChunk]],
) -> AsyncIterator[ChatGenerationChunk]:
    """Run a blocking chunk generator in a worker thread and yield its chunks asynchronously.

    `produce(stop)` must check `stop` between tokens: a consumer that stops early (or is
    cancelled) sets it, so the worker ends its generation and releases the model.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    stop = threading.Event()

    def put(item: Any) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop closed: the consumer is gone
            stop.set()

    def work() -> None:
        try:
            for chunk in produce(stop):
                put(chunk)
                if stop.is_set():
                    break
        except BaseException as exc:  # handed to the consumer, raised there
            put(_Failed(exc))
        finally:
            put(_DONE)

    # the caller's context goes along (core.local_seed's sample round is read there)
    context = contextvars.copy_context()
    threading.Thread(target=context.run, args=(work,), name="llama-stream", daemon=True).start()
    try:
        while (item := await queue.get()) is not _DONE:
            if isinstance(item, _Failed):
                raise item.exc
            yield item
    finally:
        stop.set()
