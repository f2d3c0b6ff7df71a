"""`main.py memory …`: list, show, search, export, import, delete and clear stored reflections."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from core.models import get_embeddings
from memory.record_store import EmbedderMismatchError
from memory.reflections import ReflectionManager, open_reflection_manager
from memory.schema import Reflection

SEARCH_FIELDS = ("id", "task", "reflection")


class ImportFileError(ValueError):
    """A line of an import file is not a valid reflection; nothing was imported."""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "memory",
        help="inspect and manage reflection memory",
        description="Reflections live under HOME/memory/ (SQLite + FAISS). Export/import use JSON "
        "Lines, one reflection per line; embeddings are recomputed on import.",
    )
    sub = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    common.add_argument("--namespace", default="default", help="project/user namespace")
    common.add_argument(
        "--embedding-model",
        default="local",
        help="embeddings the store was built with (default: local)",
    )
    sub.add_parser("list", parents=[common], help="every reflection, oldest first")
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
    imp = sub.add_parser("import", parents=[common], help="read JSON Lines; all lines or none")
    imp.add_argument("file")
    delete = sub.add_parser("delete", parents=[common], help="delete one reflection by id")
    delete.add_argument("id")
    sub.add_parser(
        "reembed",
        parents=[common],
        help="re-compute every vector with --embedding-model and adopt it",
    )
    clear = sub.add_parser("clear", parents=[common], help="delete every reflection here")
    clear.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    try:
        if args.memory_command == "reembed":
            return _reembed(args)
        manager = open_reflection_manager(args.home, args.embedding_model, args.namespace)
        return ACTIONS[args.memory_command](manager, args)
    except (EmbedderMismatchError, ImportFileError, OSError, ValueError) as exc:
        print(f"memory {args.memory_command}: {exc}", file=sys.stderr)
        return 1


def _print_json(data: object) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=None))


def _line(r: Reflection) -> str:
    verdict = "retry" if r.judgment.needs_retry else "ok"
    return f"{r.id}  {r.kind:<10} imp={r.importance:.2f} {verdict:<5} {r.task} — {r.reflection}"


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


def _search(m: ReflectionManager, args: argparse.Namespace) -> int:
    if args.k < 1:
        raise ValueError("--k must be at least 1")
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
        print(
            f"{rank}. score={p.score:.3f} (rel={p.relevance:.3f} rec={p.recency:.3f} "
            f"imp={p.importance:.2f})  {s.reflection.id}  {s.reflection.task} — "
            f"{s.reflection.reflection}"
        )
    if not found:
        print("(no matches)")
    return 0


def _export(m: ReflectionManager, args: argparse.Namespace) -> int:
    lines = [
        json.dumps(r.model_dump(mode="json"), ensure_ascii=False) + "\n"
        for r in m.list_reflections()
    ]
    if args.file == "-":
        sys.stdout.writelines(lines)
        return 0
    Path(args.file).write_text("".join(lines), encoding="utf-8")
    if args.json:
        _print_json({"exported": len(lines), "file": str(Path(args.file).resolve())})
    else:
        print(f"exported {len(lines)} reflections to {args.file}")
    return 0


def read_jsonl(path: str) -> list[Reflection]:
    """Every line validated first, so a bad file imports nothing (no half-imported memory)."""
    text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    found: list[Reflection] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            found.append(Reflection.model_validate(json.loads(raw)))
        except (json.JSONDecodeError, ValidationError) as exc:
            reason = (
                str(exc).splitlines()[0]
                if isinstance(exc, json.JSONDecodeError)
                else "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            )
            raise ImportFileError(
                f"{path}:{number}: not a valid reflection ({reason}); nothing was imported"
            ) from exc
    return found


def _import(m: ReflectionManager, args: argparse.Namespace) -> int:
    found = read_jsonl(args.file)
    m.save_many(found)  # one transaction: all lines or none
    if args.json:
        _print_json({"imported": len(found), "ids": [r.id for r in found]})
    else:
        print(f"imported {len(found)} reflections into namespace {args.namespace!r}")
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
    manager = ReflectionManager.open(
        args.home, get_embeddings(args.embedding_model), args.namespace, reembed=True
    )
    total = manager.backend.records.count()
    manager.backend.rebuild_index()
    manager.close()
    if args.json:
        _print_json({"reembedded": total, "embedding_model": args.embedding_model})
    else:
        print(f"re-embedded {total} items with {args.embedding_model}")
    return 0


ACTIONS = {
    "list": _list,
    "show": _show,
    "search": _search,
    "export": _export,
    "import": _import,
    "delete": _delete,
    "clear": _clear,
}
