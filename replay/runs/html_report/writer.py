"""Write the report file the way agui writes every output path: through `OutputFile`.

A half-written report (the replay failed, or was interrupted) never replaces a good one,
and a reader never sees a page cut in the middle. `replay.wire.output_file` is the one
place that knows what else a path can be: a symlink stays a symlink, a device or FIFO
receives the bytes instead of being renamed over, a read-only file is refused, a shared
directory gets no named temp file. This module only turns its bytes into a text stream.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from replay.wire.errors import AguiError
from replay.wire.output_file import OutputFile

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

_BUFFER = 1 << 16


class ReportNotWritable(AguiError):
    """The report file (or the temporary file beside it) cannot be written."""


class _Sink(io.RawIOBase):
    """The raw end of the text stream: every block goes to the output file."""

    def __init__(self, out: OutputFile) -> None:
        super().__init__()
        self._out = out

    def writable(self) -> bool:
        return True

    def write(self, data: ReadableBuffer) -> int:
        block = bytes(data)
        self._out.write(block)
        return len(block)


@contextlib.contextmanager
def atomic_text(path: Path) -> Iterator[TextIO]:
    """A UTF-8 text stream that becomes `path` when the block ends without an error."""
    try:
        out = OutputFile(path)
    except OSError as error:
        raise _not_writable(path, error) from None
    try:
        with io.TextIOWrapper(
            io.BufferedWriter(_Sink(out), _BUFFER), encoding="utf-8", newline="\n"
        ) as stream:
            yield stream
    except BaseException:
        out.discard()
        raise
    try:
        out.commit()
    except OSError as error:
        raise _not_writable(path, error) from None


def _not_writable(path: Path, error: OSError) -> ReportNotWritable:
    return ReportNotWritable(f"{path}: cannot write ({error.strerror or error})")
