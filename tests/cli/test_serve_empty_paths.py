"""An empty `--record` or `--log` (an unset `$VAR`) is refused with one line, exit 2.

`Path("")` is `.`: before, `agui proxy --record ""` silently recorded every exchange
into the current directory, and `agui replay --serve 0 --log ""` said
`.: cannot write the log (Is a directory)`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
RUN = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["proxy", "--upstream", "http://127.0.0.1:9", "--listen", "0", "--record", ""],
            "agui: --record: an empty directory name: give a directory (. for here)\n",
        ),
        (
            ["proxy", "--upstream", "http://127.0.0.1:9", "--listen", "0", "--record", "-"],
            "agui: --record: - is no directory: give a directory (. for here; --json prints "
            "each exchange on stdout)\n",
        ),
        (
            ["replay", str(RUN), "--serve", "0", "--log", ""],
            "agui: --log: an empty file name: give a file path\n",
        ),
    ],
)
def test_an_empty_name_is_refused(args: list[str], message: str, tmp_path: Path) -> None:
    # run where a recording into "." would land, under a timeout: a server that starts
    # fails the test instead of hanging it
    done = subprocess.run(
        [sys.executable, "-c", "from cli.app import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=20,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == message
    assert list(tmp_path.iterdir()) == []
