"""Which embedded model answers: each catalogue model asked the same HotpotQA dev questions in
one direct call, scored by exact match and timed, to rank them by correct answers per minute.

    python -m bench.embedded_models --questions 20 --out tmp/bench/models --json

One JSON line per (model, question) under --out, so a rerun resumes where it stopped.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from bench.output import print_result
from core.model_catalogue import CATALOGUE
from core.models import Models
from evals.hotpotqa.dataset import load_hotpotqa
from evals.hotpotqa.direct import direct_answer
from evals.hotpotqa.metrics import exact_match_score, f1_score

DEV_FILE = Path(__file__).resolve().parent.parent / "tests/data/hotpotqa/distractor_dev60.json"


def measure(models: list[str], questions: int, out: Path) -> dict[str, Any]:
    out.mkdir(parents=True, exist_ok=True)
    log = out / "results.jsonl"
    done = _read(log)
    data = load_hotpotqa(DEV_FILE, limit=questions)
    for name in models:
        model = Models().chat(f"local:{name}")  # one model in memory at a time
        for q in data:
            if (name, q.id) in done:
                continue
            started = time.perf_counter()
            answer = direct_answer(model, q.question, q.paragraphs)
            row = {
                "model": name,
                "id": q.id,
                "answer": answer,
                "gold": q.answer,
                "em": exact_match_score(answer, q.answer),
                "f1": round(f1_score(answer, q.answer)[0], 3),
                "seconds": round(time.perf_counter() - started, 2),
            }
            with log.open("a") as f:
                f.write(json.dumps(row) + "\n")
            done[(name, q.id)] = row
    return summarise(models, [q.id for q in data], done)


def summarise(
    models: list[str], ids: list[str], rows: dict[tuple[str, str], dict[str, Any]]
) -> dict[str, Any]:
    result: dict[str, Any] = {"questions": len(ids)}
    for name in models:
        mine = [rows[(name, i)] for i in ids if (name, i) in rows]
        seconds = sum(r["seconds"] for r in mine)
        correct = sum(bool(r["em"]) for r in mine)
        result[name] = {
            "n": len(mine),
            "em": round(correct / len(mine), 3) if mine else 0.0,
            "f1": round(sum(r["f1"] for r in mine) / len(mine), 3) if mine else 0.0,
            "seconds_per_question": round(seconds / len(mine), 1) if mine else 0.0,
            "correct_per_minute": round(60 * correct / seconds, 3) if seconds else 0.0,
        }
    return result


def _read(log: Path) -> dict[tuple[str, str], dict[str, Any]]:
    if not log.exists():
        return {}
    rows = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    return {(r["model"], r["id"]): r for r in rows}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=20, help="first N dev questions")
    parser.add_argument(
        "--models", default=",".join(CATALOGUE), help="catalogue names, comma-separated"
    )
    parser.add_argument("--out", type=Path, default=Path("tmp/bench/embedded_models"))
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = measure(args.models.split(","), args.questions, args.out)
    print_result(result, args.json)


if __name__ == "__main__":
    main()
