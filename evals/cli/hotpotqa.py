"""`eval hotpotqa` (each question answered once by a product graph) and `eval
hotpotqa-reflexion` (Reflexion's trials, with and without reflections).

    ./agent eval hotpotqa --file tests/data/hotpotqa/distractor_dev60.json --limit 20 \
        --graph single-path --report tmp/reports/hotpotqa-sp
    ./agent eval hotpotqa-reflexion --file …/distractor_dev60.json --trials 5 --workers 2 \
        --out tmp/experiments/reflexion --report tmp/reports/reflexion

Progress goes to stderr, tables to stdout; every answered question is a line of
OUT/results.jsonl (OUT defaults to a new folder under HOME/experiments; pass --out to resume).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from cli.errors import CommandFailed, UsageError

GRAPH_CHOICES = (
    "reflective",
    "single-path",
    "closed",
    "rag",
    "react",
    "ircot",
    "direct",
    "direct-candidates",
)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--file", required=True, help="HotpotQA JSON (e.g. distractor_dev60.json).")
    p.add_argument("--limit", type=int, default=None, help="Only the first N questions.")
    p.add_argument("--model", default=None, help="Model spec for the agent (default: local).")
    p.add_argument(
        "--graph",
        choices=GRAPH_CHOICES,
        default="reflective",
        help="The product's graph (reflective, single-path), or a baseline: `closed`, one call "
        "with no evidence; `rag`, one BM25 retrieval (top 5) and one call; `react`, LangChain's "
        "create_agent with the same corpus search tool; `ircot`, IRCoT (reasoning interleaved with "
        "retrieval, then one reading); `direct`, one call over the question's "
        "own paragraphs (distractor only); `direct-candidates`, that call choosing among the "
        "paragraphs' candidate spans by grammar (for a model too small to write a short answer).",
    )
    p.add_argument("--out", default=None, help="Results folder; the same one resumes a run.")
    p.add_argument("--report", default=None, help="Write an HTML report with plots here.")
    p.add_argument("--workers", type=int, default=1, help="Parallel workers (Ray when > 1).")
    p.add_argument("--ray-address", default=None, help="Join this Ray cluster instead.")
    p.add_argument("--json", action="store_true", help="Print the summary as JSON.")


def graph_options(p: argparse.ArgumentParser) -> None:
    """The options of one run of a product graph, shared with `eval hotpotqa-stream`."""
    _common(p)
    p.add_argument(
        "--max-retries",
        type=int,
        default=None,
        help="Reflective retries per task inside one run (default: the Context's, 2).",
    )
    p.add_argument(
        "--max-tool-steps",
        type=int,
        default=None,
        help="Executor tool calls per attempt after the search for the task (default: the "
        "model's own: 3 on a remote model, 0 on the embedded CPU models).",
    )
    p.add_argument(
        "--memory-url",
        metavar="URL",
        default=None,
        help="Keep memory in this PostgreSQL database, shared by every worker (default "
        "$AGENT_MEMORY_URL; else memory lives under --out); each worker searches its own "
        "mirror of it.",
    )


def register_hotpotqa(benchmarks: Any) -> None:
    hot = benchmarks.add_parser("hotpotqa", help="Answer HotpotQA questions with the agent.")
    graph_options(hot)
    corpus_options(hot)
    hot.add_argument(
        "--memory",
        choices=("fresh", "carry", "off"),
        default="fresh",
        help="fresh (default): each question starts with empty memory; carry: one memory for "
        "the questions in order, so lessons from one reach the next; off: no memory at all.",
    )
    hot.add_argument(
        "--verdict",
        choices=("check", "gold"),
        default="check",
        help="Who judges each finished run for memory: check (default), its own answer check, "
        "as a user's run is judged; gold, the true answer once the run is scored (ExpeL's "
        "training phase: a run that agreed on a wrong answer teaches no workflow).",
    )
    hot.add_argument(
        "--graphs",
        metavar="G1,G2,...",
        default=None,
        help="Several graphs (names as --graph) on the same questions, each under OUT/GRAPH "
        "(each resumable), printed side by side: EM with its 95%% interval, F1, and calls, "
        "prompt tokens and seconds per question.",
    )
    train_options(hot)
    hot.set_defaults(func=hotpotqa_handler)
    ref = benchmarks.add_parser(
        "hotpotqa-reflexion", help="Reflexion's trials on HotpotQA, with and without reflections."
    )
    _common(ref)
    ref.add_argument("--trials", type=int, default=5, help="Trials (each on the last failures).")
    ref.add_argument("--arms", default="reflections,no-reflections")
    ref.add_argument("--max-retries", type=int, default=0, help="Retries inside one trial.")
    ref.set_defaults(func=reflexion_handler)


def corpus_options(p: argparse.ArgumentParser) -> None:
    """What the questions search: their own paragraphs, or a pooled corpus."""
    p.add_argument(
        "--setting",
        choices=("distractor", "pooled"),
        default="distractor",
        help="distractor (default): each question searches its own 10 paragraphs; pooled: "
        "every question searches one corpus of all the file's paragraphs (OUT/corpus, built "
        "once), so the evidence has to be found.",
    )
    p.add_argument(
        "--pool",
        metavar="DIR",
        default=None,
        help="With --setting pooled: the corpus pools the paragraphs of every question file in "
        "DIR (e.g. tests/data/multihop, the corpus of `eval multihop`), not --file's alone.",
    )


def train_options(p: argparse.ArgumentParser) -> None:
    """ExpeL's protocol: training questions, then the other questions with that memory."""
    p.add_argument(
        "--train",
        metavar="FILE",
        default=None,
        help="ExpeL's protocol: gather memory on the first --train-limit questions of FILE "
        "(answered, scored against their true answers, retried with Reflexion's lessons up to "
        "--trials), distil worked examples and insights from them, then answer the --file "
        "questions not trained on with that memory (arm train-memory) and without "
        "(no-memory), side by side (OUT/train, OUT/train/distilled, OUT/ARM; resumable).",
    )
    p.add_argument("--train-limit", type=int, default=40, help="Training questions (default 40).")
    p.add_argument(
        "--trials", type=int, default=2, help="Trials per training question (default 2)."
    )


