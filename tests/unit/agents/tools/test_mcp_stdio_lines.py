"""A stdio MCP server's stdout cut into lines (agents/tools/mcp_stdio.py): a line split across
chunks is one line, a byte that is not UTF-8 does not end the reading, and a line past the
limit stops it as noise."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import pytest

from agents.tools import mcp_stdio
from agents.tools.mcp_stdio import StdoutNoise


async def _chunks(*chunks: bytes) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


def _read(*chunks: bytes, noise: StdoutNoise | None = None) -> list[str]:
    noise = noise or StdoutNoise("facts", reported=set())

    async def collect() -> list[str]:
        return [line async for line in mcp_stdio._lines(_chunks(*chunks), noise)]  # type: ignore[arg-type]

    return anyio.run(collect)


def test_lines_are_whole_across_chunks() -> None:
    assert _read(b'{"a":', b' 1}\n{"b"', b": 2}\nlast") == ['{"a": 1}', '{"b": 2}', "last"]


def test_a_byte_that_is_not_utf8_is_replaced_not_raised() -> None:
    assert _read(b"\xff banner\n", b'{"ok": 1}\n') == ["\ufffd banner", '{"ok": 1}']


def test_a_line_past_the_limit_stops_the_reading(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcp_stdio, "MAX_LINE_BYTES", 8)
    noise = StdoutNoise("facts", reported={"facts"})
    assert _read(b"short\n", b"x" * 20, b"\nnever\n", noise=noise) == ["short"]
    assert noise.count == 1 and "over 8 bytes" in (noise.first or "")
