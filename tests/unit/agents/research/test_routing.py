"""The routing table and the scheduler: retry while needed and allowed, fan out what is ready."""

from types import SimpleNamespace

import pytest
from langgraph.types import Send

from agents.research.reflect_on_task import next_retry_count
from agents.research.schedule_tasks import schedule_tasks
from core.context import Context
from graphs.research import decide, route_tasks


@pytest.mark.parametrize(
    ("needs_retry", "attempt", "max_retries", "route"),
    [
        (True, 1, 2, "retry"),  # first retry granted
        (True, 2, 2, "retry"),  # second retry granted: max_retries=2 means 2 retries
        (True, 3, 2, "finish"),  # 3 attempts made: retries used up
        (False, 1, 2, "finish"),
        (True, 1, 0, "finish"),  # max_retries=0: never retry
    ],
)
def test_decide(needs_retry, attempt, max_retries, route):
    assert decide(needs_retry=needs_retry, attempt=attempt, max_retries=max_retries) == route


def test_counter_grants_exactly_max_retries():
    count, granted = 0, 0
    for _ in range(10):  # the reflector keeps failing the same task
        new = next_retry_count(needs_retry=True, retry_count=count, max_retries=3)
        if new == count:
            break
        count, granted = new, granted + 1
    assert granted == 3 and count == 3


def test_pass_keeps_counter():
    assert next_retry_count(needs_retry=False, retry_count=2, max_retries=3) == 2


def runtime(**ctx):
    return SimpleNamespace(context=Context(**{"max_concurrency": 4, **ctx}))


STATE = {
    "query": "q",
    "run_id": "r1",
    "optimized_goal": "g",
    "tasks": ["a a a", "b b b", "c c c", "d d d"],
    "depends_on": [[], [], [0, 1], [2]],
}


def test_independent_tasks_go_first_and_dependents_wait():
    assert schedule_tasks(STATE, runtime())["current_tasks"] == [0, 1]
    state = {**STATE, "results": ["A", None]}
    assert schedule_tasks(state, runtime())["current_tasks"] == [1]
    state = {**STATE, "results": ["A", "B"]}
    assert schedule_tasks(state, runtime())["current_tasks"] == [2]
    state = {**STATE, "results": ["A", "B", "C", "D"]}
    assert schedule_tasks(state, runtime())["current_tasks"] == []


def test_max_concurrency_caps_a_wave():
    free = {**STATE, "depends_on": [[], [], [], []]}
    assert schedule_tasks(free, runtime(max_concurrency=3))["current_tasks"] == [0, 1, 2]
    assert schedule_tasks(free, runtime(max_concurrency=1))["current_tasks"] == [0]


def test_route_tasks_sends_each_task_with_its_dependencies_results():
    state = {**STATE, "results": ["A", "B"], "current_tasks": [2]}
    (send,) = route_tasks(state)
    assert isinstance(send, Send) and send.node == "run_task"
    assert send.arg["task_index"] == 2 and send.arg["task"] == "c c c"
    assert send.arg["dependencies"] == [
        {"task": "a a a", "result": "A"},
        {"task": "b b b", "result": "B"},
    ]
    assert route_tasks({**state, "current_tasks": []}) == "aggregate_results"


def test_concurrency_zero_means_one_task_at_a_time_on_the_embedded_model_only():
    assert Context().task_concurrency == 1  # the embedded model: one instance, one prompt cache
    assert Context(executor_model="openai:gpt-4o-mini").task_concurrency == 4
    assert Context(executor_model="openai:gpt-4o-mini", max_concurrency=2).task_concurrency == 2
    assert Context(max_concurrency=3).task_concurrency == 3
