"""A client that declares a body and stops sending it is answered 408 and logged, by
`replay --serve` and by `proxy` alike, instead of holding its connection for ever; a
body that keeps arriving, however slowly, is read whole. Real servers, a raw socket."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import replay.web.bodies
from replay.proxy.app import ExchangeLog, ProxyOptions
from replay.proxy.server import ProxyServer
from replay.serve.request_log import RequestLog
from replay.serve.serve_options import FAST, ServeOptions
from replay.serve.served_runs import load_recording
from replay.serve.server import ReplayServer

ROOT = Path(__file__).resolve().parents[3]
RUN = ROOT / "tests" / "fixtures" / "recordings" / "native" / "tool-approval.approve.run1.sse"
PATIENCE = 0.3


def _post_in_parts(url: str, parts: list[bytes], declared: int, pause: float) -> bytes:
    """POST with `Content-Length: declared`, sending `parts` `pause` seconds apart;
    the server's whole answer."""
    where = urlsplit(url)
    assert where.hostname is not None
    assert where.port is not None
    with socket.create_connection((where.hostname, where.port), timeout=10) as connection:
        connection.sendall(
            b"POST /chat HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {declared}\r\nConnection: close\r\n\r\n".encode()
        )
        for part in parts:
            connection.sendall(part)
            time.sleep(pause)
        answer = b""
        while chunk := connection.recv(1 << 16):
            answer += chunk
    return answer


@pytest.fixture
def impatient(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replay.web.bodies, "BODY_PATIENCE", PATIENCE)


@pytest.mark.usefixtures("impatient")
def test_the_replay_server_answers_a_stalled_body_408_and_logs_it() -> None:
    logged: list[RequestLog] = []
    options = ServeOptions(pace=FAST)
    with ReplayServer(
        load_recording([str(RUN)], options), options=options, logger=logged.append
    ) as server:
        started = time.monotonic()
        answer = _post_in_parts(server.url, [b'{"threadId":'], declared=100, pause=0)
        waited = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert answer.endswith(b"request body stalled: nothing received for too long\n")
    assert PATIENCE <= waited < 5
    assert [(entry.status, entry.detail) for entry in logged] == [
        (408, f"no body bytes for {PATIENCE:g} s after 12 received")
    ]


@pytest.mark.usefixtures("impatient")
def test_a_slow_body_that_keeps_coming_is_read_whole() -> None:
    logged: list[RequestLog] = []
    options = ServeOptions(pace=FAST)
    body = b"{}"
    parts = [body[:1], body[1:]]
    with ReplayServer(
        load_recording([str(RUN)], options), options=options, logger=logged.append
    ) as server:
        answer = _post_in_parts(server.url, parts, declared=len(body), pause=PATIENCE / 2)
    # Read whole: the empty RunAgentInput is TanStack's own 400, not a 408.
    assert answer.startswith(b"HTTP/1.1 400 ")
    assert [entry.status for entry in logged] == [400]


@pytest.mark.usefixtures("impatient")
def test_the_proxy_answers_a_stalled_body_408_and_logs_it_without_calling_upstream() -> None:
    upstream_log: list[RequestLog] = []
    logged: list[ExchangeLog] = []
    options = ServeOptions(pace=FAST)
    recording = load_recording([str(RUN)], options)
    with (
        ReplayServer(recording, options=options, logger=upstream_log.append) as upstream,
        ProxyServer(ProxyOptions(upstream=upstream.url), logger=logged.append) as proxy,
    ):
        answer = _post_in_parts(proxy.url, [b"{"], declared=50, pause=0)
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert [(entry.status, entry.detail) for entry in logged] == [
        (408, f"no body bytes for {PATIENCE:g} s after 1 received")
    ]
    assert upstream_log == []
