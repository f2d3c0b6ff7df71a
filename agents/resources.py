"""What nodes take from outside the graph: chat models, the run's memory, the run's tools.

Memory is `runtime.store` (LangGraph's Store) seen through memory.agent_memory.AgentMemory, for
the research and the web nodes alike: the CLI and the evaluations compile the graphs with the
project's persistent store (memory.stores.project_store.open_project_store), `langgraph dev`
injects its own store, and a graph compiled with none runs with memory off. Tools are built per
attempt and closed after it (no process-wide registry; chromium starts only if a browser tool
is used). Models are cached per process by core.models.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

from core import models
from core.context import Context
from core.web_context import WebAgentContext
from memory.agent_memory import AgentMemory


def chat_model(spec: str) -> BaseChatModel:
    """Indirection so tests that patch core.models.get_chat_model swap every node's model."""
    return models.get_chat_model(spec)


def memory(runtime: Runtime[Context] | Runtime[WebAgentContext]) -> AgentMemory:
    """This run's reflections, trajectories and workflows, through `runtime.store`."""
    ctx = runtime.context
    return AgentMemory(runtime.store, ctx.memory_namespace, min_relevance=ctx.min_relevance)


@contextmanager
def open_tools(ctx: Context) -> Iterator[list[BaseTool]]:
    """The executor's tools for one attempt (corpus search, Tavily with a key, the browser),
    closed when the attempt ends, so parallel tasks never share a browser page."""
    from agents.tools import build_tools

    tools, toolset = build_tools(
        corpus_dir=ctx.corpus_dir, use_browser=ctx.use_browser, allowed_origins=ctx.allowed_origins
    )
    try:
        yield tools
    finally:
        toolset.close()


def embeddings(ctx: Context | WebAgentContext):
    """The embeddings memory search uses ('local', 'provider:model', or 'hashing' for tests)."""
    return models.get_embeddings(ctx.embedding_model)
