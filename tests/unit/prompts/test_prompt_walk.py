"""By imports, on every path a run may take (test_prompt_sources.py traces the text of the paths
the tests run by where it is defined): every module of a graph's package takes prompt text
from its graph's prompt module and the shared ones alone (prompts/memory.py, how memory reads;
prompts/untrusted.py, the data rule), and a prompt module takes text only from the shared ones.
Code (`data`, the escaping) is no text."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tests.conftest import ROOT

SHARED = {"prompts.memory", "prompts.untrusted"}  # every graph's prompts may hold their text
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
    assert text_sources((ROOT / path).read_text()) <= {prompts} | SHARED


@pytest.mark.parametrize("prompts", sorted(set(PROMPT_MODULES.values())))
def test_a_prompt_module_takes_text_only_from_the_shared_ones(prompts):
    path = ROOT / Path(*prompts.split("."))
    assert set(_prompt_imports(path.with_suffix(".py").read_text())) <= SHARED


def test_text_from_a_second_prompt_module_is_reported():
    """The check itself: text from two modules, or a whole module, is seen; code is not."""
    source = (
        "from prompts.research import GOAL_SETTER, preamble\n"
        "from prompts.web import WEB_SYSTEM\n"
        "from prompts import workflows\n"
    )
    assert text_sources(source) == {"prompts.research", "prompts.web", "prompts.workflows"}
    assert text_sources("from prompts.research import preamble\n") == set()
    assert text_sources("from prompts.untrusted import data\n") == set()
