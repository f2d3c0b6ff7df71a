"""A stand-in for llama_cpp.Llama: records each request and replies from a script, no weights."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


class FakeLlama:
    """`create_chat_completion` answers with the next scripted text (chunked when streaming).

    Tokens are whitespace-separated words, so a reply of N words streams as N chunks.
    """

    def __init__(self, replies: list[str] | None = None, *, finish_reason: str = "stop") -> None:
        self.replies = list(replies or ["Hello there, friend."])
        self.finish_reason = finish_reason
        self.requests: list[dict[str, Any]] = []

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        return list(range(len(text.split())))

    def _next(self) -> str:
        return self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]

    def create_chat_completion(self, **params: Any) -> Any:
        self.requests.append(params)
        text = self._next()
        if params.get("stream"):
            return self._chunks(text)
        words = len(text.split())
        return {
            "choices": [{"message": {"content": text}, "finish_reason": self.finish_reason}],
            "usage": {"prompt_tokens": 7, "completion_tokens": words, "total_tokens": 7 + words},
        }

    def _chunks(self, text: str) -> Iterator[dict[str, Any]]:
        words = text.split(" ")
        yield {"choices": [{"delta": {"role": "assistant"}, "finish_reason": None}]}
        for i, word in enumerate(words):
            piece = word if i == 0 else " " + word
            yield {"choices": [{"delta": {"content": piece}, "finish_reason": None}]}
        yield {"choices": [{"delta": {}, "finish_reason": self.finish_reason}]}


def fake_local_model(llama: FakeLlama, **fields: Any) -> Any:
    """A LocalChatModel wired to `llama` (nothing is loaded)."""
    from core.local_model import LocalChatModel

    model = LocalChatModel(model_path="fake.gguf", **fields)
    model._llama = llama
    return model
