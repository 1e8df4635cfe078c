"""Where a server started as a child process listens, as it says on stderr.

`agui replay --serve` and `agui proxy` print `... listening on URL` once bound; the
tests that start them as real processes read the URL from there.
"""

from __future__ import annotations

from typing import IO


def listening_url(stderr: IO[str], lines: int = 6) -> str | None:
    """The URL from the first `listening on URL` line among the next `lines` lines of
    `stderr`; None when the process did not say it (ended, or said something else)."""
    for _ in range(lines):
        line = stderr.readline()
        if "listening on " in line:
            return line.split("listening on ", 1)[1].split()[0]
    return None
