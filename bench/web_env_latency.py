"""Per-step latency of the browser environment on MiniWoB++ pages (python -m bench.web_env_latency).

Times reset (fresh context + page load), observe, and each kind of step (action + the new
observation) with median and 90th percentile over repeated runs on a local server.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections import defaultdict
from collections.abc import Awaitable
from typing import TypeVar

from browser.env import BrowserEnv, EnvConfig
from evals.common.static_server import serve_directory
from evals.miniwob.harness import HIDE_HUD_CSS, miniwob_html_dir
from evals.miniwob.planners import parse_tree
from evals.report.tables import format_table

T = TypeVar("T")


async def _measure(base: str, reps: int, viewport_only: bool) -> dict[str, list[float]]:
    times: dict[str, list[float]] = defaultdict(list)

    async def timed(label: str, coro: Awaitable[T]) -> T:
        started = time.perf_counter()
        result = await coro
        times[label].append(time.perf_counter() - started)
        return result

    async with BrowserEnv(EnvConfig(viewport_only=viewport_only)) as env:
        for seed in range(reps):
            await timed("reset (new context + load)", env.reset(f"{base}/miniwob/enter-text.html"))
            await env.page.add_style_tag(content=HIDE_HUD_CSS)
            await env.page.evaluate(
                "(s) => { Math.seedrandom(s); core.EPISODE_MAX_TIME = 1e6; "
                "core.startEpisodeReal(); }",
                seed,
            )
            obs = await timed("observe", env.observe())
            nodes = parse_tree(obs.text)
            box = next(n.id for n in nodes if n.role == "textbox")
            await timed("step: type [id] [text] [0]", env.step(f"type [{box}] [word{seed}] [0]"))
            await timed("step: scroll [down]", env.step("scroll [down]"))
            await timed("step: noop", env.step("noop"))
            await timed("step: unparsable (invalid)", env.step("no idea"))
            button = next(n.id for n in nodes if n.role == "button")
            await timed("step: click [id]", env.step(f"click [{button}]"))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--viewport-only", action="store_true")
    args = parser.parse_args()
    with serve_directory(miniwob_html_dir()) as base:
        times = asyncio.run(_measure(base, args.reps, args.viewport_only))
    rows = []
    for label, values in times.items():
        values.sort()
        p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
        rows.append([label, len(values), statistics.median(values) * 1000, p90 * 1000])
    print(format_table(["what", "n", "median ms", "p90 ms"], rows))


if __name__ == "__main__":
    main()
