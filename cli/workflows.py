"""`main.py workflows …`: induce (offline/online), list, show, search, delete, export and import
workflows (AWM)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cli.errors import CommandFailed, UsageError
from memory.labels import slugify
from memory.workflows.format import workflow_text
from memory.workflows.types import Workflow

if TYPE_CHECKING:
    from memory.agent_memory import AgentMemory


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "workflows",
        help="induce, inspect and search workflow memory (AWM)",
        description="Workflows and the runs they are learned from (trajectories) live in the "
        "project's store under HOME/memory/. `export FOLDER` writes them as files a person reads "
        "and edits (FOLDER/workflows/<website>.txt in AWM's text format, "
        "FOLDER/trajectories/<website>.jsonl); `import FOLDER` reads such files back.",
    )
    sub = p.add_subparsers(dest="workflows_command", metavar="ACTION", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    common.add_argument("--website", default=None, help="only this website's workflows")
    common.add_argument(
        "--embedding-model",
        default="local",
        help="embeddings the store was built with: 'local' (default), 'hashing' or "
        "'provider:model'",
    )

    _induce_options(
        sub.add_parser("induce", parents=[common], help="learn workflows from examples or runs")
    )

    sub.add_parser("list", parents=[common], help="every workflow")
    show = sub.add_parser("show", parents=[common], help="one workflow by name")
    show.add_argument("name")
    search = sub.add_parser("search", parents=[common], help="workflows relevant to a query")
    search.add_argument("query")
    search.add_argument("--k", type=int, default=3, help="how many (default 3)")
    search.add_argument("--mode", choices=("random", "semantic"), default="semantic")
    delete = sub.add_parser("delete", parents=[common], help="delete a workflow by name")
    delete.add_argument("name")
    export = sub.add_parser(
        "export", parents=[common], help="write workflows and trajectories as files"
    )
    export.add_argument("folder", help="where: FOLDER/workflows/, FOLDER/trajectories/")
    imp = sub.add_parser(
        "import", parents=[common], help="read workflows and trajectories from files"
    )
    imp.add_argument("folder", help="a folder as `export` writes it (or an older HOME)")
    imp.add_argument(
        "--trust",
        action="store_true",
        help="the files are this agent's own: keep their workflows as trusted and learn from "
        "their trajectories (default: workflows untrusted, quoted in prompts as data; "
        "trajectories left out)",
    )
    p.set_defaults(func=handle)


def _induce_options(induce: argparse.ArgumentParser) -> None:
    source = induce.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--offline",
        metavar="FILE",
        help="annotated examples: JSON list, or an AWM Mind2Web prompt .txt",
    )
    source.add_argument("--online", action="store_true", help="from recorded successful runs")
    induce.add_argument(
        "--trust",
        action="store_true",
        help="offline: treat the file's workflows as this agent's own (default: untrusted, "
        "quoted in prompts as data with their source)",
    )
    induce.add_argument("--model", default="local", help="'local' or 'provider:model'")
    induce.add_argument(
        "--mode",
        choices=("rule", "llm"),
        default="rule",
        help="online: keep concrete runs (rule) or abstract them (llm)",
    )


def handle(args: argparse.Namespace) -> int:
    """Run the action; unreadable or invalid input becomes a UsageError (one line, exit 2).

    Other failures (e.g. LocalModelUnavailable, exit 3) go to cli.errors as they are.
    """
    action = ACTIONS[args.workflows_command]
    try:
        return action(args)
    except (UsageError, CommandFailed):
        raise
    except (ValueError, OSError) as exc:  # a bad examples file, a bad --k, an unreadable path
        raise UsageError(f"workflows {args.workflows_command}: {exc}") from exc


def _print_workflows(workflows: list[Workflow], as_json: bool) -> None:
    if as_json:
        print(json.dumps([w.to_json() for w in workflows], ensure_ascii=False))
        return
    for w in workflows:
        mark = "" if w.provenance.trusted else "  [untrusted: quoted in prompts]"
        print(f"{w.website}/{w.name}  ({len(w.steps)} steps)  {w.description}{mark}")


def _examples(path: str) -> list[Any]:
    """The examples of an --offline file, checked before any model loads."""
    from cli.arguments import input_file
    from memory.workflows.offline import Example, load_examples, mind2web_prompt_examples

    input_file("workflows induce --offline", path)
    if Path(path).suffix == ".txt":  # AWM's one-shot prompt files hold real Mind2Web examples
        data = mind2web_prompt_examples(Path(path).read_text(encoding="utf-8"))
        return [Example.model_validate(d) for d in data]
    return load_examples(path)  # its ValueErrors name the file: handle() makes them one line


def _induce(args: argparse.Namespace) -> int:
    from cli import validate
    from cli.commands import models_of

    examples = _examples(args.offline) if args.offline else []
    needs_model = args.offline or args.mode == "llm"
    if needs_model:
        validate.model_server(args.model)
    model = models_of(args).chat(args.model) if needs_model else None
    with _memory(args) as memory:
        summary = _induced(args, examples, model, memory)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        for site, info in summary.items():
            kept = ", ".join(info["kept"]) or "none"
            print(f"{site}: kept {len(info['kept'])} ({kept}); dropped {len(info['dropped'])}")
            for reason in info["dropped"]:
                print(f"  dropped {reason}")
    return 0


@contextmanager
def _memory(args: argparse.Namespace) -> Iterator[AgentMemory]:
    """The project's store under HOME, as a run opens it, closed after the action."""
    from cli.commands import models_of
    from memory.agent_memory import AgentMemory
    from memory.stores.project_store import open_project_store

    with open_project_store(args.home, args.embedding_model, models=models_of(args)) as store:
        yield AgentMemory(store)


