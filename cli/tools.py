"""`tools list`: every tool the executor of a run would get, with the same options as `run`.

    main.py tools list [--corpus DIR] [--no-browser] [--mcp FILE] [--json]

Corpus search (with --corpus), Tavily web search (with TAVILY_API_KEY), the browser tools
(unless --no-browser; chromium is not started) and each MCP server's tools, named
`<server>_<tool>` (every server is started once to list them; one that fails is named).
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "tools",
        help="list the tools the executor would get",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = sub.add_parser("list", help="list every tool, its source and its arguments")
    listing.add_argument("--corpus", default=None, help="folder of documents to search offline")
    listing.add_argument("--no-browser", action="store_true", help="without the browser tools")
    listing.add_argument("--mcp", metavar="FILE", default=None, help="MCP servers (as for run)")
    listing.add_argument("--json", action="store_true", help="print a JSON list on stdout")
    p.set_defaults(func=handle)


def source(tool: Any) -> str:
    """Where a tool comes from: corpus, tavily, browser or mcp:<server>."""
    server = (tool.metadata or {}).get("mcp_server")
    if server:
        return f"mcp:{server}"
    if tool.name.startswith("browser_"):
        return "browser"
    return {"corpus_search": "corpus", "web_search": "tavily"}.get(tool.name, "run")


def describe(tool: Any) -> dict[str, Any]:
    return {
        "name": tool.name,
        "source": source(tool),
        "description": " ".join(str(tool.description).split()),
        "args": dict(tool.args),
    }


def handle(args: argparse.Namespace) -> int:
    from agents import resources
    from cli import validate
    from cli.run import mcp_servers
    from core.context import Context

    validate.path_given("--corpus", args.corpus)
    validate.path_given("--mcp", args.mcp)
    ctx = Context(home=args.home, use_browser=not args.no_browser)
    if args.corpus:
        ctx.corpus_dir = validate.corpus(args.corpus, ctx.cache)
    if args.mcp:
        ctx.mcp_servers = mcp_servers(args.mcp)
    if getattr(args, "tools", None) is not None:
        ctx.tools = args.tools
    from cli.shutdown import terminate_as_interrupt

    # SIGTERM as Ctrl-C: the MCP servers started to list their tools end with the command
    with terminate_as_interrupt(), resources.open_tools(ctx) as tools:
        found = [describe(t) for t in tools]
    if args.json:
        print(json.dumps(found, ensure_ascii=False, indent=2))
        return 0
    if not found:
        print("(no tools: the executor answers from the model alone)")
        return 0
    width = max(len(t["name"]) for t in found)
    for t in found:
        text = t["description"]
        text = text if len(text) <= 100 else text[:99] + "…"
        print(f"{t['name']:<{width}}  [{t['source']}] {text}")
    return 0
