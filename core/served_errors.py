"""What a served run's caller hears when the run fails: its own mistakes in full (a refused
setting, a request it did not send), anything else as one line with an id, whose details (an
MCP server's command and stderr, a model server's URL, the operator's paths) go only to the
server's log."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

from langgraph.errors import GraphBubbleUp, GraphRecursionError

log = logging.getLogger(__name__)


class CallerFacing(Exception):  # noqa: N818 - a marker, never raised itself
    """An error a served run's caller caused and may read whole (it names nothing of the
    server): mixed into the exceptions that say what the caller sent wrong."""


class ServedRunFailed(RuntimeError):
    """A served run failed on the server; the caller hears only that, and the id its log line
    carries."""


PASSED_ON = (CallerFacing, GraphBubbleUp, GraphRecursionError)


def told(exc: Exception) -> Exception:
    """What the caller is told of `exc`: itself when it is theirs to read, else a line with an
    id, `exc` logged whole under that id."""
    if isinstance(exc, PASSED_ON):
        return exc
    error_id = uuid.uuid4().hex[:12]
    log.error("served run failed (error %s)", error_id, exc_info=exc)
    return ServedRunFailed(
        f"the run failed on the server (error {error_id}); its operator's log has the details"
    )


def confined(chunks: Iterator[Any]) -> Iterator[Any]:
    """`chunks` as they come; a failure among them reaches the caller as `told` says."""
    try:
        yield from chunks
    except Exception as exc:  # noqa: BLE001 - every failure is told, none swallowed
        raise told(exc) from None


async def aconfined(chunks: AsyncIterator[Any]) -> AsyncIterator[Any]:
    """The async form of `confined`."""
    try:
        async for chunk in chunks:
            yield chunk
    except Exception as exc:  # noqa: BLE001 - every failure is told, none swallowed
        raise told(exc) from None
