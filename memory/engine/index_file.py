"""The vector index on disk: atomic writes, a checksum to detect damage, and temp-file cleanup.

An index file is derived data (the records are the truth), so any doubt means "rebuild": a file
FAISS cannot read, of the wrong dimension or kind, or whose CRC32 differs from the one recorded
when it was written (a torn copy, bit rot, or someone editing vectors) is ignored with a warning.
The checksum is recorded beside the file by the caller (in the store's metadata, in the same
transaction that installs the file), so file and checksum cannot disagree after a crash except
by forcing one rebuild. Writes go to `.NAME.PID.tmp` in the same folder, are fsynced and then
os.replace'd; a writer killed mid-write leaves only that temp file, which the next open removes.
"""

from __future__ import annotations

import logging
import os
import re
import zlib
from pathlib import Path

import faiss

from memory.engine.sqlite_file import process_alive

log = logging.getLogger(__name__)
_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.tmp$")
_CHUNK = 1 << 24


def file_crc(path: Path) -> str:
    """CRC32 of the file's bytes, as hex (streamed: an index can be gigabytes)."""
    crc = 0
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            crc = zlib.crc32(chunk, crc)
    return f"{crc:08x}"


def temp_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def write_temp(index: faiss.Index, path: Path) -> tuple[Path, str]:
    """Write the index next to `path` under a temp name, fsync it; (temp path, its CRC32)."""
    tmp = temp_path(path)
    faiss.write_index(index, str(tmp))
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    return tmp, file_crc(tmp)


def read_checked(path: Path, expected_crc: str | None, dimension: int) -> faiss.Index | None:
    """The index in `path` if it is intact and fits; None (with the reason logged) otherwise."""
    if not path.exists():
        return None
    if expected_crc is None:
        log.warning("index %s has no recorded checksum; rebuilding it from the records", path)
        return None
    found = file_crc(path)
    if found != expected_crc:
        log.warning(
            "index %s is damaged or was changed (checksum %s, recorded %s); rebuilding it "
            "from the records",
            path,
            found,
            expected_crc,
        )
        return None
    try:
        index = faiss.read_index(str(path))
    except RuntimeError as exc:  # FAISS reports a truncated or foreign file this way
        log.warning("ignoring unreadable index %s (%s); rebuilding from records", path, exc)
        return None
    if index.d != dimension:
        log.warning("index %s has dimension %d, expected %d; rebuilding", path, index.d, dimension)
        return None
    return index


def stale_files(folder: Path, keep: Path) -> list[Path]:
    """Temp files of writers that are gone and index files of other (wiped) stores."""
    found: list[Path] = []
    for path in folder.iterdir():
        temp = _TEMP.match(path.name)
        if temp and not process_alive(int(temp["pid"])):
            found.append(path)
        elif path.name.startswith("index.") and path.suffix == ".faiss" and path != keep:
            found.append(path)
    return found


def remove_stale_files(folder: Path, keep: Path) -> list[Path]:
    """Delete stale_files(folder, keep); returns them."""
    removed = stale_files(folder, keep)
    for path in removed:
        path.unlink(missing_ok=True)  # another process may have removed it first
        log.info("removed stale index file %s", path)
    return removed
