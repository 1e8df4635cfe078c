"""agui's pytest plugin: the `agui_serve` fixture and `assert_agui_clean`.

This project's own test run loads the plugin through its `pytest11` entry point, so the
fixture is used here exactly as a user's test suite would use it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from replay.pytest_plugin import agui_findings, assert_agui_clean

RECORDINGS = Path(__file__).resolve().parent.parent / "fixtures" / "recordings"
CASE = RECORDINGS / "native" / "tool-approval.approve"
LEGACY = RECORDINGS / "legacy" / "tool-approval.approve"


def request_body() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(f"{CASE}.request.json").read_text())
    return data


def test_agui_serve_serves_a_recording_for_the_test(agui_serve: Any) -> None:
    url = agui_serve(f"{CASE}.run1.sse")
    response = httpx.post(url + "/api/chat", json=request_body() | {"runId": "mine"}, timeout=5)
    assert response.status_code == 200
    assert '"runId":"mine"' in response.text
    assert_agui_clean(response.text)


def test_agui_serve_takes_several_files_and_options(agui_serve: Any) -> None:
    url = agui_serve([f"{CASE}.run1.sse", f"{CASE}.run2.sse"], pace="fast", line_endings="crlf")
    response = httpx.post(url, json=request_body(), timeout=5)
    assert "\r\n\r\n" in response.text


def test_agui_serve_refuses_unknown_options(agui_serve: Any) -> None:
    with pytest.raises(TypeError, match="colour"):
        agui_serve(f"{CASE}.run1.sse", colour="red")


def test_clean_recordings_pass_and_return_findings() -> None:
    assert [p for p in assert_agui_clean(f"{CASE}.run1.sse") if p.severity == "error"] == []
    assert_agui_clean(Path(f"{CASE}.run2.sse"))
    assert_agui_clean(Path(f"{CASE}.run1.sse").read_bytes())


def test_a_broken_stream_fails_with_its_findings() -> None:
    broken = (
        'data: {"type":"RUN_STARTED","runId":"r","threadId":"t"}\n\n'
        'data: {"type":"TEXT_MESSAGE_CONTENT","messageId":"m","delta":"x"}\n\n'
    )
    with pytest.raises(pytest.fail.Exception) as caught:
        assert_agui_clean(broken)
    message = str(caught.value)
    assert "unknown-message-id" in message
    assert "missing-terminal" in message
    assert "<stream>:3: event 1" in message


def test_legacy_events_fail_unless_translated() -> None:
    rules = {p.rule for p in agui_findings(f"{LEGACY}.run1.sse")}
    assert "legacy-approval-event" in rules
    with pytest.raises(pytest.fail.Exception, match="legacy"):
        assert_agui_clean(f"{LEGACY}.run1.sse")
    assert_agui_clean(f"{LEGACY}.run1.sse", native=True)


def test_loading_the_plugin_imports_nothing_heavy() -> None:
    code = (
        "import sys, replay.pytest_plugin\n"
        "heavy = [m for m in sys.modules if m.split('.')[0] in"
        " ('httpx', 'jsonschema', 'ag_ui', 'pydantic', 'rich', 'libcst', 'http')"
        " or m in ('replay.serve.server', 'replay.serve.service', 'replay.serve.served_runs')]\n"
        "print(heavy)"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert output.strip() == "[]"


def test_a_users_suite_gets_the_plugin_from_the_entry_point(tmp_path: Path) -> None:
    test_file = tmp_path / "test_user.py"
    test_file.write_text(
        "import httpx\n"
        "from replay.pytest_plugin import assert_agui_clean\n"
        "def test_it(agui_serve):\n"
        f"    url = agui_serve({str(CASE) + '.run1.sse'!r})\n"
        f"    body = {json.dumps(request_body())!r}\n"
        "    text = httpx.post(url, content=body, timeout=5).text\n"
        "    assert_agui_clean(text)\n"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-W",
            "error",
            str(test_file),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed" in result.stdout


def cli_findings(path: Path, *extra: str) -> list[tuple[Any, ...]]:
    """What `agui replay --check --format json` reports for `path` (the report lists
    findings in file order, so both sides are compared sorted)."""
    from typer.testing import CliRunner

    from cli.app import app

    result = CliRunner().invoke(app, ["replay", "--check", "--format", "json", *extra, str(path)])
    assert result.exit_code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    return sorted(
        (f["offset"], f["index"], f["line"], f["rule"], f["severity"], f["message"])
        for f in report["findings"]
    )


def plugin_findings(found: list[Any]) -> list[tuple[Any, ...]]:
    return sorted(
        (p.location.offset, p.location.index, p.location.line, p.rule, p.severity.value, p.message)
        for p in found
    )


@pytest.mark.parametrize(
    "path", sorted(RECORDINGS.glob("*/*.sse")), ids=lambda path: f"{path.parent.name}/{path.stem}"
)
def test_the_plugin_reports_what_agui_replay_check_reports(path: Path, tmp_path: Path) -> None:
    assert plugin_findings(agui_findings(path)) == cli_findings(path)
    # A captured stream is the stream alone: no name, and no request sidecar beside it.
    alone = tmp_path / "captured.sse"
    alone.write_bytes(path.read_bytes())
    assert plugin_findings(agui_findings(path.read_bytes())) == cli_findings(alone)
    if path.parent.name == "legacy":
        assert plugin_findings(agui_findings(path, native=True)) == cli_findings(path, "--native")


def test_a_recording_with_no_event_stream_is_a_finding_as_for_agui_replay(tmp_path: Path) -> None:
    har = tmp_path / "empty.har"
    har.write_text(json.dumps({"log": {"version": "1.2", "entries": []}}), "utf-8")
    expected = cli_findings(har)
    assert [finding[3] for finding in expected] == ["no-run"]
    # The report has no line or event index for a whole recording; the Problem says 0, -1.
    assert [f[3:] for f in plugin_findings(agui_findings(har))] == [f[3:] for f in expected]