def out_folder(args: argparse.Namespace, name: str) -> Path:
    if args.out:
        return Path(args.out)
    return Path(args.home) / "experiments" / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"


def hotpot_settings(args: argparse.Namespace, name: str | None = None) -> Any:
    from core.context import Context
    from core.role_models import DEFAULT_MODEL
    from evals.hotpotqa.single import HotpotSettings

    defaults = Context()
    return HotpotSettings(
        file=Path(args.file),
        out=out_folder(args, name or f"hotpotqa-{args.graph}"),
        limit=args.limit,
        model=args.model or DEFAULT_MODEL,
        graph=args.graph,
        max_retries=defaults.max_retries if args.max_retries is None else args.max_retries,
        max_tool_steps=args.max_tool_steps,
        memory=getattr(args, "memory", "fresh"),
        setting=getattr(args, "setting", "distractor"),
        verdict=getattr(args, "verdict", "check"),
        workers=args.workers,
        ray_address=args.ray_address,
        memory_url=getattr(args, "memory_url", None) or os.environ.get("AGENT_MEMORY_URL"),
        pool=Path(args.pool) if getattr(args, "pool", None) else None,
    )


def hotpotqa_handler(args: argparse.Namespace) -> int:
    from evals.hotpotqa.dataset import load_hotpotqa
    from evals.hotpotqa.single import run_single, summary

    s = hotpot_settings(args)
    if getattr(args, "graphs", None):
        return _side_by_side(args, s)
    if getattr(args, "train", None):
        from evals.cli.expel import expel_handler

        return expel_handler(args, s)
    try:
        s.validate()
        questions = load_hotpotqa(s.file, s.limit)
        log = run_single(s, questions)
    except ValueError as exc:  # bad file, limit, retries, or settings of another run
        raise UsageError(str(exc)) from exc
    except (RuntimeError, OSError) as exc:
        raise CommandFailed(
            f"eval hotpotqa failed: {exc} (rerun with --out {s.out} to resume)"
        ) from exc
    body = summary(log, questions)
    report = _report_single(args.report, body["rows"], s) if args.report else None
    body.pop("rows")
    if args.json:
        extra = {"model": s.model, "graph": s.graph, "results": str(log.path), "report": report}
        print(json.dumps({**body, **extra}))
        return 0
    _print_single(body, s)
    print(f"results: {log.path}" + (f"\nreport: {report}" if report else ""))
    return 0


def _side_by_side(args: argparse.Namespace, s: Any) -> int:
    from evals.hotpotqa.compare import run_graphs, side_by_side
    from evals.hotpotqa.dataset import load_hotpotqa

    graphs = [g.strip() for g in args.graphs.split(",") if g.strip()]
    unknown = [g for g in graphs if g not in GRAPH_CHOICES]
    if not graphs or unknown or len(set(graphs)) < len(graphs):
        raise UsageError(
            f"--graphs takes distinct names among {', '.join(GRAPH_CHOICES)}, got {args.graphs!r}"
        )
    try:
        questions = load_hotpotqa(s.file, s.limit)
        body = side_by_side(run_graphs(s, graphs, questions))
    except ValueError as exc:
        raise UsageError(str(exc)) from exc
    except (RuntimeError, OSError) as exc:
        raise CommandFailed(
            f"eval hotpotqa failed: {exc} (rerun with --out {s.out} to resume)"
        ) from exc
    if args.json:
        print(json.dumps({"setting": s.setting, "model": s.model, "by_graph": body["by_graph"]}))
    else:
        print(body["table"])
        print(f"\nsetting: {s.setting}   model: {s.model}   results: {s.out}/GRAPH/results.jsonl")
    return 0


def _print_single(body: dict[str, Any], s: Any) -> None:
    print(body["table"])
    print(
        f"\nmodel: {s.model}   graph: {s.graph}   setting: {s.setting}   "
        f"questions: {body['questions']}   "
        f"EM: {body['em']:.3f}   F1: {body['f1']:.3f}   calls: {body['calls']}   "
        f"errors: {body['errors']}   time: {body['seconds']:.1f}s"
    )
    print(
        f"trials run: {body['trials']} (each question answered once; the reflective graph's "
        "retries happen inside that one run and are not HotpotQA trials; for Reflexion's "
        "trials use `eval hotpotqa-reflexion`)"
    )


def _report_single(folder: str, rows: list[dict[str, Any]], s: Any) -> str:
    from evals.report.page import ReportSpec, write_report_dir

    spec = ReportSpec(
        title=f"HotpotQA ({s.setting}), graph {s.graph}, model {s.model}",
        arm_key="graph",
        group_key=None,
        success_label="exact match",
        metrics=("f1", "calls", "seconds"),
        cost_metrics=("calls", "seconds"),
        notes=["one trial per question"],
    )
    return str(write_report_dir(folder, [{**r, "graph": s.graph} for r in rows], spec))


def reflexion_handler(args: argparse.Namespace) -> int:
    from evals.cli.reflexion import run_and_print

    return run_and_print(args, out_folder(args, "hotpotqa-reflexion"))
