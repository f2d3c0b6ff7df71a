"""What a served graph's operator offers its callers, read from the file AGENT_SERVE_CONFIG names.

    offer = read_offer()        # the process's environment; no file: the embedded models only
    offer.models["fast"]        # 'local:smollm2-135m': callers choose models and corpora by name

The file (TOML; relative paths are relative to its folder):

    model = "fast"                        # the default model, one of [models]
    corpus = "notes"                      # the default corpus, one of [corpora] (else none)
    mcp = "mcp.json"                      # the MCP servers offered ({"mcpServers": {...}})
    browser = true                        # the research executor's browser tools
    allowed_origins = []                  # the research browser's origins beyond its defaults
    web_origins = ["*"]                   # the web agent's start pages and origins
    max_calls = 40                        # ceilings: a caller may set lower, never higher
    [models]                              # name = spec (default: every embedded model)
    fast = "local:smollm2-135m"
    [corpora]                             # name = folder
    notes = "/srv/notes"

Everything here reaches processes, files, networks or keys, so only the operator sets it: a
caller's context is admitted against it (core/served.py). Callers' tokens are not here but in
AGENT_SERVE_TOKENS (`caller_tokens`), a secret the environment keeps. Library use never reads
either.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.context import default_home
from core.jsonfile import JsonFileError, read_json_file
from core.model_catalogue import CATALOGUE
from core.model_errors import ModelSpecError
from core.model_spec import parse_spec

CONFIG_VARIABLE = "AGENT_SERVE_CONFIG"
TOKENS_VARIABLE = "AGENT_SERVE_TOKENS"
CAPS = ("max_calls", "max_tokens", "max_seconds")
CALLER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
TOKEN = re.compile(r"[!-~]{16,}")
# With no [models] table, the embedded models, each by its own spec: no file, key or network.
EMBEDDED = {"local": "local", **{f"local:{name}": f"local:{name}" for name in CATALOGUE}}
KEYS: dict[str, type | tuple[type, ...]] = {
    "model": str,
    "embedding_model": str,
    "corpus": str,
    "mcp": str,
    "browser": bool,
    "allowed_origins": list,
    "web_origins": list,
    "home": str,
    "models": dict,
    "corpora": dict,
    **dict.fromkeys(CAPS, (int, float)),
}


class OfferError(ValueError):
    """The operator's file cannot be used; the message names the file and the setting."""


@dataclass(frozen=True)
class Offer:
    """The operator's settings for served runs (see the module docstring)."""

    models: dict[str, str] = field(default_factory=lambda: dict(EMBEDDED))
    model: str = "local"
    embedding_model: str = "local"
    corpora: dict[str, str] = field(default_factory=dict)
    corpus: str | None = None
    mcp_servers: dict[str, Any] = field(default_factory=dict)
    browser: bool = True
    allowed_origins: tuple[str, ...] = ()
    web_origins: tuple[str, ...] = ()
    caps: dict[str, float] = field(default_factory=dict)
    home: str = field(default_factory=default_home)
    authenticated: bool = False  # callers' tokens are set: every run must name its caller


def read_offer(environ: Mapping[str, str] = os.environ) -> Offer:
    """The offer in the file AGENT_SERVE_CONFIG names (the defaults when it names none)."""
    authenticated = bool(caller_tokens(environ))
    name = environ.get(CONFIG_VARIABLE, "").strip()
    if not name:
        return Offer(authenticated=authenticated, home=default_home(environ))
    path = Path(name).expanduser()
    values = _read_toml(path)
    return _offer(path, values, authenticated, environ)


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib

    try:
        values = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise OfferError(f"{CONFIG_VARIABLE}: cannot read {path}: {exc}") from exc
    for key, value in values.items():
        if key not in KEYS:
            raise OfferError(f"{path}: unknown setting {key!r}; known: {', '.join(KEYS)}")
        if not isinstance(value, KEYS[key]) or isinstance(value, bool) is not (KEYS[key] is bool):
            raise OfferError(f"{path}: {key} = {value!r} has the wrong type")
    return values


