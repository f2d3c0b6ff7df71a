"""What a served graph's caller may set: each run's context admitted against its operator's offer
(core/offer.py) before any work, by the compiled graph langgraph.json serves (`served`).

A served run's context comes from whoever can reach the server, so every setting that reaches
processes, files, networks or keys is the operator's. Per setting, a caller may:
- choose by name among what the operator offers: `model`, each role's model, `corpus_dir`;
- tighten: `use_browser` off, fewer `allowed_origins` and `mcp_servers` (by name) than offered,
  caps (`max_calls`, `max_tokens`, `max_seconds`) at most the operator's;
- not set at all: `home`, `embedding_model` (but to the operator's own value), anything that is
  not a setting (the run's tools, models, cache);
- set freely what FREE names (text, switches, counts within BOUNDS), and nothing else: a setting
  added to a context later is refused until it is named there or given a rule (fail closed).
A refused setting is one RefusedSetting naming it, raised before the graph starts; it says what
the caller may choose, never what exists on the server. A run that fails later tells its caller
only that, with an id for the operator's log (core/served_errors.py). Library use (a graph of
graphs/ run with a Context built in-process) admits nothing: its caller is its operator.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import typing
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import aclosing
from dataclasses import MISSING, fields
from typing import Any

from langgraph.graph.state import CompiledStateGraph
from pydantic import TypeAdapter, ValidationError

from core.context import MAX_HOPS, MAX_TOOL_STEPS
from core.offer import CAPS, Offer, OfferError, read_offer
from core.role_models import ROLES
from core.served_errors import CallerFacing, aconfined, confined

log = logging.getLogger(__name__)

# Counts a caller sets freely, within what one run may reasonably spend.
BOUNDS: dict[str, tuple[float, float]] = {
    "max_retries": (0, 10),
    "max_tool_steps": (0, MAX_TOOL_STEPS),
    "max_concurrency": (0, 8),
    "reflections_k": (0, 20),
    "workflows_k": (0, 20),
    "trajectories_k": (0, 10),
    "max_steps": (1, 60),
    "induction_every": (1, 10_000),
    "min_relevance": (-1.0, 1.0),
    "max_hops": (1, MAX_HOPS),
}
# What a caller sets to any value of its type: text and switches the run's own models read,
# and the counts above. None of them reaches a process, a file, a network or a key (memory is
# the caller's own, under their identity); the settings that do have a rule in RULES.
FREE = frozenset(
    {
        *BOUNDS,
        *("system_prompt", "memory_namespace", "induction", "online_induction", "observation"),
        *("answer_first", "approve_plan", "model_verdicts", "plan_steps", "use_workflows"),
        *("workflow_actions", "verified_workflows", "record_runs", "judge_runs"),
    }
)
MODEL_FIELDS = ("model", *(f"{role}_model" for role in ROLES))


class RefusedSetting(CallerFacing, ValueError):
    """A served run's context sets what its caller may not; raised before any work."""

    def __init__(self, name: str, why: str) -> None:
        super().__init__(f"context setting {name!r}: {why}")
        self.setting = name


class ServerSettingsError(CallerFacing, RuntimeError):
    """The operator's offer cannot be read: the caller hears only that (the log says why)."""


def admit(schema: type, given: Any, offer: Offer, owner: str | None = None) -> Any:
    """A context of `schema` (Context or WebAgentContext) from a caller's settings `given`:
    the operator's values, with each setting the caller gave admitted by its rule."""
    if given is None:
        given = {}
    if not isinstance(given, Mapping):
        raise RefusedSetting("context", "a served graph takes its settings as a JSON object")
    if offer.authenticated and not owner:
        raise RefusedSetting("context", "this server serves authenticated callers only")
    settings = {f.name for f in fields(schema) if "description" in f.metadata}
    web = "start_origins" in {f.name for f in fields(schema)}  # the web agent's context
    values = _operators(settings, offer, web)
    hints = typing.get_type_hints(schema)
    for name, value in given.items():
        if name not in settings:
            raise RefusedSetting(str(name), "not a setting a caller can give")
        rule = RULES.get(name) or (_free if name in FREE else _unnamed)
        try:
            values[name] = rule(name, value, values.get(name), hints[name], offer)
        except RefusedSetting:
            if value != _shown_default(schema, name):
                raise  # a form that sends a setting's shown default asks for nothing
    if web:  # its start pages are the operator's too
        values["start_origins"] = offer.web_origins
    return schema(**values, memory_owner=owner)


