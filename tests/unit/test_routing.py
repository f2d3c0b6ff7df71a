"""The routing table: retry while needed and allowed, continue, finish, counters reset."""

import pytest

from agents.research.tasks import next_retry_count
from graphs.routing import decide, should_continue


@pytest.mark.parametrize(
    ("needs_retry", "retry_count", "max_retries", "index", "n_tasks", "route"),
    [
        (True, 1, 2, 0, 3, "retry"),  # first retry granted
        (True, 2, 2, 0, 3, "retry"),  # second retry granted: max_retries=2 means 2 retries
        (True, 0, 2, 0, 3, "continue"),  # retries used up (counter reset) → move on
        (True, 0, 2, 2, 3, "finish"),  # used up on the last task → finish
        (False, 0, 2, 0, 3, "continue"),
        (False, 0, 2, 2, 3, "finish"),
        (True, 0, 0, 0, 1, "finish"),  # max_retries=0: never retry
        (True, 3, 2, 0, 3, "continue"),  # an out-of-range counter never retries
    ],
)
def test_decide(needs_retry, retry_count, max_retries, index, n_tasks, route):
    assert (
        decide(
            needs_retry=needs_retry,
            retry_count=retry_count,
            max_retries=max_retries,
            index=index,
            n_tasks=n_tasks,
        )
        == route
    )


def test_counter_grants_exactly_max_retries_then_resets():
    count, granted = 0, 0
    for _ in range(10):  # the reflector keeps failing the same task
        count = next_retry_count(needs_retry=True, retry_count=count, max_retries=3)
        if count == 0:
            break
        granted += 1
    assert granted == 3 and count == 0


def test_pass_resets_counter():
    assert next_retry_count(needs_retry=False, retry_count=2, max_retries=3) == 0


def test_single_path_routing():
    assert (
        should_continue({"query": "q", "tasks": ["a", "b"], "current_task_index": 0}) == "continue"
    )
    assert should_continue({"query": "q", "tasks": ["a", "b"], "current_task_index": 1}) == "finish"
