"""Who a served graph's callers are and what each may touch: the auth handler langgraph.json names
(LangGraph's custom auth, `langgraph_sdk.Auth`).

A caller sends the token its operator gave it (AGENT_SERVE_TOKENS, core/offer.py) as
`Authorization: Bearer TOKEN` or `x-api-key: TOKEN` (the SDK's `api_key`); no token, or one
the server does not know, is a 401 before anything else runs. Then:
- threads, runs and crons carry their creator as metadata `owner`, and only the owner finds,
  reads, changes, deletes or runs on them;
- assistants are found and read by every caller (each graph's own assistant is the server's)
  but changed and deleted only by their owner; what a run may do is still the operator's,
  whatever an assistant's settings say (core/served.py);
- every store namespace a caller names is put under their identity, where a served run keeps
  their memories too (memory/stores/owned.py): one caller never reads or writes another's.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
from collections.abc import Mapping
from typing import Any

from langgraph_sdk import Auth

from core.offer import OfferError, caller_tokens

log = logging.getLogger(__name__)
OWNER = "owner"
CLOSED = (
    "this server accepts no token yet, so it serves no one: its operator starts it with "
    "AGENT_SERVE_TOKENS=NAME:TOKEN (a token of 16 characters or more, e.g. from 'openssl rand "
    "-hex 16'), and callers send that token as 'Authorization: Bearer TOKEN'"
)

auth = Auth()


def say_if_closed(environ: Mapping[str, str] = os.environ) -> None:
    """At the server's start, in its log: without valid tokens it refuses every request, and
    a person who just ran `langgraph dev` should read why there, not only in a client's 401."""
    try:
        tokens = caller_tokens(environ)
    except OfferError as exc:
        log.warning("every request will be refused: %s", exc)
        return
    if not tokens:
        log.warning("every request will be refused: %s", CLOSED)


say_if_closed()


@auth.authenticate
async def authenticate(headers: dict[bytes, bytes]) -> Auth.types.MinimalUserDict:
    """The caller the request's token names (the tokens read from the environment per
    request, as a served run reads its operator's offer: the handler keeps no state)."""
    try:
        tokens = caller_tokens()
    except OfferError as exc:
        log.error("every request refused: %s", exc)
        tokens = {}
    caller = caller_of(headers, tokens)
    if caller is None:
        raise Auth.exceptions.HTTPException(status_code=401, detail=refusal(tokens))
    return {"identity": caller}


def refusal(tokens: dict[str, str]) -> str:
    """What a refused request hears: how to send a token, or (none set, or set wrongly) that
    the server takes none yet and what its operator does about it."""
    if not tokens:
        return CLOSED
    return (
        "send the token this server's operator gave you, as 'Authorization: Bearer TOKEN' or "
        "'x-api-key: TOKEN'"
    )


def caller_of(headers: dict[bytes, bytes], tokens: dict[str, str]) -> str | None:
    """The caller whose token the request carries, or None. Every token is compared, each as
    a SHA-256 digest in constant time: no early exit on a token's length, and any bytes a
    header holds compare (hmac refuses strings with non-ASCII characters)."""
    given = _token(headers)
    if not given:
        return None
    digest, found = _digest(given), None
    for token, caller in tokens.items():
        if hmac.compare_digest(_digest(token), digest):
            found = caller
    return found


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).digest()


def _token(headers: dict[bytes, bytes]) -> str:
    bearer = headers.get(b"authorization", b"").decode("latin-1").strip()
    scheme, _, value = bearer.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return headers.get(b"x-api-key", b"").decode("latin-1").strip()


@auth.on
async def owned(ctx: Auth.types.AuthContext, value: Any) -> dict[str, str]:
    """Threads, runs, crons and changes to assistants: the caller's own (stamped as its owner
    when made, filtered by owner everywhere else)."""
    mine = {OWNER: ctx.user.identity}
    if isinstance(value, dict) and ("metadata" in value or ctx.action in ("create", "create_run")):
        if value.get("metadata") is None:
            value["metadata"] = {}
        value["metadata"].update(mine)  # in place: the server keeps that very dict
    return mine


@auth.on.assistants.read
async def read_any_assistant(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Every caller reads the graphs' assistants (their settings are admitted per run)."""
    return None


@auth.on.assistants.search
async def find_any_assistant(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Every caller finds them too."""
    return None


@auth.on.store
async def own_namespace(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Every store namespace under the caller's identity, as OwnedStore puts a run's."""
    value["namespace"] = (ctx.user.identity, *(value.get("namespace") or ()))
