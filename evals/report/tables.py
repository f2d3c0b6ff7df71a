"""Text tables for the terminal: plain aligned tables, and grouped results with 95% intervals
(the terminal twin of the report page)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from evals.report.stats import summarize


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain left-aligned table; floats shown with three decimals."""

    def cell(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:.3f}"
        return "-" if value is None else str(value)

    cells = [[cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in cells:
        for i, value in enumerate(row):
            widths[i] = max(widths[i], len(value))
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for row in cells:
        lines.append("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines)


def interval_table(
    rows: Iterable[dict[str, Any]],
    by: Sequence[str],
    *,
    success: str = "success",
    metrics: Sequence[str] = ("steps", "tokens", "seconds"),
    rate_label: str = "success",
) -> str:
    """One line per group: n, rate (k/n) [Wilson 95%], each metric's mean [t 95%]."""
    groups = summarize(list(rows), by, success=success, metrics=metrics)
    headers = [*by, "n", f"{rate_label} [95% CI]", *(f"{m} [95% CI]" for m in metrics)]
    lines = []
    for g in groups:
        rate = f"{g.rate:.2f} ({g.successes}/{g.n}) [{g.rate_low:.2f}, {g.rate_high:.2f}]"
        means = [f"{m:.4g} [{lo:.4g}, {hi:.4g}]" for m, lo, hi in (g.means[k] for k in metrics)]
        lines.append([*(str(v) for v in g.group.values()), g.n, rate, *means])
    return format_table(headers, lines)
