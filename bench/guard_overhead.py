"""What the origin guard costs per page: guarded vs unguarded BrowserEnv, side by side.

    python -m bench.guard_overhead [--reps 10] [--tasks login-user,click-checkboxes] [--json]

Each rep resets a guarded env (routes + the filtering proxy, as every user gets it) and an
unguarded one (the same env with a guard that installs nothing: the baseline, never offered to
users) on the same MiniWoB++ page, alternating which goes first, and times reset (fresh context
+ page load + observation) and one click step. Prints medians and the guarded/unguarded ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

from browser import env as env_module
from browser.env import BrowserEnv, EnvConfig
from browser.guard import RequestGuard
from evals.common.static_server import serve_directory
from evals.miniwob.harness import miniwob_html_dir


class _NoGuard(RequestGuard):
    """The baseline: nothing routed, no proxy."""

    async def context_options(self) -> dict[str, Any]:
        return {}

    async def install(self, context: Any) -> None:
        return None


async def _one(guarded: bool, url: str) -> tuple[float, float]:
    saved = env_module.RequestGuard
    env_module.RequestGuard = saved if guarded else _NoGuard  # type: ignore[misc]
    try:
        async with BrowserEnv(EnvConfig()) as env:
            started = time.perf_counter()
            obs = await env.reset(url)
            reset_s = time.perf_counter() - started
            target = next(iter(n.id for n in obs.nodes.values() if n.role != "RootWebArea"))
            started = time.perf_counter()
            await env.step(f"click [{target}]")
            return reset_s, time.perf_counter() - started
    finally:
        env_module.RequestGuard = saved  # type: ignore[misc]


async def measure(tasks: list[str], reps: int) -> dict[str, Any]:
    times: dict[str, list[float]] = {
        k: [] for k in ("reset_on", "reset_off", "step_on", "step_off")
    }
    with serve_directory(miniwob_html_dir()) as base:
        for rep in range(reps):
            for task in tasks:
                url = f"{base}/miniwob/{task}.html"
                order = (True, False) if rep % 2 == 0 else (False, True)
                for guarded in order:
                    reset_s, step_s = await _one(guarded, url)
                    key = "on" if guarded else "off"
                    times[f"reset_{key}"].append(reset_s)
                    times[f"step_{key}"].append(step_s)
    med = {k: statistics.median(v) for k, v in times.items()}
    return {
        "samples": reps * len(tasks),
        "reset_guarded_s": med["reset_on"],
        "reset_unguarded_s": med["reset_off"],
        "reset_ratio": med["reset_on"] / med["reset_off"],
        "step_guarded_s": med["step_on"],
        "step_unguarded_s": med["step_off"],
        "step_ratio": med["step_on"] / med["step_off"],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.guard_overhead",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--tasks", default="login-user,click-checkboxes,enter-text")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    result = asyncio.run(measure([t for t in args.tasks.split(",") if t], args.reps))
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['samples']} pages; median reset {result['reset_guarded_s']:.3f}s guarded "
            f"vs {result['reset_unguarded_s']:.3f}s unguarded (x{result['reset_ratio']:.2f}); "
            f"click step {result['step_guarded_s']:.3f}s vs {result['step_unguarded_s']:.3f}s "
            f"(x{result['step_ratio']:.2f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
