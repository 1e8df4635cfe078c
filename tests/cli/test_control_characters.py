"""Untrusted text cannot act on the terminal: agui shows its control characters.

A recording, a live server's answer to `agui resume`, and the requests `--serve` and
`agui proxy` receive are written by others; an ESC in an assistant's text, an error
message, an interrupt's message or a request's runId used to reach the screen as is, where
it can clear it, retitle the window or set the clipboard (OSC 52).
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx
from typer.testing import CliRunner

from cli.app import app
from tests.cli.test_usage_error_on_a_terminal import _on_a_terminal

runner = CliRunner()
HOSTILE = "hi \x1b]0;PWNED\x07 \x1b[2J\u202eright\x9b there"
SHOWN = "hi \\x1b]0;PWNED\\x07 \\x1b[2J\\u202eright\\x9b there"


def _recording(tmp_path: Path) -> Path:
    events = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": HOSTILE},
        {"type": "TEXT_MESSAGE_END", "messageId": "m"},
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r1",
            "outcome": {
                "type": "interrupt",
                "interrupts": [{"id": "g-1", "reason": "review", "message": HOSTILE}],
            },
        },
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r2"},
        {"type": "RUN_ERROR", "message": HOSTILE},
    ]
    path = tmp_path / "hostile.sse"
    path.write_text("".join(f"data: {json.dumps(event)}\n\n" for event in events))
    return path


def test_piped_timeline_escapes_controls(tmp_path: Path) -> None:
    result = runner.invoke(app, ["replay", str(_recording(tmp_path))])
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert "\x07" not in result.stdout
    assert "\u202e" not in result.stdout
    assert "\x9b" not in result.stdout
    assert f"  assistant: {SHOWN}\n" in result.stdout
    assert f"!! error: {SHOWN}\n" in result.stdout
    assert SHOWN in result.stdout.split("answered by", 1)[1]


def test_timeline_on_a_terminal_escapes_controls(tmp_path: Path) -> None:
    status, screen = _on_a_terminal(["replay", str(_recording(tmp_path))], {"NO_COLOR": "1"})
    assert status == 0, screen
    assert "\x1b]0;PWNED" not in screen
    assert "\x1b[2J" not in screen
    assert "\u202e" not in screen
    assert "PWNED\\x07" in screen


AGUI = Path(sys.executable).with_name("agui")
NATIVE = Path(__file__).resolve().parents[2] / "examples" / "transfer-approval.sse"


def _requests_log(command: list[str]) -> str:
    """Run a server command, send it a hostile request, stop it; return its stderr."""
    with subprocess.Popen(
        [str(AGUI), *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stderr is not None
        seen = []
        for line in process.stderr:
            seen.append(line)
            found = re.search(r"listening on (http://\S+)", line)
            if found:
                break
        assert found is not None, seen
        body = {"threadId": "t", "runId": "r\x1b[2J", "messages": [], "tools": [], "context": []}
        httpx.post(f"{found[1]}/api/chat", json=body, timeout=30).read()
        resume = {**body, "runId": "r2", "parentRunId": "p\x1b]0;X\x07"}
        resume["resume"] = [{"interruptId": "\x1b[5mi", "status": "resolved"}]
        httpx.post(f"{found[1]}/api/chat", json=resume, timeout=30).read()
        process.send_signal(signal.SIGTERM)
        rest = process.stderr.read()
        assert process.wait(timeout=30) == 0
    return "".join(seen) + rest


def test_serve_request_log_escapes_controls() -> None:
    log = _requests_log(["replay", str(NATIVE), "--serve", "0"])
    assert "\x1b" not in log, log
    assert "\x07" not in log, log
    assert "POST /api/chat runId=r\\x1b[2J -> served" in log
    assert "parentRunId=p\\x1b]0;X\\x07 resume=\\x1b[5mi -> rejected" in log


def test_proxy_exchange_log_escapes_controls() -> None:
    with subprocess.Popen(
        [str(AGUI), "replay", str(NATIVE), "--serve", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as upstream:
        assert upstream.stderr is not None
        for line in upstream.stderr:
            found = re.search(r"listening on (http://\S+)", line)
            if found:
                break
        assert found is not None
        try:
            log = _requests_log(["proxy", "--upstream", found[1], "--listen", "0"])
        finally:
            upstream.send_signal(signal.SIGTERM)
            upstream.communicate(timeout=30)
    assert "\x1b" not in log, log
    assert "\x07" not in log, log
    assert "#1 POST /api/chat runId=r\\x1b[2J -> 200 complete" in log
    assert "parentRunId=p\\x1b]0;X\\x07 -> 200 complete" in log


def test_check_findings_escape_controls(tmp_path: Path) -> None:
    # a legacy tool name with an ESC, quoted by the --native notices, reached the terminal
    legacy = Path(__file__).resolve().parents[2] / "examples" / "legacy"
    path = tmp_path / "legacy.sse"
    source = (legacy / "tool-approval.0.42.0.sse").read_bytes()
    path.write_bytes(source.replace(b'"transfer"', b'"tr\\u001b[2Jansfer"'))
    for extra in (["--check"], ["--json"]):
        result = runner.invoke(app, ["replay", "--native", *extra, str(path)])
        assert result.exit_code == 0, result.stderr
        assert "\x1b" not in result.stdout + result.stderr
        assert "approval-requested for tr\\x1b[2Jansfer (call_transfer_1)" in (
            result.stdout + result.stderr
        )


def test_junit_report_stays_well_formed_xml(tmp_path: Path) -> None:
    # The same ESC in a JUnit report made it unreadable XML (no JUnit consumer could load it).
    from xml.etree import ElementTree

    legacy = Path(__file__).resolve().parents[2] / "examples" / "legacy"
    path = tmp_path / "legacy.sse"
    source = (legacy / "tool-approval.0.42.0.sse").read_bytes()
    path.write_bytes(source.replace(b'"transfer"', b'"tr\\u001b[2Jansfer"'))
    result = runner.invoke(app, ["replay", "--native", "--check", "--format", "junit", str(path)])
    assert result.exit_code == 0, result.stderr
    root = ElementTree.fromstring(result.stdout)
    shown = "".join(element.text or "" for element in root.iter("system-out"))
    assert "approval-requested for tr\\x1b[2Jansfer (call_transfer_1)" in shown
