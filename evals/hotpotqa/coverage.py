"""How many questions of a HotpotQA file have their gold answer among the direct answerer's
candidates (exact match): the most that answerer can get right.

    python -m evals.hotpotqa.coverage HOTPOTQA.json [CANDIDATES]
"""

from __future__ import annotations

import json
import sys

from evals.hotpotqa.candidates import CANDIDATES, candidate_answers
from evals.hotpotqa.dataset import load_hotpotqa
from evals.hotpotqa.metrics import exact_match_score


def coverage(path: str, limit: int = CANDIDATES) -> dict[str, int]:
    """{"questions", "gold_among_candidates", "candidates"} for the file at `path`."""
    questions = load_hotpotqa(path)
    covered = sum(
        any(
            exact_match_score(c, q.answer)
            for c in candidate_answers(q.question, q.paragraphs, limit)
        )
        for q in questions
    )
    return {"questions": len(questions), "gold_among_candidates": covered, "candidates": limit}


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: python -m evals.hotpotqa.coverage HOTPOTQA.json [CANDIDATES]")
    print(json.dumps(coverage(sys.argv[1], *(int(a) for a in sys.argv[2:]))))
