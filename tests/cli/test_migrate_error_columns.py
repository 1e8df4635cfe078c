"""`agui migrate` prints a syntax error's column in characters for Python and TypeScript
alike, after non-ASCII text on the line."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from cli.app import app

runner = CliRunner()


def test_python_and_typescript_errors_are_located_in_characters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "desk.py").write_text(
        "s = '日本語' $ client.add_tool_approval_response(1)\n", encoding="utf-8"
    )
    (tmp_path / "desk.ts").write_text(
        "const s = '日本語' ) ; client.addToolApprovalResponse(x)\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["migrate", "--check", "desk.py", "desk.ts"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "desk.py:1:11: syntax error at line 1, column 11: invalid syntax" in result.stderr
    assert "desk.ts:1:17: syntax error: unexpected ')'" in result.stderr
