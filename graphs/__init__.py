"""The agent's graphs: builders (compile them your way) and ready-compiled graphs.

from graphs import reflective_graph, build_reflective_graph, Context
reflective_graph.invoke({"query": "..."}, context=Context(corpus_dir="docs/"))
"""

from core.context import Context
from core.web_context import WebAgentContext
from graphs.research import (
    build_reflective_graph,
    build_single_path_graph,
    reflective_graph,
    single_path_graph,
)
from graphs.web import build_web_graph, web_graph

__all__ = [
    "Context",
    "WebAgentContext",
    "build_reflective_graph",
    "build_single_path_graph",
    "build_web_graph",
    "reflective_graph",
    "single_path_graph",
    "web_graph",
]