def _induced(
    args: argparse.Namespace, examples: list[Any], model: Any, memory: AgentMemory
) -> dict[str, dict[str, Any]]:
    """What induction kept and dropped per website, from --offline examples or recorded runs."""
    if args.offline:
        from memory.workflows.offline import induce_offline

        report = induce_offline(
            examples,
            model=model,
            memory=memory,
            spec=args.model,
            website=args.website,
            source=str(Path(args.offline).resolve()),
            trusted=args.trust,
        )
        return report.summary()
    from memory.workflows.online import induce_online

    results = induce_online(
        memory, mode=args.mode, model=model, spec=args.model, website=args.website
    )
    if not results:
        print("workflows induce: no successful runs recorded yet", file=sys.stderr)
    return {
        site: {
            "kept": [w.name for w in r.kept],
            "dropped": r.dropped,
            "trajectories_used": r.examples_used,
        }
        for site, r in results.items()
    }


def _list(args: argparse.Namespace) -> int:
    with _memory(args) as memory:
        _print_workflows(memory.workflows(args.website), args.json)
    return 0


def _show(args: argparse.Namespace) -> int:
    with _memory(args) as memory:
        found = [w for w in memory.workflows(args.website) if w.name == slugify(args.name)]
    if not found:
        raise CommandFailed(f"workflows show: no workflow named {args.name!r}")
    if args.json:
        print(json.dumps([{**w.to_json(), "provenance": w.provenance.to_dict()} for w in found]))
    else:
        print(
            "\n\n".join(
                f"<!-- {w.website}; {w.provenance.describe()} -->\n{workflow_text(w)}"
                for w in found
            )
        )
    return 0


def _search(args: argparse.Namespace) -> int:
    from memory.workflows.retrieval import retrieve

    if args.k < 1:
        raise ValueError("--k must be at least 1")
    with _memory(args) as memory:
        assert memory.store is not None
        hits = retrieve(
            args.query, store=memory.store, k=args.k, mode=args.mode, website=args.website
        )
    if args.json:
        print(json.dumps([{**h.workflow.to_json(), "score": round(h.score, 4)} for h in hits]))
    else:
        for h in hits:
            print(
                f"{h.score:.3f}  {h.workflow.website}/{h.workflow.name}  {h.workflow.description}"
            )
    return 0


def _delete(args: argparse.Namespace) -> int:
    with _memory(args) as memory:
        removed = memory.delete_workflow(args.name, args.website)
    if not removed:
        raise CommandFailed(f"workflows delete: no workflow named {args.name!r}")
    print(f"deleted {removed}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from memory.exchange import export_memory

    with _memory(args) as memory:
        moved = export_memory(memory, args.folder, args.website)
    if args.json:
        print(json.dumps({**moved.summary(), "folder": str(Path(args.folder).resolve())}))
    else:
        print(
            f"exported {moved.workflows} workflows and {moved.trajectories} trajectories "
            f"to {args.folder}"
        )
    return 0


def _import(args: argparse.Namespace) -> int:
    from memory.exchange import import_memory

    if not Path(args.folder).is_dir():
        raise UsageError(f"workflows import {args.folder}: no such folder")
    with _memory(args) as memory:
        moved = import_memory(memory, args.folder, website=args.website, trust=args.trust)
    for problem in moved.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    if args.json:
        print(json.dumps(moved.summary()))
        return 0
    trust = "" if args.trust else " (untrusted: quoted in prompts as data; --trust to trust)"
    print(f"imported {moved.workflows} workflows{trust} and {moved.trajectories} trajectories")
    if moved.left_out:
        print(f"left out {moved.left_out} trajectories: --trust to learn from them")
    return 0


ACTIONS = {
    "induce": _induce,
    "list": _list,
    "show": _show,
    "search": _search,
    "delete": _delete,
    "export": _export,
    "import": _import,
}
