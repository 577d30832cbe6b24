"""Files idemlint writes itself (cache entries, baselines, reports).

Written to a temporary file in the same directory and renamed over the
target: a reader sees the old content or the new one, never half of it, and
an interrupted run leaves no truncated file behind.  The temporary file is
created with ``O_EXCL | O_NOFOLLOW``, so a symbolic link planted under its
name is never written through, and the rename replaces a link at the
target's name rather than the file it points to.
"""

from __future__ import annotations

import os
import re
import stat
from typing import Optional, Tuple, Union

# What a temporary file is called: ``.<target>.<16 hex digits>.tmp``.  The
# cache deletes abandoned ones, and only names of exactly this shape.
TEMPORARY_SUFFIX = r"\.[0-9a-f]{16}\.tmp"
NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
ATTEMPTS = 100


def temporary_pattern(target: str) -> "re.Pattern[str]":
    """The names write_atomic gives its temporary files for targets matching ``target`` (a regex)."""
    return re.compile(rf"\.(?:{target}){TEMPORARY_SUFFIX}")


def write_atomic(
    path: str, content: Union[str, bytes], *, dir_fd: Optional[int] = None, mode: Optional[int] = None
) -> None:
    """Replace ``path`` with ``content`` in one rename (UTF-8 for text).

    With ``dir_fd``, ``path`` is a name in that open directory (the cache's
    directories are opened without following links, then used by descriptor).
    ``mode`` is the new file's permissions; by default an existing regular
    file keeps its own and a new one gets the umask's default.
    """
    data = content.encode("utf-8") if isinstance(content, str) else content
    if dir_fd is None:
        directory, name = os.path.split(os.path.abspath(path))
        handle = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            write_atomic(name, data, dir_fd=handle, mode=mode)
        finally:
            os.close(handle)
        return
    permissions = _mode_for(path, dir_fd) if mode is None else mode
    descriptor, temporary = _create_temporary(path, dir_fd)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            os.fchmod(stream.fileno(), permissions)
        os.replace(temporary, path, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        try:
            os.unlink(temporary, dir_fd=dir_fd)
        except OSError:
            pass
        raise


def _create_temporary(name: str, dir_fd: int) -> Tuple[int, str]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NO_FOLLOW | getattr(os, "O_CLOEXEC", 0)
    for _ in range(ATTEMPTS):
        temporary = f".{name}.{os.urandom(8).hex()}.tmp"
        try:
            return os.open(temporary, flags, 0o600, dir_fd=dir_fd), temporary
        except FileExistsError:
            continue  # another writer's name (or a planted one): draw again
    raise FileExistsError(f"no free temporary name for {name}")


def _mode_for(name: str, dir_fd: int) -> int:
    """The existing regular file's permissions, or the umask's default for a new file."""
    try:
        existing = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        existing = None
    if existing is not None and stat.S_ISREG(existing.st_mode):
        return stat.S_IMODE(existing.st_mode)
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask
