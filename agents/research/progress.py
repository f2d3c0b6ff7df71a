"""What a research run is doing, in words a person reads, node by node.

`reported(node)` wraps a node of the research graph so that it writes a line to the run's
`custom` stream as it starts and one as it ends: `{"type": "progress", "node", "text"}`. A chat
page streaming the run shows the latest (the patched Agent Chat UI, `chat_ui/`); a caller that
does not stream `custom` pays nothing. The command line prints the same endings from the
`updates` stream (`cli/progress.py` reads them here).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any, TypeVar

from langgraph.config import get_stream_writer

F = TypeVar("F", bound=Callable[..., Any])


def short(text: str, n: int = 110) -> str:
    """`text` on one line, cut to `n` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def hop_number(state: Mapping[str, Any]) -> int:
    """The hop a node of the chain is on (1 for the first)."""
    return len(state.get("chain") or []) + 1


# what a node is about to do, from the state it starts with
STARTS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "goal_setting": lambda s: "Searching for the question and reading what comes back",
    "hop": lambda s: f"Hop {hop_number(s)}: reading the passages found",
    "check_answer": lambda s: "Checking the answer against one direct reading of the evidence",
    "decompose_query": lambda s: "Planning the research",
    "run_task": lambda s: f"Task {s.get('task_index', 0) + 1}: {short(s.get('task', ''), 90)}",
    "aggregate_results": lambda s: "Writing the answer from what the tasks found",
}


def checked(update: Mapping[str, Any]) -> str:
    """check_answer's outcome: not checked (not a short answer), kept, or replaced."""
    check = update.get("answer_check")
    if not check:
        return "not checked (the answer is not a short one)"
    if check["chosen"] == check["research"]:
        return f"kept {short(check['chosen'], 60)!r} ({check['how']})"
    return (
        f"{short(check['research'], 60)!r} -> {short(check['chosen'], 60)!r} "
        f"({check['how']}; a direct reading of the evidence)"
    )


def hopped(update: Mapping[str, Any]) -> str:
    """A hop's outcome: the fact its reading found, then the link it searches next, or the
    chain's end (the answer the passages hold, or none)."""
    chain = update.get("chain") or []
    if not chain:
        return "done"
    link = chain[-1]
    facts = " ".join(link.get("facts") or [])
    found = f"found {short(facts, 60)!r}; " if facts else ""
    if link.get("searched"):
        return f"{found}searching {short(link['searched'], 50)!r}"
    if link.get("answer"):
        return f"{found}answer {short(link['answer'], 50)!r} ({link.get('how')})"
    return f"{found}no passage read states the answer"


def ended(node: str, update: Mapping[str, Any]) -> str | None:
    """What a node of the research graph did, for a person following the run (None: nothing
    worth a line)."""
    if update.get("stopped"):
        return "Stopped: the run reached one of its caps"
    if node == "goal_setting":
        goal = (update.get("optimized_goal") or "").strip().splitlines() or [""]
        return f"Goal: {short(goal[0])}"  # its first line: criteria follow
    if node == "hop":
        return f"Hop {len(update.get('chain') or [])}: {hopped(update)}"
    if node == "check_answer":
        return f"Answer check: {checked(update)}"
    if node == "decompose_query":
        return f"Planned {len(update.get('tasks') or [])} task(s)"
    if node == "run_task":
        reports = update.get("task_reports") or {}
        done = [f"Task {int(i) + 1} done ({r['verdict']})" for i, r in reports.items()]
        return "; ".join(done) or None
    if node == "aggregate_results":
        return "Answer written"
    return None


def reported(node: F) -> F:
    """`node` (named as in the graph) writing its start and its end to the `custom` stream."""
    name = node.__name__

    @wraps(node)
    def run(state: Mapping[str, Any], *args: Any, **kwargs: Any) -> Any:
        write = get_stream_writer()
        if name in STARTS:
            write({"type": "progress", "node": name, "text": STARTS[name](state)})
        update = node(state, *args, **kwargs)
        line = ended(name, update) if isinstance(update, Mapping) else None
        if line:
            write({"type": "progress", "node": name, "text": line})
        return update

    return run  # type: ignore[return-value]
