"""One agent run, current code beside a baseline commit or one direct call, in one invocation.

    python -m bench.embedded_run [--baseline 0221fe5] [--question Q] [--repeats 1]
                                 [--hotpotqa N] [--model SPEC] [--json]
    python -m bench.embedded_run --against direct [--model SPEC] [--question Q] [--repeats N]

Each side runs `main.py --home TMP run QUESTION --corpus examples/corpus --max-retries 1 --json`
as its own process in a fresh home (no memories, no cached checkpoints): the current code from
this checkout, the baseline from a `git worktree add --detach` of `--baseline` in a temp dir,
both with this venv's python and the same corpus folder. With `--repeats N` the sides alternate
(current first, then baseline first, ...) so machine load hits both alike; `seconds` is the
median process wall time (model loading included), `llm_calls` and `tokens` the median run's.
Prints one JSON object: `current`, `baseline` and `ratio` = current ÷ baseline seconds (target ≤
0.5); each side's `calls` profiles its model calls (node, prompt tokens, of those read from the
model's cache, output tokens, seconds), printed a line each without `--json`. `--hotpotqa N` adds
each side's `eval hotpotqa` EM/F1 on the first N dev questions (2-3 minutes per question per side
on the embedded model). `--model SPEC` runs both sides on that model (default: each checkout's own
default).

`--against direct` measures the agent's overhead instead: the baseline side is one retrieval and
one call over the same corpus (bench/direct_call.py: the question searched as the run's first
search does, the same hits, one call asked for the answer), in a process of its own; `ratio`
is then the agent's seconds ÷ the direct call's (target ≤ 2), and each side's answer is printed
beside it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_QUESTION = "Who created Wallace and Gromit?"
DEFAULT_BASELINE = "0221fe5"
CORPUS = ROOT / "examples" / "corpus"
HOTPOTQA_FILE = ROOT / "tests" / "data" / "hotpotqa" / "distractor_dev60.json"
TARGET_RATIO = 0.5
TARGET_OVERHEAD = 2.0  # --against direct: agent seconds ÷ one retrieval and one call's
SIDES = ("current", "baseline")

# runner(side, checkout, home) -> one run's measures; swapped out in tests
Runner = Callable[[str, Path, str], dict[str, Any]]


def run_command(
    question: str, home: str, corpus: Path = CORPUS, model: str | None = None
) -> list[str]:
    run = ["run", question, "--corpus", str(corpus), "--max-retries", "1", "--json"]
    return [sys.executable, "main.py", "--home", home, *run, *(["--model", model] if model else [])]


def direct_command(question: str, corpus: Path = CORPUS, model: str | None = None) -> list[str]:
    command = [sys.executable, "-m", "bench.direct_call", question, "--corpus", str(corpus)]
    return [*command, *(["--model", model] if model else []), "--json"]


def last_json(stdout: str) -> dict[str, Any]:
    """The last line of `stdout` that is a JSON object (the CLI's --json output)."""
    for line in reversed(stdout.strip().splitlines()):
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    raise ValueError(f"no JSON object in the output: {stdout[-500:]!r}")


def timed(cmd: list[str], checkout: Path) -> tuple[float, dict[str, Any]]:
    """Wall seconds and the parsed --json output of `cmd` run in `checkout` (its own code)."""
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):  # 1: the run finished without a final answer
        tail = done.stderr[-800:]
        raise RuntimeError(f"{' '.join(cmd[1:5])} in {checkout} exited {done.returncode}: {tail}")
    return seconds, last_json(done.stdout)


def cli_runner(question: str, model: str | None = None, against: str = "baseline") -> Runner:
    def run(side: str, checkout: Path, home: str) -> dict[str, Any]:
        direct = side == "baseline" and against == "direct"
        cmd = (
            direct_command(question, model=model)
            if direct
            else run_command(question, home, model=model)
        )
        seconds, out = timed(cmd, checkout)
        tokens = out.get("tokens") or {}
        return {
            "seconds": round(seconds, 2),
            "run_seconds": out.get("elapsed_s"),
            "llm_calls": out.get("llm_calls"),
            "tokens": {k: tokens.get(k) for k in ("input", "cached", "output")},
            "calls": out.get("calls") or [],  # each call's node, tokens and seconds
            "final_output": out.get("final_output", ""),
        }

    return run


def side_order(repeat: int) -> tuple[str, ...]:
    """Alternate which side goes first, so warm caches and load favour neither."""
    return SIDES if repeat % 2 == 0 else SIDES[::-1]


