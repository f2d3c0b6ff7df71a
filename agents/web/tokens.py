"""The tokens a web decision spent: the usage its chat answers report, else a count with the
model's own tokenizer."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import ChatGeneration, LLMResult
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import ensure_config, merge_configs
from langgraph.constants import TAG_NOSTREAM

from memory.packing import approximate_tokens


class TokenTally(BaseCallbackHandler):
    """Sums usage_metadata of every chat answer (LangChain's own handler needs a model name)."""

    def __init__(self) -> None:
        self.total = 0

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        for generations in response.generations:
            for gen in generations:
                usage = getattr(getattr(gen, "message", None), "usage_metadata", None)
                if isinstance(gen, ChatGeneration) and usage:
                    self.total += int(usage.get("total_tokens", 0))


def tallied(tally: TokenTally) -> RunnableConfig:
    """The running node's config with `tally` added to its callbacks: a call made with it is
    counted and still reaches the run's own callbacks (a trace), which a config of
    `{"callbacks": [tally]}` alone would replace. Tagged `nostream`, as every structured call
    is (core.structured): a chat page streaming the graph's messages shows no plan or action
    JSON."""
    return merge_configs(ensure_config(), {"callbacks": [tally], "tags": [TAG_NOSTREAM]})


def estimate_tokens(model: BaseChatModel, messages: list[Any], output: str) -> int:
    """Tokens counted with the model's tokenizer when it reports no usage (e.g. fakes)."""
    # Only the local model's own tokenizer is trusted here: LangChain's default one downloads.
    count = model.get_num_tokens if hasattr(model, "context_window") else approximate_tokens
    return sum(count(m.text) for m in messages) + (count(output) if output else 0)
