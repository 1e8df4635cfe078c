"""Machine output that is already UTF-8 bytes (a recording's own lines) on stdout.

Writing a large recording's lines as text would decode them only for stdout to encode
them again. They go to the binary buffer under the text stream instead, after
flushing it, so they stay in order with everything written as text; a stdout that
is not UTF-8 (or has no buffer, as in some test runners) gets them decoded.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer
    from rich.console import Console


def write_utf8(data: bytes) -> None:
    """Write UTF-8 `data` on stdout, in order with text written there."""
    stream = sys.stdout
    binary = getattr(stream, "buffer", None)
    encoding = (getattr(stream, "encoding", None) or "").replace("-", "").replace("_", "")
    if binary is None or encoding.lower() != "utf8":
        stream.write(data.decode("utf-8"))
        return
    stream.flush()
    binary.write(data)


def stdout_console() -> Console:
    """A rich console on stdout whose broken pipe ends the command like other writes.

    rich's own handling exits with status 1, which for agui means "findings"; raising
    `BrokenPipeError` instead lets `cli.errors.handled_errors` end with 141.
    """
    from rich.console import Console

    class _StdoutConsole(Console):
        def on_broken_pipe(self) -> None:
            raise BrokenPipeError

    return _StdoutConsole(highlight=False)


STDOUT_NAME = "stdout"
"""The file name stdout's write errors carry, so that the one line telling of a full disk
says which file is full (`agui: stdout: No space left on device`)."""


class _NamedStdout(io.FileIO):
    """File descriptor 1 whose write errors name stdout.

    The system's error for a full disk or a file over its size limit names no file;
    told as it is, `agui: [Errno 28] No space left on device` leaves the user to guess
    which of the run's files it was. Every byte for stdout (text, `sys.stdout.buffer`,
    `-o -`) passes here, so this is the one place that knows the error is stdout's.
    A reader that went away (`BrokenPipeError`) is left as it is: it ends the run
    silently with 141.
    """

    def write(self, data: ReadableBuffer) -> int:
        try:
            return super().write(data)
        except BrokenPipeError:
            raise
        except OSError as error:
            raise OSError(error.errno, error.strerror or str(error), STDOUT_NAME) from error


class WholeWrites(io.BufferedWriter):
    """A buffered stdout that hands every write to the system at once, as unbuffered
    stdout does, but writes all of it or raises."""

    def write(self, data: ReadableBuffer) -> int:
        written = super().write(data)
        self.flush()
        return written


def complete_writes() -> None:
    """Put stdout on `_NamedStdout`, and make it write every byte or raise, also under
    `PYTHONUNBUFFERED`/`python -u`.

    Unbuffered, `sys.stdout.buffer` is the raw file, whose `write` may take only part of
    the bytes (a disk that fills up, a file at its size limit, a reader that leaves a
    full pipe) and returns how many it took; neither the text layer nor a caller writing
    bytes looks, so the rest was dropped and the run ended 0. A `BufferedWriter` loops
    until everything is written and raises the error that stopped it; flushing after
    each write keeps the output as immediate as unbuffered. Buffered, the new stream
    buffers as the interpreter's own did.
    """
    rewrapped = on_raw_file(sys.stdout, _NamedStdout)
    if rewrapped is not None:
        sys.stdout = rewrapped


def on_raw_file(
    stream: object, raw_file: Callable[[int, str, bool], io.FileIO]
) -> io.TextIOWrapper | None:
    """A text stream like `stream` (a standard stream), on `raw_file` of its descriptor,
    buffered as the interpreter's own was: unbuffered, every write whole at once
    (`WholeWrites`). None when `stream` is no text stream on a descriptor (a test
    runner's stand-in): it is then left as it is. `stream` is flushed first, so nothing
    written to it is lost or reordered."""
    if not isinstance(stream, io.TextIOWrapper):
        return None
    try:
        descriptor = stream.fileno()
    except (OSError, ValueError):
        return None
    raw = raw_file(descriptor, "wb", False)
    unbuffered = isinstance(stream.buffer, io.RawIOBase)
    buffer = WholeWrites(raw) if unbuffered else io.BufferedWriter(raw)
    stream.flush()
    return io.TextIOWrapper(
        buffer,
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=stream.line_buffering,
        write_through=stream.write_through,
    )


def escape_unencodable() -> None:
    """Write what stdout and stderr cannot encode as a `\\uXXXX`-style escape, not raise.

    Recordings may hold lone surrogates (`"\\ud800"` is valid JSON); ids and texts
    carrying them reach timelines, findings and reports. Escaped, they read as they
    were recorded and stay valid JSON inside JSON strings.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


_RICH_TERMINAL_ENV = ("FORCE_COLOR", "TTY_COMPATIBLE")
"""Variables that can make rich treat a pipe as a terminal (`Console.is_terminal`)."""
_CONTROL_CODES = dict.fromkeys((7, 8, 11, 12, 13))
"""What rich's `Text` strips from its text (`rich.control.strip_control_codes`)."""


class PlainStdout:
    """The timeline's stdout when it is no terminal: what rich's console writes for a
    plain, soft-wrapped `Text`, without importing rich (about 15 ms of a small
    recording's `agui replay`).

    rich strips five control codes and, for a line with a tab, pads by terminal cells;
    a text with a tab goes to a rich console instead (`rich_console`, the plain twin).
    tests/cli/test_plain_stdout.py compares both on random text.
    """

    is_terminal = False

    def __init__(self) -> None:
        self._rich: Console | None = None

    def write(self, text: str, end: str = "\n") -> None:
        """Write `text` and `end` as `Console.print(Text(text), end=end, soft_wrap=True)`."""
        if "\t" in text:
            from rich.text import Text

            self.rich_console().print(
                Text(text), end=end, soft_wrap=True, highlight=False, markup=False
            )
            return
        sys.stdout.write(text.translate(_CONTROL_CODES) + end)

    def rich_console(self) -> Console:
        """The console this stands in for (`stdout_console`), made on first use."""
        if self._rich is None:
            self._rich = stdout_console()
        return self._rich


def timeline_stdout() -> Console | PlainStdout:
    """The timeline's stdout: rich's console on a terminal (or what rich would take for
    one), else `PlainStdout`."""
    import os

    if any(name in os.environ for name in _RICH_TERMINAL_ENV) or sys.stdout.isatty():
        return stdout_console()
    return PlainStdout()
