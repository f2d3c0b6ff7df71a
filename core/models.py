"""The one place that builds chat models and embeddings from `provider:model` strings.

Specs (full grammar and options: core/model_spec.py, MODEL_SPEC_HELP):
  local                          the default embedded model on llama.cpp (offline)
  local:NAME | local:/path.gguf  another embedded model (core/model_catalogue.py), or a file
  openai:gpt-4o-mini             any provider init_chat_model knows
  openai:MODEL@http://host/v1    an OpenAI-compatible server at that base URL
  …#structured=function_calling&tools=named&ctx=2048&timeout=120&retries=1
Every remote request has a timeout and bounded retries; an unreachable server raises
ModelUnavailable when the model is built. A key goes only where its owner meant it to
(`api_key_for`): OPENAI_API_KEY to OpenAI's API or OPENAI_BASE_URL, a `#key=VAR` to its spec's URL.

`Models` holds what one owner has built (the CLI per command, an evaluation per worker, a run
whose context was made without one): each spec is built once on first use and shared by that
owner's nodes and threads, and nothing is kept anywhere else, so two owners never share or
reconfigure each other's models. Tests inject theirs with `Models.fixed(chat_model)`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from core.model_errors import ModelSpecError, ModelUnavailable
from core.model_spec import MODEL_SPEC_HELP, ModelSpec, parse_spec

if TYPE_CHECKING:  # LangChain loads when a model is built, not when the CLI starts
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

__all__ = [
    "LOCAL",
    "MODEL_SPEC_HELP",
    "ModelSpecError",
    "ModelUnavailable",
    "Models",
    "build_chat_model",
    "build_embeddings",
]
LOCAL = "local"
SERVER_TIMEOUT = 120.0  # a small server on a CPU may take a minute for a long answer
HOSTED_TIMEOUT = 60.0
# Providers whose LangChain classes take `timeout` and `max_retries`.
TIMEOUT_PROVIDERS = {"openai", "azure_openai", "anthropic", "mistralai", "groq"}


class Models:
    """The chat models and embeddings one owner uses, each built once from its spec."""

    def __init__(
        self,
        chat: Callable[[str], BaseChatModel] | None = None,
        embeddings: Callable[[str], Embeddings] | None = None,
    ) -> None:
        self._build_chat = chat or build_chat_model
        self._build_embeddings = embeddings or build_embeddings
        self._chat: dict[str, BaseChatModel] = {}
        self._embeddings: dict[str, Embeddings] = {}
        self._lock = threading.Lock()  # parallel tasks asking first build one model, not two

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        """Any value (a context field LangGraph validates but never shows as a setting)."""
        from pydantic_core import core_schema

        return core_schema.any_schema()

    @classmethod
    def fixed(
        cls, chat: BaseChatModel | None = None, embeddings: Embeddings | None = None
    ) -> Models:
        """Every spec gives `chat` (and `embeddings`): a test's scripted model for every role."""

        def no_chat(spec: str) -> BaseChatModel:
            raise ModelSpecError(f"no chat model was given for {spec!r}")

        return cls(
            chat=(lambda spec: chat) if chat is not None else no_chat,
            embeddings=(lambda spec: embeddings) if embeddings is not None else None,
        )

    def chat(self, spec: str) -> BaseChatModel:
        """The chat model named by `spec` (built on first use; a bad spec raises here)."""
        with self._lock:
            if spec not in self._chat:
                self._chat[spec] = self._build_chat(spec)
            return self._chat[spec]

    def forget_kept_tokens(self) -> None:
        """Every embedded chat model built here reads its next prompt whole
        (core.local_model.LocalChatModel.forget_kept_tokens); others have nothing kept."""
        with self._lock:
            models = list(self._chat.values())
        for model in models:
            forget = getattr(model, "forget_kept_tokens", None)
            if callable(forget):
                forget()

    def embeddings(self, spec: str = "local") -> Embeddings:
        """The embeddings named by `spec` ('local', 'provider:model', 'hashing[:DIM]')."""
        with self._lock:
            if spec not in self._embeddings:
                self._embeddings[spec] = self._build_embeddings(spec)
            return self._embeddings[spec]


def build_chat_model(spec: str, environ: Mapping[str, str] | None = None) -> BaseChatModel:
    """The chat model named by `spec`, built now (an embedded one loads its weights); its key
    is read from `environ` (default: the process's environment)."""
    parsed = parse_spec(spec)
    if parsed.provider is None:
        from core.local_model import LocalChatModel

        ctx, repeat = parsed.options.get("ctx"), parsed.number("repeat")
        return LocalChatModel.load(
            parsed.model or None,
            weights=parsed.options.get("weights"),
            **({"n_ctx": int(ctx)} if ctx else {}),
            **({"repeat_penalty": repeat} if repeat else {}),
        )
    if parsed.provider == "openai":
        return _openai_model(spec, parsed, os.environ if environ is None else environ)
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


def api_key_for(parsed: ModelSpec, environ: Mapping[str, str]) -> str | None:
    """The key an OpenAI model sends, where its owner meant it to go: the variable the spec
    names (`#key=VAR`), else OPENAI_API_KEY for OpenAI's API or for the server OPENAI_BASE_URL
    names. A server named by any other URL gets none, so a key set for one endpoint never
    reaches a URL someone else wrote into a spec."""
    if "key" in parsed.options:
        name = parsed.options["key"]
        if not environ.get(name):
            raise ModelSpecError(f"#key={name}: the environment variable {name} is not set")
        return environ[name]
    bound = environ.get("OPENAI_BASE_URL") or environ.get("OPENAI_API_BASE") or ""
    if parsed.base_url is None or parsed.base_url == bound.rstrip("/"):
        return environ.get("OPENAI_API_KEY") or None
    return None


def _openai_model(spec: str, parsed: ModelSpec, environ: Mapping[str, str]) -> BaseChatModel:
    """OpenAI, or an OpenAI-compatible server: checked for reachability and context size."""
    from pydantic import SecretStr

    from core.openai_compat import OpenAICompatibleChat

    server = parsed.base_url
    timeout = parsed.number("timeout") or (SERVER_TIMEOUT if server else HOSTED_TIMEOUT)
    api_key = api_key_for(parsed, environ) or ("not-needed" if server else None)
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


def build_embeddings(spec: str = LOCAL) -> Embeddings:
    """The embeddings named by `spec`, cached per distinct text.

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
