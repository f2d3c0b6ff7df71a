"""The embedded model's shipped Q4_1 weights against their Q8_0 copy (core/gguf_weights.py).

    python -m bench.model_format [--prompts 6] [--tokens 48] [--json]

Both files load in this process and run the same prompts, alternating prompt by prompt, so
machine load hits both alike. The prompts are HotpotQA questions with their paragraphs, about
the size of the agent's executor prompts (600-1,400 tokens). Reported per format:
- `prompt_tokens_per_s`: prompt evaluation speed (the median prompt, on an empty cache);
- `ms_per_output_token`: the median speed of greedy writing.
Then `prompt_speedup` (Q8_0 ÷ Q4_1 prompt speed), `output_speedup`, `same_greedy_output`
(for how many prompts the two wrote the same first `--tokens` tokens at temperature 0: a model
this small often has near-ties that any change of arithmetic flips, so this is not a quality
measure) and `perplexity` of each on the prompts' own text (how well each predicts real text,
the usual measure of what a weight format costs; lower is better).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from pathlib import Path
from typing import Any

from bench.output import print_result

ROOT = Path(__file__).resolve().parent.parent
HOTPOTQA = ROOT / "tests" / "data" / "hotpotqa" / "distractor_dev60.json"
FORMATS = ("q4_1", "q8_0")


def prompts(n: int, path: Path = HOTPOTQA) -> list[str]:
    """`n` chat prompts: a HotpotQA question with its first paragraphs (~1,000 tokens)."""
    out = []
    for record in json.loads(path.read_text())[:n]:
        context = record["context"]
        pairs = list(zip(context["title"], context["sentences"], strict=True))[:5]
        paragraphs = "\n".join(f"{title}: {' '.join(s)}" for title, s in pairs)
        out.append(
            "<|im_start|>user\nAnswer from these paragraphs.\n"
            f"{paragraphs}\nQuestion: {record['question']}<|im_end|>\n<|im_start|>assistant\n"
        )
    return out


def measure_once(llama: Any, prompt: str, tokens: int) -> dict[str, Any]:
    """Prompt speed on an empty cache, then `tokens` greedy tokens and their speed."""
    llama.reset()
    started = time.perf_counter()
    first = llama.create_completion(prompt, max_tokens=1, temperature=0)
    prompt_s = time.perf_counter() - started
    n_prompt = first["usage"]["prompt_tokens"]
    started = time.perf_counter()  # the prompt is cached now: this times writing only
    out = llama.create_completion(prompt, max_tokens=tokens, temperature=0)
    n_out = out["usage"]["completion_tokens"]
    return {
        "prompt_tps": n_prompt / prompt_s,
        "ms_per_token": 1000 * (time.perf_counter() - started) / max(1, n_out),
        "text": out["choices"][0]["text"],
        "prompt_tokens": n_prompt,
    }


def compare(models: dict[str, Any], texts: list[str], tokens: int) -> dict[str, Any]:
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in models}
    for i, text in enumerate(texts):
        order = list(models) if i % 2 == 0 else list(reversed(models))
        for name in order:
            runs[name].append(measure_once(models[name], text, tokens))
    result: dict[str, Any] = {
        name: {
            "prompt_tokens_per_s": round(statistics.median(r["prompt_tps"] for r in rs)),
            "ms_per_output_token": round(statistics.median(r["ms_per_token"] for r in rs), 1),
        }
        for name, rs in runs.items()
    }
    old, new = (result[name] for name in FORMATS)
    pairs = zip(runs[FORMATS[0]], runs[FORMATS[1]], strict=True)
    same = sum(a["text"] == b["text"] for a, b in pairs)
    result["prompt_tokens"] = [r["prompt_tokens"] for r in runs[FORMATS[0]]]
    result["prompt_speedup"] = round(new["prompt_tokens_per_s"] / old["prompt_tokens_per_s"], 2)
    result["output_speedup"] = round(old["ms_per_output_token"] / new["ms_per_output_token"], 2)
    result["same_greedy_output"] = f"{same}/{len(texts)}"
    return result


def perplexity(llama: Any, texts: list[str]) -> float:
    """exp(mean negative log-likelihood) of every next token of `texts` (logits_all model)."""
    import numpy as np

    nll, count = 0.0, 0
    for text in texts:
        tokens = llama.tokenize(text.encode(), add_bos=False, special=True)
        llama.reset()
        llama.eval(tokens)
        logits = np.asarray(llama.scores[: len(tokens) - 1], dtype=np.float64)
        top = logits.max(axis=1, keepdims=True)
        log_norm = np.log(np.exp(logits - top).sum(axis=1)) + top[:, 0]
        chosen = logits[np.arange(len(tokens) - 1), tokens[1:]]
        nll += float((log_norm - chosen).sum())
        count += len(tokens) - 1
    return round(math.exp(nll / count), 3)


def load_both(n_ctx: int = 4096, logits_all: bool = False) -> dict[str, Any]:
    from llama_cpp import Llama

    from core.gguf_weights import q8_0_weights
    from core.llama_runtime import route_llama_output_to_logging
    from core.model_assembly import embedded_gguf
    from core.model_catalogue import TEST_MODEL

    route_llama_output_to_logging()
    shipped = embedded_gguf(TEST_MODEL)  # SmolLM2 ships as Q4_1, the format this bench compares
    paths = {"q4_1": shipped, "q8_0": q8_0_weights(shipped)}
    if paths["q8_0"] == shipped:
        raise SystemExit("no Q8_0 copy could be written (see the warning above)")
    return {
        name: Llama(
            model_path=str(p),
            n_ctx=n_ctx,
            n_threads=2,
            flash_attn=True,
            verbose=True,
            logits_all=logits_all,
        )
        for name, p in paths.items()
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prompts", type=int, default=6, help="HotpotQA prompts (default 6)")
    parser.add_argument("--tokens", type=int, default=48, help="greedy tokens per prompt")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    texts = prompts(args.prompts)
    result = compare(load_both(), texts, args.tokens)
    scorers = load_both(n_ctx=2048, logits_all=True)
    result["perplexity"] = {name: perplexity(scorers[name], texts) for name in FORMATS}
    print_result(result, args.json)


if __name__ == "__main__":
    main()
