"""A child that outlives its timeout fails its test with where it was, not only how long."""

from __future__ import annotations

import sys

import pytest

from tests.integration.processes import ChildHung, run_child

pytestmark = pytest.mark.integration


def test_a_hung_child_fails_with_its_stacks() -> None:
    hang = "import time\ndef wait_here():\n    time.sleep(60)\nwait_here()\n"
    with pytest.raises(ChildHung) as hung:
        run_child([sys.executable, "-c", hang], timeout=2)
    assert "still running after 2 s" in str(hung.value)
    assert "line 3 in wait_here" in str(hung.value), str(hung.value)


def test_a_child_that_ends_in_time_is_its_completed_process() -> None:
    done = run_child([sys.executable, "-c", "print('ok')"], timeout=60, text=True)
    assert (done.returncode, done.stdout) == (0, "ok\n")
