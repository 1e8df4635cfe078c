"""stderr that never stops a run: a line it cannot take is lost, and the run ends 2.

Notices, findings and summaries go to stderr while the result (a translation, a diff,
events) goes to stdout, `-o` or `--write`. When stderr cannot take a line (a full disk,
a file at its size limit, a reader that left), the result must still be whole: stopping
at that line would leave a run that did half its job, and whether it stopped used to
depend on how Python buffered stderr (`PYTHONUNBUFFERED` stopped `agui translate` at its
first notice; buffered, it finished). So every command does its whole job, and the entry
point ends with 2 instead of 0 or 1: the user was not told everything.
"""

from __future__ import annotations

import io
import sys
from typing import TYPE_CHECKING

from cli.stdout import on_raw_file

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

_lost: list[OSError] = []
"""The error that made stderr lose its first line, if it lost one."""


class _LossyStderr(io.FileIO):
    """File descriptor 2, whose writes never raise: the first failure is noted, and
    nothing more is written after it (a later line alone would read as the whole
    story)."""

    def write(self, data: ReadableBuffer) -> int:
        if not _lost:  # (every line passes here: nothing more on the way)
            try:
                return super().write(data)
            except OSError as error:
                _lost.append(error)
        return memoryview(data).nbytes


def install() -> None:
    """Put stderr on `_LossyStderr`, buffered as the interpreter's own was (raw, as stderr
    is up to 3.13, each write goes out whole: `cli.stdout.WholeWrites`)."""
    rewrapped = on_raw_file(sys.stderr, _LossyStderr)
    if rewrapped is not None:
        sys.stderr = rewrapped


def lost() -> bool:
    """Whether stderr could not take a line this run."""
    return bool(_lost)
