"""The README's `$ agui ...` examples print what the README shows (issue 14, item 20).

Every fenced block whose first line is `$ agui ...` followed by output is run as if
from the repository root, in a scratch directory (stdout and stderr together, as a
terminal shows them), and compared line by line.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```\n(\$ agui .*?)^```", re.MULTILINE | re.DOTALL)


def examples() -> list[tuple[str, list[str]]]:
    found = []
    for block in BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8")):
        lines = block.splitlines()
        command, output = lines[0][2:], []
        for line in lines[1:]:
            if line.startswith("$ "):
                break
            output.append(line)
        if output and "|" not in command and "*" not in command:
            found.append((command, output))
    return found


@pytest.mark.parametrize(("command", "expected"), examples(), ids=lambda v: str(v)[:60])
def test_readme_example_prints_what_the_readme_shows(
    command: str, expected: list[str], tmp_path: Path
) -> None:
    # Run in a scratch directory that sees the repository's examples and fixtures, so
    # that files an example writes (`> out.sse`, `--html report.html`) land there.
    for name in ("examples", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "COLUMNS": "200"}
    env["NO_COLOR"] = "1"
    result = subprocess.run(
        ["bash", "-c", "exec 2>&1; " + command],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    actual = [line.rstrip() for line in result.stdout.splitlines()]
    assert actual == [line.rstrip() for line in expected]
