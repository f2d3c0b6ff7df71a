"""The workflow record (AWM): name, one-line description, steps with {placeholders}, provenance."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from memory.labels import now_iso

_PLACEHOLDER = re.compile(r"\{([^{}]+)\}")
_SPACES = re.compile(r"\s+")


def normalize_step(step: str) -> str:
    """Whitespace-insensitive form of a step, for duplicate detection (not for display)."""
    return _SPACES.sub(" ", step).strip().lower()


@dataclass
class Provenance:
    """Where a workflow came from; kept in a sidecar so the text file stays AWM's format.

    Workflows induced from an imported file (offline induction: its examples are other people's
    pages and actions) are untrusted unless the user passed --trust: prompts quote them as data
    with their source (memory/workflows/format.py). Online induction reads only this agent's
    own tasks and actions, and a hand-written workflow is the user's: both are trusted.
    """

    website: str = ""
    domain: str = ""
    sources: list[str] = field(default_factory=list)  # trajectory ids or example ids
    origin: str = "manual"  # manual | offline | online-rule | online-llm | parameterized
    created: str = field(default_factory=now_iso)
    updated: str = field(default_factory=now_iso)
    trusted: bool = True
    file: str = ""  # the file an offline induction read
    # ASI's admission check: the workflow replayed where it was learned, {"at", "where",
    # "passed", "detail"} (evals/awm/verification.py); None = never replayed
    verification: dict[str, object] | None = None
    # the template of the runs it was learned from ("plan: Are {name} and {name_2} both
    # {name_3}?"): the kind of request it fits; "" where none was known
    template: str = ""

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "website": self.website,
            "domain": self.domain,
            "sources": list(self.sources),
            "origin": self.origin,
            "created": self.created,
            "updated": self.updated,
            "trusted": self.trusted,
            "file": self.file,
        }
        if self.verification is not None:
            out["verification"] = dict(self.verification)
        if self.template:
            out["template"] = self.template
        return out

    @property
    def verified(self) -> bool:
        """Did a replay where it was learned succeed (evals/awm/verification.py)?"""
        return bool(self.verification and self.verification.get("passed") is True)

    def describe(self) -> str:
        """Where it came from, in a few words (a prompt's label, a listing)."""
        if self.origin == "offline":
            trust = "trusted by the user" if self.trusted else "untrusted"
            return f"induced from the imported file {self.file or '?'} ({trust})"
        return {"manual": "written by hand"}.get(self.origin, f"this agent's runs ({self.origin})")

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> Provenance:
        sources = data.get("sources") or []
        return cls(
            website=str(data.get("website", "")),
            domain=str(data.get("domain", "")),
            sources=[str(s) for s in sources] if isinstance(sources, list) else [],
            origin=str(data.get("origin", "manual")),
            created=str(data.get("created") or now_iso()),
            updated=str(data.get("updated") or now_iso()),
            trusted=data.get("trusted", True) is not False,
            file=str(data.get("file") or ""),
            verification=_verification(data.get("verification")),
            template=str(data.get("template") or ""),
        )


@dataclass
class Workflow:
    """One reusable sub-routine. `steps` are action lines, or think/action blocks (WebArena)."""

    name: str
    description: str
    steps: list[str]
    provenance: Provenance = field(default_factory=Provenance)

    @property
    def website(self) -> str:
        return self.provenance.website

    @property
    def placeholders(self) -> list[str]:
        seen: dict[str, None] = {}
        for step in self.steps:
            for p in _PLACEHOLDER.findall(step):
                seen.setdefault(p, None)
        return list(seen)

    def search_text(self) -> str:
        """What semantic retrieval embeds: name and description (as AWM did)."""
        return f"{self.name.replace('_', ' ')}\n{self.description}"

    def step_key(self) -> tuple[str, ...]:
        return tuple(normalize_step(s) for s in self.steps)

    def to_json(self) -> dict[str, object]:
        """The `workflows list --json` shape."""
        return {
            "name": self.name,
            "description": self.description,
            "steps": list(self.steps),
            "website": self.website,
        }


def _verification(value: object) -> dict[str, object] | None:
    return dict(value) if isinstance(value, dict) else None


def workflow_value(workflow: Workflow) -> dict[str, Any]:
    """A workflow as a Store value (JSON): its fields, provenance and the text search embeds."""
    return {
        **workflow.to_json(),
        "provenance": workflow.provenance.to_dict(),
        "search_text": workflow.search_text(),
    }


def merged(new: Workflow, old: Workflow | None) -> Workflow:
    """`new` as it replaces `old` of the same name: created when `old` was, learned from the
    sources of both, and still verified when its steps did not change."""
    if old is not None:
        new.provenance.created = old.provenance.created
        new.provenance.sources = sorted(set(old.provenance.sources) | set(new.provenance.sources))
        new.provenance.updated = now_iso()
        if new.provenance.verification is None and new.steps == old.steps:
            new.provenance.verification = old.provenance.verification
    return new


def workflow_from_value(value: dict[str, Any], namespace: tuple[str, ...] = ()) -> Workflow:
    """A stored workflow; given the namespace it is stored under, of that namespace's website
    (where it is, whatever its provenance says)."""
    provenance = Provenance.from_dict(dict(value.get("provenance") or {}))
    if len(namespace) > 1:
        provenance.website = namespace[1]
    return Workflow(
        name=str(value["name"]),
        description=str(value.get("description", "")),
        steps=[str(s) for s in value.get("steps", [])],
        provenance=provenance,
    )
