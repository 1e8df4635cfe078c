"""Write the report file atomically: a temporary file beside it, renamed over it at the end.

A half-written report (the replay failed, or was interrupted) never replaces a good one,
and a reader never sees a page cut in the middle.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from replay.wire.errors import AguiError


class ReportNotWritable(AguiError):
    """The report file (or the temporary file beside it) cannot be written."""


@contextlib.contextmanager
def atomic_text(path: Path) -> Iterator[TextIO]:
    """A UTF-8 text stream that becomes `path` when the block ends without an error."""
    target = path.resolve() if path.parent.exists() else path
    try:
        descriptor, temporary = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
        )
    except OSError as error:
        raise ReportNotWritable(f"{path}: cannot write ({error.strerror or error})") from None
    try:
        with open(descriptor, "w", encoding="utf-8", newline="\n", buffering=1 << 16) as stream:
            yield stream
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        try:
            os.replace(temporary, target)
        except OSError as error:
            raise ReportNotWritable(f"{path}: cannot write ({error.strerror or error})") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
