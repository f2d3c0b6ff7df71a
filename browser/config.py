"""What the browser environment is configured with, and what it reports after each step."""

from __future__ import annotations

from dataclasses import dataclass, field

from browser.limits import Limits


@dataclass(frozen=True)
class EnvConfig:
    """How the environment observes and what it allows. Defaults follow WebArena.

    `allowed_origins`: entries of browser.origins.OriginPolicy allowed besides the start page's
    origin, which every reset allows for its episode.
    """

    allowed_origins: tuple[str, ...] = ()
    limits: Limits = field(default_factory=Limits)
    viewport_width: int = 1280
    viewport_height: int = 720
    viewport_only: bool = False  # only nodes inside the visible viewport
    screenshot: bool = False  # attach a PNG to every observation
    action_timeout_ms: int = 3000
    navigation_timeout_ms: int = 15000
    observation_chars: int = 2000  # observation text kept per trajectory step


@dataclass(frozen=True)
class StepInfo:
    """The outcome of one step: `valid` False means `reason` says what was wrong."""

    raw: str
    action: str | None
    valid: bool
    reason: str | None
    url: str
    note: str = ""
    target: str | None = None
    done_reason: str | None = None
    answer: str | None = None
    seconds: float = 0.0
