"""The agent's graphs: builders (compile them your way) and ready-compiled graphs.

    from graphs import reflective_graph, build_reflective_graph, Context
    reflective_graph.invoke({"query": "..."}, context=Context(corpus_dir="docs/"))

Names load on first use, so `import graphs.context` stays cheap for the command line.
"""

from importlib import import_module
from typing import Any

_EXPORTS = {
    "Context": ("graphs.context", "Context"),
    "build_reflective_graph": ("graphs.reflective", "build_reflective_graph"),
    "reflective_graph": ("graphs.reflective", "graph"),
    "build_single_path_graph": ("graphs.single_path", "build_single_path_graph"),
    "single_path_graph": ("graphs.single_path", "graph"),
    "build_web_agent_graph": ("graphs.web_agent", "build_web_agent_graph"),
    "web_agent_graph": ("graphs.web_agent", "graph"),
}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'graphs' has no attribute {name!r}")
    module, attr = _EXPORTS[name]
    return getattr(import_module(module), attr)
