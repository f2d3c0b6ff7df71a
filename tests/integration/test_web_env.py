"""BrowserEnv on real chromium against a local test page: every action, allow-list, loop limits."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import pytest

from browser.env import BrowserEnv, EnvConfig, EpisodeOver
from browser.limits import Limits
from browser.observation import Observation

pytestmark = pytest.mark.integration

PAGES = Path(__file__).parent / "web_pages"


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    from evals.common.static_server import serve_directory

    with serve_directory(PAGES) as base:
        yield base


def run(scenario: Callable[[BrowserEnv], Awaitable[None]], **config: object) -> None:
    async def main() -> None:
        async with BrowserEnv(EnvConfig(**config)) as env:  # type: ignore[arg-type]
            await scenario(env)

    asyncio.run(main())


def node_id(obs: Observation, role: str, name: str) -> str:
    for node in obs.nodes.values():
        if node.role == role and node.name == name:
            return node.id
    raise AssertionError(f"no {role} {name!r} in\n{obs.text}")


def test_observation_has_url_tabs_and_a_tree_with_ids(site: str) -> None:
    async def scenario(env: BrowserEnv) -> None:
        obs = await env.reset(f"{site}/index.html")
        assert obs.url == f"{site}/index.html"
        assert obs.text.startswith("Tab 0 (current): Test Home\nURL: ")
        button = node_id(obs, "button", "Count")
        assert f"[{button}] button 'Count'" in obs.tree
        again = await env.observe()
        assert node_id(again, "button", "Count") == button  # ids are the DOM's, stable

    run(scenario)


def test_click_type_select_hover_and_press(site: str) -> None:
    async def scenario(env: BrowserEnv) -> None:
        obs = await env.reset(f"{site}/index.html")
        obs, info, done = await env.step(f"click [{node_id(obs, 'button', 'Count')}]")
        assert info.valid and not done and "Clicks: 1" in obs.tree
        assert info.target == "button 'Count'"

        name = node_id(obs, "textbox", "Name")
        obs, info, _ = await env.step(f"type [{name}] [Ada] [0]")
        assert info.valid and "Nobody greeted" in obs.tree  # no Enter, no submit
        obs, info, _ = await env.step(f"type [{name}] [Grace]")
        assert info.valid and "Hello, Grace!" in obs.tree  # replaced, then Enter submitted

        obs, info, _ = await env.step(f"type [{node_id(obs, 'combobox', 'Fruit')}] [Banana]")
        assert info.valid and "Picked banana" in obs.tree

        obs, info, _ = await env.step(f"hover [{node_id(obs, 'button', 'Hover here')}]")
        assert info.valid and "Hovered: yes" in obs.tree

        obs, info, _ = await env.step("press [Shift+K]")
        assert info.valid and "Last key: Shift+K" in obs.tree

    run(scenario)


def test_element_actions_refused_with_reasons(site: str) -> None:
    async def scenario(env: BrowserEnv) -> None:
        obs = await env.reset(f"{site}/index.html")
        _, info, _ = await env.step("click [99999]")
        assert not info.valid and "no element [99999]" in (info.reason or "")
        _, info, _ = await env.step(f"type [{node_id(obs, 'button', 'Count')}] [x]")
        assert not info.valid and "not a text field" in (info.reason or "")
        _, info, _ = await env.step(f"click [{node_id(obs, 'button', 'Covered button')}]")
        assert not info.valid and "intercepts pointer events" in (info.reason or "")
        _, info, _ = await env.step("this is not an action")
        assert not info.valid and "no action found" in (info.reason or "")
        assert [s.valid for s in env.trajectory] == [False] * 4

    run(scenario, action_timeout_ms=1000, limits=Limits(max_invalid=10))


def test_scroll_in_viewport_mode_reveals_the_bottom(site: str) -> None:
    async def scenario(env: BrowserEnv) -> None:
        obs = await env.reset(f"{site}/index.html")
        assert "Bottom marker" not in obs.tree and "Count" in obs.tree
        obs, info, _ = await env.step("scroll [down]")
        assert info.valid and "Bottom marker" in obs.tree and "'Count'" not in obs.tree
        _, info, _ = await env.step("scroll [down]")
        assert info.valid and "already at the bottom" in info.note
        obs, info, _ = await env.step("scroll [up]")
        assert info.valid and "'Count'" in obs.tree

    run(scenario, viewport_only=True, viewport_height=600)


def test_tabs_new_focus_close_and_popups(site: str) -> None:
    async def scenario(env: BrowserEnv) -> None:
        obs = await env.reset(f"{site}/index.html")
        obs, info, _ = await env.step(
            f"click [{node_id(obs, 'link', 'Open page two in a new tab')}]"
        )
        assert info.valid and obs.url.endswith("/page2.html")  # the popup became active
        assert [t.active for t in obs.tabs] == [False, True]
        obs, info, _ = await env.step("new_tab")
        assert info.valid and len(obs.tabs) == 3 and obs.tabs[2].active and obs.url == "about:blank"
        obs, info, _ = await env.step("tab_focus [0]")
        assert info.valid and obs.url.endswith("/index.html") and obs.tabs[0].active
        obs, info, _ = await env.step("tab_close")
        assert info.valid and len(obs.tabs) == 2
        obs, info, _ = await env.step(f"goto [{site}/index.html]")
        obs, info, _ = await env.step(f"click [{node_id(obs, 'button', 'Open a window')}]")
        assert info.valid and obs.url.endswith("/page2.html") and len(obs.tabs) == 3
        _, info, _ = await env.step("tab_focus [5]")
        assert not info.valid and "no tab 5" in (info.reason or "")

    run(scenario)


def test_goto_back_forward_and_stop(site: str) -> None:
    async def scenario(env: BrowserEnv) -> None:
        await env.reset(f"{site}/index.html")
        obs, info, _ = await env.step("goto [page2.html]")  # relative to the current page
        assert info.valid and obs.text.startswith("Tab 0 (current): Second Page")
        obs, info, _ = await env.step("go_back")
        assert info.valid and obs.url.endswith("/index.html")
        obs, info, _ = await env.step("go_forward")
        assert info.valid and obs.url.endswith("/page2.html")
        _, info, _ = await env.step("go_forward")
        assert not info.valid and "no next page" in (info.reason or "")
        obs, info, done = await env.step("stop [the answer is 42]")
        assert done and info.done_reason == "stop" and env.answer == "the answer is 42"
        with pytest.raises(EpisodeOver):
            await env.step("noop")

    run(scenario)


def test_origins_outside_the_allow_list_are_refused(site: str) -> None:
    async def scenario(env: BrowserEnv) -> None:
        obs = await env.reset(f"{site}/index.html")
        _, info, _ = await env.step("goto [https://example.com/]")
        assert not info.valid and "https://example.com is not allowed" in (info.reason or "")
        obs, info, _ = await env.step(f"click [{node_id(obs, 'link', 'Leave for example.com')}]")
        assert "blocked (origin not allowed): https://example.com/outside" in info.note
        assert obs.url == f"{site}/index.html"
        with pytest.raises(RuntimeError, match="cannot load the start page"):
            await env.reset("http://127.0.0.1:9/")  # nothing listens on the discard port

    run(scenario)


def test_only_the_start_origin_and_named_ones_are_allowed(site: str) -> None:
    """Not every port of 127.0.0.1: another local server stays out unless named."""
    from evals.common.static_server import serve_directory

    async def scenario(env: BrowserEnv) -> None:
        with serve_directory(PAGES) as other:
            await env.reset(f"{site}/index.html")
            _, info, _ = await env.step(f"goto [{other}/index.html]")
            assert not info.valid and "refused unless allowed by name" in (info.reason or "")
            await env.reset(f"{other}/index.html")  # a new start page: its origin is allowed
            _, info, _ = await env.step(f"goto [{site}/index.html]")
            assert info.valid, info.reason  # named in allowed_origins

    run(scenario, allowed_origins=(site,))


def test_three_identical_actions_stop_the_episode(site: str) -> None:
    async def scenario(env: BrowserEnv) -> None:
        obs = await env.reset(f"{site}/index.html")
        click = f"click [{node_id(obs, 'button', 'Count')}]"
        for expected_done in (False, False, True):
            obs, info, done = await env.step(click)
            assert done is expected_done
        assert (info.done_reason or "").startswith("repeated_action") and "Clicks: 3" in obs.tree

    run(scenario)


def test_three_invalid_actions_stop_the_episode(site: str) -> None:
    async def scenario(env: BrowserEnv) -> None:
        await env.reset(f"{site}/index.html")
        results = [await env.step(junk) for junk in ("click [x]", "dance", "tab_focus [9]")]
        assert [done for _, _, done in results] == [False, False, True]
        assert (results[-1][1].done_reason or "").startswith("invalid_actions")

    run(scenario)


def test_thirty_steps_end_the_episode_and_every_step_is_recorded(site: str) -> None:
    async def scenario(env: BrowserEnv) -> None:
        obs = await env.reset(f"{site}/index.html")
        click = f"click [{node_id(obs, 'button', 'Count')}]"
        done = False
        for i in range(30):
            assert not done, f"stopped early at step {i}"
            obs, info, done = await env.step(click if i % 2 == 0 else "noop")
        assert done and (info.done_reason or "").startswith("max_steps")
        assert "Clicks: 15" in obs.tree
        steps = env.trajectory
        assert len(steps) == 30 and [s.index for s in steps] == list(range(1, 31))
        assert steps[0].action == click and steps[0].target == "button 'Count'"
        assert steps[0].url == f"{site}/index.html" and "Clicks: 0" in steps[0].observation
        assert all(s.valid for s in steps) and all(s.seconds > 0 for s in steps)

    run(scenario)


def test_screenshots_are_png(site: str) -> None:
    async def scenario(env: BrowserEnv) -> None:
        obs = await env.reset(f"{site}/index.html")
        assert obs.screenshot is not None and obs.screenshot.startswith(b"\x89PNG")
        assert obs.screenshot_b64()

    run(scenario, screenshot=True)
