"""WebArena's id-based action space as text: tolerant parsing and one canonical form."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from browser.keys import UnknownKey, normalize_key_combination
from prompts.web import ACTION_USAGE


class ActionType(StrEnum):
    CLICK = "click"
    HOVER = "hover"
    TYPE = "type"
    PRESS = "press"
    SCROLL = "scroll"
    NEW_TAB = "new_tab"
    TAB_FOCUS = "tab_focus"
    TAB_CLOSE = "tab_close"
    GOTO = "goto"
    GO_BACK = "go_back"
    GO_FORWARD = "go_forward"
    STOP = "stop"
    NOOP = "noop"


# WebArena's own parser spells tab_close as close_tab; accept both.
_ALIASES = {"close_tab": ActionType.TAB_CLOSE}
_KEYWORDS = sorted([t.value for t in ActionType] + list(_ALIASES), key=len, reverse=True)
_KEYWORD_RE = "|".join(_KEYWORDS)
# A line whose first word is an action, after prefixes such as "Action:" or "- ".
_LINE_START = re.compile(
    rf"^\s*(?:[-*>]\s*)?(?:(?:next\s+)?action\s*:\s*)?`*\s*({_KEYWORD_RE})\b", re.IGNORECASE
)
# Inside prose ("...the next action I will perform is click [12]") only bracketed actions or
# the unambiguous underscore/noop keywords count; a bare "stop" in a sentence does not.
_INLINE = re.compile(
    r"(?<![\w-])(?:(click|hover|type|press|scroll|goto|tab_focus|stop)\s*\[|"
    r"(new_tab|tab_close|close_tab|go_back|go_forward|noop)\b)",
    re.IGNORECASE,
)
_FENCE = re.compile(r"```(.*?)```", re.DOTALL)


class ActionParseError(ValueError):
    """The text is not a valid action; `.reason` says precisely why (shown to the agent)."""

    def __init__(self, reason: str, text: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.text = text


@dataclass(frozen=True)
class Action:
    """One parsed action. Only the fields its type uses are set."""

    type: ActionType
    element_id: str | None = None
    text: str | None = None  # typed text, key combination, scroll direction, url or answer
    press_enter: bool = False
    tab_index: int | None = None

    @property
    def canonical(self) -> str:
        """The action written back in its one canonical text form."""
        t = self.type
        if t in (ActionType.CLICK, ActionType.HOVER):
            return f"{t} [{self.element_id}]"
        if t is ActionType.TYPE:
            return f"{t} [{self.element_id}] [{self.text}] [{int(self.press_enter)}]"
        if t in (ActionType.PRESS, ActionType.SCROLL, ActionType.GOTO, ActionType.STOP):
            return f"{t} [{self.text}]"
        if t is ActionType.TAB_FOCUS:
            return f"{t} [{self.tab_index}]"
        return t.value


def action_candidates(response: str) -> list[str]:
    """Possible action texts in a model response, most likely first.

    Fenced blocks win (WebArena's "```click [12]```" convention), then lines that start with an
    action keyword, then actions inside prose; later ones beat earlier ones (the final decision).
    """
    if not response or not response.strip():
        raise ActionParseError("empty response: write one action such as click [12]", response)
    blocks = [_strip_fence_language(b) for b in _FENCE.findall(response)]
    found = [_first_line(b) for b in reversed(blocks) if _LINE_START.match(b)]
    found += [ln.strip() for ln in reversed(response.splitlines()) if _LINE_START.match(ln)]
    inline = reversed(list(_INLINE.finditer(response)))
    found += [_first_line(response[m.start() :]) for m in inline]
    if found:
        return list(dict.fromkeys(found))
    if blocks:
        raise ActionParseError(
            f"the ``` block {blocks[-1][:60]!r} does not start with an action keyword "
            f"({', '.join(t.value for t in ActionType)})",
            response,
        )
    raise ActionParseError(
        f"no action found in {response.strip()[:80]!r}: expected one of "
        + ", ".join(ACTION_USAGE.get(t, t.value) for t in ActionType),
        response,
    )


def parse_action(response: str) -> Action:
    """Parse a model response (or bare action text) into an Action, or raise ActionParseError.

    The first candidate that parses wins; if none does, the error is the most likely one's.
    """
    first_error: ActionParseError | None = None
    for candidate in action_candidates(response):
        try:
            return _parse_one(candidate)
        except ActionParseError as err:
            first_error = first_error or ActionParseError(err.reason, response)
    assert first_error is not None  # action_candidates never returns an empty list
    raise first_error


def _parse_one(candidate: str) -> Action:
    text = _clean(candidate)
    match = re.match(rf"({_KEYWORD_RE})\b\s*(.*)$", text, re.IGNORECASE | re.DOTALL)
    if not match:
        raise ActionParseError(f"unknown action {text.split(' ')[0]!r}", candidate)
    keyword = match.group(1).lower()
    kind = _ALIASES.get(keyword) or ActionType(keyword)
    try:
        return _PARSERS[kind](match.group(2).strip())
    except ActionParseError as err:
        usage = ACTION_USAGE.get(kind, kind.value)
        raise ActionParseError(f"{err.reason}; usage: {usage}", candidate) from None


def _strip_fence_language(block: str) -> str:
    block = block.strip()
    first, _, rest = block.partition("\n")
    if rest and re.fullmatch(r"[A-Za-z]+", first.strip()) and not _LINE_START.match(first):
        return rest.strip()
    return block


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0].strip() if text.strip() else ""


def _clean(text: str) -> str:
    """Drop list markers, "Action:" prefixes, backticks, and prose after the last bracket."""
    text = re.sub(r"^\s*(?:[-*>]\s*)?(?:(?:next\s+)?action\s*:\s*)?", "", text, flags=re.I)
    text = text.strip().strip("`").strip()
    if "[" in text and "]" in text:
        text = text[: text.rfind("]") + 1]
    return text.rstrip(" .;,")


def _brackets(args: str) -> list[str]:
    """The bracketed arguments in order, e.g. '[12] [hi]' -> ['12', 'hi']."""
    return re.findall(r"\[(.*?)\]", args, re.DOTALL)


def _element_id(args: str, kind: ActionType) -> Action:
    found = re.match(r"^\[?\s*(\d+)\s*\]?$", args)
    if not found:
        shown = args or "nothing"
        raise ActionParseError(f"{kind} needs a numeric element id in brackets, got {shown!r}")
    return Action(kind, element_id=found.group(1))


def _parse_type(args: str) -> Action:
    found = re.match(r"^\[\s*(\d+)\s*\]\s*\[(.*)\]\s*$", args, re.DOTALL)
    if not found:
        if not re.match(r"^\[\s*\d+\s*\]", args):
            raise ActionParseError(f"type needs a numeric element id first, got {args!r}")
        raise ActionParseError(f"type needs the text in brackets after the id, got {args!r}")
    element_id, body = found.group(1), found.group(2)
    enter = True
    flag = re.match(r"^(.*)\]\s*\[\s*([01])\s*$", body, re.DOTALL)
    if flag:
        body, enter = flag.group(1), flag.group(2) == "1"
    return Action(ActionType.TYPE, element_id=element_id, text=body, press_enter=enter)


def _parse_press(args: str) -> Action:
    found = re.match(r"^\[(.+)\]$", args, re.DOTALL)
    if not found or not found.group(1).strip():
        raise ActionParseError(f"press needs a key combination in brackets, got {args!r}")
    try:
        combination = normalize_key_combination(found.group(1).strip())
    except UnknownKey as err:
        raise ActionParseError(str(err)) from None
    return Action(ActionType.PRESS, text=combination)


def _parse_scroll(args: str) -> Action:
    found = re.match(r"^\[?\s*(up|down)\s*\]?$", args, re.IGNORECASE)
    if not found:
        raise ActionParseError(f"scroll direction must be up or down, got {args or 'nothing'!r}")
    return Action(ActionType.SCROLL, text=found.group(1).lower())


def _parse_tab_focus(args: str) -> Action:
    found = re.match(r"^\[?\s*(\d+)\s*\]?$", args)
    if not found:
        raise ActionParseError(f"tab_focus needs a tab index (0, 1, ...), got {args!r}")
    return Action(ActionType.TAB_FOCUS, tab_index=int(found.group(1)))


def _parse_goto(args: str) -> Action:
    values = _brackets(args)
    url = values[0].strip() if values else ""
    if not url or " " in url:
        raise ActionParseError(f"goto needs one url in brackets, got {args or 'nothing'!r}")
    return Action(ActionType.GOTO, text=url)


def _parse_stop(args: str) -> Action:
    # Some tasks need no answer, so a bare `stop` means an empty answer (as in WebArena).
    if not args:
        return Action(ActionType.STOP, text="")
    found = re.match(r"^\[(.*)\]$", args, re.DOTALL)
    if not found:
        raise ActionParseError(f"stop takes its answer in brackets, got {args!r}")
    return Action(ActionType.STOP, text=found.group(1).strip())


def _no_args(kind: ActionType) -> Callable[[str], Action]:
    def parse(args: str) -> Action:
        # Prose after the keyword ("go_back to the list") is tolerated; an argument is not.
        if "[" in args.replace("[]", ""):
            raise ActionParseError(f"{kind} takes no argument, got {args!r}")
        return Action(kind)

    return parse


_PARSERS: dict[ActionType, Callable[[str], Action]] = {
    ActionType.CLICK: lambda a: _element_id(a, ActionType.CLICK),
    ActionType.HOVER: lambda a: _element_id(a, ActionType.HOVER),
    ActionType.TYPE: _parse_type,
    ActionType.PRESS: _parse_press,
    ActionType.SCROLL: _parse_scroll,
    ActionType.TAB_FOCUS: _parse_tab_focus,
    ActionType.GOTO: _parse_goto,
    ActionType.STOP: _parse_stop,
    **{t: _no_args(t) for t in (ActionType.NEW_TAB, ActionType.TAB_CLOSE, ActionType.GO_BACK,
                                ActionType.GO_FORWARD, ActionType.NOOP)},
}  # fmt: skip
