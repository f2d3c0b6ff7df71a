"""A separate writer process for the reflection-store tests: saves N reflections, prints each id.

    python reflection_writer.py HOME TAG COUNT [--bulk]

Each id is printed (and flushed) only after its save returned, so the parent knows which saves
were acknowledged. The saving itself is store_fault_child.write (the forkserver tests' writer).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.integration.store_fault_child import write  # noqa: E402

if __name__ == "__main__":
    home, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    write(home, tag, count, "--bulk" in sys.argv, "/dev/stdout")
