"""Workflows with {placeholders} from successful web runs: the values that came from the task.

    workflow = parameterize([run_seed0, run_seed1], name="login_user")
    # ## login_user
    # Enter the username {username} and the password {password} into the text fields and ...
    # type [3] [{username}] [0]  # textbox ''
    # type [4] [{password}] [0]  # textbox ''
    # click [25]  # button 'Login'

A value becomes a placeholder when it changes between runs (or, from a single run, when it
appears in the task text); a value shared by every run stays literal. Steps are the web agent's
WebArena actions with the acted-on element as a `# role 'name'` comment, which is what lets a
workflow call find its elements on a new page (agents.web.workflow_actions).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory.labels import slugify
from memory.trajectories import Trajectory
from memory.workflows.types import Provenance, Workflow

# "type [3] [text] [0]  # textbox 'Name'" -> action, role, quoted name
_TARGET = re.compile(
    r"^(?P<action>.*?)\s+#\s*(?P<role>\S+)\s+(?P<name>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
)
_KIND = re.compile(r"^\s*([a-z_]+)")
_BRACKET_FORM = re.compile(r"^\s*[a-z_]+(\s*\[[^\]]*\])*\s*$")
_BRACKETS = re.compile(r"\[([^\]]*)\]")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
# Words that say what to do rather than what the value is ("Enter "x"" names nothing).
_NOT_NAMES = {"the", "a", "an", "enter", "type", "into", "and", "click", "select", "on", "in",
              "of", "to", "with", "press", "then", "field", "text"}  # fmt: skip


@dataclass(frozen=True)
class ParsedStep:
    """A recorded step: its kind, bracketed arguments, and target (role, name) if any."""

    raw: str  # the step as recorded
    action: str  # the action text without the target comment
    kind: str
    args: list[str]
    role: str | None
    name: str | None


def parse_step(text: str) -> ParsedStep:
    """`type [3] [ada] [0]  # textbox 'Name'` -> kind type, args [3, ada, 0], textbox 'Name'."""
    action, role, name = text.strip(), None, None
    found = _TARGET.match(action)
    if found:
        action, role = found.group("action").strip(), found.group("role")
        name = str(ast.literal_eval(found.group("name")))
    kind = _KIND.match(action)
    return ParsedStep(
        text, action, kind.group(1) if kind else "", _BRACKETS.findall(action), role, name
    )


def step_line(text: str) -> str:
    """A recorded step as a workflow writes it: the action and `# role 'name'`, the element's
    other details in the record (a field's `label: '…'`, `focused: True`) left out."""
    parsed = parse_step(text)
    if parsed.role is None or not _BRACKET_FORM.match(parsed.action):
        return " ".join(text.split())
    return _targeted(parsed.action, parsed.role, parsed.name)


def _targeted(action: str, role: str | None, name: str | None) -> str:
    """An action with its element as the `# role 'name'` comment a workflow step carries."""
    return action + (f"  # {role} {name!r}" if role else "")


def _in_task(value: str, task: str) -> bool:
    if not value.strip():
        return False
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", task) is not None


def _name_before(value: str, task: str) -> str | None:
    """The last meaningful word before `value` in the task: 'username "ada"' -> username."""
    at = task.find(value)
    if at < 0:
        return None
    words = [w for w in _WORD.findall(task[:at]) if w.lower() not in _NOT_NAMES]
    return words[-1].lower() if words else None


class _Namer:
    """Placeholder names: one per distinct slot, the same name for a value reused verbatim."""

    def __init__(self) -> None:
        self.by_values: dict[tuple[str, ...], str] = {}
        self.taken: set[str] = set()

    def name(self, values: tuple[str, ...], wanted: str) -> str:
        if values in self.by_values:
            return self.by_values[values]
        base = slugify(wanted) or "value"
        name, n = base, 2
        while name in self.taken:
            name, n = f"{base}_{n}", n + 1
        self.taken.add(name)
        self.by_values[values] = name
        return name


def _variable(values: tuple[str, ...], tasks: Sequence[str]) -> bool:
    """A value is a parameter when runs disagree, or (one run) when the task states it."""
    if len(set(values)) > 1:
        return all(_in_task(v, t) for v, t in zip(values, tasks, strict=True))
    return len(values) == 1 and _in_task(values[0], tasks[0])


def _check_same_shape(runs: Sequence[list[ParsedStep]]) -> None:
    shapes = {tuple((s.kind, s.role, len(s.args)) for s in run) for run in runs}
    if len(shapes) > 1:
        raise ValueError("the runs do not share one sequence of actions and targets")


def _step_text(
    steps: list[ParsedStep], tasks: Sequence[str], namer: _Namer, template: dict[str, str]
) -> str:
    """One workflow step from the same step of every run (values that vary -> {names})."""
    first = steps[0]
    if not _BRACKET_FORM.match(first.action):
        return first.raw  # not a WebArena action (e.g. BrowserGym's click('12')): as recorded
    args = list(first.args)
    name = first.name
    if first.kind == "type" and len(args) >= 2:
        values = tuple(s.args[1] for s in steps)
        if _variable(values, tasks):
            wanted = first.name or _name_before(values[0], tasks[0]) or "text"
            args[1] = "{" + namer.name(values, wanted) + "}"
            template[values[0]] = args[1]
    elif first.kind == "stop" and args:
        values = tuple(s.args[0] for s in steps)
        if _variable(values, tasks):
            args[0] = "{" + namer.name(values, "answer") + "}"
            template[values[0]] = args[0]
    if first.role and name is not None:
        values = tuple(s.name or "" for s in steps)
        if _variable(values, tasks):
            name = "{" + namer.name(values, first.role) + "}"
            template[values[0]] = name
    text = first.kind + "".join(f" [{a}]" for a in args)
    return _targeted(text, first.role, name)


def parameterize(
    runs: Sequence[Trajectory], *, name: str | None = None, website: str | None = None
) -> Workflow:
    """One workflow from successful runs of one task template (same actions and targets).

    Raises ValueError when there are no runs, a run has no steps, or the runs differ in shape.
    """
    if not runs or any(not r.steps for r in runs):
        raise ValueError("parameterize needs at least one run, each with steps")
    parsed = [[parse_step(s.action) for s in r.steps] for r in runs]
    _check_same_shape(parsed)
    tasks = [r.task for r in runs]
    namer, template = _Namer(), dict[str, str]()
    steps = [
        _step_text([run[i] for run in parsed], tasks, namer, template)
        for i in range(len(parsed[0]))
    ]
    description = tasks[0]
    for value, placeholder in sorted(template.items(), key=lambda kv: -len(kv[0])):
        description = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", placeholder, description)
    plain = re.sub(r"\{[^}]*\}", "", description)
    return Workflow(
        name=slugify(name or plain, max_len=40) or "workflow",
        description=" ".join(description.split()),
        steps=steps,
        provenance=Provenance(
            website=website or runs[0].website,
            sources=[r.id for r in runs],
            origin="parameterized",
        ),
    )
