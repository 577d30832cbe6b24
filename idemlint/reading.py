"""Reading files the checked repository controls, without hanging or filling memory.

Discovery refuses what is not a regular file, but a path can be replaced
between discovery and reading: a FIFO would block ``open`` until a writer
comes, ``/dev/zero`` never ends.  So every read opens the path without
blocking, asks the open descriptor (not the path, which may change again)
what it is, and reads only a regular file; at most ``limit`` bytes when the
caller has a bound.  Symbolic links to files are followed, as discovery
follows them.

An editor's unsaved buffers are read from memory instead (:class:`Overlay`).
"""

from __future__ import annotations

import errno
import io
import os
import stat
import tokenize
from typing import Dict, Mapping, Optional, Set, Tuple, Union

from idemlint.findings import FileProblem

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


class Overlay:
    """The text an editor holds for some files, read instead of the disk.

    An unsaved buffer is analysed as it is, with the rest of the project
    read from disk: the engine reads every file through :meth:`read`.  A
    file's text is stored as the bytes it would be saved as (UTF-8, or the
    encoding its PEP 263 cookie names), so that everything downstream (the
    content hashes the cache keys on and checks dependencies with, the
    decoding) treats a buffer exactly as the same bytes on disk.

    A path matches by its absolute form, or by its real one (a buffer opened
    through a symbolic link, a file found through another); only a file
    whose name some buffer has costs a ``realpath``.
    """

    def __init__(self, texts: Mapping[str, Union[str, bytes]]) -> None:
        self._raw: Dict[str, bytes] = {}
        self._real: Dict[str, bytes] = {}
        self._names: Set[str] = set()
        self.paths: Tuple[str, ...] = tuple(texts)
        for path, text in texts.items():
            raw = text if isinstance(text, bytes) else as_saved(text)
            self._raw[os.path.abspath(path)] = raw
            self._real[os.path.realpath(path)] = raw
            self._names.add(os.path.basename(path))

    def __bool__(self) -> bool:
        return bool(self._raw)

    def get(self, path: str) -> Optional[bytes]:
        """The buffer's bytes for ``path``, None when no buffer holds it."""
        if not self._raw:
            return None
        raw = self._raw.get(os.path.abspath(path))
        if raw is None and os.path.basename(path) in self._names:
            raw = self._real.get(os.path.realpath(path))
        return raw

    def read(self, path: str, limit: Optional[int] = None) -> bytes:
        """The buffer's bytes, else :func:`read_regular` of the file."""
        raw = self.get(path)
        return read_regular(path, limit) if raw is None else raw

    def unsaved(self) -> Tuple[str, ...]:
        """The paths given that name nothing on disk (a new file not saved yet)."""
        return tuple(path for path in self.paths if not os.path.lexists(path))


NO_OVERLAY = Overlay({})


def as_saved(text: str) -> bytes:
    """``text`` encoded as Python would read it back: in the encoding its
    PEP 263 cookie names, else UTF-8 (also when that encoding is unknown or
    cannot encode the text: decoding then reports the file as it would
    report those bytes on disk)."""
    raw = text.encode("utf-8", "surrogatepass")  # a lone surrogate: undecodable, E902
    if "coding" not in text[:1024]:
        return raw
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        if encoding in ("utf-8", "utf-8-sig"):
            return raw
        return text.encode(encoding)
    except (SyntaxError, LookupError, UnicodeError):
        return raw


def decode(source: bytes, path: str) -> Union[str, FileProblem]:
    """Decode like Python does: PEP 263 cookie, BOM, UTF-8 by default."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    except (SyntaxError, LookupError) as error:
        return FileProblem(path, 1, 1, "E902", f"cannot decode file: {error}")
    try:
        text = source.decode(encoding)
    except UnicodeDecodeError as error:
        line, column = _byte_position(source, error.start)
        byte = source[error.start]
        return FileProblem(
            path, line, column, "E902", f"cannot decode file as {encoding}: byte 0x{byte:02x}, {error.reason}"
        )
    return text[1:] if text.startswith("\ufeff") else text


def _byte_position(source: bytes, offset: int) -> Tuple[int, int]:
    """1-based line and column (in bytes) of ``offset``, lines ending as Python ends them."""
    before = source[:offset].splitlines(keepends=True) or [b""]
    if before[-1].endswith((b"\n", b"\r")):
        return len(before) + 1, 1
    return len(before), len(before[-1]) + 1
