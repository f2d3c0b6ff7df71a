"""The corpus folder as a jail: the files it holds, reads only inside it, cheap change checks.

    found = scan(folder)            # Scan: files, links that lead out (skipped), folder mtimes
    text = read_inside(folder, path)  # CorpusEscape if the file is not really inside `folder`
    found.dirs_changed()            # a file added, removed or renamed anywhere in the folder

Every file is read through its real path (symlinks resolved), which must lie inside the real
path of the folder; the opened file is checked again (the path of the descriptor, and that it is
a regular file), so a link swapped in between the check and the read cannot lead out either.
Links to directories are never followed. File names that are not valid UTF-8 are shown with
backslash escapes (`caf\\xe9.txt`), so every name can be printed and stored.
"""

from __future__ import annotations

import logging
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger(__name__)

SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown", ".html", ".htm", ".json", ".jsonl")
# A single file beyond this is almost certainly not prose meant for this index (dumps, logs):
# it is skipped, said so (docs/cli.md), and named if it leaves the folder with no document.
MAX_FILE_BYTES = 50_000_000
_PROC_FD = Path("/proc/self/fd")


class CorpusEscape(OSError):
    """A corpus path that resolves outside the corpus folder: it is skipped, never read."""


def shown(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 become `\\xNN` escapes."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def inside(folder: str, real: str) -> bool:
    """Is the real path `real` the real folder `folder` or under it?"""
    return real == folder or real.startswith(folder.rstrip(os.sep) + os.sep)


@dataclass
class Scan:
    """One walk of a corpus folder."""

    folder: Path  # its real path
    files: list[Path] = field(default_factory=list)  # supported files, in a stable order
    escapes: dict[str, str] = field(default_factory=dict)  # link (shown) -> where it leads
    too_large: dict[str, int] = field(default_factory=dict)  # file (shown) -> its size, skipped
    dirs: dict[str, int] = field(default_factory=dict)  # every folder walked -> its mtime_ns

    def dirs_changed(self) -> bool:
        """A name was added, removed or renamed in a walked folder (its mtime moved)."""
        for path, mtime in self.dirs.items():
            try:
                if os.stat(path).st_mtime_ns != mtime:
                    return True
            except OSError:
                return True
        return False

    def signature(self) -> tuple[tuple[str, int, int], ...] | None:
        """(path, mtime, size) of every file; None when one is gone (a change too)."""
        out = []
        for path in self.files:
            try:
                st = os.stat(path)
            except OSError:
                return None
            out.append((str(path), st.st_mtime_ns, st.st_size))
        return tuple(out)


def scan(folder: Path) -> Scan:
    """Supported, non-hidden files under the real folder `folder`; links out are recorded."""
    found = Scan(folder)
    _walk(str(folder), found)
    found.files.sort()
    return found


def _walk(directory: str, found: Scan) -> None:
    try:
        found.dirs[directory] = os.stat(directory).st_mtime_ns
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError as exc:
        log.warning("corpus: cannot list %s: %s", shown(directory), exc)
        return
    root = str(found.folder)
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_symlink():
            real = os.path.realpath(entry.path)
            if not inside(root, real):
                found.escapes[shown(os.path.relpath(entry.path, root))] = shown(real)
                continue
            if os.path.isdir(real):
                continue  # never followed: its files are indexed where they really are
        if entry.is_dir(follow_symlinks=False):
            _walk(entry.path, found)
        elif _wanted(entry, found):
            found.files.append(Path(entry.path))


def _wanted(entry: os.DirEntry[str], found: Scan) -> bool:
    if os.path.splitext(entry.name)[1].lower() not in SUPPORTED_SUFFIXES:
        return False
    try:
        st = entry.stat()  # a link's target, already checked to be inside
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return False
    if st.st_size > MAX_FILE_BYTES:
        name = shown(os.path.relpath(entry.path, found.folder))
        found.too_large[name] = st.st_size
        log.warning("corpus: %s not indexed: %s", name, over_limit(st.st_size))
        return False
    return True


def over_limit(size: int) -> str:
    """Why a file is not indexed: its size against MAX_FILE_BYTES, and what to do."""
    return (
        f"{size / 1e6:,.1f} MB, over the {MAX_FILE_BYTES / 1e6:,.0f} MB limit for one file "
        "(split it into smaller files)"
    )


def read_inside(folder: Path, path: Path) -> str:
    """The text of `path`, read through its real path, which must be inside `folder`."""
    real = os.path.realpath(path)
    if not inside(str(folder), real):
        raise CorpusEscape(f"{shown(str(path))} leads outside the corpus, to {shown(real)}")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(real, flags)
    with os.fdopen(fd, "rb") as handle:
        opened = _opened_path(fd)
        if opened is not None and not inside(str(folder), opened):
            raise CorpusEscape(f"{shown(str(path))} was swapped for a link out of the corpus")
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CorpusEscape(f"{shown(str(path))} is not a regular file")
        return handle.read(MAX_FILE_BYTES + 1).decode("utf-8", errors="replace")


def _opened_path(fd: int) -> str | None:
    """The real path of an open descriptor where the system says it (Linux), else None."""
    try:
        return os.readlink(_PROC_FD / str(fd))
    except OSError:
        return None
