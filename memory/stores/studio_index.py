"""The embeddings behind `langgraph dev`'s Store index (langgraph.json → store.index.embed).

With this index the dev server's store does vector search itself, so the graphs' memory
retrieval (memory/agent_memory.py) works in LangGraph Studio as it does in the CLI. The model
is $AGENT_EMBEDDING_MODEL (default 'local': all-MiniLM-L6-v2, 384 dimensions, loaded on first
use); a model with another dimension needs `store.index.dims` changed to match.
"""

from __future__ import annotations

import os

from core.models import Models

DIMS = 384


class StudioEmbeddings:
    """The dev server's one embedder: langgraph.json names this module's `embed`, so the object
    lives as long as the server's store and loads its model on the first text."""

    def __init__(self) -> None:
        self._models = Models()

    def __call__(self, texts: list[str]) -> list[list[float]]:
        spec = os.environ.get("AGENT_EMBEDDING_MODEL") or "local"
        return self._models.embeddings(spec).embed_documents(list(texts))


embed = StudioEmbeddings()
