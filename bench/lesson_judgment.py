"""Who should decide what in a reflection is a lesson for other tasks: the word lists, the
embeddings, or the model? `python bench/lesson_judgment.py --json` (add `--model local` for the
model's constrained verdict: minutes; `--embedding-model hashing` for a model-free run).

Real text: tests/data/lessons/reflector_sentences.jsonl, sentences the default model wrote as
reflections and insights in HotpotQA runs, each labelled by hand `lesson` (a whole sentence that
says what to do on any question of a kind and names nothing of one question) or not (a verdict,
a fact about one question, a sentence cut off). Each judge labels every sentence, side by side:
- `word_lists`: memory/reflections/lessons.py's `strategy` keeps the sentence;
- `neighbours`: the label of its nearest labelled sentence by embedding (cosine), every other
  sentence labelled (leave one out): the judgment "by data";
- `model`: the chat model, asked under a grammar which of fact, verdict, fragment, lesson the
  sentence is (ask_structured with a choice schema).
Prints accuracy, precision and recall of the `lesson` label for each.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / "tests" / "data" / "lessons" / "reflector_sentences.jsonl"
KINDS = ["fact", "verdict", "fragment", "lesson"]
ASK = """<sentence>
{sentence}
</sentence>
<instructions>
What is the sentence? fact: it states what one question, passage or answer says; verdict: it
judges one attempt or answer (right, wrong, good enough); fragment: it is cut off or not a whole
sentence; lesson: it says what to do on any question of a kind and names no person, title,
place or number.
</instructions>"""


def load(path: Path = DATA) -> tuple[list[str], np.ndarray]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [r["sentence"] for r in rows], np.array([bool(r["lesson"]) for r in rows])


def by_word_lists(sentences: list[str]) -> np.ndarray:
    from memory.reflections.lessons import strategy

    return np.array([bool(strategy(s)) for s in sentences])


def by_neighbours(sentences: list[str], labels: np.ndarray, embeddings: Any) -> np.ndarray:
    """Each sentence gets the label of its most similar other sentence."""
    vectors = np.asarray(embeddings.embed_documents(sentences), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    similar = vectors @ vectors.T
    np.fill_diagonal(similar, -np.inf)
    return labels[similar.argmax(axis=1)]


def by_model(sentences: list[str], chat: Any) -> np.ndarray:
    from langchain_core.messages import SystemMessage

    from agents.research.prompting import human
    from core.structured import ask_structured, choice_schema
    from prompts.research import ROLE, preamble
    from prompts.untrusted import data

    schema, system = choice_schema(KINDS), SystemMessage(preamble(ROLE))
    kinds = []
    for sentence in sentences:
        prompt = ASK.format(sentence=data(sentence))
        out = ask_structured(chat, schema, [system, human(prompt)], max_tokens=8)
        kinds.append(str(getattr(out, "answer", "")))
    return np.array([k == "lesson" for k in kinds])


def scores(predicted: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    hits = int((predicted & labels).sum())
    return {
        "accuracy": round(float((predicted == labels).mean()), 3),
        "precision": round(hits / max(1, int(predicted.sum())), 3),
        "recall": round(hits / max(1, int(labels.sum())), 3),
        "said_lesson": int(predicted.sum()),
    }


def timed(judge: Callable[[], np.ndarray], labels: np.ndarray) -> dict[str, float]:
    began = time.perf_counter()
    predicted = judge()
    return {**scores(predicted, labels), "seconds": round(time.perf_counter() - began, 1)}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--embedding-model", default="local", help="embeddings for `neighbours`")
    p.add_argument("--model", default=None, help="a chat model spec for the `model` judge")
    p.add_argument("--limit", type=int, default=None, help="only the first N sentences")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    args = p.parse_args(argv)
    from core.models import Models

    sentences, labels = load()
    sentences, labels = sentences[: args.limit], labels[: args.limit]
    models = Models()
    embeddings = models.embeddings(args.embedding_model)
    report: dict[str, Any] = {
        "sentences": len(sentences),
        "lessons": int(labels.sum()),
        "word_lists": timed(lambda: by_word_lists(sentences), labels),
        "neighbours": timed(lambda: by_neighbours(sentences, labels, embeddings), labels),
        "embedding_model": args.embedding_model,
    }
    if args.model:
        report["model"] = timed(lambda: by_model(sentences, models.chat(args.model)), labels)
        report["chat_model"] = args.model
    if args.json:
        print(json.dumps(report))
    else:
        for judge in ("word_lists", "neighbours", "model"):
            if judge in report:
                print(f"{judge:>10}: {report[judge]}")
    return report


if __name__ == "__main__":
    main()
