"""Files idemlint writes itself (cache entries, baselines, reports).

Written to a temporary file in the same directory and renamed over the
target: a reader sees the old content or the new one, never half of it, and
an interrupted run leaves no truncated file behind.
"""

from __future__ import annotations

import os
import stat
from typing import Union


def write_atomic(path: str, content: Union[str, bytes]) -> None:
    """Replace ``path`` with ``content`` in one rename (UTF-8 for text)."""
    import tempfile  # not at the top: a run served from the cache writes nothing

    data = content.encode("utf-8") if isinstance(content, str) else content
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(
        dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        # mkstemp makes the file private; give it the mode a plain open() would.
        os.chmod(temporary, _mode_for(path))
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _mode_for(path: str) -> int:
    """The existing file's permissions, or the umask's default for a new file."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
