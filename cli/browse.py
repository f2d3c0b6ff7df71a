"""`browse URL`: what the agent's browser sees at a URL, through the same origin guard.

    main.py browse https://example.com/ [--allow-origin ORIGIN ...] [--screenshot FILE] [--json]

Opens the page in the guarded browser the agents use (browser.env.BrowserEnv): the URL's own
origin is allowed, as a start page is, and anything else only when `--allow-origin` names it.
Prints the observation the agent would get (tabs, URL, accessibility tree with [ids]); every
request the guard refused while the page loaded is listed on stderr (`blocked: URL`), or in
the JSON object (`url`, `title`, `observation`, `blocked`, `allowed`). `--screenshot FILE`
also writes the PNG of the viewport that the web agent gets with its `observation` setting
'screenshot' or 'both' (the same environment takes it, after the same guard).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from cli import validate
from cli.arguments import output_file
from cli.errors import UsageError

SETTLE_S = 0.5  # scripts' late requests (fetch, timers) get this long to show up as blocked


class PageUnavailable(RuntimeError):
    """The page could not be loaded (no server, DNS, TLS); the message says why."""


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "browse",
        help="show what the agent's browser sees at a URL",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("url", help="the page to open (a path opens a local file)")
    p.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also allow this origin (repeatable; '*' = any public origin; private and "
        "link-local addresses only by name)",
    )
    p.add_argument(
        "--screenshot",
        metavar="FILE",
        default=None,
        help="also write the PNG of the viewport the agent sees to FILE",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(func=handle)


def _target(url: str) -> str:
    """A URL the browser can open: local paths become file URLs, bare hosts get https://."""
    from browser.origins import origin_of
    from browser.session import normalize_url

    path = Path(url).expanduser()
    if "://" not in url and path.exists():
        if path.is_dir():
            raise UsageError(f"browse: {path} is a folder: give a page's file or a URL")
        return path.resolve().as_uri()
    if "://" not in url and url.startswith(("/", "./", "../", "~")):
        raise UsageError(f"browse: {path}: no such file")
    url = normalize_url(url)
    try:
        origin = origin_of(url)
    except ValueError as exc:  # e.g. "Invalid IPv6 URL", raised by urllib's parser
        raise UsageError(f"browse: {url!r} is not a valid URL ({exc})") from None
    if not url.startswith("file:") and origin is None:
        raise UsageError(f"browse: {url!r} is not an http(s) or file URL")
    return url


async def _browse(url: str, allowed: tuple[str, ...], shot: Path | None = None) -> dict[str, Any]:
    import asyncio

    from browser.env import BrowserEnv, EnvConfig

    config = EnvConfig(allowed_origins=allowed, screenshot=shot is not None)
    async with BrowserEnv(config) as env:
        try:
            observation = await env.reset(url)
        except RuntimeError as err:
            raise PageUnavailable(str(err)) from err
        await asyncio.sleep(SETTLE_S)
        observation = await env.observe()
        if shot is not None and observation.screenshot:
            try:
                shot.write_bytes(observation.screenshot)
            except OSError as exc:  # e.g. no permission, a full disk
                raise UsageError(f"browse: cannot write {shot}: {exc.strerror or exc}") from exc
        return {
            "url": observation.url,
            "title": observation.tabs[0].title if observation.tabs else "",
            "observation": observation.text,
            "blocked": env.take_blocked(),
            "allowed": list(env.policy.allowed),
        }


def handle(args: argparse.Namespace) -> int:
    import asyncio
    import json

    from browser.origins import OriginPolicy

    if not args.url.strip():
        raise UsageError("browse: the URL is empty: give a page, e.g. https://example.org/")
    validate.path_given("browse: --screenshot", args.screenshot)
    allowed = tuple(args.allow_origin)
    if not all(entry.strip() for entry in allowed):
        raise UsageError("browse: --allow-origin is empty: give an origin, or leave it out")
    try:
        OriginPolicy(allowed)
    except ValueError as err:
        raise UsageError(f"browse: --allow-origin: {err}") from err
    shot = output_file("browse: --screenshot", args.screenshot) if args.screenshot else None
    result = asyncio.run(_browse(_target(args.url), allowed, shot))
    if shot is not None:
        result["screenshot"] = str(shot)
        print(f"screenshot: {shot}", file=sys.stderr)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(result["observation"])
    for url in result["blocked"]:
        print(f"blocked: {url}", file=sys.stderr)
    return 0
