"""The wheel's layout: one top-level package, `reflective_agent`, holding the product.

The checkout keeps the product in top-level folders (agents/, core/, graphs/, …) that import one
another by those names; an editable install (`pip install -e .`, what scripts/bootstrap makes)
serves them so. A wheel must not take eight generic names in a user's site-packages, so its build
moves each product folder (and main.py) under reflective_agent/ and writes every import of one
of them as an import of `reflective_agent.<name>` (imports only: each is the first word of its
line; the product imports nothing else by name, tests/integration/test_wheel_install.py checks).
Everything else is in pyproject.toml.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PACKAGE = "reflective_agent"
PRODUCT = ("agents", "browser", "cli", "core", "graphs", "memory", "prompts", "main")
FROM = re.compile(rf"^(\s*)from ({'|'.join(PRODUCT)})\b", re.M)
IMPORT = re.compile(rf"^\s*import ({'|'.join(PRODUCT)})\b", re.M)


def under_package(source: str) -> str:
    """`source` with each `from <product module> import …` written under PACKAGE (a bare
    `import core.x` would bind another name once moved: the build refuses it)."""
    bare = IMPORT.search(source)
    if bare:
        raise SystemExit(f"setup.py: write {bare.group(0).strip()!r} as a from-import")
    return FROM.sub(rf"\1from {PACKAGE}.\2", source)


class OnePackage(build_py):
    """build_py, then (for a wheel, not an editable install) the product moved under PACKAGE."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        root = Path(self.build_lib)
        for name in PRODUCT:
            for found in (root / name, root / f"{name}.py"):
                if found.exists():
                    target = root / PACKAGE / found.name
                    shutil.rmtree(target, ignore_errors=True)
                    shutil.move(str(found), str(target))
        for module in (root / PACKAGE).rglob("*.py"):
            module.write_text(under_package(module.read_text(encoding="utf-8")), encoding="utf-8")


setup(cmdclass={"build_py": OnePackage})
