"""Every node of langgraph.json's graphs is two hops from its graph module: the graph module
imports the node's module directly, a module named for the node, and the node is a function of
the node's name there (the third hop, the prompt modules that define its text:
tests/unit/prompts/test_prompt_sources.py)."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from langgraph.graph import END, START, StateGraph

from agents.research.support import unsupported
from core.state import TaskState
from tests.conftest import ROOT

NODE_PACKAGES = ("agents.research.", "agents.web.")


def _imports(module: ModuleType) -> set[str]:
    """The modules `module` imports by name (`from agents.research import goal` names
    agents.research.goal_setting too), anywhere in its source."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(m for a in node.names if _is_module(m := f"{node.module}.{a.name}"))
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a name inside a module, not a module
        return False


def _node_functions(compiled: Any) -> Iterator[tuple[str, Any, Any]]:
    """(node name, its function, the compiled subgraph it runs or None) for each node."""
    subgraphs = dict(compiled.get_subgraphs())
    for name, spec in compiled.builder.nodes.items():
        runnable = spec.runnable
        func = getattr(runnable, "func", None) or getattr(runnable, "afunc", None)
        yield name, func, subgraphs.get(name)


def two_hop_problems(graph_module: ModuleType, compiled: Any) -> list[str]:
    """What keeps a node of `compiled` (built in `graph_module`) more than two hops away."""
    problems: list[str] = []
    imported = _imports(graph_module)
    for name, func, subgraph in _node_functions(compiled):
        where = f"{compiled.name}:{name}"
        if func is None or func.__name__ != name:
            problems.append(f"{where} is not a function named {name!r}: {func!r}")
            continue
        if func.__module__ == graph_module.__name__ and subgraph is not None:
            problems += two_hop_problems(graph_module, subgraph)  # run_task: the task's graph
            continue
        module = importlib.import_module(func.__module__)
        if module.__name__ not in imported:
            problems.append(f"{where}: {graph_module.__name__} does not import {module.__name__}")
        if not module.__name__.startswith(NODE_PACKAGES):
            problems.append(
                f"{where}: {module.__name__} is not under agents/research or agents/web"
            )
        elif module.__name__.rsplit(".", 1)[-1] != name:
            problems.append(f"{where}: in {module.__name__}, not in a module named for it")
    return problems


def _langgraph_graphs() -> list[tuple[str, ModuleType, Any]]:
    config = json.loads((ROOT / "langgraph.json").read_text())
    graphs = []
    for graph_id, spec in config["graphs"].items():
        path, attribute = spec.split(":")
        name = path.removeprefix("./").removesuffix(".py").replace("/", ".")
        module = importlib.import_module(name)
        graphs.append((graph_id, module, getattr(module, attribute)))
    return graphs


@pytest.mark.parametrize(("graph_id", "module", "compiled"), _langgraph_graphs())
def test_every_node_is_two_hops_from_its_graph(graph_id, module, compiled):
    assert compiled.name == graph_id
    assert two_hop_problems(module, compiled) == []


def test_every_graph_module_is_one_of_the_two():
    assert {m.__name__ for _, m, _ in _langgraph_graphs()} == {"graphs.research", "graphs.web"}


def test_a_node_its_graph_module_does_not_import_is_reported():
    """The check itself: a helper wired as a node, in a module the graph module never imports."""
    import graphs.research

    builder = StateGraph(TaskState)
    builder.add_node("unsupported", unsupported)
    builder.add_edge(START, "unsupported")
    builder.add_edge("unsupported", END)
    problems = two_hop_problems(graphs.research, builder.compile(name="made_up"))
    assert problems == [
        "made_up:unsupported: graphs.research does not import agents.research.support",
        "made_up:unsupported: in agents.research.support, not in a module named for it",
    ]
