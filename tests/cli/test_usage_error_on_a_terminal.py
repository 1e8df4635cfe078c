"""A usage error on a real terminal is one plain line, with colour on or off.

CliRunner is not a terminal, and rich decides between its boxed error panel and plain
text by looking at the terminal; so these tests run the installed `agui` under a
pseudo-terminal (the `pty` module) and read what a user would see on screen.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

AGUI = Path(sys.executable).with_name("agui")


def _on_a_terminal(args: list[str], extra_env: dict[str, str]) -> tuple[int, str]:
    """Run agui with stdin, stdout and stderr on one pty; return (status, screen text)."""
    env = {key: value for key, value in os.environ.items() if key not in ("NO_COLOR", "COLUMNS")}
    env.pop("FORCE_COLOR", None)
    env.update({"TERM": "xterm-256color", **extra_env})
    leader, follower = os.openpty()
    try:
        process = subprocess.Popen(
            [str(AGUI), *args], stdin=follower, stdout=follower, stderr=follower, env=env
        )
    finally:
        os.close(follower)
    chunks = []
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        status = process.wait(timeout=60)
    finally:
        os.close(leader)
    return status, b"".join(chunks).decode("utf-8", errors="replace")


@pytest.mark.parametrize(
    "colour",
    [{}, {"FORCE_COLOR": "1"}, {"NO_COLOR": "1"}],
    ids=["terminal-default", "force-colour", "no-colour"],
)
@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["replay", "--frobnicate", "x.sse"],
            "agui replay: no such option --frobnicate",
        ),
        (["translate"], "agui translate: missing argument RECORDING..."),
        (["migrate", "--jobs", "many", "."], "agui migrate: invalid value for --jobs"),
    ],
)
def test_usage_error_is_one_plain_line_on_a_terminal(
    args: list[str], line: str, colour: dict[str, str]
) -> None:
    status, screen = _on_a_terminal(args, colour)
    assert status == 2
    lines = [text for text in screen.splitlines() if text.strip()]
    assert len(lines) == 1, screen
    assert lines[0].startswith(line), screen
    for box in ("╭", "│", "╰", "Usage:", "Try "):
        assert box not in screen, screen
    assert "\x1b[" not in screen, screen  # a usage error carries no styling to strip
