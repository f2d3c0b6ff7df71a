"""Calibrate the memory relevance floor on the embeddings in use:
`python bench/relevance_floor.py --json` (add `--embedding-model hashing` for a model-free run).

Real texts: the 60 HotpotQA dev questions. A memory is stored and searched as "task\\nlesson";
here each question's related memories are its supporting facts ("title\\nsentence": the same
subject, in a memory's shape), its unrelated memories are the other questions' supporting facts,
and its distractors are the paragraphs HotpotQA placed beside it to mislead (near the subject,
not about it). Prints the cosine similarity distributions and the floor that best separates
related from unrelated pairs (fewest errors, both kinds weighted equally), with the share of
each kind that passes it.

`--forms N` instead prints the N nearest pairs of question forms (memory.workflows.forms: the
questions with their names as ellipses, as a plan workflow is searched for), and how many
questions share another's form (form_key, which decides where a plan workflow may go): is
there a floor at which a near form is the same kind of question, so one's plan fits the other?
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT / "tests" / "data" / "hotpotqa" / "distractor_dev60.json"


def pairs(records: list[dict[str, Any]]) -> tuple[list[str], list[list[str]], list[list[str]]]:
    """Questions, each one's supporting-fact memories, and each one's distractor memories."""
    questions, supporting, distractors = [], [], []
    for r in records:
        ctx = dict(zip(r["context"]["title"], r["context"]["sentences"], strict=True))
        facts = zip(r["supporting_facts"]["title"], r["supporting_facts"]["sent_id"], strict=True)
        own = [f"{t}\n{ctx[t][i]}" for t, i in facts if t in ctx and i < len(ctx[t])]
        wanted = set(r["supporting_facts"]["title"])
        other = [f"{t}\n{s[0]}" for t, s in ctx.items() if t not in wanted and s]
        questions.append(r["question"])
        supporting.append(own)
        distractors.append(other[:4])
    return questions, supporting, distractors


def _unit(vectors: list[list[float]]) -> np.ndarray:
    m = np.asarray(vectors, dtype=np.float32)
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


def similarities(embeddings: Any, records: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    questions, supporting, distractors = pairs(records)
    q = _unit(embeddings.embed_documents(questions))
    texts = [t for group in supporting + distractors for t in group]
    vecs = dict(zip(texts, _unit(embeddings.embed_documents(texts)), strict=True))
    related, unrelated, near = [], [], []
    for i, qv in enumerate(q):
        related += [float(qv @ vecs[t]) for t in supporting[i]]
        near += [float(qv @ vecs[t]) for t in distractors[i]]
        unrelated += [float(qv @ vecs[t]) for j, g in enumerate(supporting) if j != i for t in g]
    return {
        k: np.asarray(v)
        for k, v in {"related": related, "unrelated": unrelated, "distractor": near}.items()
    }


def best_floor(related: np.ndarray, unrelated: np.ndarray) -> float:
    """The threshold with the fewest errors, both kinds weighted equally: related pairs below
    it plus unrelated pairs at or above it (the lowest such threshold, rounded to 0.01)."""
    candidates = np.unique(np.concatenate([related, unrelated]))
    errors = np.array([(related < c).mean() + (unrelated >= c).mean() for c in candidates])
    return round(float(candidates[errors == errors.min()].min()), 2)


def summary(sims: dict[str, np.ndarray], floor: float) -> dict[str, Any]:
    def stats(v: np.ndarray) -> dict[str, float]:
        return {
            "n": int(v.size),
            "mean": round(float(v.mean()), 3),
            "p5": round(float(np.percentile(v, 5)), 3),
            "p50": round(float(np.percentile(v, 50)), 3),
            "p95": round(float(np.percentile(v, 95)), 3),
            "max": round(float(v.max()), 3),
            "passing_floor": round(float((v >= floor).mean()), 3),
        }

    return {"floor": floor, **{k: stats(v) for k, v in sims.items()}}


def nearest_forms(embeddings: Any, records: list[dict[str, Any]], n: int) -> dict[str, Any]:
    """How many questions share another's form exactly, and the n nearest pairs of forms."""
    from memory.workflows.forms import form_key, form_text, question_form

    questions = [r["question"] for r in records]
    forms = [form_text(q) for q in questions]
    sims = _unit(embeddings.embed_documents(forms))
    sims = sims @ sims.T
    pairs = sorted(
        ((float(sims[i, j]), forms[i], forms[j]) for i in range(len(forms)) for j in range(i)),
        reverse=True,
    )
    shared = len(questions) - len({form_key(question_form(q)) for q in questions})
    return {"same_form": shared, "nearest": [[round(s, 3), a, b] for s, a, b in pairs[:n]]}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedding-model", default="local", help="'local' (MiniLM) or 'hashing'")
    parser.add_argument("--limit", type=int, default=60, help="questions to use (default all 60)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--forms", type=int, metavar="N", help="the N nearest question forms")
    args = parser.parse_args(argv)
    from core.models import Models

    records = json.loads(DATA.read_text(encoding="utf-8"))[: args.limit]
    embeddings = Models().embeddings(args.embedding_model)
    result: dict[str, Any] = {"embedding_model": args.embedding_model, "questions": len(records)}
    if args.forms:
        result |= nearest_forms(embeddings, records, args.forms)
    else:
        sims = similarities(embeddings, records)
        result |= summary(sims, best_floor(sims["related"], sims["unrelated"]))
    print(json.dumps(result, ensure_ascii=False, indent=None if args.json else 2))


if __name__ == "__main__":
    main()
