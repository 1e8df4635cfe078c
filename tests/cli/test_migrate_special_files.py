"""`agui migrate` on what is not a regular file: a FIFO, a device, symlink loops.

Each is one failed file with one line saying why, and the run goes on: a FIFO named
`*.py` in a walked tree used to block the run forever (opened for reading, it waits
for a writer), `/dev/zero` named on the command line would be read until memory ran
out, and a symlink loop named on the command line ended in a traceback. Run as real
processes with a timeout, so a hang fails the test instead of stalling the suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LEGACY_CODE = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"


def _migrate(cwd: Path, *arguments: str) -> tuple[int, str, str]:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", "from cli.app import main; main()", "migrate", *arguments],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    return done.returncode, done.stdout, done.stderr


def _failures(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if ": cannot read: " in line]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_in_the_tree_is_one_failed_file_and_the_rest_is_migrated(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_bytes(LEGACY_CODE)
    os.mkfifo(tmp_path / "pipe.py")
    code, out, err = _migrate(tmp_path, "--write", ".")
    assert code == 2
    assert _failures(err) == ["pipe.py: cannot read: not a regular file"]
    assert b"resolve_interrupt" in (tmp_path / "app.py").read_bytes()
    assert "Traceback" not in err
    assert out == ""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_on_the_command_line_is_refused_not_skipped(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    code, _, err = _migrate(tmp_path, "pipe.py")
    assert (code, _failures(err)) == (2, ["pipe.py: cannot read: not a regular file"])


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_named_on_the_command_line_is_not_read(tmp_path: Path) -> None:
    code, _, err = _migrate(tmp_path, "/dev/zero")
    assert (code, _failures(err)) == (2, ["/dev/zero: cannot read: not a regular file"])


def test_symlink_loops_are_one_line_or_failed_files_without_a_traceback(tmp_path: Path) -> None:
    (tmp_path / "self.py").symlink_to("self.py")
    (tmp_path / "a.py").symlink_to("b.py")
    (tmp_path / "b.py").symlink_to("a.py")
    # Named: refused before the run, as a missing file is, with what is wrong with it.
    code, _, err = _migrate(tmp_path, "self.py")
    assert (code, err) == (2, "agui: self.py: Too many levels of symbolic links\n")
    # Met in the walk: failed files, and the run goes on.
    code, _, err = _migrate(tmp_path, ".")
    assert code == 2
    assert sorted(_failures(err)) == [
        f"{name}: cannot read: Too many levels of symbolic links"
        for name in ("a.py", "b.py", "self.py")
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_gitignore_is_no_ignore_file(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_bytes(LEGACY_CODE)
    os.mkfifo(tmp_path / ".gitignore")
    code, out, err = _migrate(tmp_path, ".")
    assert code == 0, err
    assert out.startswith("diff --git a/app.py b/app.py\n")
