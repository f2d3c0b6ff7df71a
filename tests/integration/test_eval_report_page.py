"""The report page in the real chromium: every plot loads, and its numbers are the JSONL's."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from browser.chromium import launch_browser
from evals.report.page import RAW_FILE, ReportSpec, write_report_dir
from evals.report.stats import running_success, wilson

pytestmark = pytest.mark.integration

ROWS = [
    {
        "key": f"{arm}#{i}",
        "arm": arm,
        "family": "click-tab" if i % 2 else "login-user",
        "success": ok,
        "steps": 1 + i,
        "tokens": 90 + 7 * i,
        "seconds": 0.5 + i,
    }
    for arm, outcomes in [("no-memory", "0010"), ("workflows", "0111"), ("everything", "1101")]
    for i, ok in enumerate(c == "1" for c in outcomes)
]

READ_PAGE = """() => ({
  images: [...document.images].map(i => ({src: i.getAttribute('src'), complete: i.complete,
    width: i.naturalWidth, source: i.dataset.source, values: JSON.parse(i.dataset.values)})),
  arms: [...document.querySelectorAll('#arms tbody tr')].map(tr => ({
    arm: JSON.parse(tr.querySelector('[data-group]').dataset.group),
    n: JSON.parse(tr.querySelector('[data-n]').dataset.n),
    rate: JSON.parse(tr.querySelector('[data-rate]').dataset.rate),
    means: [...tr.querySelectorAll('[data-mean]')].map(td => JSON.parse(td.dataset.mean))})),
})"""


async def _read(page_path: Path) -> dict[str, Any]:
    async with async_playwright() as pw:
        browser = await launch_browser(pw)
        try:
            page = await browser.new_page()
            await page.goto(page_path.as_uri())
            await page.wait_for_load_state("load")
            result: dict[str, Any] = await page.evaluate(READ_PAGE)
            return result
        finally:
            await browser.close()


def test_report_page_shows_plots_drawn_from_the_jsonl(tmp_path: Path) -> None:
    spec = ReportSpec(title="AWM MiniWoB", curves=running_success(ROWS))
    page = write_report_dir(tmp_path, ROWS, spec)
    seen = asyncio.run(_read(page))
    # Recompute everything from the raw file the page points at, not from ROWS.
    raw = [json.loads(x) for x in (tmp_path / RAW_FILE).read_text().splitlines()]
    by_arm: dict[str, list[dict[str, Any]]] = {}
    for r in raw:
        by_arm.setdefault(r["arm"], []).append(r)

    assert [i["src"] for i in seen["images"]] == ["success.png", "curve.png", "cost.png"]
    assert all(i["complete"] and i["width"] > 0 for i in seen["images"]), seen["images"]
    assert all(i["source"] == RAW_FILE for i in seen["images"])
    assert [a["arm"] for a in seen["arms"]] == list(by_arm)
    for row in seen["arms"]:
        mine = by_arm[row["arm"]]
        wins = sum(r["success"] for r in mine)
        assert row["n"] == len(mine) and row["rate"] == wins / len(mine)
        assert row["means"][0] == pytest.approx(sum(r["steps"] for r in mine) / len(mine))
    success_plot = {d["arm"]: d for d in seen["images"][0]["values"]}
    for arm, mine in by_arm.items():
        wins = sum(r["success"] for r in mine)
        assert success_plot[arm]["rate"] == wins / len(mine)
        assert (success_plot[arm]["low"], success_plot[arm]["high"]) == pytest.approx(
            wilson(wins, len(mine))
        )
    curve = seen["images"][1]["values"]
    assert curve["workflows"] == [[1, 0.0], [2, 0.5], [3, 2 / 3], [4, 0.75]]
    tokens = {d["arm"]: d["mean"] for d in seen["images"][2]["values"]["tokens"]}
    assert tokens == pytest.approx(
        {arm: sum(r["tokens"] for r in mine) / len(mine) for arm, mine in by_arm.items()}
    )
