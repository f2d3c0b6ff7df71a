"""How memory names things: store namespaces, slugs for names and file stems, ISO timestamps."""

from __future__ import annotations

import re
from datetime import UTC, datetime

_NON_SLUG = re.compile(r"[^a-z0-9]+")
GENERAL = "general"  # the website of workflows and runs that belong to no particular one
# the store's namespaces (memory.agent_memory); an induction log beside the workflows
REFLECTIONS, TRAJECTORIES, WORKFLOWS = "reflections", "trajectories", "workflows"
WORKFLOW_UPDATES = "workflow_updates"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def slugify(text: str, max_len: int = 60) -> str:
    """`Find all orders!` -> `find_all_orders`; the canonical form of names and file stems."""
    slug = _NON_SLUG.sub("_", text.lower()).strip("_")
    return slug[:max_len].rstrip("_")


def website_stem(website: str) -> str:
    """The file stem (and store namespace label) of a website: its slug, or 'general'."""
    return slugify(website) or GENERAL
