"""Offline induction from annotated Mind2Web-style examples, grouped domain → subdomain → website.

Input: a JSON list of {"domain", "subdomain", "website", "task", "actions": [str],
"template_id"?}, each action a Mind2Web line (`[role]  text -> CLICK` / `-> TYPE: v` /
`-> SELECT: v`). Output: workflows merged per website into memory, each update logged.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError, field_validator

from core.jsonfile import read_json_file
from memory.workflows.induction import InductionResult, Mind2WebDrafts, induce
from memory.workflows.online import LearningMemory
from memory.workflows.types import Provenance
from prompts.untrusted import data
from prompts.workflows import INDUCTION_INSTRUCTION, WORKED_EXAMPLE, WORKED_EXAMPLE_WORKFLOW_NAMES

log = logging.getLogger(__name__)

ACTION_LINE = re.compile(r"^\[[^\]]*\]\s.*->\s*(CLICK|TYPE:\s?.*|SELECT:\s?.*)$")
_SEPARATOR = re.compile(r"\s*->\s*(?=CLICK$|TYPE:|SELECT:)")


class Example(BaseModel):
    domain: str
    subdomain: str
    website: str
    task: str
    actions: list[str]
    template_id: str | int | None = None

    @field_validator("actions")
    @classmethod
    def _mind2web_lines(cls, actions: list[str]) -> list[str]:
        for i, action in enumerate(actions):
            if not ACTION_LINE.match(action.strip()):
                raise ValueError(
                    f"action {i} {action!r} is not a Mind2Web line "
                    "'[role]  text -> CLICK' / '-> TYPE: value' / '-> SELECT: value'"
                )
        return actions


def load_examples(path: str | Path) -> list[Example]:
    """Read and validate the examples file; every error is a ValueError naming the file: one
    that cannot be read as JSON (core.jsonfile.JsonFileError: missing, a folder, not UTF-8, not
    JSON, nested too deeply), or the example index and the problem."""
    data = read_json_file(path, "examples file")
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of examples, got {type(data).__name__}")
    out = []
    for i, item in enumerate(data):
        try:
            out.append(Example.model_validate(item))
        except ValidationError as exc:
            raise ValueError(f"{path}: example {i}: {exc.errors()[0]['msg']}") from exc
    return out


def mind2web_prompt_examples(text: str) -> list[dict[str, Any]]:
    """The annotated queries of AWM's Mind2Web one-shot prompt, in the examples JSON form."""
    header = re.search(r"^Website:\s*(.+)$", text, flags=re.M)
    if header is None:
        raise ValueError("no 'Website: domain, subdomain, website' line in the prompt text")
    domain, subdomain, website = (p.strip() for p in header.group(1).split(",", 2))
    body = re.split(r"^(?:Summary|Extracted) Workflows:", text, flags=re.M)[0]
    out = []
    for chunk in re.split(r"^## Query \d+:\s*", body, flags=re.M)[1:]:
        lines = chunk.splitlines()
        actions = [ln for ln in lines[1:] if ln.strip() and ln.strip() != "Actions:"]
        out.append(
            {
                "domain": domain,
                "subdomain": subdomain,
                "website": website,
                "task": lines[0].strip(),
                "actions": actions,
            }
        )
    return out


def group_examples(examples: list[Example]) -> dict[str, dict[str, dict[str, list[Example]]]]:
    """domain → subdomain → website → examples (AWM's hierarchy)."""
    tree: dict[str, dict[str, dict[str, list[Example]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    for ex in examples:
        tree[ex.domain][ex.subdomain][ex.website].append(ex)
    return tree


def format_example(numbered: tuple[int, Example]) -> str:
    """One example for the induction prompt, its task and actions escaped (prompts.untrusted.data):
    annotated examples come from files and past pages, so they cannot open a section."""
    n, ex = numbered
    return "\n".join([f"## Query {n}: {data(ex.task)}", "Actions:", *map(_action, ex.actions)])


def _action(line: str) -> str:
    """A Mind2Web line with its element text and value escaped; the ` -> ` between them is the
    format the model copies, and with every `<` escaped it can open no tag."""
    found = _SEPARATOR.search(line)
    if found is None:
        return data(line)
    return data(line[: found.start()]) + found.group() + data(line[found.end() :])


def format_examples(examples: list[Example]) -> str:
    """`## Query N: task` / `Actions:` / action lines, blocks separated by a blank line."""
    return "\n\n".join(format_example(p) for p in enumerate(examples, 1))


@dataclass
class OfflineReport:
    per_website: dict[str, InductionResult] = field(default_factory=dict)

    def summary(self) -> dict[str, dict[str, Any]]:
        return {
            site: {
                "kept": [w.name for w in r.kept],
                "dropped": r.dropped,
                "examples_used": f"{r.examples_used}/{r.examples_total}",
            }
            for site, r in self.per_website.items()
        }


def induce_offline(
    examples: list[Example],
    *,
    model: Any,
    memory: LearningMemory,
    spec: str | None = None,
    website: str | None = None,
    structured: bool | None = None,
    source: str = "",
    trusted: bool = False,
) -> OfflineReport:
    """Induce and save workflows for each website (or only `website`); logs each update.

    `structured` defaults to True for the embedded model (bounded JSON) and False otherwise.
    The workflows record `source` (the examples' file) and are untrusted unless `trusted`
    (the user's --trust): prompts then quote them as data (memory/workflows/format.py).
    """
    if structured is None:
        structured = (spec or "local").startswith("local")
    report = OfflineReport()
    for domain, subdomains in group_examples(examples).items():
        for sub, sites in subdomains.items():
            for site, site_examples in sites.items():
                if website and site != website:
                    continue
                header = data(f"Website: {domain}, {sub}, {site}")
                result = induce(
                    model=model,
                    spec=spec,
                    instruction=INDUCTION_INSTRUCTION,
                    worked_example=WORKED_EXAMPLE,
                    worked_names=WORKED_EXAMPLE_WORKFLOW_NAMES,
                    items=list(enumerate(site_examples, 1)),
                    render=lambda p, h=header: (h + "\n" if p[0] == 1 else "") + format_example(p),
                    existing=memory.workflows(site),
                    structured=structured,
                    schema=Mind2WebDrafts,
                )
                provenance = Provenance(
                    website=site, domain=domain, origin="offline", file=source, trusted=trusted
                )
                _save_site(memory, provenance, site_examples, result)
                report.per_website[site] = result
    if website and website not in report.per_website:
        raise ValueError(f"no examples for website {website!r}")
    return report


def _save_site(
    memory: LearningMemory, provenance: Provenance, examples: list[Example], result: Any
) -> None:
    """Save what induction kept for one site, with `provenance`, and log the update."""
    site = provenance.website
    provenance.sources = [str(e.template_id) for e in examples if e.template_id is not None]
    for w in result.kept:
        w.provenance = replace(provenance, sources=list(provenance.sources))
    added, updated = memory.merge_workflows(site, result.kept) if result.kept else (0, 0)
    memory.log_workflow_update(
        {
            "mode": "offline",
            "website": site,
            "file": provenance.file,
            "trusted": provenance.trusted,
            "added": added,
            "updated": updated,
            "kept": [w.name for w in result.kept],
            "dropped": result.dropped,
            "examples_used": result.examples_used,
            "examples_total": result.examples_total,
        }
    )
