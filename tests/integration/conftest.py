"""Integration-test fixtures: the tally of the store's fault suite, printed in pytest's summary.

    store faults: K kills survived, M malformed inputs tried (D damaged files, H hostile
    imports), L acknowledged records lost

(tests/integration/test_store_faults.py and test_store_hostile_input.py add to it.)
"""

from __future__ import annotations

from collections import Counter

import pytest

STORE_FAULTS: Counter = Counter()  # one per pytest session: what the summary line reports


@pytest.fixture
def tally() -> Counter:
    return STORE_FAULTS


def pytest_terminal_summary(terminalreporter) -> None:
    if not STORE_FAULTS:
        return
    c = STORE_FAULTS
    terminalreporter.write_line(
        f"store faults: {c['kills']} kills survived, "
        f"{c['damaged'] + c['hostile']} malformed inputs tried "
        f"({c['damaged']} damaged files, {c['hostile']} hostile imports), "
        f"{c['lost']} acknowledged records lost"
    )
