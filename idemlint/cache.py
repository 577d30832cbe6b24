"""The findings cache: a task file analysed before is not parsed again.

One entry per task file, named by a hash of everything its findings depend
on that is known before analysing it: idemlint's version, the Python version
(it decides what parses), the settings the file is analysed with (in a
monorepo, those of its own ``pyproject.toml``), the file's path and its
content.  The analysis also depends on the project modules a task reached;
the entry lists every module name the analysis looked up, the file it
resolved to and the hash of the bytes the analysis parsed from it, and is
used only while each name still resolves to the same content.  An entry
keeps the last few variants (one per state of those modules), so switching
branches back and forth, or editing a helper and undoing the edit, finds its
results again.

Entries live in ``.idemlint_cache/`` (a ``.gitignore`` inside keeps them out
of version control, like ruff's cache), each written atomically, so two runs
at once at worst both write the same entry.  The directory is kept under
:data:`MAX_BYTES` by deleting the entries the run did not use, oldest first,
and temporary entries a killed run left behind are deleted after an hour.

The directory can come with the repository being checked, so it is
untrusted input.  Entry names and contents are keyed hashes (BLAKE2b) made
with the user's secret (:mod:`idemlint.user_secret`): a repository cannot
name an entry a run will look up, nor sign one.  The directory is ours only
when its ``CACHEDIR.TAG`` carries that user's tag; nothing else is written
to or deleted from, and only names idemlint itself writes are deleted.  No
symbolic link is followed (:mod:`idemlint.safe_io`).  A signed entry is
still checked field by field (:func:`fits` for what needs the files), so a
damaged or forged one is a miss: analysed again, never trusted.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import re
import stat
import sys
import time
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from idemlint import __version__
from idemlint.atomic import temporary_pattern, write_atomic
from idemlint.codes import FILE_PROBLEM_CODES, RULE_CODES
from idemlint.fixes import SAFE, UNSAFE, Edit, Fix
from idemlint.findings import UNFOLLOWED_REASONS, FileProblem, Finding, Related, UnfollowedCall
from idemlint.screens import Screened, as_json, from_json
from idemlint.safe_io import Unsafe, open_directory, read_regular
from idemlint.settings import Settings

DIRECTORY_NAME = ".idemlint_cache"
ENTRIES = "entries"
TAG_NAME = "CACHEDIR.TAG"
MAX_BYTES = 64 * 1024 * 1024
MAX_ENTRY_BYTES = 4 * 1024 * 1024
MAX_VARIANTS = 4
# The entry that remembers what the byte screen found (idemlint.screens):
# one per settings, a line of a few dozen bytes per file.
MAX_SCREENS_BYTES = 32 * 1024 * 1024
# Deeper than any entry idemlint writes ({"variants": [{"findings": [[..., [[...]]]]}]}:
# a finding's related places are the deepest).
MAX_DEPTH = 8
# A temporary file this old belongs to a run that was killed before its rename.
ABANDONED_SECONDS = 3600
# Raised when the same bytes can give other results (4: libcst's grammar on
# every Python, so files that were E999 under an older Python now have findings;
# 5: findings name every task and carry related places; 6: the calls not
# followed for a budget; 9: calls followed with no depth limit).
FORMAT = 9
# The dependency digest of a module that could not be read when it was looked up.
UNREADABLE = "-"

# A module name looked up, the file it resolved to, and the hash of the bytes
# the analysis parsed from it (path None: no module of that name; digest
# None: only whether the name resolves was used, not the content).
Dependency = Tuple[str, Optional[str], Optional[str]]

_KEY = re.compile(r"[0-9a-f]{40}")
_ENTRY_NAME = re.compile(r"([0-9a-f]{40})\.json")
_ENTRY_TEMPORARY = temporary_pattern(r"[0-9a-f]{40}\.json")
_TAG_TEMPORARY = temporary_pattern(re.escape(TAG_NAME))
_DIGEST = re.compile(r"[0-9a-f]{32}")
# Unicode's control characters (category Cc): C0, DEL and C1.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_NOT_BRACKETS = bytes(c for c in range(256) if c not in b"[]{}")
_MAC_LENGTH = 64


@dataclass(frozen=True)
class Entry:
    """What analysing one task file produced, and what else it read."""

    findings: Tuple[Finding, ...]
    problems: Tuple[FileProblem, ...]
    suppressed: Tuple[Finding, ...]  # hidden by ``# noqa``, for --show-unused-noqa
    dependencies: Tuple[Dependency, ...]
    unfollowed: Tuple[UnfollowedCall, ...] = ()  # for --statistics


def content_hash(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def line_bound(raw: bytes) -> int:
    """A number of lines no position in this file can exceed: every line
    break counts (``\\r\\n`` twice), plus one for a last line without one and
    one for an error placed just past the end."""
    return raw.count(b"\n") + raw.count(b"\r") + 2


class Cache:
    """A cache directory for one run's settings.

    :meth:`ready` decides whether it can be used at all; ``warning`` then
    holds the one line that says why not, or why it was not saved.
    """

    def __init__(self, directory: str, settings: Settings) -> None:
        self.directory = directory
        self.warning: Optional[str] = None
        self._salt = repr((FORMAT, __version__, sys.version_info[:2], fingerprint(settings)))
        self._secret: Optional[bytes] = None
        self._directory_fd: Optional[int] = None
        self._entries_fd: Optional[int] = None
        self._adoptable = False  # an empty directory: ours once we tag it
        self._used: Set[str] = set()
        self._variants: Dict[str, List[Entry]] = {}
        self._written = False

    def ready(self) -> bool:
        """Load the user's secret and look at the directory (nothing is
        created before the first write); False, with ``warning``, when the
        cache cannot be used."""
        if self.warning is not None:
            return False
        if self._secret is None:
            from idemlint.user_secret import SecretError, load_secret

            try:
                self._secret = load_secret()
            except SecretError as error:
                return self._refuse(f"cache not used: {error}")
        return self._directory_fd is not None or self._open_existing()

    def close(self) -> None:
        """Let go of the directories; a later use opens and checks them again."""
        for handle in (self._entries_fd, self._directory_fd):
            if handle is not None:
                os.close(handle)
        self._entries_fd = self._directory_fd = None

    def key(self, path: str, digest: str) -> str:
        text = "\0".join((self._salt, path, digest)).encode("utf-8", "surrogatepass")
        return self._hash(text, b"idemlint-key", 20)

    def get(self, key: str) -> List[Entry]:
        """The variants stored under ``key``, most recent first (checked on
        their own; :func:`fits` checks them against the files)."""
        self._used.add(key)
        variants = self._load(key)
        self._variants[key] = variants
        return variants

    def put(self, key: str, entry: Entry) -> None:
        """Store ``entry`` as the newest variant of ``key``."""
        older = [v for v in self._variants.get(key, []) if v.dependencies != entry.dependencies]
        self._write(key, [entry, *older][:MAX_VARIANTS])

    def promote(self, key: str, entry: Entry) -> None:
        """Make a variant that was just used the newest, so that a run of edits
        elsewhere (each a new variant) does not push out the state the files
        keep returning to.  Nothing is written when it is the newest already."""
        variants = self._variants.get(key, [])
        if variants and variants[0] is not entry and any(v is entry for v in variants):
            self._write(key, [entry, *(v for v in variants if v is not entry)])

    def prune(self, limit: Optional[int] = None) -> None:
        """Delete temporary files a killed run left, then entries this run did
        not use, oldest first, until under ``limit`` (:data:`MAX_BYTES`).
        Only names idemlint writes, only in a directory that is ours, only
        regular files."""
        limit = MAX_BYTES if limit is None else limit
        if not self._written or not self.ready() or self._entries_fd is None:
            return
        try:
            files = self._regular_files(self._entries_fd)
        except OSError:
            return
        abandoned = time.time() - ABANDONED_SECONDS
        for name, status in list(files.items()):
            if _ENTRY_TEMPORARY.fullmatch(name) and status.st_mtime < abandoned:
                if self._unlink(name):
                    del files[name]
        total = sum(status.st_size for status in files.values())
        unused = [name for name in files if self._unused_entry(name)]
        for name in sorted(unused, key=lambda n: files[n].st_mtime):
            if total <= limit:
                break
            if self._unlink(name):
                total -= files[name].st_size

    def screens(self, variant: str = "") -> Dict[str, Screened]:
        """What earlier runs' byte screens found, by content hash (empty
        when nothing valid is stored): an entry like the others, signed and
        checked field by field; one per ``variant`` (the task decorators
        the screen looked for)."""
        key = self._screens_key(variant)
        self._used.add(key)
        payload = self._signed_payload(key, MAX_SCREENS_BYTES) if self.ready() else None
        if payload is None or _depth(payload) > MAX_DEPTH:
            return {}
        try:
            document = json.loads(payload)
            if not isinstance(document, dict) or set(document) != {"screens"}:
                return {}
            return from_json(document["screens"])
        except (ValueError, RecursionError):
            return {}

    def put_screens(self, screened: Dict[str, Screened], variant: str = "") -> None:
        """Store what this run's byte screen found (see :meth:`screens`)."""
        key = self._screens_key(variant)
        self._used.add(key)
        payload = json.dumps({"screens": as_json(screened)}, separators=(",", ":")).encode()
        self._store(key, self.signed(key, payload), MAX_SCREENS_BYTES)

    def _screens_key(self, variant: str) -> str:
        return self.key("\0screens", variant)

    # Reading

    def _load(self, key: str) -> List[Entry]:
        payload = self._signed_payload(key, MAX_ENTRY_BYTES)
        if payload is None:
            return []
        try:
            return decode_variants(payload)
        except Invalid:
            return []

    def _signed_payload(self, key: str, limit: int) -> Optional[bytes]:
        """The payload of the entry ``key`` when its signature holds."""
        if self._entries_fd is None or not _KEY.fullmatch(key):
            return None
        try:
            content, _ = read_regular(key + ".json", self._entries_fd, limit)
        except (OSError, Unsafe):
            return None  # absent, a link, a FIFO, too large: a miss
        mac, newline, payload = content.partition(b"\n")
        if not newline or not hmac.compare_digest(mac, self._mac(key, payload).encode()):
            return None
        return payload

    def signed(self, key: str, payload: bytes) -> bytes:
        """An entry file's content: the payload's keyed hash on the first line, then the payload."""
        return self._mac(key, payload).encode() + b"\n" + payload

    def _mac(self, key: str, payload: bytes) -> str:
        return self._hash(key.encode() + b"\0" + payload, b"idemlint-entry", _MAC_LENGTH // 2)

    def _hash(self, data: bytes, person: bytes, size: int) -> str:
        assert self._secret is not None, "ready() loads the secret first"
        return hashlib.blake2b(data, key=self._secret, person=person, digest_size=size).hexdigest()

    # Writing

    def _write(self, key: str, variants: List[Entry]) -> None:
        if not self.ready() or not _KEY.fullmatch(key):
            return
        self._used.add(key)
        self._variants[key] = variants
        payload = json.dumps({"variants": [_as_json(v) for v in variants]}, separators=(",", ":")).encode()
        self._store(key, self.signed(key, payload), MAX_ENTRY_BYTES)

    def _store(self, key: str, content: bytes, limit: int) -> None:
        if not self.ready() or not _KEY.fullmatch(key) or len(content) > limit:
            return  # too large could not be read back
        try:
            entries = self._entries_fd if self._entries_fd is not None else self._create()
            if entries is None:
                return
            write_atomic(key + ".json", content, dir_fd=entries)
            self._written = True
        except OSError as error:
            self._refuse(f"cache not saved: cannot write {self.directory}: {error.strerror or error}")

    def _create(self) -> Optional[int]:
        """Make (or adopt) the directory, tag it ours, open ``entries``; None
        (with ``warning``) when what is there is not ours to write to."""
        if self._directory_fd is None:
            os.makedirs(os.path.dirname(os.path.abspath(self.directory)), exist_ok=True)
            try:
                os.mkdir(self.directory)
            except FileExistsError:
                pass  # another run made it, or something else is there: look
            if not self._open_existing():
                return None
            if self._directory_fd is None:
                raise FileNotFoundError(f"{self.directory} disappeared")
        if self._adoptable:
            write_atomic(TAG_NAME, self._tag(), dir_fd=self._directory_fd)
            write_atomic(".gitignore", "# Automatically created by idemlint.\n*\n", dir_fd=self._directory_fd)
            self._adoptable = False
        try:
            os.mkdir(ENTRIES, dir_fd=self._directory_fd)
        except FileExistsError:
            pass
        try:
            self._entries_fd = open_directory(ENTRIES, self._directory_fd)
        except Unsafe as error:
            self._refuse(f"cache not used: {os.path.join(self.directory, ENTRIES)} {error}")
            return None
        return self._entries_fd

    # The directory

    def _open_existing(self) -> bool:
        """Open the directory if it exists and is ours (or empty), and its
        ``entries``; True when the cache can be used."""
        try:
            directory = open_directory(self.directory)
        except Unsafe as error:
            return self._refuse(f"cache not used: {self.directory} {error}")
        except OSError:
            return True  # absent (or its parent is not a directory): the first write says
        if not self._is_ours(directory):
            if not self._is_empty(directory):
                os.close(directory)
                return self._refuse(
                    f"cache not used: {self.directory} was not created by idemlint for this user "
                    "(delete it to start a new cache there)"
                )
            self._adoptable = True
        self._directory_fd = directory
        try:
            self._entries_fd = open_directory(ENTRIES, directory)
        except Unsafe as error:
            return self._refuse(f"cache not used: {os.path.join(self.directory, ENTRIES)} {error}")
        except OSError:
            pass  # not made yet
        return True

    def _tag(self) -> str:
        """The CACHEDIR.TAG idemlint writes: the standard signature, then a
        line only the holder of the user's secret can produce."""
        return (
            "Signature: 8a477f597d28d172789f06886806bc55\n"
            "# This file is a cache directory tag created by idemlint.\n"
            "# For information about cache directory tags see https://bford.info/cachedir/\n"
            f"# idemlint: {self._hash(b'cache directory', b'idemlint-dir', 32)}\n"
        )

    def _is_ours(self, directory: int) -> bool:
        try:
            content, _ = read_regular(TAG_NAME, directory, limit=1024)
        except (OSError, Unsafe):
            return False
        return hmac.compare_digest(content, self._tag().encode())

    @staticmethod
    def _is_empty(directory: int) -> bool:
        """Nothing there but what another run creating it at the same time writes first."""
        try:
            names = os.listdir(directory)
        except OSError:
            return False
        return all(_TAG_TEMPORARY.fullmatch(name) for name in names)

    @staticmethod
    def _regular_files(directory: int) -> Dict[str, os.stat_result]:
        files = {}
        for name in os.listdir(directory):
            try:
                status = os.stat(name, dir_fd=directory, follow_symlinks=False)
            except OSError:
                continue  # removed meanwhile
            if stat.S_ISREG(status.st_mode):
                files[name] = status
        return files

    def _unused_entry(self, name: str) -> bool:
        match = _ENTRY_NAME.fullmatch(name)
        return match is not None and match.group(1) not in self._used

    def _unlink(self, name: str) -> bool:
        try:
            os.unlink(name, dir_fd=self._entries_fd)
            return True
        except OSError:
            return False  # another run removed it first

    def _refuse(self, warning: str) -> bool:
        if self.warning is None:
            self.warning = warning
        self.close()
        return False


# Settings that change no finding of a file analysed whole: a result cut by
# the time limit is never stored.
_NOT_IN_KEYS = frozenset({"timeout"})


def fingerprint(settings: Settings) -> str:
    """The settings as text that does not depend on set order (in cache keys)."""
    return repr(
        tuple(
            (field.name, sorted(value) if isinstance(value, frozenset) else value)
            for field in dataclasses.fields(settings)
            if field.name not in _NOT_IN_KEYS
            for value in (getattr(settings, field.name),)
        )
    )


def _as_json(entry: Entry) -> Dict[str, object]:
    return {
        "findings": [dataclasses.astuple(finding) for finding in entry.findings],
        "problems": [dataclasses.astuple(problem) for problem in entry.problems],
        "suppressed": [dataclasses.astuple(finding) for finding in entry.suppressed],
        "dependencies": [list(dependency) for dependency in entry.dependencies],
        "unfollowed": [dataclasses.astuple(call) for call in entry.unfollowed],
    }


# Checking what was read


class Invalid(Exception):
    """A stored entry that is not one idemlint wrote."""


_VARIANT_FIELDS = frozenset({"findings", "problems", "suppressed", "dependencies", "unfollowed"})


def decode_variants(payload: bytes) -> List[Entry]:
    """The variants of an entry's payload, every field checked; Invalid otherwise."""
    if _depth(payload) > MAX_DEPTH:
        raise Invalid("nested too deeply")
    try:
        document = json.loads(payload)
    except (ValueError, RecursionError):
        raise Invalid("not JSON") from None
    if not isinstance(document, dict) or set(document) != {"variants"}:
        raise Invalid("not an entry")
    variants = document["variants"]
    if not isinstance(variants, list) or not 0 < len(variants) <= MAX_VARIANTS:
        raise Invalid("no variants")
    return [_variant(variant) for variant in variants]


def _depth(payload: bytes) -> int:
    """How deep the arrays and objects of a JSON text nest, counted without
    recursion: strings removed (escapes first, so every quote left delimits
    one), then innermost pairs peeled off one level a round, at most
    MAX_DEPTH + 1 rounds of C-speed replaces."""
    text = payload.replace(b"\\\\", b"").replace(b'\\"', b"")
    outside = b"".join(text.split(b'"')[::2])
    brackets = outside.translate(None, _NOT_BRACKETS)
    for depth in range(MAX_DEPTH + 1):
        if not brackets:
            return depth
        brackets = brackets.replace(b"[]", b"").replace(b"{}", b"")
    return MAX_DEPTH + 1


def _variant(data: object) -> Entry:
    if not isinstance(data, dict) or set(data) != _VARIANT_FIELDS:
        raise Invalid("not a variant")
    return Entry(
        findings=tuple(_finding(item) for item in _items(data["findings"])),
        problems=tuple(_problem(item) for item in _items(data["problems"])),
        suppressed=tuple(_finding(item) for item in _items(data["suppressed"])),
        dependencies=tuple(_dependency(item) for item in _items(data["dependencies"])),
        unfollowed=tuple(_unfollowed(item) for item in _items(data["unfollowed"])),
    )


def _items(data: object) -> List[object]:
    if not isinstance(data, list):
        raise Invalid("not a list")
    return data


def _finding(data: object) -> Finding:
    fields = _fields(data, 15)
    path, line, column, code, end_line, end_column, rule, message, why, fix, task = fields[:11]
    tasks, callers, related, suggestion = fields[11:]
    if _text(code) not in RULE_CODES:  # _text first: a list is not hashable
        raise Invalid("unknown rule code")
    start, end = (_position(line), _position(column)), (_position(end_line), _position(end_column))
    if end < start:
        raise Invalid("ends before it starts")
    names = tuple(_text(name) for name in _items(tasks))
    calling = tuple(_text(name) for name in _items(callers))
    if list(names) != sorted(set(names)) or not set(calling) <= set(names):
        raise Invalid("tasks not as idemlint lists them")
    return Finding(
        _path(path), start[0], start[1], _text(code), end[0], end[1],
        _text(rule), _text(message), _text(why), _text(fix), _text(task),
        names,
        tuple(sorted(set(calling))),
        tuple(sorted({_related(item) for item in _items(related)})),
        _suggestion(suggestion) if suggestion is not None else None,
    )


def _suggestion(data: object) -> Fix:
    title, applicability, edits, digest = _fields(data, 4)
    if applicability not in (SAFE, UNSAFE):
        raise Invalid("unknown applicability")
    return Fix(_text(title), _text(applicability), tuple(_edit(item) for item in _items(edits)), _text(digest))


def _edit(data: object) -> Edit:
    line, column, end_line, end_column, content = _fields(data, 5)
    start, end = (_position(line), _position(column)), (_position(end_line), _position(end_column))
    if end < start:
        raise Invalid("an edit ends before it starts")
    return Edit(start[0], start[1], end[0], end[1], _code_text(content))


def _related(data: object) -> Related:
    path, line, column, note = _fields(data, 4)
    return Related(_path(path), _position(line), _position(column), _text(note))


def _problem(data: object) -> FileProblem:
    path, line, column, code, message = _fields(data, 5)
    if _text(code) not in FILE_PROBLEM_CODES:
        raise Invalid("unknown problem code")
    return FileProblem(_path(path), _position(line), _position(column), _text(code), _text(message))


def _unfollowed(data: object) -> UnfollowedCall:
    path, function, call, reason = _fields(data, 4)
    if _text(reason) not in UNFOLLOWED_REASONS:
        raise Invalid("unknown reason")
    return UnfollowedCall(_path(path), _text(function), _text(call), _text(reason))


def _dependency(data: object) -> Dependency:
    name, path, digest = _fields(data, 3)
    if path is None and digest is not None:
        raise Invalid("a digest of no file")
    if digest is not None and not (digest == UNREADABLE or (isinstance(digest, str) and _DIGEST.fullmatch(digest))):
        raise Invalid("not a digest")
    return _text(name), None if path is None else _path(path), None if digest is None else str(digest)


def _fields(data: object, count: int) -> Sequence[object]:
    if not isinstance(data, list) or len(data) != count:
        raise Invalid("wrong number of fields")
    return data


def _position(value: object) -> int:
    if type(value) is not int or value < 1:  # bool is an int subclass: excluded
        raise Invalid("not a position")
    return value


def _path(value: object) -> str:
    if not isinstance(value, str) or not value or "\0" in value:
        raise Invalid("not a path")
    return value


def _text(value: object) -> str:
    """A message, name or task: one line without control characters, as idemlint writes them."""
    if not isinstance(value, str) or _CONTROL.search(value):
        raise Invalid("not plain text")
    return value


def _code_text(value: object) -> str:
    """A fix's replacement text: code, so line breaks and tabs, but no other control character."""
    if not isinstance(value, str) or _CONTROL.search(value.replace("\n", "").replace("\r", "").replace("\t", "")):
        raise Invalid("not code")
    return value


def fits(
    entry: Entry, path: str, line_bounds: Callable[[str], Optional[int]]
) -> bool:
    """Whether a stored entry can be what analysing ``path`` produced: every
    finding, related place and problem is in that file or in a module it
    looked up (a helper's finding is reported on the helper), on a line the
    file has, and so is every call not followed.
    ``line_bounds`` gives :func:`line_bound` of a file, None when unknown."""
    allowed: FrozenSet[str] = frozenset(
        {path, *(module for _, module, _ in entry.dependencies if module is not None)}
    )
    items: List[Tuple[str, int]] = [
        *((f.path, f.end_line) for f in (*entry.findings, *entry.suppressed)),
        *((r.path, r.line) for f in (*entry.findings, *entry.suppressed) for r in f.related),
        *((p.path, p.line) for p in entry.problems),
    ]
    if any(call.path not in allowed for call in entry.unfollowed):
        return False
    for where, last_line in items:
        if where not in allowed:
            return False
        bound = line_bounds(where)
        if bound is not None and last_line > bound:
            return False
    return True
