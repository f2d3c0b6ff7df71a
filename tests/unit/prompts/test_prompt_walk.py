"""The walk from langgraph.json to the whole text of a node's prompt is three files: the graph
module, the node's module (tests/unit/graphs/test_two_hops.py), and its graph's one prompt
module. So every module of a graph's package takes prompt text from that module alone, and the
prompt module imports nothing from another prompt module. Code (`data`, the escaping) may come
from elsewhere: it is no text."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tests.conftest import ROOT

# each graph's package: its prompt module
PROMPT_MODULES = {
    "agents/research": "prompts.research",
    "agents/web": "prompts.web",
}


def _prompt_imports(source: str) -> dict[str, set[str]]:
    """{prompt module: the names taken from it} for every import of prompts.* in `source`
    (`from prompts import x` takes the whole of prompts.x: "*")."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module == "prompts" and not node.level:
            for alias in node.names:
                found.setdefault(f"prompts.{alias.name}", set()).add("*")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("prompts."):
            found.setdefault(str(node.module), set()).update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("prompts."):
                    found.setdefault(alias.name, set()).add("*")
    return found


def text_sources(source: str) -> set[str]:
    """The prompt modules `source` takes text from (any name but a function, or all of it)."""
    modules = set()
    for module, names in _prompt_imports(source).items():
        loaded = importlib.import_module(module)
        if any(n == "*" or not callable(getattr(loaded, n)) for n in names):
            modules.add(module)
    return modules


def _checked() -> list[tuple[str, str]]:
    files = []
    for where, prompts in PROMPT_MODULES.items():
        path = ROOT / where
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            files.append((str(file.relative_to(ROOT)), prompts))
    return files


@pytest.mark.parametrize(("path", "prompts"), _checked())
def test_a_graphs_modules_take_prompt_text_from_its_prompt_module_alone(path, prompts):
    assert text_sources((ROOT / path).read_text()) <= {prompts}


@pytest.mark.parametrize("prompts", sorted(set(PROMPT_MODULES.values())))
def test_a_prompt_module_holds_its_text_whole(prompts):
    path = ROOT / Path(*prompts.split("."))
    assert _prompt_imports(path.with_suffix(".py").read_text()) == {}


def test_text_from_a_second_prompt_module_is_reported():
    """The check itself: text from two modules, or a whole module, is seen; code is not."""
    source = (
        "from prompts.research import GOAL_SETTER, data\n"
        "from prompts.web import DATA_RULE\n"
        "from prompts import workflows\n"
    )
    assert text_sources(source) == {"prompts.research", "prompts.web", "prompts.workflows"}
    assert text_sources("from prompts.research import data\n") == set()
