"""The decide node's constrained answer: the page's target ids, the JSON schema a decision must
fit (element ids as an enum, so a small model cannot invent one), and the action text it makes.
"""

from __future__ import annotations

import re
from typing import Any

from browser.actions import ActionParseError, ActionType, parse_action

FALLBACK_ACTION = "noop"
MAX_IDS = 400  # a bigger enum makes the grammar slow; beyond it any id string is allowed
_ID_LINE = re.compile(r"^\s*\[(\d+)\] (\S+)", re.MULTILINE)
# The document itself: acting on it does nothing, and small models pick the first id offered.
_NOT_TARGETS = {"RootWebArea", "WebArea"}
# Action types that act on an element, and those that take a text argument.
_ON_ELEMENT = {ActionType.CLICK, ActionType.HOVER, ActionType.TYPE}
_WITH_TEXT = {
    ActionType.TYPE,
    ActionType.PRESS,
    ActionType.SCROLL,
    ActionType.GOTO,
    ActionType.STOP,
    ActionType.TAB_FOCUS,
}


def page_ids(observation: str) -> list[str]:
    """The ids of the elements an action can target in an observation, in page order."""
    found = _ID_LINE.findall(observation)
    return list(dict.fromkeys(i for i, role in found if role not in _NOT_TARGETS))


def action_schema(ids: list[str]) -> dict[str, Any]:
    """JSON schema of one decision; `element_id` limited to the page's ids (or "")."""
    element: dict[str, Any] = {"type": "string", "maxLength": 12}
    if 0 < len(ids) <= MAX_IDS:
        element = {"type": "string", "enum": ["", *ids]}
    return {
        "title": "WebAction",
        "description": "The next browser action.",
        "type": "object",
        "properties": {
            "action_type": {"type": "string", "enum": [t.value for t in ActionType]},
            "element_id": element,
            "text": {"type": "string", "maxLength": 120},
        },
        "required": ["action_type", "element_id", "text"],
    }


def compose_action(answer: dict[str, Any]) -> str:
    """{action_type, element_id, text} → WebArena action text (not yet validated)."""
    kind = str(answer.get("action_type", "")).strip().lower()
    element = str(answer.get("element_id", "") or "").strip().strip("[]")
    text = str(answer.get("text", "") or "").strip()
    try:
        action_type = ActionType(kind)
    except ValueError:
        return kind or FALLBACK_ACTION  # the parser will say what is wrong with it
    if action_type is ActionType.TYPE:
        return f"type [{element}] [{text}]"
    if action_type in _ON_ELEMENT:
        return f"{kind} [{element}]"
    if action_type is ActionType.SCROLL:
        return f"scroll [{text or 'down'}]"
    if action_type in _WITH_TEXT:
        return f"{kind} [{text}]"
    return kind


def validate(action: str) -> tuple[bool, str | None]:
    """(True, None) when `action` parses, else (False, why not)."""
    try:
        parse_action(action)
    except ActionParseError as err:
        return False, err.reason
    return True, None
