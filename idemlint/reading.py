"""Reading files the checked repository controls, without hanging or filling memory.

Discovery refuses what is not a regular file, but a path can be replaced
between discovery and reading: a FIFO would block ``open`` until a writer
comes, ``/dev/zero`` never ends.  So every read opens the path without
blocking, asks the open descriptor (not the path, which may change again)
what it is, and reads only a regular file; at most ``limit`` bytes when the
caller has a bound.  Symbolic links to files are followed, as discovery
follows them.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Optional

NOT_REGULAR = "not a regular file"

# O_NONBLOCK makes opening a FIFO return at once; it does not change how a
# regular file reads.  Windows has neither it nor FIFOs to fear.
_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class NotRegularFile(OSError):
    """The path is (now) a FIFO, a socket or a device; ``kind`` says which."""

    def __init__(self, path: str, mode: int) -> None:
        super().__init__(errno.EINVAL, NOT_REGULAR, path)
        self.kind = file_kind(mode)


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, for a message."""
    kinds = (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    )
    return next((kind for test, kind in kinds if test(mode)), "not a file")


class FileTooLarge(OSError):
    """The file holds more than the caller's limit."""


def read_regular(path: str, limit: Optional[int] = None) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit`` of them).

    Raises ``IsADirectoryError`` for a directory, ``NotRegularFile`` for
    anything else that is not a regular file, ``FileTooLarge`` past
    ``limit``, and ``OSError`` when the file cannot be opened or read.
    """
    descriptor = os.open(path, _FLAGS)
    try:
        # On the descriptor, before fdopen: fdopen refuses a directory
        # without closing what it was given.
        mode = os.fstat(descriptor).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path, mode)
    except BaseException:
        os.close(descriptor)
        raise
    with os.fdopen(descriptor, "rb") as handle:
        if limit is None:
            return handle.read()
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(errno.EFBIG, f"larger than {limit} bytes", path)
    return data
