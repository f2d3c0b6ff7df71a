"""MiniWoB++ on the browser environment: serve tasks locally, run a policy, read in-page rewards."""

from __future__ import annotations

import importlib.util
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TextIO

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, async_playwright

from browser.chromium import launch_browser
from browser.env import BrowserEnv, EnvConfig
from browser.trajectory import TrajectoryStep
from evals.common.static_server import serve_directory
from evals.report.tables import format_table

# The HUD beside each task shows the last reward and a timer: noise for the agent, and a
# leak of the previous episode's outcome. Hiding it takes it out of the accessibility tree.
HIDE_HUD_CSS = "#reward-display, #click-canvas { display: none !important; }"
_START_JS = """(seed) => {
  Math.seedrandom(seed); core.EPISODE_MAX_TIME = 1e6; core.startEpisodeReal();
}"""
_REWARD_JS = """() => typeof WOB_DONE_GLOBAL === 'undefined' ? null :
  [WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_GLOBAL, WOB_REWARD_REASON]"""


# Each MiniWoB task is its own "website" for memory, so workflows and past runs of one task are
# retrieved for that task only.
WEBSITE_PREFIX = "miniwob-"


def website_of(task: str) -> str:
    return WEBSITE_PREFIX + task


class MiniWobUnavailable(RuntimeError):
    """The miniwob package (which ships the task pages) is not installed."""


@dataclass(frozen=True)
class PolicyDecision:
    """A policy's action plus the tokens it spent deciding (0 when unknown) and the plan it
    follows (agents.web.plan; empty when it has none)."""

    action: str
    tokens: int = 0
    plan: tuple[str, ...] = ()


# async (utterance, observation_text, history) -> action text or PolicyDecision
Policy = Callable[[str, str, list[TrajectoryStep]], Awaitable[str | PolicyDecision]]


@dataclass
class EpisodeResult:
    task: str
    seed: int
    utterance: str
    raw_reward: float  # MiniWoB's reward without its time penalty; 0 when never finished
    done: bool  # the task itself ended the episode (WOB_DONE_GLOBAL)
    reason: str | None  # WOB_REWARD_REASON, or why the page could not be read
    stop_reason: str | None  # the environment's: "stop", a limit, or None
    steps: int
    seconds: float
    env_step_seconds: float  # mean time the environment took per step (action + observation)
    tokens: int
    error: str | None = None  # the policy raised; the episode ended there and counts as failed
    trajectory: list[dict[str, Any]] = field(default_factory=list)
    plan: list[str] = field(default_factory=list)  # the policy's, as of its last decision

    @property
    def success(self) -> bool:
        return self.done and self.raw_reward == 1.0


@dataclass
class TaskStats:
    task: str
    episodes: int
    success_rate: float
    mean_reward: float
    mean_steps: float
    mean_seconds: float
    mean_step_seconds: float
    tokens: int
    errors: int  # episodes the policy ended by raising


@dataclass
class MiniWobReport:
    episodes: list[EpisodeResult]

    @property
    def tasks(self) -> list[TaskStats]:
        names = list(dict.fromkeys(e.task for e in self.episodes))
        return [_stats(name, [e for e in self.episodes if e.task == name]) for name in names]

    @property
    def success_rate(self) -> float:
        return _mean([float(e.success) for e in self.episodes])

    def to_dict(self) -> dict[str, Any]:
        return {
            "success_rate": self.success_rate,
            "mean_reward": _mean([e.raw_reward for e in self.episodes]),
            "tasks": [asdict(t) for t in self.tasks],
            "episodes": [asdict(e) | {"success": e.success} for e in self.episodes],
        }

    def format_table(self) -> str:
        headers = [
            "task",
            "episodes",
            "success",
            "mean reward",
            "steps",
            "seconds",
            "s/step",
            "tokens",
            "errors",
        ]
        stats = [*self.tasks, _stats("ALL", self.episodes)]
        rows = [
            [
                t.task,
                t.episodes,
                t.success_rate,
                t.mean_reward,
                t.mean_steps,
                t.mean_seconds,
                t.mean_step_seconds,
                t.tokens,
                t.errors,
            ]
            for t in stats
        ]
        return format_table(headers, rows)


