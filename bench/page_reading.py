"""What the research graph reads from pages with no call, given the pages a question needs: on
2WikiMultihopQA's 250 dev questions, each with its gold paragraphs as the passages read (as the
corpus holds them), how many

- choices by a date or a count ("Who was born first, A or B?") the sides' values decide, and
  how many of those rightly (agents/research/compare.py);
- questions whether two sides are from one country the leads decide, and rightly;
- questions through a role or a relative ("the director of film X", "X's paternal
  grandfather") bridge from the work's or person's page to a name whose gold page the chain
  runs through, or to the answer itself (agents/research/bridge.py, kin.py).

    python -m bench.page_reading [--show]

Reported for the dev part (the first 60, which the multihop benchmark measures) and the rest.
The rules were written reading such questions of the whole file: this measures reading, not a
held-out score. `--show` prints each question not decided or bridged, or decided wrongly.
"""

from __future__ import annotations

import argparse

from agents.research.bridge import bridge, role_of
from agents.research.compare import alike, chosen, options, order
from agents.research.kin import kin_of
from agents.research.names import names
from evals.hotpotqa.dataset import HotpotQuestion, load_hotpotqa
from evals.report.tables import format_table

FILE = "tests/data/multihop/2wiki_dev250.json"
DEV = 60  # the multihop benchmark's 2Wiki dev questions: the file's first 60


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--show", action="store_true", help="print what was missed or wrong")
    args = p.parse_args(argv)
    questions = load_hotpotqa(FILE)
    rows = []
    for part, chosen_questions in (("dev", questions[:DEV]), ("rest", questions[DEV:])):
        tally = {"choice": [0, 0, 0], "same country": [0, 0, 0], "bridge": [0, 0, 0]}
        for q in chosen_questions:
            kind, got, right = _read(q)
            if not kind:
                continue
            tally[kind][0] += 1
            tally[kind][1] += got is not None
            tally[kind][2] += right
            if args.show and not right:
                print(f"{kind}: {q.question} | gold {q.answer} | read {got}")
        rows += [[part, kind, n, done, ok] for kind, (n, done, ok) in tally.items()]
    print(format_table(["part", "kind", "questions", "decided or bridged", "right"], rows))
    return 0


def _read(q: HotpotQuestion) -> tuple[str, str | None, bool]:
    """(the kind of reading, what it read, whether that is right) for one question."""
    gold = [q.paragraphs[i] for i in q.gold]
    passages = [f"{p.title} (source: s)\n{p.text}" for p in gold]
    if (options(q.question) and order(q.question)) or alike(q.question):
        got = chosen(q.question, [], passages)
        kind = "choice" if order(q.question) else "same country"
        return kind, got, got is not None and _same(got, q.answer)
    asked = role_of(q.question) or kin_of(q.question)
    if asked:
        found = bridge(q.question, passages)
        pages = [p.title for p in gold if not _same(p.title, asked[1])]
        right = found is not None and any(_same(found[1], t) for t in [*pages, q.answer])
        return "bridge", found[1] if found else None, right
    return "", None, False


def _same(a: str, b: str) -> bool:
    """Do two names name each other, case and a page's bracketed kind aside?"""
    a, b = (x.split(" (")[0].rstrip("?") for x in (a, b))
    return names(a, b) or names(b, a) or a.casefold() == b.casefold()


if __name__ == "__main__":
    raise SystemExit(main())
