"""WebArena's page-content check (`program_html`) against a live async Playwright page.

Follows HTMLContentEvaluator: per target, pick the URL ("last", explicit, or `func:` helper),
select content (whole page, a JS locator, or a `func:` helper), then check `required_contents`.
`func:` strings are parsed with `ast` and dispatched to a registry; nothing is `eval()`-ed.
"""

from __future__ import annotations

import ast
import html
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any
from urllib.parse import urlparse

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from evals.webarena.match import OR_SEPARATOR, EvaluationSkipped, exact_match, must_include

log = logging.getLogger(__name__)

Helper = Callable[..., str | Awaitable[str]]


class _PageArg:
    """Marks where a helper call takes the live page (`__page__` in the config)."""


PAGE = _PageArg()


def reddit_get_post_url(url: str) -> str:
    """The post URL (scheme://host/f/<forum>/<id>/) of a post or comment URL; others unchanged."""
    parsed = urlparse(url)
    parts = parsed.path.split("/")
    if len(parts) < 4 or parts[1] != "f":
        return url
    return f"{parsed.scheme}://{parsed.netloc}/f/{parts[2]}/{parts[3]}/"


_GITLAB_ROLE_JS = """(account) => {
  const names = [...document.querySelectorAll(
    "td[data-label='Account'] span.gl-avatar-labeled-sublabel")].map(e => e.outerText);
  const index = names.indexOf('@' + account);
  const roles = document.querySelectorAll("td.col-max-role span");
  return index >= 0 && roles[index] ? roles[index].outerText : "";
}"""


async def gitlab_get_project_member_role(page: Page, account_name: str) -> str:
    """The role shown for `account_name` on a GitLab project-members page ("" if absent)."""
    try:
        return str(await page.evaluate(_GITLAB_ROLE_JS, account_name))
    except PlaywrightError as exc:
        log.info("gitlab role lookup failed on %s: %s", page.url, exc)
        return ""


def _needs_site_api(name: str) -> Helper:
    def helper(*_args: Any) -> str:
        raise EvaluationSkipped(
            f"{name} reads the WebArena shopping site's REST API with admin credentials; "
            "register a helper for it to score this task"
        )

    return helper


DEFAULT_HELPERS: dict[str, Helper] = {
    "reddit_get_post_url": reddit_get_post_url,
    # WebArena's configs spell it "memeber"; both names resolve.
    "gitlab_get_project_memeber_role": gitlab_get_project_member_role,
    "gitlab_get_project_member_role": gitlab_get_project_member_role,
    **{
        name: _needs_site_api(name)
        for name in (
            "shopping_get_latest_order_url",
            "shopping_get_sku_latest_review_author",
            "shopping_get_sku_latest_review_rating",
        )
    },
}


def parse_helper_call(expr: str) -> tuple[str, list[Any]]:
    """`name(arg, ...)` with literal args or `__page__` → (name, args); anything else is refused."""
    try:
        node = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"helper call {expr!r} is not valid Python syntax") from exc
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name) or node.keywords:
        raise ValueError(f"helper call {expr!r} must look like name(arg, ...)")
    args: list[Any] = []
    for arg in node.args:
        if isinstance(arg, ast.Name) and arg.id in ("__page__", "page"):
            args.append(PAGE)
        else:
            try:
                args.append(ast.literal_eval(arg))
            except ValueError as exc:
                raise ValueError(f"helper call {expr!r}: arguments must be literals") from exc
    return node.func.id, args


async def call_helper(expr: str, page: Page, helpers: Mapping[str, Helper]) -> str:
    name, args = parse_helper_call(expr)
    if name not in helpers:
        raise EvaluationSkipped(f"no helper registered for {name!r}")
    result = helpers[name](*[page if a is PAGE else a for a in args])
    if inspect.isawaitable(result):
        result = await result
    return str(result)


async def resolve_target_url(target_url: str, page: Page, helpers: Mapping[str, Helper]) -> str:
    if target_url.startswith("func:"):
        expr = target_url.split("func:", 1)[1].replace("__last_url__", page.url)
        return await call_helper(expr, page, helpers)
    return target_url


async def select_content(
    page: Page, target: Mapping[str, Any], helpers: Mapping[str, Helper]
) -> str:
    """The text a target's locator points at; "" when the JS fails (the page is wrong)."""
    locator: str = target["locator"]
    if not locator.strip():
        return html.unescape(await page.content())
    if locator.startswith(("document.", "[...document.")):
        for action in target.get("prep_actions", []):
            try:
                await page.evaluate(f"() => {action}")
            except PlaywrightError as exc:
                # WebArena ignores failed preparation; the locator below then decides the score.
                log.info("prep action failed on %s: %s", page.url, exc)
        try:
            selected = str(await page.evaluate(f"() => {locator}"))
        except PlaywrightError as exc:
            log.info("locator failed on %s: %s", page.url, exc)
            selected = ""
        return html.unescape(selected)
    if locator.startswith("func:"):
        return html.unescape(await call_helper(locator.split("func:", 1)[1], page, helpers))
    raise ValueError(f"unknown program_html locator {locator!r}")


def match_required(required: Mapping[str, Any], content: str) -> float:
    """`exact_match` against the whole content, or every `must_include` entry (with |OR|)."""
    if "exact_match" in required:
        return exact_match(required["exact_match"], content)
    if "must_include" in required:
        score = 1.0
        for entry in required["must_include"]:
            options = entry.split(OR_SEPARATOR)
            score *= float(any(must_include(o, content, tokenize=False) for o in options))
        return score
    raise ValueError(f"unknown required_contents keys {sorted(required)}")


async def score_program_html(
    config: Mapping[str, Any],
    page: Page,
    *,
    helpers: Mapping[str, Helper] | None = None,
    wait_until: str = "networkidle",
) -> float:
    """The product over every `program_html` target; navigates `page` for explicit URLs.

    WebArena slept 3 s after each navigation; waiting for `wait_until` replaces that sleep.
    """
    registry = {**DEFAULT_HELPERS, **(helpers or {})}
    score = 1.0
    for target in config["eval"]["program_html"]:
        url = await resolve_target_url(target["url"], page, registry)
        if url != "last":
            try:
                await page.goto(url, wait_until=wait_until)  # type: ignore[arg-type]
            except PlaywrightError as exc:
                raise EvaluationSkipped(f"program_html could not open {url}: {exc}") from exc
        content = await select_content(page, target, registry)
        score *= match_required(target["required_contents"], content)
    return score
