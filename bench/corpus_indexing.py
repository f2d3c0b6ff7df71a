"""Seconds to index one large text file against its size: the time should grow in proportion.

    python -m bench.corpus_indexing [--sizes 1,2,4,8] [--before] [--json]

Each size is a corpus folder holding one .txt file of that many MB of short words on a single
line, with no blank line and no sentence end (the shape of a dump): the worst case for cutting
passages, since every 200 words is then a hard cut. For each size it prints the seconds to read
and cut the file into passages (`folder_passages`), to build the BM25 index over them
(`CorpusIndex`), their sum, and the seconds per MB; `growth` is the largest size's seconds per
MB over the smallest's (1.0 is linear; a square law gives 8 between 1 and 8 MB).

`--before` also times, on the same text, a cut that re-slices the remaining words for every
200-word chunk (`reslicing_cut`, quadratic): `before_cut_s` beside `cut_s`. It is the reference
the unit tests compare documents.split_passages' chunks with.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from pathlib import Path

from agents.tools.corpus import CorpusIndex
from agents.tools.corpus_scan import scan
from agents.tools.documents import MAX_PASSAGE_WORDS, folder_passages
from bench.output import print_result

MB = 1_000_000


def one_line_text(size: int) -> str:
    """`size` bytes of short words (1-3 letters or digits, about 250,000 a MB: the more words,
    the more cuts) on one line, no blank line, no '.', '!' or '?'."""
    words, total, i = [], 0, 0
    while total < size:
        word = _base36((i * 7919) % 46_656)
        words.append(word)
        total += len(word) + 1
        i += 1
    return " ".join(words)[:size]


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = digits[n % 36]
    while n >= 36:
        n //= 36
        out = digits[n % 36] + out
    return out


def measure_size(megabytes: float, before: bool = False) -> dict[str, float]:
    text = one_line_text(int(megabytes * MB))
    with tempfile.TemporaryDirectory(prefix="corpus-indexing-") as tmp:
        folder = Path(tmp).resolve()
        (folder / "big.txt").write_text(text, encoding="utf-8")
        started = time.perf_counter()
        passages = folder_passages(folder, scan(folder).files)
        cut_s = time.perf_counter() - started
        started = time.perf_counter()
        CorpusIndex(passages)
        index_s = time.perf_counter() - started
    total = cut_s + index_s
    row = {
        "mb": megabytes,
        "passages": len(passages),
        "cut_s": round(cut_s, 3),
        "index_s": round(index_s, 3),
        "total_s": round(total, 3),
        "s_per_mb": round(total / megabytes, 3),
    }
    if before:
        started = time.perf_counter()
        reslicing_cut(text)  # one line, one paragraph: what split_passages cuts
        row["before_cut_s"] = round(time.perf_counter() - started, 3)
    return row


def measure(sizes: list[float], before: bool = False) -> dict[str, object]:
    rows = [measure_size(mb, before) for mb in sizes]
    first, last = rows[0]["s_per_mb"], rows[-1]["s_per_mb"]
    return {"sizes": rows, "growth": round(last / first, 2) if first else None}


def reslicing_cut(para: str, max_words: int = MAX_PASSAGE_WORDS) -> list[str]:
    """The chunks documents.split_passages gives for one paragraph over `max_words` (its
    `_cut_long`), made by re-slicing the remaining words for every chunk: the same chunks in
    time growing with the square of the paragraph's length, the reference `--before` times."""
    chunks: list[str] = []
    current: list[str] = []
    for sentence in re.split(r"(?<=[.!?])\s+", para):
        words = sentence.split()
        if current and len(current) + len(words) > max_words:
            chunks.append(" ".join(current))
            current = []
        while len(words) > max_words:
            chunks.append(" ".join(words[:max_words]))
            words = words[max_words:]  # the whole rest copied again for every chunk
        current.extend(words)
    if current:
        chunks.append(" ".join(current))
    return chunks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,2,4,8", help="file sizes in MB, comma-separated")
    parser.add_argument(
        "--before", action="store_true", help="also time the re-slicing cut (a minute at 8 MB)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sizes = sorted(float(s) for s in args.sizes.split(","))
    print_result(measure(sizes, args.before), args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
