"""Graph state: the seed's ReflectiveAgentState fields plus what a retry and AWM need."""

from __future__ import annotations

import operator
from typing import Annotated, Any, NotRequired

from typing_extensions import TypedDict


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


class WebAgentInput(TypedDict):
    """What a caller passes to the web agent: the task and where to start.

    `run_id` names a browser environment the caller registered with `agents.web.session.attach`
    (the graph then uses that page as it is); without it the graph opens its own at
    `start_url`. `workflows`, when given, replaces the workflows retrieved from memory.
    """

    task: str
    start_url: NotRequired[str]
    website: NotRequired[str]
    run_id: NotRequired[str]
    workflows: NotRequired[str]


class WebAgentState(WebAgentInput):
    """State of the web agent's observe → decide → act loop.

    `steps` accumulates the episode's TrajectoryStep dicts and `tokens` the model's tokens
    (reducer: add). `done_reason` is set when the episode ends ("stop", a limit, "task_done").
    """

    observation: NotRequired[str]
    url: NotRequired[str]
    memory: NotRequired[dict[str, str]]
    pending_action: NotRequired[str]
    steps: NotRequired[Annotated[list[dict[str, Any]], operator.add]]
    tokens: NotRequired[Annotated[int, operator.add]]
    done_reason: NotRequired[str]
    answer: NotRequired[str]
    reward: NotRequired[float | None]
    success: NotRequired[bool]
    judged_by: NotRequired[str]
    trajectory_id: NotRequired[str]
