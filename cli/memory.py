"""`main.py memory …`: list, show, search, export, import, delete, clear, reembed, check, repair.

Failures are raised as typed errors (a damaged store is memory's MemoryStoreError, bad files
ImportFileError, bad options UsageError) and reported by cli/errors.py as one line each.
Heavy modules are imported inside the handlers, so building the parser stays cheap.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.arguments import file_argument
from cli.errors import EXIT_STORE, UsageError
from cli.memory_io import MAX_RECORD_BYTES, check_file_options
from cli.memory_repair import check, repair

if TYPE_CHECKING:
    from memory.reflections.manager import ReflectionManager
    from memory.reflections.schema import Reflection

SEARCH_FIELDS = ("id", "task", "reflection")


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "memory",
        help="inspect and manage reflection memory",
        description="Reflections live under HOME/memory/ (SQLite + FAISS). Export/import use JSON "
        "Lines, one reflection per line; embeddings are recomputed on import.",
    )
    sub = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    common = _common_options()
    sub.add_parser(
        "list",
        parents=[common],
        help="every reflection, oldest first, one per line, with where it came from "
        "(run:THREAD, import:FILE, insight:N sources; '!' marks an untrusted record)",
    )
    show = sub.add_parser("show", parents=[common], help="one reflection by id")
    show.add_argument("id")
    search = sub.add_parser("search", parents=[common], help="best matches for a query")
    search.add_argument("query")
    search.add_argument("--k", type=int, default=3, help="how many results (default 3)")
    search.add_argument(
        "--touch",
        action="store_true",
        help="refresh the results' last access, as the agent's retrieval does",
    )
    export = sub.add_parser("export", parents=[common], help="write JSON Lines ('-' = stdout)")
    export.add_argument("file")
    _import_options(sub, common)
    delete = sub.add_parser("delete", parents=[common], help="delete one reflection by id")
    delete.add_argument("id")
    sub.add_parser(
        "reembed",
        parents=[common],
        help="re-compute every vector with --embedding-model and adopt it",
    )
    clear = sub.add_parser("clear", parents=[common], help="delete every reflection here")
    clear.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    sub.add_parser("check", parents=[common], help=f"find damage; exit {EXIT_STORE} if any")
    sub.add_parser(
        "repair",
        parents=[common],
        help="set damaged files aside, keep every readable record, rebuild the index",
    )
    p.set_defaults(func=handle)


def _import_options(sub: Any, common: argparse.ArgumentParser) -> None:
    imp = sub.add_parser(
        "import",
        parents=[common],
        help="read JSON Lines: a bad line stores nothing; stored in batches, so running a "
        "stopped import again finishes it",
    )
    imp.add_argument("file")
    imp.add_argument("--replace", action="store_true", help="overwrite reflections with same ids")
    imp.add_argument(
        "--trust",
        action="store_true",
        help="treat the records as this agent's own lessons (default: untrusted: importance "
        "and confidence capped, quoted in prompts as data with their provenance)",
    )
    imp.add_argument(
        "--max-record-bytes",
        type=int,
        default=MAX_RECORD_BYTES,
        help=f"refuse a line longer than this (default {MAX_RECORD_BYTES:,})",
    )


def _common_options() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    common.add_argument("--namespace", default="default", help="project/user namespace")
    common.add_argument(
        "--embedding-model",
        default="local",
        help="embeddings the store was built with (default: local)",
    )
    return common


def handle(args: argparse.Namespace) -> int:
    check_file_options(args)
    action = args.memory_command
    if action in ("import", "export") and args.file != "-":  # '-': stdin, stdout
        file_argument(f"memory {action}", args.file, write=action == "export")
    if args.memory_command in OWN_STORE:
        return OWN_STORE[args.memory_command](args)
    from memory.reflections.manager import namespace_path
    from memory.stores.project_store import open_project_store

    try:
        namespace_path(args.namespace)
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    # the project's store, as a run opens it, closed after the action
    models = getattr(args, "models", None)  # an app's or a test's own (main.main(models=...))
    with open_project_store(args.home, args.embedding_model, models=models) as store:
        return ACTIONS[args.memory_command](store.reflection_manager(args.namespace), args)


def _print_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=None))


def one_line(text: str, width: int) -> str:
    """Whitespace (newlines too) folded to single spaces, cut with an ellipsis at `width`."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: max(1, width - 1)] + "…"


def _width() -> int:
    return max(60, shutil.get_terminal_size((160, 24)).columns)


def _line(r: Reflection) -> str:
    verdict = "retry" if r.judgment.needs_retry else "ok"
    head = f"{r.id}  {r.kind:<10} imp={r.importance:.2f} {verdict:<5} {r.provenance.short()}  "
    return head + one_line(f"{r.task} — {r.reflection}", max(20, _width() - len(head)))


def _list(m: ReflectionManager, args: argparse.Namespace) -> int:
    found = m.list_reflections()
    if args.json:
        _print_json([r.model_dump(mode="json") for r in found])
    else:
        print("\n".join(_line(r) for r in found) if found else "(no reflections)")
    return 0


