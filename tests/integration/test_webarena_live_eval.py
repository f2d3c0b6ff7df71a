"""WebArena program_html and live task scoring on real chromium against pages on 127.0.0.1."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from playwright.async_api import async_playwright

from browser.chromium import launch_browser
from evals.webarena.evaluator import evaluate_live
from evals.webarena.program_html import score_program_html

pytestmark = pytest.mark.integration

PAGES = {
    "/f/nyc/7/a-car-in-nyc": """<html><body><div class="submission__inner">
<h1>Is it worth having a car in NYC?</h1><p>Parking costs &amp; more.</p></div></body></html>""",
    "/f/nyc/7/a-car-in-nyc/comment/9": "<html><body><p>Just a comment page</p></body></html>",
    "/f/nyc/7/": """<html><body><div class="submission__inner">
<h1>Is it worth having a car in NYC?</h1></div></body></html>""",
    "/directions": """<html><body><div id="content">
<select class="routing_engines"><option>Bike</option><option selected>Car</option></select>
<input name="route_from" value="Gates and Hillman Centers, Pittsburgh">
<input name="route_to" value="Independence Hall, Philadelphia"></div></body></html>""",
    "/admin/rule": """<html><body>
<div data-index="actions"><div class="admin__collapsible-title"
  onclick="document.getElementById('hidden').style.display='block'">Actions</div></div>
<div id="hidden" style="display:none"><select name="simple_action">
<option value="by_fixed">Fixed</option><option value="by_percent" selected>Percent</option>
</select></div></body></html>""",
    "/project/members": """<html><body><table>
<tr><td data-label="Account"><span class="gl-avatar-labeled-sublabel">@alice</span></td>
<td class="col-max-role"><span>Developer</span></td></tr>
<tr><td data-label="Account"><span class="gl-avatar-labeled-sublabel">@byteblaze</span></td>
<td class="col-max-role"><span>Maintainer</span></td></tr></table></body></html>""",
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        body = PAGES.get(self.path.split("?")[0])
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.end_headers()
        self.wfile.write((body or "<html><body>not found</body></html>").encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


class BrowserThread:
    """One chromium for the whole module, driven on its own event loop thread; launching a
    browser per test would cost ~5 s each on two cores."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.pw = self.call(async_playwright().start())
        self.browser = self.call(launch_browser(self.pw))

    def call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=60)

    def close(self) -> None:
        self.call(self.browser.close())
        self.call(self.pw.stop())
        self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture(scope="module")
def chromium() -> Iterator[BrowserThread]:
    runner = BrowserThread()
    yield runner
    runner.close()


@pytest.fixture
def on_page(chromium: BrowserThread) -> Any:
    """on_page(url, check): open `url` in a fresh page and return `await check(page)`."""

    async def run(start_url: str, check: Any) -> Any:
        page = await chromium.browser.new_page()
        try:
            await page.goto(start_url)
            return await check(page)
        finally:
            await page.close()

    return lambda start_url, check: chromium.call(run(start_url, check))


def html_task(targets: list[dict], **extra: Any) -> dict:
    spec = {"eval_types": ["program_html"], "program_html": targets, **extra}
    return {"task_id": 1, "intent": "t", "eval": spec}


def test_reddit_post_checked_on_its_post_url_from_the_last_comment_page(site, on_page):
    task = html_task(
        [
            {
                "url": "func:reddit_get_post_url('__last_url__')",
                "locator": "document.querySelector('.submission__inner').outerText",
                "required_contents": {
                    "must_include": ["a car in NYC", "worth having |OR| worth owning"]
                },
            },
        ]
    )

    async def check(page):
        score = await score_program_html(task, page)
        return score, page.url

    score, url = on_page(f"{site}/f/nyc/7/a-car-in-nyc/comment/9", check)
    assert score == 1.0 and url == f"{site}/f/nyc/7/"


