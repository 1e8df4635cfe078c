"""`agui proxy` pass-through between the real 0.33.2 ChatClient and the real 0.58.0 server.

Every native scenario of the test bed is driven through the proxy and held to exactly
the checks `test_testbed.py` holds the direct connection to, including that the server
received byte-for-byte what the client says it posted. The proxy records and checks as
it goes; its recordings check clean with `agui replay --check`, and `agui resume
--from` on a recorded pause is accepted by the real server.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from replay.proxy.app import ExchangeLog, ProxyOptions
from replay.proxy.live_check import LiveChecker
from replay.proxy.server import ProxyServer
from replay.wire.problems import Problem
from tests.interop.cases import NATIVE_CASES, TRANSFER_ID, Case
from tests.interop.harness import NodeServer
from tests.interop.test_testbed import test_native_case_end_to_end as direct_checks

pytestmark = pytest.mark.interop

RunClient = Callable[[dict[str, Any]], dict[str, Any]]


@dataclass
class Proxied:
    """Looks like the `NodeServer` to the test bed's checks, but the client goes through
    the proxy; `requests()` still reads what the real server received."""

    server: NodeServer
    proxy: ProxyServer

    def url(self, scenario: str) -> str:
        return f"{self.proxy.url}/scenario/{scenario}"

    def requests(self, thread_id: str | None = None) -> list[dict[str, Any]]:
        return self.server.requests(thread_id)


@dataclass
class Session:
    proxied: Proxied
    record: Path
    exchanges: list[ExchangeLog]
    findings: list[tuple[int, Problem]]
    checker: LiveChecker


@pytest.fixture(scope="module")
def session(
    native_server: NodeServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Session]:
    record = tmp_path_factory.mktemp("proxy") / "rec"
    exchanges: list[ExchangeLog] = []
    findings: list[tuple[int, Problem]] = []
    checker = LiveChecker(lambda number, problem: findings.append((number, problem)))
    options = ProxyOptions(upstream=native_server.base_url, record=record, check=True)
    proxy = ProxyServer(options, logger=exchanges.append, checker=checker).start()
    try:
        yield Session(Proxied(native_server, proxy), record, exchanges, findings, checker)
    finally:
        proxy.shutdown()


@pytest.mark.parametrize("case", NATIVE_CASES, ids=lambda c: c.name)
def test_every_native_scenario_passes_through(
    case: Case, session: Session, run_client_native: RunClient
) -> None:
    before = len(session.exchanges)
    direct_checks(case, session.proxied, run_client_native)  # type: ignore[arg-type]
    mine = session.exchanges[before:]
    assert [entry.end for entry in mine] == ["complete"] * len(mine)
    assert all(entry.saved is not None and entry.saved.exists() for entry in mine)


def test_the_recordings_check_clean_and_the_live_check_agreed(session: Session) -> None:
    streams = sorted(str(path) for path in session.record.glob("*.sse"))
    assert len(streams) >= len(NATIVE_CASES)
    assert not [name for name in streams if ".partial." in name]
    completed = subprocess.run(
        [sys.executable, "-c", "from cli.app import main; main()", "replay", "--check", *streams],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    session.checker.settle()
    errors = [(n, p) for n, p in session.findings if p.severity == "error"]
    assert errors == []
    assert session.checker.exchanges == len(session.exchanges)
    # Every stream has its request sidecar and a redacted exchange record.
    for name in streams:
        stem = name.removesuffix(".sse")
        assert Path(f"{stem}.request.json").exists()
        meta = json.loads(Path(f"{stem}.exchange.json").read_text())
        assert meta["complete"] is True
        assert meta["status"] == 200


def test_agui_resume_from_a_recorded_pause_is_accepted_by_the_real_server(
    session: Session, run_client_native: RunClient, tmp_path: Path
) -> None:
    script = {
        "url": session.proxied.url("tool-approval"),
        "scenario": "tool-approval",
        "threadId": "thread-proxy-resume",
        "tools": "tool-approval",
    }
    result = run_client_native(script)
    assert result["interruptsAfterRun1"][0]["id"] == TRANSFER_ID
    run_id = result["requests"][0]["runId"]
    (paused,) = session.record.glob(f"*-{run_id}.sse")
    completed = subprocess.run(
        [
            sys.executable,
            "-c",
            "from cli.app import main; main()",
            "resume",
            "--from",
            str(paused),
            "--approve",
            TRANSFER_ID,
            "--url",
            session.proxied.server.url("tool-approval"),
            "--no-input",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    events = [json.loads(line) for line in completed.stdout.splitlines() if line.strip()]
    assert events[-1]["type"] == "RUN_FINISHED"
    assert "outcome" not in events[-1] or events[-1]["outcome"]["type"] == "success"
    received = session.proxied.server.requests("thread-proxy-resume")
    assert received[-1]["parentRunId"] == run_id
    assert received[-1]["resume"][0]["interruptId"] == TRANSFER_ID
