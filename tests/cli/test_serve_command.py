"""`agui replay --serve`: usage errors, the stderr lines, the log file, and Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from io import StringIO
from pathlib import Path
from typing import Any

import httpx
import pytest
from rich.console import Console
from typer.testing import CliRunner

from cli.app import app
from cli.serve import ServeRequest, render_request, run_serve
from replay.serve.request_log import RequestLog, Result
from replay.serve.server import ReplayServer
from tests.listening import listening_url

NATIVE = Path(__file__).resolve().parent.parent / "fixtures" / "recordings" / "native"
CASE = NATIVE / "tool-approval.approve"
RUNS = [str(CASE) + ".run1.sse", str(CASE) + ".run2.sse"]


def request_body(kind: str = "request") -> dict[str, Any]:
    data: dict[str, Any] = json.loads(Path(f"{CASE}.{kind}.json").read_text())
    return data


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--verbatim"], "only used with --serve"),
        (["--log", "x.jsonl"], "only used with --serve"),
        (["--serve", "nope"], "--serve: invalid port"),
        (["--serve", "0", "--line-endings", "cr"], "--line-endings"),
        (["--serve", "0", "--verbatim", "--native"], "cannot be combined with --native"),
        (["--cors", "http://localhost:3000"], "only used with --serve"),
        (["--serve", "0", "--cors", "localhost:3000"], "--cors: invalid origin"),
    ],
)
def test_usage_errors_exit_2_with_one_line(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["replay", *RUNS, *args])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_recording_exits_2() -> None:
    result = CliRunner().invoke(app, ["replay", "missing.sse", "--serve", "0"])
    assert result.exit_code == 2
    assert "missing.sse" in result.stderr


def test_run_serve_logs_each_request_and_writes_the_log(tmp_path: Path) -> None:
    text = StringIO()
    console = Console(file=text, width=200, color_system=None)
    log_path = tmp_path / "log.jsonl"
    seen: dict[str, Any] = {}

    def drive(server: ReplayServer) -> None:
        def work() -> None:
            with httpx.Client(base_url=server.url, timeout=5) as client:
                first = request_body() | {"runId": "R1"}
                client.post("/chat", json=first)
                resume = request_body("resume") | {"runId": "R2", "parentRunId": "R1"}
                resume["resume"] = [{"interruptId": "nope", "status": "cancelled"}]
                seen["rejected"] = client.post("/chat", json=resume).text
                client.post("/chat", content=b"[]")
            server.shutdown()

        threading.Thread(target=work).start()

    request = ServeRequest(recordings=tuple(RUNS), address="127.0.0.1:0", log=log_path)
    assert run_serve(request, console=console, on_ready=drive) == 0
    lines = text.getvalue().splitlines()
    assert lines[0].startswith("agui replay: serving 2 runs from")
    assert lines[1].startswith("agui replay: listening on http://127.0.0.1:")
    assert lines[2] == "POST /chat runId=R1 -> served: run 1 (run-1796038961558-eiv1s8)"
    assert lines[3] == (
        "POST /chat runId=R2 parentRunId=R1 resume=nope -> rejected: RUN_ERROR unknown-interrupt"
    )
    assert lines[4] == "POST /chat -> 400 invalid body: body must be a JSON object"
    assert "warning" not in text.getvalue()
    records = [json.loads(line) for line in log_path.read_text().splitlines()]
    assert [r["result"] for r in records] == ["served", "rejected", "invalid"]
    assert records[0]["body"]["runId"] == "R1"
    assert records[2]["body"] == []
    assert '"code":"unknown-interrupt"' in seen["rejected"]


def test_a_non_loopback_bind_warns() -> None:
    text = StringIO()
    console = Console(file=text, width=200, color_system=None)
    request = ServeRequest(recordings=tuple(RUNS), address="0.0.0.0:0")
    run_serve(request, console=console, on_ready=lambda server: server.shutdown())
    assert "agui: warning: listening on 0.0.0.0, not loopback" in text.getvalue()


def test_render_request_for_an_accepted_continuation() -> None:
    entry = RequestLog(
        "t", "POST", "/c", 200, Result.ACCEPTED, "R2", "T", "R1", None, "run 2 (x)", ("a", "b")
    )
    assert render_request(entry) == (
        "POST /c runId=R2 parentRunId=R1 resume=a,b -> accepted: run 2 (x)"
    )


@pytest.mark.skipif(os.name != "posix", reason="sends SIGINT")
def test_the_command_serves_until_ctrl_c(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", "from cli.app import main; main()", "replay", *RUNS, "--serve", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        url = listening_url(process.stderr, 5) or ""
        assert url.startswith("http://127.0.0.1:")
        response = httpx.post(url + "/api/chat", json=request_body(), timeout=5)
        assert response.status_code == 200
        assert response.text.count("data: ") == 10
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=10)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0
    assert stdout == ""
    assert "-> served: run 1" in stderr
    assert "agui replay: stopped" in stderr


@pytest.mark.parametrize(
    "origin",
    [
        "http://local host:3000",
        "http://localhost:99999",
        "http://localhost:3000?x=1",
        "http://me@localhost:3000",
    ],
)
@pytest.mark.parametrize("command", ["serve", "proxy"])
def test_an_origin_no_browser_sends_is_refused(command: str, origin: str) -> None:
    # these were taken, and then matched no browser's Origin: the server ran with CORS
    # silently never on (a run under timeout fails instead of hanging if one is taken)
    agui = Path(sys.executable).with_name("agui")
    args = (
        ["replay", *RUNS, "--serve", "0"]
        if command == "serve"
        else ["proxy", "--upstream", "http://127.0.0.1:9", "--listen", "0"]
    )
    done = subprocess.run(
        [str(agui), *args, "--cors", origin], capture_output=True, text=True, timeout=30
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"agui: --cors: invalid origin {origin!r}: use scheme://host[:port],"
        " e.g. http://localhost:3000\n"
    )
