"""One table from error types to exit codes, applied by a context manager in every command.

Known errors print one line on stderr and never a traceback; `AGUI_DEBUG=1` re-raises
them so a developer can see where they came from.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from enum import IntEnum
from typing import TYPE_CHECKING, Any, cast

import typer

from cli.visible_text import printable_line
from replay.wire.errors import AguiError, InvalidRequest, TransportFailure, UnreadableInput

if TYPE_CHECKING:
    from rich.console import Console


class ExitCode(IntEnum):
    """Exit codes shared by every command."""

    OK = 0
    FINDINGS = 1
    CANNOT_RUN = 2
    PAUSED = 3
    CANCELLED = 4
    # The reader of stdout went away (`agui replay x.sse | head -1`): the status a shell
    # reports for a process ended by SIGPIPE (128 + 13), as other Unix tools end.
    BROKEN_PIPE = 141


# Most specific first: the first matching row wins.
EXIT_CODES: tuple[tuple[type[BaseException], ExitCode], ...] = (
    (UnreadableInput, ExitCode.CANNOT_RUN),
    (InvalidRequest, ExitCode.CANNOT_RUN),
    (TransportFailure, ExitCode.CANNOT_RUN),
    (AguiError, ExitCode.CANNOT_RUN),
    (FileNotFoundError, ExitCode.CANNOT_RUN),
    (IsADirectoryError, ExitCode.CANNOT_RUN),
    (PermissionError, ExitCode.CANNOT_RUN),
    (UnicodeDecodeError, ExitCode.CANNOT_RUN),
    # Any other OS error on a user's file (a full disk, a socket as output, ...).
    (OSError, ExitCode.CANNOT_RUN),
)


class _Stderr:
    """The stderr `rich.console.Console`, made on first use.

    Importing rich costs a run about 25 ms before it reads a byte; a clean
    `agui replay --json` never prints on stderr at all.
    """

    def __init__(self) -> None:
        self._console: Console | None = None

    def made(self) -> Console:
        """The console itself, made now if it was not yet."""
        if self._console is None:
            from rich.console import Console

            self._console = Console(stderr=True, highlight=False)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.made(), name)


stderr: Console = cast("Console", _Stderr())


def stderr_console() -> Console:
    """The console behind `stderr`, for what needs the object itself (a live display
    enters it as a context manager, which a stand-in cannot pass for)."""
    return cast("_Stderr", stderr).made()


_CONTROL = re.compile("[\x07\x08\x0b\x0c\x0d]")
"""The control codes rich strips from printed text (`rich.control.strip_control_codes`)."""


_asked: list[object] = [None, False]
"""The stream `stderr_line` last wrote to, and whether it is a terminal."""


def stderr_line(text: str) -> None:
    """One plain line on stderr (a finding, a notice): rich on a terminal, else written
    directly, control codes stripped as rich strips them. Long recordings print
    thousands of these, and rich's per-call cost would dominate the run; so would a
    system call per line, so a stderr that is not a terminal is switched to block
    buffering, also under `PYTHONUNBUFFERED` (the entry point flushes it at exit). Whether
    it is a terminal is asked once per stream (`isatty` is a system call)."""
    stream = sys.stderr
    if _asked[0] is not stream:
        _asked[:] = [stream, stream.isatty()]
    if _asked[1]:
        stderr.print(text, markup=False, highlight=False, soft_wrap=True, emoji=False)
        return
    if getattr(stream, "line_buffering", False) or getattr(stream, "write_through", False):
        # (`write_through` too: under PYTHONUNBUFFERED every line was a system call)
        with contextlib.suppress(AttributeError, ValueError, OSError):
            stream.reconfigure(line_buffering=False, write_through=False)  # type: ignore[union-attr]
    if _CONTROL.search(text):
        from rich.control import strip_control_codes

        text = strip_control_codes(text)
    stream.write(text + "\n")


_RICH_TERMINAL_ENV = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "JUPYTER_COLUMNS")
"""Environment variables that can make rich treat a pipe as a terminal."""


def stderr_print(text: str) -> None:
    """`stderr.print(text, markup=False)`, without importing rich when that is plainly
    `text` and a newline: a printable ASCII line with at most one colon (no `:emoji:`
    code), on a stderr that is no terminal, shorter than the width rich would wrap it
    at. A short summary is all a clean `agui replay --check` prints, and rich's import
    would be a sixth of its run."""
    stream = sys.stderr
    if (
        text.isascii()
        and text.isprintable()
        and text.count(":") <= 1
        and not any(name in os.environ for name in _RICH_TERMINAL_ENV)
        and not stream.isatty()
        and len(text) < rich_width()
    ):
        stream.write(text + "\n")
        return
    stderr.print(text, markup=False)


def rich_width() -> int:
    """The width a rich `Console` made now would wrap at: `COLUMNS`, else the first
    standard stream that is a terminal, else 80 (`rich.console.Console.size`)."""
    columns = os.environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return int(columns)
    for descriptor in (0, 1, 2):
        try:
            width = os.get_terminal_size(descriptor).columns
        except (AttributeError, ValueError, OSError):
            continue
        return width or 80
    return 80


def fail(message: str, code: ExitCode = ExitCode.CANNOT_RUN) -> typer.Exit:
    """Print `agui: message` on stderr and return the `typer.Exit` to raise.

    The message often quotes what the user did not write (a file name found in a tree, a
    server's answer): a control character there is shown as an escape, never sent to
    the terminal, and the line stays one line. A file name's bytes that are not UTF-8
    are shown as `\\xff`, as they are on disk, and any other lone surrogate as
    `\\ud800` (`printable_line`): the line always encodes, whatever the message holds."""
    # (emoji=False: rich would show a name's `:smile:` as an emoji, not as it is)
    stderr.print(f"agui: {printable_line(message)}", markup=False, soft_wrap=True, emoji=False)
    return typer.Exit(int(code))


def exit_code_for(error: BaseException) -> ExitCode | None:
    """The exit code for a known error type, or None for a bug."""
    for error_type, code in EXIT_CODES:
        if isinstance(error, error_type):
            return code
    return None


def describe(error: BaseException) -> str:
    """One line for an error: OS errors name their file, everything else its message."""
    if isinstance(error, OSError) and error.filename is not None:
        reason = error.strerror or type(error).__name__
        return f"{error.filename}: {reason}"
    return str(error) or type(error).__name__


def silence_stdout() -> ExitCode:
    """After the reader of stdout went away: point stdout at /dev/null so that no later
    flush fails (and prints) again; returns the exit code to end with, silently."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    return ExitCode.BROKEN_PIPE


@contextmanager
def handled_errors() -> Iterator[None]:
    """Turn known errors into one stderr line and their exit code."""
    try:
        yield
    except typer.Exit:
        raise
    except BrokenPipeError:
        raise typer.Exit(int(silence_stdout())) from None
    except KeyboardInterrupt:
        from replay.wire.output_file import discard_pending

        discard_pending()
        stderr.print("agui: interrupted", markup=False)
        raise typer.Exit(130) from None
    except Exception as error:
        code = exit_code_for(error)
        if code is None or os.environ.get("AGUI_DEBUG") == "1":
            raise
        if isinstance(error, OSError):
            first_report(error)
        raise fail(describe(error), code) from None


_said: set[tuple[object, int | None]] = set()
"""The (file, errno) of the OS errors reported so far."""


def first_report(error: OSError) -> bool:
    """Whether this is the first report of this OS error on this file, and note it:
    stdout that failed mid-run fails again when the entry point flushes what is still
    buffered, and the user is told once."""
    key = (error.filename, error.errno)
    if key in _said:
        return False
    _said.add(key)
    return True
