"""`agui migrate --write` on files that must not, or cannot simply, be replaced."""

from __future__ import annotations

import re
from pathlib import Path

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
