"""Memory for one prompt under a token budget: workflows, then concrete exemplars, then others.

A prompt builder calls `budgeted_memory` with its system text and query; it gets the memory text
that fits the active model's context (minus a response reserve) and how many of each kind
were used. Any other memory (e.g. reflections) is passed as extra `MemoryGroup`s.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from memory.budget import MemoryGroup, PackResult, context_window, pack, token_counter
from memory.workflows.format import format_workflow
from memory.workflows.retrieval import retrieve


def budgeted_memory(
    query: str,
    *,
    system: str,
    home: str | Path,
    embeddings: Embeddings | None,
    model: Any = None,
    spec: str | None = None,
    k_workflows: int = 8,
    website: str | None = None,
    exemplars: Sequence[str] = (),
    extra_groups: Sequence[MemoryGroup[Any]] = (),
    response_reserve: int = 512,
) -> PackResult:
    """Pack up to `k_workflows` relevant workflows (nearest first), then `exemplars`, then
    `extra_groups`, so that system + memory + query fits `model`'s context window.

    `result.text` is the memory section; `result.counts()` e.g. {'workflows': '3/8', …}.
    """
    hits = []
    if k_workflows > 0:
        mode = "semantic" if embeddings is not None else "first"
        hits = retrieve(
            query, home=home, k=k_workflows, mode=mode, embeddings=embeddings, website=website
        )
    groups: list[MemoryGroup[Any]] = [
        MemoryGroup("workflows", [h.workflow for h in hits], format_workflow),
        MemoryGroup("exemplars", list(exemplars), str),
        *extra_groups,
    ]
    return pack(
        groups,
        system=system,
        query=query,
        context_window=context_window(model, spec),
        response_reserve=response_reserve,
        count=token_counter(model, spec),
    )
