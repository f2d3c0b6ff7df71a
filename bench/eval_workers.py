"""Episodes per minute with 1 and 2 evaluation workers, measured side by side in one run.

The episodes are MiniWoB++ tasks played by the scripted oracle (evals.miniwob.oracle), not the
model: this measures the harness's parallelism (browser, page server, Ray), which is what the
workers change. 1 worker runs in this process (no Ray); N > 1 workers run on a local Ray
instance started for the measurement, whose start-up is reported separately.

    python -m bench.eval_workers --episodes 12 [--workers 1,2] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from evals.common.workers import Job, run_jobs

TASKS = ("click-button", "enter-text", "login-user", "click-option")


def jobs(episodes: int, tasks: tuple[str, ...] = TASKS) -> list[Job]:
    return [
        Job(
            f"{tasks[i % len(tasks)]}#{i}",
            "evals.miniwob.jobs:oracle_episode",
            {"task": tasks[i % len(tasks)], "seed": i},
        )
        for i in range(episodes)
    ]


def measure(workers: int, episodes: int) -> dict[str, Any]:
    """Wall time of the whole run, and of its steady part (first to last finished episode)."""
    finished: list[float] = []
    records: list[dict[str, Any]] = []

    def on_result(record: dict[str, Any]) -> None:
        finished.append(time.monotonic())
        records.append(record)

    started = time.monotonic()
    run_jobs(jobs(episodes), on_result, workers=workers)
    wall = time.monotonic() - started
    steady = finished[-1] - finished[0] if len(finished) > 1 else wall
    return {
        "workers": workers,
        "episodes": len(records),
        "successes": sum(bool(r["success"]) for r in records),
        "wall_s": round(wall, 2),
        "episodes_per_min": round(60 * len(records) / wall, 2),
        # After the first episode: start-up (Ray, chromium, first page) left out.
        "steady_episodes_per_min": round(60 * (len(records) - 1) / steady, 2) if steady else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=12)
    parser.add_argument("--workers", default="1,2", help="comma-separated worker counts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    counts = [int(w) for w in args.workers.split(",")]
    rows = [measure(w, args.episodes) for w in counts]
    base = rows[0]["episodes_per_min"]
    for row in rows:
        row["ratio_vs_first"] = round(row["episodes_per_min"] / base, 2) if base else None
    if args.json:
        print(json.dumps(rows))
    else:
        for row in rows:
            print(
                f"{row['workers']} worker(s): {row['episodes_per_min']} episodes/min "
                f"(steady {row['steady_episodes_per_min']}), wall {row['wall_s']}s, "
                f"x{row['ratio_vs_first']}, {row['successes']}/{row['episodes']} solved"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
