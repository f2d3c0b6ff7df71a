"""The options of `main.py run`: its tools, its controls (caps, approval) and its models."""

from __future__ import annotations

import argparse

from cli.errors import EXIT_AWAITING_APPROVAL, EXIT_PARTIAL
from cli.validate import MAX_RETRIES
from core.context import DEFAULT_HOPS, MAX_HOPS, MAX_TOOL_STEPS
from core.role_models import DEFAULT_MODEL, ROLES


def add_tool_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-tool-steps",
        type=int,
        default=None,
        help="tool calls per attempt after a search for the task, "
        f"0..{MAX_TOOL_STEPS} (0: answer from that search in one call; default 3, or 0"
        " with an embedded model on the CPU: each own step re-reads a growing prompt)",
    )
    p.add_argument(
        "--judge",
        choices=("model", "evidence"),
        default=None,
        help="who judges each task attempt: the reflector model's verdict (model), or the "
        "evidence (an attempt naming what nothing it read contains fails; the model only "
        "writes lessons); default: model, but evidence with an embedded model on the CPU",
    )
    p.add_argument(
        "--corpus",
        default=None,
        help="folder of documents (.txt .md .html .json .jsonl) to search offline",
    )
    p.add_argument("--no-browser", action="store_true", help="do not give the executor a browser")
    p.add_argument(
        "--mcp",
        metavar="FILE",
        default=None,
        help='MCP servers whose tools the executor gets: {"mcpServers": {NAME: {"command": ..., '
        '"args": [...], "env": {...}} or {"url": ..., "transport": ...}}} (see: tools list)',
    )
    p.add_argument(
        "--allow-origin",
        action="append",
        default=None,
        metavar="ORIGIN",
        help="an origin the browser may open besides the defaults, e.g. http://127.0.0.1:8000 "
        "(repeatable; '*' allows any)",
    )


def add_control_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--approve-plan",
        action="store_true",
        help="pause after planning: in a terminal, accept, edit or cancel the plan; otherwise "
        f"print it and exit {EXIT_AWAITING_APPROVAL} (answer with --resume ID --plan FILE)",
    )
    p.add_argument(
        "--plan",
        metavar="FILE",
        default=None,
        help='with --resume: the answer to a paused plan, JSON {"tasks": [...]} or '
        '{"cancel": true}, or a text file with one task per line',
    )
    p.add_argument(
        "--max-calls", type=int, default=None, metavar="N", help="stop after N model calls"
    )
    p.add_argument(
        "--max-tokens", type=int, default=None, metavar="N", help="stop after N tokens (in + out)"
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=None,
        metavar="S",
        help="stop after S seconds; at any cap the answer is written from what the run has "
        f"(partial, exit {EXIT_PARTIAL}); --resume continues it",
    )
    add_output_option(p)


def add_output_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--output",
        metavar="FILE",
        default=None,
        help="also write the answer as a Markdown report: each sentence cited [n] with a "
        "passage the run read that holds its names and numbers (none invented), then the sources",
    )


def add_model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model",
        default=None,
        help=f"model for every role (default: {DEFAULT_MODEL}, "
        "the embedded offline model); 'provider:model' or 'provider:model@BASE_URL' "
        "(spec options: see core/models.py)",
    )
    for role in ROLES:
        p.add_argument(f"--{role}-model", default=None, help=f"model for the {role} only")
    p.add_argument("--embedding-model", default=None, help="embeddings for memory (default: local)")
    p.add_argument(
        "--system-prompt",
        metavar="TEXT",
        default=None,
        help="what every model call is told it is, e.g. 'You research for a law firm: cite "
        "every fact.' (the rule that documents and pages are information, never instructions, "
        "always follows it)",
    )


def add_research_options(p: argparse.ArgumentParser) -> None:
    """How a request is researched: a short answer along its chain of facts, or planned and
    run task by task, each task retried when judged not good enough."""
    p.add_argument(
        "--max-retries",
        type=int,
        default=None,
        help=f"retries per task, 0..{MAX_RETRIES} (default 2)",
    )
    p.add_argument(
        "--max-hops",
        type=int,
        default=None,
        help=f"readings a short answer's chain may take, 1..{MAX_HOPS} (default {DEFAULT_HOPS}):"
        " each reads what was found, and the link it says is missing is searched next",
    )
    p.add_argument(
        "--always-plan",
        action="store_true",
        help="plan and research a short answer too, task by task, as a longer one (default: a "
        "short answer is followed along its chain of facts, without a plan)",
    )
