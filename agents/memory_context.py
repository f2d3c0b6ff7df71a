"""What every node puts in its prompt from memory: relevant reflections and workflows."""

from __future__ import annotations

import logging

from agents import resources
from graphs.context import Context
from prompts.memory import MEMORY_SECTIONS, NO_MEMORY

log = logging.getLogger(__name__)


def relevant_workflows(ctx: Context, text: str) -> str:
    """Formatted workflows relevant to `text` (Agent Workflow Memory); '' when there are none."""
    from memory.workflows import relevant_workflows_text

    return relevant_workflows_text(
        text, home=ctx.home, k=ctx.workflows_k, embeddings=resources.embeddings(ctx)
    )


def memory_block(ctx: Context, text: str) -> str:
    """The <past_reflections> and <workflows> sections for a prompt about `text`."""
    manager = resources.reflection_manager(ctx)
    reflections = manager.get_relevant_reflections(text, k=ctx.reflections_k)
    workflows = relevant_workflows(ctx, text) if ctx.workflows_k > 0 else ""
    return MEMORY_SECTIONS.format(
        reflections=manager.format_reflections(reflections) or NO_MEMORY,
        workflows=workflows or NO_MEMORY,
    )
