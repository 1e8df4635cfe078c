"""A progress bar on stderr while a large recording file is read (`agui replay`,
`agui translate`).

A 1 GB recording takes a dozen seconds with nothing to show when its output goes to a
file or only findings are printed; the reader says how far it is
(`replay.large.piece_reader.ReadProgress`) and this draws it. The bar appears only
after `SHOW_AFTER` seconds (a quick run never flashes one) and disappears when the
file is read, leaving the terminal as it would be without it. It is redrawn when the
reader reports, never from a thread of its own: the reader forks a helper process, and
a thread caught holding a lock at that moment would leave the helper stuck.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

SHOW_AFTER = 0.5
"""Seconds of reading before the bar appears."""
REDRAW_EVERY = 0.1
"""Seconds between redraws at most."""


class ReadingBar:
    """A `ReadProgress` callback drawing one bar per file on the console `console()`
    gives (stderr's; asked for only when the bar appears: rich costs a quick run
    nothing)."""

    def __init__(
        self,
        console: Callable[[], Console],
        verb: str,
        *,
        show_after: float | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`show_after`: seconds before the bar appears (default `SHOW_AFTER`)."""
        self._console = console
        self._verb = verb
        self._show_after = SHOW_AFTER if show_after is None else show_after
        self._clock = clock
        self._started = clock()
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._source = ""
        self._drawn = 0.0

    def __call__(self, source: str, done: int, total: int) -> None:
        now = self._clock()
        progress = self._progress
        if progress is None:
            if done >= total or now - self._started < self._show_after:
                return
            progress = self._progress = self._start()
        if source != self._source or self._task is None:
            if self._task is not None:
                progress.remove_task(self._task)
            self._source = source
            description = f"{self._verb} {_shown(source)}"
            self._task = progress.add_task(description, total=total, completed=done)
        redraw = done >= total or now - self._drawn >= REDRAW_EVERY
        progress.update(self._task, completed=done, total=total, refresh=redraw)
        if redraw:
            self._drawn = now

    def close(self) -> None:
        """Take the bar off the terminal (nothing to do when it never appeared)."""
        if self._progress is not None:
            self._progress.stop()
            self._progress = None

    def _start(self) -> Progress:
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TimeRemainingColumn(),
            console=self._console(),
            transient=True,
            auto_refresh=False,  # redrawn from `__call__` only (no thread: see above)
            redirect_stdout=False,  # stdout carries results, written as they are
            redirect_stderr=False,  # findings print through `console`, above the bar
        )
        progress.start()
        return progress


@contextmanager
def reading_bar(verb: str, *, results_on_terminal: bool) -> Iterator[ReadingBar | None]:
    """A `ReadingBar` on stderr while the context is open, or None when none is shown:
    stderr is not an interactive terminal (a dumb one draws no bars), or the command
    writes its results on the same terminal as it reads (`results_on_terminal` and
    stdout is one), which are then progress enough and would tear the bar."""
    from cli.errors import stderr_console

    if (
        not _is_terminal(sys.stderr)
        or os.environ.get("TERM", "").lower() in ("dumb", "unknown")
        or (results_on_terminal and _is_terminal(sys.stdout))
    ):
        yield None
        return
    bar = ReadingBar(stderr_console, verb)
    try:
        yield bar
    finally:
        bar.close()


def _is_terminal(stream: object) -> bool:
    """Whether `stream` is a real terminal (not a pipe rich is told to treat as one)."""
    try:
        return os.isatty(stream.fileno())  # type: ignore[attr-defined]
    except (AttributeError, OSError, ValueError):  # replaced by a test runner, or closed
        return False


def _shown(source: str) -> str:
    """The file's name as the bar shows it: no rich markup, no control characters."""
    from rich.markup import escape

    from cli.visible_text import visible

    return escape(visible(os.path.basename(source) or source))