def compare(runner: Runner, checkouts: dict[str, Path], repeats: int) -> dict[str, list[dict]]:
    runs: dict[str, list[dict]] = {side: [] for side in SIDES}
    for repeat in range(repeats):
        for side in side_order(repeat):
            with tempfile.TemporaryDirectory(prefix=f"embedded-{side}-") as home:
                runs[side].append(runner(side, checkouts[side], home))
    return runs


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The median-time run's measures, with the median seconds and every run's seconds."""
    ordered = sorted(runs, key=lambda r: r["seconds"])
    median_run = ordered[(len(ordered) - 1) // 2]
    return {
        **median_run,
        "seconds": round(statistics.median(r["seconds"] for r in runs), 2),
        "all_seconds": [r["seconds"] for r in runs],
    }


def assemble(
    runs: dict[str, list[dict[str, Any]]],
    *,
    question: str,
    baseline_rev: str,
    target: float = TARGET_RATIO,
) -> dict[str, Any]:
    current, baseline = summarise(runs["current"]), summarise(runs["baseline"])
    ratio = current["seconds"] / baseline["seconds"] if baseline["seconds"] else None
    return {
        "question": question,
        "baseline_rev": baseline_rev,
        "repeats": len(runs["current"]),
        "current": current,
        "baseline": baseline,
        "ratio": round(ratio, 3) if ratio is not None else None,
        "target_ratio": target,
    }


@contextmanager
def baseline_checkout(rev: str) -> Iterator[Path]:
    """A detached worktree of `rev` in a temp dir, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="embedded-baseline-") as parent:
        path = Path(parent) / "checkout"
        add = ["git", "worktree", "add", "--detach", "--quiet", str(path), rev]
        subprocess.run(add, cwd=ROOT, check=True, capture_output=True)
        try:
            yield path
        finally:
            remove = ["git", "worktree", "remove", "--force", str(path)]
            subprocess.run(remove, cwd=ROOT, check=False, capture_output=True)


def hotpotqa(checkout: Path, limit: int, home: str) -> dict[str, Any]:
    """`eval hotpotqa` on the first `limit` dev questions (both CLIs print em/f1 with --json)."""
    evaluate = ["eval", "hotpotqa", "--file", str(HOTPOTQA_FILE), "--limit", str(limit)]
    cmd = [sys.executable, "main.py", "--home", home, *evaluate, "--max-retries", "1", "--json"]
    seconds, out = timed(cmd, checkout)
    scores = {key: out.get(key) for key in ("questions", "em", "f1", "calls")}
    return {**scores, "seconds": round(seconds, 1)}


def print_profile(calls: list[dict[str, Any]]) -> None:
    """One line per model call of the run: where its seconds went."""
    for n, call in enumerate(calls, 1):
        print(
            f"  call {n:2} {call.get('node', ''):18} prompt {call.get('prompt_tokens', 0):5} "
            f"(cached {call.get('cached_tokens', 0):5})  output {call.get('output_tokens', 0):4}"
            f"  {call.get('seconds', 0):6.1f} s"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--question", default=DEFAULT_QUESTION, help="the question to run")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE, help="baseline commit")
    parser.add_argument("--repeats", type=int, default=1, help="runs per side, alternating")
    parser.add_argument(
        "--hotpotqa", type=int, default=0, metavar="N", help="also EM/F1 on the first N dev Qs"
    )
    parser.add_argument("--model", default=None, help="model spec for both sides")
    parser.add_argument(
        "--against",
        choices=("baseline", "direct"),
        default="baseline",
        help="what the current code is measured against: the baseline commit's run, or one "
        "direct call over the same search results (the agent's overhead)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.hotpotqa < 0:
        parser.error("--repeats must be at least 1 and --hotpotqa at least 0")
    if args.against == "direct" and args.hotpotqa:
        parser.error("--hotpotqa compares two checkouts; it does not go with --against direct")
    direct = args.against == "direct"
    with contextlib.ExitStack() as stack:
        base = ROOT if direct else stack.enter_context(baseline_checkout(args.baseline))
        checkouts = {"current": ROOT, "baseline": base}
        runner = cli_runner(args.question, args.model, args.against)
        runs = compare(runner, checkouts, args.repeats)
        result = assemble(
            runs,
            question=args.question,
            baseline_rev="direct call" if direct else args.baseline,
            target=TARGET_OVERHEAD if direct else TARGET_RATIO,
        )
        for side in SIDES if args.hotpotqa else ():
            with tempfile.TemporaryDirectory(prefix=f"hotpotqa-{side}-") as home:
                result[side]["hotpotqa"] = hotpotqa(checkouts[side], args.hotpotqa, home)
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        for side in SIDES:
            r = result[side]
            print(f"{side:9} {r['seconds']:7.1f} s  {r['llm_calls']} calls  tokens {r['tokens']}")
            print_profile(r.get("calls") or [])
        target = result["target_ratio"]
        print(f"ratio     {result['ratio']} (current ÷ baseline seconds; target ≤ {target})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
