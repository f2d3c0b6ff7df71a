"""CLI start-up time: `main.py --help` (and `run --help`) beside `python -c pass`, same run.

    python bench/cli_startup.py [--runs 15] [--json]

Each command runs `--runs` times, interleaved so machine load hits all of them alike; the
median wall time of each is printed, with `help_minus_python` = what our imports and parser
construction add on top of starting the interpreter. Target: `main.py --help` <= 0.3 s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 0.3
COMMANDS = {
    "python_c_pass": [sys.executable, "-c", "pass"],
    "main_help": [sys.executable, "main.py", "--help"],
    "run_help": [sys.executable, "main.py", "run", "--help"],
}


def _wall(cmd: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr.decode()}")
    return elapsed


def measure(runs: int) -> dict[str, float | int | bool]:
    """Median seconds per command over `runs` interleaved runs, and the help's overhead."""
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(runs):
        for name, cmd in COMMANDS.items():
            times[name].append(_wall(cmd))
    medians = {f"{name}_s": round(statistics.median(t), 4) for name, t in times.items()}
    return {
        **medians,
        "help_minus_python_s": round(medians["main_help_s"] - medians["python_c_pass_s"], 4),
        "runs": runs,
        "target_s": TARGET_S,
        "meets_target": medians["main_help_s"] <= TARGET_S,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs per command (default 15)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    result = measure(args.runs)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"python -c pass      {result['python_c_pass_s']:.3f} s (median of {args.runs})")
        print(f"main.py --help      {result['main_help_s']:.3f} s (target <= {TARGET_S} s)")
        print(f"main.py run --help  {result['run_help_s']:.3f} s")
        print(f"--help minus python {result['help_minus_python_s']:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
