"""How much of HotpotQA an answerer can get at, per file:

- the direct answerer's candidates: how many questions have their gold answer among them
  (exact match), the most that answerer can get right;
- with `--hits`, the research run's first search (BM25 over the question's 10 paragraphs,
  the request as the query): for k hits, how many questions have both gold paragraphs among
  them, and how many have the gold answer's words in them.

    python -m evals.hotpotqa.coverage HOTPOTQA.json [CANDIDATES] [--limit N]
    python -m evals.hotpotqa.coverage HOTPOTQA.json --hits [--limit N]
"""

from __future__ import annotations

import argparse
import json

from agents.tools.corpus import CorpusIndex
from evals.hotpotqa.candidates import CANDIDATES, candidate_answers
from evals.hotpotqa.dataset import HotpotQuestion, load_hotpotqa
from evals.hotpotqa.metrics import exact_match_score, normalize_answer

HITS = (3, 4, 5, 6)


def coverage(path: str, limit: int = CANDIDATES, questions: int | None = None) -> dict[str, int]:
    """{"questions", "gold_among_candidates", "candidates"} for the file at `path`."""
    qs = load_hotpotqa(path, questions)
    covered = sum(
        any(
            exact_match_score(c, q.answer)
            for c in candidate_answers(q.question, q.paragraphs, limit)
        )
        for q in qs
    )
    return {"questions": len(qs), "gold_among_candidates": covered, "candidates": limit}


def hit_coverage(path: str, ks: tuple[int, ...] = HITS, questions: int | None = None) -> dict:
    """Per k: {"both_gold_paragraphs", "answer_in_hits", "mean_chars"} over the questions."""
    qs = load_hotpotqa(path, questions)
    return {"questions": len(qs), "by_hits": {str(k): _at(qs, k) for k in ks}}


def _at(qs: list[HotpotQuestion], k: int) -> dict[str, int]:
    both = found = chars = 0
    for q in qs:
        index = CorpusIndex.from_passages([(p.title, p.text) for p in q.paragraphs])
        hits = index.search(q.question, k)
        gold = {title for title, _ in q.supporting_facts}
        both += gold <= {h.title for h in hits}
        text = " ".join(h.text for h in hits)
        found += normalize_answer(q.answer) in normalize_answer(text)
        chars += len(text)
    return {"both_gold_paragraphs": both, "answer_in_hits": found, "mean_chars": chars // len(qs)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m evals.hotpotqa.coverage")
    parser.add_argument("file")
    parser.add_argument("candidates", nargs="?", type=int, default=CANDIDATES)
    parser.add_argument("--hits", action="store_true", help="the first search's coverage")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    args = parser.parse_args(argv)
    if args.hits:
        print(json.dumps(hit_coverage(args.file, questions=args.limit)))
    else:
        print(json.dumps(coverage(args.file, args.candidates, args.limit)))


if __name__ == "__main__":
    main()
