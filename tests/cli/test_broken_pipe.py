"""A reader that stops early (`agui replay x.sse | head -1`) ends agui with 141, silently."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NATIVE = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"
LEGACY_CODE = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"


@pytest.mark.parametrize(
    "args",
    [
        ["replay", "{sse}"],
        ["replay", "--json", "{sse}"],
        ["translate", "{sse}"],
        ["migrate", "{py}"],
    ],
)
def test_closed_stdout_exits_141_without_a_message(tmp_path: Path, args: list[str]) -> None:
    sse = tmp_path / "big.sse"
    sse.write_bytes(NATIVE.read_bytes() * 400)
    py = tmp_path / "code"
    py.mkdir()
    for number in range(40):
        (py / f"m{number}.py").write_bytes(LEGACY_CODE * 20)
    agui = Path(sys.executable).with_name("agui")
    command = [str(agui), *(a.format(sse=sse, py=py) for a in args)]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as process:
        assert process.stdout is not None
        assert process.stdout.readline()
        process.stdout.close()
        _, err = process.communicate(timeout=60)
    assert process.returncode == 141
    assert b"Broken pipe" not in err
    assert b"Traceback" not in err


@pytest.mark.parametrize("args", [["--help"], ["replay", "--help"], ["migrate", "-h"]])
def test_help_into_a_closed_pipe_exits_141_without_a_message(args: list[str]) -> None:
    # the reader is gone before agui writes a byte: `agui replay --help | true`
    read_end, write_end = os.pipe()
    os.close(read_end)
    agui = Path(sys.executable).with_name("agui")
    try:
        done = subprocess.run(
            [str(agui), *args], stdout=write_end, stderr=subprocess.PIPE, timeout=60
        )
    finally:
        os.close(write_end)
    assert done.returncode == 141
    assert done.stderr == b""