def _shown_default(schema: type, name: str) -> Any:
    """The default a settings form shows for `name` (Studio sends it back untouched); none for
    a default computed on the server (`home`), whose value is the server's own."""
    found = next(f for f in fields(schema) if f.name == name)
    if found.default is not MISSING:
        return found.default
    return found.default_factory() if found.default_factory in (list, dict) else MISSING


def _operators(settings: set[str], offer: Offer, web: bool) -> dict[str, Any]:
    """What a run gets when its caller gives nothing: the operator's value of each guarded
    setting the schema has (the web agent's origins are `web_origins`)."""
    values: dict[str, Any] = {
        "model": offer.models[offer.model],
        "embedding_model": offer.embedding_model,
        "home": offer.home,
        "corpus_dir": offer.corpora[offer.corpus] if offer.corpus else None,
        "use_browser": offer.browser,
        "allowed_origins": list(offer.web_origins if web else offer.allowed_origins),
        "mcp_servers": dict(offer.mcp_servers),
        **offer.caps,
    }
    return {k: v for k, v in values.items() if k in settings}


Rule = Callable[[str, Any, Any, Any, Offer], Any]  # (name, given, operator's, type, offer)


def _model(name: str, given: Any, default: Any, hint: Any, offer: Offer) -> Any:
    if given is None or given == "":
        return default if name == "model" else None
    if not isinstance(given, str) or given not in offer.models:
        names = ", ".join(offer.models)
        raise RefusedSetting(name, f"choose a model this server offers by name: {names}")
    return offer.models[given]


def _corpus(name: str, given: Any, default: Any, hint: Any, offer: Offer) -> Any:
    if given is None or given == "":
        return None  # no corpus: fewer tools
    if not isinstance(given, str) or given not in offer.corpora:
        names = ", ".join(offer.corpora) or "none"
        raise RefusedSetting(name, f"choose a corpus this server offers by name: {names}")
    return offer.corpora[given]


def _operator_only(name: str, given: Any, default: Any, hint: Any, offer: Offer) -> Any:
    """Blank, or (for the embedding model, which a form shows) the operator's own value."""
    if given is None or given == "" or (name == "embedding_model" and given == default):
        return default
    raise RefusedSetting(name, "set by this server's operator, not by its callers")


def _unnamed(name: str, given: Any, default: Any, hint: Any, offer: Offer) -> Any:
    """A setting neither FREE nor ruled: the operator's, whatever it is for."""
    raise RefusedSetting(name, "not a setting this server lets its callers change")


def _browser(name: str, given: Any, default: Any, hint: Any, offer: Offer) -> Any:
    if not isinstance(given, bool):
        raise RefusedSetting(name, "true or false")
    if given and not default:
        raise RefusedSetting(name, "this server offers no browser")
    return given


def _fewer(name: str, given: Any, default: Any, hint: Any, offer: Offer) -> Any:
    """A list of some of the operator's entries (allowed_origins)."""
    if not isinstance(given, list) or not all(isinstance(e, str) for e in given):
        raise RefusedSetting(name, "a list of texts")
    entries = [e.strip().rstrip("/") for e in given if e.strip()]
    if any(e not in default for e in entries):
        offered = ", ".join(default) or "none"
        raise RefusedSetting(name, f"name only origins this server allows: {offered}")
    return entries


def _servers(name: str, given: Any, default: Any, hint: Any, offer: Offer) -> Any:
    """Some of the operator's MCP servers, by name: {NAME: {}} (or its own entry unchanged)."""
    if not isinstance(given, Mapping):
        raise RefusedSetting(name, 'an object naming servers this server offers, {"NAME": {}}')
    for server, entry in given.items():
        if server not in default or entry not in ({}, None, True, default[server]):
            offered = ", ".join(default) or "none"
            raise RefusedSetting(
                name, f'name only MCP servers this server offers, as {{"NAME": {{}}}}: {offered}'
            )
    return {server: default[server] for server in given}


