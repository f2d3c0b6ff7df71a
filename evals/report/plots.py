"""Report plots (matplotlib, Agg, PNG): success per arm with 95% intervals, a learning curve,
and mean cost per arm. Each function returns the numbers it drew, so the page can embed them
and a test can check the picture was drawn from the results file."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evals.report.stats import GroupSummary


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    return plt


def _label(group: Mapping[str, Any]) -> str:
    return " / ".join(str(v) for v in group.values())


def success_plot(arms: Sequence[GroupSummary], path: Path, *, ylabel: str) -> list[dict[str, Any]]:
    """Bars of each arm's success rate with its Wilson 95% interval as error bars."""
    plt = _pyplot()
    drawn: list[dict[str, Any]] = [
        {"arm": _label(a.group), "rate": a.rate, "low": a.rate_low, "high": a.rate_high, "n": a.n}
        for a in arms
    ]
    fig, ax = plt.subplots(figsize=(max(4.0, 1.3 * len(drawn) + 2), 3.6), dpi=100)
    xs = range(len(drawn))
    errors = [[d["rate"] - d["low"] for d in drawn], [d["high"] - d["rate"] for d in drawn]]
    ax.bar(xs, [d["rate"] for d in drawn], yerr=errors, capsize=6, color="#4c78a8")
    ax.set_xticks(list(xs), [f"{d['arm']}\n(n={d['n']})" for d in drawn], fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel(ylabel)
    ax.set_title("success per arm (bars: 95% Wilson interval)", fontsize=10)
    _save(plt, fig, path)
    return drawn


def curve_plot(
    curves: Mapping[str, Sequence[tuple[float, float]]],
    path: Path,
    *,
    xlabel: str,
    ylabel: str,
    title: str,
    references: Mapping[str, Sequence[tuple[float, float]]] | None = None,
) -> dict[str, list[list[float]]]:
    """One line per arm (e.g. running success over episodes, or solved by trial k); published
    `references` (not from the JSONL) are grey points only (no line: only endpoints may be
    sourced) beside them, and not returned."""
    from matplotlib.ticker import MaxNLocator

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.0, 3.6), dpi=100)
    for arm, points in curves.items():
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", markersize=3, label=arm)
    for name, points in (references or {}).items():
        ax.plot(
            [p[0] for p in points],
            [p[1] for p in points],
            linestyle="none",
            marker="x",
            color="grey",
            label=f"{name} (published)",
        )
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(0, 1.05)
    ax.set_title(title, fontsize=10)
    if curves or references:
        ax.legend(fontsize=8)
    _save(plt, fig, path)
    return {arm: [[float(x), float(y)] for x, y in pts] for arm, pts in curves.items()}


def cost_plot(
    arms: Sequence[GroupSummary], metrics: Sequence[str], path: Path
) -> dict[str, list[dict[str, Any]]]:
    """One panel per metric (e.g. tokens, steps): each arm's mean with its t 95% interval."""
    plt = _pyplot()
    fig, axes = plt.subplots(
        1, len(metrics), figsize=(4.0 * len(metrics), 3.4), dpi=100, squeeze=False
    )
    drawn: dict[str, list[dict[str, Any]]] = {}
    for ax, metric in zip(axes[0], metrics, strict=True):
        rows: list[dict[str, Any]] = [
            {
                "arm": _label(a.group),
                "mean": a.means[metric][0],
                "low": a.means[metric][1],
                "high": a.means[metric][2],
            }
            for a in arms
        ]
        xs = range(len(rows))
        errors = [[r["mean"] - r["low"] for r in rows], [r["high"] - r["mean"] for r in rows]]
        ax.bar(xs, [r["mean"] for r in rows], yerr=errors, capsize=5, color="#f58518")
        ax.set_xticks(list(xs), [r["arm"] for r in rows], fontsize=8, rotation=20)
        ax.set_title(f"mean {metric} per item (95% t interval)", fontsize=9)
        drawn[metric] = rows
    _save(plt, fig, path)
    return drawn


def _save(plt: Any, fig: Any, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)
