"""An error line quotes what the user may not have written (a file name found in a tree,
a server's answer): its control characters and undecodable bytes are shown as escapes,
never sent to the terminal, and the line stays one line.

Before, `agui replay` on a name holding ESC sent the escape sequence to the terminal
as it was, a line break in it forged a second line, and a byte that is not UTF-8
showed as Python's `\\udcff`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.listening import AGUI


@pytest.mark.skipif(os.name != "posix", reason="file names as bytes")
def test_a_missing_files_name_is_shown_escaped_on_one_line(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/a\x1b[31m\xff\nb.sse"
    result = subprocess.run(
        [os.fsencode(sys.executable), b"-c", AGUI.encode(), b"replay", name],
        capture_output=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr == (
        b"agui: " + os.fsencode(tmp_path) + b"/a\\x1b[31m\\xff\\x0ab.sse: no such file\n"
    )


def test_a_name_holding_an_emoji_code_is_shown_as_it_is(tmp_path: Path) -> None:
    # rich replaced `:smile:` with an emoji: the line named a file that is not there.
    name = tmp_path / "x:smile:y.sse"
    result = subprocess.run(
        [sys.executable, "-c", AGUI, "replay", str(name)],
        capture_output=True,
        check=False,
        text=True,
        encoding="utf-8",
    )
    assert result.returncode == 2
    assert result.stderr == f"agui: {name}: no such file\n"
