"""The embeddings behind `langgraph dev`'s Store index (langgraph.json → store.index.embed).

With this index the dev server's store does vector search itself, so the graphs' memory
retrieval (memory/agent_memory.py) works in LangGraph Studio as it does in the CLI. The model
is $AGENT_EMBEDDING_MODEL (default 'local': all-MiniLM-L6-v2, 384 dimensions, loaded on first
use); a model with another dimension needs `store.index.dims` changed to match.
"""

from __future__ import annotations

import os

DIMS = 384


def embed(texts: list[str]) -> list[list[float]]:
    from core.models import get_embeddings

    return get_embeddings(os.environ.get("AGENT_EMBEDDING_MODEL") or "local").embed_documents(
        list(texts)
    )
