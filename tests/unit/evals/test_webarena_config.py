"""WebArena config loading (all 812 tasks as they are) and program_html pieces that need no
browser."""

from __future__ import annotations

import asyncio
import copy
import json

import pytest

from evals.webarena.evaluator import (
    WebArenaConfigError,
    load_predictions,
    load_tasks,
    site_placeholders,
)
from evals.webarena.match import EvaluationSkipped
from evals.webarena.program_html import (
    DEFAULT_HELPERS,
    PAGE,
    match_required,
    parse_helper_call,
    reddit_get_post_url,
    score_program_html,
)

# --- loading ----------------------------------------------------------------------------------


def test_all_812_tasks_load_as_they_are(tasks):
    assert len(tasks) == 812
    assert sorted(tasks) == list(range(812))
    assert tasks[0]["start_url"] == "__SHOPPING_ADMIN__"  # placeholders kept by default
    types = {t for task in tasks.values() for t in task["eval"]["eval_types"]}
    assert types == {"string_match", "url_match", "program_html"}


def test_placeholders_substituted_everywhere_from_a_map(data_dir):
    path = data_dir / "webarena" / "test.raw.json"
    mapping = site_placeholders(["SHOPPING=http://127.0.0.1:7770/", "__GITLAB__=http://g:1"])
    assert mapping == {"__SHOPPING__": "http://127.0.0.1:7770", "__GITLAB__": "http://g:1"}
    mapped = {t["task_id"]: t for t in load_tasks(path, mapping)}
    assert (
        mapped[274]["eval"]["reference_url"]
        == "http://127.0.0.1:7770/catalogsearch/result/?q=usb+wifi"
    )
    text = json.dumps(mapped)
    assert "__SHOPPING__" not in text and "__GITLAB__" not in text and "__REDDIT__" in text


def test_single_task_file_and_invalid_configs(tmp_path, tasks):
    one = tmp_path / "0.json"
    one.write_text(json.dumps(tasks[0]))
    assert [t["task_id"] for t in load_tasks(one)] == [0]
    broken = copy.deepcopy(tasks[0])
    broken["eval"]["eval_types"] = ["string_match", "telepathy"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([broken]))
    with pytest.raises(WebArenaConfigError, match="telepathy"):
        load_tasks(bad)
    bad.write_text(json.dumps([tasks[0], tasks[0]]))
    with pytest.raises(WebArenaConfigError, match="twice"):
        load_tasks(bad)
    bad.write_text("{not json")
    with pytest.raises(WebArenaConfigError, match="not valid JSON"):
        load_tasks(bad)
    with pytest.raises(WebArenaConfigError, match="does not exist"):
        load_tasks(tmp_path / "nope.json")
    with pytest.raises(WebArenaConfigError):
        site_placeholders(["SHOPPING"])


def test_predictions_file_validation(tmp_path):
    path = tmp_path / "pred.json"
    path.write_text(json.dumps({"3": {"answer": "a", "url": "u"}, "4": {"answer": "b"}}))
    assert load_predictions(path) == {3: {"answer": "a", "url": "u"}, 4: {"answer": "b"}}
    for bad in ({"x": {"answer": "a"}}, {"3": {"answer": 5}}, ["a"], {"3": "a"}):
        path.write_text(json.dumps(bad))
        with pytest.raises(WebArenaConfigError):
            load_predictions(path)


# --- program_html pieces that need no browser --------------------------------------------------


def test_helper_calls_are_parsed_not_evaluated():
    assert parse_helper_call("reddit_get_post_url('http://r/f/a/1/x')") == (
        "reddit_get_post_url",
        ["http://r/f/a/1/x"],
    )
    assert parse_helper_call("gitlab_get_project_memeber_role(__page__, 'byteblaze')") == (
        "gitlab_get_project_memeber_role",
        [PAGE, "byteblaze"],
    )
    for hostile in ("__import__('os').system('true')", "open('x').read()", "f(x)", "1 + 1"):
        with pytest.raises(ValueError):
            parse_helper_call(hostile)


def test_reddit_post_url_and_required_contents():
    assert (
        reddit_get_post_url("http://r:9999/f/nyc/123/a-car/comment/5") == "http://r:9999/f/nyc/123/"
    )
    assert reddit_get_post_url("http://r:9999/user/x") == "http://r:9999/user/x"
    assert match_required({"exact_match": "1"}, " 1 ") == 1.0
    assert match_required({"must_include": ["Gates", "Pittsburgh |OR| PGH"]}, "Gates, PGH") == 1.0
    assert match_required({"must_include": ["Gates", "Pittsburgh |OR| PGH"]}, "Gates") == 0.0
    # program_html never tokenizes, so a one-character reference is a plain substring.
    assert match_required({"must_include": ["0"]}, "10") == 1.0


class FakePage:
    """Just enough of an async Playwright page to check target routing."""

    def __init__(self, url: str, values: dict[str, object]) -> None:
        self.url, self.values, self.visited = url, values, []

    async def goto(self, url: str, wait_until: str = "load") -> None:
        self.visited.append(url)
        self.url = url

    async def evaluate(self, script: str, *args: object) -> object:
        return self.values[self.url]

    async def content(self) -> str:
        return f"<html>{self.values[self.url]}</html>"


def test_program_html_routes_last_explicit_and_func_urls():
    page = FakePage(
        "http://r/f/nyc/7/title/comment/9",
        {
            "http://r/f/nyc/7/": "a car in NYC",
            "http://x/other": "&lt;b&gt;bold",
            "http://r/f/nyc/7/title/comment/9": "comment page",
        },
    )
    task = {
        "task_id": 1,
        "eval": {
            "program_html": [
                {
                    "url": "last",
                    "locator": "document.body.outerText",
                    "required_contents": {"must_include": ["comment"]},
                },
                {
                    "url": "func:reddit_get_post_url('__last_url__')",
                    "locator": "document.x",
                    "required_contents": {"must_include": ["a car in NYC"]},
                },
                {
                    "url": "http://x/other",
                    "locator": "",
                    "required_contents": {"must_include": ["<b>bold"]},
                },
            ]
        },
    }
    assert asyncio.run(score_program_html(task, page)) == 1.0
    assert page.visited == ["http://r/f/nyc/7/", "http://x/other"]


def test_program_html_shopping_api_helpers_skip_with_reason():
    task = {
        "task_id": 1,
        "eval": {
            "program_html": [
                {
                    "url": "func:shopping_get_latest_order_url()",
                    "locator": "",
                    "required_contents": {"must_include": ["x"]},
                }
            ]
        },
    }
    with pytest.raises(EvaluationSkipped, match="REST API"):
        asyncio.run(score_program_html(task, FakePage("http://s/", {})))
    assert "gitlab_get_project_memeber_role" in DEFAULT_HELPERS