def _cap(name: str, given: Any, default: Any, hint: Any, offer: Offer) -> Any:
    if given is None:
        return default
    if not isinstance(given, int | float) or isinstance(given, bool) or not math.isfinite(given):
        raise RefusedSetting(name, "a positive number")
    if given <= 0 or (default is not None and given > default):
        most = f" at most {default:g}" if default is not None else ""
        raise RefusedSetting(name, f"a positive number{most} (this server's ceiling)")
    return int(given) if name != "max_seconds" else float(given)


def _free(name: str, given: Any, default: Any, hint: Any, offer: Offer) -> Any:
    """Any value of the setting's type (and within BOUNDS for a count)."""
    try:
        value = TypeAdapter(hint).validate_python(given, strict=True)
    except ValidationError:
        raise RefusedSetting(name, f"not a value of type {_named(hint)}") from None
    low, high = BOUNDS.get(name, (-math.inf, math.inf))
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not (math.isfinite(value) and low <= value <= high):
            raise RefusedSetting(name, f"a number from {low:g} to {high:g}")
    return value


def _named(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


RULES: dict[str, Rule] = {
    **dict.fromkeys(MODEL_FIELDS, _model),
    "corpus_dir": _corpus,
    "home": _operator_only,
    "embedding_model": _operator_only,
    "use_browser": _browser,
    "allowed_origins": _fewer,
    "mcp_servers": _servers,
    **dict.fromkeys(CAPS, _cap),
}


def owner_of(config: Mapping[str, Any] | None) -> str | None:
    """The authenticated caller of a served run: the identity LangGraph's server put in the
    run's config (configurable.langgraph_auth_user, written over anything the caller sent);
    None without one."""
    user = ((config or {}).get("configurable") or {}).get("langgraph_auth_user")
    identity = (
        user.get("identity") if isinstance(user, Mapping) else getattr(user, "identity", None)
    )
    return identity if isinstance(identity, str) and identity else None


class ServedGraph(CompiledStateGraph[Any, Any, Any, Any]):
    """A compiled graph whose every run first admits its caller's context (`admit`) against
    the operator's offer, read from `environ` when the run starts; every way of running a
    graph (invoke, stream, their async forms, events) goes through stream or astream."""

    def __init__(self, *, environ: Mapping[str, str] = os.environ, **graph: Any) -> None:
        super().__init__(**graph)
        self.environ = environ  # kept by copy(), which LangGraph's server makes per run

    def admitted(self, context: Any, config: Mapping[str, Any] | None) -> Any:
        try:
            offer = read_offer(self.environ)
        except OfferError as exc:  # the operator's to fix; a caller learns nothing of the server
            log.error("served run refused: %s", exc)
            raise ServerSettingsError(
                "this server's settings cannot be read; its operator must fix them (its log "
                "says why)"
            ) from None
        return admit(self.context_schema, context, offer, owner_of(config))  # type: ignore[arg-type]

    def stream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        kwargs["context"] = self.admitted(kwargs.get("context"), config)
        return confined(super().stream(input, config, **kwargs))

    async def astream(self, input: Any, config: Any = None, **kwargs: Any) -> AsyncIterator[Any]:
        # the offer is a file read: in a thread, off the server's event loop
        given = kwargs.get("context")
        kwargs["context"] = await asyncio.to_thread(self.admitted, given, config)
        chunks: Any = aconfined(super().astream(input, config, **kwargs))
        async with aclosing(chunks):  # a caller that stops early closes the run's stream
            async for chunk in chunks:
                yield chunk


def served(
    graph: CompiledStateGraph[Any, Any, Any, Any], environ: Mapping[str, str] = os.environ
) -> ServedGraph:
    """`graph` as a ServedGraph (the same nodes, channels and name) whose operator's offer
    is read from `environ` (AGENT_SERVE_CONFIG, AGENT_SERVE_TOKENS)."""
    attrs = {k: v for k, v in graph.__dict__.items() if k != "__orig_class__"}
    return ServedGraph(**attrs, environ=environ)
