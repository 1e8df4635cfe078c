"""`agui migrate --write` on files that must not, or cannot simply, be replaced."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

LEGACY_CODE = b"def f(client, a):\n    client.add_tool_approval_response(id=a.id, approved=True)\n"
runner = CliRunner()


def summary_count(stderr: str, label: str) -> int:
    found = re.search(rf"│ {re.escape(label)}\s+│\s+(\d+) │", stderr)
    assert found is not None, stderr
    return int(found[1])


def test_a_read_only_file_is_refused_and_not_counted_as_changed(tmp_path: Path) -> None:
    path = tmp_path / "t.py"
    path.write_bytes(LEGACY_CODE)
    path.chmod(0o444)
    result = runner.invoke(app, ["migrate", "--write", str(path)])
    assert result.exit_code == 2
    assert path.read_bytes() == LEGACY_CODE
    assert f"{path}: cannot write: read-only file" in result.stderr
    assert summary_count(result.stderr, "changed") == 0
    assert summary_count(result.stderr, "failed") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.py"]


DEEP = b"x = " + b"(" * 1300 + b"client.pending_interrupts" + b")" * 1300 + b"\n"


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("newline", [b"\n", b"\r"])
def test_a_file_nested_too_deeply_fails_alone(tmp_path: Path, jobs: str, newline: bytes) -> None:
    for number in range(8):
        (tmp_path / f"ok{number}.py").write_bytes(LEGACY_CODE)
    deep = tmp_path / "deep.py"
    deep.write_bytes(b"import os" + newline + DEEP.replace(b"\n", newline))
    result = runner.invoke(app, ["migrate", "--write", "-j", jobs, str(tmp_path)])
    assert result.exit_code == 2
    assert f"{deep}: syntax error: too many nested parentheses" in result.stderr
    assert "Traceback" not in result.stderr
    assert all(b"resolve_interrupt" in (tmp_path / f"ok{n}.py").read_bytes() for n in range(8))
    assert summary_count(result.stderr, "failed") == 1
