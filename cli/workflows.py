"""`main.py workflows …`: induce (offline/online), list, show, search and delete workflows (AWM)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cli.errors import CommandFailed, UsageError
from memory.workflows.files import WorkflowFiles
from memory.workflows.format import workflow_text
from memory.workflows.types import Workflow


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "workflows",
        help="induce, inspect and search workflow memory (AWM)",
        description="Workflows live in HOME/workflows/<website>.txt in AWM's text format; edit or "
        "delete them by hand at any time. Successful runs are recorded in HOME/trajectories/.",
    )
    sub = p.add_subparsers(dest="workflows_command", metavar="ACTION", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="machine-readable output on stdout")
    common.add_argument("--website", default=None, help="only this website's workflows")

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
    search.add_argument(
        "--embedding-model",
        default="local",
        help="'local', 'hashing' (no model) or 'provider:model'",
    )
    delete = sub.add_parser("delete", parents=[common], help="delete a workflow by name")
    delete.add_argument("name")
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
    if args.offline:
        from memory.workflows.offline import induce_offline

        report = induce_offline(
            examples,
            model=model,
            home=args.home,
            spec=args.model,
            website=args.website,
            source=str(Path(args.offline).resolve()),
            trusted=args.trust,
        )
        summary: dict[str, dict[str, Any]] = report.summary()
    else:
        from memory.workflows.online import induce_online

        results = induce_online(
            args.home, mode=args.mode, model=model, spec=args.model, website=args.website
        )
        summary = {
            site: {
                "kept": [w.name for w in r.kept],
                "dropped": r.dropped,
                "trajectories_used": r.examples_used,
            }
            for site, r in results.items()
        }
        if not results:
            print("workflows induce: no successful runs recorded yet", file=sys.stderr)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        for site, info in summary.items():
            kept = ", ".join(info["kept"]) or "none"
            print(f"{site}: kept {len(info['kept'])} ({kept}); dropped {len(info['dropped'])}")
            for reason in info["dropped"]:
                print(f"  dropped {reason}")
    return 0


def _list(args: argparse.Namespace) -> int:
    store = WorkflowFiles(args.home)
    _print_workflows(store.load(args.website), args.json)
    for problem in store.problems():
        print(f"warning: skipped {problem}", file=sys.stderr)
    return 0


def _show(args: argparse.Namespace) -> int:
    found = WorkflowFiles(args.home).find(args.name, args.website)
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
    embeddings = None
    if args.mode == "semantic":
        from cli.commands import models_of

        embeddings = models_of(args).embeddings(args.embedding_model)
    hits = retrieve(
        args.query,
        home=args.home,
        k=args.k,
        mode=args.mode,
        embeddings=embeddings,
        website=args.website,
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
    removed = WorkflowFiles(args.home).delete(args.name, args.website)
    if not removed:
        raise CommandFailed(f"workflows delete: no workflow named {args.name!r}")
    print(f"deleted {removed}")
    return 0


ACTIONS = {"induce": _induce, "list": _list, "show": _show, "search": _search, "delete": _delete}
