"""Graph state: the seed's ReflectiveAgentState fields plus what a retry and AWM need."""

from __future__ import annotations

import operator
from typing import Annotated, Any

from typing_extensions import NotRequired, TypedDict


class InputState(TypedDict):
    """What a caller passes in: just the request."""

    query: str


class ReflectiveAgentState(InputState):
    """State of the reflective graph (the single-path graph uses the same shape).

    `results[i]` and `trajectories[i]` belong to `tasks[i]`; a retry replaces them, so failed
    attempts never reach the aggregator. `reflection_ids` accumulates (reducer: list append).
    `retry_count` is the number of retries made for the current task; it starts at 0 per task.
    """

    optimized_goal: NotRequired[str]
    optimized_response: NotRequired[str]
    tasks: NotRequired[list[str]]
    current_task_index: NotRequired[int]
    results: NotRequired[list[str]]
    reflection_ids: NotRequired[Annotated[list[str], operator.add]]
    final_output: NotRequired[str]
    retry_count: NotRequired[int]
    needs_retry: NotRequired[bool]
    trajectories: NotRequired[list[list[dict[str, Any]]]]


class OutputState(TypedDict):
    """What a caller gets back."""

    final_output: str
    tasks: list[str]
    results: list[str]
    reflection_ids: list[str]
