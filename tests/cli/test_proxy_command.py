"""`agui proxy`: usage errors, the stderr lines, --record and --check, in front of a real
`agui replay --serve` upstream."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from io import StringIO
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.console import Console
from typer.testing import CliRunner

from cli.app import app
from cli.proxy_command import ProxyRequest, run_proxy
from replay.proxy.server import ProxyServer
from replay.serve.serve_options import FAST, ServeOptions
from replay.serve.served_runs import load_recording
from replay.serve.server import ReplayServer

ROOT = Path(__file__).resolve().parent.parent.parent
CASE = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve"
BROKEN = ROOT / "examples" / "broken.sse"


def request_body(**ids: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(f"{CASE}.request.json").read_text())
    return data | ids


@pytest.fixture
def upstream() -> Iterator[Callable[..., ReplayServer]]:
    started: list[ReplayServer] = []

    def start(names: list[str], **options: Any) -> ReplayServer:
        opts = ServeOptions(pace=FAST, **options)
        server = ReplayServer(load_recording(names, opts), options=opts).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.shutdown()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--upstream", "localhost:3000"], "--upstream: 'localhost:3000' is not an http(s) URL"),
        (["--upstream", "http://x", "--listen", "nope"], "--listen: invalid port"),
        (["--upstream", "http://x", "--cors", "x"], "--cors: invalid origin"),
        (["--upstream", "http://x", "--tools", "TOOLS"], "--tools is only used with --native"),
        ([], "missing option --upstream"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text("[]")
    args = [str(tools) if arg == "TOOLS" else arg for arg in args]
    result = CliRunner().invoke(app, ["proxy", *args])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def drive(work: Callable[[ProxyServer], None]) -> Callable[[ProxyServer], None]:
    def on_ready(server: ProxyServer) -> None:
        def run() -> None:
            try:
                work(server)
            finally:
                server.shutdown()

        threading.Thread(target=run).start()

    return on_ready


def test_run_proxy_records_checks_and_reports(
    upstream: Callable[..., ReplayServer], tmp_path: Path
) -> None:
    served = upstream([f"{CASE}.run1.sse", f"{CASE}.run2.sse"])
    text = StringIO()
    console = Console(file=text, width=300, color_system=None)
    record = tmp_path / "rec"

    def work(server: ProxyServer) -> None:
        with httpx.Client(timeout=5) as client:
            answer = client.post(
                server.url + "/api/chat",
                json=request_body(runId="R1"),
                headers={"Authorization": "Bearer hunter2"},
            )
            assert answer.text.count("data: ") == 10

    request = ProxyRequest(upstream=served.url, listen="127.0.0.1:0", record=record, check=True)
    code = run_proxy(request, console=console, on_ready=drive(work))
    lines = text.getvalue().splitlines()
    assert code == 0
    assert lines[0] == f"agui proxy: passing through to {served.url}"
    assert lines[1] == f"agui proxy: recording exchanges in {record}"
    assert lines[2].startswith("agui proxy: listening on http://127.0.0.1:")
    assert lines[3] == (
        f"#1 POST /api/chat runId=R1 -> 200 complete (recorded {record / '001-R1.sse'})"
    )
    assert lines[-1] == "agui proxy: checked 1 exchange(s): 0 errors, 0 warnings, 0 notices"
    assert "hunter2" not in text.getvalue()
    assert sorted(p.name for p in record.iterdir()) == [
        "001-R1.exchange.json",
        "001-R1.request.json",
        "001-R1.sse",
    ]


def test_findings_are_printed_with_their_exchange_and_exit_1(
    upstream: Callable[..., ReplayServer],
) -> None:
    served = upstream([str(BROKEN)], verbatim=True)
    text = StringIO()
    console = Console(file=text, width=300, color_system=None)

    def work(server: ProxyServer) -> None:
        with httpx.Client(timeout=5) as client:
            client.post(server.url + "/chat", json=request_body(runId="R1"))

    request = ProxyRequest(upstream=served.url, listen="0", check=True)
    code = run_proxy(request, console=console, on_ready=drive(work))
    output = text.getvalue()
    assert code == 1
    assert (
        "exchange 1:7: event 3: error: TEXT_MESSAGE_CONTENT names messageId 'msg_2', never"
        " started [unknown-message-id]"
    ) in output
    assert "agui proxy: checked 1 exchange(s): 9 errors, 2 warnings" in output


def test_a_non_loopback_listen_warns(upstream: Callable[..., ReplayServer]) -> None:
    served = upstream([f"{CASE}.run1.sse"])
    text = StringIO()
    console = Console(file=text, width=300, color_system=None)
    request = ProxyRequest(upstream=served.url, listen="0.0.0.0:0")
    assert run_proxy(request, console=console, on_ready=lambda s: s.shutdown()) == 0
    assert "agui: warning: listening on 0.0.0.0, not loopback" in text.getvalue()


def test_json_prints_where_it_listens_and_each_exchange_on_stdout(
    upstream: Callable[..., ReplayServer], capsys: pytest.CaptureFixture[str]
) -> None:
    served = upstream([str(BROKEN)], verbatim=True)
    text = StringIO()
    console = Console(file=text, width=300, color_system=None)

    def work(server: ProxyServer) -> None:
        with httpx.Client(timeout=5) as client:
            client.post(server.url + "/chat", json=request_body(runId="R1"))

    request = ProxyRequest(
        upstream=served.url, listen="0", check=True, json_output=True, findings_json=True
    )
    code = run_proxy(request, console=console, on_ready=drive(work))
    captured = capsys.readouterr()
    listening, exchange = (json.loads(line) for line in captured.out.splitlines())
    assert code == 1
    assert listening["type"] == "listening"
    assert listening["url"].startswith("http://127.0.0.1:")
    assert exchange == {
        "type": "exchange",
        "number": 1,
        "method": "POST",
        "path": "/chat",
        "status": 200,
        "runId": "R1",
        "parentRunId": None,
        "end": "complete",
        "detail": None,
        "recorded": None,
    }
    # Findings go to stderr when stdout carries the exchanges, as JSON lines.
    findings = [json.loads(line) for line in captured.err.splitlines()]
    assert len(findings) == 11
    assert {
        "type": "finding",
        "exchange": 1,
        "rule": "unknown-message-id",
        "severity": "error",
        "message": "TEXT_MESSAGE_CONTENT names messageId 'msg_2', never started",
        "line": 7,
        "index": 3,
    } in findings
    assert "#1 POST" not in text.getvalue()  # no human exchange line either


def test_format_without_check_is_refused() -> None:
    result = CliRunner().invoke(app, ["proxy", "--upstream", "http://x", "--format", "json"])
    assert result.exit_code == 2
    assert result.stderr == "agui: --format formats --check's findings; add --check\n"


@pytest.fixture
def unwritable(tmp_path: Path) -> Iterator[Path]:
    """A directory this process may not create files in: read-only for a user, immutable
    for root (whom permissions do not stop)."""
    directory = tmp_path / "rec"
    directory.mkdir()
    if os.geteuid() != 0:
        directory.chmod(0o555)
        yield directory
        directory.chmod(0o755)
        return
    if subprocess.run(["chattr", "+i", str(directory)], capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        yield directory
    finally:
        subprocess.run(["chattr", "-i", str(directory)], check=True)


def test_record_into_an_unwritable_directory_is_refused_at_start(unwritable: Path) -> None:
    # it listened, and every exchange then said "not recorded: …: Permission denied"
    agui = Path(sys.executable).with_name("agui")
    args = ["--upstream", "http://127.0.0.1:9", "--listen", "0", "--record", str(unwritable)]
    done = subprocess.run([str(agui), "proxy", *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stdout == ""
    assert "listening" not in done.stderr
    assert done.stderr.endswith(
        f"agui: {unwritable}: cannot create files here; "
        "--record needs a directory agui may write to\n"
    )


def test_record_into_a_dangling_symlink_says_where_it_points(tmp_path: Path) -> None:
    # it said "agui: LINK: File exists"
    link = tmp_path / "rec"
    link.symlink_to(tmp_path / "gone")
    agui = Path(sys.executable).with_name("agui")
    args = ["--upstream", "http://127.0.0.1:9", "--listen", "0", "--record", str(link)]
    done = subprocess.run([str(agui), "proxy", *args], capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.endswith(
        f"agui: {link}: a symlink to {tmp_path / 'gone'}, which does not exist; create that "
        "directory or record elsewhere\n"
    )
    assert not (tmp_path / "gone").exists()


def test_record_into_a_file_says_it_is_not_a_directory(tmp_path: Path) -> None:
    # it said "agui: FILE: File exists"
    existing = tmp_path / "notes.txt"
    existing.write_text("x")
    agui = Path(sys.executable).with_name("agui")
    args = ["--upstream", "http://127.0.0.1:9", "--listen", "0", "--record", str(existing)]
    done = subprocess.run(
        [str(agui), "proxy", *args],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.endswith(
        f"agui: {existing}: not a directory; exchanges are recorded into a directory\n"
    )
    assert existing.read_text() == "x"
