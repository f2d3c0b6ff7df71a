"""One installed name: the wheel's build writes the product under `reflective_agent` (setup.py),
and in the checkout `reflective_agent.X` is the checkout's module X itself, so the README's
imports work in both (the wheel itself: tests/integration/test_wheel_install.py)."""

from __future__ import annotations

import importlib
import re

import pytest

from tests.conftest import ROOT


def _setup():
    spec = importlib.util.spec_from_file_location("project_setup", ROOT / "setup.py")
    module = importlib.util.module_from_spec(spec)
    import setuptools

    real, setuptools.setup = setuptools.setup, lambda **kw: None  # read it, build nothing
    try:
        spec.loader.exec_module(module)
    finally:
        setuptools.setup = real
    return module


def test_in_the_checkout_the_one_name_is_the_same_module_not_a_copy():
    import reflective_agent.graphs
    from reflective_agent.core.context import Context

    import core.context
    import graphs

    assert reflective_agent.graphs is graphs and Context is core.context.Context
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("reflective_agent.evals")  # the lab is not the product


def test_the_build_writes_every_product_import_under_the_package():
    setup = _setup()
    source = (
        "from core.state import X\n    from graphs import (\n        y,\n    )\n"
        "from coreutils import z\n"
    )
    assert setup.under_package(source) == (
        "from reflective_agent.core.state import X\n    from reflective_agent.graphs import (\n"
        "        y,\n    )\nfrom coreutils import z\n"
    )
    with pytest.raises(SystemExit, match="as a from-import"):
        setup.under_package("import core.state\n")


def test_the_product_imports_itself_only_in_the_form_the_build_rewrites():
    """Every line naming a product module is a from-import at the line's start (what setup.py
    rewrites), and no module is looked up by a dotted name in a string but cli's commands,
    which resolve theirs within the package."""
    setup = _setup()
    names = "|".join(setup.PRODUCT)
    dotted = re.compile(rf"[\"']({names})\.[a-z_.]+[\"']")
    found = []
    for folder in setup.PRODUCT:
        for path in (ROOT / folder).rglob("*.py") if folder != "main" else [ROOT / "main.py"]:
            text = path.read_text(encoding="utf-8")
            if setup.IMPORT.search(text):
                found.append(f"{path.name}: bare import")
            found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in dotted.finditer(text)]
    assert {f.split(":")[0] for f in found} <= {"cli/commands.py"}, found
