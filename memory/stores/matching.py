"""What a Store query selects, by the rules LangGraph's stores document: a `filter` on an item's
value (equality, nested objects, lists item by item, and the operators $eq, $ne, $gt, $gte, $lt,
$lte) and a namespace listing's match conditions (a prefix or suffix path, "*" any one label).
Ours, so no store here imports LangGraph's private helpers; tests/unit/memory/test_store_matching.py
checks them against LangGraph's InMemoryStore on the same items."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from langgraph.store.base import ListNamespacesOp, MatchCondition

_NUMERIC: dict[str, Callable[[float, float], bool]] = {
    "$gt": operator.gt,
    "$gte": operator.ge,
    "$lt": operator.lt,
    "$lte": operator.le,
}


def value_matches(value: Mapping[str, Any], wanted: Mapping[str, Any] | None) -> bool:
    """Whether an item's `value` passes `wanted` (a search's filter; None passes all)."""
    return all(_matches(value.get(key), rule) for key, rule in (wanted or {}).items())


def _matches(found: Any, rule: Any) -> bool:
    if isinstance(rule, dict) and any(key.startswith("$") for key in rule):
        return all(_holds(found, op, operand) for op, operand in rule.items())
    if isinstance(rule, dict):
        return isinstance(found, dict) and value_matches(found, rule)
    if isinstance(rule, list | tuple):
        return (
            isinstance(found, list | tuple)
            and len(found) == len(rule)
            and all(_matches(f, r) for f, r in zip(found, rule, strict=True))
        )
    return bool(found == rule)


def _holds(found: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(found == operand)
    if op == "$ne":
        return bool(found != operand)
    if op not in _NUMERIC:
        raise ValueError(f"unsupported filter operator {op!r}: use $eq, $ne, $gt, $gte, $lt, $lte")
    try:
        return _NUMERIC[op](float(found), float(operand))
    except (TypeError, ValueError):  # a missing or text field is not more or less than a number
        return False


def namespace_matches(namespace: tuple[str, ...], conditions: Iterable[MatchCondition]) -> bool:
    """Whether `namespace` meets every match condition of a namespace listing."""
    return all(_meets(namespace, c) for c in conditions)


def _meets(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    if condition.match_type == "prefix":
        pairs = zip(namespace, path, strict=False)
    elif condition.match_type == "suffix":
        pairs = zip(reversed(namespace), reversed(path), strict=False)
    else:
        raise ValueError(f"unsupported match type {condition.match_type!r}")
    return all(want in ("*", label) for label, want in pairs)


def listed_namespaces(
    spaces: Iterable[tuple[str, ...]], op: ListNamespacesOp
) -> list[tuple[str, ...]]:
    """What a ListNamespacesOp returns of `spaces`: those matching its conditions, cut to its
    depth, sorted, its page."""
    found = [ns for ns in spaces if namespace_matches(ns, op.match_conditions or ())]
    if op.max_depth is not None:
        found = [ns[: op.max_depth] for ns in found]
    return sorted(set(found))[op.offset : op.offset + op.limit]
