"""A small PNG reader for the screenshot tests: size and pixels of 8-bit RGB(A) images, with the
standard library only (the project does not depend on Pillow)."""

from __future__ import annotations

import struct
import zlib

SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {2: 3, 6: 4}  # colour type -> bytes per pixel at bit depth 8 (RGB, RGBA)


def _chunks(png: bytes) -> dict[bytes, bytes]:
    """Each chunk type's data (IDAT chunks joined)."""
    found: dict[bytes, bytes] = {}
    at = len(SIGNATURE)
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        found[kind] = found.get(kind, b"") + data
        at += 12 + length
    return found


def size(png: bytes) -> tuple[int, int]:
    """(width, height) from the IHDR chunk."""
    assert png.startswith(SIGNATURE), png[:16]
    width, height = struct.unpack(">II", _chunks(png)[b"IHDR"][:8])
    return width, height


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def _unfilter(kind: int, line: bytearray, prev: bytes, bpp: int) -> bytearray:
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        predictor = (0, a, b, (a + b) // 2, _paeth(a, b, c))[kind]
        line[i] = (line[i] + predictor) & 0xFF
    return line


def rows(png: bytes, upto: int | None = None) -> list[bytes]:
    """The image's rows of pixel bytes (8-bit RGB or RGBA, not interlaced), the first `upto`
    rows only when given (each row is decoded from the one above it)."""
    chunks = _chunks(png)
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert depth == 8 and colour in CHANNELS and not interlace, (depth, colour, interlace)
    bpp = CHANNELS[colour]
    raw, stride = zlib.decompress(chunks[b"IDAT"]), width * bpp
    out, prev = [], bytes(stride)
    for y in range(height if upto is None else min(upto, height)):
        start = y * (stride + 1)
        line = bytearray(raw[start + 1 : start + 1 + stride])
        prev = bytes(_unfilter(raw[start], line, prev, bpp))
        out.append(prev)
    return out


def pixel(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    """The RGB colour at (x, y): keep y small, every row above it is decoded in Python."""
    bpp = CHANNELS[_chunks(png)[b"IHDR"][9]]
    row = rows(png, upto=y + 1)[y]
    return tuple(row[x * bpp : x * bpp + 3])  # type: ignore[return-value]
