"""Workflows verified before they are trusted (ASI: a skill is admitted only after it ran
successfully): an induced workflow is replayed where it was learned, with the values of the run
it came from, and its verification record says when, where and whether the replay succeeded.

    args = arguments_from(workflow, [step.action for step in source_run.steps])
    passed, detail = <replay `workflow` with `args` on the run's environment>
    workflow.provenance.verification = verification(f"miniwob/{family}#{seed}", passed, detail)

Retrieval for an agent that admits verified workflows only (`WebAgentContext.verified_workflows`)
returns the workflows whose record says passed; the others stay stored, as AWM's text.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from memory.labels import now_iso
from memory.workflows.params import step_line
from memory.workflows.types import Workflow

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")


def arguments_from(workflow: Workflow, steps: Sequence[str]) -> dict[str, str] | None:
    """The value each {placeholder} had in the run whose `steps` (action lines, in order) the
    workflow was induced from; None when the steps do not fit its templates. A step is read as
    the workflow wrote it (`step_line`): its element's label is not part of the template."""
    if len(steps) != len(workflow.steps):
        return None
    args: dict[str, str] = {}
    for template, step in zip(workflow.steps, steps, strict=True):
        found = _pattern(template).fullmatch(" ".join(step_line(step).split()))
        if found is None:
            return None
        for group, value in found.groupdict().items():
            name = _names(template)[int(group[1:])]
            if args.setdefault(name, value) != value:
                return None  # one placeholder, two values
    return args


def _names(template: str) -> list[str]:
    return _PLACEHOLDER.findall(template)


def _pattern(template: str) -> re.Pattern[str]:
    """`template` as a regex whose groups p0, p1, … are its placeholders (ids like [25] may
    differ between runs: any number matches)."""
    parts, out = _PLACEHOLDER.split(" ".join(template.split())), []
    for i, part in enumerate(parts):
        if i % 2:
            out.append(f"(?P<p{i // 2}>.*?)")
        else:
            out.append(re.sub(r"\\\[\d+\\\]", r"\\[\\d+\\]", re.escape(part)))
    return re.compile("".join(out))


def verification(where: str, passed: bool, detail: str = "") -> dict[str, object]:
    """The record of one replay: when, where (the environment: a seed, a page), the result."""
    return {"at": now_iso(), "where": where, "passed": passed, "detail": detail}


def unverified_from(workflows: Iterable[Workflow], source: str) -> list[Workflow]:
    """The workflows learned from the run `source` (a trajectory id) never replayed yet."""
    return [
        w for w in workflows if source in w.provenance.sources and w.provenance.verification is None
    ]
