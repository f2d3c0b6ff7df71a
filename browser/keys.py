"""Key combinations as Playwright names them: `press [ctrl+a]` becomes `Control+a`."""

from __future__ import annotations

import re

_MODIFIERS = {
    "ctrl": "Control", "control": "Control", "shift": "Shift", "alt": "Alt", "option": "Alt",
    "meta": "Meta", "cmd": "Meta", "command": "Meta", "controlormeta": "ControlOrMeta",
}  # fmt: skip
_NAMED_KEYS = {
    "enter": "Enter", "return": "Enter", "tab": "Tab", "escape": "Escape", "esc": "Escape",
    "backspace": "Backspace", "delete": "Delete", "del": "Delete", "space": "Space",
    "home": "Home", "end": "End", "insert": "Insert", "pageup": "PageUp", "pgup": "PageUp",
    "pagedown": "PageDown", "pgdn": "PageDown", "arrowup": "ArrowUp", "up": "ArrowUp",
    "arrowdown": "ArrowDown", "down": "ArrowDown", "arrowleft": "ArrowLeft", "left": "ArrowLeft",
    "arrowright": "ArrowRight", "right": "ArrowRight",
    **{f"f{i}": f"F{i}" for i in range(1, 13)},
}  # fmt: skip


class UnknownKey(ValueError):
    """A key or modifier name Playwright would not know."""


def normalize_key_combination(combo: str) -> str:
    """'ctrl+a' -> 'Control+a'; raises UnknownKey for names Playwright would not know."""
    parts = [p.strip() for p in combo.split("+")] if combo != "+" else ["+"]
    if any(not p for p in parts):
        raise UnknownKey(f"empty key in combination {combo!r}")
    out = [_MODIFIERS.get(p.lower(), p) for p in parts[:-1]]
    unknown = [
        p for p, o in zip(parts[:-1], out, strict=True) if o == p and p not in _MODIFIERS.values()
    ]
    if unknown:
        raise UnknownKey(
            f"unknown modifier {unknown[0]!r} in {combo!r} (use Control, Shift, Alt or Meta)"
        )
    key = parts[-1]
    if len(key) > 1:
        named = _NAMED_KEYS.get(key.lower()) or _MODIFIERS.get(key.lower())
        if not named and not re.fullmatch(r"(Key[A-Z]|Digit[0-9])", key):
            raise UnknownKey(f"unknown key {key!r} in {combo!r}")
        key = named or key
    return "+".join([*out, key])
