"""`run`: run the agent on one task, streaming progress, durable across interruptions."""

from __future__ import annotations

import argparse
import json
import os
import uuid
from dataclasses import fields
from pathlib import Path
from typing import Any

from cli import run_options, validate
from cli.commands import models_of
from cli.errors import UsageError
from core.context import MAX_HOPS, MAX_TOOL_STEPS, Context, settings_of

ROLES = run_options.ROLES


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "run",
        help="run the agent on a task",
        description="Plan, execute with tools, reflect and retry, then print the final answer. "
        "Progress goes to stderr, the answer (or --json) to stdout. Every run is checkpointed; "
        "an interrupted run continues with --resume THREAD_ID.",
    )
    p.add_argument(
        "task",
        nargs="?",
        help=f"what to do, at most {validate.MAX_TASK_CHARS:,} characters (omit with --resume)",
    )
    run_options.add_model_options(p)
    run_options.add_research_options(p)
    run_options.add_tool_options(p)
    run_options.add_control_options(p)
    p.add_argument(
        "--induction",
        choices=("rule", "llm", "off"),
        default=None,
        help="learn workflows from tasks judged good enough (default: rule)",
    )
    p.add_argument(
        "--graph",
        choices=("reflective", "single-path"),
        default=None,
        help="reflective (default) or the single-path baseline",
    )
    p.add_argument(
        "--memory-url",
        metavar="URL",
        default=None,
        help="keep memory in a PostgreSQL database shared with other workers "
        "(postgresql://USER@HOST/DB; default $AGENT_MEMORY_URL, else memory lives under "
        "--home only); the home keeps this machine's search mirror",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.add_argument(
        "--resume",
        metavar="THREAD_ID",
        default=None,
        help="continue an interrupted run (the id `run` printed; omit the task)",
    )
    p.set_defaults(func=handle)


def _context_from_args(args: argparse.Namespace, record: dict[str, Any]) -> Context:
    """The run's context: a resumed run's saved settings (`record`, its run file), the flags
    given over them."""
    saved = record.get("context", {})
    values = {k: v for k, v in saved.items() if k in {f.name for f in fields(Context)}}
    if args.model:  # every role, a saved run's own role models too (a run saved with four)
        values["model"] = args.model
        values.update(dict.fromkeys((f"{role}_model" for role in ROLES), None))
    for role in ROLES:
        if getattr(args, f"{role}_model"):
            values[f"{role}_model"] = getattr(args, f"{role}_model")
    overrides = {
        "embedding_model": args.embedding_model,
        "system_prompt": validate.system_prompt(args.system_prompt),
        "max_retries": args.max_retries,
        "max_hops": hops
        if (hops := args.max_hops) is None
        else validate.bounded("--max-hops", hops, 1, MAX_HOPS),
        "max_tool_steps": args.max_tool_steps,
        "model_verdicts": None if args.judge is None else args.judge == "model",
        "corpus_dir": args.corpus,
        "induction": args.induction,
        "max_calls": args.max_calls,
        "max_tokens": args.max_tokens,
        "max_seconds": args.max_seconds,
    }
    values.update({k: v for k, v in overrides.items() if v is not None})
    if args.no_browser:
        values["use_browser"] = False
    if args.approve_plan:
        values["approve_plan"] = True
    if args.always_plan:
        values["answer_first"] = False
    mcp_file = args.mcp or record.get("mcp_file")  # recorded beside the settings, not in them
    if mcp_file:
        values["mcp_servers"] = mcp_servers(mcp_file)
    if args.allow_origin:
        values["allowed_origins"] = [validate.origin(o) for o in args.allow_origin]
    values["home"] = args.home
    values["models"] = models_of(args)
    if getattr(args, "tools", None) is not None:
        values["tools"] = args.tools
    return Context(**values)


def mcp_servers(path: str) -> dict[str, Any]:
    """The servers of an MCP configuration file; a bad file is a UsageError (exit 2)."""
    from agents.tools.mcp import McpConfigError, read_config

    try:
        return read_config(path)
    except McpConfigError as exc:
        raise UsageError(f"--mcp: {exc}") from exc


def _validate(ctx: Context, args: argparse.Namespace) -> None:
    if not args.resume:
        validate.task(args.task, args.prog)
    args.output = validate.output_file("--output", args.output)
    validate.bounded("--max-retries", ctx.max_retries, 0, validate.MAX_RETRIES)
    if ctx.max_tool_steps is not None:
        validate.bounded("--max-tool-steps", ctx.max_tool_steps, 0, MAX_TOOL_STEPS)
    for name in ("max_calls", "max_tokens", "max_seconds"):
        cap = getattr(ctx, name)
        if cap is not None:
            validate.positive(f"--{name.replace('_', '-')}", cap)
    specs = sorted({spec for role in ROLES if (spec := ctx.spec(role)) is not None})
    for spec in specs:  # cheapest first: a stopped server fails before any heavy import
        validate.model_server(spec)
    if ctx.corpus_dir is not None:
        ctx.corpus_dir = validate.corpus(ctx.corpus_dir, ctx.cache)
    if ctx.mcp_servers:  # each server starts once here: one that fails is named before any load
        from agents.tools.mcp import list_tools

        list_tools(ctx.mcp_servers, ctx.cache)
    # A bad spec (ModelSpecError, exit 2) or a missing embedded model (exit 3) fails here,
    # before a thread is created; cli.errors prints it as one line. The run's context keeps
    # what was built, so its nodes use the models loaded here.
    for role in ROLES:
        ctx.chat(role)


def _run_file(home: str, thread_id: str) -> Path:
    return Path(home) / "runs" / f"{thread_id}.json"


def _load_saved(args: argparse.Namespace) -> dict[str, Any]:
    return saved_run(args.home, args.resume) if args.resume else {}


def saved_run(home: str, thread: str) -> dict[str, Any]:
    """What `run` recorded of the run `thread` under `home` (its task, graph and settings)."""
    from core.jsonfile import JsonFileError, read_json_file

    path = _run_file(home, validate.thread_id(thread))
    if not path.exists():
        raise UsageError(f"no run {thread!r} in {home} (see {path.parent})")
    try:
        saved = read_json_file(path, "its file")
    except JsonFileError as exc:
        raise UsageError(f"cannot read run {thread!r}: {exc}") from exc
    return validate.saved_run(path, saved)


def _write_run_file(path: Path, record: dict[str, Any]) -> None:
    try:
        path.write_text(json.dumps(record))
    except OSError as exc:  # e.g. the disk filled since writable_home looked
        raise UsageError(
            f"cannot write {path}: {exc.strerror or exc}; free space or give another --home"
        ) from exc


def handle(args: argparse.Namespace) -> int:
    """Validate, record the run's settings under HOME/runs/, then stream it (cli.execution)."""
    if args.resume and args.task:
        raise UsageError("give a task or --resume THREAD_ID, not both")
    for option in ("corpus", "mcp", "plan"):
        validate.path_given(f"--{option}", getattr(args, option))
    if args.plan and not args.resume:
        raise UsageError("--plan answers a paused run: use it with --resume THREAD_ID")
    from cli.shutdown import terminate_as_interrupt
    from cli.thread_lock import hold_thread

    runs = validate.writable_home(args.home)
    saved = _load_saved(args)
    if args.resume:  # the run keeps what it was saved with; only flags change it
        for dest in set(getattr(args, "from_settings", ())) - {"memory_url"}:
            setattr(args, dest, None)
    _read_inputs(args)
    thread_id = args.resume or uuid.uuid4().hex[:12]
    # One process per thread (a second resume would repeat the remaining tool calls); SIGTERM
    # ends the run as Ctrl-C does, so what it started (MCP servers) ends with it.
    resume = f"{args.prog} run --resume {thread_id}"
    with hold_thread(runs, thread_id, resume), terminate_as_interrupt():
        return _start(args, runs, saved, thread_id)


def _read_inputs(args: argparse.Namespace) -> None:
    """The plan answer read and the memory URL parsed now: a bad one fails before any model
    loads, not after."""
    from cli import approval
    from cli.arguments import url

    if args.plan:
        args.plan_answer = approval.read_plan(args.plan)
    memory_url = args.memory_url or os.environ.get("AGENT_MEMORY_URL")
    if memory_url:
        url("--memory-url", memory_url, ("postgresql", "postgres"))


def _start(args: argparse.Namespace, runs: Path, saved: dict[str, Any], thread_id: str) -> int:
    ctx = _context_from_args(args, saved)
    _validate(ctx, args)
    graph_name = args.graph or saved.get("graph", "reflective")
    if not args.resume:
        # the MCP file is recorded, not its servers: their env may hold keys
        settings = {k: v for k, v in settings_of(ctx).items() if k != "mcp_servers"}
        record = {"task": args.task, "graph": graph_name, "context": settings}
        if args.mcp:
            record["mcp_file"] = str(Path(args.mcp).expanduser().resolve())
        _write_run_file(runs / f"{thread_id}.json", record)
    from cli.execution import execute_run

    return execute_run(args, ctx, graph_name, thread_id)