def _offer(path: Path, values: dict[str, Any], authenticated: bool, environ: Mapping[str, str]):
    here = path.parent
    models = {str(k): str(v) for k, v in values.get("models", EMBEDDED).items()}
    for name, spec in models.items():
        try:
            parse_spec(spec)
        except ModelSpecError as exc:
            raise OfferError(f"{path}: [models] {name}: {exc}") from exc
    corpora = {str(k): _path(here, v) for k, v in values.get("corpora", {}).items()}
    model = values.get("model", "local" if "local" in models else next(iter(models), ""))
    _one_of(path, "model", model, models, "[models]")
    corpus = values.get("corpus")
    if corpus is not None:
        _one_of(path, "corpus", corpus, corpora, "[corpora]")
    caps = {k: values[k] for k in CAPS if k in values}
    if any(not v > 0 for v in caps.values()):
        raise OfferError(f"{path}: max_calls, max_tokens and max_seconds must be positive")
    return Offer(
        models=models,
        model=model,
        embedding_model=values.get("embedding_model", "local"),
        corpora=corpora,
        corpus=corpus,
        mcp_servers=_mcp(path, _path(here, values["mcp"])) if "mcp" in values else {},
        browser=values.get("browser", True),
        allowed_origins=_origins(path, values.get("allowed_origins", [])),
        web_origins=_origins(path, values.get("web_origins", [])),
        caps=caps,
        home=_path(here, values["home"]) if "home" in values else default_home(environ),
        authenticated=authenticated,
    )


def _one_of(path: Path, key: str, name: Any, offered: Mapping[str, Any], table: str) -> None:
    if name not in offered:
        raise OfferError(f"{path}: {key} = {name!r} is not one of {table}: {', '.join(offered)}")


def _path(here: Path, value: Any) -> str:
    return str((here / Path(str(value)).expanduser()).resolve())


def _origins(path: Path, entries: list[Any]) -> tuple[str, ...]:
    if not all(isinstance(e, str) and e.strip() for e in entries):
        raise OfferError(f"{path}: origins are non-empty strings, e.g. 'https://example.org'")
    return tuple(e.strip().rstrip("/") for e in entries)


def _mcp(path: Path, file: str) -> dict[str, Any]:
    """The servers of the operator's MCP file (the common `{"mcpServers": {...}}` format)."""
    try:
        config = read_json_file(Path(file), "the MCP configuration")
    except JsonFileError as exc:
        raise OfferError(f"{path}: mcp: {exc}") from exc
    servers = config.get("mcpServers", config) if isinstance(config, dict) else None
    if not isinstance(servers, dict):
        raise OfferError(f'{path}: mcp: {file} holds no {{"mcpServers": {{...}}}} object')
    return servers


def caller_tokens(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """{token: caller} from AGENT_SERVE_TOKENS, written `alice:TOKEN,bob:TOKEN`; an entry
    without a caller name or a token, a name unfit for a store namespace, or a token two
    callers share is an OfferError (a token must never be half set, nor name two callers)."""
    tokens: dict[str, str] = {}
    for entry in filter(None, (e.strip() for e in environ.get(TOKENS_VARIABLE, "").split(","))):
        caller, sep, token = (part.strip() for part in entry.partition(":"))
        if not sep or not caller or not TOKEN.fullmatch(token):  # a header carries ASCII
            raise OfferError(
                f"{TOKENS_VARIABLE}: write CALLER:TOKEN pairs separated by commas, each token "
                "at least 16 characters, printable ASCII (e.g. alice:$(openssl rand -hex 16))"
            )
        if not CALLER_NAME.fullmatch(caller) or caller == "langgraph":
            # the name heads the caller's store namespaces, whose labels LangGraph limits
            raise OfferError(
                f"{TOKENS_VARIABLE}: caller {caller!r}: a name of letters, digits, '-' and '_' "
                "(not 'langgraph')"
            )
        if token in tokens:
            raise OfferError(
                f"{TOKENS_VARIABLE}: callers {tokens[token]!r} and {caller!r} share a token"
            )
        tokens[token] = caller
    return tokens
