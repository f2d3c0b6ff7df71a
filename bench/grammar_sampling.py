"""Grammar-constrained sampling on the embedded model: llama-cpp-python's full-vocabulary grammar
against the check-the-sampled-token-first sampler (python -m bench.grammar_sampling --json).

Both run in one process on the same loaded model, alternating call by call, on the JSON schemas
the agent really asks for (a verdict, a task list, a tool choice). Reported per mode: sampling
CPU milliseconds per token (thread time inside `Llama.sample`, so other processes on a busy
machine barely move it), wall milliseconds per token, and for the checked sampler how tokens
were found. `ratio` is checked ÷ full sampling time; `greedy_identical` says whether temperature
0 produced the same text both ways.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from bench.output import print_result
from core.local_schema import bounded_schema, tool_choice_schema

VERDICT = {
    "type": "object",
    "properties": {
        "reflection": {"type": "string"},
        "needs_retry": {"type": "boolean"},
        "confidence": {"type": "number"},
        "reasons": {"type": "array", "items": {"type": "string"}},
    },
}
TASKS = {"type": "object", "properties": {"tasks": {"type": "array", "items": {"type": "string"}}}}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": f"{name} for a query",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
        },
    }
    for name in ("search_corpus", "open_page")
]
CASES = [
    ("verdict", VERDICT, "Judge this answer to 'Who created Wallace and Gromit?': 'Nick Park.'"),
    ("tasks", TASKS, "Split into 3 tasks: find who created Wallace and Gromit, and when."),
    ("tool_choice", tool_choice_schema(TOOLS), "Who created Wallace and Gromit? Use a tool."),
]


class _SampleTimer:
    """Wraps Llama.sample to add up the thread CPU time spent choosing tokens."""

    def __init__(self, llama: Any) -> None:
        self.seconds, self.tokens = 0.0, 0
        inner = llama.sample

        def timed(*args: Any, **kwargs: Any) -> int:
            started = time.thread_time()
            token = inner(*args, **kwargs)
            self.seconds += time.thread_time() - started
            self.tokens += 1
            return token

        llama.sample = timed


def _run(llama: Any, timer: _SampleTimer, schema: dict, prompt: str, temp: float) -> dict:
    timer.seconds, timer.tokens = 0.0, 0
    llama.reset()  # no KV reuse: both modes evaluate the same prompt the same way
    started = time.perf_counter()
    out = llama.create_chat_completion(
        messages=[{"role": "user", "content": prompt + " Reply in JSON."}],
        max_tokens=96,
        temperature=temp,
        repeat_penalty=1.3,
        response_format={"type": "json_object", "schema": bounded_schema(schema)},
    )
    wall = time.perf_counter() - started
    n = max(timer.tokens, 1)
    return {
        "sample_ms": 1000 * timer.seconds / n,
        "wall_ms": 1000 * wall / n,
        "tokens": timer.tokens,
        "text": out["choices"][0]["message"]["content"],
    }


def measure(llama: Any, reps: int, temperatures: list[float]) -> dict[str, Any]:
    timer = _SampleTimer(llama)
    rows: dict[str, list[dict]] = {"full": [], "checked": []}
    identical, found = [], {"first": 0, "shortlist": 0, "full": 0}
    for _ in range(reps):
        for temp in temperatures:
            for _name, schema, prompt in CASES:
                texts = {}
                for mode in ("full", "checked"):
                    llama.grammar_first_check = mode == "checked"
                    row = _run(llama, timer, schema, prompt, temp)
                    rows[mode].append(row)
                    texts[mode] = row["text"]
                    if mode == "checked" and llama.last_sampler is not None:
                        for key in found:
                            found[key] += getattr(llama.last_sampler.stats, key)
                if temp == 0:
                    identical.append(texts["full"] == texts["checked"])
    llama.grammar_first_check = True
    summary = {
        mode: {
            "sample_ms_per_token": round(statistics.median(r["sample_ms"] for r in rs), 3),
            "wall_ms_per_token": round(statistics.median(r["wall_ms"] for r in rs), 2),
            "tokens": sum(r["tokens"] for r in rs),
        }
        for mode, rs in rows.items()
    }
    full, checked = summary["full"], summary["checked"]
    return {
        **summary,
        "checked_tokens_found": found,
        "ratio": round(checked["sample_ms_per_token"] / full["sample_ms_per_token"], 3),
        "wall_ratio": round(checked["wall_ms_per_token"] / full["wall_ms_per_token"], 3),
        "greedy_identical": f"{sum(identical)}/{len(identical)}",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=2, help="Rounds over the three schemas.")
    parser.add_argument("--temperatures", default="0,0.2", help="Comma-separated.")
    parser.add_argument("--json", action="store_true", help="Print one JSON object.")
    args = parser.parse_args()
    from core.llama_runtime import load_llama
    from core.model_assembly import embedded_gguf
    from core.model_catalogue import TEST_MODEL

    llama = load_llama(str(embedded_gguf(TEST_MODEL)), 2048, 2)
    result = measure(llama, args.reps, [float(t) for t in args.temperatures.split(",")])
    print_result(result, args.json)


if __name__ == "__main__":
    main()