def miniwob_html_dir() -> Path:
    """The installed package's html/ folder (found without importing miniwob or gymnasium)."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise MiniWobUnavailable("MiniWoB++ is not installed: pip install miniwob==1.1.0")
    html = Path(next(iter(spec.submodule_search_locations))) / "html"
    if not (html / "miniwob").is_dir():
        raise MiniWobUnavailable(f"no task pages under {html}/miniwob: reinstall miniwob==1.1.0")
    return html


def list_tasks() -> list[str]:
    return sorted(p.stem for p in (miniwob_html_dir() / "miniwob").glob("*.html"))


async def run_miniwob(
    tasks: Sequence[str],
    episodes: int,
    seed: int,
    policy: Policy,
    *,
    config: EnvConfig | None = None,
    progress: TextIO | None = sys.stderr,
) -> MiniWobReport:
    """Run `episodes` episodes of each task (seeds seed, seed+1, …) and collect the rewards."""
    known = set(list_tasks())
    unknown = [t for t in tasks if t not in known]
    if unknown:
        raise ValueError(f"unknown MiniWoB task(s): {', '.join(unknown)}")
    results: list[EpisodeResult] = []
    total = len(tasks) * episodes
    with serve_directory(miniwob_html_dir()) as base_url:
        async with async_playwright() as playwright:
            browser = await launch_browser(playwright)
            try:
                async with BrowserEnv(config, browser=browser) as env:
                    for task in tasks:
                        for i in range(episodes):
                            result = await run_episode(env, base_url, task, seed + i, policy)
                            results.append(result)
                            if progress is not None:
                                print(_progress_line(len(results), total, result), file=progress)
            finally:
                await browser.close()
    return MiniWobReport(results)


async def start_episode(env: BrowserEnv, base_url: str, task: str, seed: int) -> str:
    """Open, seed and start a MiniWoB task page; returns its utterance."""
    await env.reset(f"{base_url}/miniwob/{task}.html")
    page = env.page
    await page.add_style_tag(content=HIDE_HUD_CSS)
    await page.evaluate(_START_JS, seed)
    await page.wait_for_function("WOB_TASK_READY === true")
    return str(await page.evaluate("core.getUtterance()"))


async def run_episode(
    env: BrowserEnv, base_url: str, task: str, seed: int, policy: Policy
) -> EpisodeResult:
    """One seeded episode: start the task, let the policy act until the task or the env ends."""
    started = time.perf_counter()
    utterance = await start_episode(env, base_url, task, seed)
    page = env.page
    observation = await env.observe()
    tokens, wob, error = 0, None, None
    plan: tuple[str, ...] = ()
    while not env.done:
        try:
            decision = await policy(utterance, observation.text, list(env.trajectory))
        except Exception as err:  # noqa: BLE001 - a failing model call ends one episode, not the run
            error = f"policy failed: {type(err).__name__}: {err}"
            break
        if isinstance(decision, PolicyDecision):
            action, tokens, plan = decision.action, tokens + decision.tokens, decision.plan
        else:
            action = decision
        observation, _, _ = await env.step(action)
        wob = await read_reward(page)
        if wob is None or wob[0]:
            break
    wob = wob or await read_reward(page)
    steps = env.trajectory
    return EpisodeResult(
        task=task,
        seed=seed,
        utterance=utterance,
        raw_reward=float(wob[1]) if wob and wob[0] else 0.0,
        done=bool(wob and wob[0]),
        reason=(wob[3] if wob else "the task page was closed or left"),
        stop_reason=env.done_reason,
        steps=len(steps),
        error=error,
        seconds=time.perf_counter() - started,
        env_step_seconds=_mean([s.seconds for s in steps]),
        tokens=tokens,
        trajectory=[s.to_dict() for s in steps],
        plan=list(plan),
    )


async def read_reward(page: Page) -> list[Any] | None:
    """[done, raw reward, reward, reason], or None once the task page is gone."""
    if page.is_closed():
        return None
    try:
        result: list[Any] | None = await page.evaluate(_REWARD_JS)
        return result
    except PlaywrightError:
        # The policy navigated the task tab away mid-read; the episode cannot be scored.
        return None


def _stats(task: str, episodes: list[EpisodeResult]) -> TaskStats:
    return TaskStats(
        task=task,
        episodes=len(episodes),
        success_rate=_mean([float(e.success) for e in episodes]),
        mean_reward=_mean([e.raw_reward for e in episodes]),
        mean_steps=_mean([float(e.steps) for e in episodes]),
        mean_seconds=_mean([e.seconds for e in episodes]),
        mean_step_seconds=_mean([e.env_step_seconds for e in episodes if e.steps]),
        tokens=sum(e.tokens for e in episodes),
        errors=sum(1 for e in episodes if e.error),
    )


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def _progress_line(n: int, total: int, r: EpisodeResult) -> str:
    outcome = "ok " if r.success else "FAIL"
    return (
        f"[{n}/{total}] {outcome} {r.task} seed={r.seed} reward={r.raw_reward:+.2f} "
        f"steps={r.steps} {r.seconds:.1f}s stop={r.stop_reason or '-'}"
        + (f" ERROR {r.error}" if r.error else "")
    )
