"""`eval multihop`: HotpotQA, 2WikiMultihopQA and MuSiQue questions in one pooled corpus, the
baselines and the product's graphs side by side (evals.multihop.run).

    ./agent eval multihop --arms closed,rag,ircot,react,reflective --limit 60 --out OUT
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cli.errors import CommandFailed, UsageError
from evals.cli.hotpotqa import GRAPH_CHOICES, out_folder

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "multihop"
MULTIHOP_ARMS = tuple(g for g in GRAPH_CHOICES if not g.startswith("direct"))


def register_multihop(benchmarks: Any) -> None:
    p = benchmarks.add_parser(
        "multihop",
        help="Multi-hop questions (HotpotQA, 2Wiki, MuSiQue) in one pooled corpus, arms side "
        "by side.",
    )
    p.add_argument(
        "--data",
        default=str(DEFAULT_DATA),
        help="The folder of the three question files (default: tests/data/multihop).",
    )
    p.add_argument(
        "--arms",
        default="closed,rag,ircot,reflective",
        help=f"Comma-separated, among {', '.join(MULTIHOP_ARMS)}: `closed` one call without "
        "evidence; `rag` one BM25 retrieval (top 5) and one call; `ircot` IRCoT (a reasoning "
        "sentence, a retrieval with it, repeated; then one reading); `react` create_agent with "
        "the corpus tool; `reflective` and `single-path` the product's graphs.",
    )
    p.add_argument(
        "--part",
        choices=("dev", "tune"),
        default="dev",
        help="dev (default): questions from the start of each file, where results are "
        "reported; tune: each file's last 20, where prompts and settings are tried.",
    )
    p.add_argument(
        "--limit",
        default=None,
        help="Questions per dataset: N for each, or NAME=N,... (hotpotqa, 2wiki, musique); "
        "a dataset not named runs none of its questions when any is named.",
    )
    p.add_argument("--model", default=None, help="Model spec for every arm (default: local).")
    p.add_argument(
        "--max-retries", type=int, default=1, help="The graphs' retries per task (default 1)."
    )
    p.add_argument("--out", default=None, help="Results folder; the same one resumes a run.")
    p.add_argument("--workers", type=int, default=1, help="Parallel workers (Ray when > 1).")
    p.add_argument("--json", action="store_true", help="Print the summary as JSON.")
    p.set_defaults(func=multihop_handler)


def parse_limits(text: str | None) -> tuple[tuple[str, ...], dict[str, int]]:
    """(the datasets to run, their limits) from --limit: "60" or "2wiki=60,musique=40"."""
    from evals.multihop.dataset import DATASETS

    if not text:
        return tuple(DATASETS), {}
    try:
        if "=" not in text:
            return tuple(DATASETS), dict.fromkeys(DATASETS, int(text))
        pairs = [item.split("=", 1) for item in text.split(",") if item.strip()]
        limits = {name.strip(): int(n) for name, n in pairs}
    except ValueError as exc:
        raise UsageError(f"--limit takes N or NAME=N,..., got {text!r}") from exc
    unknown = sorted(set(limits) - set(DATASETS))
    if unknown:
        raise UsageError(f"--limit names unknown datasets {unknown}; known: {', '.join(DATASETS)}")
    return tuple(name for name in DATASETS if name in limits), limits


def multihop_handler(args: argparse.Namespace) -> int:
    from core.role_models import DEFAULT_MODEL
    from evals.multihop.dataset import load_multihop
    from evals.multihop.run import MultihopSettings, run_multihop

    arms = [a.strip() for a in args.arms.split(",") if a.strip()]
    unknown = [a for a in arms if a not in MULTIHOP_ARMS]
    if unknown:
        raise UsageError(f"--arms takes names among {', '.join(MULTIHOP_ARMS)}, got {unknown}")
    datasets, limits = parse_limits(args.limit)
    s = MultihopSettings(
        data=Path(args.data),
        out=out_folder(args, "multihop"),
        arms=arms,
        model=args.model or DEFAULT_MODEL,
        max_retries=args.max_retries,
        workers=args.workers,
    )
    try:
        questions = load_multihop(s.data, part=args.part, limits=limits, datasets=datasets)
        body = run_multihop(s, questions)
    except ValueError as exc:  # bad files, limits or arms, or a results folder of other settings
        raise UsageError(str(exc)) from exc
    except (RuntimeError, OSError) as exc:
        raise CommandFailed(
            f"eval multihop failed: {exc} (rerun with --out {s.out} to resume)"
        ) from exc
    if args.json:
        print(json.dumps({k: v for k, v in body.items() if k != "table"}))
    else:
        print(body["table"])
        print(f"\nmodel: {s.model}   part: {args.part}   results: {s.out}/ARM/results.jsonl")
    return 0
