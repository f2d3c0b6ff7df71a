"""Model spec strings: `provider:model[@URL][#option=value&…]`, parsed, checked and documented.

Free of heavy imports so the CLI can show MODEL_SPEC_HELP and reject a bad spec instantly.

  local                                   the default embedded model on llama.cpp (offline)
  local:smollm2-135m                      another embedded model (core/model_catalogue.py)
  local:/path/to/model.gguf               any GGUF file
  local#ctx=2048                          … with a smaller context window
  local:smollm2#weights=as-is             … on its shipped weights (its default: a Q8_0 copy)
  openai:gpt-4o-mini                      any provider LangChain's init_chat_model knows
  openai:NAME@http://127.0.0.1:8080/v1    any OpenAI-compatible server (llama.cpp, vLLM, …)
  openai:NAME@URL#structured=function_calling&ctx=2048&tools=named

Options after `#` (joined with `&`):
  structured  json_schema | function_calling | json_mode — force how structured output is
              asked for (default: try them in that order, keep the first that works)
  tools       native | named — `native` sends tool_choice auto as is; `named` (the default
              for servers given by URL, many of which ignore `auto`) names one `act` tool
              whose arguments choose a tool or the final answer
  ctx         the context window in tokens, when the server does not report it
  repeat      local only: llama.cpp's repeat penalty (default: the catalogue entry's, 1.0
              for Qwen, 1.3 for SmolLM2; 1.0 is none)
  weights     local only: q8_0 (a Q8_0 copy made once, faster on a CPU for some formats;
              the default of catalogue models shipped as Q4_1)
              on a CPU) | as-is (the GGUF file unchanged; the default for a file you name)
  timeout     seconds per request (default 120 for servers, 60 for hosted providers)
  retries     retries per request on connection errors and 5xx (default 1)
  key         openai only: the environment variable holding the key for this model's URL
              (default: OPENAI_API_KEY, sent only to OpenAI's API or to OPENAI_BASE_URL; a
              server named by another URL gets no key; core.models.api_key_for)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.model_catalogue import is_file_name, lookup
from core.model_errors import ModelSpecError

MODEL_SPEC_HELP = (
    "Model: 'local' (embedded, offline; 'local:NAME' another embedded model, "
    "'local:/path/model.gguf' a file), 'provider:model' (e.g. openai:gpt-4o-mini), or "
    "'openai:NAME@URL' for an OpenAI-compatible server; options after '#', joined with '&': "
    "structured=json_schema|function_calling|json_mode, tools=native|named, ctx=TOKENS, "
    "timeout=SECONDS, retries=N, key=ENV_VAR (the variable holding this URL's key) "
    "(e.g. openai:m@http://127.0.0.1:8080/v1#ctx=2048); "
    "local only: weights=q8_0|as-is, repeat=PENALTY."
)
CHOICES = {
    "structured": ("json_schema", "function_calling", "json_mode"),
    "tools": ("native", "named"),
    "weights": ("q8_0", "as-is"),
}
NUMBERS = ("ctx", "timeout", "retries")
LOCAL_OPTIONS = ("ctx", "weights", "repeat")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec: `provider` is None for the embedded model (then `model` is a GGUF path)."""

    provider: str | None
    model: str
    base_url: str | None = None
    options: dict[str, str] = field(default_factory=dict)

    def number(self, key: str) -> float | None:
        return float(self.options[key]) if key in self.options else None


def _options(spec: str, text: str, allowed: tuple[str, ...]) -> dict[str, str]:
    options: dict[str, str] = {}
    for item in filter(None, text.split("&")):
        key, sep, value = item.partition("=")
        if not sep or key not in allowed:
            raise ModelSpecError(
                f"bad option {item!r} in {spec!r}: "
                f"use KEY=VALUE with KEY one of {', '.join(allowed)}"
            )
        if key in CHOICES and value not in CHOICES[key]:
            raise ModelSpecError(f"{key}={value!r} in {spec!r}: choose one of {CHOICES[key]}")
        if key in (*NUMBERS, "repeat") and not _number_ok(key, value):
            raise ModelSpecError(f"{key}={value!r} in {spec!r} must be a positive number")
        if key == "key" and not ENV_NAME.fullmatch(value):
            raise ModelSpecError(f"key={value!r} in {spec!r}: name an environment variable")
        options[key] = value
    return options


def _number_ok(key: str, value: str) -> bool:
    try:
        number = float(value) if key in ("timeout", "repeat") else int(value)
    except ValueError:
        return False
    return number >= 0 if key == "retries" else number > 0


def parse_spec(spec: str) -> ModelSpec:
    """Parse and check a model spec; a ModelSpecError says how to write it instead."""
    spec = spec.strip()
    body, _, option_text = spec.partition("#")
    if body == "local" or body.startswith("local:"):
        options = _options(spec, option_text, LOCAL_OPTIONS)
        name = body.partition(":")[2]
        if not is_file_name(name):
            lookup(name)  # an unknown name is a clear error now, not at first use
        return ModelSpec(None, name, None, options)
    name, _, base_url = body.partition("@")
    if base_url and not base_url.startswith(("http://", "https://")):
        raise ModelSpecError(f"base URL in {spec!r} must start with http:// or https://")
    provider, sep, model = name.partition(":")
    if not sep or not provider or not model:
        raise ModelSpecError(
            f"unknown model {spec!r}: use 'local' or 'provider:model', e.g. 'openai:gpt-4o-mini'"
        )
    if base_url and provider != "openai":
        # another provider's client would send its own key (ANTHROPIC_API_KEY…) to that URL
        raise ModelSpecError(
            f"base URL in {spec!r}: a URL is for OpenAI-compatible servers, "
            f"written openai:{model}@{base_url}"
        )
    allowed = ("structured", "tools", *NUMBERS, *(("key",) if provider == "openai" else ()))
    return ModelSpec(
        provider, model, base_url.rstrip("/") or None, _options(spec, option_text, allowed)
    )
