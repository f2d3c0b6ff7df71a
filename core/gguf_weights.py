"""The embedded model's weights re-encoded once as Q8_0, which llama.cpp reads faster on a CPU.

SmolLM2-135M ships as Q4_1. llama.cpp's fast CPU matrix kernels (llamafile's tinyBLAS and the
repacked AVX2 paths) take Q8_0 but not Q4_1, so Q4_1 prompts are evaluated on the slow path.
On this 2-core machine the same weights as Q8_0 read prompts about 1.7x faster and write at the
same speed (`python -m bench.model_format --json`). Prompt evaluation is most of a run's time.

Q8_0 keeps 8 bits per weight where Q4_1 has 4 plus a per-block offset, so every weight is kept
to within 1/254 of its block's largest; the bench checks that greedy output stays the same.

    path = q8_0_weights(shipped_gguf)   # converted on first use, then reused

The converted file lives in the user's cache (`$AGENT_CACHE`, else
`$XDG_CACHE_HOME/reflective-agent`, else `~/.cache/reflective-agent`), named after the source's
size and mtime so a new wheel converts again. It is written to a temporary name of its own and
renamed, so two threads or processes at once never share a partial file, and a reader never
sees one; a partial file left by a killed process is removed by the next conversion. When
converting is impossible (read-only cache, no space, no home), the shipped weights are used
and a warning says why.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)
STALE_PARTIAL_S = 600.0  # a partial file this old belongs to a conversion that died
_CONVERTING = threading.Lock()  # one conversion at a time in a process

Quantize = Callable[[Path, Path], None]


def cache_dir() -> Path:
    """Where converted weights are kept (created on first use)."""
    if os.environ.get("AGENT_CACHE"):
        return Path(os.environ["AGENT_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "reflective-agent"


def converted_name(source: Path) -> str:
    """`SmolLM2-135M-Instruct.Q4_1.gguf` → `SmolLM2-135M-Instruct.Q4_1.<size>-<mtime>.Q8_0.gguf`."""
    stat = source.stat()
    return f"{source.stem}.{stat.st_size}-{stat.st_mtime_ns}.Q8_0.gguf"


def llama_quantize(source: Path, target: Path) -> None:
    """llama.cpp's own quantizer (the `llama-quantize` tool's function), to Q8_0."""
    import llama_cpp

    from core.llama_runtime import route_llama_output_to_logging

    route_llama_output_to_logging()  # its per-tensor lines go to logging, not the terminal
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0
    params.allow_requantize = True  # the source is already quantized
    params.nthread = os.cpu_count() or 1
    status = llama_cpp.llama_model_quantize(
        str(source).encode(), str(target).encode(), ctypes.byref(params)
    )
    if status != 0:
        raise RuntimeError(f"llama_model_quantize returned {status}")


def q8_0_weights(
    source: Path, cache: Path | None = None, quantize: Quantize = llama_quantize
) -> Path:
    """The Q8_0 copy of `source` (converting it the first time), or `source` if that fails."""
    with _CONVERTING:
        try:
            target = (cache or cache_dir()) / converted_name(source)
            if target.exists():
                return target
            target.parent.mkdir(parents=True, exist_ok=True)
            remove_stale_partials(target.parent)
            return _convert(source, target, quantize)
        except Exception as exc:  # any failure leaves the shipped weights in use
            log.warning("using the shipped %s: no Q8_0 copy (%s)", source.name, exc)
            return source


def _convert(source: Path, target: Path, quantize: Quantize) -> Path:
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".partial")
    os.close(handle)
    partial = Path(name)
    started = time.monotonic()
    try:
        quantize(source, partial)
        os.replace(partial, target)
    finally:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
    log.info("converted %s to Q8_0 in %.1fs: %s", source.name, time.monotonic() - started, target)
    return target


def remove_stale_partials(folder: Path) -> None:
    now = time.time()
    for partial in folder.glob("*.partial"):
        with contextlib.suppress(OSError):
            if now - partial.stat().st_mtime > STALE_PARTIAL_S:
                partial.unlink()


def discard(path: Path, source: Path) -> None:
    """Remove a converted file that failed to load (it is written again on the next use)."""
    if path != source:
        log.warning("removing %s: llama.cpp could not load it", path)
        path.unlink(missing_ok=True)
