"""A stand-in for llama_cpp.Llama: records each request and replies from a script, no weights."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any


class FakeLlama:
    """`create_chat_completion` answers with the next scripted text (chunked when streaming).

    Tokens are space-separated words, so a reply of N words streams as N chunks; `delay`
    seconds pass before each chunk (a slow model); `max_active` records overlapping calls.
    """

    def __init__(
        self, replies: list[str] | None = None, *, finish_reason: str = "stop", delay: float = 0.0
    ) -> None:
        self.replies = list(replies or ["Hello there, friend."])
        self.finish_reason = finish_reason
        self.delay = delay
        self.requests: list[dict[str, Any]] = []
        self.call_lock = threading.Lock()
        self.last_usage = (0, 0)
        self.active = self.max_active = 0
        self._count = threading.Lock()

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        return list(range(len(text.split())))

    def _next(self) -> str:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def _enter(self) -> None:
        with self._count:
            self.active += 1
            self.max_active = max(self.max_active, self.active)

    def _leave(self) -> None:
        with self._count:
            self.active -= 1

    def create_chat_completion(self, **params: Any) -> Any:
        self.requests.append(params)
        text = self._next()
        words = len(text.split())
        self.last_usage = (7, words)
        if params.get("stream"):
            return self._chunks(text)
        self._enter()
        time.sleep(self.delay * words)
        self._leave()
        return {
            "choices": [{"message": {"content": text}, "finish_reason": self.finish_reason}],
            "usage": {"prompt_tokens": 7, "completion_tokens": words, "total_tokens": 7 + words},
        }

    def _chunks(self, text: str) -> Iterator[dict[str, Any]]:
        self._enter()
        try:
            yield {"choices": [{"delta": {"role": "assistant"}, "finish_reason": None}]}
            for i, word in enumerate(text.split(" ")):
                time.sleep(self.delay)
                piece = word if i == 0 else " " + word
                yield {"choices": [{"delta": {"content": piece}, "finish_reason": None}]}
            yield {"choices": [{"delta": {}, "finish_reason": self.finish_reason}]}
        finally:
            self._leave()


def fake_local_model(llama: FakeLlama, **fields: Any) -> Any:
    """A LocalChatModel wired to `llama` (nothing is loaded)."""
    from core.local_model import LocalChatModel

    model = LocalChatModel(model_path="fake.gguf", **fields)
    model._llama = llama
    return model
