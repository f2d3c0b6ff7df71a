"""Every value a router, a report or a reader branches on is a Literal type in core.state, and
the code that writes those values writes only the type's values."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Literal, get_args, get_origin, get_type_hints

import pytest

from agents.research import hop
from core.run_budget import Caps, RunBudget
from core.state import (
    DISAGREED,
    AnswerCheck,
    Cap,
    ChainEnd,
    ChainLink,
    CheckHow,
    ReflectiveAgentState,
    Stopped,
    TaskReport,
    TaskVerdict,
)
from tests.conftest import ROOT


def _values(hint: object) -> set[str]:
    """The strings a (possibly NotRequired/Optional/union) Literal annotation allows."""
    if get_origin(hint) is Literal:
        return set(get_args(hint))
    return {v for arg in get_args(hint) for v in _values(arg)}


@pytest.mark.parametrize(
    ("owner", "key", "outcome"),
    [
        (ReflectiveAgentState, "research", Literal["chain", "plan"]),
        (ReflectiveAgentState, "stopped", Stopped),
        (ChainLink, "how", ChainEnd),
        (AnswerCheck, "how", CheckHow),
        (TaskReport, "verdict", TaskVerdict),
    ],
)
def test_each_outcome_in_the_state_is_a_literal(owner, key, outcome):
    hint = get_type_hints(owner)[key]
    assert _values(hint) == _values(outcome) != set()


def test_a_cap_is_a_stop_and_disagreement_is_a_way_a_check_ends():
    assert set(get_args(Cap)) < _values(Stopped)
    assert set(DISAGREED) < set(get_args(CheckHow))


def test_the_budget_names_only_caps():
    budget = RunBudget()
    budget.calls, budget.tokens = 5, 500
    reached = {budget.over(Caps(max_calls=5)), budget.over(Caps(max_tokens=100))}
    assert reached == {"max_calls", "max_tokens"} and reached <= set(get_args(Cap))
    assert budget.over(Caps(max_calls=6)) is None


def test_a_chain_ends_only_in_the_chain_end_values():
    ends = {hop.ANSWERED, hop.COMPARED, hop.LAST, hop.UNANSWERED}
    assert ends == set(get_args(ChainEnd))


def test_no_product_module_writes_an_outcome_as_a_loose_string_beside_its_type():
    """The check's ways to end are written where the check is made (readings, check_answer):
    a module elsewhere compares to them through core.state's names, not its own copies."""
    allowed = {"agents/research/readings.py", "agents/research/check_answer.py", "core/state.py"}
    found = []
    for path in sorted((ROOT / "agents").rglob("*.py")) + sorted((ROOT / "cli").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for node in ast.walk(ast.parse(Path(path).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in ("order-bound", "no direct answer"):
                if rel not in allowed:
                    found.append(f"{rel}:{node.lineno}")
    assert found == []
