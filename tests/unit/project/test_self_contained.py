"""The suite reads nothing outside the repository: a plain clone runs its tests and benches."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

# Code that reads files on the suite's behalf: the tests, the benches, the eval harnesses and
# the CLI whose defaults and examples they use.
CODE = ["tests", "bench", "evals", "cli"]
# Places the third-party data used to live beside the checkout, and absolute machine paths.
OUTSIDE = ("../shared", "shared/data", '"shared" / "data"', "/work/")
SELF = Path(__file__).resolve()


def _levels_up(node: ast.AST, names: dict[str, int]) -> int | None:
    """How many folders above this module `node` points, when it is derived from `__file__`."""
    if isinstance(node, ast.Name):
        return names.get(node.id)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name) and func.id == "Path" and len(node.args) == 1:
            arg = node.args[0]
            return 0 if isinstance(arg, ast.Name) and arg.id == "__file__" else None
        if isinstance(func, ast.Attribute) and func.attr in ("resolve", "absolute"):
            return _levels_up(func.value, names)
        return None
    if isinstance(node, ast.Attribute) and node.attr == "parent":
        up = _levels_up(node.value, names)
        return None if up is None else up + 1
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
        index = node.slice
        if node.value.attr == "parents" and isinstance(index, ast.Constant):
            up = _levels_up(node.value.value, names)
            return None if up is None or not isinstance(index.value, int) else up + index.value + 1
    return None


def paths_above_root(source: str, relative: Path) -> list[int]:
    """Lines of `source` (the module at `relative` in the repository) that name a folder above
    the repository root through `Path(__file__)`, `.parent`, `.parents[k]` or a name bound to
    one of them at module level."""
    tree = ast.parse(source)
    names: dict[str, int] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            up = _levels_up(statement.value, names)
            if isinstance(target, ast.Name) and up is not None:
                names[target.id] = up
    depth = len(relative.parts)  # levels from a module up to the root
    lines = set()
    for node in ast.walk(tree):
        up = _levels_up(node, names)
        if up is not None and up > depth:
            lines.add(node.lineno)
    return sorted(lines)


def _modules() -> list[Path]:
    return [p for package in CODE for p in sorted((ROOT / package).rglob("*.py"))]


def test_no_module_names_a_path_above_the_repository():
    found = {}
    for path in _modules():
        relative = path.relative_to(ROOT)
        if lines := paths_above_root(path.read_text(encoding="utf-8"), relative):
            found[str(relative)] = lines
    assert not found, f"paths above the repository root (file: lines): {found}"


def test_no_module_or_doc_names_the_old_data_folder():
    texts = [p for p in _modules() if p != SELF]
    texts += [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    found = {}
    for path in texts:
        text = path.read_text(encoding="utf-8")
        if hits := [s for s in OUTSIDE if s in text]:
            found[str(path.relative_to(ROOT))] = hits
    assert not found, f"paths outside the repository (use tests/data/): {found}"


def test_the_check_sees_a_folder_above_the_root():
    source = (
        "from pathlib import Path\n"
        "ROOT = Path(__file__).resolve().parents[2]\n"
        'DATA = ROOT / "tests" / "data"\n'
        'OLD = ROOT.parent / "shared"\n'
        'UP = Path(__file__).parent.parent.parent.parent / "x"\n'
        'OK = Path(__file__).resolve().parents[1] / "data"\n'
    )
    assert paths_above_root(source, Path("tests/unit/test_x.py")) == [4, 5]


def test_the_data_the_suite_reads_is_in_the_repository():
    data = ROOT / "tests" / "data"
    files = sorted(str(p.relative_to(data)) for p in data.rglob("*") if p.is_file())
    readme = (data / "README.md").read_text(encoding="utf-8")
    assert "README.md" in files and len(files) > 1
    undocumented = [f for f in files if f != "README.md" and f"`{f}`" not in readme]
    assert not undocumented, f"tests/data files without a source and licence line: {undocumented}"
