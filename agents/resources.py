"""Per-process resources the nodes share, built once from the run's Context."""

from __future__ import annotations

from functools import lru_cache

from langchain_core.tools import BaseTool

from core import models
from core.context import Context
from core.web_context import WebAgentContext
from memory.reflections import ReflectionManager, open_reflection_manager


def reflection_manager(ctx: Context | WebAgentContext) -> ReflectionManager:
    """The reflection memory for this context's data directory and namespace."""
    # The reflector's model consolidates memory into insights once enough has piled up.
    return open_reflection_manager(
        ctx.home,
        ctx.embedding_model,
        ctx.memory_namespace,
        chat_model=chat_model(ctx.reflector_model),
    )


@lru_cache(maxsize=8)
def _tools(
    corpus_dir: str | None, use_browser: bool, allowed_origins: tuple[str, ...] = ()
) -> tuple[BaseTool, ...]:
    from agents.tools import build_tools

    tools, _ = build_tools(
        corpus_dir=corpus_dir, use_browser=use_browser, allowed_origins=allowed_origins
    )
    return tuple(tools)


def tools_for(ctx: Context) -> list[BaseTool]:
    """The executor's tools: corpus search, Tavily (with a key), the guarded browser."""
    return list(_tools(ctx.corpus_dir, ctx.use_browser, tuple(ctx.allowed_origins)))


def chat_model(spec: str):
    """Indirection so tests that patch core.models.get_chat_model swap every node's model."""
    return models.get_chat_model(spec)


def embeddings(ctx: Context | WebAgentContext):
    """The embeddings memory search uses ('local', 'provider:model', or 'hashing' for tests)."""
    from core.models import get_embeddings

    return get_embeddings(ctx.embedding_model)


def close_tools() -> None:
    """Close what the tools opened (the browser) at the end of a CLI run."""
    from agents.tools import close_all

    close_all()
    _tools.cache_clear()
