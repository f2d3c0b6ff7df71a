"""Recorded runs for online induction: (observation, action) steps; as files, JSON Lines.

Also the two AWM de-duplications (by task template id, then by abstract trajectory); real
data as trajectories is evals/awm/trajectory_data.py.
"""

from __future__ import annotations

import ast
import json
import re
import uuid
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memory.labels import now_iso, slugify, website_stem

_MIND2WEB = re.compile(r"^\[(?P<role>[^\]]*)\]\s*(?P<text>.*?)\s*->\s*(?P<op>[A-Z]+)")
_CALL_NAME = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*\(")
_BRACKET = re.compile(r"^\s*([a-z_]+)(?:\s*\[([^\]]*)\])?")  # WebArena: `type [12] [text] [1]`
MAX_OBSERVATION = 2000
# Actions whose first argument is always content, never a location on the page.
VALUE_FIRST_ARG = {
    "send_msg_to_user",
    "answer",
    "stop",
    "report_infeasible",
    "web_search",
    "search",
}
THINK_ACTION = re.compile(r"<think>\s*(.*?)\s*</think>\s*<action>\s*(.*?)\s*</action>", re.S)


@dataclass
class Step:
    observation: str  # what the agent saw or thought before acting (state)
    action: str  # `click('12')`, `web_search('q')`, or a Mind2Web line


@dataclass
class Trajectory:
    task: str
    website: str
    steps: list[Step]
    success: bool
    template_id: str | None = None
    judged_by: str = ""  # "evaluator", "reflection", "answer-check" or "llm-judge"
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    created: str = field(default_factory=now_iso)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Trajectory:
        steps = [Step(**s) for s in data.get("steps", [])]
        tid = data.get("template_id")
        return cls(
            task=data["task"],
            website=data.get("website", ""),
            steps=steps,
            success=bool(data.get("success", False)),
            template_id=None if tid is None else str(tid),
            judged_by=data.get("judged_by", ""),
            id=data.get("id") or uuid.uuid4().hex[:12],
            created=data.get("created") or now_iso(),
        )


def action_from_tool_call(name: str, args: dict[str, object]) -> str:
    """A tool call as a call-style action string, e.g. `web_search('capital of France')`."""
    return f"{name}({', '.join(repr(v) for v in args.values())})"


def trajectory_from_tool_steps(
    task: str,
    steps: Iterable[dict],
    *,
    website: str,
    success: bool,
    template_id: str | None = None,
    judged_by: str = "",
) -> Trajectory:
    """From `agents.research.evidence.trajectory_of` output.

    That is: [{"tool", "args", "observation"}, ...].
    """
    return Trajectory(
        task=task,
        website=website,
        steps=[
            Step(
                str(s.get("observation", ""))[:MAX_OBSERVATION],
                action_from_tool_call(s["tool"], s.get("args") or {}),
            )
            for s in steps
        ],
        success=success,
        template_id=template_id,
        judged_by=judged_by,
    )


def trajectory_from_web_steps(
    task: str,
    steps: Iterable[object],
    *,
    website: str,
    success: bool,
    template_id: str | None = None,
    judged_by: str = "evaluator",
) -> Trajectory:
    """From the web agent's `TrajectoryStep`s (or their dicts); unparsed/invalid steps dropped.

    The acted-on element (`target`) is kept as a comment so a workflow says what was clicked.
    """
    out = []
    for step in steps:
        d = step if isinstance(step, dict) else step.to_dict()  # type: ignore[attr-defined]
        if not d.get("action") or not d.get("valid", True):
            continue
        action = d["action"] + (f"  # {d['target']}" if d.get("target") else "")
        out.append(Step(str(d.get("observation", ""))[:MAX_OBSERVATION], action))
    return Trajectory(
        task=task,
        website=website,
        steps=out,
        success=success,
        template_id=template_id,
        judged_by=judged_by,
    )


class TrajectoryLog:
    """FOLDER/trajectories/<website>.jsonl, one trajectory per line: how trajectories are
    exported and imported (memory.exchange); the store holds them (memory.agent_memory).

    A file may hold an id more than once: `load` returns its newest line, and a line
    `{"id", "deleted": true}` removes that id (files written before the store held them).
    """

    def __init__(self, home: str | Path) -> None:
        self.dir = Path(home) / "trajectories"

    def files(self) -> list[Path]:
        return sorted(self.dir.glob("*.jsonl")) if self.dir.is_dir() else []

    def save(self, website: str, trajectories: Iterable[Trajectory]) -> Path:
        """Replace a website's file with exactly these trajectories, a line each."""
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / f"{website_stem(website)}.jsonl"
        path.write_text("".join(json.dumps(t.to_dict()) + "\n" for t in trajectories), "utf-8")
        return path

    def load(self, website: str | None = None, *, successful_only: bool = True) -> list[Trajectory]:
        if not self.dir.is_dir():
            return []
        paths = (
            [self.dir / f"{slugify(website)}.jsonl"]
            if website
            else sorted(self.dir.glob("*.jsonl"))
        )
        out: dict[str, Trajectory] = {}  # by id: a re-recorded attempt replaces its first line
        for path in paths:
            if not path.exists():
                continue
            for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                    if record.get("deleted") is True:  # forgotten: no line of it counts
                        out.pop(str(record["id"]), None)
                        continue
                    traj = Trajectory.from_dict(record)
                except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as exc:
                    raise ValueError(f"{path}:{lineno}: not a trajectory record ({exc})") from exc
                out.pop(traj.id, None)
                out[traj.id] = traj
        return [t for t in out.values() if t.success or not successful_only]


def _is_free_text(value: object) -> bool:
    # Element ids, selectors and URLs identify *where* to act and are kept; prose (typed text,
    # messages, search queries) is a concrete value and is dropped.
    if not isinstance(value, str):
        return False
    if value.startswith(("http://", "https://", "/", "__")):
        return False  # a URL or path names a place, however long
    return any(c.isspace() for c in value.strip()) or len(value) > 60


def abstract_action(action: str) -> str:
    """Action type + first argument, concrete values removed.

    `fill('456', 'hello')` -> `fill('456')`; `send_msg_to_user('The date is 3/2/22')` ->
    `send_msg_to_user(_)`; `[textbox]  Origin -> TYPE: Seattle` -> `TYPE [textbox] Origin`.
    """
    text = action.strip()
    m = THINK_ACTION.search(text)
    if m:
        text = m.group(2)
    m2w = _MIND2WEB.match(text)
    if m2w:
        return f"{m2w['op']} [{m2w['role']}] {' '.join(m2w['text'].split())}"
    name_match = _CALL_NAME.match(text)
    if not name_match:
        bracket = _BRACKET.match(text)
        if not bracket:
            return " ".join(text.split()[:1]) or "_"
        name, first = bracket.group(1), bracket.group(2)
        if first is None:
            return name
        return (
            f"{name} [_]"
            if name in VALUE_FIRST_ARG or _is_free_text(first)
            else f"{name} [{first}]"
        )
    name = name_match.group(1)
    try:
        call = ast.parse(text, mode="eval").body
    except SyntaxError:
        return f"{name}(?)"
    if not isinstance(call, ast.Call) or not call.args:
        return f"{name}()"
    first = call.args[0]
    if isinstance(first, ast.Constant) and name not in VALUE_FIRST_ARG:
        value = first.value
        return f"{name}(_)" if _is_free_text(value) else f"{name}({value!r})"
    return f"{name}(_)"


def abstract_trajectory(trajectory: Trajectory) -> str:
    return "_".join(abstract_action(s.action) for s in trajectory.steps)


def dedup_by_template(trajectories: Iterable[Trajectory]) -> list[Trajectory]:
    """Keep the first trajectory per task template id (ones without an id are all kept)."""
    seen: set[str] = set()
    out = []
    for t in trajectories:
        if t.template_id is not None:
            if t.template_id in seen:
                continue
            seen.add(t.template_id)
        out.append(t)
    return out


def dedup_by_abstract(trajectories: Iterable[Trajectory]) -> list[Trajectory]:
    """Keep the first trajectory per (website, abstract trajectory)."""
    seen: set[tuple[str, str]] = set()
    out = []
    for t in trajectories:
        key = (slugify(t.website), abstract_trajectory(t))
        if key not in seen:
            seen.add(key)
            out.append(t)
    return out


def deduplicate(trajectories: Iterable[Trajectory]) -> list[Trajectory]:
    """AWM's order: by template id first, then by abstract trajectory."""
    return dedup_by_abstract(dedup_by_template(trajectories))
