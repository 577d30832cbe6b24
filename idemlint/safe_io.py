"""Opening what idemlint keeps for itself without trusting what is there.

The cache directory may sit in a repository someone else wrote, so nothing
in it is followed: a symbolic link where a directory or a file of ours
should be is refused (``O_NOFOLLOW``), a file is opened without blocking
(a FIFO cannot hang the run) and read only if ``fstat`` says it is a
regular file, and never more than a limit (``/dev/zero`` cannot exhaust
memory).
"""

from __future__ import annotations

import errno
import os
import stat
from typing import List, Optional, Tuple

NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class Unsafe(Exception):
    """A name that is not what idemlint expects there; the message says what it is."""


def _describe(path: str, dir_fd: Optional[int] = None) -> Optional[str]:
    """What is wrong with a directory of ours at ``path``: None when it is a
    real directory or absent (lstat: a link is never followed)."""
    try:
        found = os.stat(path, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return None
    if stat.S_ISLNK(found.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(found.st_mode):
        return "is not a directory"
    return None


def open_directory(path: str, dir_fd: Optional[int] = None) -> int:
    """A descriptor of the directory ``path``, never through a symbolic link.

    Raises :class:`Unsafe` for a link or a non-directory, OSError otherwise.
    """
    problem = _describe(path, dir_fd)
    if problem is not None:
        raise Unsafe(problem)
    try:
        handle = os.open(path, os.O_RDONLY | _DIRECTORY | NO_FOLLOW | _CLOEXEC, dir_fd=dir_fd)
    except OSError as error:
        replaced = _describe(path, dir_fd)  # since the lstat; else a parent is not a directory
        if error.errno in (errno.ELOOP, errno.ENOTDIR) and replaced is not None:
            raise Unsafe(replaced) from None
        raise
    if not stat.S_ISDIR(os.fstat(handle).st_mode):
        os.close(handle)
        raise Unsafe("is not a directory")
    return handle


def read_regular(name: str, dir_fd: int, limit: int) -> Tuple[bytes, os.stat_result]:
    """The content of the regular file ``name`` in ``dir_fd`` and its status.

    Raises :class:`Unsafe` for a link, anything but a regular file, or more
    than ``limit`` bytes (at most ``limit + 1`` are read); OSError otherwise
    (FileNotFoundError: no such file).
    """
    try:
        handle = os.open(name, os.O_RDONLY | NO_FOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=dir_fd)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise Unsafe("is a symbolic link") from None
        raise
    try:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode):
            raise Unsafe("is not a regular file")
        if status.st_size > limit:
            raise Unsafe(f"is larger than {limit} bytes")
        chunks: List[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(handle, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew since the fstat
            raise Unsafe(f"is larger than {limit} bytes")
        return b"".join(chunks), status
    finally:
        os.close(handle)
