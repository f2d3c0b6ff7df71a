"""The one place that builds chat models and embeddings from `provider:model` strings.

Specs:
  local                          the embedded SmolLM2-135M-Instruct on llama.cpp (offline)
  openai:gpt-4o-mini             any provider init_chat_model knows
  openai:MODEL@http://host/v1    an OpenAI-compatible server at that base URL
Tests replace `get_chat_model` / `get_embeddings` to swap every model at once.
"""

from __future__ import annotations

import os
from functools import lru_cache

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel

from core.model_errors import ModelSpecError, ModelUnavailable

__all__ = ["LOCAL", "ModelSpecError", "ModelUnavailable", "get_chat_model", "get_embeddings"]
LOCAL = "local"


def _split_base_url(spec: str) -> tuple[str, str | None]:
    if "@" in spec:
        name, base_url = spec.split("@", 1)
        if not base_url.startswith(("http://", "https://")):
            raise ModelSpecError(f"base URL in {spec!r} must start with http:// or https://")
        return name, base_url
    return spec, None


@lru_cache(maxsize=16)
def get_chat_model(spec: str) -> BaseChatModel:
    """Build (once per process) the chat model named by `spec`."""
    spec = spec.strip()
    if spec == LOCAL or spec.startswith(LOCAL + ":"):
        from core.local_model import LocalChatModel

        return LocalChatModel.load(spec.partition(":")[2] or None)
    name, base_url = _split_base_url(spec)
    if ":" not in name:
        raise ModelSpecError(
            f"unknown model {spec!r}: use 'local' or 'provider:model', e.g. 'openai:gpt-4o-mini'"
        )
    provider, model = name.split(":", 1)
    kwargs: dict[str, object] = {"temperature": 0}
    if base_url:
        kwargs["base_url"] = base_url
        kwargs["api_key"] = os.environ.get("OPENAI_API_KEY", "not-needed")
    from langchain.chat_models import init_chat_model

    try:
        return init_chat_model(model, model_provider=provider, **kwargs)  # type: ignore[call-overload]
    except (ValueError, ImportError) as exc:
        raise ModelSpecError(f"cannot build model {spec!r}: {exc}") from exc
    except Exception as exc:  # provider clients raise their own types, e.g. for a missing key
        raise ModelSpecError(f"cannot build model {spec!r}: {exc}") from exc


@lru_cache(maxsize=4)
def get_embeddings(spec: str = LOCAL) -> Embeddings:
    """Build (once per process) the embeddings named by `spec`, cached per distinct text.

    'hashing' or 'hashing:DIM' is the model-free fake (tests, quick demos).
    """
    from core.embeddings import CachedEmbeddings, HashingEmbeddings, LocalEmbeddings

    if spec == "hashing" or spec.startswith("hashing:"):
        dim = spec.partition(":")[2]
        return HashingEmbeddings(int(dim) if dim else 256)
    if spec == LOCAL:
        return CachedEmbeddings(LocalEmbeddings(), name="local:all-MiniLM-L6-v2")
    from langchain.embeddings import init_embeddings

    try:
        return CachedEmbeddings(init_embeddings(spec), name=spec)
    except Exception as exc:
        raise ModelSpecError(f"cannot build embeddings {spec!r}: {exc}") from exc
