"""The house rules a reviewer would otherwise check by hand: small modules, short functions,
and a one-line docstring saying what each module owns."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGES = ["agents", "bench", "browser", "cli", "core", "evals", "graphs", "memory", "prompts"]
MAX_MODULE_LINES, MAX_FUNCTION_LINES, MAX_PROMPTS = 300, 50, 450


def _modules() -> list[Path]:
    files = [ROOT / "main.py"]
    for package in PACKAGES + ["tests"]:
        files += sorted((ROOT / package).rglob("*.py"))
    return files


def test_modules_are_small():
    long = {
        str(p.relative_to(ROOT)): n
        for p in _modules()
        if (n := len(p.read_text().splitlines())) > _limit(p)
    }
    assert not long, f"modules over their limit ({MAX_MODULE_LINES}, prompts {MAX_PROMPTS}): {long}"


def _limit(path: Path) -> int:
    """A graph's prompt module holds every prompt of the graph whole (STYLE.md: a reader of
    it sees each node's whole prompt), so it may run longer than other modules."""
    return MAX_PROMPTS if path.parent == ROOT / "prompts" else MAX_MODULE_LINES


def test_functions_are_short():
    long = {}
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    long[f"{path.relative_to(ROOT)}:{node.name}"] = size
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines: {long}"


def test_every_package_module_says_what_it_owns():
    silent = [
        str(p.relative_to(ROOT))
        for p in _modules()
        if "tests" not in p.parts
        and p.stat().st_size
        and not ast.get_docstring(ast.parse(p.read_text()))
    ]
    assert not silent, f"modules without a docstring: {silent}"
