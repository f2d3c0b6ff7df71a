"""AWM's workflow text format: parse (tolerating hand edits) and format (`## name` / desc / steps).

Accepted headers: `## name` (Mind2Web), `# name` (AWM's abstract variant) and
`Workflow N: description` (AWM's WebArena variant, whose steps are <think>/<action> blocks).
Files hold the canonical `## name` form (`canonical_text`), so parse(canonical_text(ws)) == ws.
Prompts get `format_workflow(s)`: the same text for trusted workflows; an untrusted one
(memory/workflows/types.py Provenance) is quoted, each line after `> `, under a label naming
its source, so it reads as data, never as one of the agent's own workflows.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from memory.labels import slugify
from memory.workflows.types import Workflow
from prompts.memory import UNTRUSTED_WORKFLOW

log = logging.getLogger(__name__)

_HASH_HEADER = re.compile(r"^#{1,2}\s+(\S.*?)\s*$")
_NUMBERED_HEADER = re.compile(r"^Workflow\s+\d+\s*:\s*(\S.*?)\s*$")
_MIND2WEB_ACTION = re.compile(r"^\[[^\]]*\]\s.*->\s*(CLICK|TYPE:.*|SELECT:.*|HOVER|ENTER)\s*$")
_CALL_ACTION = re.compile(r"^[A-Za-z_][\w.]*\(.*\)\s*(#.*)?$", re.S)
# WebArena's action space: `click [12]`, `type [12] [text] [1]`, `goto [url]`, `go_back`.
_BRACKET_ACTION = re.compile(
    r"^(click|type|hover|press|scroll|goto|go_back|go_forward|new_tab|tab_focus|close_tab|stop)"
    r"(\s*\[[^\]]*\])*\s*(#.*)?$"
)
_SECTION_MARKERS = ("Summary Workflows", "Extracted Workflows")
_NOT_WORKFLOW_HEADERS = ("query", "concrete examples", "summary workflows", "extracted workflows")


@dataclass
class ParseResult:
    """Workflows that parsed, and one `where:line: reason` per block that was skipped."""

    workflows: list[Workflow] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def looks_like_action(step: str) -> bool:
    """A Mind2Web line, a call like `click('12')`, or a <think>…<action>…</action> block."""
    text = step.strip()
    if "<action>" in text and text.endswith("</action>"):
        return True
    return bool(
        _MIND2WEB_ACTION.match(text) or _CALL_ACTION.match(text) or _BRACKET_ACTION.match(text)
    )


def _header(line: str) -> tuple[str, str | None] | None:
    """(name, description-from-header or None) if the line opens a block."""
    m = _NUMBERED_HEADER.match(line)
    if m:
        return slugify(m.group(1)), m.group(1)
    m = _HASH_HEADER.match(line)
    if m:
        return m.group(1), None
    return None


def _group_steps(lines: list[tuple[int, str]]) -> tuple[list[str], str | None]:
    """Lines → steps; <think>…</action> spans become one step. Returns (steps, problem)."""
    steps: list[str] = []
    pending: list[str] = []
    for _lineno, line in lines:
        stripped = line.strip()
        if pending or stripped.startswith(("<think>", "<action>")):
            pending.append(line.rstrip())
            if stripped.endswith("</action>"):
                steps.append("\n".join(pending))
                pending = []
            continue
        if stripped:
            steps.append(line.rstrip())
    if pending:
        return steps, "a <think>/<action> step is not closed with </action>"
    return steps, None


def _parse_block(
    header_line: int, header: tuple[str, str | None], body: list[tuple[int, str]], where: str
) -> tuple[Workflow | None, str | None]:
    raw_name, header_desc = header
    name = slugify(raw_name)
    if not name:
        return None, f"{where}:{header_line}: workflow header has no name"
    if raw_name.strip().lower().startswith(_NOT_WORKFLOW_HEADERS):
        return None, f"{where}:{header_line}: '{raw_name}' is an example or section, not a workflow"
    content = [(n, line) for n, line in body if line.strip()]
    description = header_desc
    if description is None:
        if not content:
            return None, f"{where}:{header_line}: workflow '{name}' has no description or steps"
        first_no, first = content[0]
        if looks_like_action(first) or first.strip().startswith("<think>"):
            return None, f"{where}:{first_no}: workflow '{name}' lacks a one-line description"
        description = first.strip()
        body = [(n, line) for n, line in body if n > first_no]
    steps, problem = _group_steps(body)
    if problem:
        return None, f"{where}:{header_line}: workflow '{name}': {problem}"
    if not steps:
        return None, f"{where}:{header_line}: workflow '{name}' has no steps"
    return Workflow(name=name, description=description, steps=steps), None


def parse_workflows(text: str, *, where: str = "<text>", first_line: int = 1) -> ParseResult:
    """Parse workflow blocks; malformed blocks are skipped with a warning naming their line."""
    result = ParseResult()
    blocks: list[tuple[int, tuple[str, str | None], list[tuple[int, str]]]] = []
    in_comment = False
    for offset, line in enumerate(text.splitlines()):
        lineno = first_line + offset
        stripped = line.strip()
        # HTML comments carry notes for people; they are never workflow content.
        if in_comment or stripped.startswith("<!--"):
            in_comment = "-->" not in stripped
            continue
        header = _header(line)
        if header is not None:
            blocks.append((lineno, header, []))
        elif blocks:
            blocks[-1][2].append((lineno, line))
        elif stripped:
            result.problems.append(f"{where}:{lineno}: text outside any workflow block, ignored")
    for header_line, header, body in blocks:
        workflow, problem = _parse_block(header_line, header, body, where)
        if workflow is not None:
            result.workflows.append(workflow)
        if problem:
            result.problems.append(problem)
    for problem in result.problems:
        log.warning("skipped: %s", problem)
    return result


def workflow_text(workflow: Workflow) -> str:
    """The canonical block: `## name`, description, steps."""
    return "\n".join([f"## {workflow.name}", workflow.description, *workflow.steps])


def canonical_text(workflows: Iterable[Workflow]) -> str:
    """A workflow file's text: blocks separated by one blank line (what AWM put in its prompts)."""
    return "\n\n".join(workflow_text(w) for w in workflows)


def format_workflow(workflow: Workflow) -> str:
    """The block a prompt shows: canonical when trusted, else quoted under its source's label."""
    if workflow.provenance.trusted:
        return workflow_text(workflow)
    label = UNTRUSTED_WORKFLOW.format(source=workflow.provenance.describe())
    lines = [workflow.description, *workflow.steps]
    return "\n".join([f"## {workflow.name}", label, *(f"> {line}" for line in lines)])


def format_workflows(workflows: Iterable[Workflow]) -> str:
    """Blocks for a prompt, separated by one blank line (see format_workflow)."""
    return "\n\n".join(format_workflow(w) for w in workflows)


def extract_workflow_section(prompt_text: str) -> tuple[str, int]:
    """The workflows at the end of one of AWM's one-shot prompt files, and their first line."""
    lines = prompt_text.splitlines()
    for i, line in enumerate(lines):
        if any(marker in line for marker in _SECTION_MARKERS):
            return "\n".join(lines[i + 1 :]), i + 2
    raise ValueError("no 'Summary Workflows' or 'Extracted Workflows' section in this text")
