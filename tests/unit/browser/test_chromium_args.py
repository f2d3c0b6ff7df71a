"""The launch switches: chromium reads only the last --disable-features, so there must be one."""

from __future__ import annotations

from browser.chromium import BASE_ARGS, CHROMIUM_ARGS, LOCKDOWN_FEATURES, QUIET_FEATURES


def _disabled(args: list[str]) -> list[set[str]]:
    prefix = "--disable-features="
    return [set(a.removeprefix(prefix).split(",")) for a in args if a.startswith(prefix)]


def test_every_launch_has_one_disable_features_switch_naming_all_its_features() -> None:
    assert _disabled(CHROMIUM_ARGS) == [set(QUIET_FEATURES) | set(LOCKDOWN_FEATURES)]
    assert _disabled(BASE_ARGS) == [set(QUIET_FEATURES)]
