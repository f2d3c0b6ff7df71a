"""The store a worker's run is compiled with: the project's store under its home, the memory
shared in PostgreSQL (mirrored under the home), or none (memory off)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from core.models import Models
from memory.stores.shared_store import SharedMemory


@contextmanager
def project_store(
    home: str,
    embedding_model: str,
    models: Models | None = None,
    *,
    on: bool = True,
    shared: SharedMemory | None = None,
) -> Iterator[Any]:
    """The project's persistent store under `home` (reflections, workflows, trajectories), or
    None (memory off) when `on` is false; with `shared`, the memory lives in its PostgreSQL
    database under its scope and this worker mirrors it under HOME/mirrors/HOST-PID (each
    worker its own, as on its own machine); closed on exit."""
    if not on:
        yield None
        return
    from memory.stores.project_store import open_memory_store

    if shared is None:
        with open_memory_store(home, embedding_model, models=models) as store:
            yield store
        return
    mirror = Path(home) / "mirrors" / f"{socket.gethostname()}-{os.getpid()}"
    with open_memory_store(
        mirror, embedding_model, models=models, memory_url=shared.url, scope=shared.scope
    ) as store:
        yield store
