"""The project's memory store beside LangGraph's own SQLite store, on what memory needs: puts and
top-3 vector search at one size, two processes writing one file at once, and a writer killed
with SIGKILL mid-stream (are the puts it acknowledged there after reopening?).

    python -m bench.langgraph_stores --records 2000 --json

Both stores get the same texts, the same embeddings (the model-free 'hashing' fake: the
embedder's cost is no store's) and the same BaseStore calls: `put` one item at a time, as a run
writes its lessons, and `search(namespace, query=…, limit=3)`. LangGraph's store indexes vectors
with sqlite-vec (`langgraph.store.sqlite.SqliteStore`, the package the project declares); ours
is SQLite rows with a FAISS index (memory/stores/sqlite_store.py). Numbers are printed side by
side from one run, with their ratio; absolute times drift on a busy machine.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import signal
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langgraph.store.base import BaseStore

NS = ("reflections", "bench")
DIMS = 384
STORES = ("project", "langgraph")


def _embeddings() -> Any:
    from core.models import Models

    return Models().embeddings(f"hashing:{DIMS}")


@contextmanager
def opened(kind: str, folder: Path) -> Iterator[BaseStore]:
    """The store `kind` on its files under `folder` (created on first use)."""
    embeddings = _embeddings()
    if kind == "project":
        from memory.stores.sqlite_store import SqliteStore as ProjectSqlite

        ours = ProjectSqlite.open(folder, embeddings)
        try:
            yield ours
        finally:
            ours.close()
        return
    from langgraph.store.sqlite import SqliteStore

    folder.mkdir(parents=True, exist_ok=True)
    index: Any = {"dims": DIMS, "embed": embeddings, "fields": ["text"]}
    with SqliteStore.from_conn_string(
        str(folder / "store.sqlite"), index=index if vector_index() is None else None
    ) as store:
        store.setup()
        yield store


def vector_index() -> str | None:
    """Why LangGraph's SQLite store cannot index vectors with this Python (sqlite-vec is a
    loadable extension: the sqlite3 module must allow loading one), or None when it can."""
    import sqlite3

    conn = sqlite3.connect(":memory:")
    try:
        if not hasattr(conn, "enable_load_extension"):
            return "this Python's sqlite3 was built without loadable extensions"
        conn.enable_load_extension(True)
        import sqlite_vec

        sqlite_vec.load(conn)
        return None
    except Exception as exc:  # noqa: BLE001 - the reason is the result
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()


def text(i: int) -> str:
    topics = ("film", "band", "river", "novel", "team", "election", "city", "album")
    return f"Lesson {i}: when a question asks about a {topics[i % len(topics)]}, search {i % 97}"


def _value(i: int, writer: str = "") -> dict[str, Any]:
    return {"text": text(i), "writer": writer}


def speed(kind: str, folder: Path, records: int, queries: int) -> dict[str, float | None]:
    """Milliseconds per put (one at a time) and per top-3 search at `records` records (no
    search time where the store cannot search by vector)."""
    searchable = kind == "project" or vector_index() is None
    with opened(kind, folder) as store:
        started = time.perf_counter()
        for i in range(records):
            store.put(NS, f"r{i}", _value(i))
        put = (time.perf_counter() - started) / records
        times = []
        for q in range(queries if searchable else 0):
            started = time.perf_counter()
            hits = store.search(NS, query=text(q * 13 % records), limit=3)
            times.append(time.perf_counter() - started)
            assert hits, f"{kind}: a search found nothing"
    found = statistics.median(times) * 1000 if times else None
    return {"put_ms": put * 1000, "search_ms": found}


def _writer(kind: str, folder: str, name: str, count: int, log: str) -> None:
    """Put `count` items, logging each key once its put returned (acknowledged)."""
    with opened(kind, Path(folder)) as store, open(log, "a", encoding="utf-8") as acked:
        for i in range(count):
            try:
                store.put(NS, f"{name}-{i}", _value(i, name))
            except Exception as exc:  # noqa: BLE001 - counted: a writer that fails is a finding
                acked.write(f"ERROR {type(exc).__name__}: {exc}\n")
                acked.flush()
                continue
            acked.write(f"{name}-{i}\n")
            acked.flush()


def _acknowledged(log: Path) -> tuple[set[str], list[str]]:
    lines = log.read_text("utf-8").splitlines() if log.exists() else []
    return {x for x in lines if not x.startswith("ERROR")}, [x for x in lines if x[:5] == "ERROR"]


def _keys(kind: str, folder: Path) -> set[str]:
    with opened(kind, folder) as store:
        return {item.key for item in store.search(NS, limit=100_000)}


def concurrent(kind: str, folder: Path, count: int) -> dict[str, Any]:
    """Two processes put `count` items each into one store at once: acknowledged puts missing
    afterwards, and puts that failed (e.g. 'database is locked')."""
    with opened(kind, folder):
        pass  # created before the writers race to create it
    ctx = mp.get_context("spawn")
    logs = [folder.parent / f"{kind}-w{n}.log" for n in range(2)]
    procs = [
        ctx.Process(target=_writer, args=(kind, str(folder), f"w{n}", count, str(logs[n])))
        for n in range(2)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)
    acked, errors = set(), []
    for log in logs:
        keys, failed = _acknowledged(log)
        acked |= keys
        errors += failed
    found = _keys(kind, folder)
    return {"acknowledged": len(acked), "lost": len(acked - found), "failed_puts": len(errors)}


def killed(kind: str, folder: Path, after: float) -> dict[str, Any]:
    """A writer SIGKILLed `after` seconds into a stream of puts (counted from its first
    acknowledged put: a loaded machine may take seconds to start it): can the store be opened
    again, and are the puts it acknowledged there?"""
    log = folder.parent / f"{kind}-killed.log"
    ctx = mp.get_context("spawn")
    proc = ctx.Process(target=_writer, args=(kind, str(folder), "k", 1_000_000, str(log)))
    proc.start()
    started = time.monotonic()
    while proc.is_alive() and not _acknowledged(log)[0] and time.monotonic() - started < 120:
        time.sleep(0.05)
    time.sleep(after)
    assert proc.pid is not None
    os.kill(proc.pid, signal.SIGKILL)
    proc.join()
    acked, _ = _acknowledged(log)
    try:
        found = _keys(kind, folder)
    except Exception as exc:  # noqa: BLE001 - a store that does not reopen is the finding
        return {"acknowledged": len(acked), "reopened": False, "error": str(exc)[:200]}
    return {"acknowledged": len(acked), "reopened": True, "lost": len(acked - found)}


def measure(records: int, queries: int, writers: int, kill_after: float) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for kind in STORES:
            out[kind] = {
                **speed(kind, root / kind / "speed", records, queries),
                "concurrent": concurrent(kind, root / kind / "race" / "store", writers),
                "killed": killed(kind, root / kind / "kill" / "store", kill_after),
            }
    ours, theirs = out["project"], out["langgraph"]
    out["langgraph"]["vector_index"] = vector_index() or "sqlite-vec"
    out["ratios"] = {  # > 1: the project's store is faster
        m: theirs[m] / ours[m] for m in ("put_ms", "search_ms") if ours[m] and theirs[m]
    }
    return out


def _table(out: dict[str, Any]) -> str:
    rows: list[tuple[str, ...]] = [("", "project", "langgraph", "langgraph / project")]
    for m in ("put_ms", "search_ms"):
        ours, theirs, ratio = out["project"][m], out["langgraph"][m], out["ratios"].get(m)
        shown = [f"{v:.2f}" if v is not None else "-" for v in (ours, theirs, ratio)]
        rows.append((m, *shown))
    rows.append(("vector index", "FAISS", out["langgraph"]["vector_index"], ""))
    for part in ("concurrent", "killed"):
        rows.append(
            (part, json.dumps(out["project"][part]), json.dumps(out["langgraph"][part]), "")
        )
    width = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, width, strict=True)) for r in rows)


def main(argv: list[str] | None = None, report: Callable[[str], None] = print) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--records", type=int, default=2000, help="Records for put/search timing.")
    p.add_argument("--queries", type=int, default=50, help="Searches timed (median).")
    p.add_argument("--writers", type=int, default=300, help="Puts by each concurrent writer.")
    p.add_argument("--kill-after", type=float, default=3.0, help="Seconds before SIGKILL.")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    out = measure(args.records, args.queries, args.writers, args.kill_after)
    report(json.dumps(out) if args.json else _table(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
