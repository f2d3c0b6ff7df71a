"""The project's one installed name: `reflective_agent.graphs`, `reflective_agent.core`, ….

Installed from the wheel, this package holds the product (agents, browser, cli, core, graphs,
memory, prompts, main), each module importing the others under this name (setup.py writes it so),
and nothing of it takes a top-level name of its own: an app with its own `core/` or `agents/`
keeps them. In the source checkout the product keeps the top-level folders it was specified
with, and this package makes `reflective_agent.X` the checkout's module `X` itself (the same
module object, never a second copy), so one import line works in both:

    from reflective_agent.graphs import Context, build_reflective_graph
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

PRODUCT = ("agents", "browser", "cli", "core", "graphs", "memory", "prompts", "main")


class _Checkout(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """`reflective_agent.X…` in the checkout: the top-level module `X…`, already or now imported."""

    def find_spec(self, fullname: str, path: object = None, target: object = None):
        head, _, rest = fullname.partition(".")
        if head != __name__ or rest.split(".")[0] not in PRODUCT:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return importlib.import_module(spec.name.partition(".")[2])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module ran when it was imported under its own name."""


if not (Path(__file__).parent / "core").is_dir():  # the checkout's: the product lies beside it
    sys.meta_path.insert(0, _Checkout())
