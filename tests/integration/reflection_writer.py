"""A separate writer process for the reflection-store tests: saves N reflections, prints each id.

    python reflection_writer.py HOME TAG COUNT [--bulk]

Each id is printed (and flushed) only after save_reflection returned, so the parent knows which
saves were acknowledged when it kills this process.

The tests use 256-bucket hashing embeddings, where two words can share a bucket. So fillers
carry exactly one word ("filler"), and probes search with a record's whole text: a filler once
carried its counter (e.g. "268", three characters, so a word) whose bucket was that of the key
`keyk5x8`; 51 such fillers (cosine 1/sqrt(2)) then outranked the record (2/sqrt(11)) and the
kill -9 test failed on machines where that key was the last one acknowledged.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.embeddings import HashingEmbeddings  # noqa: E402
from memory.reflections import ReflectionManager  # noqa: E402
from memory.schema import Reflection, ReflectionJudgment  # noqa: E402


def writer_text(tag: str, i: int) -> tuple[str, str]:
    """(task, reflection) of the writer's i-th record: what a probe searches for."""
    return f"writer task key{tag}x{i}", f"lesson from writer key{tag}x{i}"


def main() -> None:
    home, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    bulk = "--bulk" in sys.argv
    manager = ReflectionManager.open(home, HashingEmbeddings())
    judgment = ReflectionJudgment(needs_retry=False, confidence=0.5, reasons=[])
    for i in range(count):
        task, lesson = writer_text(tag, i)
        r = Reflection(id=f"{tag}-{i}", task=task, reflection=lesson, judgment=judgment)
        if bulk:  # large batches make the index file get written often, so kills land there too
            extra = [
                Reflection(task="filler", reflection="x", judgment=judgment) for _ in range(300)
            ]
            manager.save_many([*extra, r])
        else:
            manager.save_reflection(r)
        print(r.id, flush=True)


if __name__ == "__main__":
    main()
