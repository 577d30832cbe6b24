"""The per-user secret behind the cache's keys and signatures.

A repository can ship a ``.idemlint_cache/`` of its own; what makes a cache
directory and its entries ours is that they carry keyed hashes made with a
secret no repository holds.  It is 32 random bytes kept outside any work
tree, in ``$XDG_CACHE_HOME/idemlint/secret`` (``~/.cache/idemlint/secret``
when ``XDG_CACHE_HOME`` is unset or relative), created once with mode 0600
and ``O_EXCL``, and read only if it is a regular file (not a link) owned by
the user and private to them.
"""

from __future__ import annotations

import os
import re
from typing import Optional

from idemlint.safe_io import NO_FOLLOW, Unsafe, open_directory, read_regular

FILE_NAME = "secret"
SECRET_BYTES = 32
_FORMAT = re.compile(rb"([0-9a-f]{64})\n")


class SecretError(Exception):
    """Why the secret cannot be used, in one line."""


def secret_directory() -> str:
    """Where the secret is kept: the user's cache directory, as XDG defines it."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            raise SecretError("no home directory to keep the cache secret in")
        base = os.path.join(home, ".cache")
    return os.path.join(base, "idemlint")


def load_secret() -> bytes:
    """The user's secret, created on first use; SecretError when it cannot be used."""
    directory = secret_directory()
    path = os.path.join(directory, FILE_NAME)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        handle = open_directory(directory)
    except Unsafe as error:
        raise SecretError(f"{directory} {error}") from None
    except OSError as error:
        raise SecretError(f"cannot create {directory}: {error.strerror or error}") from None
    try:
        secret = _read(handle, path)
        if secret is None:
            _create(handle)
            secret = _read(handle, path)
        if secret is None:
            raise SecretError(f"cannot create {path}")
        return secret
    except OSError as error:
        raise SecretError(f"cannot use {path}: {error.strerror or error}") from None
    finally:
        os.close(handle)


def _read(directory: int, path: str) -> Optional[bytes]:
    """The secret, None when there is none yet."""
    try:
        content, status = read_regular(FILE_NAME, directory, limit=2 * SECRET_BYTES + 1)
    except FileNotFoundError:
        return None
    except Unsafe as error:
        raise SecretError(f"{path} {error}") from None
    if hasattr(os, "geteuid") and status.st_uid != os.geteuid():
        raise SecretError(f"{path} belongs to another user")
    if status.st_mode & 0o077:
        raise SecretError(f"{path} is readable or writable by other users (chmod 600 it)")
    match = _FORMAT.fullmatch(content)
    if match is None:
        raise SecretError(f"{path} is damaged (delete it to make a new one)")
    return bytes.fromhex(match.group(1).decode())


def _create(directory: int) -> None:
    """Write a new secret under a private temporary name, then link it into
    place: a concurrent run either wins the link or reads a complete file."""
    temporary = f".{FILE_NAME}.{os.urandom(8).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NO_FOLLOW
    handle = os.open(temporary, flags, 0o600, dir_fd=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(os.urandom(SECRET_BYTES).hex().encode() + b"\n")
        try:
            os.link(temporary, FILE_NAME, src_dir_fd=directory, dst_dir_fd=directory, follow_symlinks=False)
        except FileExistsError:
            pass  # another run made it first: theirs is the secret
    finally:
        os.unlink(temporary, dir_fd=directory)
