"""`agui translate` says so when the request answered an approval the legacy way.

A 0.22.1 client answers an approval inside the history (a `tool-call` part in state
`approval-responded`); 0.42.0 runs the tool, 0.58.0 ignores the answer and asks again
(found by `tests/interop/test_translate_differential.py` with a recorded 0.22.1 history).
No translation of the response can carry that over, so translate names it on stderr.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from cli.app import app

LEGACY = Path(__file__).resolve().parents[1] / "fixtures" / "recordings" / "legacy"
runner = CliRunner()


def _case(tmp_path: Path, name: str) -> Path:
    shutil.copy(LEGACY / f"{name}.run2.sse", tmp_path / f"{name}.run2.sse")
    shutil.copy(LEGACY / f"{name}.resume.json", tmp_path / f"{name}.resume.json")
    return tmp_path / f"{name}.run2.sse"


def test_a_legacy_approval_answer_in_the_request_is_named(tmp_path: Path) -> None:
    run = _case(tmp_path, "tool-approval.approve")
    result = runner.invoke(app, ["translate", str(run), "-o", str(tmp_path / "out.sse")])
    assert result.exit_code == 0, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if "legacy way" in line]
    assert line.startswith(f"{run}: the request answers approval_call_transfer_1 the legacy way")
    assert line.endswith("[lost]")
    # Nothing to translate: the answer is named, the stream is copied as it is.
    assert (tmp_path / "out.sse").read_bytes() == run.read_bytes()


def test_the_notice_is_a_json_line_too(tmp_path: Path) -> None:
    run = _case(tmp_path, "tool-approval.approve")
    result = runner.invoke(
        app, ["translate", str(run), "-o", str(tmp_path / "out.sse"), "--format", "json"]
    )
    assert result.exit_code == 0, result.stderr
    notices = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    assert [n["rule"] for n in notices] == ["lost"]


def test_a_client_tool_result_in_the_request_says_nothing(tmp_path: Path) -> None:
    run = _case(tmp_path, "client-tool.auto")
    result = runner.invoke(app, ["translate", str(run), "-o", str(tmp_path / "out.sse")])
    assert result.exit_code == 0, result.stderr
    assert "legacy way" not in result.stderr
