"""The decide node's constrained answer: the page's target ids, the JSON schema a decision must
fit (element ids as an enum, so a small model can neither invent one nor leave it out), and the
action text it makes.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from browser.actions import Action, ActionParseError, ActionType, parse_action
from prompts.web import ACTION_SCHEMA_TEXT

FALLBACK_ACTION = "noop"
MAX_IDS = 400  # a bigger enum makes the grammar slow; beyond it any id string is allowed
_ID_LINE = re.compile(r"^\s*\[(\d+)\] (\S+)", re.MULTILINE)
# The document itself: acting on it does nothing, and small models pick the first id offered.
_NOT_TARGETS = {"RootWebArea", "WebArea"}
# Roles that take typed text: a model offered every id typed into labels and static text.
EDITABLE = frozenset({"textbox", "searchbox", "combobox", "spinbutton", "textarea"})
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


def page_ids(observation: str, roles: frozenset[str] | None = None) -> list[str]:
    """The ids of the elements an action can target in an observation, in page order; only
    those of `roles` when given."""
    found = _ID_LINE.findall(observation)
    wanted = [
        i for i, role in found if role not in _NOT_TARGETS and (roles is None or role in roles)
    ]
    return list(dict.fromkeys(wanted))


def action_schema(
    ids: list[str], spent: Collection[Action] = (), editable: list[str] | None = None
) -> dict[str, Any]:
    """JSON schema of one decision: `oneOf` one branch per kind of action, so an action on an
    element must name one of the page's ids, and only typing, keys, urls and answers take text.

    One flat object with `element_id` allowed to be "" let a model fill `type` with no element
    (Qwen2.5-1.5B did on every MiniWoB++ page); here "" is not an id, and an action with no
    element has no `element_id` at all. A page with no targets offers no element branch.
    `editable`: the ids `type` may name (page_ids with EDITABLE roles); all `ids` when None.
    `spent`: element actions that left the page exactly as it is; the same action on the same
    element is not offered again (a small model retypes a value into a box, or clicks two
    things in turn, while the feedback in its prompt says the page did not change).
    """
    text: dict[str, Any] = {"type": "string", "maxLength": 120}
    branches = []
    for kind in sorted(_ON_ELEMENT):
        targets = editable if kind is ActionType.TYPE and editable is not None else ids
        used = {(a.type, a.element_id) for a in spent}
        allowed = [i for i in targets if (kind, i) not in used]
        fields = {"element_id": _element(allowed)} | ({"text": text} if kind in _WITH_TEXT else {})
        if allowed:
            branches.append(_branch([kind], fields))
    branches.append(_branch(sorted(_WITH_TEXT - _ON_ELEMENT), {"text": text}))
    branches.append(_branch(sorted(set(ActionType) - _ON_ELEMENT - _WITH_TEXT), {}))
    return {"title": "WebAction", "description": ACTION_SCHEMA_TEXT, "oneOf": branches}


def _element(ids: list[str]) -> dict[str, Any]:
    if len(ids) <= MAX_IDS:
        return {"type": "string", "enum": ids}
    return {"type": "string", "maxLength": 12}  # a bigger enum makes the grammar slow


def _branch(kinds: list[ActionType], fields: dict[str, Any]) -> dict[str, Any]:
    properties = {"action_type": {"type": "string", "enum": [k.value for k in kinds]}, **fields}
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def action_types(schema: dict[str, Any]) -> list[str]:
    """Every action type `schema` offers, in branch order."""
    return [t for b in schema["oneOf"] for t in b["properties"]["action_type"]["enum"]]


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
