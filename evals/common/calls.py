"""What an evaluation counts of a job's model calls: how many, and the tokens they report."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult


class CallCounter(BaseCallbackHandler):
    """Counts model calls (chat and completion) in everything it is passed to, and the tokens
    they report: read (prompt), of those read from the model's cache, and written."""

    def __init__(self) -> None:
        self.calls = 0
        self.prompt_tokens = self.cached_tokens = self.output_tokens = 0

    def on_chat_model_start(self, *args: Any, **kwargs: Any) -> None:
        self.calls += 1

    def on_llm_start(self, *args: Any, **kwargs: Any) -> None:
        self.calls += 1

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        for generations in response.generations:
            for generation in generations:
                usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
                if usage:
                    self.prompt_tokens += int(usage.get("input_tokens") or 0)
                    self.output_tokens += int(usage.get("output_tokens") or 0)
                    details = usage.get("input_token_details") or {}
                    self.cached_tokens += int(details.get("cache_read") or 0)

    def tokens(self) -> dict[str, int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "cached_tokens": self.cached_tokens,
            "output_tokens": self.output_tokens,
        }
