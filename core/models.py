"""The one place that builds chat models and embeddings from `provider:model` strings.

Specs (full grammar and options: core/model_spec.py, MODEL_SPEC_HELP):
  local                          the embedded SmolLM2-135M-Instruct on llama.cpp (offline)
  openai:gpt-4o-mini             any provider init_chat_model knows
  openai:MODEL@http://host/v1    an OpenAI-compatible server at that base URL
  …#structured=function_calling&tools=named&ctx=2048&timeout=120&retries=1
Every remote request has a timeout and bounded retries; an unreachable server raises
ModelUnavailable when the model is built. Tests replace `get_chat_model` / `get_embeddings` to
swap every model at once.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from pydantic import SecretStr

from core.model_errors import ModelSpecError, ModelUnavailable
from core.model_spec import MODEL_SPEC_HELP, ModelSpec, parse_spec

__all__ = [
    "LOCAL",
    "MODEL_SPEC_HELP",
    "ModelSpecError",
    "ModelUnavailable",
    "get_chat_model",
    "get_embeddings",
]
LOCAL = "local"
SERVER_TIMEOUT = 120.0  # a small server on a CPU may take a minute for a long answer
HOSTED_TIMEOUT = 60.0
# Providers whose LangChain classes take `timeout` and `max_retries`.
TIMEOUT_PROVIDERS = {"openai", "azure_openai", "anthropic", "mistralai", "groq"}


@lru_cache(maxsize=16)
def get_chat_model(spec: str) -> BaseChatModel:
    """Build (once per process) the chat model named by `spec`."""
    parsed = parse_spec(spec)
    if parsed.provider is None:
        from core.local_model import LocalChatModel

        ctx = parsed.options.get("ctx")
        return LocalChatModel.load(
            parsed.model or None,
            weights=parsed.options.get("weights"),
            **({"n_ctx": int(ctx)} if ctx else {}),
        )
    if parsed.provider == "openai":
        return _openai_model(spec, parsed)
    kwargs: dict[str, object] = {"temperature": 0}
    if parsed.provider in TIMEOUT_PROVIDERS:
        kwargs["timeout"] = parsed.number("timeout") or HOSTED_TIMEOUT
        kwargs["max_retries"] = int(parsed.options.get("retries", 1))
    if parsed.base_url:
        kwargs["base_url"] = parsed.base_url
    from langchain.chat_models import init_chat_model

    try:
        return init_chat_model(parsed.model, model_provider=parsed.provider, **kwargs)  # type: ignore[call-overload]
    except Exception as exc:  # provider clients raise their own types, e.g. for a missing key
        raise ModelSpecError(f"cannot build model {spec!r}: {exc}") from exc


def _openai_model(spec: str, parsed: ModelSpec) -> BaseChatModel:
    """OpenAI, or an OpenAI-compatible server: checked for reachability and context size."""
    from core.openai_compat import OpenAICompatibleChat

    server = parsed.base_url
    timeout = parsed.number("timeout") or (SERVER_TIMEOUT if server else HOSTED_TIMEOUT)
    api_key = os.environ.get("OPENAI_API_KEY") or ("not-needed" if server else None)
    opts = parsed.options
    try:
        model = OpenAICompatibleChat(
            model=parsed.model,
            base_url=server,
            api_key=SecretStr(api_key) if api_key else None,
            temperature=0,
            timeout=timeout,
            max_retries=int(opts.get("retries", 1)),
            structured_method=opts.get("structured"),
            tool_mode=opts.get("tools"),
            ctx=int(opts["ctx"]) if "ctx" in opts else None,
        )
    except Exception as exc:  # e.g. no OPENAI_API_KEY for OpenAI itself
        raise ModelSpecError(f"cannot build model {spec!r}: {exc}") from exc
    if server:
        from core.server_probe import probe_server

        info = probe_server(server, parsed.model, api_key or "", timeout=min(timeout, 5.0))
        model.remember_context(info.context)
    return model


@lru_cache(maxsize=4)
def get_embeddings(spec: str = LOCAL) -> Embeddings:
    """Build (once per process) the embeddings named by `spec`, cached per distinct text.

    'hashing' or 'hashing:DIM' is the model-free fake (tests, quick demos). The local model
    loads on first use, so building this costs nothing until a text is embedded.
    """
    from core.embeddings import CachedEmbeddings, HashingEmbeddings, LocalEmbeddings

    if spec == "hashing" or spec.startswith("hashing:"):
        dim = spec.partition(":")[2]
        return HashingEmbeddings(int(dim) if dim else 256)
    if spec == LOCAL:
        return CachedEmbeddings(LocalEmbeddings(), name="local:all-MiniLM-L6-v2")
    from langchain.embeddings import init_embeddings

    provider = spec.partition(":")[0]
    kwargs: dict[str, Any] = {}
    if provider in TIMEOUT_PROVIDERS:  # a remote embedding call must not hang a run
        kwargs = {"timeout": HOSTED_TIMEOUT, "max_retries": 1}
    try:
        return CachedEmbeddings(init_embeddings(spec, **kwargs), name=spec)
    except Exception as exc:
        raise ModelSpecError(f"cannot build embeddings {spec!r}: {exc}") from exc
