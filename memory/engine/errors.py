"""What the engine raises or warns when its files cannot be used as they are."""


class CorruptRecordWarning(UserWarning):
    """A stored record failed its checksum or could not be decoded; it is skipped."""


class MemoryStoreError(RuntimeError):
    """The memory store cannot be used as it is. The message is one self-contained line that
    names the file and the fix, so a command line can print it as it is (no traceback)."""


class MemoryStoreDamagedError(MemoryStoreError):
    """A file of the store is damaged (not a database, truncated, malformed pages)."""


class EmbedderMismatchError(RuntimeError):
    """The store was opened with a different embedding model than it was built with (a usage
    error, not damage: the message says how to re-embed)."""
