"""File and URL arguments checked before a command starts its work: a file to read that exists
and is not a folder, a file to write whose folder exists, a URL that parses.

Each failure raises cli.errors.UsageError (exit 2) naming the option and what to change, so a
mistake costs a second, not a model load followed by a crash (exit 5).
"""

from __future__ import annotations

from pathlib import Path

from cli.commands import shown
from cli.errors import UsageError


def input_file(option: str, path: str) -> Path:
    """`path` if it names a file that can be opened for reading, else a UsageError saying why
    (no such file, a folder, no permission), before any work starts."""
    file = Path(path).expanduser()
    if not file.exists():
        raise UsageError(f"{option} {shown(str(file), 200)}: no such file")
    if file.is_dir():
        raise UsageError(f"{option} {shown(str(file), 200)} is a folder: give a file")
    try:
        file.open("rb").close()
    except OSError as exc:
        raise UsageError(f"{option} {shown(str(file), 200)}: {exc.strerror or exc}") from exc
    return file


def output_file(option: str, path: str) -> Path:
    """`path` if a file can be written there: its folder exists and it is not itself a folder
    (writing is still checked where it happens: a disk fills)."""
    file = Path(path).expanduser().resolve()
    if file.is_dir():
        raise UsageError(f"{option} {shown(str(file), 200)} is a folder: give a file name in it")
    if not file.parent.is_dir():
        raise UsageError(
            f"{option} {shown(str(file), 200)}: no folder {shown(str(file.parent), 200)} "
            "(create it first)"
        )
    return file


def url(option: str, value: str, schemes: tuple[str, ...]) -> str:
    """`value` if it parses as a URL with one of `schemes` and a host (a bad IPv6 literal or
    port fails here as bad input, not later as a crash). The URL itself is not repeated in the
    message: one for a database may hold a password."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(value)
        _ = parts.port  # parsing the port is what raises for a bad one
    except ValueError as exc:
        raise UsageError(f"{option}: not a valid URL ({exc})") from None
    if parts.scheme not in schemes or not parts.hostname:
        raise UsageError(
            f"{option}: expected a {' or '.join(s + '://' for s in schemes)} URL with a host"
        )
    return value


def file_argument(option: str, path: str, *, write: bool = False) -> Path:
    """`path` checked as a file to read, or with `write` as one to write."""
    return output_file(option, path) if write else input_file(option, path)
