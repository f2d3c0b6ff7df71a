"""Seconds per corpus search in a run, before and after the folder check became cheap.

    python -m bench.corpus_search [--files 5000] [--searches 20] [--json]

Builds a corpus of `--files` small documents in 50 subfolders, then times `--searches` searches
of each kind, alternating, on the same index and queries:
- before: what every search used to do first: walk the folder (rglob), check and stat every
  file, and compare their (path, mtime, size) with the cached index's;
- after: `CorpusIndex.load(folder, run_cache)`, which compares the subfolders' mtimes and
  re-stats the files only every `RECHECK_S` seconds (agents/tools/corpus.py).
Both include the BM25 search itself. Medians are printed, and what one periodic re-stat of
every file costs (at most one per `RECHECK_S` seconds of searching).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from agents.tools.corpus import RECHECK_S, CorpusIndex
from agents.tools.corpus_scan import SUPPORTED_SUFFIXES, scan
from bench.output import print_result
from core.context import RunCache

QUERIES = ["topic5 word3", "river delta", "topic17 word8", "marsupial burrow"]


def make_corpus(root: Path, files: int) -> None:
    for i in range(files):
        folder = root / f"d{i % 50:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        text = f"Document {i} is about topic{i % 97} and word{i % 13}. " * 20
        (folder / f"f{i}.txt").write_text(text, encoding="utf-8")


def old_check(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """The check every search made before: a walk and a stat of every file."""
    files = []
    for path in sorted(folder.rglob("*")):
        rel_parts = path.relative_to(folder).parts
        if any(part.startswith(".") for part in rel_parts) or not path.is_file():
            continue
        if path.suffix.lower() in SUPPORTED_SUFFIXES and path.stat().st_size >= 0:
            files.append(path)
    return tuple((str(f), f.stat().st_mtime_ns, f.stat().st_size) for f in files)


def measure(files: int, searches: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="corpus-bench-") as tmp:
        folder = Path(tmp).resolve()
        make_corpus(folder, files)
        cache = RunCache()
        started = time.perf_counter()
        index = CorpusIndex.load(folder, cache)
        build_s = time.perf_counter() - started
        signature = old_check(folder)
        before, after = [], []
        for n in range(searches):
            query = QUERIES[n % len(QUERIES)]
            started = time.perf_counter()
            assert old_check(folder) == signature  # unchanged: the cached index is used
            index.search(query, 3)
            before.append(time.perf_counter() - started)
            started = time.perf_counter()
            CorpusIndex.load(folder, cache).search(query, 3)
            after.append(time.perf_counter() - started)
        found = scan(folder)
        started = time.perf_counter()
        found.signature()
        recheck_s = time.perf_counter() - started
    b, a = statistics.median(before), statistics.median(after)
    return {
        "files": files,
        "searches": searches,
        "index_build_s": round(build_s, 3),
        "before_s_per_search": round(b, 5),
        "after_s_per_search": round(a, 5),
        "speedup": round(b / a, 1) if a else None,
        "file_recheck_s": round(recheck_s, 4),
        "file_recheck_every_s": RECHECK_S,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--searches", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    print_result(measure(args.files, args.searches), args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
