"""Asking an OpenAI-compatible server, once and quickly, whether it is up and its context size.

Servers say their context size in different places: llama.cpp's server in `/props`
(`default_generation_settings.n_ctx`), vLLM in `/v1/models` (`max_model_len`), LM Studio and
OpenRouter as `context_length` / `max_context_length`. llama-cpp-python's server says it nowhere
(only in the error for a too-long prompt, which core.openai_compat learns from). An unreachable
server raises ModelUnavailable at once, before any graph runs.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import httpx

from core.model_errors import ModelUnavailable

log = logging.getLogger(__name__)
CONTEXT_KEYS = ("max_model_len", "context_length", "max_context_length", "n_ctx", "context_window")


@dataclass
class ServerInfo:
    """What the server told us; `context` is None when it does not say."""

    context: int | None = None
    source: str = ""


def _context_in(entry: Any) -> int | None:
    if not isinstance(entry, dict):
        return None
    for key in CONTEXT_KEYS:
        value = entry.get(key)
        if isinstance(value, int) and value > 0:
            return value
    for nested in ("meta", "default_generation_settings", "top_provider"):
        found = _context_in(entry.get(nested))
        if found:
            return found
    return None


def _model_entry(listing: Any, model: str) -> Any:
    data = listing.get("data") if isinstance(listing, dict) else None
    if not isinstance(data, list) or not data:
        return None
    named = [d for d in data if isinstance(d, dict) and d.get("id") == model]
    return named[0] if named else (data[0] if len(data) == 1 else None)


def _get(client: httpx.Client, url: str) -> Any:
    response = client.get(url)
    if response.status_code in (401, 403):
        raise ModelUnavailable(
            f"the model server at {url} refused the API key (HTTP {response.status_code}): "
            "name the variable holding its key with #key=VAR in the model spec, or set "
            "OPENAI_API_KEY with OPENAI_BASE_URL set to this server's URL"
        )
    if response.status_code != 200:
        return None
    try:
        return response.json()
    except ValueError:
        return None


def probe_server(base_url: str, model: str, api_key: str, timeout: float = 5.0) -> ServerInfo:
    """Reach the server (ModelUnavailable if it cannot be reached) and read its context size."""
    headers = {"Authorization": f"Bearer {api_key}"}
    root = base_url[: -len("/v1")] if base_url.endswith("/v1") else base_url
    try:
        with httpx.Client(timeout=timeout, headers=headers) as client:
            listing = _get(client, f"{base_url}/models")
            found = _context_in(_model_entry(listing, model))
            if found:
                return ServerInfo(found, f"{base_url}/models")
            found = _context_in(_get(client, f"{root}/props"))
            if found:
                return ServerInfo(found, f"{root}/props")
    except httpx.TransportError as exc:  # refused, DNS, TLS, timeout: the server is not usable
        raise ModelUnavailable(
            f"cannot reach the model server at {base_url} ({type(exc).__name__}: {exc}); "
            "start it or fix the URL in the model spec"
        ) from exc
    return ServerInfo()