def test_last_page_field_values_exact_and_must_include(site, on_page):
    good = html_task(
        [
            {
                "url": "last",
                "locator": 'document.querySelector("div#content select.routing_engines")'
                ".selectedIndex",
                "required_contents": {"exact_match": "1"},
            },
            {
                "url": "last",
                "locator": "document.querySelector('[name=\"route_from\"]').value",
                "required_contents": {"must_include": ["Gates and Hillman Centers", "Pittsburgh"]},
            },
        ]
    )
    wrong = html_task(
        [
            {
                "url": "last",
                "locator": "document.querySelector('[name=\"route_to\"]').value",
                "required_contents": {"must_include": ["Independence Hall", "Boston"]},
            },
        ]
    )
    broken = html_task(
        [
            {
                "url": "last",
                "locator": "document.querySelector('#missing').value",
                "required_contents": {"exact_match": ""},
            },  # the JS throws → content is ""
        ]
    )

    async def check(page):
        return [await score_program_html(t, page) for t in (good, wrong, broken)]

    assert on_page(f"{site}/directions", check) == [1.0, 0.0, 1.0]


def test_explicit_url_whole_page_and_prep_actions(site, on_page):
    task = html_task(
        [
            {
                "url": f"{site}/f/nyc/7/a-car-in-nyc",
                "locator": "",
                "required_contents": {"must_include": ["Parking costs & more"]},
            },  # html-unescaped
            {
                "url": f"{site}/admin/rule",
                "locator": "document.querySelector('[name=\"simple_action\"]').value",
                "prep_actions": [
                    "document.querySelector('[data-index=\"actions\"]')"
                    ".querySelector('.admin__collapsible-title').click()"
                ],
                "required_contents": {"exact_match": "by_percent"},
            },
            {
                "url": "last",
                "locator": "document.getElementById('hidden').style.display",
                "required_contents": {"exact_match": "block"},
            },  # the prep action really ran
        ]
    )
    assert on_page(f"{site}/directions", lambda page: score_program_html(task, page)) == 1.0


def test_gitlab_member_role_helper_reads_the_page(site, on_page):
    def task(role: str) -> dict:
        return html_task(
            [
                {
                    "url": "last",
                    "locator": "func:gitlab_get_project_memeber_role(__page__, 'byteblaze')",
                    "required_contents": {"must_include": [role]},
                }
            ]
        )

    async def check(page):
        return [await score_program_html(task(r), page) for r in ("Maintainer", "Developer")]

    assert on_page(f"{site}/project/members", check) == [1.0, 0.0]


def test_live_task_score_is_the_product_in_config_order(site, on_page):
    # url_match comes first, so it sees the agent's page before program_html navigates away.
    task = {
        "task_id": 9,
        "intent": "Open the post about cars",
        "eval": {
            "eval_types": ["string_match", "url_match", "program_html"],
            "reference_answers": {"must_include": ["car"]},
            "reference_url": f"{site}/f/nyc/7 |OR| {site}/f/nyc/8",
            "program_html": [
                {
                    "url": f"{site}/f/nyc/7/",
                    "locator": "",
                    "required_contents": {"must_include": ["worth having a car"]},
                }
            ],
        },
    }

    async def check(page):
        good = await evaluate_live(task, answer="A car post", page=page)
        await page.goto(f"{site}/f/nyc/7/a-car-in-nyc")
        bad_answer = await evaluate_live(task, answer="A bike post", page=page)
        await page.goto(f"{site}/directions")
        bad_url = await evaluate_live(task, answer="A car post", page=page)
        return good, bad_answer, bad_url

    good, bad_answer, bad_url = on_page(f"{site}/f/nyc/7/a-car-in-nyc", check)
    assert good.score == 1.0 and good.parts == {
        "string_match": 1.0,
        "url_match": 1.0,
        "program_html": 1.0,
    }
    assert bad_answer.score == 0.0 and bad_answer.parts["url_match"] == 1.0
    assert bad_url.score == 0.0 and bad_url.parts["url_match"] == 0.0
    assert bad_url.parts["program_html"] == 1.0
