"""`memory check` and `memory repair`: print what memory/engine/repair.py finds and fixes.

Exit 0 when the store is healthy (after the repair, for `repair`), else cli.errors.EXIT_STORE.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from cli.errors import EXIT_STORE

if TYPE_CHECKING:
    from memory.engine.repair import FolderReport


def _print_report(report: FolderReport, args: argparse.Namespace) -> None:
    if args.json:
        from dataclasses import asdict

        print(json.dumps({**asdict(report), "problems": report.problems}, ensure_ascii=False))
        return
    for action in report.actions:
        print(f"repaired: {action}")
    print(f"store {report.folder}")
    print(f"  database: {report.database} ({report.records} readable records)")
    print(f"  index: {report.index}")
    if report.access == "read-only":
        print("  access: read-only (readable; runs cannot save memory here, repair cannot fix it)")
    for problem in report.problems:
        print(f"  problem: {problem}")
    if report.problems and not report.actions:
        print(f"  fix: {args.prog} --home {args.home} memory repair")


def check(args: argparse.Namespace) -> int:
    from memory.engine.backend import MEMORY_DIR
    from memory.engine.repair import check_folder

    report = check_folder(Path(args.home) / MEMORY_DIR)
    _print_report(report, args)
    return EXIT_STORE if report.problems else 0


def repair(args: argparse.Namespace) -> int:
    import os

    from cli.commands import models_of
    from cli.errors import UsageError
    from memory.engine.backend import MEMORY_DIR
    from memory.engine.repair import repair_folder

    folder = Path(args.home) / MEMORY_DIR
    if folder.is_dir() and not os.access(folder, os.W_OK):
        raise UsageError(
            f"the memory folder {folder} is read-only: repair changes files there; make it "
            f"writable (see `{args.prog} --home {args.home} memory check`)"
        )
    report = repair_folder(folder, models_of(args).embeddings(args.embedding_model))
    _print_report(report, args)
    return EXIT_STORE if report.problems else 0
