"""Loading a llama.cpp model quietly: its native logs and prints go to Python logging.

llama-cpp-python's quiet mode (`verbose=False`) silences native logs by swapping file
descriptors 1 and 2 for /dev/null around loads and some calls. That is process-wide and not
thread-safe: a `.batch` of two first calls left stdout pointing at /dev/null. Here models load
with `verbose=True` (no descriptor games) while llama.cpp's log callback and the library's own
progress prints go to Python logging (logger `llama_cpp`, DEBUG), so nothing reaches the
terminal and nothing is redirected.
"""

from __future__ import annotations

import ctypes
import logging
from typing import Any

from core.model_errors import LocalModelUnavailable

log = logging.getLogger("llama_cpp")

# llama.cpp has one log hook per process and keeps a raw pointer to it, so the callback object
# must stay referenced for the process's lifetime: the one piece of state here that is global
# because the native library's is.
_NATIVE_LOG_CALLBACK: Any = None


def _log_print(*args: Any, sep: str = " ", end: str = "\n", file: Any = None, **_: Any) -> None:
    log.debug("%s", sep.join(str(a) for a in args).rstrip())


def route_llama_output_to_logging() -> None:
    """Send llama.cpp's native log lines and llama-cpp-python's prints to Python logging."""
    global _NATIVE_LOG_CALLBACK
    if _NATIVE_LOG_CALLBACK is not None:
        return
    import llama_cpp
    import llama_cpp.llama as llama_module

    @llama_cpp.llama_log_callback
    def native_log(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        log.debug("%s", text.decode("utf-8", "replace").rstrip())

    llama_cpp.llama_log_set(native_log, ctypes.c_void_p(0))
    _NATIVE_LOG_CALLBACK = native_log
    # verbose=True makes llama.py print model metadata and cache notes to sys.stderr; a module
    # global named `print` shadows the builtin for that module only, so those lines are logged.
    llama_module.print = _log_print  # type: ignore[attr-defined]


def load_llama(path: str, n_ctx: int, n_threads: int) -> Any:
    """A llama.cpp model (grammar-checked sampling) loaded now; its owner keeps and shares it
    (core.models.Models builds each spec once)."""
    try:
        route_llama_output_to_logging()
        from core.llama_sampling import CheckedGrammarLlama
    except ImportError as exc:
        raise LocalModelUnavailable(
            "llama-cpp-python is not installed: pip install 'reflective-agent[local]'"
        ) from exc
    return CheckedGrammarLlama(
        model_path=path, n_ctx=n_ctx, n_threads=n_threads, flash_attn=True, verbose=True, seed=7
    )
