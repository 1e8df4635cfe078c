"""Where a server started as a child process listens, as it says on stderr.

`agui replay --serve` and `agui proxy` print `... listening on URL` once bound; the
tests that start them as real processes read the URL from there (`listening_url`), or
let `serving` start one, wait for that line and stop it with SIGTERM afterwards.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

AGUI = "from cli.app import main; main()"
"""The `python -c` code that runs agui (a test may put limits in front of it)."""


def listening_url(stderr: IO[str], lines: int = 6) -> str | None:
    """The URL from the first `listening on URL` line among the next `lines` lines of
    `stderr`; None when the process did not say it (ended, or said something else)."""
    for _ in range(lines):
        line = stderr.readline()
        if "listening on " in line:
            return line.split("listening on ", 1)[1].split()[0]
    return None


@dataclass
class Served:
    """A server child process: where it listens and, once stopped, what it wrote (stderr
    from after its listening line)."""

    url: str
    process: subprocess.Popen[str]
    stdout: str = ""
    stderr: str = ""


@contextmanager
def serving(args: Sequence[str], code: str = AGUI, cwd: Path | None = None) -> Iterator[Served]:
    """`python -c CODE ARGS` (in `cwd`) as a child process, yielded once it listens;
    stopped with SIGTERM (as a service manager would) when the block ends, killed if the
    block fails."""
    process = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
    )
    try:
        assert process.stderr is not None
        url = listening_url(process.stderr, 5)
        assert url is not None, "the server never said where it listens"
        served = Served(url, process)
        yield served
        process.send_signal(signal.SIGTERM)
        served.stdout, served.stderr = process.communicate(timeout=15)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
