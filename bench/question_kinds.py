"""How often a test question has a training question of its kind, by exact form and by meaning
(memory/workflows/kinds.py), and whether the kind found is right by the datasets' own labels.

    python -m bench.question_kinds [--train 150] [--threshold 0.9]

Training questions: the first `--train` of 2WikiMultihopQA's 250 dev questions; test questions:
the other 2Wiki ones, and the first 100 of MuSiQue and of HotpotQA (where kinds rarely recur).
For each, the nearest training question by the cosine of MiniLM embeddings of the forms: rows
say how many have one at each threshold and how many of those share its `type` label (2Wiki:
comparison, inference, compositional, bridge comparison); and how many share an exact form.
"""

from __future__ import annotations

import argparse

from core.models import Models
from evals.hotpotqa.dataset import load_hotpotqa
from evals.report.tables import format_table
from memory.workflows.forms import form_key, question_form
from memory.workflows.kinds import KIND_SIMILARITY, kind_similarity

DATA = "tests/data/multihop"
THRESHOLDS = (0.8, 0.85, KIND_SIMILARITY, 0.95)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--train", type=int, default=150, help="2Wiki training questions (first N).")
    args = p.parse_args(argv)
    wiki = load_hotpotqa(f"{DATA}/2wiki_dev250.json")
    train, tests = (
        wiki[: args.train],
        {
            "2wiki": wiki[args.train :],
            "musique": load_hotpotqa(f"{DATA}/musique_dev100.json")[:100],
            "hotpotqa": load_hotpotqa(f"{DATA}/hotpotqa_dev300.json")[:100],
        },
    )
    embeddings = Models().embeddings("local")
    asked = [q.question for q in train]
    forms = {form_key(question_form(q)) for q in asked}
    rows = []
    for name, group in tests.items():
        nearest = []
        for q in group:
            near = kind_similarity(embeddings, q.question, asked)
            best = max(range(len(near)), key=near.__getitem__)
            nearest.append((near[best], train[best].type == q.type))
        exact = sum(form_key(question_form(q.question)) in forms for q in group)
        cells = [
            f"{sum(s >= t for s, _ in nearest)} / {sum(s >= t and same for s, same in nearest)}"
            for t in THRESHOLDS
        ]
        rows.append([name, str(len(group)), str(exact), *cells])
    head = [
        "test",
        "questions",
        "exact form",
        *(f"cos >= {t}: found / same type" for t in THRESHOLDS),
    ]
    print(format_table(head, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
