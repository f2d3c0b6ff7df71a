"""What a model's catalogue entry sets by default for a run: whether its verdicts judge a
research attempt, and how many tool calls the executor makes per attempt."""

from __future__ import annotations

from core.model_catalogue import is_file_name, lookup
from core.model_spec import parse_spec

DEFAULT_TOOL_STEPS = 3  # executor tool calls per attempt, for models that choose their own


def model_judges(spec: str | None) -> bool:
    """Does the model's verdict judge a research attempt by default? Yes, but for an embedded
    model whose catalogue entry says its verdicts decide nothing (core.model_catalogue); a
    model given as an object is judged by its own verdicts."""
    if spec is None:
        return True
    parsed = parse_spec(spec)
    if parsed.provider is None and not is_file_name(parsed.model):
        return lookup(parsed.model).judges
    return True


def default_tool_steps(spec: str | None) -> int:
    """The executor's own tool calls per attempt when none are asked for: an embedded model's
    catalogue entry may set its own (core.model_catalogue), else DEFAULT_TOOL_STEPS."""
    if spec is None:
        return DEFAULT_TOOL_STEPS
    parsed = parse_spec(spec)
    if parsed.provider is None and not is_file_name(parsed.model):
        steps = lookup(parsed.model).tool_steps
        if steps is not None:
            return steps
    return DEFAULT_TOOL_STEPS
