"""What nodes take from outside the graph: chat models, the run's memory, the run's tools.

Memory is `runtime.store` (LangGraph's Store) seen through memory.agent_memory.AgentMemory, for
the research and the web nodes alike: the CLI and the evaluations compile the graphs with the
project's persistent store (memory.stores.project_store.open_project_store), `langgraph dev`
injects its own store, a store without a vector index is searched with the run's embeddings,
and a graph compiled with none runs with memory off (check_memory warns). Tools are built per
attempt and closed after it (chromium, and an MCP server, start only if one of its tools is
used). Models come from the run's context (`ctx.chat(role)`), which its owner supplies or
LangGraph makes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager

from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime

from core.context import Context
from core.web_context import WebAgentContext
from memory.agent_memory import AgentMemory
from memory.stores.owned import OwnedStore
from memory.unindexed import warn_memory_off


def memory(runtime: Runtime[Context] | Runtime[WebAgentContext]) -> AgentMemory:
    """This run's reflections, trajectories and workflows, through `runtime.store`; what it
    saves records the run's thread. A store without a vector index is searched with the run's
    embeddings (`embedding_model`), loaded only if a search needs them. A served run of an
    authenticated caller (`memory_owner`) sees only that caller's part of the store."""
    ctx, info = runtime.context, getattr(runtime, "execution_info", None)
    store = runtime.store
    if store is not None and ctx.memory_owner is not None:
        store = OwnedStore(store, ctx.memory_owner)
    return AgentMemory(
        store,
        ctx.memory_namespace,
        min_relevance=ctx.min_relevance,
        thread_id=getattr(info, "thread_id", None),
        embeddings=lambda: ctx.models.embeddings(ctx.embedding_model),
    )


def check_memory(runtime: Runtime[Context] | Runtime[WebAgentContext]) -> None:
    """At a run's start: a graph compiled without a store runs with memory off, which its
    user should hear about (a MemoryOffWarning), not find out from runs that never learn."""
    if runtime.store is None:
        warn_memory_off(
            "memory is off: the graph was compiled without a store, so this run neither "
            "recalls nor saves lessons; compile it with one: .compile(store=InMemoryStore())"
        )


def open_tools(ctx: Context) -> AbstractContextManager[list[BaseTool]]:
    """The executor's tools for one attempt, closed when the attempt ends (so parallel tasks
    never share a browser page): the run's own (`Context.tools`) when its owner gave some,
    else the configured ones."""
    return ctx.tools(ctx) if ctx.tools is not None else configured_tools(ctx)


@contextmanager
def configured_tools(ctx: Context) -> Iterator[list[BaseTool]]:
    """Corpus search over `corpus_dir` (indexed once per run), Tavily with a key, the browser,
    and the tools of the run's MCP servers (`mcp_servers`, listed once per run; a server
    starts on the first call of its tools and ends with the attempt)."""
    from agents.tools import build_tools

    with ExitStack() as stack:
        mcp: list[BaseTool] = []
        if ctx.mcp_servers:
            from agents.tools.mcp import mcp_tools

            mcp = stack.enter_context(mcp_tools(ctx.mcp_servers, ctx.cache))
        tools, toolset = build_tools(
            corpus_dir=ctx.corpus_dir,
            use_browser=ctx.use_browser,
            allowed_origins=ctx.allowed_origins,
            cache=ctx.cache,
        )
        stack.callback(toolset.close)
        yield [*tools, *mcp]