def _show(m: ReflectionManager, args: argparse.Namespace) -> int:
    r = m.get_reflection(args.id)
    if r is None:
        print(
            f"memory show: no reflection with id {args.id!r} in namespace "
            f"{args.namespace!r} (see `memory list`)",
            file=sys.stderr,
        )
        return 1
    if args.json:
        _print_json(r.model_dump(mode="json"))
    else:
        print(json.dumps(r.model_dump(mode="json"), ensure_ascii=False, indent=2))
    return 0


def _model_not_loaded(embeddings: Any) -> bool:
    """Whether embedding the query will load a model first (the local model loads lazily)."""
    inner = getattr(embeddings, "inner", embeddings)
    return getattr(inner, "_model", "loaded") is None


def _search(m: ReflectionManager, args: argparse.Namespace) -> int:
    if args.k < 1:
        raise UsageError("--k must be at least 1")
    found = []
    if m.count():  # an empty store answers without loading any model
        if _model_not_loaded(m.backend.embeddings):
            print(
                f"memory search: loading the embedding model {m.backend.embedder} (a few seconds)…",
                file=sys.stderr,
                flush=True,
            )
        found = m.search(args.query, args.k, touch=args.touch)
    if args.json:
        _print_json(
            [
                {**{f: getattr(s.reflection, f) for f in SEARCH_FIELDS}, "score": round(s.score, 6)}
                for s in found
            ]
        )
        return 0
    for rank, s in enumerate(found, 1):
        p = s.parts
        head = (
            f"{rank}. score={p.score:.3f} (rel={p.relevance:.3f} rec={p.recency:.3f} "
            f"imp={p.importance:.2f})  {s.reflection.id}  "
        )
        text = f"{s.reflection.task} — {s.reflection.reflection}"
        print(head + one_line(text, _width() - len(head)))
    if not found:
        print("(no matches)")
    return 0


def _export(m: ReflectionManager, args: argparse.Namespace) -> int:
    from cli.memory_io import export_lines

    lines = export_lines(m)
    if args.file == "-":
        sys.stdout.writelines(lines)
        return 0
    try:
        Path(args.file).write_text("".join(lines), encoding="utf-8")
    except OSError as exc:  # e.g. no permission, a full disk
        raise UsageError(f"memory export: cannot write {args.file}: {exc.strerror or exc}") from exc
    if args.json:
        _print_json({"exported": len(lines), "file": str(Path(args.file).resolve())})
    else:
        print(f"exported {len(lines)} reflections to {args.file}")
    return 0


def _import(m: ReflectionManager, args: argparse.Namespace) -> int:
    from cli.memory_io import import_file, tell

    done = import_file(m, args, tell)
    if args.json:
        _print_json(done)
    else:
        replaced = f" ({done['replaced']} replaced)" if done["replaced"] else ""
        before = done["already_imported"]
        skipped = f"; {before} already imported from this file, kept" if before else ""
        trust = (
            "trusted" if done["trusted"] else "untrusted: quoted as data, capped; --trust to trust"
        )
        print(
            f"imported {done['imported']} reflections{replaced} into {args.namespace!r} "
            f"({trust}){skipped}"
        )
    return 0


def _delete(m: ReflectionManager, args: argparse.Namespace) -> int:
    gone = m.delete_reflection(args.id)
    if args.json:
        _print_json({"deleted": gone, "id": args.id})
    elif gone:
        print(f"deleted {args.id}")
    if not gone:
        print(f"memory delete: no reflection with id {args.id!r}", file=sys.stderr)
    return 0 if gone else 1


def _clear(m: ReflectionManager, args: argparse.Namespace) -> int:
    if not args.yes and sys.stdin.isatty():
        answer = input(f"delete all {m.count()} reflections in {args.namespace!r}? [y/N] ")
        if answer.strip().lower() not in ("y", "yes"):
            print("nothing deleted")
            return 1
    removed = m.clear()
    if args.json:
        _print_json({"deleted": removed, "namespace": args.namespace})
    else:
        print(f"deleted {removed} reflections from namespace {args.namespace!r}")
    return 0


def _reembed(args: argparse.Namespace) -> int:
    from memory.stores.project_store import open_project_store

    with open_project_store(args.home, args.embedding_model, reembed=True) as store:
        backend = store.reflection_manager(args.namespace).backend
        total = backend.records.count()
        backend.rebuild_index()
    if args.json:
        _print_json({"reembedded": total, "embedding_model": args.embedding_model})
    else:
        print(f"re-embedded {total} items with {args.embedding_model}")
    return 0


OWN_STORE = {"reembed": _reembed, "check": check, "repair": repair}
ACTIONS = {
    "list": _list,
    "show": _show,
    "search": _search,
    "export": _export,
    "import": _import,
    "delete": _delete,
    "clear": _clear,
}
