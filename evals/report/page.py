"""`--report DIR`: the raw per-item JSONL, plots and an index.html that shows them with tables.

Every number on the page is computed from the JSONL written beside it: the tables carry their
values as data-* attributes and each plot embeds the numbers it drew (`data-values`) and
names its source file, so a reader (or a test) can check the page against the raw results.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.report import plots
from evals.report.stats import GroupSummary, summarize

RAW_FILE = "results.jsonl"


@dataclass
class ReportSpec:
    """What to summarise: rows are grouped by `arm_key` (and `group_key` for the detail
    table); `success_key` is the rate, `metrics` the means with intervals."""

    title: str
    arm_key: str = "arm"
    group_key: str | None = "family"
    success_key: str = "success"
    success_label: str = "strict success rate"
    metrics: Sequence[str] = ("steps", "tokens", "seconds")
    cost_metrics: Sequence[str] = ("tokens", "steps")
    curves: Mapping[str, Sequence[tuple[float, float]]] = field(default_factory=dict)
    curve_axes: tuple[str, str, str] = ("episode", "running success rate", "learning curve")
    # published points drawn beside the curves (e.g. Reflexion's), kept apart in summary.json
    references: Mapping[str, Sequence[tuple[float, float]]] = field(default_factory=dict)
    notes: Sequence[str] = ()


def write_report_dir(
    out: str | Path,
    records: Sequence[Mapping[str, Any]],
    spec: ReportSpec,
    *,
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write results.jsonl, summary.json (with `extra`'s keys added), the plots and index.html
    under `out`; returns the page."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rows = [dict(r) for r in records]
    (out / RAW_FILE).write_text(
        "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in rows), "utf-8"
    )
    arms = summarize(rows, [spec.arm_key], success=spec.success_key, metrics=spec.metrics)
    groups = (
        summarize(
            rows, [spec.arm_key, spec.group_key], success=spec.success_key, metrics=spec.metrics
        )
        if spec.group_key
        else []
    )
    figures = _figures(out, spec, arms, bool(rows))
    summary = {
        "title": spec.title,
        "source": RAW_FILE,
        "arms": [a.to_dict() for a in arms],
        "groups": [g.to_dict() for g in groups],
        "plots": {name: values for name, values in figures},
        "references": {name: [list(p) for p in pts] for name, pts in spec.references.items()},
        **(extra or {}),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", "utf-8")
    page = out / "index.html"
    page.write_text(_page(spec, arms, groups, figures, len(rows)), encoding="utf-8")
    return page


def _figures(
    out: Path, spec: ReportSpec, arms: Sequence[GroupSummary], has_rows: bool
) -> list[tuple[str, Any]]:
    """Draw the plots under `out`: (file name, the numbers drawn) for each."""
    figures: list[tuple[str, Any]] = [
        ("success.png", plots.success_plot(arms, out / "success.png", ylabel=spec.success_label))
    ]
    if spec.curves:
        x, y, title = spec.curve_axes
        curve = plots.curve_plot(
            spec.curves,
            out / "curve.png",
            xlabel=x,
            ylabel=y,
            title=title,
            references=spec.references,
        )
        figures.append(("curve.png", curve))
    if spec.cost_metrics and has_rows:
        figures.append(("cost.png", plots.cost_plot(arms, spec.cost_metrics, out / "cost.png")))
    return figures


def _cell(value: Any, attr: str | None = None, raw: Any = None) -> str:
    data = f' data-{attr}="{html.escape(json.dumps(raw))}"' if attr else ""
    return f"<td{data}>{html.escape(str(value))}</td>"


def _interval(mean: float, low: float, high: float) -> str:
    return f"{mean:.3g} [{low:.3g}, {high:.3g}]"


def _table(spec: ReportSpec, summaries: Sequence[GroupSummary], table_id: str) -> str:
    keys = list(summaries[0].group) if summaries else [spec.arm_key]
    head = "".join(f"<th>{html.escape(k)}</th>" for k in keys)
    head += f"<th>n</th><th>{html.escape(spec.success_label)} [95% CI]</th>"
    head += "".join(f"<th>mean {html.escape(m)} [95% CI]</th>" for m in spec.metrics)
    body = []
    for s in summaries:
        cells = [_cell(v, "group", v) for v in s.group.values()]
        cells.append(_cell(s.n, "n", s.n))
        rate = f"{s.rate:.3f} ({s.successes}/{s.n}) [{s.rate_low:.3f}, {s.rate_high:.3f}]"
        cells.append(_cell(rate, "rate", s.rate))
        cells += [_cell(_interval(*s.means[m]), "mean", s.means[m][0]) for m in spec.metrics]
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<table id="{table_id}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


def _page(
    spec: ReportSpec,
    arms: Sequence[GroupSummary],
    groups: Sequence[GroupSummary],
    figures: Sequence[tuple[str, Any]],
    n_rows: int,
) -> str:
    images = "".join(
        f'<figure><img src="{name}" alt="{name}" data-source="{RAW_FILE}" '
        f"data-values='{html.escape(json.dumps(values), quote=True)}'></figure>"
        for name, values in figures
    )
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in spec.notes)
    detail = (
        f"<h2>Per {html.escape(spec.group_key)}</h2>{_table(spec, groups, 'groups')}"
        if groups and spec.group_key
        else ""
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(spec.title)}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:4px 8px;text-align:right}}
figure{{display:inline-block}}</style>
</head><body>
<h1>{html.escape(spec.title)}</h1>
<p>{n_rows} results from <a href="{RAW_FILE}">{RAW_FILE}</a>; summary in
<a href="summary.json">summary.json</a>. Intervals are 95%: Wilson for rates, t for means.</p>
<ul>{notes}</ul>
<h2>Per arm</h2>{_table(spec, arms, "arms")}
{images}
{detail}
</body></html>
"""
