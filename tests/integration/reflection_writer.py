"""A separate writer process for the reflection-store tests: saves N reflections, prints each id.

    python reflection_writer.py HOME TAG COUNT [--bulk]

Each id is printed (and flushed) only after save_reflection returned, so the parent knows which
saves were acknowledged when it kills this process.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from core.embeddings import HashingEmbeddings  # noqa: E402
from memory.reflections import ReflectionManager  # noqa: E402
from memory.schema import Reflection, ReflectionJudgment  # noqa: E402


def main() -> None:
    home, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    bulk = "--bulk" in sys.argv
    manager = ReflectionManager.open(home, HashingEmbeddings())
    judgment = ReflectionJudgment(needs_retry=False, confidence=0.5, reasons=[])
    for i in range(count):
        r = Reflection(
            id=f"{tag}-{i}",
            task=f"writer task key{tag}x{i}",
            reflection=f"lesson from writer key{tag}x{i}",
            judgment=judgment,
        )
        if bulk:  # large batches make the index file get written often, so kills land there too
            extra = [
                Reflection(task=f"{tag} filler {i} {j}", reflection="x", judgment=judgment)
                for j in range(300)
            ]
            manager.save_many([*extra, r])
        else:
            manager.save_reflection(r)
        print(r.id, flush=True)


if __name__ == "__main__":
    main()
